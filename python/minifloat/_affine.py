"""Per-group affine integer quantization, as GPTQ and AWQ store weights.

The values along ``axis`` are cut into groups of ``block_size`` (the name
of this size in mf.mx and mf.quant too; ``group_size``, its old name here,
still works, with a DeprecationWarning); each group gets one float32
``scale`` and (with ``zero_point=True``) one integer zero point, and every
value becomes an integer code::

    q = clamp(round_half_even(x / scale) + zero_point, qmin, qmax)
    x ~ (q - zero_point) * scale                      (dequantize)

where ``qmin..qmax`` is the integer type's range (int4: -8..7, uint4: 0..15).
The rule is exact: ``x / scale`` is the exact quotient of the value (read as
float64; exact for float32 and every narrower float) by the float32 scale,
rounded once to the nearest integer with ties to even. ``scale`` and
``zero_point`` come from the group's range, widened to hold 0 (so 0 is
stored exactly, as GPTQ does):

* ``zero_point=True`` (asymmetric): ``lo = min(group, 0)``,
  ``hi = max(group, 0)``, ``scale = float32((hi - lo) / (qmax - qmin))``,
  ``zero_point = clamp(qmin - round_half_even(lo / scale), qmin, qmax)``.
* ``zero_point=False`` (symmetric, no zero points stored):
  ``scale = float32(max|group| / qmax)`` and zero point 0 (for unsigned
  types negative values clamp to 0).

A group of zeros gets scale 1, and a scale that would round to 0 in float32
the smallest positive float32, so ``x / scale`` is always defined.
"""
import numpy as np

from . import _arguments, _core
from ._ints import iinfo as _iinfo

_TINY_FLOAT32 = np.float32(np.finfo(np.float32).smallest_subnormal)


def _integer_type(dtype):
    """(dtype, qmin, qmax) of a minifloat integer type, int8 or uint8."""
    dt = _arguments.needed_dtype(dtype, "quantize_affine", "an integer dtype (mf.int4, mf.uint4, ...)")
    if isinstance(dt, _core.IntegerDType) or dt in (np.dtype(np.int8), np.dtype(np.uint8)):
        info = _iinfo(dt)
        return dt, int(info.min), int(info.max)
    names = ", ".join(f"mf.{n}" for n in _core.INT_FORMAT_NAMES)
    raise TypeError(f"quantize_affine needs one of {names}, np.int8 or np.uint8, not {dt}")


def _round_half_even_quotient(x, scale):
    """round_half_even(x / scale), exactly, for float64 x and float32 scale > 0.

    The float64 quotient is rounded, so only where it is exactly k + 1/2 could
    the exact quotient lie on either side; there the sign of x - (k + 1/2) *
    scale decides (the product is exact in float64 for |k| < 2**28, and a
    rounded subtraction keeps the sign of the exact difference).
    """
    scale = scale.astype(np.float64)
    q = x / scale
    rounded = np.rint(q)
    low = np.floor(q)
    tie = (q - low) == 0.5
    if np.any(tie):
        half = np.where(tie, low + 0.5, 0.0)
        below = x - half * scale
        rounded = np.where(tie & (below > 0), low + 1, rounded)
        rounded = np.where(tie & (below < 0), low, rounded)
    return rounded


class AffineQuantizedArray:
    """Integer codes with per-group float32 scales and optional zero points.

    What ``quantize_affine`` returns; the constructor takes the parts as
    they are. The value of a code ``q`` is ``(q - zero_point) * scale``.

    Parameters
    ----------
    data : ndarray
        The codes, in the quantized array's shape and the integer dtype.
    scales : ndarray
        float32, `data`'s shape with the `axis` dimension replaced by the
        number of groups; group ``g`` covers indices
        ``g*block_size .. (g+1)*block_size - 1`` along `axis` (the last
        one ends with the axis, and may be shorter).
    zero_points : ndarray or None
        The same shape as `scales`, in `data`'s dtype (None: symmetric).
    block_size : int
        Values per group (``group_size``, its old name, still works with a
        DeprecationWarning).
    axis : int
        The grouped axis (non-negative).

    Attributes
    ----------
    data, scales, zero_points, block_size, axis
        As above.

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> q = mf.quantize_affine(np.array([[0.5, -1.0, 0.25, 2.0]]), mf.uint4, block_size=4)
    >>> q
    AffineQuantizedArray(dtype=uint4, shape=(1, 4), block_size=4, axis=1, scales=(1, 1), zero_points=(1, 1))
    """

    def __init__(self, data, scales, zero_points, block_size=None, axis=None, **keywords):
        block_size, _ = _arguments.renamed(keywords, "group_size", "block_size", block_size, None,
                                           "AffineQuantizedArray")
        _arguments.no_other_keywords(keywords, "AffineQuantizedArray")
        self.data = data
        self.scales = scales
        self.zero_points = zero_points
        self.block_size = block_size
        self.axis = axis

    group_size = _arguments.renamed_attribute("AffineQuantizedArray", "group_size", "block_size")

    @property
    def dtype(self):
        """The codes' integer dtype."""
        return self.data.dtype

    @property
    def shape(self):
        """The quantized array's shape."""
        return self.data.shape

    def _per_value(self, per_group):
        """Per-group values repeated over the data's shape (the last group
        may be shorter)."""
        repeated = np.repeat(per_group, self.block_size, axis=self.axis)
        return repeated[(slice(None),) * self.axis + (slice(0, self.data.shape[self.axis]),)]

    def dequantize(self, dtype=np.float32):
        """The represented values, ``(q - zero_point) * scale`` per value.

        Computed exactly (in float64) and rounded once into `dtype`.

        Parameters
        ----------
        dtype : floating-point dtype, optional
            float32 (default) or any other float dtype, NumPy's or a
            minifloat format.

        Returns
        -------
        ndarray
            An array of `dtype` and the data's shape.

        Raises
        ------
        TypeError
            If `dtype` is not a floating-point dtype.

        Examples
        --------
        >>> import numpy as np, minifloat as mf
        >>> q = mf.quantize_affine(np.array([[0.5, -1.0, 0.25, 2.0]]), mf.uint4, block_size=4)
        >>> q.dequantize(np.float64).round(3).tolist()
        [[0.4, -1.0, 0.2, 2.0]]
        """
        dtype = _arguments.float_dtype(dtype)
        q = self.data.astype(np.float64)
        if self.zero_points is not None:
            q = q - self._per_value(self.zero_points.astype(np.float64))
        return (q * self._per_value(self.scales.astype(np.float64))).astype(dtype)

    def pack(self):
        """The codes as packed bytes.

        ``mf.pack``'s layout: two int4/uint4 per byte, low nibble first, as
        GPTQ's int32 words hold them on little-endian machines; int8/uint8
        codes as their bytes. Scales and zero points are separate arrays
        (``mf.pack(q.zero_points)`` packs the latter).

        Returns
        -------
        ndarray
            1-D uint8.

        Examples
        --------
        >>> import numpy as np, minifloat as mf
        >>> mf.quantize_affine(np.array([[0.5, -1.0, 0.25, 2.0]]), mf.uint4, block_size=4).pack()
        array([  7, 246], dtype=uint8)
        """
        if isinstance(self.data.dtype, _core.IntegerDType):
            from . import _ints

            return _ints.pack(self.data)
        return np.ascontiguousarray(self.data).reshape(-1).view(np.uint8)

    def __repr__(self):
        zp = "None" if self.zero_points is None else f"{self.zero_points.shape}"
        return (f"AffineQuantizedArray(dtype={self.data.dtype}, shape={self.data.shape}, "
                f"block_size={self.block_size}, axis={self.axis}, scales={self.scales.shape}, zero_points={zp})")


def quantize_affine(x, dtype, *, block_size=128, axis=-1, zero_point=True, **keywords):
    """Quantize `x` to integers with one scale (and zero point) per group.

    The GPTQ/AWQ weight recipe: each group of `block_size` values along
    `axis` gets a float32 scale and (with `zero_point`) an integer zero
    point; the exact rule is in the module docstring
    (``help(minifloat._affine)``) and in docs/quantization.md.

    Parameters
    ----------
    x : array_like
        Real numbers, at least one dimension.
    dtype : integer dtype
        minifloat's int2, int4, uint2, uint4 (int1/uint1 too) or NumPy's
        int8/uint8.
    block_size : int or None, optional
        Values per group (default 128; the last group may be shorter);
        None makes the whole axis one group (per-channel scales).
        ``group_size``, its old name, still works with a DeprecationWarning.
    axis : int, optional
        The grouped axis (default -1).
    zero_point : bool, optional
        True (default): asymmetric, with zero points; False: symmetric.

    Returns
    -------
    AffineQuantizedArray

    Raises
    ------
    TypeError
        If `dtype` is not an integer type, `x` holds no real numbers, or a
        size, axis or flag has the wrong type.
    ValueError
        If `x` is 0-d or has no values along `axis`, holds NaN or inf,
        `axis` is out of range or `block_size` is not positive.

    See Also
    --------
    minifloat.quant.quantize : float formats with float32 scales.

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> w = np.array([[0.5, -1.0, 0.25, 2.0]], dtype=np.float32)
    >>> q = mf.quantize_affine(w, mf.uint4, block_size=4)
    >>> q.data.astype(np.int8).tolist(), q.scales.tolist(), q.zero_points.astype(np.int8).tolist()
    ([[7, 0, 6, 15]], [[0.20000000298023224]], [[5]])
    """
    block_size, block_name = _arguments.renamed(keywords, "group_size", "block_size", block_size, 128,
                                                "quantize_affine")
    _arguments.no_other_keywords(keywords, "quantize_affine", {"block_shape": "block_size"})
    dt, qmin, qmax = _integer_type(dtype)
    zero_point = _arguments.flag(zero_point, "zero_point")
    if block_size is not None:
        block_size = _arguments.positive_integer(block_size, block_name)
    arr = _arguments.real_array(x, "quantize_affine", "an array of {}")
    if arr.ndim == 0:
        raise ValueError("quantize_affine needs an array with at least one dimension")
    values = arr.astype(np.float64)
    if not np.all(np.isfinite(values)):
        raise ValueError("quantize_affine needs finite values: x holds NaN or inf")
    axis = _arguments.axis(axis, arr.ndim)
    length = arr.shape[axis]
    group_size = length if block_size is None else block_size
    if length == 0:
        raise ValueError(f"x has no values along axis {axis} (shape {arr.shape}): quantize_affine needs one or more")
    if not zero_point and qmax < 1:
        raise ValueError(f"{dt} holds no positive value, so zero_point=False cannot quantize; "
                         f"use zero_point=True")

    moved = np.moveaxis(values, axis, -1)
    short = -length % group_size  # a shorter last group: padded with zeros, which leave
    if short:                     # min(group, 0), max(group, 0) and max|group| as they are
        moved = np.concatenate([moved, np.zeros(moved.shape[:-1] + (short,))], axis=-1)
    groups = moved.reshape(moved.shape[:-1] + (moved.shape[-1] // group_size, group_size))
    if zero_point:
        lo = np.minimum(groups.min(axis=-1), 0.0)
        hi = np.maximum(groups.max(axis=-1), 0.0)
        span, steps = hi - lo, qmax - qmin
    else:
        lo = None
        span, steps = np.abs(groups).max(axis=-1), qmax
    with np.errstate(over="ignore"):
        scale = (span / steps).astype(np.float32)
    if np.any(np.isinf(scale)):
        raise ValueError("a group's range does not fit a float32 scale (|x| too large)")
    scale = np.where(span == 0, np.float32(1), np.maximum(scale, _TINY_FLOAT32)).astype(np.float32)
    if zero_point:
        zp = np.clip(qmin - _round_half_even_quotient(lo, scale), qmin, qmax)
    else:
        zp = np.zeros(scale.shape)
    codes = np.clip(_round_half_even_quotient(groups, scale[..., None]) + zp[..., None], qmin, qmax)
    codes = np.moveaxis(codes.reshape(moved.shape)[..., :length], -1, axis).astype(np.int16).astype(dt)
    scales = np.moveaxis(scale, -1, axis)
    zero_points = np.moveaxis(zp, -1, axis).astype(np.int16).astype(dt) if zero_point else None
    return AffineQuantizedArray(codes, scales, zero_points, group_size, axis)
