"""Checks of the arguments of minifloat's Python functions, one set for all.

Every public function reads its arguments through these, so each kind of
argument takes the same values everywhere and a wrong one gets the same kind
of error, naming the argument and the value passed:

* flags (``saturate``, ``packed``, ``zero_point``, ...): ``True`` or
  ``False`` (a NumPy bool too); 1, "no" or None is a TypeError (``bool("no")``
  would be True).
* sizes, counts and axes: through ``operator.index`` (Python and NumPy
  integers, anything with ``__index__``); a float (``16.5``), a string
  (``"32"``) or a bool is a TypeError, never rounded, parsed or read as 0/1.
  A value out of range is a ValueError (axes: NumPy's AxisError).
* choices (``rounding``, ``scale_mode``, ``granularity``): one of the listed
  strings; another type is a TypeError, another string a ValueError.
* dtypes: what ``np.dtype`` takes, but not None (which NumPy reads as
  float64).
* data to quantize: an array of real numbers (bool, integer, float or a
  minifloat format; ml_dtypes' arrays as minifloat's of the same format);
  another dtype is a TypeError.
* result dtypes: ml_dtypes' float types as minifloat's of the same format
  (``as_requested`` views the result back).
* a renamed keyword: the old spelling keeps working, with a
  DeprecationWarning naming the new one.
"""
import operator
import warnings

import numpy as np

from ._core import MinifloatDType
from ._ml_dtypes import as_minifloat_array, minifloat_dtype_of


def shown(value):
    """A short repr of `value` for an error message."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def is_bool(value):
    """Whether `value` is a bool (Python's or NumPy's)."""
    return isinstance(value, (bool, np.bool_))


def _one_value(value):
    """Whether `value` is one value rather than a sequence of them."""
    return not hasattr(value, "__iter__") or (isinstance(value, np.ndarray) and value.ndim == 0)


def flag(value, name):
    """`value` as a bool; anything but True/False (or a NumPy bool) is a TypeError."""
    if is_bool(value):
        return bool(value)
    raise TypeError(f"{name} must be True or False, not {shown(value)}")


def optional_flag(value, name):
    """None, or `value` as a bool (``flag``)."""
    return None if value is None else flag(value, name)


def integer(value, name, what="an integer"):
    """`value` through ``operator.index``; a bool, float, string or other
    object without ``__index__`` is a TypeError."""
    if not is_bool(value):
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise TypeError(f"{name} must be {what}, not {shown(value)}")


def positive_integer(value, name):
    """An integer >= 1 (``integer``; 0 and negatives are a ValueError)."""
    number = integer(value, name, "a positive integer")
    if number < 1:
        raise ValueError(f"{name} must be a positive integer, not {shown(value)}")
    return number


def axis(value, ndim, name="axis"):
    """An axis of an array of `ndim` dimensions (``integer``), made
    non-negative; out of range: NumPy's AxisError (a ValueError and an
    IndexError)."""
    number = integer(value, name)
    try:
        return np.lib.array_utils.normalize_axis_index(number, ndim)
    except OverflowError:  # beyond C long: out of range as well
        raise np.exceptions.AxisError(f"{name} {number} is out of bounds for array of dimension {ndim}") from None


def shape(value, name="shape"):
    """A shape: an integer or a sequence of integers (``integer`` each), none
    negative, as a tuple."""
    what = "an integer or a sequence of integers"
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be {what}, not {shown(value)}")
    if _one_value(value):
        dims = (integer(value, name, what),)
    else:
        dims = tuple(integer(d, name, what) for d in value)
    if any(d < 0 for d in dims):
        raise ValueError(f"{name}: negative dimensions are not allowed, not {dims}")
    return dims


def positive_integers(value, name):
    """Sizes: a positive integer or a sequence of them (``integer`` each),
    as a non-empty tuple; another type is a TypeError, an empty sequence or
    a size below 1 a ValueError."""
    what = "a positive integer or a tuple of positive integers"
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be {what}, not {shown(value)}")
    try:
        sizes = (integer(value, name),) if _one_value(value) else tuple(integer(v, name) for v in value)
    except TypeError:
        raise TypeError(f"{name} must be {what}, not {shown(value)}") from None
    if not sizes or min(sizes) < 1:
        raise ValueError(f"{name} must be {what}, not {shown(value)}")
    return sizes


def choice(value, choices, name):
    """One of the strings `choices`: another type is a TypeError, another
    string a ValueError (both list the choices)."""
    if isinstance(value, str) and value in choices:
        return str(value)
    listed = ", ".join(map(repr, choices))
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {listed}, not {shown(value)}")
    raise ValueError(f"{name} must be one of {listed}, not {shown(value)}")


def dtype(value, name, what="a dtype"):
    """``np.dtype(value)``; None (NumPy's float64) and what NumPy does not
    read as a dtype are a TypeError naming `name`."""
    if value is None:
        raise TypeError(f"{name} must be {what}, not None")
    try:
        return np.dtype(value)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name} must be {what}, not {shown(value)}") from error


def needed_dtype(value, where, what):
    """``np.dtype(value)`` for the function `where`, which needs `what`; None
    (NumPy's float64) and what NumPy does not read as a dtype are a TypeError
    "`where` needs `what`, not ..."."""
    if value is None:
        raise TypeError(f"{where} needs {what}, not None")
    try:
        return np.dtype(value)
    except TypeError as error:
        raise TypeError(f"{where} needs {what}, not {value!r}") from error


def real_array(value, where, shown_dtype="{}"):
    """``np.asarray(value)``, an array of real numbers (bool, integer, float
    or a minifloat format) for the function `where`; another dtype is a
    TypeError "`where` needs real numbers, not <dtype>" (`shown_dtype`
    words the dtype). An ml_dtypes array is read as minifloat's of the same
    format (bfloat16 weights from JAX, for instance)."""
    arr = as_minifloat_array(np.asarray(value))
    if arr.dtype.kind not in "biuf" and not isinstance(arr.dtype, MinifloatDType):
        raise TypeError(f"{where} needs real numbers, not {shown_dtype.format(arr.dtype)}")
    return arr


def float_dtype(value, name="dtype"):
    """A floating-point dtype (NumPy's or a minifloat format) to write
    values into; ml_dtypes' float types are minifloat's of the same format
    (``as_requested`` views the result back); an integer or other dtype is
    a TypeError."""
    resolved = dtype(value, name, "a floating-point dtype")
    resolved = minifloat_dtype_of(resolved) or resolved
    if resolved.kind != "f":
        raise TypeError(f"{name} must be a floating-point dtype, not {resolved}")
    return resolved


def as_requested(values, value):
    """`values` (of ``float_dtype(value)``) viewed as ml_dtypes' type where
    `value` named one, else `values` itself."""
    requested = np.dtype(value)
    return values if requested == values.dtype else values.view(requested)


def renamed(keywords, old, new, value, default, where, stacklevel=3):
    """(value, spelling) of the parameter now called `new`: `value` as
    passed, or, where the caller passed the old spelling `old` (taken out of
    the **keywords dict `keywords`), that value, with a DeprecationWarning
    naming `new`. Both spellings at once is a TypeError. The spelling is the
    name to use in error messages about the value."""
    if old not in keywords:
        return value, new
    old_value = keywords.pop(old)
    if value is not default:
        raise TypeError(f"{where}() got {new}= and {old}=, its old name: pass {new}= only")
    warnings.warn(f"{where}(): {old}= is deprecated, use {new}= (the same values)", DeprecationWarning,
                  stacklevel=stacklevel)
    return old_value, old


def deprecated_attribute(owner, old, new):
    """The DeprecationWarning of reading the attribute `old`, now `new`
    (call it from the property that stands for the old name)."""
    warnings.warn(f"{owner}.{old} is deprecated, use {owner}.{new} (the same value)", DeprecationWarning,
                  stacklevel=3)


def renamed_attribute(owner, old, new):
    """A property of the class `owner` for the attribute's old name `old`:
    the value of `new`, with ``deprecated_attribute``'s warning."""

    def read(self):
        deprecated_attribute(owner, old, new)
        return getattr(self, new)

    read.__name__ = old
    return property(read, doc=f"Deprecated: ``{new}``.")


def no_other_keywords(keywords, where, hints=None):
    """TypeError for a keyword left in `keywords`, as Python words it, with
    the parameter meant where `hints` (wrong name -> right name) knows it."""
    if keywords:
        name = next(iter(keywords))
        hint = (hints or {}).get(name)
        extra = f" (did you mean {hint}=?)" if hint else ""
        raise TypeError(f"{where}() got an unexpected keyword argument {name!r}{extra}")
