"""minifloat: low-precision floating-point formats as real NumPy dtypes.

Every format is a NumPy dtype (kind 'f') with a scalar type subclassing
``np.floating``::

    >>> import numpy as np, minifloat as mf
    >>> x = np.array([0.1, 1.5, 200.0], dtype=mf.float8_e4m3fnuz)
    >>> x.astype(np.float32)
    array([1.015625e-01, 1.500000e+00, 1.920000e+02], dtype=float32)
    >>> np.finfo(mf.float4_e2m1fn).max
    6.0
"""
import math as _math
import sys as _sys

import numpy as _np

from . import _core
from ._core import FORMAT_NAMES, MinifloatDType, floating

# Every built-in format's scalar type (minifloat.float8_e4m3fn, ...) and
# DType class (minifloat.Float8E4M3FNDType, ...), as the format table has them.
for _name in FORMAT_NAMES:
    _scalar_type = getattr(_core, _name)
    globals()[_name] = _scalar_type
    globals()[type(_np.dtype(_scalar_type)).__name__] = type(_np.dtype(_scalar_type))
del _name, _scalar_type

from . import _numpy_compat, _printing, mx, quant
from ._cast import cast
from ._dlpack import from_dlpack, to_dlpack
from ._io import NpzArchive, load, load_safetensors, save, save_safetensors, savez, savez_compressed
from ._ml_dtypes import from_ml_dtypes, to_ml_dtypes
from ._packing import pack, unpack
from .quant import AffineQuantizedArray, quantize_affine  # noqa: F401  (also mf.quant.quantize_affine)
from ._ints import INT_FORMAT_NAMES, claim_int_dtype_names, iinfo, int1, int2, int4, pack, uint1, uint2, uint4, unpack  # noqa: F401,F811  (issue 19: pack/unpack take the integer types too)
from ._user_formats import float_format

__version__ = "0.1.0"

__all__ = [
    "FORMAT_NAMES",
    "MinifloatDType",
    "NpzArchive",
    "cast",
    "claim_dtype_names",
    "finfo",
    "float_format",
    "floating",
    "format_info",
    "from_dlpack",
    "from_ml_dtypes",
    "load",
    "load_safetensors",
    "mx",
    "pack",
    "quant",
    "save",
    "save_safetensors",
    "savez",
    "savez_compressed",
    "to_dlpack",
    "to_ml_dtypes",
    "unpack",
    *FORMAT_NAMES,
]


def format_info(dtype):
    """The format's description as a dict: the parameters of float_format
    (exponent_bits, mantissa_bits, bias, signed, infinities, nan,
    negative_zero, subnormals, overflow), its name and bits, and derived facts
    (has_inf, has_nan, has_zero, itemsize, builtin)."""
    return _core.format_info(_np.dtype(dtype).name)


def finfo(dtype):
    """Machine limits of a format: the same object as ``np.finfo(dtype)``.

    Takes what ``np.finfo`` takes (a dtype, a scalar type such as
    ``mf.float8_e4m3fn``, a name such as ``"float8_e4m3fn"``, a scalar) and
    also an array, whose dtype it describes.
    """
    if isinstance(dtype, (_np.ndarray, _np.generic)):
        dtype = dtype.dtype
    return _np.finfo(dtype)


def claim_dtype_names():
    """Make the format names (``np.dtype("float8_e4m3fn")``, ``astype("bfloat16")``)
    resolve to minifloat's dtypes again.

    Names resolve through NumPy's name table, which ml_dtypes (and so JAX)
    fills with the same names when it is imported: whichever library was
    imported last owns them. minifloat claims them on import; call this after
    importing ml_dtypes to take them back. Passing the classes
    (``mf.float8_e4m3fn``) is never ambiguous.
    """
    for name in FORMAT_NAMES:
        _np.sctypeDict[name] = getattr(_core, name)


def _register_unambiguous_names(scalar_type):
    """Spellings of a format that only minifloat registers.

    ``dtype.str`` is ``"minifloat.<name>"`` so that anything rebuilding a dtype
    from ``.str``/``.descr`` (structured dtypes, ``np.save`` headers of
    structured arrays, dask.distributed) gets the format back; NumPy prints a
    structured dtype's minifloat field as ``'<DType class name><bits>'``,
    registered too so that ``eval(repr(structured_dtype))`` works.
    ``dtype.char`` is registered too (np.vectorize calls
    np.dtype(x.dtype.char)), except "_", which every format of
    mf.float_format shares.
    """
    dtype = _np.dtype(scalar_type)
    _np.sctypeDict[dtype.str] = scalar_type
    if dtype.char != "_":
        _np.sctypeDict[dtype.char] = scalar_type
    structured_spelling = f"{type(dtype).__name__}{dtype.itemsize * 8}"
    _np.sctypeDict[structured_spelling] = scalar_type
    if dtype.itemsize > 1:  # NumPy writes the native byte order before it
        _np.sctypeDict[("<" if _sys.byteorder == "little" else ">") + structured_spelling] = scalar_type


def _register_format(scalar_type):
    """The package's part of a format's registration (built-in formats at
    import, formats of mf.float_format when they are made)."""
    _register_unambiguous_names(scalar_type)
    # np.finfo caches one object per dtype; some fields need the format
    # itself: the real width (storage is a whole byte for FP6/FP4), the
    # exponent width (NumPy infers it from the exponent range, which
    # formats without inf stretch by one), epsneg (NumPy derives it as
    # eps/2, which FP4 cannot hold) and resolution (NumPy computes
    # 10**-precision in the format, where float8_e8m0fnu has no zero
    # for the exponent 0).
    info = _np.finfo(scalar_type)
    row = _core.format_info(_np.dtype(scalar_type).name)
    info.bits = row["bits"]
    info.nexp = info.iexp = row["exponent_bits"]
    with _np.errstate(all="ignore"):  # formats made at run time may lack 1 or 10**-precision
        one = scalar_type(1.0)
        # (without a 1, as formats of mf.float_format may be: the first
        # positive one of eps and the smallest value, so that NumPy's
        # log2(epsneg) holds)
        candidates = (one - _np.nextafter(one, scalar_type(0.5)), info.eps, info.smallest_subnormal,
                      info.smallest_normal)
        info.epsneg = next(c for c in candidates if 0.0 < float(c) < _np.inf)
        info.resolution = scalar_type(10.0 ** -info.precision)
        # machep and negep are the exponents of eps and epsneg, 2^-M and
        # below: NumPy takes log2 of the values, which a format whose values
        # all lie below 1 (or above) cannot hold (inf or 0)
        info.machep = -row["mantissa_bits"]
        info.negep = int(_math.log2(float(info.epsneg)))
        # str(info) checks whether min is -max by negating min, which for
        # float8_e8m0fnu (no negatives) is NaN with an "invalid" warning;
        # the text is made once and kept by finfo, so make it quietly now.
        with _np.errstate(invalid="ignore"):
            str(info)


def _register():
    claim_dtype_names()
    for name in FORMAT_NAMES:
        _register_format(getattr(_core, name))


_register()
_numpy_compat.install()
_printing.install()
