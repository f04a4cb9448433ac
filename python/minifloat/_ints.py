"""Sub-byte integer types (issue 19): int1, int2, int4, uint1, uint2, uint4.

One value per byte with signed codes sign-extended, as ml_dtypes stores
them, so ``x.view(np.int8)`` of an int4 array is the int8 array of the
same values. Kind 'i'/'u'; scalars subclass ``np.signedinteger`` /
``np.unsignedinteger``.
"""
import numpy as _np

from . import _core

INT_FORMAT_NAMES = _core.INT_FORMAT_NAMES
int1 = _core.int1
int2 = _core.int2
int4 = _core.int4
uint1 = _core.uint1
uint2 = _core.uint2
uint4 = _core.uint4

_BITS = {"int1": 1, "int2": 2, "int4": 4, "uint1": 1, "uint2": 2, "uint4": 4}
_original_iinfo = _np.iinfo


class iinfo(_original_iinfo):
    """``np.iinfo`` that knows the sub-byte widths (NumPy infers the width
    from the itemsize, which is a whole byte here)."""

    def __init__(self, int_type):
        super().__init__(int_type)
        name = self.dtype.name
        if name in _BITS and type(self.dtype) is type(_np.dtype(getattr(_core, name))):
            self.bits = _BITS[name]
            self.key = f"{self.kind}{self.bits}"

    @property
    def min(self):
        return 0 if self.kind == "u" else -(1 << (self.bits - 1))

    @property
    def max(self):
        return (1 << self.bits) - 1 if self.kind == "u" else (1 << (self.bits - 1)) - 1


def claim_int_dtype_names():
    """Make ``np.dtype("int4")`` (and the other names) mean minifloat's types
    again after importing ml_dtypes, which registers the same names."""
    for name in INT_FORMAT_NAMES:
        _np.sctypeDict[name] = getattr(_core, name)


def _register():
    claim_int_dtype_names()
    for name in INT_FORMAT_NAMES:
        scalar_type = getattr(_core, name)
        dtype = _np.dtype(scalar_type)
        _np.sctypeDict[dtype.str] = scalar_type  # "minifloat.int4"
        _np.sctypeDict[dtype.char] = scalar_type
    _np.iinfo = iinfo


_register()
