"""minifloat: low-precision floating-point formats as real NumPy dtypes.

Every format is a NumPy dtype (kind 'f') with a scalar type subclassing
``np.floating``::

    >>> import numpy as np, minifloat as mf
    >>> x = np.array([0.1, 1.5, 200.0], dtype=mf.float8_e4m3fnuz)
    >>> x.astype(np.float32)
    array([1.015625e-01, 1.500000e+00, 1.920000e+02], dtype=float32)
    >>> np.finfo(mf.float4_e2m1fn).max
    6.0

The API:

- Formats (scalar types; ``np.dtype(t)`` is the dtype): float8_e4m3fn,
  float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz, float8_e4m3, float8_e3m4,
  float8_e4m3b11fnuz, float8_e8m0fnu, float6_e2m3fn, float6_e3m2fn,
  float4_e2m1fn, bfloat16, the IEEE P3109 binary8p{1..7}{s,u}{e,f}
  (FORMAT_NAMES); any other with ``float_format(...)``; their descriptions
  with ``format_info``, limits with ``finfo`` (``np.finfo`` too).
- Complex types: complex32 (two float16 parts), bcomplex32 (two bfloat16
  parts), kind 'c', the layout of ml_dtypes' and torch's complex32; their
  parts with ``real``/``imag`` (views; ``.real``/``.imag`` too on NumPy 2.5+).
- Sub-byte integers: int1, int2, int4, uint1, uint2, uint4
  (INT_FORMAT_NAMES), ``iinfo``.
- Casts with rounding modes, saturation, stochastic rounding and packed
  output: ``cast``; packed storage: ``pack``/``unpack``.
- Block scaling: ``mx`` (MXFP8/6/4, MXINT8, NVFP4: ``mx.quantize``,
  ``mx.MXArray``, ``mx.matmul``); scaling recipes: ``quant``
  (``quant.quantize``, ``quantize_affine``).
- Saving and loading: ``save``/``load``, ``savez``/``savez_compressed``,
  ``save_safetensors``/``load_safetensors``; Zarr v3: ``zarr``.
- Interop: ``to_dlpack``/``from_dlpack``, ``to_ml_dtypes``/``from_ml_dtypes``.
- Beside NumPy: ``import minifloat`` changes no NumPy function but two guards
  (np.einsum's C core, np.iinfo); ``patch_numpy()``/``unpatch_numpy()`` opt
  into float16-like np.mean/np.nan*/printing; ``claim_dtype_names()`` makes
  the bare names ("float8_e4m3fn") minifloat's where ml_dtypes holds them.
"""
import math as _math
import sys as _sys

import numpy as _np

import gc as _gc

# The extension's init makes a few thousand NumPy objects (ArrayMethods of the
# casts and ufunc loops) that live for the whole process: collecting garbage
# among them would only cost import time.
_collecting = _gc.isenabled()
_gc.disable()
try:
    from . import _core
finally:
    if _collecting:
        _gc.enable()
from ._core import FORMAT_NAMES, MinifloatDType, floating

# Every built-in format's scalar type (minifloat.float8_e4m3fn, ...) and
# DType class (minifloat.Float8E4M3FNDType, ...), as the format table has them.
for _name in FORMAT_NAMES:
    _scalar_type = getattr(_core, _name)
    globals()[_name] = _scalar_type
    globals()[type(_np.dtype(_scalar_type)).__name__] = type(_np.dtype(_scalar_type))
del _name, _scalar_type

from . import _guards
from ._cast import cast
from ._dtype_arguments import own_dtype_named as _own_dtype_named
from ._ml_dtypes import from_ml_dtypes, to_ml_dtypes
from ._packing import pack, unpack
from ._complex import COMPLEX_FORMAT_NAMES, bcomplex32, complex32, imag, real
from ._core import BComplex32DType, Complex32DType, ComplexDType, complexfloating  # noqa: F401
from ._ints import INT_FORMAT_NAMES, claim_int_dtype_names, iinfo, int1, int2, int4, pack, uint1, uint2, uint4, unpack  # noqa: F401,F811  (issue 19: pack/unpack take the integer types too)

__version__ = "0.1.0"

__all__ = [
    "AffineQuantizedArray",
    "COMPLEX_FORMAT_NAMES",
    "FORMAT_NAMES",
    "INT_FORMAT_NAMES",
    "MinifloatDType",
    "NpzArchive",
    "cast",
    "claim_dtype_names",
    "claim_int_dtype_names",
    "finfo",
    "float_format",
    "floating",
    "format_info",
    "from_dlpack",
    "from_ml_dtypes",
    "iinfo",
    "imag",
    "patch_numpy",
    "real",
    "unpatch_numpy",
    "load",
    "load_safetensors",
    "mx",
    "pack",
    "quant",
    "quantize_affine",
    "save",
    "save_safetensors",
    "savez",
    "savez_compressed",
    "to_dlpack",
    "to_ml_dtypes",
    "unpack",
    "zarr",
    *FORMAT_NAMES,
    *INT_FORMAT_NAMES,
    *COMPLEX_FORMAT_NAMES,
]


# Loaded on first use (import time): name -> the module that defines it
_LAZY = {**{name: "_io" for name in ("NpzArchive", "load", "load_safetensors", "save", "save_safetensors",
                                     "savez", "savez_compressed")},
         "AffineQuantizedArray": "quant", "quantize_affine": "quant", "float_format": "_user_formats",
         "from_dlpack": "_dlpack", "to_dlpack": "_dlpack"}
# submodules: mf.mx, mf.quant, and mf.zarr (Zarr v3 data types and chunked writing; needs zarr)
_LAZY_MODULES = {"mx": "mx", "quant": "quant", "zarr": "_zarr"}


def __getattr__(name):
    """Submodules and functions that load on first use (import time)."""
    from importlib import import_module

    if name in _LAZY_MODULES:
        value = import_module(f"{__name__}.{_LAZY_MODULES[name]}")
    elif name in _LAZY:
        value = getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
    else:
        raise AttributeError(f"module 'minifloat' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_LAZY_MODULES))


def patch_numpy():
    """Opt in: make NumPy's Python-level functions treat minifloat arrays as
    NumPy treats float16 (np.mean/var/std and np.nan* accumulate in float32,
    np.dot/convolve/histogram/... take minifloat arrays, arrays print each
    value's shortest digits). Idempotent; ``unpatch_numpy()`` undoes it. Every
    other array reaches NumPy's functions unchanged (a check in C); see
    minifloat._numpy_compat for the list."""
    from . import _numpy_compat

    _numpy_compat.patch_numpy()


def unpatch_numpy():
    """Undo ``patch_numpy()``: every patched NumPy attribute is NumPy's again."""
    from . import _numpy_compat

    _numpy_compat.unpatch_numpy()


def format_info(dtype):
    """The format's description as a dict: the parameters of float_format
    (exponent_bits, mantissa_bits, bias, signed, infinities, nan,
    negative_zero, subnormals, overflow), its name and bits, and derived facts
    (has_inf, has_nan, has_zero, itemsize, builtin)."""
    from ._arguments import dtype as _dtype_argument  # None and non-dtypes: TypeError naming them

    own = _own_dtype_named(dtype)
    if own is None:
        own = _dtype_argument(dtype, "dtype", "a minifloat format")
    return _core.format_info(own.name)


def finfo(dtype):
    """Machine limits of a format: the same object as ``np.finfo(dtype)``.

    Takes what ``np.finfo`` takes (a dtype, a scalar type such as
    ``mf.float8_e4m3fn``, a name such as ``"float8_e4m3fn"`` (minifloat's
    format of that name, whoever holds the name in NumPy's table), a scalar)
    and also an array, whose dtype it describes.
    """
    from ._arguments import dtype as _dtype_argument  # None and unknown names: TypeError naming them

    if isinstance(dtype, (_np.ndarray, _np.generic)):
        dtype = dtype.dtype
    if isinstance(dtype, str) and dtype in COMPLEX_FORMAT_NAMES:
        dtype = globals()[dtype]
    if isinstance(dtype, type) and issubclass(dtype, _core.complexfloating) or isinstance(dtype, _core.ComplexDType):
        # the part's limits, as np.finfo(np.complex64) gives float32's
        from ._complex import part_dtype

        part = part_dtype(_np.dtype(dtype))
        return _np.finfo(_np.float16 if part == _np.dtype(_np.float16) else globals()["bfloat16"])
    own = _own_dtype_named(dtype)
    if own is None and (dtype is None or isinstance(dtype, str)):
        dtype = _dtype_argument(dtype, "dtype", "a floating-point type")
    return _np.finfo(own if own is not None else dtype)


def claim_dtype_names():
    """Make the bare format names (``np.dtype("float8_e4m3fn")``,
    ``astype("bfloat16")``, ``"int4"``) resolve to minifloat's dtypes.

    The bare names live in NumPy's process-wide name table, which ml_dtypes
    (and so JAX) fills with the same names. ``import minifloat`` takes a name
    only where no one else holds it, and never takes one back: with ml_dtypes
    installed (minifloat imports it to link the two libraries' casts) the bare
    names stay ml_dtypes', so JAX code that spells dtypes as strings keeps
    working. Call this to make them minifloat's for the whole process (JAX's
    string dtypes then stop working). ``"minifloat.float8_e4m3fn"`` and the
    types themselves (``mf.float8_e4m3fn``) are never ambiguous.
    """
    for name in (*FORMAT_NAMES, *INT_FORMAT_NAMES, *COMPLEX_FORMAT_NAMES):
        _np.sctypeDict[name] = getattr(_core, name)


def _register_name(name, scalar_type):
    """Put `name` in NumPy's name table unless someone else holds it."""
    _np.sctypeDict.setdefault(name, scalar_type)


def _register_unambiguous_names(scalar_type):
    """Spellings of a format that only minifloat registers (each only where
    no one else holds it).

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
    _register_name(dtype.str, scalar_type)
    if dtype.char != "_":
        _register_name(dtype.char, scalar_type)
    structured_spelling = f"{type(dtype).__name__}{dtype.itemsize * 8}"
    _register_name(structured_spelling, scalar_type)
    if dtype.itemsize > 1:  # NumPy writes the native byte order before it
        _register_name(("<" if _sys.byteorder == "little" else ">") + structured_spelling, scalar_type)


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
        # In Python floats (exact here), not in the format: arithmetic on a
        # format's scalars builds its operation tables, which import would
        # then pay for every format.
        # the value below 1 is the code below 1's (positive values are
        # ordered by code); without a 1, as formats of mf.float_format may
        # be: the first positive one of eps and the smallest value, so that
        # NumPy's log2(epsneg) holds
        dtype = _np.dtype(scalar_type)
        one = _np.array([1.0], dtype)
        codes = one.view(f"u{dtype.itemsize}")
        below_one = float((codes - 1).view(dtype)[0]) if float(one[0]) == 1.0 and codes[0] > 0 else _math.nan
        candidates = (1.0 - below_one, float(info.eps), float(info.smallest_subnormal), float(info.smallest_normal))
        info.epsneg = scalar_type(next(c for c in candidates if 0.0 < c < _math.inf))
        info.resolution = scalar_type(10.0 ** -info.precision)
        # machep and negep are the exponents of eps and epsneg, 2^-M and
        # below: NumPy takes log2 of the values, which a format whose values
        # all lie below 1 (or above) cannot hold (inf or 0)
        info.machep = -row["mantissa_bits"]
        info.negep = int(_math.log2(float(info.epsneg)))
        if not row["signed"]:
            # str(info) checks whether min is -max by negating min, which
            # for a format without negatives (float8_e8m0fnu) is NaN with an
            # "invalid" warning; the text is made once and kept by finfo, so
            # make it quietly now.
            str(info)


def _register():
    for name in FORMAT_NAMES:
        _register_name(name, getattr(_core, name))  # unless ml_dtypes holds it
        _register_format(getattr(_core, name))
    for name in COMPLEX_FORMAT_NAMES:
        _register_name(name, getattr(_core, name))  # unless ml_dtypes holds it
        _register_unambiguous_names(getattr(_core, name))


_register()
_guards.install()
if "zarr" in _sys.modules:  # zarr first: its registry gets minifloat's data types now (mf.zarr)
    try:
        __getattr__("zarr")
    except Exception as _error:  # an unusable zarr must not break minifloat
        import warnings as _warnings

        _warnings.warn(f"minifloat could not register its zarr data types: {_error!r}", RuntimeWarning,
                       stacklevel=2)
