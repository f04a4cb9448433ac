"""minifloat: low-precision floating-point formats as real NumPy dtypes.

FP8, FP6, FP4, E8M0, bfloat16, the IEEE P3109 formats, formats of your own
and sub-byte integers, each a NumPy dtype with its own scalar type: arrays,
ufuncs, casts, printing, saving and interop work as with ``np.float16``.

>>> import numpy as np, minifloat as mf
>>> x = np.array([0.1, 1.5, 200.0], dtype=mf.float8_e4m3fn)
>>> x.astype(np.float32)
array([1.015625e-01, 1.500000e+00, 1.920000e+02], dtype=float32)
>>> mf.finfo(mf.float4_e2m1fn).max
6.0

The API (``help(mf.<name>)`` documents each name; docs/ builds the
reference):

Types
    float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz,
    float8_e4m3, float8_e3m4, float8_e4m3b11fnuz, float8_e8m0fnu,
    float6_e2m3fn, float6_e3m2fn, float4_e2m1fn, bfloat16, the P3109
    binary8p{1..7}{s,u}{e,f} (``FORMAT_NAMES``); int1, int2, int4, uint1,
    uint2, uint4 (``INT_FORMAT_NAMES``); complex32 (two float16 parts) and
    bcomplex32 (two bfloat16 parts) (``COMPLEX_FORMAT_NAMES``), their parts
    with ``real`` / ``imag``. The table, base classes and DType classes:
    ``minifloat.dtypes``.
Formats
    ``float_format`` (make any format), ``format_info``, ``finfo``,
    ``iinfo``.
Casting and storage
    ``cast`` (rounding modes, saturation, stochastic rounding, packed
    output); ``pack`` / ``unpack`` (sub-byte values packed densely).
Block scaling: ``minifloat.mx``
    MXFP8/6/4, MXINT8, NVFP4: ``mx.quantize``, ``mx.MXArray``,
    ``mx.matmul``, ``mx.dot``.
Scaling recipes: ``minifloat.quant``
    ``quant.quantize`` (per tensor, channel or block), ``quantize_affine``
    (integers with scale and zero point), ``quant.register_scheme``.
Files
    ``save`` / ``load`` (.npy), ``savez`` / ``savez_compressed`` (.npz),
    ``save_safetensors`` / ``load_safetensors``; Zarr v3:
    ``minifloat.zarr`` (needs zarr).
Interop
    ``to_dlpack`` / ``from_dlpack``, ``to_ml_dtypes`` / ``from_ml_dtypes``.
Beside NumPy
    ``import minifloat`` changes no NumPy function but two guards
    (np.einsum's C core, np.iinfo); ``patch_numpy`` / ``unpatch_numpy``
    opt into float16-like np.mean, np.nan* and printing;
    ``claim_dtype_names`` / ``claim_int_dtype_names`` make the bare names
    ("float8_e4m3fn") minifloat's where ml_dtypes holds them.
"""
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
from . import dtypes

# Every built-in format's scalar type (minifloat.float8_e4m3fn, ...); their
# DType classes are minifloat.dtypes' (minifloat.Float8E4M3FNDType, the name
# NumPy prints and pickle uses, still resolves: __getattr__ below).
globals().update((_name, getattr(_core, _name)) for _name in FORMAT_NAMES)

from . import _format_registration, _guards
from ._cast import cast
from ._dtype_arguments import own_dtype_named as _own_dtype_named
from ._ml_dtypes import from_ml_dtypes, to_ml_dtypes
from ._ml_dtypes import minifloat_dtype_of as _minifloat_dtype_of
from ._threads import get_num_threads, num_threads, set_num_threads
from ._complex import COMPLEX_FORMAT_NAMES, bcomplex32, complex32, imag, real
from ._core import complexfloating
from ._ints import INT_FORMAT_NAMES, claim_int_dtype_names, iinfo, pack, unpack  # (pack/unpack: floats and integers)

globals().update((_name, getattr(_core, _name)) for _name in INT_FORMAT_NAMES)

__version__ = "0.1.0"

# The functions, constants and submodules. The types are listed in
# minifloat.dtypes.__all__ (and documented there), the classes functions
# return in their module's: with a class in __all__, help(minifloat) would
# print its hundreds of inherited methods before the first function. The
# scalar types and their base classes are attributes here too (the API is
# np.array(x, dtype=mf.float8_e4m3fn)), and so are mf.NpzArchive (what
# mf.load returns for an .npz) and mf.AffineQuantizedArray (mf.quant's).
__all__ = [
    "COMPLEX_FORMAT_NAMES",
    "FORMAT_NAMES",
    "INT_FORMAT_NAMES",
    "cast",
    "claim_dtype_names",
    "claim_int_dtype_names",
    "dtypes",
    "finfo",
    "float_format",
    "format_info",
    "from_dlpack",
    "from_ml_dtypes",
    "get_num_threads",
    "iinfo",
    "imag",
    "load",
    "load_safetensors",
    "mx",
    "num_threads",
    "pack",
    "patch_numpy",
    "quant",
    "quantize_affine",
    "real",
    "save",
    "save_safetensors",
    "savez",
    "savez_compressed",
    "set_num_threads",
    "to_dlpack",
    "to_ml_dtypes",
    "unpack",
    "unpatch_numpy",
]


# Loaded on first use (import time): name -> the module that defines it
_LAZY = {**{name: "_io" for name in ("NpzArchive", "load", "load_safetensors", "save", "save_safetensors",
                                     "savez", "savez_compressed")},
         "AffineQuantizedArray": "quant", "quantize_affine": "quant", "float_format": "_user_formats",
         "from_dlpack": "_dlpack", "to_dlpack": "_dlpack"}
# submodules: mf.mx, mf.quant, and mf.zarr (Zarr v3 data types and chunked writing; needs zarr)
_LAZY_MODULES = {"mx": "mx", "quant": "quant", "zarr": "zarr"}


def _zarr_installed():
    from importlib.util import find_spec

    try:
        return "zarr" in _sys.modules or find_spec("zarr") is not None
    except (ImportError, ValueError):
        return False


# mf.zarr only where zarr is installed: `from minifloat import *` and
# help(minifloat) (which looks up every name dir() lists) must not fail
# without it; mf.zarr itself then says zarr is missing.
_HAS_ZARR = _zarr_installed()
if _HAS_ZARR:
    __all__.append("zarr")


def __getattr__(name):
    """Submodules and functions that load on first use (import time), and
    the DType classes under the name NumPy prints (minifloat.Float8E4M3FNDType)."""
    from importlib import import_module

    if name in _LAZY_MODULES:
        value = import_module(f"{__name__}.{_LAZY_MODULES[name]}")
    elif name in _LAZY:
        value = getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
    elif name in dtypes._TYPES:
        # The C++ classes name themselves minifloat.<Name>DType: repr() and
        # pickle use that name, so it resolves; dir() and help() list them in
        # minifloat.dtypes only.
        return dtypes._TYPES[name]
    else:
        raise AttributeError(f"module 'minifloat' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    lazy_modules = set(_LAZY_MODULES) - (set() if _HAS_ZARR else {"zarr"})
    return sorted(set(globals()) | set(_LAZY) | lazy_modules)


def patch_numpy():
    """Opt in: NumPy's Python-level functions treat minifloat arrays as float16.

    ``np.mean``/``var``/``std`` and the ``np.nan*`` family accumulate in
    float32 and round once; ``np.dot``/``inner``/``vdot`` (NumPy < 2.5),
    ``convolve``, ``correlate``, ``linalg.norm``, ``histogram*``,
    ``average``, ``common_type``, ``fft`` and ``frompyfunc`` ufuncs take
    minifloat arrays; a minifloat ``dtype=`` works in ``np.sum``/``prod``/
    ``cumsum``/``cumprod``; arrays print each value's shortest digits. Every
    other call reaches NumPy's function unchanged (a check in C). NumPy has
    no hook for these, so they are wrappers set into NumPy's modules for the
    whole process; idempotent.

    Returns
    -------
    None

    See Also
    --------
    unpatch_numpy : undoes it.

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> x = np.array([0.5, 1.5, 2.0], dtype=mf.float8_e4m3fn)
    >>> mf.patch_numpy()
    >>> np.convolve(x, x).tolist()
    [0.25, 1.5, 4.0, 6.0, 4.0]
    >>> print(x)
    [0.5 1.5 2. ]
    >>> mf.unpatch_numpy()
    """
    from . import _numpy_compat

    _numpy_compat.patch_numpy()


def unpatch_numpy():
    """Undo ``patch_numpy()``: every patched NumPy attribute is NumPy's again.

    Returns
    -------
    None

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> numpys_convolve = np.convolve
    >>> mf.patch_numpy()
    >>> np.convolve is numpys_convolve
    False
    >>> mf.unpatch_numpy()
    >>> np.convolve is numpys_convolve
    True
    """
    from . import _numpy_compat

    _numpy_compat.unpatch_numpy()


def format_info(dtype):
    """Describe a float format: the parameters that make it and derived facts.

    Parameters
    ----------
    dtype : minifloat dtype, scalar type or name
        A built-in format (``mf.float8_e4m3fn``, ``"bfloat16"``) or one
        made by ``float_format``.

    Returns
    -------
    dict
        The keyword arguments of ``float_format`` that make the format
        (``exponent_bits``, ``mantissa_bits``, ``bias``, ``signed``,
        ``infinities``, ``nan``, ``negative_zero``, ``subnormals``,
        ``overflow``), its ``name`` and ``bits``, and ``has_inf``,
        ``has_nan``, ``has_negative_zero``, ``has_zero``, ``is_signed``,
        ``itemsize`` and ``builtin``.

    Raises
    ------
    TypeError
        If `dtype` is not a minifloat float format (integer types have no
        format description: see ``iinfo``).

    See Also
    --------
    finfo : the format's limits; float_format : make a format.

    Examples
    --------
    >>> import minifloat as mf
    >>> info = mf.format_info(mf.float8_e4m3fn)
    >>> info["exponent_bits"], info["mantissa_bits"], info["bias"], info["nan"]
    (4, 3, 7, 'all_ones')
    >>> mf.format_info("float4_e2m1fn")["has_nan"]
    False
    """
    from ._arguments import dtype as _dtype_argument  # None and non-dtypes: TypeError naming them

    own = _own_dtype_named(dtype)
    if own is None:
        own = _dtype_argument(dtype, "dtype", "a minifloat format")
    return _core.format_info(own.name)


def finfo(dtype):
    """Machine limits of a float format: the same object as ``np.finfo(dtype)``.

    Takes what ``np.finfo`` takes and also an array, whose dtype it
    describes; a name is minifloat's format of that name, whoever holds the
    name in NumPy's table (ml_dtypes may), and ml_dtypes' types (a JAX
    array's dtype) are minifloat's of the same format. minifloat corrects the fields
    NumPy cannot derive for narrow formats (``bits`` of FP6/FP4, ``nexp``,
    ``epsneg``, ``resolution``, ``machep``, ``negep``).

    Parameters
    ----------
    dtype : dtype, scalar type, str, ndarray or scalar
        ``mf.float8_e4m3fn``, ``np.dtype(mf.float8_e4m3fn)``,
        ``"float8_e4m3fn"``, an array or scalar of the format, or any of
        NumPy's float types.

    Returns
    -------
    np.finfo
        ``max``, ``min``, ``eps``, ``smallest_normal``,
        ``smallest_subnormal``, ``bits``, ``precision``, ...

    Raises
    ------
    TypeError
        If `dtype` is None or a name no dtype has.
    ValueError
        If `dtype` is not a floating-point type (as ``np.finfo`` says).

    See Also
    --------
    iinfo : the limits of an integer type; format_info : the format's
        description.

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> mf.finfo(mf.float8_e4m3fn).max
    448.0
    >>> mf.finfo("float4_e2m1fn").bits, mf.finfo(mf.float4_e2m1fn).eps
    (4, 0.5)
    >>> float(mf.finfo(np.zeros(2, mf.bfloat16)).smallest_normal) == 2.0**-126
    True
    """
    from ._arguments import dtype as _dtype_argument  # None and unknown names: TypeError naming them

    if isinstance(dtype, (_np.ndarray, _np.generic)):
        dtype = dtype.dtype
    dtype = _minifloat_dtype_of(dtype) or dtype  # ml_dtypes' types: minifloat's of the same format
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
    """Make the bare names (``np.dtype("float8_e4m3fn")``, ``"int4"``) minifloat's.

    The bare names live in NumPy's process-wide name table, which ml_dtypes
    (and so JAX) fills with the same names. ``import minifloat`` takes a name
    only where no one else holds it, and never takes one back: with ml_dtypes
    installed (minifloat imports it to link the two libraries' casts) the
    bare names stay ml_dtypes', so JAX code that spells dtypes as strings
    keeps working. Call this to make them minifloat's for the whole process
    (JAX's string dtypes then stop working). ``"minifloat.float8_e4m3fn"``
    and the types themselves (``mf.float8_e4m3fn``) are never ambiguous.

    Returns
    -------
    None

    See Also
    --------
    claim_int_dtype_names : the integer names only.

    Examples
    --------
    >>> import numpy as np, minifloat as mf
    >>> mf.claim_dtype_names()
    >>> np.dtype("float8_e4m3fn") == np.dtype(mf.float8_e4m3fn)
    True
    >>> np.dtype("minifloat.bfloat16") == np.dtype(mf.bfloat16)
    True
    """
    for name in (*FORMAT_NAMES, *INT_FORMAT_NAMES, *COMPLEX_FORMAT_NAMES):
        _np.sctypeDict[name] = getattr(_core, name)


def _register():
    for name in FORMAT_NAMES:
        _format_registration.register_name(name, getattr(_core, name))  # unless ml_dtypes holds it
        _format_registration.register_format(getattr(_core, name))
    for name in COMPLEX_FORMAT_NAMES:
        _format_registration.register_name(name, getattr(_core, name))  # unless ml_dtypes holds it
        _format_registration.register_unambiguous_names(getattr(_core, name))


_register()
_guards.install()
if "zarr" in _sys.modules:  # zarr first: its registry gets minifloat's data types now (mf.zarr)
    try:
        __getattr__("zarr")
    except Exception as _error:  # an unusable zarr must not break minifloat
        import warnings as _warnings

        _warnings.warn(f"minifloat could not register its zarr data types: {_error!r}", RuntimeWarning,
                       stacklevel=2)
