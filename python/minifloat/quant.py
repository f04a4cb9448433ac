"""Scaling recipes: a tensor quantized with one scale per group of elements.

``quantize(x, dtype, granularity=...)`` cuts `x` into groups (the
*grouping*) and hands each group to the *scheme* that claims `dtype` (the
rule that turns a group's values into elements and per-group parameters).
``QuantizedArray.dequantize()`` turns them back into values. Groupings:

* ``"tensor"``: the whole tensor (scales has shape ()).
* ``"channel"``: one group per index along `axis`, the channel axis (scales
  has shape (x.shape[axis],); axis=0 is per-output-channel for (out, in)
  weights, per-token for (tokens, hidden) activations).
* ``"block"``: tiles of `block_size` (a tuple, or one integer for the
  last axis) over the trailing len(block_size) axes (each leading axis in
  steps of 1); partial tiles at the edges are groups of their own. The
  default (128, 128) with float8_e4m3fn is the DeepSeek-V3 weight recipe;
  (1, 128) its per-token-group activation one.
  scales has one entry per tile: ceil(n / b) along each blocked axis.
  (``block_size`` was called ``block_shape`` before; that spelling still
  works, with a DeprecationWarning.)

Schemes are registered with ``register_scheme``; the first whose
``accepts(dtype)`` is true quantizes. Built in: ``"scaled"`` for every
minifloat format but float8_e8m0fnu, float32 scales and saturating casts,
options ``margin`` and ``pow2_scales``. Its rules (every group alike):

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
  (keeping the sign of zero where the format has -0). (MX's all-zero block
  gets E8M0's smallest scale 2**-127 instead: float32 scales need no such
  choice.)
* A group holding a NaN or an infinity has scale NaN and its elements are
  the format's NaN, or +0 where the format has no NaN: it dequantizes to NaN
  (as an MX block with a NaN or inf does).
* ``dequantize()`` gives element * scale rounded once into float32
  (float64: exact; other dtypes: the exact value rounded once).

Unsigned formats (float8_e8m0fnu, the P3109 u formats) cannot hold signed data:
use them for scales.

A scheme is an object with ``name``, ``accepts(dtype) -> bool``,
``quantize(x32, dtype, groups, **options) -> (data, scales, zero_points,
options)`` and ``dequantize(q, dtype) -> array``; ``groups`` (a
``Groups``) reduces values per group (``groups.reduce``) and spreads
per-group parameters back over the elements (``groups.expand``), so a scheme
never deals with the grouping itself.
"""
import math

import numpy as np

from . import _arguments, _core
from ._cast import cast
from ._dtype_arguments import minifloat_dtype

_SAVE_VERSION = 1  # of QuantizedArray.save's files

__all__ = ["AffineQuantizedArray", "GRANULARITIES", "Groups", "QuantizedArray", "ScaledScheme", "quantize",
           "quantize_affine", "register_scheme", "schemes", "unregister_scheme"]

GRANULARITIES = ("tensor", "channel", "block")
_DEFAULT_BLOCK_SIZE = (128, 128)
_F32_TINY = np.float32(2.0**-149)
_F32_MAX = np.finfo(np.float32).max


class QuantizedArray:
    """A tensor quantized with one scale per group of elements.

    What ``quantize`` returns; the constructor takes the parts as they are.

    Parameters
    ----------
    data : ndarray
        The elements, in x's shape and the target dtype.
    scales : ndarray
        float32, one per group (shape ``Groups(...).shape``: () for
        "tensor", (x.shape[axis],) for "channel", the tile counts for
        "block").
    granularity : {"tensor", "channel", "block"}
        The grouping.
    axis : int, optional
        The channel axis ("channel" only).
    block_size : tuple of ints, optional
        The tile ("block" only; ``block_shape``, its old name, still works
        with a DeprecationWarning).
    zero_points : ndarray, optional
        The same shape as `scales`, for schemes with zero points.
    scheme : str, optional
        The name of the scheme that made it (default "scaled").
    options : dict, optional
        The scheme's options that made it.

    Attributes
    ----------
    data, scales, zero_points, granularity, axis, block_size, scheme, options
        As above.

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> q = mf.quant.quantize(np.array([[1.0, -2.0], [300.0, 0.5]]), mf.float8_e4m3fn,
    ...                       granularity="channel")
    >>> q
    QuantizedArray(scheme='scaled', granularity='channel', axis=0, dtype=float8_e4m3fn, shape=(2, 2), scales=(2,), margin=0, pow2_scales=False)
    >>> q.data.tolist()
    [[224.0, -448.0], [448.0, 0.75]]
    """

    __slots__ = ("data", "scales", "zero_points", "granularity", "axis", "block_size", "scheme", "options")

    def __init__(self, data, scales, granularity, axis=None, block_size=None, *, zero_points=None,
                 scheme="scaled", options=None, **keywords):
        block_size, _ = _arguments.renamed(keywords, "block_shape", "block_size", block_size, None,
                                           "QuantizedArray")
        _arguments.no_other_keywords(keywords, "QuantizedArray")
        self.data = data
        self.scales = scales
        self.zero_points = zero_points
        self.granularity = granularity
        self.axis = axis
        self.block_size = block_size
        self.scheme = scheme
        self.options = {} if options is None else dict(options)

    block_shape = _arguments.renamed_attribute("QuantizedArray", "block_shape", "block_size")

    @property
    def dtype(self):
        """The elements' dtype."""
        return self.data.dtype

    @property
    def shape(self):
        """The quantized tensor's shape."""
        return self.data.shape

    @property
    def nbytes(self):
        """Bytes of the elements, scales and zero points together."""
        zero_bytes = 0 if self.zero_points is None else self.zero_points.nbytes
        return self.data.nbytes + self.scales.nbytes + zero_bytes

    @property
    def groups(self):
        """The grouping (a ``Groups``) of this array."""
        return Groups(self.data.shape, self.granularity, self.axis, self.block_size)

    def __repr__(self):
        detail = {"tensor": "", "channel": f", axis={self.axis}", "block": f", block_size={self.block_size}"}
        options = "".join(f", {k}={v!r}" for k, v in self.options.items())
        return (f"QuantizedArray(scheme={self.scheme!r}, granularity={self.granularity!r}"
                f"{detail.get(self.granularity, '')}, dtype={self.data.dtype}, shape={self.data.shape}, "
                f"scales={self.scales.shape}{options})")

    def save(self, file):
        """Write the whole array to an .npz file without pickles.

        The archive (``mf.savez``'s) holds ``data``, ``scales`` and, where
        the scheme has them, ``zero_points`` (sub-byte integers as their
        int8/uint8 bytes), and ``meta``: a JSON string of the grouping,
        scheme, options and integer types. ``np.load`` opens it too.

        Parameters
        ----------
        file : str, os.PathLike or binary file object
            Where to write; ".npz" is appended to a path without it.

        Returns
        -------
        None

        Raises
        ------
        TypeError
            If the scheme's options are not JSON values.

        See Also
        --------
        QuantizedArray.load

        Examples
        --------
        >>> import io, numpy as np, minifloat as mf
        >>> q = mf.quant.quantize(np.array([[1.0, -2.0], [300.0, 0.5]]), mf.float8_e4m3fn,
        ...                       granularity="channel")
        >>> f = io.BytesIO()
        >>> q.save(f)
        >>> _ = f.seek(0)
        >>> mf.quant.QuantizedArray.load(f).dequantize().tolist() == q.dequantize().tolist()
        True
        """
        from ._io import save_with_meta

        meta = {"granularity": self.granularity, "axis": None if self.axis is None else int(self.axis),
                "block_size": None if self.block_size is None else [int(b) for b in self.block_size],
                "scheme": self.scheme, "options": self.options}
        arrays = {"data": self.data, "scales": self.scales}
        if self.zero_points is not None:
            arrays["zero_points"] = self.zero_points
        for name, arr in list(arrays.items()):
            if isinstance(arr.dtype, _core.IntegerDType):  # .npz members hold them as their bytes
                meta[f"{name}_type"] = arr.dtype.name
                arrays[name] = arr.view(np.int8 if arr.dtype.kind == "i" else np.uint8)
        save_with_meta(file, "QuantizedArray", "minifloat_quantized", _SAVE_VERSION, meta, arrays)

    @classmethod
    def load(cls, file):
        """Read a QuantizedArray written by ``QuantizedArray.save``.

        Parameters
        ----------
        file : str, os.PathLike or binary file object
            The .npz file.

        Returns
        -------
        QuantizedArray

        Raises
        ------
        ValueError
            If the file is not a QuantizedArray file, or its scales do not
            fit its data's grouping.

        Examples
        --------
        >>> import io, numpy as np, minifloat as mf
        >>> f = io.BytesIO()
        >>> mf.quant.quantize(np.ones((4, 8)), mf.float8_e5m2, granularity="block", block_size=(2, 4)).save(f)
        >>> _ = f.seek(0)
        >>> mf.quant.QuantizedArray.load(f)
        QuantizedArray(scheme='scaled', granularity='block', block_size=(2, 4), dtype=float8_e5m2, shape=(4, 8), scales=(2, 2), margin=0, pow2_scales=False)
        """
        from ._io import load_with_meta

        arrays, meta = load_with_meta(file, "a QuantizedArray", "minifloat_quantized", _SAVE_VERSION,
                                      ("data", "scales"), ("zero_points",))
        try:
            granularity, axis, block_size = meta["granularity"], meta["axis"], meta["block_size"]
            scheme, options = meta["scheme"], dict(meta["options"])
            for name in list(arrays):
                if f"{name}_type" in meta:
                    arrays[name] = arrays[name].view(getattr(_core, meta[f"{name}_type"]))
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"not a QuantizedArray file: bad metadata ({error})") from error
        block_size = None if block_size is None else tuple(block_size)
        expected = Groups(arrays["data"].shape, granularity, axis, block_size).shape
        if arrays["scales"].shape != expected:
            raise ValueError(f"QuantizedArray file: scales of shape {arrays['scales'].shape} do not fit data of "
                             f"shape {arrays['data'].shape} in {granularity} groups (expected {expected})")
        return cls(arrays["data"], arrays["scales"], granularity, axis, block_size,
                   zero_points=arrays.get("zero_points"), scheme=scheme, options=options)

    def scale_per_element(self):
        """The scales spread over the data's shape.

        Returns
        -------
        ndarray
            float32, the data's shape: the scales broadcast (tensor,
            channel; a read-only view) or repeated (block).

        Examples
        --------
        >>> import numpy as np, minifloat as mf
        >>> q = mf.quant.quantize(np.arange(6.0).reshape(2, 3), mf.float8_e4m3fn,
        ...                       granularity="block", block_size=(1, 2))
        >>> (q.scale_per_element() * 448).round(3).tolist()
        [[1.0, 1.0, 2.0], [4.0, 4.0, 5.0]]
        """
        return self.groups.expand(self.scales)

    def dequantize(self, dtype=np.float32):
        """The represented values, rounded once into `dtype`.

        Parameters
        ----------
        dtype : floating-point dtype, optional
            float32 (default) or another float dtype, NumPy's, a minifloat
            format or ml_dtypes' (rounded by minifloat, then viewed as
            ml_dtypes'); for the built-in scheme float64 holds every value
            exactly.

        Returns
        -------
        ndarray
            An array of `dtype` and the data's shape.

        Raises
        ------
        TypeError
            If `dtype` is not a floating-point dtype.
        ValueError
            If no registered scheme has this array's scheme name.

        Examples
        --------
        >>> import numpy as np, minifloat as mf
        >>> q = mf.quant.quantize(np.array([1.0, -2.0, 300.0]), mf.float8_e4m3fn)
        >>> q.dequantize().tolist()
        [1.0044642686843872, -2.0089285373687744, 300.0]
        """
        values = _scheme_named(self.scheme).dequantize(self, _arguments.float_dtype(dtype))
        return _arguments.as_requested(values, dtype)


class Groups:
    """How a tensor is cut into groups: what a scheme needs of the grouping.

    Parameters
    ----------
    shape : tuple of ints
        The data's shape.
    granularity : {"tensor", "channel", "block"}
        The grouping (see the module docstring).
    axis : int, optional
        The channel axis, non-negative ("channel").
    block_size : tuple of ints, optional
        The tile, as many entries as trailing axes it covers ("block").

    Attributes
    ----------
    data_shape, granularity, axis, block_size
        As given.

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> g = mf.quant.Groups((2, 3), "block", block_size=(1, 2))
    >>> g.shape
    (2, 2)
    >>> g.reduce(np.arange(6.0).reshape(2, 3), np.maximum, 0.0).tolist()
    [[1.0, 2.0], [4.0, 5.0]]
    >>> g.expand(np.array([[1.0, 2.0], [3.0, 4.0]])).tolist()
    [[1.0, 1.0, 2.0], [3.0, 3.0, 4.0]]
    """

    def __init__(self, shape, granularity, axis=None, block_size=None, **keywords):
        block_size, _ = _arguments.renamed(keywords, "block_shape", "block_size", block_size, None, "Groups")
        _arguments.no_other_keywords(keywords, "Groups")
        self.data_shape = tuple(shape)
        self.granularity = granularity
        self.axis = axis
        self.block_size = block_size
        if granularity == "block":
            ndim = len(self.data_shape)
            self.blocks = (1,) * (ndim - len(block_size)) + tuple(block_size)
            self.counts = tuple(-(-n // b) for n, b in zip(self.data_shape, self.blocks))

    block_shape = _arguments.renamed_attribute("Groups", "block_shape", "block_size")

    @property
    def shape(self):
        """The shape of per-group parameters (scales)."""
        if self.granularity == "tensor":
            return ()
        if self.granularity == "channel":
            return (self.data_shape[self.axis],)
        return self.counts

    def reduce(self, values, ufunc, fill):
        """Reduce each group of `values` with a ufunc.

        Parameters
        ----------
        values : array_like
            In the data's shape.
        ufunc : numpy.ufunc
            A binary ufunc with a ``reduce`` (``np.maximum``,
            ``np.logical_or``...).
        fill : scalar
            The ufunc's identity: pads partial tiles, stands for empty
            groups.

        Returns
        -------
        ndarray
            One value per group, shaped as ``shape``.

        Examples
        --------
        >>> import numpy as np, minifloat as mf
        >>> g = mf.quant.Groups((2, 3), "channel", axis=0)
        >>> g.reduce(np.array([[1, 5, 2], [7, 0, 3]]), np.maximum, 0).tolist()
        [5, 7]
        """
        values = np.asarray(values)
        if self.granularity == "tensor":
            return ufunc.reduce(values, axis=None, initial=fill) if values.size else np.asarray(fill, values.dtype)
        if self.granularity == "channel":
            others = tuple(a for a in range(values.ndim) if a != self.axis)
            return ufunc.reduce(values, axis=others, initial=fill)
        padded = [c * b for c, b in zip(self.counts, self.blocks)]
        pad = [(0, p - n) for p, n in zip(padded, self.data_shape)]
        tiled = [d for c, b in zip(self.counts, self.blocks) for d in (c, b)]
        inside = tuple(range(1, 2 * values.ndim, 2))
        return ufunc.reduce(np.pad(values, pad, constant_values=fill).reshape(tiled), axis=inside, initial=fill)

    def expand(self, params):
        """Spread per-group parameters over the data's shape.

        Parameters
        ----------
        params : array_like
            One value per group, shaped as ``shape``.

        Returns
        -------
        ndarray
            In the data's shape (a read-only broadcast view for "tensor"
            and "channel").

        Examples
        --------
        >>> import numpy as np, minifloat as mf
        >>> mf.quant.Groups((2, 3), "channel", axis=0).expand([10, 20]).tolist()
        [[10, 10, 10], [20, 20, 20]]
        """
        params = np.asarray(params)
        if self.granularity == "tensor":
            return np.broadcast_to(params, self.data_shape)
        if self.granularity == "channel":
            view = [1] * len(self.data_shape)
            view[self.axis] = self.data_shape[self.axis]
            return np.broadcast_to(params.reshape(view), self.data_shape)
        expanded = params
        for a, (size, step) in enumerate(zip(self.data_shape, self.blocks)):
            if step != 1:
                expanded = np.repeat(expanded, step, axis=a)[(slice(None),) * a + (slice(0, size),)]
        return expanded


class ScaledScheme:
    """The built-in scheme "scaled": minifloat elements, float32 scales.

    Takes every minifloat float format (signed ones for the data); options
    ``margin`` (an integer in [-128, 128]: scales times 2**margin) and
    ``pow2_scales`` (scales rounded up to powers of two). Its exact rules
    are in the module docstring. A custom scheme has the same attributes
    (see ``register_scheme``).

    Attributes
    ----------
    name : str
        "scaled".

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> scheme = mf.quant.ScaledScheme()
    >>> scheme.name, scheme.accepts(np.dtype(mf.float8_e5m2)), scheme.accepts(np.dtype(np.int8))
    ('scaled', True, False)
    """

    name = "scaled"

    def accepts(self, dtype):
        """Whether this scheme quantizes into `dtype` (a minifloat format).

        Parameters
        ----------
        dtype : numpy.dtype

        Returns
        -------
        bool
        """
        return isinstance(dtype, _core.MinifloatDType)

    def quantize(self, x32, dtype, groups, *, margin=0, pow2_scales=False, **unknown):
        """Quantize float32 values group by group (``quantize`` calls it).

        Parameters
        ----------
        x32 : ndarray
            The input as float32.
        dtype : numpy.dtype
            The target minifloat format (signed).
        groups : Groups
            The grouping.
        margin : int, optional
            Scales times 2**margin, in [-128, 128] (default 0).
        pow2_scales : bool, optional
            Scales rounded up to powers of two (default False).

        Returns
        -------
        tuple
            ``(data, scales, None, options)``.

        Raises
        ------
        TypeError
            If an unknown option is given, or an option has the wrong type.
        ValueError
            If `dtype` is unsigned or `margin` is out of range.
        """
        if unknown:
            raise TypeError(f"mf.quant.quantize into {dtype.name} takes the options margin and pow2_scales, "
                            f"not {', '.join(unknown)} (its own parameters: granularity, axis, block_size)")
        info = _core.format_info(dtype.name)
        if not info["is_signed"]:
            missing = "sign" if info["has_zero"] else "zero or sign"
            raise ValueError(f"{dtype.name} has no {missing} and cannot hold signed data; use a signed format "
                             f"for the data (an unsigned one can hold scales)")
        given_margin = margin
        margin = _arguments.integer(margin, "margin", "an integer in [-128, 128]")
        if not -128 <= margin <= 128:
            raise ValueError(f"margin must be an integer in [-128, 128], not {given_margin!r}")
        pow2_scales = _arguments.flag(pow2_scales, "pow2_scales")
        layout = _group_layout(groups, x32)
        if layout is not None:
            return self._quantize_in_two_passes(x32, dtype, info, groups, layout, margin, pow2_scales)
        non_finite = ~np.isfinite(x32)
        amax = groups.reduce(np.where(non_finite, np.float32(0), np.abs(x32)), np.maximum, np.float32(0))
        any_non_finite = groups.reduce(non_finite, np.logical_or, False)
        scales = _scales(amax, any_non_finite, float(np.finfo(dtype).max), margin, pow2_scales)
        per_element = groups.expand(scales).astype(np.float64)
        bad = np.isnan(per_element)
        with np.errstate(invalid="ignore", divide="ignore"):
            # x / scale rounded to float64 (53 >= 2 * 24 + 2 bits: rounding
            # a quotient of 24-bit numbers there first, then to <= 24 bits,
            # equals rounding it once)
            quotient = x32.astype(np.float64) / per_element
        data = cast(np.where(bad, 0.0, quotient), dtype, saturate=True)
        if bad.any():
            data[bad] = np.array(np.nan).astype(dtype) if info["has_nan"] else np.zeros((), dtype)
        return data, scales, None, {"margin": margin, "pow2_scales": pow2_scales}

    def _quantize_in_two_passes(self, x32, dtype, info, groups, layout, margin, pow2_scales):
        """The same rules in two passes over the data (csrc/blocks/scaled_quantize.cpp):
        each group's amax (and whether it holds inf or NaN), then the scales
        from them here, then every value over its scale rounded once."""
        if not (x32.flags.c_contiguous and x32.flags.aligned and x32.dtype.isnative):
            x32 = np.array(x32, np.float32, order="C")  # (np.ascontiguousarray would make a 0-d array 1-d)
        amax, non_finite = _core.scaled_maxima(x32, layout)
        scales = _scales(amax.reshape(groups.shape), non_finite.reshape(groups.shape), float(np.finfo(dtype).max),
                         margin, pow2_scales)
        with np.errstate(invalid="ignore"):
            fill = np.array(np.nan).astype(dtype) if info["has_nan"] else np.zeros((), dtype)
        fill_code = int(fill.view(np.uint8 if fill.itemsize == 1 else np.uint16))
        data = _core.scaled_elements(x32, np.ascontiguousarray(scales, np.float32).reshape(-1), layout, dtype.name,
                                     fill_code)
        return data, scales, None, {"margin": margin, "pow2_scales": pow2_scales}

    def dequantize(self, q, dtype):
        """Element times scale, rounded once into `dtype` (``QuantizedArray.dequantize`` calls it).

        Parameters
        ----------
        q : QuantizedArray
        dtype : numpy.dtype
            A floating-point dtype.

        Returns
        -------
        ndarray
        """
        scales = q.scale_per_element()
        if dtype == np.float32:
            return q.data.astype(np.float32) * scales  # an element times a float32, rounded once
        exact = q.data.astype(np.float64) * scales.astype(np.float64)  # <= 8 + 24 significant bits: exact
        return exact if dtype == np.float64 else exact.astype(dtype)


def _group_layout(groups, x32):
    """The groups as the (outer, rows, cols, row_block, col_block, outer_stride)
    layout of the two-pass kernels (scaled_quantize.cpp), or None where they
    do not apply (empty data, tiles over three or more axes)."""
    shape = x32.shape
    if x32.size == 0:
        return None
    if groups.granularity == "tensor":
        return (1, 1, x32.size, 1, x32.size, 0)
    if groups.granularity == "channel":
        k = groups.axis
        cols = math.prod(shape[k + 1:])
        return (math.prod(shape[:k]), shape[k], cols, 1, cols, 0)
    sizes = groups.block_size
    if len(sizes) == 1:
        cols = shape[-1]
        return (math.prod(shape[:-1]), 1, cols, 1, sizes[0], -(-cols // sizes[0]))
    if len(sizes) == 2:
        rows, cols = shape[-2:]
        return (math.prod(shape[:-2]), rows, cols, sizes[0], sizes[1], -(-rows // sizes[0]) * -(-cols // sizes[1]))
    return None


def _scales(amax, non_finite, max_value, margin, pow2_scales):
    """float32 scales from the groups' maxima (see the module docstring).
    (Masked writes and minimum/maximum rather than np.where and np.clip: on
    a small array each of those costs microseconds.)"""
    amax = np.asarray(amax, np.float32)
    zero = amax == 0
    wide = amax.astype(np.float64)
    wide[zero] = 1  # (a zero group's scale is 1; this keeps frexp and the quotient finite)
    if pow2_scales:
        # ceil(log2(amax / max)) exactly: with amax = fa * 2^ea and
        # max = fm * 2^em (fa, fm in [0.5, 1)), it is ea - em + (fa > fm)
        fa, ea = np.frexp(wide)
        fm, em = math.frexp(max_value)
        exponent = ea - em + (fa > fm).astype(np.int64) + margin
        exponent = np.minimum(np.maximum(exponent, -149), 127)
        scales = np.ldexp(np.float64(1), exponent).astype(np.float32)
    else:
        # amax / max in float64 (the quotient of 24-bit and <= 24-bit
        # significands: rounding it to float64 first and then to float32 is
        # the same as rounding it once), times 2^margin exactly
        quotient = wide / max_value
        if margin:
            quotient *= 2.0**margin
        with np.errstate(over="ignore"):
            scales = quotient.astype(np.float32)
        scales = np.minimum(np.maximum(scales, _F32_TINY), _F32_MAX)
    scales = np.asarray(scales, np.float32)
    scales[zero] = 1
    scales[np.asarray(non_finite, bool)] = np.nan
    return scales


_SCHEMES = [ScaledScheme()]


def register_scheme(scheme):
    """Add a quantization scheme, tried before the ones registered earlier.

    A scheme is an object with ``name``, ``accepts(dtype) -> bool``,
    ``quantize(x32, dtype, groups, **options) -> (data, scales,
    zero_points, options)`` and ``dequantize(q, dtype) -> array`` (see the
    module docstring and ``ScaledScheme``); it replaces a scheme of the
    same name.

    Parameters
    ----------
    scheme : object
        The scheme.

    Returns
    -------
    object
        `scheme` (so that it can decorate a class's instance).

    Raises
    ------
    TypeError
        If `scheme` lacks one of the four attributes.

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> class Pow2(mf.quant.ScaledScheme):  # "scaled" with power-of-two scales
    ...     name = "pow2"
    ...     def quantize(self, x32, dtype, groups, **options):
    ...         return super().quantize(x32, dtype, groups, pow2_scales=True)
    >>> _ = mf.quant.register_scheme(Pow2())
    >>> mf.quant.schemes()
    ['pow2', 'scaled']
    >>> float(mf.quant.quantize(np.array([3.0, -1.0]), mf.float8_e4m3fn).scales)
    0.0078125
    >>> _ = mf.quant.unregister_scheme("pow2")
    >>> mf.quant.schemes()
    ['scaled']
    """
    for attribute in ("name", "accepts", "quantize", "dequantize"):
        if not hasattr(scheme, attribute):
            raise TypeError(f"a quantization scheme needs a {attribute!r} attribute")
    _SCHEMES[:] = [s for s in _SCHEMES if s.name != scheme.name]
    _SCHEMES.insert(0, scheme)
    return scheme


def unregister_scheme(name):
    """Remove the quantization scheme named `name`.

    Parameters
    ----------
    name : str
        A name ``schemes()`` lists.

    Returns
    -------
    object
        The removed scheme.

    Raises
    ------
    ValueError
        If no registered scheme has that name.

    Examples
    --------
    >>> import minifloat as mf
    >>> scheme = mf.quant.register_scheme(type("Copy", (mf.quant.ScaledScheme,), {"name": "copy"})())
    >>> mf.quant.unregister_scheme("copy") is scheme
    True
    """
    scheme = _scheme_named(name)
    _SCHEMES.remove(scheme)
    return scheme


def schemes():
    """The registered schemes' names, in the order they are tried.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import minifloat as mf
    >>> mf.quant.schemes()
    ['scaled']
    """
    return [s.name for s in _SCHEMES]


def _scheme_named(name):
    for scheme in _SCHEMES:
        if scheme.name == name:
            return scheme
    raise ValueError(f"no quantization scheme named {name!r} (registered: {', '.join(schemes())})")


def _scheme_for(dtype):
    resolved = _arguments.needed_dtype(dtype, "mf.quant.quantize", "a minifloat dtype")
    for scheme in _SCHEMES:
        if scheme.accepts(resolved):
            return scheme, resolved
    minifloat_dtype(resolved, "mf.quant.quantize",  # raises its TypeError (with the ml_dtypes hint)
                    integer_hint="integers take scales and zero points: mf.quant.quantize_affine")
    raise TypeError(f"mf.quant.quantize needs a minifloat float format, not {resolved} "
                    f"(integer types: mf.quant.quantize_affine)")


def quantize(x, dtype, *, granularity="tensor", axis=0, block_size=_DEFAULT_BLOCK_SIZE, **options):
    """Quantize `x` into a float format with one float32 scale per group.

    One scale per tensor, per channel along `axis`, or per tile of
    `block_size`, by the first registered scheme that takes `dtype` (built
    in, for minifloat formats: "scaled"; its exact rules are in the module
    docstring).

    Parameters
    ----------
    x : array_like
        Real numbers.
    dtype : minifloat dtype, scalar type or name
        The elements' format (signed).
    granularity : {"tensor", "channel", "block"}, optional
        The grouping (default "tensor").
    axis : int or None, optional
        The channel axis (default 0; None is allowed where granularity is
        not "channel", where an integer must still be in range).
    block_size : int or tuple of ints, optional
        The tile over the trailing axes, or one integer for the last axis
        (default (128, 128), DeepSeek-V3's weight recipe). ``block_shape``,
        its old name, still works with a DeprecationWarning.
    **options
        The scheme's options; the built-in scheme takes ``margin=0`` (an
        integer in [-128, 128]: scales times 2**margin) and
        ``pow2_scales=False`` (scales rounded up to powers of two).

    Returns
    -------
    QuantizedArray

    Raises
    ------
    TypeError
        If no scheme takes `dtype` (integer types: ``quantize_affine``), `x`
        holds no real numbers, or an argument has the wrong type or is an
        unknown option.
    ValueError
        If `granularity` is unknown, `axis` is out of range, `block_size`
        has more entries than `x` has axes, or `dtype` is unsigned.

    See Also
    --------
    minifloat.mx.quantize : MX and NVFP4 block formats.
    minifloat.quantize_affine : integers with scales and zero points.

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> w = np.array([[1.0, -2.0], [300.0, 0.5]])
    >>> q = mf.quant.quantize(w, mf.float8_e4m3fn)  # one scale: 300 / 448
    >>> q.scales.tolist(), q.data.tolist()
    (0.6696428656578064, [[1.5, -3.0], [448.0, 0.75]])
    >>> q = mf.quant.quantize(w, mf.float8_e4m3fn, granularity="channel", pow2_scales=True)
    >>> q.scales.tolist(), q.dequantize().tolist()
    ([0.0078125, 1.0], [[1.0, -2.0], [288.0, 0.5]])
    """
    block_size, block_name = _arguments.renamed(options, "block_shape", "block_size", block_size,
                                                _DEFAULT_BLOCK_SIZE, "mf.quant.quantize")
    scheme, target = _scheme_for(dtype)
    granularity = _arguments.choice(granularity, GRANULARITIES, "granularity")
    if granularity == "channel" or axis is not None:
        axis = _arguments.integer(axis, "axis")
    blocks = _arguments.positive_integers(block_size, block_name)
    arr = _arguments.real_array(x, "mf.quant.quantize")
    # rounded once, as mf.mx does; the built-in scheme only reads it (no copy
    # of float32 data), another scheme gets an array of its own
    x32 = arr.astype(np.float32, copy=not isinstance(scheme, ScaledScheme))
    kept_axis, kept_blocks = None, None
    if granularity != "channel" and axis is not None and not -max(x32.ndim, 1) <= axis < max(x32.ndim, 1):
        _arguments.axis(axis, x32.ndim)  # unused here, but out of range is a mistake: its ValueError
    if granularity == "channel":
        if x32.ndim == 0:
            raise ValueError("per-channel scaling needs an array with at least one dimension")
        kept_axis = _arguments.axis(axis, x32.ndim)
    elif granularity == "block":
        if len(blocks) > x32.ndim:
            raise ValueError(f"{block_name} {_arguments.shown(block_size)} has {len(blocks)} entries but x has "
                             f"{x32.ndim} dimension{'s' if x32.ndim != 1 else ''}")
        kept_blocks = blocks
    groups = Groups(x32.shape, granularity, kept_axis, kept_blocks)
    data, scales, zero_points, kept_options = scheme.quantize(x32, target, groups, **options)
    return QuantizedArray(data, scales, granularity, kept_axis, kept_blocks, zero_points=zero_points,
                          scheme=scheme.name, options=kept_options)


# Integer weights with a scale and zero point per group (GPTQ/AWQ): the
# recipe of the sub-byte integer types, in its own module.
from ._affine import AffineQuantizedArray, quantize_affine  # noqa: E402


def __dir__():
    """The module's API: its imports are not part of it."""
    return sorted(__all__)
