"""Zero-copy exchange with ml_dtypes (and so with JAX and ONNX).

ml_dtypes stores every format it shares with minifloat in the same bits
(bfloat16 in two bytes, the others in one byte, FP6/FP4 in the low bits),
so moving an array between the two is a view: the same memory read under
the other library's dtype. ``astype`` between the two libraries' dtypes
works too (casts registered when minifloat is imported), but makes a copy.

The integer types differ in one respect: ml_dtypes keeps only a signed
type's low bits (int4 -1 is the byte 0x0F), minifloat sign-extends to the
whole byte (0xFF, the int8 of the same value). Unsigned integers are views
as above; int1/int2/int4 are converted copies in both directions.

complex32 and bcomplex32 (ml_dtypes 0.6) have the same layout in both
libraries (real part first, two float16/bfloat16 codes): views both ways.
``astype`` also goes across (ml_dtypes.bcomplex32 -> mf.complex32 rounds
each part once).
"""
import sys

import numpy as np

from . import _core
from ._core import ComplexDType, IntegerDType, MinifloatDType


def _ml_dtypes(what):
    """The ml_dtypes module, or TypeError saying `what` needs it."""
    try:
        import ml_dtypes
    except ImportError as error:
        raise TypeError(f"{what} needs ml_dtypes, which is not installed (pip install ml_dtypes)") from error
    return ml_dtypes


_names_by_type = {}  # id of (ml_dtypes module, names) -> (module, names, {ml_dtypes scalar type: its name})


def _ml_dtypes_name(dtype, own_class, names):
    """The name in `names` of the type an ml_dtypes dtype holds, or None (for
    a dtype of minifloat's class `own_class`, any other dtype, or where
    ml_dtypes is not imported: this never imports it). Looked up by the
    dtype's scalar type (dtype.name is a slow Python property: mf.cast of a
    small array spent half its time there)."""
    if dtype.isbuiltin == 1:  # one of NumPy's own types
        return None
    ml_dtypes = sys.modules.get("ml_dtypes")
    if ml_dtypes is None or isinstance(dtype, own_class):
        return None
    entry = _names_by_type.get((id(ml_dtypes), id(names)))
    if entry is None or entry[0] is not ml_dtypes or entry[1] is not names:
        by_type = {getattr(ml_dtypes, name): name for name in names if hasattr(ml_dtypes, name)}
        entry = _names_by_type[(id(ml_dtypes), id(names))] = (ml_dtypes, names, by_type)
    return entry[2].get(dtype.type)


def ml_dtypes_format(dtype):
    """The name of the minifloat format an ml_dtypes dtype holds, or None
    (for any other dtype; never imports ml_dtypes)."""
    return _ml_dtypes_name(dtype, MinifloatDType, _core.FORMAT_NAMES)


def ml_dtypes_int_type(dtype):
    """The name of the integer type an ml_dtypes dtype holds, or None."""
    return _ml_dtypes_name(dtype, IntegerDType, _core.INT_FORMAT_NAMES)


def ml_dtypes_complex_type(dtype):
    """The name of the complex type (complex32/bcomplex32) an ml_dtypes dtype
    holds, or None. Both libraries store it in the same bits (real part
    first, each part a float16/bfloat16), so the exchange is a view."""
    return _ml_dtypes_name(dtype, ComplexDType, _core.COMPLEX_FORMAT_NAMES)


def _int_bits(name):
    return int(name.rsplit("int", 1)[1])  # "int4" -> 4, "uint2" -> 2


def _int_to_ml_dtypes(arr, ml_type):
    """minifloat's sign-extended bytes as ml_dtypes' low-bit bytes."""
    name = arr.dtype.name
    if name.startswith("u"):
        return arr.view(ml_type)
    mask = np.uint8((1 << _int_bits(name)) - 1)
    return (arr.view(np.uint8) & mask).view(ml_type)


def _int_from_ml_dtypes(arr, name):
    """ml_dtypes' low-bit bytes as minifloat's (signed: sign-extended copy)."""
    target = getattr(_core, name)
    if name.startswith("u"):
        # a view, as for the float formats; bytes with bits above the width
        # (which ml_dtypes ignores and never writes itself) would read as
        # other values here, so they are refused rather than passed on
        if np.any(arr.view(np.uint8) >> np.uint8(_int_bits(name))):
            raise ValueError(f"mf.from_ml_dtypes: this {name} array has bytes with bits above its {_int_bits(name)} "
                             f"bits (ml_dtypes ignores them); arr.astype(mf.{name}) makes a clean copy")
        return arr.view(target)
    shift = 8 - _int_bits(name)
    return ((arr.view(np.uint8) << np.uint8(shift)).view(np.int8) >> np.int8(shift)).view(target)


def _as_array(x, what, want):
    """`x` as an ndarray (itself when it is one) and whether it was a scalar."""
    if isinstance(x, np.ndarray):
        return x, False
    if isinstance(x, np.generic):
        return np.asarray(x), True
    if hasattr(x, "__array__") or hasattr(x, "__array_interface__") or hasattr(x, "__dlpack__"):
        return np.asarray(x), False  # e.g. a JAX array: a view where its producer allows
    raise TypeError(f"{what} needs {want}, not {type(x).__name__}")


def to_ml_dtypes(x):
    """View a minifloat array (or scalar) as ml_dtypes' type of the same format.

    ``np.shares_memory(mf.to_ml_dtypes(a), a)`` is True; writes through
    either are seen by both. Use it to hand minifloat data to JAX
    (``jnp.asarray``) or ONNX (``onnx.numpy_helper.from_array``). Signed
    integer types (int1, int2, int4) are a converted copy instead:
    ml_dtypes stores only their low bits. Arrays of NumPy's own types
    (float32, int8, ...), which both libraries share, come back unchanged,
    so a tree of mixed arrays maps in one call. Needs ml_dtypes.

    Parameters
    ----------
    x : ndarray or minifloat scalar
        Of a format ml_dtypes has, or of one of NumPy's own types.

    Returns
    -------
    ndarray or scalar
        ml_dtypes' array (or scalar) of the same format and values (`x`
        itself for NumPy's own types).

    Raises
    ------
    ImportError
        If ml_dtypes is not installed.
    TypeError
        If `x` is not an array or scalar, is already ml_dtypes', or is of a
        minifloat format ml_dtypes has no type for.

    See Also
    --------
    from_ml_dtypes

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> x = np.array([1.0, 2.5], dtype=mf.float8_e5m2)
    >>> m = mf.to_ml_dtypes(x)
    >>> type(m.dtype).__module__.startswith("minifloat"), np.shares_memory(m, x)
    (False, True)
    """
    arr, scalar = _as_array(x, "mf.to_ml_dtypes", "a minifloat array or scalar")
    if arr.dtype.isbuiltin == 1:  # NumPy's own type: the same in both libraries
        return x if scalar else arr
    if isinstance(arr.dtype, IntegerDType):
        ml_dtypes = _ml_dtypes("mf.to_ml_dtypes")
        ml_type = getattr(ml_dtypes, arr.dtype.name, None)
        if ml_type is None:
            raise TypeError(f"ml_dtypes {ml_dtypes.__version__} has no {arr.dtype.name}")
        out = _int_to_ml_dtypes(arr, ml_type)
        return out[()] if scalar else out
    if not isinstance(arr.dtype, (MinifloatDType, ComplexDType)):
        raise TypeError(f"mf.to_ml_dtypes needs a minifloat array or scalar, not {arr.dtype}")
    ml_dtypes = _ml_dtypes("mf.to_ml_dtypes")
    name = arr.dtype.name
    ml_type = getattr(ml_dtypes, name, None)
    if ml_type is None:
        raise TypeError(f"ml_dtypes {ml_dtypes.__version__} has no {name}")
    view = arr.view(ml_type)
    return view[()] if scalar else view


def from_ml_dtypes(x):
    """View an ml_dtypes array (or scalar) as minifloat's type of the same format.

    Takes ml_dtypes arrays and scalars, and anything NumPy reads as one (a
    JAX array on the CPU, for instance). Signed integer types come back as
    a copy, sign-extended to the byte as minifloat stores them. Arrays of
    NumPy's own types (float32, int8, ...), which both libraries share,
    come back as ``np.asarray`` gives them, so a tree of mixed arrays (a
    JAX model's parameters) maps in one call.

    Parameters
    ----------
    x : array_like or ml_dtypes scalar
        Of an ml_dtypes type minifloat has (``FORMAT_NAMES``,
        ``INT_FORMAT_NAMES``, ``COMPLEX_FORMAT_NAMES``), or of one of
        NumPy's own types.

    Returns
    -------
    ndarray or scalar
        minifloat's array (or scalar) of the same format, sharing memory
        with `x` (signed integers: a copy; NumPy's own types: unchanged).

    Raises
    ------
    TypeError
        If `x` is not array-like, is already minifloat's, or is of an
        ml_dtypes type minifloat does not have.

    See Also
    --------
    to_ml_dtypes

    Examples
    --------
    >>> import numpy as np, ml_dtypes, minifloat as mf
    >>> m = np.array([1.0, 2.5], dtype=ml_dtypes.bfloat16)
    >>> x = mf.from_ml_dtypes(m)
    >>> x.dtype == np.dtype(mf.bfloat16), np.shares_memory(x, m)
    (True, True)
    """
    arr, scalar = _as_array(x, "mf.from_ml_dtypes", "an ml_dtypes array or scalar")
    if arr.dtype.isbuiltin == 1:  # NumPy's own type: the same in both libraries
        return x if scalar else arr
    out = as_minifloat_array(arr)
    if out is arr:
        if isinstance(arr.dtype, (MinifloatDType, IntegerDType, ComplexDType)):
            raise TypeError(f"mf.from_ml_dtypes needs an ml_dtypes array; this one is already minifloat's {arr.dtype}")
        raise TypeError(f"mf.from_ml_dtypes needs an ml_dtypes array or scalar of a type minifloat has "
                        f"({', '.join(_shared_type_names())}), not {arr.dtype}")
    return out[()] if scalar else out


def _shared_type_names():
    """The names of the types both the installed ml_dtypes and minifloat have."""
    ml_dtypes = sys.modules.get("ml_dtypes")
    names = _core.FORMAT_NAMES + _core.INT_FORMAT_NAMES + _core.COMPLEX_FORMAT_NAMES
    return [name for name in names if ml_dtypes is None or hasattr(ml_dtypes, name)]


def as_minifloat_array(arr):
    """`arr` as minifloat's type of the same format when it is an ml_dtypes
    array of one (a view; signed integers: a sign-extended copy), else `arr`
    itself. mf.cast, mf.pack, the quantizers and the savers read ml_dtypes
    arrays this way."""
    if arr.dtype.isbuiltin == 1:
        return arr
    int_name = ml_dtypes_int_type(arr.dtype)
    if int_name is not None:
        return _int_from_ml_dtypes(arr, int_name)
    name = ml_dtypes_format(arr.dtype) or ml_dtypes_complex_type(arr.dtype)
    return arr if name is None else arr.view(getattr(_core, name))


def minifloat_dtype_of(dtype):
    """minifloat's dtype of the same type as an ml_dtypes dtype (or scalar
    type), or None (anything else, names included; never imports ml_dtypes)."""
    if not isinstance(dtype, np.dtype):
        if not isinstance(dtype, type) or "ml_dtypes" not in sys.modules:
            return None
        try:
            dtype = np.dtype(dtype)
        except TypeError:
            return None
    if dtype.isbuiltin == 1:
        return None
    name = ml_dtypes_format(dtype) or ml_dtypes_int_type(dtype) or ml_dtypes_complex_type(dtype)
    return None if name is None else np.dtype(getattr(_core, name))
