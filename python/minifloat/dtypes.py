"""minifloat's types: the scalar type and the DType class of every built-in format.

As in NumPy (``np.float16`` and ``np.dtypes.Float16DType``), each format has a
*scalar type*, which is what you pass as ``dtype=`` and what indexing an array
returns, and a *DType class*, the class of ``np.dtype(scalar_type)``. The
scalar types are also ``minifloat``'s own attributes (``mf.float8_e4m3fn``);
the DType classes live here, for ``isinstance`` checks and for ufunc
``dtype=``/``signature=`` arguments (NumPy takes the class there, not an
instance).

==================  ========================  ====  ===  ===  ====  ===========  ====================
scalar type         DType class               bits  E    M    bias  max          inf / NaN
==================  ========================  ====  ===  ===  ====  ===========  ====================
float8_e4m3fn       Float8E4M3FNDType         8     4    3    7     448          no inf, NaN S.1111.111
float8_e4m3fnuz     Float8E4M3FNUZDType       8     4    3    8     240          no inf, NaN is -0
float8_e5m2         Float8E5M2DType           8     5    2    15    57344        IEEE-like
float8_e5m2fnuz     Float8E5M2FNUZDType       8     5    2    16    57344        no inf, NaN is -0
float8_e4m3         Float8E4M3DType           8     4    3    7     240          IEEE-like
float8_e3m4         Float8E3M4DType           8     3    4    3     15.5         IEEE-like
float8_e4m3b11fnuz  Float8E4M3B11FNUZDType    8     4    3    11    30           no inf, NaN is -0
float8_e8m0fnu      Float8E8M0FNUDType        8     8    0    127   2**127       unsigned, no zero
float6_e2m3fn       Float6E2M3FNDType         6     2    3    1     7.5          neither
float6_e3m2fn       Float6E3M2FNDType         6     3    2    3     28           neither
float4_e2m1fn       Float4E2M1FNDType         4     2    1    1     6            neither
bfloat16            BFloat16DType             16    8    7    127   3.39e38      IEEE-like
==================  ========================  ====  ===  ===  ====  ===========  ====================

E and M are the exponent and mantissa bits. Also built in:

* the IEEE P3109 formats ``binary8p{P}{s,u}{e,f}`` (DType classes
  ``Binary8p{P}{s,u}{e,f}DType``): 8 bits, P = 1..7 bits of precision,
  s(igned) or u(nsigned), e(xtended: with infinities) or f(inite);
* the sub-byte integers int1, int2, int4, uint1, uint2, uint4 (DType
  classes Int1DType, ..., UInt4DType), kind 'i'/'u';
* the complex types complex32 (two float16 parts) and bcomplex32 (two
  bfloat16 parts), real part first (DType classes Complex32DType,
  BComplex32DType), kind 'c'.

``mf.FORMAT_NAMES``, ``mf.INT_FORMAT_NAMES`` and ``mf.COMPLEX_FORMAT_NAMES``
list the names,
``mf.format_info`` describes each float format. Every format is stored one
value per byte (bfloat16: two); FP6, FP4 and the sub-byte integers use the
low bits (``mf.pack`` packs them densely).

Base classes: every float scalar type subclasses ``floating`` (itself a
``np.floating``), every integer type ``signedinteger`` or
``unsignedinteger``, the complex types ``complexfloating``; the DType
classes subclass ``MinifloatDType``, ``IntegerDType`` or ``ComplexDType``. Formats made by ``mf.float_format`` get their own scalar
type and DType class (reach them through the dtype it returns).

Examples
--------
>>> import numpy as np, minifloat as mf
>>> dt = np.dtype(mf.float8_e4m3fn)
>>> type(dt) is mf.dtypes.Float8E4M3FNDType
True
>>> isinstance(dt, mf.dtypes.MinifloatDType)
True
>>> np.add(np.ones(2, dt), np.ones(2, dt), dtype=mf.dtypes.Float8E4M3FNDType).tolist()
[2.0, 2.0]
>>> issubclass(mf.int4, mf.dtypes.signedinteger), np.iinfo(mf.int4).max
(True, 7)
"""
import numpy as _np

from . import _core

floating = _core.floating
signedinteger = _core.signedinteger
unsignedinteger = _core.unsignedinteger
MinifloatDType = _core.MinifloatDType
IntegerDType = _core.IntegerDType
complexfloating = _core.complexfloating
ComplexDType = _core.ComplexDType


def _built_in_types():
    """(name, type) of every built-in format's scalar type and DType class."""
    for name in (*_core.FORMAT_NAMES, *_core.INT_FORMAT_NAMES, *_core.COMPLEX_FORMAT_NAMES):
        scalar_type = getattr(_core, name)
        dtype_class = type(_np.dtype(scalar_type))
        yield name, scalar_type
        yield dtype_class.__name__, dtype_class


_TYPES = dict(_built_in_types())
globals().update(_TYPES)

__all__ = ["floating", "signedinteger", "unsignedinteger", "complexfloating", "MinifloatDType", "IntegerDType",
           "ComplexDType", *_TYPES]


def __dir__():
    """The module's API: its imports are not part of it."""
    return sorted(__all__)
