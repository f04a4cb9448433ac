"""What ``import minifloat`` does to NumPy beyond registering its own types.

Two guards, each where NumPy's own code would crash or silently return wrong
values for a minifloat array and NumPy offers no slot that would make its own
code right; every other array reaches NumPy's function unchanged:

- ``np.einsum``: NumPy's C einsum picks its inner loops by legacy type number,
  which new-style DTypes do not have (segfaults on float8_e4m3fn, wrong sums
  on others; numpy/numpy#25307). The guard sits on the C function that
  ``np.einsum`` calls (``np.einsum`` itself, its dispatch and signature, stay
  NumPy's); calls without a minifloat operand reach it through a C check.
  Minifloat operands are multiplied and summed in float32, rounded once.
- ``np.iinfo``: NumPy derives the width from the itemsize, so
  ``np.iinfo(mf.int4)`` would say -128..127. The guard is a subclass that
  corrects the sub-byte types and returns NumPy's own answers for the rest.

Ufuncs without minifloat loops (np.fft's and np.linalg's among them) get
promoters that widen minifloat inputs to float32, as NumPy widens float16:
NumPy's public way to extend a ufunc (PyUFunc_AddPromoter), keyed on
minifloat's DTypes, invisible to every other dtype.
"""
import numpy as np
from numpy._core import einsumfunc

from . import _core
from ._core import MinifloatDType
from ._ints import _numpy_iinfo

_OWN_DTYPES = (MinifloatDType, _core.IntegerDType)


def _is_minifloat(x):
    return isinstance(getattr(x, "dtype", None), MinifloatDType)


def _is_int_type(x):
    return isinstance(getattr(x, "dtype", None), _core.IntegerDType)


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
    return _deliver(result, result_dtype, out)


def _deliver(result, result_dtype, out):
    """`result` copied into `out` (of the result's shape), or rounded once
    into `result_dtype` (a 0-d result as a scalar)."""
    if out is not None:
        if out.shape != result.shape:
            # NumPy's functions never broadcast a result into `out`
            raise ValueError(f"out has shape {out.shape} but the result has shape {result.shape}: "
                             f"pass an out array of the result's shape")
        np.copyto(out, result, casting="unsafe")
        return out
    rounded = result.astype(result_dtype)
    return rounded[()] if rounded.ndim == 0 else rounded


def _any_minifloat(values):
    return any(_is_minifloat(v) for v in values)


def _widen(x):
    """A minifloat array as its exact float32 values, a sub-byte integer array
    as the int8/uint8 of the same values; anything else unchanged."""
    if _is_int_type(x):
        return np.asarray(x).astype(np.int8 if x.dtype.kind == "i" else np.uint8)
    return np.asarray(x).astype(np.float32) if _is_minifloat(x) else x


def _int_einsum(original, operands, kwargs):
    """einsum with sub-byte integer operands (NumPy's C einsum would read
    them as raw bytes, or crash): products and sums in int32 when every array
    is one of them, as matmul does, else as their int8/uint8 values; a
    dtype= or out= of a sub-byte type gets the int64 result wrapped."""
    arrays = [op for op in operands if not isinstance(op, (str, list, tuple))]
    every = all(_is_int_type(x) for x in arrays)
    wide = [np.asarray(op).astype(np.int32) if every and _is_int_type(op) else _widen(op) for op in operands]
    dtype, out = kwargs.get("dtype"), kwargs.get("out")
    target = None
    if dtype is not None:
        try:
            target = np.dtype(dtype)
        except TypeError:
            pass  # einsum's own error follows
    target = target if isinstance(target, _core.IntegerDType) else None
    if target is None and not _is_int_type(out):
        return original(*wide, **kwargs)
    kwargs = {k: v for k, v in kwargs.items() if k not in ("dtype", "out")}
    result = np.asarray(original(*wide, dtype=np.int64, **kwargs))
    # (not _deliver: this path has never checked out's shape, and no change of behaviour is meant here)
    if out is not None:
        np.copyto(out, result, casting="unsafe")
        return out
    result = result.astype(target)
    return result[()] if result.ndim == 0 else result


def _array_positions(operands):
    """Where einsum's operands are arrays: after the subscripts string, or
    every other one in the sublist form (a trailing output sublist aside)."""
    if operands and isinstance(operands[0], str):
        return range(1, len(operands))
    return range(0, len(operands) - len(operands) % 2, 2)


def _cast_refusal(source, target, casting):
    # NumPy's words for the same refusal with its own dtypes
    return TypeError(f"Cannot cast array data from {source!r} to {target!r} according to the rule {casting!r}")


def _is_complex(x):
    return isinstance(getattr(x, "dtype", None), _core.ComplexDType)


def _complex_einsum(original, operands, positions, kwargs):
    """einsum with a complex32/bcomplex32 operand, dtype= or out=: the
    operands become the result type (exactly, or under `casting`), minifloat
    complex ones then complex64 (exact), and products and sums run in
    complex64, rounded once into a minifloat complex result."""
    casting = kwargs.get("casting", "safe")
    out = kwargs.pop("out", None)
    requested = kwargs.pop("dtype", None)
    arrays = [operands[k] for k in positions]
    target = np.dtype(requested) if requested is not None else np.result_type(*arrays)
    own_target = isinstance(target, _core.ComplexDType)
    for k in positions:
        source = operands[k].dtype
        if source != target and not np.can_cast(source, target, casting):
            raise _cast_refusal(source, target, casting)
        if own_target or _is_complex(operands[k]) or _is_minifloat(operands[k]):
            operands[k] = operands[k].astype(target)
            if own_target:
                operands[k] = operands[k].astype(np.complex64)
    if out is not None and not np.can_cast(target, out.dtype, casting):
        raise TypeError(f"Iterator requested dtype could not be cast from dtype({str(target)!r}) "
                        f"to dtype({str(out.dtype)!r}), the output operand dtype, according to the "
                        f"rule {casting!r}")
    result = np.asarray(original(*operands, dtype=np.complex64 if own_target else target, **kwargs))
    return _deliver(result, target, out)


def _einsum_handler(original, *operands, **kwargs):
    """c_einsum for calls with a minifloat operand, dtype= or out= (the C
    check found one). NumPy's C einsum would pick its loops by a type number
    these DTypes do not have, so: sums and products of minifloat values run
    in float32 (exact inputs, one rounding at the end), as the ufunc loops
    do; NumPy's casting rule for dtype= and out= is kept."""
    positions = _array_positions(operands)
    operands = list(operands)
    for k in positions:
        operands[k] = np.asanyarray(operands[k])
    arrays = [operands[k] for k in positions]
    requested = kwargs.get("dtype")
    if (any(_is_complex(x) for x in arrays) or _is_complex(kwargs.get("out"))
            or (requested is not None and isinstance(np.dtype(requested), _core.ComplexDType))):
        return _complex_einsum(original, operands, positions, kwargs)
    if not _any_minifloat(arrays) and any(_is_int_type(x) for x in arrays):
        return _int_einsum(original, tuple(operands), kwargs)
    casting = kwargs.get("casting", "safe")
    out = kwargs.pop("out", None)
    requested = kwargs.pop("dtype", None)
    target = np.dtype(requested) if requested is not None else np.result_type(*arrays)
    if isinstance(target, MinifloatDType):
        for k in positions:  # the operands become `target` first, as NumPy casts them to dtype=
            source = operands[k].dtype
            if not np.can_cast(source, target, casting):
                raise _cast_refusal(source, target, casting)
            operands[k] = operands[k].astype(target).astype(np.float32)
        if out is not None and not np.can_cast(target, out.dtype, casting):
            # einsum's rule for out (NumPy's message for float16)
            raise TypeError(f"Iterator requested dtype could not be cast from dtype({str(target)!r}) "
                            f"to dtype({str(out.dtype)!r}), the output operand dtype, according to the "
                            f"rule {casting!r}")
        return _finish(original(*operands, dtype=np.float32, **kwargs), target, out)
    # a NumPy result type: NumPy casts minifloat operands to it (exactly, or
    # under `casting`); a minifloat `out` takes the result rounded once
    if out is not None and isinstance(out.dtype, MinifloatDType):
        if not np.can_cast(target, out.dtype, casting):
            raise TypeError(f"Iterator requested dtype could not be cast from dtype({str(target)!r}) "
                            f"to dtype({str(out.dtype)!r}), the output operand dtype, according to the "
                            f"rule {casting!r}")
        return _finish(original(*operands, dtype=target, **kwargs), out.dtype, out)
    if out is not None:
        kwargs["out"] = out
    return original(*operands, dtype=target, **kwargs)


def _has_float_loop(ufunc):
    inputs = (t.split("->")[0] for t in ufunc.types)
    return any(("f" in i or "d" in i) for i in inputs)


def _install_fallback_promoters():
    """Ufuncs without minifloat loops widen minifloat inputs to float32 (the
    way float16 inputs reach their float32 loops): np.fft's and np.linalg's
    ufuncs; ufuncs with no floating loop at all are left to fail as for
    float16."""
    from numpy.fft import _pocketfft_umath
    from numpy.linalg import _umath_linalg

    with_loops = _core._ufuncs_with_loops()
    seen = set()
    for module in (np, _umath_linalg, _pocketfft_umath):
        for value in vars(module).values():
            if (isinstance(value, np.ufunc) and id(value) not in seen
                    and value.__name__ not in with_loops and _has_float_loop(value)):
                seen.add(id(value))
                _core._add_fallback_promoters(value, np.dtypes.Float32DType)
    # complex32/bcomplex32 into np.fft's and np.linalg's ufuncs as complex64
    # (exact), as NumPy takes float16 there as float32
    for module in (_umath_linalg, _pocketfft_umath):
        for value in vars(module).values():
            if isinstance(value, np.ufunc) and any("F" in t.split("->")[0] for t in value.types):
                _core._add_fallback_promoters(value, np.dtypes.Complex64DType)


def install():
    """The two guards and the fallback promoters (once, at import)."""
    from numpy._core import getlimits, multiarray

    # each only over NumPy's own function: never over another library's
    if einsumfunc.c_einsum is multiarray.c_einsum:
        einsumfunc.c_einsum = _core._function_guard(einsumfunc.c_einsum, _einsum_handler)
    if np.iinfo is getlimits.iinfo:
        np.iinfo = _numpy_iinfo
    _install_fallback_promoters()


GUARDED = ((einsumfunc, "c_einsum"), (np, "iinfo"))  # what install() replaces (tests and README list them)
