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

Not covered (NumPy gives no hook): the ``ndarray.dot`` method, and
``ndarray.mean/var/std`` if they were first called before minifloat was
imported (NumPy caches the implementation on first use).
"""
import functools

import numpy as np
from numpy._core import _methods, einsumfunc, multiarray, numeric

from numpy.lib import _nanfunctions_impl

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
    if isinstance(target, MinifloatDType) and not _core.format_info(target.name)["has_inf"]:
        # float32 overflow to inf is an overflow of the format, not an inf value
        result = np.where(np.isinf(result), np.copysign(np.finfo(np.float64).max, result), result)
    if out is not None:
        np.copyto(out, result, casting="unsafe")
        return out
    rounded = result.astype(result_dtype)
    return rounded[()] if rounded.ndim == 0 else rounded


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
        result = original(a.astype(compute_dtype), b.astype(compute_dtype))
        return _finish(result, result_dtype, out)

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
        result = original(arr.astype(np.float32), *args, **kwargs)
        return _finish(result, arr.dtype, None) if returns_values else result

    nan_function.__wrapped_by_minifloat__ = True
    return nan_function


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
