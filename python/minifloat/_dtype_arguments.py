"""What a dtype argument means to minifloat's own functions: a name is
minifloat's format even where NumPy's name table gives it to ml_dtypes, and
anything that is not a minifloat format is a TypeError naming the function.
(Below mf.cast and mf.pack, which both take dtypes: neither imports the other
for this.)"""
import numpy as np

from . import _arguments, _core
from ._core import MinifloatDType
from ._ml_dtypes import ml_dtypes_format


def own_dtype_named(name):
    """minifloat's dtype of that name (a float format, "minifloat."-prefixed
    or not, or a sub-byte integer), or None: minifloat's functions read names
    as minifloat's own even where NumPy's name table gives them to ml_dtypes."""
    if not isinstance(name, str):
        return None
    bare = name[len("minifloat."):] if name.startswith("minifloat.") else name
    if bare in _core.INT_FORMAT_NAMES:
        return np.dtype(getattr(_core, bare))
    return _core._format_dtype(bare)


def minifloat_dtype(dtype, what, integer_hint=""):
    """`dtype` as a minifloat dtype instance, or TypeError naming `what`.

    A name given to minifloat's own functions means minifloat's format even
    where NumPy's name table gives it to ml_dtypes (see claim_dtype_names).
    minifloat's own integer and complex types are not float formats: the
    error says so, and for an integer type what to use instead
    (`integer_hint`, "{name}" standing for the type's name)."""
    if isinstance(dtype, MinifloatDType):
        return dtype
    own = own_dtype_named(dtype)
    if isinstance(own, MinifloatDType):
        return own
    resolved = _arguments.needed_dtype(dtype, what, "a minifloat dtype")
    if not isinstance(resolved, MinifloatDType):
        if isinstance(resolved, (_core.IntegerDType, _core.ComplexDType)):
            family = "integer" if isinstance(resolved, _core.IntegerDType) else "complex"
            hint = integer_hint if family == "integer" else ""
            raise TypeError(f"{what} needs a minifloat float format, not minifloat's {family} type "
                            f"{resolved.name}" + (f" ({hint.format(name=resolved.name)})" if hint else ""))
        name = ml_dtypes_format(resolved)
        if name is not None:
            raise TypeError(f"{what} needs a minifloat dtype, not ml_dtypes.{name}: pass mf.{name} "
                            f"(the same format; mf.to_ml_dtypes views the result as ml_dtypes')")
        raise TypeError(f"{what} needs a minifloat dtype, not {resolved}")
    return resolved
