"""Scaling recipes: a tensor quantized into a minifloat format with float32
scales, one scale per group of elements.

``quantize(x, dtype, granularity=...)`` cuts `x` into groups, gives each
group one float32 scale and stores x / scale in `dtype` with a saturating
cast; ``QuantizedArray.dequantize()`` multiplies back. The recipes differ
only in the groups:

* ``"tensor"``: the whole tensor (scales has shape ()).
* ``"channel"``: one group per index along `axis`, the channel axis (scales
  has shape (x.shape[axis],); axis=0 is per-output-channel for (out, in)
  weights, per-token for (tokens, hidden) activations).
* ``"block"``: tiles of `block_shape` over the trailing len(block_shape)
  axes (each leading axis in steps of 1); partial tiles at the edges are
  groups of their own. The default (128, 128) with float8_e4m3fn is the
  DeepSeek-V3 weight recipe; (1, 128) its per-token-group activation one.
  scales has one entry per tile: ceil(n / b) along each blocked axis.

Rules (every group alike):

* The input is converted to float32 first (rounded once, nearest even), as
  ``mf.mx`` does; amax is the largest magnitude of the group's float32
  values.
* scale = amax / max(dtype) * 2**margin, rounded once to float32 (nearest
  even); with ``pow2_scales=True`` instead the smallest power of two that is
  at least that, 2**(ceil(log2(amax / max(dtype))) + margin). A scale that
  rounds to 0 becomes 2**-149 (the smallest float32), one past float32's
  range becomes float32's max (then elements saturate).
* elements = x / scale rounded once (nearest even) into `dtype`, saturating:
  magnitudes beyond the format's max give +-max (a scale rounded down
  leaves amax / scale a little above max). margin > 0 leaves headroom
  (scaled values reach max * 2**-margin).
* An all-zero group (or an empty tensor) has scale 1.0 and zero elements
  (keeping the sign of zero where the format has -0).
* A group holding a NaN or an infinity has scale NaN and its elements are
  the format's NaN, or +0 where the format has no NaN: it dequantizes to NaN
  (as an MX block with a NaN or inf does).
* ``dequantize()`` gives element * scale rounded once into float32
  (float64: exact; other dtypes: the exact value rounded once).

float8_e8m0fnu cannot hold data (no zero, no sign): use it for scales.
"""
import math
import numbers

import numpy as np

from . import _core
from ._cast import cast, minifloat_dtype

__all__ = ["GRANULARITIES", "QuantizedArray", "quantize"]

GRANULARITIES = ("tensor", "channel", "block")
_F32_TINY = np.float32(2.0**-149)
_F32_MAX = np.finfo(np.float32).max


class QuantizedArray:
    """``data`` (the elements, x's shape, in ``dtype``) and float32
    ``scales`` (see the module docstring for their shapes), with the recipe
    that made them."""

    __slots__ = ("data", "scales", "granularity", "axis", "block_shape", "margin", "pow2_scales")

    def __init__(self, data, scales, granularity, axis=None, block_shape=None, margin=0, pow2_scales=False):
        self.data = data
        self.scales = scales
        self.granularity = granularity
        self.axis = axis
        self.block_shape = block_shape
        self.margin = margin
        self.pow2_scales = pow2_scales

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def shape(self):
        return self.data.shape

    @property
    def nbytes(self):
        return self.data.nbytes + self.scales.nbytes

    def __repr__(self):
        detail = {"tensor": "", "channel": f", axis={self.axis}", "block": f", block_shape={self.block_shape}"}
        return (f"QuantizedArray(granularity={self.granularity!r}{detail[self.granularity]}, "
                f"dtype={self.data.dtype}, shape={self.data.shape}, scales={self.scales.shape})")

    def scale_per_element(self):
        """The scales broadcast (tensor, channel) or repeated (block) to the
        data's shape, as float32."""
        return _scale_per_element(self.scales, self.data.shape, self.granularity, self.axis, self.block_shape)

    def dequantize(self, dtype=np.float32):
        """element * scale rounded once into `dtype` (float32 by default;
        float64 holds it exactly)."""
        dtype = np.dtype(dtype)
        scales = self.scale_per_element()
        if dtype == np.float32:
            return self.data.astype(np.float32) * scales  # the product of an element and a float32, rounded once
        exact = self.data.astype(np.float64) * scales.astype(np.float64)  # <= 8 + 24 significant bits: exact
        return exact if dtype == np.float64 else exact.astype(dtype)


def _scale_per_element(scales, shape, granularity, axis, block_shape):
    if granularity == "tensor":
        return np.broadcast_to(scales, shape)
    if granularity == "channel":
        view = [1] * len(shape)
        view[axis] = shape[axis]
        return np.broadcast_to(scales.reshape(view), shape)
    expanded = scales
    for a, (size, step) in enumerate(zip(shape, _full_block_shape(shape, block_shape))):
        if step != 1:
            expanded = np.repeat(expanded, step, axis=a)[(slice(None),) * a + (slice(0, size),)]
    return expanded


def _full_block_shape(shape, block_shape):
    """One block size per axis: 1 on the leading axes."""
    return (1,) * (len(shape) - len(block_shape)) + tuple(block_shape)


def _checked_block_shape(block_shape, ndim):
    if isinstance(block_shape, numbers.Integral) and not isinstance(block_shape, bool):
        block_shape = (block_shape,)
    try:
        block_shape = tuple(block_shape)
    except TypeError:
        raise TypeError(f"block_shape must be a tuple of positive integers, not {block_shape!r}") from None
    if not block_shape or not all(isinstance(b, numbers.Integral) and not isinstance(b, bool) and b > 0
                                  for b in block_shape):
        raise ValueError(f"block_shape must be a tuple of positive integers, not {block_shape!r}")
    if len(block_shape) > ndim:
        raise ValueError(f"block_shape {block_shape} has {len(block_shape)} entries but x has {ndim} "
                         f"dimension{'s' if ndim != 1 else ''}")
    return tuple(int(b) for b in block_shape)


def _group_maxima(x32, granularity, axis, block_shape):
    """(amax, non_finite) per group, shaped as the scales."""
    magnitude = np.abs(x32)
    non_finite = ~np.isfinite(x32)
    if granularity == "tensor":
        if x32.size == 0:
            return np.float32(0), np.False_
        return magnitude.max(where=~non_finite, initial=np.float32(0)), non_finite.any()
    if granularity == "channel":
        others = tuple(a for a in range(x32.ndim) if a != axis)
        return (magnitude.max(axis=others, where=~non_finite, initial=np.float32(0)),
                non_finite.any(axis=others))
    blocks = _full_block_shape(x32.shape, block_shape)
    counts = [-(-size // step) for size, step in zip(x32.shape, blocks)]
    padded_shape = [c * step for c, step in zip(counts, blocks)]
    pad = [(0, p - size) for p, size in zip(padded_shape, x32.shape)]
    magnitude = np.pad(np.where(non_finite, np.float32(0), magnitude), pad)
    non_finite = np.pad(non_finite, pad)
    tiled = [d for c, step in zip(counts, blocks) for d in (c, step)]
    inside = tuple(range(1, 2 * x32.ndim, 2))
    return magnitude.reshape(tiled).max(axis=inside), non_finite.reshape(tiled).any(axis=inside)


def _scales(amax, non_finite, max_value, margin, pow2_scales):
    """float32 scales from the groups' maxima (see the module docstring)."""
    amax = np.asarray(amax, np.float32)
    zero = amax == 0
    safe = np.where(zero, np.float32(1), amax).astype(np.float64)
    if pow2_scales:
        # ceil(log2(amax / max)) exactly: with amax = fa * 2^ea and
        # max = fm * 2^em (fa, fm in [0.5, 1)), it is ea - em + (fa > fm)
        fa, ea = np.frexp(safe)
        fm, em = math.frexp(max_value)
        exponent = ea - em + (fa > fm).astype(np.int64) + margin
        scales = np.ldexp(np.float64(1), np.clip(exponent, -149, 127)).astype(np.float32)
    else:
        # amax / max in float64 (the quotient of 24-bit and <= 24-bit
        # significands: rounding it to float64 first and then to float32 is
        # the same as rounding it once), times 2^margin exactly
        with np.errstate(over="ignore"):
            scales = (safe / max_value * 2.0**margin).astype(np.float32)
        scales = np.clip(scales, _F32_TINY, _F32_MAX)
    scales = np.where(zero, np.float32(1), scales)
    return np.where(non_finite, np.float32(np.nan), scales).astype(np.float32)


def quantize(x, dtype, *, granularity="tensor", axis=0, block_shape=(128, 128), margin=0, pow2_scales=False):
    """Quantize `x` into the minifloat format `dtype` with float32 scales per
    tensor, per channel along `axis`, or per tile of `block_shape` (see the
    module docstring for the rules). Returns a QuantizedArray."""
    target = minifloat_dtype(dtype, "mf.quant.quantize")
    info = _core.format_info(target.name)
    if not info["is_signed"]:
        raise ValueError(f"{target.name} has no zero or sign and cannot hold data; use it for scales")
    if granularity not in GRANULARITIES:
        raise ValueError(f"granularity must be one of {', '.join(map(repr, GRANULARITIES))}, not {granularity!r}")
    if not isinstance(margin, numbers.Integral) or isinstance(margin, bool) or not -128 <= margin <= 128:
        raise ValueError(f"margin must be an integer in [-128, 128], not {margin!r}")
    margin = int(margin)
    arr = np.asarray(x)
    if arr.dtype.kind not in "biuf" and not isinstance(arr.dtype, _core.MinifloatDType):
        raise TypeError(f"mf.quant.quantize needs real numbers, not {arr.dtype}")
    x32 = arr.astype(np.float32)  # rounded once, as mf.mx does
    kept_axis, kept_blocks = None, None
    if granularity == "channel":
        if x32.ndim == 0:
            raise ValueError("per-channel scaling needs an array with at least one dimension")
        kept_axis = np.lib.array_utils.normalize_axis_index(axis, x32.ndim)
    elif granularity == "block":
        kept_blocks = _checked_block_shape(block_shape, x32.ndim)
    max_value = float(np.finfo(target).max)
    amax, non_finite = _group_maxima(x32, granularity, kept_axis, kept_blocks)
    scales = _scales(amax, non_finite, max_value, margin, bool(pow2_scales))
    per_element = _scale_per_element(scales, x32.shape, granularity, kept_axis, kept_blocks).astype(np.float64)
    bad = np.isnan(per_element)
    with np.errstate(invalid="ignore", divide="ignore"):
        quotient = x32.astype(np.float64) / per_element  # rounded to float64: then once into `dtype` (see above)
    data = cast(np.where(bad, 0.0, quotient), target, saturate=True)
    if bad.any():
        data[bad] = np.array(np.nan).astype(target) if info["has_nan"] else np.zeros((), target)
    return QuantizedArray(data, scales, granularity, kept_axis, kept_blocks, margin, bool(pow2_scales))
