"""Block-scaled formats: OCP Microscaling (MX) v1.0 and NVIDIA's NVFP4.

``quantize`` cuts `x` into blocks along `axis` and stores each block as one
shared scale plus narrow elements:

==============  ===================  =====================  ==========  =====
format          elements             scales                 block size  emax
==============  ===================  =====================  ==========  =====
"mxfp8_e4m3"    float8_e4m3fn        float8_e8m0fnu         32          8
"mxfp8_e5m2"    float8_e5m2          float8_e8m0fnu         32          15
"mxfp6_e3m2"    float6_e3m2fn        float8_e8m0fnu         32          4
"mxfp6_e2m3"    float6_e2m3fn        float8_e8m0fnu         32          2
"mxfp4_e2m1"    float4_e2m1fn        float8_e8m0fnu         32          2
"mxint8"        int8 (units 2^-6)    float8_e8m0fnu         32          0
"nvfp4"         float4_e2m1fn        float8_e4m3fn          16          --
==============  ===================  =====================  ==========  =====

MX (spec §6.3): for a block with largest magnitude amax the shared exponent
is E (clamped to [-127, 127]), the scale X = 2^E, and every element is
V / X rounded once to nearest even and clamped to the element's largest
value (MXINT8: round(V / X * 64) clamped to [-127, 127]). A block holding
NaN or inf gets the NaN scale (0xFF) and NaN elements where the element
format has NaN (else 0); an all-zero block gets the scale 2^-127. E by
``scale_mode``:

* "floor" (the spec): floor(log2(amax)) - emax.
* "ceil": ceil(log2(amax)) - emax.
* "even": floor(log2(a')) - emax, a' = amax rounded to nearest even at the
  element's precision, so a maximum that rounds into the next binade moves
  the scale up instead of being clamped.
* "rceil": ceil(log2(amax / max_element)), the smallest scale at which no
  element saturates (NVIDIA's RCEIL).

NVFP4: scale s = float8_e4m3fn(amax / (6 t)), elements
float4_e2m1fn(V / (s t)), both rounded once to nearest even with
saturation; t is the optional float32 per-tensor scale (``tensor_scale``:
None for 1, a number, or "auto" for amax(|x|) / (6 * 448)).

Inputs are converted to float32 (nearest even) first, as the spec's
conversion starts from FP32.
"""
import math

import numpy as np

from . import _core
from ._core import bfloat16, float4_e2m1fn, float6_e2m3fn, float6_e3m2fn, float8_e4m3fn, float8_e5m2

__all__ = ["FORMATS", "MXArray", "quantize"]

# format -> (element format, None for MXINT8's int8; default block size)
_SPEC = {
    "mxfp8_e4m3": (float8_e4m3fn, 32),
    "mxfp8_e5m2": (float8_e5m2, 32),
    "mxfp6_e3m2": (float6_e3m2fn, 32),
    "mxfp6_e2m3": (float6_e2m3fn, 32),
    "mxfp4_e2m1": (float4_e2m1fn, 32),
    "mxint8": (None, 32),
    "nvfp4": (float4_e2m1fn, 16),
}


def _element_parameters(element):
    """(emax, largest magnitude, significand bits) of an element format, read
    from the format table; MXINT8 is 1.111111 (binary) at most, in 2^-6 steps."""
    if element is None:
        return 0, 127.0 / 64.0, 7
    largest = float(np.finfo(element).max)
    mantissa_bits = _core.format_info(np.dtype(element).name)["mantissa_bits"]
    return math.floor(math.log2(largest)), largest, mantissa_bits + 1


# format -> (element scalar type or None for int8, emax, max element,
#            significand bits, default block size)
FORMATS = {name: (element, *_element_parameters(element), block) for name, (element, block) in _SPEC.items()}
SCALE_MODES = ("floor", "ceil", "even", "rceil")


class MXArray:
    """A block-quantized array: ``data`` (elements, the input's shape),
    ``scales`` (one per block along ``axis``), and for NVFP4 a float32
    ``tensor_scale`` (None when not used)."""

    __slots__ = ("data", "scales", "format", "block_size", "axis", "tensor_scale")

    def __init__(self, data, scales, format, block_size, axis, tensor_scale=None):
        self.data = data
        self.scales = scales
        self.format = format
        self.block_size = block_size
        self.axis = axis
        self.tensor_scale = tensor_scale

    @property
    def shape(self):
        return self.data.shape

    def __repr__(self):
        return (f"MXArray(format={self.format!r}, shape={self.data.shape}, block_size={self.block_size}, "
                f"axis={self.axis}, data={self.data.dtype}, scales={self.scales.dtype})")

    def dequantize(self, dtype=np.float32):
        """The represented values (element * scale [* tensor_scale]), in `dtype`."""
        elements = self.data.astype(np.float64)
        if self.format == "mxint8":
            elements = elements / 64.0
        count = self.data.shape[self.axis]
        if not isinstance(self.block_size, (int, np.integer)) or self.block_size < 1:
            raise ValueError(f"MXArray.block_size must be a positive integer, not {self.block_size!r}")
        blocks = -(-count // int(self.block_size))
        if self.scales.shape[self.axis] != blocks:
            raise ValueError(f"MXArray has {self.scales.shape[self.axis]} scales along axis {self.axis} "
                             f"for {blocks} blocks of {self.block_size}")
        # each element's block, without materializing block_size copies
        scale = np.take(self.scales.astype(np.float64), np.arange(count) // self.block_size, axis=self.axis)
        values = elements * scale  # exact: few significant bits times a power of two or e4m3
        if self.tensor_scale is not None:
            values = values * float(self.tensor_scale)
        return values.astype(dtype)


def _tensor_scale(x32, tensor_scale):
    if tensor_scale is None:
        return None
    if isinstance(tensor_scale, str):
        if tensor_scale != "auto":
            raise ValueError(f"tensor_scale must be None, a number or 'auto', not {tensor_scale!r}")
        amax = float(np.max(np.abs(x32))) if x32.size else 0.0
        return np.float32(amax / (6.0 * 448.0)) if amax > 0 and np.isfinite(amax) else np.float32(1.0)
    return np.float32(tensor_scale)


def quantize(x, fmt, *, axis=-1, block_size=None, scale_mode="floor", tensor_scale=None):
    """Block-quantize `x` along `axis` into `fmt` (see the module docstring)."""
    if fmt not in FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(map(repr, FORMATS))}, not {fmt!r}")
    if scale_mode not in SCALE_MODES:
        raise ValueError(f"scale_mode must be one of {', '.join(map(repr, SCALE_MODES))}, not {scale_mode!r}")
    element, emax, max_element, significand_bits, default_block = FORMATS[fmt]
    block_size = default_block if block_size is None else int(block_size)
    if block_size <= 0:
        raise ValueError(f"block_size must be positive, not {block_size}")
    arr = np.asarray(x)
    if arr.dtype.kind not in "biuf" and not isinstance(arr.dtype, _core.MinifloatDType):
        raise TypeError(f"mf.mx.quantize needs real numbers, not {arr.dtype}")
    if arr.ndim == 0:
        arr = arr.reshape(1)
    axis = np.lib.array_utils.normalize_axis_index(axis, arr.ndim)
    x32 = arr.astype(np.float32, copy=False)  # the spec starts from FP32 (rounded once)
    moved = np.moveaxis(x32, axis, -1)
    rows = np.ascontiguousarray(moved.reshape(math.prod(moved.shape[:-1]), moved.shape[-1]))
    # a block longer than the axis is one block of the axis's length: work
    # and memory follow the data, not block_size
    kernel_block = min(block_size, max(rows.shape[1], 1))
    t = None
    if fmt == "nvfp4":
        t = _tensor_scale(x32, tensor_scale)
        data, scales = _core.nvfp4_quantize(rows, kernel_block, float(1.0 if t is None else t))
    else:
        if tensor_scale is not None:
            raise ValueError("tensor_scale applies to 'nvfp4' only")
        element_index = -1 if element is None else _core.format_index(np.dtype(element).name)
        data, scales = _core.mx_quantize(rows, element_index, emax, max_element, significand_bits,
                                         kernel_block, scale_mode)
    lead = moved.shape[:-1]
    data = np.moveaxis(data.reshape(lead + (moved.shape[-1],)), -1, axis)
    scales = np.moveaxis(scales.reshape(lead + (scales.shape[-1],)), -1, axis)
    return MXArray(np.ascontiguousarray(data), np.ascontiguousarray(scales), fmt, block_size, axis, t)
