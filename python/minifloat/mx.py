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

``block_size`` sets the MX formats' block size (OCP MX defines them with a
block size k; its concrete formats use 32, the default here); NVFP4's 16 is
part of that format and cannot be changed. Sizes and axes are integers
(``operator.index``: no floats, strings or bools), and `x` needs at least
one dimension.

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
None for 1, a number, or "auto" for the largest finite abs(x) / (6 * 448)).

Inputs are converted to float32 (nearest even) first, as the spec's
conversion starts from FP32.

``MXArray.dequantize()`` gives element * scale [* tensor_scale] rounded once
to float32 (float64: exact), in one pass in C++. ``MXArray.from_parts``
builds an MXArray from existing codes and scales (also FP4 packed two per
byte, low nibble first, as torch's float4_e2m1fn_x2 and NVIDIA ModelOpt
NVFP4 checkpoints store them); ``save`` / ``MXArray.load`` keep one in a
pickle-free .npz. ``matmul`` / ``dot`` multiply MX arrays as OCP MX v1.0
section 6.2 defines the dot product (exact element products, scaled by both
shared scales, block results accumulated in float32; the order is stated in
``matmul``'s docstring).
"""
import math
import numbers

import numpy as np

from . import _arguments, _core
from ._core import float4_e2m1fn, float6_e2m3fn, float6_e3m2fn, float8_e4m3fn, float8_e5m2, float8_e8m0fnu
from ._dlpack import from_dlpack as _from_dlpack
from ._ml_dtypes import as_minifloat_array as _as_minifloat_array
from ._packing import pack as _pack_codes
from ._packing import packed_size, unpack as _unpack_codes

__all__ = ["FORMATS", "MXArray", "SCALE_MODES", "dot", "matmul", "packed_size", "quantize"]

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
# Formats whose block size is part of their definition: NVFP4 is 16 values
# per float8_e4m3fn scale (NVIDIA's format; another size is another format).
# OCP MX v1.0 defines its formats with a block size parameter k (32 in its
# concrete formats), which block_size sets.
_FIXED_BLOCK_SIZE = frozenset({"nvfp4"})


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
#: The formats: name -> (element scalar type or None for MXINT8's int8,
#: emax, largest element, significand bits, default block size).
FORMATS = {name: (element, *_element_parameters(element), block) for name, (element, block) in _SPEC.items()}
#: The ``scale_mode`` choices of ``quantize``.
SCALE_MODES = ("floor", "ceil", "even", "rceil")


# element bits as stored packed
_ELEMENT_BITS = {"mxfp8_e4m3": 8, "mxfp8_e5m2": 8, "mxfp6_e3m2": 6, "mxfp6_e2m3": 6, "mxfp4_e2m1": 4,
                 "mxint8": 8, "nvfp4": 4}
_SAVE_VERSION = 1


def _element_dtype(fmt):
    element = _parameters(fmt)[0]
    return np.dtype(np.int8) if element is None else np.dtype(element)


def _scale_dtype(fmt):
    return np.dtype(float8_e4m3fn if fmt == "nvfp4" else float8_e8m0fnu)


def _codes(array):
    """The 1-byte codes of an element or scale array, as uint8 (no copy)."""
    return np.ascontiguousarray(array).view(np.uint8)


def _format_spec(fmt):
    """(name, FORMATS-style row) of an MX format: one of FORMATS by name, or
    MX with a minifloat element format given as its dtype, scalar type or
    name (built-in or made by mf.float_format in this process)."""
    if isinstance(fmt, str) and fmt in FORMATS:
        return fmt, FORMATS[fmt]
    spec = _mx_with_element(fmt)
    if spec is None:
        raise ValueError(f"fmt must be one of {', '.join(map(repr, FORMATS))} or a minifloat dtype of "
                         f"8 bits or fewer, not {fmt!r}")
    return spec


def _parameters(fmt):
    return _format_spec(fmt)[1]


def _element_bits(fmt):
    """Bits per element as stored packed."""
    if fmt in _ELEMENT_BITS:
        return _ELEMENT_BITS[fmt]
    return _core.format_info(np.dtype(_parameters(fmt)[0]).name)["bits"]


class MXArray:
    """A block-quantized array: narrow elements and one shared scale per block.

    Made by ``quantize`` (or ``MXArray.from_parts`` from existing codes,
    ``MXArray.load`` from a file); the constructor takes the parts as they
    are, unchecked. The value of an element is
    ``element * scale [* tensor_scale]``.

    Parameters
    ----------
    data : ndarray
        The elements, in the input's shape: the element format's dtype
        (MXINT8: int8).
    scales : ndarray
        One per block along `axis` (the data's shape with that axis cut to
        ``ceil(n / block_size)``): float8_e8m0fnu (MX) or float8_e4m3fn
        (NVFP4).
    format : str
        One of ``FORMATS`` (or a minifloat format's name, see ``quantize``).
    block_size : int
        Values per block.
    axis : int
        The blocked axis (non-negative).
    tensor_scale : numpy.float32 or None, optional
        NVFP4's per-tensor scale (None: 1).

    Attributes
    ----------
    data, scales, format, block_size, axis, tensor_scale
        As above.

    See Also
    --------
    quantize, matmul, dot

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> q = mf.mx.quantize(np.array([0.1, 0.2, 3.0, -4.0]), "mxfp8_e4m3")
    >>> q
    MXArray(format='mxfp8_e4m3', shape=(4,), block_size=32, axis=0, data=float8_e4m3fn, scales=float8_e8m0fnu)
    >>> q.data.tolist(), q.scales.tolist()
    ([6.5, 13.0, 192.0, -256.0], [0.015625])
    >>> q.dequantize().tolist()
    [0.1015625, 0.203125, 3.0, -4.0]
    """

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
        """The shape of the represented array (``data.shape``)."""
        return self.data.shape

    @property
    def ndim(self):
        """The number of dimensions (``data.ndim``)."""
        return self.data.ndim

    @property
    def size(self):
        """The number of values (``data.size``)."""
        return self.data.size

    @property
    def nbytes(self):
        """Bytes of the packed form: the elements packed (``pack()``), one
        byte per scale, and 4 for a float32 tensor scale."""
        data_bytes = packed_size(self.data.size, _element_bits(self.format))
        return data_bytes + self.scales.size + (0 if self.tensor_scale is None else 4)

    def __repr__(self):
        return (f"MXArray(format={self.format!r}, shape={self.data.shape}, block_size={self.block_size}, "
                f"axis={self.axis}, data={self.data.dtype}, scales={self.scales.dtype})")

    def _layout(self):
        shape = self.data.shape
        outer = math.prod(shape[: self.axis])
        inner = math.prod(shape[self.axis + 1:])
        return outer, shape[self.axis], inner

    def dequantize(self, dtype=np.float32):
        """The represented values, ``element * scale [* tensor_scale]``.

        Computed in one pass in C++ and rounded once into `dtype`. NaN and
        inf blocks (NaN scale) dequantize to NaN.

        Parameters
        ----------
        dtype : floating-point dtype, optional
            float32 (default), float64 (which holds every value exactly), or
            any other float dtype, NumPy's, a minifloat format or ml_dtypes'
            (rounded by minifloat, then viewed as ml_dtypes').

        Returns
        -------
        ndarray
            An array of `dtype` and the data's shape.

        Raises
        ------
        TypeError
            If `dtype` is not a floating-point dtype.
        ValueError
            If the parts do not fit together (scales' shape, block size).

        Examples
        --------
        >>> import numpy as np, minifloat as mf
        >>> q = mf.mx.quantize(np.arange(16.0), "nvfp4", tensor_scale="auto")
        >>> q.dequantize()[:6].tolist()
        [0.0, 1.25, 2.5, 2.5, 3.75, 5.0]
        """
        requested, dtype = dtype, _arguments.float_dtype(dtype)
        element = _parameters(self.format)[0]
        element_index = -1 if element is None else _core.format_index(np.dtype(element).name)
        scale_index = _core.format_index(_scale_dtype(self.format).name)
        outer, count, inner = self._layout()
        # not _arguments.positive_integer: a bad attribute of a built MXArray is
        # parts that do not fit together, a ValueError (as the docstring says)
        if not isinstance(self.block_size, numbers.Integral) or isinstance(self.block_size, bool) \
                or self.block_size < 1:
            raise ValueError(f"MXArray.block_size must be a positive integer, not {self.block_size!r}")
        blocks = -(-count // int(self.block_size))
        if self.scales.shape[self.axis] != blocks:
            raise ValueError(f"MXArray has {self.scales.shape[self.axis]} scales along axis {self.axis} "
                             f"for {blocks} blocks of {self.block_size}")
        # a block longer than the axis is one block of the axis's length
        kernel_block = min(int(self.block_size), max(count, 1))
        t = 1.0 if self.tensor_scale is None else float(self.tensor_scale)
        values = _core.mx_dequantize(_codes(self.data), _codes(self.scales), element_index, scale_index,
                                     kernel_block, outer, count, inner, t, dtype != np.float32)
        if dtype in (np.float32, np.float64):
            return values
        # from the exact float64 values: one rounding
        return _arguments.as_requested(values.astype(dtype), requested)

    def pack(self):
        """The elements packed and the scale codes, as bytes.

        Returns
        -------
        data : ndarray
            The elements as ``mf.pack`` writes them (FP4: two per byte, low
            nibble first; MXINT8: the int8 bytes), 1-D uint8 in C order.
        scales : ndarray
            The scale codes, 1-D uint8 in C order. ``nbytes`` is the total
            size of both (plus 4 for a tensor scale).

        Examples
        --------
        >>> import numpy as np, minifloat as mf
        >>> q = mf.mx.quantize(np.array([0.1, 0.2, 3.0, -4.0]), "mxfp4_e2m1")
        >>> q.pack()
        (array([  0, 229], dtype=uint8), array([127], dtype=uint8))
        """
        if self.format == "mxint8":
            data = _codes(self.data).reshape(-1).copy()
        else:
            data = _pack_codes(self.data)
        return data, _codes(self.scales).reshape(-1).copy()

    def save(self, file):
        """Write the whole MXArray to an .npz file without pickles.

        The archive holds ``data`` (the packed elements, uint8), ``scales``
        (the scale codes, uint8, their shape) and ``meta`` (a JSON string:
        format, shape, axis, block size, tensor scale).

        Parameters
        ----------
        file : str, os.PathLike or binary file object
            Where to write; ``np.savez`` adds ".npz" to a path without it.

        Returns
        -------
        None

        See Also
        --------
        MXArray.load

        Examples
        --------
        >>> import io, numpy as np, minifloat as mf
        >>> q = mf.mx.quantize(np.array([0.1, 0.2, 3.0, -4.0]), "mxfp8_e4m3")
        >>> f = io.BytesIO()
        >>> q.save(f)
        >>> _ = f.seek(0)
        >>> mf.mx.MXArray.load(f).dequantize().tolist()
        [0.1015625, 0.203125, 3.0, -4.0]
        """
        from ._io import save_with_meta

        data, _ = self.pack()
        meta = {
            "format": self.format,
            "shape": list(self.data.shape),
            "axis": int(self.axis),
            "block_size": int(self.block_size),
            "tensor_scale": None if self.tensor_scale is None else float(self.tensor_scale).hex(),
        }
        save_with_meta(file, "MXArray", "minifloat_mxarray", _SAVE_VERSION, meta,
                       {"data": data, "scales": _codes(self.scales).copy()})

    @classmethod
    def load(cls, file):
        """Read an MXArray written by ``MXArray.save``.

        Parameters
        ----------
        file : str, os.PathLike or binary file object
            The .npz file.

        Returns
        -------
        MXArray
            Checked as ``from_parts`` checks its parts.

        Raises
        ------
        ValueError
            If the file is not an MXArray file or its parts do not fit
            together.

        Examples
        --------
        >>> import io, numpy as np, minifloat as mf
        >>> f = io.BytesIO()
        >>> mf.mx.quantize(np.ones((2, 32)), "mxfp6_e3m2").save(f)
        >>> _ = f.seek(0)
        >>> mf.mx.MXArray.load(f)
        MXArray(format='mxfp6_e3m2', shape=(2, 32), block_size=32, axis=1, data=float6_e3m2fn, scales=float8_e8m0fnu)
        """
        from ._io import load_with_meta

        arrays, meta = load_with_meta(file, "an MXArray", "minifloat_mxarray", _SAVE_VERSION, ("data", "scales"))
        try:
            fmt, shape, axis = meta["format"], tuple(int(s) for s in meta["shape"]), int(meta["axis"])
            block_size, tensor_scale = int(meta["block_size"]), meta["tensor_scale"]
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(f"not an MXArray file: bad metadata ({error})") from error
        data, scales = arrays["data"], arrays["scales"]
        if tensor_scale is not None:
            if not isinstance(tensor_scale, str):
                raise ValueError(f"not an MXArray file: bad metadata (tensor_scale {tensor_scale!r} is not a "
                                 f"hexadecimal float string)")
            try:
                tensor_scale = np.float32(float.fromhex(tensor_scale))
            except ValueError as error:
                raise ValueError(f"not an MXArray file: bad metadata (tensor_scale: {error})") from error
        return cls.from_parts(data, scales, fmt, axis=axis, block_size=block_size, tensor_scale=tensor_scale,
                              packed=True, shape=shape)

    @classmethod
    def from_parts(cls, data, scales, fmt, *, axis=-1, block_size=None, tensor_scale=None, packed=False,
                   shape=None):
        """Build an MXArray from existing element codes and scales.

        Parameters
        ----------
        data : array_like
            The elements as their format's dtype (MXINT8: int8) or as uint8
            codes (ml_dtypes' arrays and torch's tensors too); with
            ``packed=True``, packed bytes (uint8, or torch's
            float4_e2m1fn_x2): either rows
            packed along the last axis (FP4: two codes per byte, the first
            in the low nibble, as torch's float4_e2m1fn_x2 and NVIDIA
            ModelOpt store NVFP4 weights; FP6: four codes per three bytes),
            giving the shape ``data.shape[:-1] + (last * 8 // bits,)``, or,
            with `shape`, the bitstream ``mf.pack`` writes for that shape.
        scales : array_like
            float8_e8m0fnu (MX) or float8_e4m3fn (NVFP4) values or their
            uint8 codes, shaped as the data with `axis` cut to
            ``ceil(n / block_size)``.
        fmt : str
            One of ``FORMATS``.
        axis : int, optional
            The blocked axis (default -1).
        block_size : int, optional
            Values per block (None: the format's; NVFP4: 16 only).
        tensor_scale : float or array_like, optional
            NVFP4's float32 second-level scale (a number or a one-element
            array, e.g. ModelOpt's ``weight_scale_2``); None for 1.
        packed : bool, optional
            Whether `data` holds packed bytes.
        shape : tuple of ints, optional
            The values' shape, for `data` packed as one bitstream.

        Returns
        -------
        MXArray

        Raises
        ------
        TypeError
            If `data` or `scales` has a dtype the format cannot take.
        ValueError
            If shapes, block size or codes do not fit the format (the
            message says what was expected).

        Examples
        --------
        >>> import numpy as np, minifloat as mf
        >>> q = mf.mx.MXArray.from_parts(np.array([[0x21, 0x43]], dtype=np.uint8),
        ...                              np.array([[127]], dtype=np.uint8), "mxfp4_e2m1", packed=True)
        >>> q.shape, q.dequantize().tolist()
        ((1, 4), [[0.5, 1.0, 1.5, 2.0]])
        """
        fmt, parameters = _format_spec(fmt)
        element_dtype = _element_dtype(fmt)
        bits = _element_bits(fmt)
        block_size = _block_size(fmt, parameters, block_size)
        packed = _arguments.flag(packed, "packed")
        if shape is not None:
            shape = _arguments.shape(shape)
        data = _parts_array(data)
        if data.ndim == 0:
            raise ValueError("data must have at least one dimension")
        if packed and data.dtype == element_dtype:
            # torch's float4_e2m1fn_x2 through DLPack: the pairs are already apart
            if shape is not None and tuple(shape) != data.shape:
                raise ValueError(f"shape {tuple(shape)} does not match the data's {data.shape}")
            data = np.ascontiguousarray(data)
        elif packed:
            data = _unpacked_elements(data, fmt, element_dtype, bits, shape)
        else:
            if shape is not None:
                raise ValueError("shape is only for packed=True data")
            data = _element_codes(data, fmt, element_dtype, bits)
        axis = _arguments.axis(axis, data.ndim)
        scales = _scale_codes(_parts_array(scales), fmt)
        expected = data.shape[:axis] + (-(-data.shape[axis] // block_size),) + data.shape[axis + 1:]
        if scales.shape != expected:
            raise ValueError(f"scales must have shape {expected} (the data's {data.shape} with axis {axis} in "
                             f"blocks of {block_size}), not {scales.shape}")
        if fmt == "nvfp4":
            tensor_scale = _checked_tensor_scale(tensor_scale)
            signed = scales.view(np.uint8) >= 0x80
            if signed.any():  # (UE4M3: float8_e4m3fn without its sign)
                code = int(scales.view(np.uint8)[signed][0])
                raise ValueError(f"nvfp4 block scales are unsigned (UE4M3): code {code:#04x} has the sign bit set "
                                 f"({int(signed.sum())} of them); np.abs of the scales, or codes & 0x7F")
        elif tensor_scale is not None:
            raise ValueError(f"tensor_scale applies to 'nvfp4' only, not {fmt!r}")
        return cls(data, scales, fmt, block_size, axis, tensor_scale)


def _parts_array(obj):
    """Data or scales given to from_parts as an array: ml_dtypes' as
    minifloat's of the same format, and tensors NumPy cannot read (torch's
    float8, bfloat16 and float4_e2m1fn_x2, as safetensors.torch loads a
    checkpoint) through DLPack."""
    if not isinstance(obj, np.ndarray) and hasattr(obj, "__dlpack__"):
        try:
            obj = np.asarray(obj)
        except (TypeError, ValueError, RuntimeError, BufferError):
            return _from_dlpack(obj)
    return _as_minifloat_array(np.asarray(obj))


def _element_codes(data, fmt, element_dtype, bits):
    """Element codes (unpacked) as a C-contiguous array of the element dtype."""
    if data.dtype == element_dtype:
        return np.ascontiguousarray(data)
    if data.dtype == np.uint8 or (fmt == "mxint8" and data.dtype == np.int8):
        if bits < 8 and data.size and int(data.max()) >= 1 << bits:
            raise ValueError(f"{fmt} element codes have {bits} bits: {int(data.max())} is not one "
                             f"(packed bytes need packed=True)")
        return np.ascontiguousarray(data).view(element_dtype)
    raise TypeError(f"{fmt} data must be {element_dtype} values or uint8 codes, not {data.dtype} "
                    f"(quantize real numbers with mf.mx.quantize)")


def _unpacked_elements(data, fmt, element_dtype, bits, shape):
    if data.dtype != np.uint8:
        raise TypeError(f"packed {fmt} data must be uint8 bytes, not {data.dtype}")
    if shape is None:
        if (data.shape[-1] * 8) % bits:
            raise ValueError(f"rows of {data.shape[-1]} bytes do not hold whole {bits}-bit codes: "
                             f"pass shape=")
        shape = data.shape[:-1] + (data.shape[-1] * 8 // bits,)
    if fmt == "mxint8":
        if data.size != math.prod(shape):
            raise ValueError(f"{math.prod(shape)} int8 elements take {math.prod(shape)} bytes, "
                             f"not {data.size}")
        return np.ascontiguousarray(data).reshape(shape).view(np.int8)
    return _unpack_codes(np.ascontiguousarray(data).reshape(-1), element_dtype, shape)


def _scale_codes(scales, fmt):
    scale_dtype = _scale_dtype(fmt)
    if scales.dtype == scale_dtype:
        return np.ascontiguousarray(scales)
    if scales.dtype == np.uint8:
        return np.ascontiguousarray(scales).view(scale_dtype)
    raise TypeError(f"{fmt} scales must be {scale_dtype} values or uint8 codes, not {scales.dtype}")


def _checked_tensor_scale(tensor_scale, allowed="None or a real number"):
    """NVFP4's tensor scale as a float32 (None: none): one real number (a
    one-element array too); a bool, a string or another non-number is a
    TypeError, several numbers or one that is not positive and finite in
    float32 a ValueError."""
    if tensor_scale is None:
        return None
    given = _arguments.shown(tensor_scale)
    if _arguments.is_bool(tensor_scale):
        raise TypeError(f"tensor_scale must be {allowed}, not {given}")
    if isinstance(tensor_scale, numbers.Real) and not isinstance(tensor_scale, np.generic):
        try:  # a Python int, float, Fraction, ...
            tensor_scale = float(tensor_scale)
        except OverflowError:
            tensor_scale = math.inf
    t = np.asarray(tensor_scale)
    if t.dtype.kind not in "iuf":
        raise TypeError(f"tensor_scale must be {allowed}, not {given}")
    if t.size != 1:
        raise ValueError(f"tensor_scale must be one real number, not {given}")
    with np.errstate(over="ignore"):
        value = np.float32(t.reshape(()).astype(np.float32))
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"tensor_scale must be positive and finite in float32, not {given} ({value} in float32)")
    return value


def _mx_operand(q, name):
    if not isinstance(q, MXArray):
        raise TypeError(f"{name} must be an MXArray (mf.mx.quantize or MXArray.from_parts), "
                        f"not {type(q).__name__}")
    if q.format == "nvfp4":
        raise ValueError(f"{name}: mf.mx.matmul takes MX formats (E8M0 scales), not 'nvfp4'; "
                         f"dequantize NVFP4 first")
    element = _parameters(q.format)[0]
    return -1 if element is None else _core.format_index(np.dtype(element).name)


def matmul(qa, qb):
    """Multiply two MX matrices, ``qa @ qb``, as OCP MX v1.0 section 6.2 defines it.

    Parameters
    ----------
    qa : MXArray
        M x K, blocked along its last axis (``quantize(a, fmt, axis=-1)``).
    qb : MXArray
        K x N, blocked along its first axis (``quantize(b, fmt, axis=0)``),
        with `qa`'s block size; the element formats may differ (any MX
        format, not NVFP4).

    Returns
    -------
    ndarray
        The M x N float32 product.

    Raises
    ------
    TypeError
        If an operand is not an MXArray.
    ValueError
        If an operand is NVFP4 or not 2-D, the blocked axes or inner sizes
        do not match, or the block sizes differ.

    See Also
    --------
    dot : the same for vectors.

    Notes
    -----
    Element products are exact; ``C[m, n]`` is computed in exactly this
    order::

        acc = +0
        for each block kb of K, in order:
            t = +0
            for k in the block, ascending:
                t = fl32(t + a[m, k] * b[k, n])          # exact product, one rounding (FMA)
            acc = fl32(acc + fl32(t * 2**(Ea[m, kb] + Eb[kb, n])))

    with a, b the element values (MXINT8: int8 / 64), Ea, Eb the shared
    exponents and fl32 rounding to nearest even float32; a row of qa or a
    column of qb with a NaN scale makes its results NaN.

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> qa = mf.mx.quantize(np.ones((2, 32)), "mxfp8_e4m3")
    >>> qb = mf.mx.quantize(np.full((32, 3), 0.5), "mxfp4_e2m1", axis=0)
    >>> mf.mx.matmul(qa, qb)
    array([[16., 16., 16.],
           [16., 16., 16.]], dtype=float32)
    """
    a_element = _mx_operand(qa, "qa")
    b_element = _mx_operand(qb, "qb")
    if qa.ndim != 2 or qb.ndim != 2:
        raise ValueError(f"mf.mx.matmul takes 2-D operands, not {qa.ndim}-D and {qb.ndim}-D (mf.mx.dot: vectors)")
    if qa.axis != 1 or qb.axis != 0:
        raise ValueError(f"qa must be blocked along its last axis and qb along its first "
                         f"(quantize with axis=-1 and axis=0), not axis={qa.axis} and axis={qb.axis}")
    if qa.shape[1] != qb.shape[0]:
        raise ValueError(f"matmul: qa is {qa.shape}, qb is {qb.shape}: the inner sizes differ")
    if qa.block_size != qb.block_size:
        raise ValueError(f"qa and qb must have the same block size, not {qa.block_size} and {qb.block_size}")
    return _core.mx_matmul(_codes(qa.data), _codes(qa.scales), a_element, _codes(qb.data), _codes(qb.scales),
                           b_element, min(int(qa.block_size), max(qa.shape[1], 1)))


def dot(qa, qb):
    """The dot product of two 1-D MX arrays (OCP MX v1.0 section 6.2).

    Parameters
    ----------
    qa, qb : MXArray
        1-D, of the same length and block size (any MX element formats,
        not NVFP4).

    Returns
    -------
    numpy.float32
        Computed in ``matmul``'s order.

    Raises
    ------
    TypeError
        If an operand is not an MXArray.
    ValueError
        If an operand is NVFP4 or not 1-D, or the lengths or block sizes
        differ.

    See Also
    --------
    matmul

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> q = mf.mx.quantize(np.array([0.5, 1.0, -2.0]), "mxfp8_e5m2")
    >>> float(mf.mx.dot(q, q))
    5.25
    """
    a_element = _mx_operand(qa, "qa")
    b_element = _mx_operand(qb, "qb")
    if qa.ndim != 1 or qb.ndim != 1:
        raise ValueError(f"mf.mx.dot takes 1-D operands, not {qa.ndim}-D and {qb.ndim}-D (mf.mx.matmul: matrices)")
    if qa.shape != qb.shape:
        raise ValueError(f"dot: the operands' lengths differ: {qa.shape[0]} and {qb.shape[0]}")
    if qa.block_size != qb.block_size:
        raise ValueError(f"qa and qb must have the same block size, not {qa.block_size} and {qb.block_size}")
    k, blocks = qa.shape[0], qa.scales.shape[0]
    c = _core.mx_matmul(_codes(qa.data).reshape(1, k), _codes(qa.scales).reshape(1, blocks), a_element,
                        _codes(qb.data).reshape(k, 1), _codes(qb.scales).reshape(blocks, 1), b_element,
                        min(int(qa.block_size), max(k, 1)))
    return c[0, 0]


# NVFP4's block scales in NumPy's overflow/underflow message, by whether
# tensor_scale was "auto": that one never clips, but a block below ~2^-19 of
# the tensor's largest value still gets a scale of 0
_NVFP4_SCALES_NAMED = {
    False: "nvfp4 block scales (tensor_scale='auto' fits them to the data)",
    True: "nvfp4 block scales (tensor_scale='auto': a block below ~2**-19 of the largest value gets scale 0)",
}


def _tensor_scale(x32, tensor_scale):
    """t for NVFP4: "auto" is the largest finite magnitude / (6 * 448), so
    that a NaN or inf block (NaN scale) leaves the others' scaling alone; 1
    where no value is finite and nonzero."""
    if isinstance(tensor_scale, str):
        if tensor_scale != "auto":
            raise ValueError(f"tensor_scale must be None, a real number or 'auto', not {tensor_scale!r}")
        magnitudes = np.abs(x32)
        amax = float(np.max(magnitudes)) if x32.size else 0.0
        if not np.isfinite(amax):  # (rare: a second pass, over the finite values)
            amax = float(np.max(magnitudes, where=np.isfinite(magnitudes), initial=0.0))
        return np.float32(amax / (6.0 * 448.0)) if amax > 0 else np.float32(1.0)
    return _checked_tensor_scale(tensor_scale, "None, a real number or 'auto'")


def _mx_with_element(fmt):
    """The MX format with any minifloat format of 8 bits or fewer (with a
    sign and a zero, as the MX elements have) as its elements: E8M0 scales,
    blocks of 32; its name is the element format's. None when `fmt` is not
    a minifloat format."""
    try:
        element = _core._format_dtype(fmt) if isinstance(fmt, str) else np.dtype(fmt)
    except (TypeError, ValueError, KeyError):
        return None
    if not isinstance(element, _core.MinifloatDType):
        return None
    info = _core.format_info(element.name)
    if info["bits"] > 8 or not info["signed"] or not info["has_zero"]:
        raise ValueError(f"an MX element format has at most 8 bits, a sign and a zero; {element.name} has "
                         f"{info['bits']} bits{'' if info['signed'] else ', no sign'}"
                         f"{'' if info['has_zero'] else ', no zero'}")
    return element.name, (element.type, *_element_parameters(element.type), 32)


def _block_size(fmt, parameters, block_size, any_block_size=False):
    """The block size: the format's default for None, else a positive
    integer (``operator.index``: no floats, strings or bools); a format
    whose block size is part of its definition (NVFP4: 16) takes no other."""
    default = parameters[4]
    if block_size is None:
        return default
    size = _arguments.positive_integer(block_size, "block_size")
    if size != default and fmt in _FIXED_BLOCK_SIZE and not any_block_size:
        raise ValueError(f"block_size: {fmt} blocks are {default} values by definition, not {block_size!r} "
                         f"(leave block_size out)")
    return size


# what a keyword of mf.quant means here
_KEYWORD_HINTS = {"block_shape": "block_size", "group_size": "block_size"}


def quantize(x, fmt, *, axis=-1, block_size=None, scale_mode="floor", tensor_scale=None, **keywords):
    """Block-quantize `x` along `axis` into an MX or NVFP4 format.

    Each block of `block_size` values along `axis` becomes one shared scale
    and narrow elements, by the rules in the module docstring (OCP MX v1.0
    section 6.3; NVFP4's two-level scaling). Inputs are converted to
    float32 (nearest even) first.

    Parameters
    ----------
    x : array_like
        Real numbers, at least one dimension (ml_dtypes' and JAX's
        bfloat16 and float8 arrays too).
    fmt : str or minifloat dtype
        One of ``FORMATS`` ("mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2",
        "mxfp6_e2m3", "mxfp4_e2m1", "mxint8", "nvfp4"), or a minifloat
        format of 8 bits or fewer with a sign and a zero (e.g. one of
        ``mf.float_format``): MX with those elements (E8M0 scales, blocks
        of 32).
    axis : int, optional
        The axis cut into blocks (default -1).
    block_size : int, optional
        Values per block, a positive integer (None: the format's, 32;
        NVFP4's 16 is part of the format and cannot be changed). The last
        block may be shorter.
    scale_mode : {"floor", "ceil", "even", "rceil"}, optional
        How an MX block's shared exponent follows from its largest
        magnitude ("floor" is the spec's; see the module docstring). MX
        formats only: NVFP4 takes the default and refuses another.
    tensor_scale : None, float or "auto", optional
        NVFP4 only: the float32 per-tensor scale (None for 1, a number, or
        "auto" for the largest finite abs(x) / (6 * 448): NaN and inf do
        not count). A block scale amax / (6 t) must fit float8_e4m3fn: a
        block beyond it clips (NumPy's "overflow" warning, under
        ``np.errstate``), and a nonzero block whose scale rounds to 0 reads
        as zeros ("underflow", which NumPy ignores unless
        ``np.errstate(under=...)`` asks). "auto" never clips; a block whose
        largest value is below about 2**-19 of the tensor's still
        underflows.

    Returns
    -------
    MXArray

    Raises
    ------
    TypeError
        If `x` holds no real numbers, or a size or axis is not an integer.
    ValueError
        If `fmt` or `scale_mode` is unknown, `x` is 0-d, `axis` is out of
        range, `block_size` is not positive or changes NVFP4's,
        `tensor_scale` is given for an MX format or `scale_mode` for NVFP4.

    See Also
    --------
    MXArray.dequantize, matmul, minifloat.quant.quantize : per-tensor,
        per-channel and per-block float32 scales.

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> x = np.linspace(-1, 1, 64).reshape(2, 32)
    >>> q = mf.mx.quantize(x, "mxfp4_e2m1")
    >>> q.scales.shape, q.scales.tolist(), q.nbytes
    ((2, 1), [[0.25], [0.25]], 34)
    >>> float(np.abs(q.dequantize() - x).max()) < 0.125
    True
    """
    _arguments.no_other_keywords(keywords, "mf.mx.quantize", _KEYWORD_HINTS)
    return _quantize(x, fmt, axis=axis, block_size=block_size, scale_mode=scale_mode, tensor_scale=tensor_scale)


def _checked_scale_mode(fmt, scale_mode):
    """`scale_mode` for the format named `fmt`: one of SCALE_MODES, and for
    NVFP4, whose scale is not a power of two, the default only."""
    scale_mode = _arguments.choice(scale_mode, SCALE_MODES, "scale_mode")
    if fmt == "nvfp4" and scale_mode != "floor":
        raise ValueError(f"scale_mode applies to the MX formats, not nvfp4 (scale_mode={scale_mode!r}): an NVFP4 "
                         f"block scale is amax / (6 t) rounded to nearest even; leave scale_mode out")
    return scale_mode


def _quantize(x, fmt, *, axis=-1, block_size=None, scale_mode="floor", tensor_scale=None, any_block_size=False):
    """quantize; ``any_block_size=True`` lets the tests run the NVFP4 kernel
    on blocks of other sizes than NVFP4's 16."""
    fmt, parameters = _format_spec(fmt)
    scale_mode = _checked_scale_mode(fmt, scale_mode)
    element, emax, max_element, significand_bits, _ = parameters
    block_size = _block_size(fmt, parameters, block_size, any_block_size)
    arr = _arguments.real_array(x, "mf.mx.quantize")
    if arr.ndim == 0:
        raise ValueError(f"x must have at least one dimension to cut into blocks along axis={axis!r}, not a 0-d "
                         f"array ({_arguments.shown(x)}); np.atleast_1d(x) is one block of one value")
    axis = _arguments.axis(axis, arr.ndim)
    if fmt != "nvfp4" and tensor_scale is not None:
        raise ValueError(f"tensor_scale applies to 'nvfp4' only, not {fmt!r}")
    x32 = arr.astype(np.float32, copy=False)  # the spec starts from FP32 (rounded once)
    last = axis == arr.ndim - 1  # (moveaxis costs microseconds: a small array's quantize is a few)
    moved = x32 if last else np.moveaxis(x32, axis, -1)
    rows = np.require(moved.reshape(math.prod(moved.shape[:-1]), moved.shape[-1]), requirements=["C", "A"])
    # a block longer than the axis is one block of the axis's length: work
    # and memory follow the data, not block_size
    kernel_block = min(block_size, max(rows.shape[1], 1))
    t = None
    if fmt == "nvfp4":
        t = _tensor_scale(x32, tensor_scale)
        data, scales = _core.nvfp4_quantize(rows, kernel_block, float(1.0 if t is None else t),
                                            _NVFP4_SCALES_NAMED[isinstance(tensor_scale, str)])
    else:
        element_index = -1 if element is None else _core.format_index(np.dtype(element).name)
        data, scales = _core.mx_quantize(rows, element_index, emax, max_element, significand_bits,
                                         kernel_block, scale_mode)
    lead = moved.shape[:-1]
    data = data.reshape(lead + (moved.shape[-1],))
    scales = scales.reshape(lead + (scales.shape[-1],))
    if not last:
        data, scales = np.moveaxis(data, -1, axis), np.moveaxis(scales, -1, axis)
    return MXArray(np.ascontiguousarray(data), np.ascontiguousarray(scales), fmt, block_size, axis, t)


def __dir__():
    """The module's API: its imports are not part of it."""
    return sorted(__all__)
