"""Make a few NumPy functions handle minifloat arrays.

NumPy's C implementations of ``np.dot``, ``np.inner``, ``np.vdot`` and
``np.einsum`` only accept NumPy's own and legacy dtypes (einsum even crashes
on others); ``np.mean``/``np.var``/``np.std`` would divide an already
rounded sum a second time; and the ``np.nan*`` functions replace NaN by
+-inf or 0, which some formats cannot hold (float8_e4m3fn has no inf,
float8_e8m0fnu no zero). At import, minifloat wraps exactly these entry
points. A wrapper only acts when an operand has a minifloat dtype: it computes
in float32 (products and sums accumulated in float32, one rounding at the
end, as the ufunc loops do) and otherwise calls NumPy's original function
unchanged.

``np.linalg.norm`` is wrapped too (its vector norm calls ``ndarray.dot``).

Not covered (NumPy gives no hook): the ``ndarray.dot`` method before NumPy
2.5 (NumPy's ``PyArray_MatrixProduct2`` refused DTypes without a legacy type
number until numpy/numpy#30931; from 2.5 it calls our dot slot, float32
products and sum, one rounding), and ``ndarray.mean/var/std`` if they were
first called before minifloat was imported (NumPy caches the implementation
on first use).
"""
import functools

import numpy as np
from numpy._core import _methods, einsumfunc, multiarray, numeric

from numpy.lib import _nanfunctions_impl
from numpy.linalg import _linalg

from . import _core
from ._core import MinifloatDType

_ORIGINALS = {}


def _is_minifloat(x):
    dtype = getattr(x, "dtype", None)
    return isinstance(dtype, MinifloatDType)


def _any_minifloat(values):
    return any(_is_minifloat(v) for v in values)


def _finish(result, result_dtype, out):
    """Round a float32 result once into `result_dtype` (or `out`)."""
    result = np.asarray(result)
    target = out.dtype if out is not None else result_dtype
    if isinstance(target, MinifloatDType):
        if not _core.format_info(target.name)["has_inf"]:
            # float32 overflow to inf is an overflow of the format, not an inf value
            result = np.where(np.isinf(result), np.copysign(np.finfo(np.float64).max, result), result)
        # a NaN result is the format's canonical NaN (which NaN float32
        # arithmetic passes on depends on the order it met them in)
        result = np.where(np.isnan(result), np.float32(np.nan), result)
    if out is not None:
        np.copyto(out, result, casting="unsafe")
        return out
    rounded = result.astype(result_dtype)
    return rounded[()] if rounded.ndim == 0 else rounded


def _float32_copy(arr):
    """`arr` in float32 (exact), its NaNs quiet: a signalling NaN (bfloat16
    0x7F81) stays signalling in float32, and NumPy's float32 fmax/fmin then
    return NaN or a number depending on where it sits in the data."""
    x = arr.astype(np.float32)
    bits = x.view(np.uint32)
    signalling = (bits & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
    signalling &= (bits & np.uint32(0x00400000)) == 0
    if signalling.any():
        bits |= np.where(signalling, np.uint32(0x00400000), np.uint32(0))
    return x


_DOT_OUT_ERROR = ("output array is not acceptable (must have the right datatype, number of dimensions, "
                  "and be a C-Array)")


def _product_wrapper(original):
    """dot, inner, vdot: minifloat operands are multiplied in float32."""

    @functools.wraps(original)
    def product(a, b, *args, **kwargs):
        if not (_is_minifloat(a) or _is_minifloat(b)):
            return original(a, b, *args, **kwargs)
        a = np.asarray(a)
        b = np.asarray(b)
        out = kwargs.pop("out", args[0] if args else None)
        result_dtype = np.result_type(a, b)
        compute_dtype = np.float32 if isinstance(result_dtype, MinifloatDType) else result_dtype
        result = np.asarray(original(a.astype(compute_dtype), b.astype(compute_dtype)))
        if out is None:
            return _finish(result, result_dtype, None)
        # np.dot's rule: out must be exactly what it would return (NumPy
        # raises the same ValueError for float64), never a cast
        if (not isinstance(out, np.ndarray) or out.dtype != result_dtype or out.shape != result.shape
                or not out.flags.c_contiguous):
            raise ValueError(_DOT_OUT_ERROR)
        _finish(result, result_dtype, out)
        return out[()] if out.ndim == 0 else out

    product.__wrapped_by_minifloat__ = True
    return product


def _c_einsum_wrapper(original):
    @functools.wraps(original)
    def c_einsum(*operands, **kwargs):
        arrays = [op for op in operands if not isinstance(op, (str, list, tuple))]
        if kwargs.get("dtype") is not None or not _any_minifloat(arrays):
            return original(*operands, **kwargs)
        result_dtype = np.result_type(*arrays)
        out = kwargs.pop("out", None)
        if isinstance(result_dtype, MinifloatDType):
            casting = kwargs.get("casting", "safe")
            if out is not None and not np.can_cast(result_dtype, out.dtype, casting):
                # einsum's rule for out (NumPy's message for float16)
                raise TypeError(f"Iterator requested dtype could not be cast from dtype({str(result_dtype)!r}) "
                                f"to dtype({str(out.dtype)!r}), the output operand dtype, according to the "
                                f"rule {casting!r}")
            kwargs["dtype"] = np.float32
            return _finish(original(*operands, **kwargs), result_dtype, out)
        kwargs["dtype"] = result_dtype
        if out is not None:
            kwargs["out"] = out
        return original(*operands, **kwargs)

    c_einsum.__wrapped_by_minifloat__ = True
    return c_einsum


def _statistic_wrapper(original):
    """_mean/_var/_std: accumulate in float32, round the statistic once."""

    @functools.wraps(original)
    def statistic(a, axis=None, dtype=None, out=None, *args, **kwargs):
        if dtype is not None or not _is_minifloat(a):
            return original(a, axis, dtype, out, *args, **kwargs)
        result = original(a, axis, np.float32, None, *args, **kwargs)
        return _finish(result, np.asanyarray(a).dtype, out)

    statistic.__wrapped_by_minifloat__ = True
    return statistic


_NAN_VALUE_FUNCTIONS = ("nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin",
                        "nancumsum", "nancumprod", "nanmedian", "nanpercentile", "nanquantile")
_NAN_INDEX_FUNCTIONS = ("nanargmax", "nanargmin")


def _nan_function_wrapper(original, returns_values):
    """np.nan* on a float32 copy (exact), values rounded once back."""

    @functools.wraps(original)
    def nan_function(a, *args, **kwargs):
        if not _is_minifloat(a) or kwargs.get("dtype") is not None or kwargs.get("out") is not None:
            return original(a, *args, **kwargs)
        arr = np.asanyarray(a)
        result = original(_float32_copy(arr), *args, **kwargs)
        return _finish(result, arr.dtype, None) if returns_values else result

    nan_function.__wrapped_by_minifloat__ = True
    return nan_function


def _norm_wrapper(original):
    """np.linalg.norm: NumPy's vector norm calls the ndarray.dot method, which
    NumPy before 2.5 refuses for user dtypes; computed in float32, the norm
    rounded once."""

    @functools.wraps(original)
    def norm(x, *args, **kwargs):
        if not _is_minifloat(x):
            return original(x, *args, **kwargs)
        arr = np.asanyarray(x)
        return _finish(original(_float32_copy(arr), *args, **kwargs), arr.dtype, None)

    norm.__wrapped_by_minifloat__ = True
    return norm


def _replace(module, name, make_wrapper):
    current = getattr(module, name)
    if getattr(current, "__wrapped_by_minifloat__", False):
        return
    _ORIGINALS.setdefault((module.__name__, name), current)
    setattr(module, name, make_wrapper(current))


def install():
    """Install the wrappers (idempotent)."""
    for name in ("dot", "inner", "vdot"):
        wrapper = None
        for module in (multiarray, numeric, np):
            current = getattr(module, name)
            if getattr(current, "__wrapped_by_minifloat__", False):
                continue
            if wrapper is None:
                wrapper = _product_wrapper(current)
            _ORIGINALS.setdefault((module.__name__, name), current)
            setattr(module, name, wrapper)
    _replace(einsumfunc, "c_einsum", _c_einsum_wrapper)
    for names, returns_values in ((_NAN_VALUE_FUNCTIONS, True), (_NAN_INDEX_FUNCTIONS, False)):
        for name in names:
            wrapper = None
            for module in (_nanfunctions_impl, np):
                current = getattr(module, name)
                if getattr(current, "__wrapped_by_minifloat__", False):
                    continue
                if wrapper is None:
                    wrapper = _nan_function_wrapper(current, returns_values)
                _ORIGINALS.setdefault((module.__name__, name), current)
                setattr(module, name, wrapper)
    for name in ("_mean", "_var", "_std"):
        _replace(_methods, name, _statistic_wrapper)
    wrapper = None
    for module in (_linalg, np.linalg):
        current = module.norm
        if getattr(current, "__wrapped_by_minifloat__", False):
            continue
        if wrapper is None:
            wrapper = _norm_wrapper(current)
        _ORIGINALS.setdefault((module.__name__, "norm"), current)
        module.norm = wrapper
