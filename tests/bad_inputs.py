"""Catalogue of bad (and odd) inputs to every public entry point of minifloat.

Each case is a call that must end in a clear Python exception of an expected
type, or in a documented valid result that the case checks. A crash (a
signal, an abort, a sanitizer report that ends the process) or a hang is
never an acceptable outcome. The cases run in child processes, many per
process; when a child dies, the case it was running is recorded as a crash
and a new child carries on after it (``run_catalogue``).

    python tests/bad_inputs.py                 # run every case, print the findings
    python tests/bad_inputs.py 'dlpack/*' -v   # a subset (fnmatch patterns), every outcome
    python tests/bad_inputs.py --list          # the case names

tests/test_bad_inputs.py runs the whole catalogue under pytest. Cases with
``known=KNOWN_HARDENING`` crash on the current build and are being fixed on
the ``hardening`` branch: the test expects them to fail (strict xfail), so
that once the fix is merged each one reports XPASS and its tag is removed.
"""
import ctypes
import fnmatch
import json
import math
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from fractions import Fraction

KNOWN_HARDENING = "known, fixed by hardening branch"
# Found by this catalogue and not fixed yet (each is listed in the reliability report).
KNOWN_OPEN = "found by tests/bad_inputs.py, not fixed yet"
# Set to True once the hardening branch is merged (or run with
# MINIFLOAT_HARDENING_MERGED=1): the KNOWN_HARDENING cases then count like
# every other case.
HARDENING_MERGED = os.environ.get("MINIFLOAT_HARDENING_MERGED", "1") == "1"  # merged

# Formats the per-format cases run over: every kind of row in the table
# (IEEE-like, fn, fnuz, e8m0, FP6, FP4, bfloat16).
ALL_FORMATS = (
    "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e4m3", "float8_e3m4",
    "float8_e4m3b11fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn", "bfloat16",
)
SOME_FORMATS = ("float8_e4m3fn", "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e3m2fn", "float4_e2m1fn", "bfloat16")

HUGE = 2**40  # elements: 1 TiB of 8-bit codes, more than any machine here can allocate


class Case:
    """One call and what may come of it.

    raises: exception classes that count as a clear failure (never
    SystemError: that is a C-API bug). check: a predicate on the returned
    value when returning is a documented valid outcome. isolate: run in a
    process of its own (the case changes process state, or is known to
    crash). known: why a failing outcome is expected for now.
    """

    __slots__ = ("name", "fn", "raises", "check", "known", "isolate", "asan_skip")

    def __init__(self, name, fn, raises=(), check=None, known=None, isolate=False):
        self.name, self.fn, self.raises, self.check = name, fn, tuple(raises), check
        self.known, self.isolate = known, isolate or known is not None
        self.asan_skip = None


CASES = {}


def case(name, fn, raises=(), check=None, known=None, isolate=False):
    if name in CASES:
        raise AssertionError(f"duplicate case name {name}")
    if not raises and check is None:
        raise AssertionError(f"case {name} accepts no outcome")
    if known == KNOWN_HARDENING and HARDENING_MERGED:
        known = None
    CASES[name] = Case(name, fn, raises, check, known, isolate)


TV = (TypeError, ValueError)
TVO = (TypeError, ValueError, OverflowError)
MEM = (MemoryError, ValueError)


# ---- checks on returned values ----------------------------------------------

def _np():
    import numpy as np

    return np


def _mf():
    import minifloat as mf

    return mf


def is_format_array(name, shape=None):
    def check(result):
        np = _np()
        return (isinstance(result, np.ndarray) and result.dtype.name == name
                and (shape is None or result.shape == tuple(shape)))
    return check


def values_equal(name, expected):
    """A `name` array (or scalar) whose float64 values are `expected` (NaN == NaN)."""
    def check(result):
        np = _np()
        got = np.asarray(result)
        if got.dtype.name != name:
            return False
        got = got.astype(np.float64)
        want = np.asarray(expected, dtype=np.float64)
        return got.shape == want.shape and bool(np.all((got == want) | (np.isnan(got) & np.isnan(want))))
    return check


def scalar_of(name, value=None):
    def check(result):
        np = _np()
        if type(result).__name__ != name:
            return False
        if value is None:
            return True
        got = float(result)
        return got == value or (math.isnan(value) and math.isnan(got))
    return check


def is_nan_or_overflow(name):
    """What an overflowing value becomes in `name` by default: NaN, +-inf or +-max."""
    def check(result):
        np = _np()
        got = np.asarray(result)
        if got.dtype.name != name:
            return False
        values = got.astype(np.float64)
        top = float(np.finfo(got.dtype).max)
        return bool(np.all(np.isnan(values) | np.isinf(values) | (np.abs(values) == top)))
    return check


def anything(result):
    """Any returned value is documented behaviour (the call is a valid one made
    with odd but legal arguments; what matters is that it does not crash)."""
    return True


def close_to(name, value, rel=0.5):
    def check(result):
        got = float(_np().asarray(result).astype("float64"))
        return _np().asarray(result).dtype.name == name and abs(got - value) <= rel * abs(value)
    return check


def array_of(dtype_name, shape=None):
    def check(result):
        np = _np()
        return isinstance(result, np.ndarray) and result.dtype == np.dtype(dtype_name) and (
            shape is None or result.shape == tuple(shape))
    return check


# ---- odd objects --------------------------------------------------------------

class BrokenFloat:
    def __float__(self):
        raise RuntimeError("broken __float__")


class FloatReturnsStr:
    def __float__(self):
        return "1.5"


class FloatReturnsHugeInt:
    def __float__(self):
        return 10**400


class BrokenIndex:
    def __index__(self):
        raise RuntimeError("broken __index__")


class IndexReturnsFloat:
    def __index__(self):
        return 1.5


class BrokenArray:
    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("broken __array__")


class ArrayReturnsJunk:
    def __array__(self, dtype=None, copy=None):
        return "junk"


class ArrayReturnsWrongShape:
    def __array__(self, dtype=None, copy=None):
        return _np().zeros((2, 3))


class RecursiveFloat:
    def __float__(self):
        return float(_mf().float8_e4m3fn(self))


class BrokenBool:
    def __bool__(self):
        raise RuntimeError("broken __bool__")


class BrokenLen:
    def __len__(self):
        raise RuntimeError("broken __len__")

    def __getitem__(self, i):
        return 1.0


class LyingLen:
    """Claims 10 items, has 2: NumPy's sequence discovery must not trust it."""

    def __len__(self):
        return 10

    def __getitem__(self, i):
        if i >= 2:
            raise IndexError(i)
        return 1.0


class MutatesArrayOnFloat:
    """An element whose __float__ empties the object array being converted."""

    def __init__(self):
        self.array = None

    def __float__(self):
        if self.array is not None:
            self.array.resize(0, refcheck=False)
            self.array = None
        return 1.0


def self_referencing_list():
    items = []
    items.append(items)
    return items


def nested_list(depth):
    value = [1.0]
    for _ in range(depth):
        value = [value]
    return value


# ---- DLPack capsules made by hand ------------------------------------------------

class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


_KEEP_ALIVE = []  # ctypes memory the hand-made capsules point into (no deleters: nothing frees it)


def _capsule_new(pointer, name):
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    if name is not None:
        name = ctypes.create_string_buffer(name)
        _KEEP_ALIVE.append(name)
        name = ctypes.cast(name, ctypes.c_char_p)
    return new(pointer, name, None)


def make_capsule(*, code=10, bits=8, lanes=1, shape=(4,), strides=None, data_bytes=64, null_data=False,
                 device_type=1, versioned=True, major=1, name=None, ndim=None, flags=0):
    """A DLPack capsule describing `data_bytes` zeroed bytes as the given tensor."""
    buffer = (ctypes.c_uint8 * max(data_bytes, 1))()
    shape_array = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    strides_array = None if strides is None else (ctypes.c_int64 * max(len(strides), 1))(*strides)
    tensor = DLTensor()
    tensor.data = None if null_data else ctypes.addressof(buffer)
    tensor.device = DLDevice(device_type, 0)
    tensor.ndim = len(shape) if ndim is None else ndim
    tensor.dtype = DLDataType(code, bits, lanes)
    tensor.shape = ctypes.cast(shape_array, ctypes.POINTER(ctypes.c_int64))
    tensor.strides = None if strides_array is None else ctypes.cast(strides_array, ctypes.POINTER(ctypes.c_int64))
    tensor.byte_offset = 0
    if versioned:
        managed = DLManagedTensorVersioned()
        managed.version = DLPackVersion(major, 1)
        managed.flags = flags
        managed.dl_tensor = tensor
        default_name = b"dltensor_versioned"
    else:
        managed = DLManagedTensor()
        managed.dl_tensor = tensor
        default_name = b"dltensor"
    _KEEP_ALIVE.extend([buffer, shape_array, strides_array, managed])
    return _capsule_new(ctypes.addressof(managed), default_name if name is None else name)


class Exports:
    """An object whose __dlpack__ returns `value` (or raises it)."""

    def __init__(self, value, device=(1, 0)):
        self.value, self.device = value, device

    def __dlpack__(self, *args, **kwargs):
        if isinstance(self.value, BaseException):
            raise self.value
        return self.value() if callable(self.value) else self.value

    def __dlpack_device__(self):
        if isinstance(self.device, BaseException):
            raise self.device
        return self.device


# ---- the catalogue ----------------------------------------------------------------

def _build():
    np = _np()
    mf = _mf()
    core = mf._core

    def fmt(name):
        return getattr(mf, name)

    def arr(name, values=(1.0, 2.0, 3.0)):
        return np.array(values, dtype=fmt(name))

    def with_data(x, values, **kwargs):
        return lambda: mf.mx.quantize(x, values, **kwargs)

    # -- scalar constructors ---------------------------------------------------
    for name in ALL_FORMATS:
        t = fmt(name)
        p = f"scalar/{name}"
        case(f"{p}/str_junk", lambda t=t: t("x"), raises=(ValueError,))
        case(f"{p}/str_empty", lambda t=t: t(""), raises=(ValueError,))
        case(f"{p}/str_number", lambda t=t: t("2"), check=scalar_of(name, 2.0))
        case(f"{p}/None", lambda t=t: t(None), raises=(TypeError,))
        case(f"{p}/list", lambda t=t: t([1, 2]), check=values_equal(name, [1, 2]))
        case(f"{p}/list_ragged", lambda t=t: t([[1, 2], [3]]), raises=(ValueError,))
        case(f"{p}/list_with_str", lambda t=t: t([1, "x"]), raises=(ValueError,))
        case(f"{p}/list_with_None", lambda t=t: t([1, None]), raises=TV, check=is_format_array(name, (2,)))
        case(f"{p}/huge_int", lambda t=t: t(10**400), raises=(OverflowError,), check=is_nan_or_overflow(name))
        case(f"{p}/huge_negative_int", lambda t=t: t(-10**400), raises=(OverflowError,),
             check=is_nan_or_overflow(name) if name != "float8_e8m0fnu" else scalar_of(name, math.nan))
        case(f"{p}/fraction", lambda t=t: t(Fraction(1, 3)), check=close_to(name, 1 / 3, rel=0.6)
             if name != "float8_e8m0fnu" else scalar_of(name, 0.25))
        case(f"{p}/decimal_nan", lambda t=t: t(Decimal("nan")), check=scalar_of(name))
        case(f"{p}/decimal_snan", lambda t=t: t(Decimal("snan")), raises=(ValueError,), check=scalar_of(name))
        case(f"{p}/decimal_huge", lambda t=t: t(Decimal("1e5000")), raises=(OverflowError,),
             check=is_nan_or_overflow(name))
        case(f"{p}/bytes_number", lambda t=t: t(b"2"), raises=TV, check=scalar_of(name, 2.0))
        case(f"{p}/bytes_junk", lambda t=t: t(b"\xff\xfe"), raises=TV)
        case(f"{p}/complex", lambda t=t: t(1 + 2j), raises=(TypeError,))
        case(f"{p}/numpy_complex", lambda t=t: t(np.complex64(1 + 0j)), raises=(TypeError,),
             check=scalar_of(name, 1.0))
        case(f"{p}/broken_float", lambda t=t: t(BrokenFloat()), raises=(RuntimeError, TypeError))
        case(f"{p}/float_returns_str", lambda t=t: t(FloatReturnsStr()), raises=(TypeError,))
        case(f"{p}/float_returns_huge_int", lambda t=t: t(FloatReturnsHugeInt()), raises=(TypeError, OverflowError))
        case(f"{p}/broken_index", lambda t=t: t(BrokenIndex()), raises=(RuntimeError, TypeError))
        case(f"{p}/broken_array", lambda t=t: t(BrokenArray()), raises=(RuntimeError, TypeError))
        case(f"{p}/array_returns_junk", lambda t=t: t(ArrayReturnsJunk()), raises=TV)
        case(f"{p}/object", lambda t=t: t(object()), raises=(TypeError,))
        case(f"{p}/two_args", lambda t=t: t(1, 2), raises=(TypeError,))
        case(f"{p}/keyword", lambda t=t: t(x=1), raises=(TypeError,))
        case(f"{p}/self_referencing_list", lambda t=t: t(self_referencing_list()),
             raises=(ValueError, RecursionError, TypeError))
        case(f"{p}/nested_list_100", lambda t=t: t(nested_list(100)), raises=(ValueError,))
        case(f"{p}/numpy_str", lambda t=t: t(np.str_("x")), raises=(ValueError,))
        case(f"{p}/void", lambda t=t: t(np.void(b"\x01")), raises=TV)
        case(f"{p}/datetime", lambda t=t: t(np.datetime64("2020-01-01")), raises=TV)
        case(f"{p}/timedelta", lambda t=t: t(np.timedelta64(3, "s")), raises=TV, check=scalar_of(name))
        case(f"{p}/other_format_scalar", lambda t=t: t(mf.bfloat16(2)), check=scalar_of(name, 2.0))
        case(f"{p}/ndarray_2d", lambda t=t: t(np.ones((2, 2))), check=is_format_array(name, (2, 2)))
        case(f"{p}/ndarray_object_junk", lambda t=t: t(np.array(["x", None], dtype=object)), raises=TV)
        case(f"{p}/nan_float", lambda t=t: t(float("nan")), check=scalar_of(name))
        case(f"{p}/inf_float", lambda t=t: t(float("-inf")), check=scalar_of(name))
    case("scalar/recursive_float", lambda: mf.float8_e4m3fn(RecursiveFloat()), raises=(RecursionError,))
    case("scalar/deep_nested_list", lambda: mf.float8_e4m3fn(nested_list(5000)), raises=(ValueError, RecursionError))
    case("scalar/broken_len", lambda: mf.bfloat16(BrokenLen()), raises=(RuntimeError, TypeError))
    case("scalar/abstract_floating", lambda: mf.floating(1.0), raises=(TypeError,))
    case("scalar/new_on_base", lambda: mf.float8_e4m3fn.__new__(mf.floating, 1.0), raises=(TypeError,))
    case("scalar/generic_new", lambda: np.generic.__new__(mf.float8_e4m3fn), raises=(TypeError,),
         check=scalar_of("float8_e4m3fn"))

    def subclass_instance():
        class Sub(mf.float8_e4m3fn):
            pass
        return Sub(1.0)
    case("scalar/subclass_instance", subclass_instance, raises=(TypeError,), check=anything)

    # pickling helper: every argument wrong
    case("scalar_from_code/unknown_name", lambda: core._scalar_from_code("float9", 1), raises=TV)
    case("scalar_from_code/code_too_big", lambda: core._scalar_from_code("float8_e4m3fn", 256), raises=TVO)
    case("scalar_from_code/code_fp4_too_big", lambda: core._scalar_from_code("float4_e2m1fn", 16), raises=TVO,
         check=scalar_of("float4_e2m1fn"))
    case("scalar_from_code/code_bf16_too_big", lambda: core._scalar_from_code("bfloat16", 2**16), raises=TVO)
    case("scalar_from_code/negative_code", lambda: core._scalar_from_code("float8_e4m3fn", -1), raises=TVO)
    case("scalar_from_code/huge_code", lambda: core._scalar_from_code("float8_e4m3fn", 2**70), raises=TVO)
    case("scalar_from_code/float_code", lambda: core._scalar_from_code("float8_e4m3fn", 1.5), raises=TV)
    case("scalar_from_code/None", lambda: core._scalar_from_code(None, None), raises=TV)
    case("scalar_from_code/no_args", lambda: core._scalar_from_code(), raises=(TypeError,))
    case("scalar_from_code/bytes_name", lambda: core._scalar_from_code(b"float8_e4m3fn", 1), raises=TV,
         check=scalar_of("float8_e4m3fn"))

    # the complex types' pickling helper: every argument wrong
    case("complex_from_codes/unknown_name", lambda: core._complex_from_codes("complex9", 1, 2), raises=TV)
    case("complex_from_codes/code_too_big", lambda: core._complex_from_codes("complex32", 2**16, 0), raises=TVO)
    case("complex_from_codes/negative_code", lambda: core._complex_from_codes("bcomplex32", 0, -1), raises=TVO)
    case("complex_from_codes/huge_code", lambda: core._complex_from_codes("complex32", 2**70, 0), raises=TVO)
    case("complex_from_codes/float_code", lambda: core._complex_from_codes("complex32", 1.5, 0), raises=TV)
    case("complex_from_codes/None", lambda: core._complex_from_codes(None, None, None), raises=TV)
    case("complex_from_codes/no_args", lambda: core._complex_from_codes(), raises=(TypeError,))
    case("complex_from_codes/bytes_name", lambda: core._complex_from_codes(b"complex32", 1, 2), raises=TV)

    def unpickle_junk():
        import pickle

        data = pickle.dumps(mf.float8_e4m3fn(1.0)).replace(b"float8_e4m3fn", b"float8_e4m3fX")
        return pickle.loads(data)
    case("scalar_from_code/unpickle_renamed", unpickle_junk, raises=TV + (AttributeError,))

    # -- scalar methods -------------------------------------------------------------
    s = mf.float8_e4m3fn(1.5)
    nan8 = np.array([0x7F], np.uint8).view(mf.float8_e4m3fn)[0]
    case("scalar_method/byteswap", lambda: s.byteswap(), check=scalar_of("float8_e4m3fn", 1.5),
         raises=TV, known=KNOWN_HARDENING)
    case("scalar_method/bf16_byteswap", lambda: mf.bfloat16(1.5).byteswap(), check=scalar_of("bfloat16"),
         raises=TV, known=KNOWN_HARDENING)
    case("scalar_method/astype_junk", lambda: s.astype("not-a-dtype"), raises=(TypeError,))
    case("scalar_method/view_wrong_size", lambda: s.view(np.int64), raises=(ValueError,))
    case("scalar_method/view_junk", lambda: s.view("not-a-dtype"), raises=(TypeError,))
    case("scalar_method/view_uint8", lambda: s.view(np.uint8), check=lambda r: int(r) == 0x3C)
    case("scalar_method/format_junk", lambda: format(s, "q"), raises=(ValueError,))
    case("scalar_method/format_huge_precision", lambda: format(s, ".100000f"), raises=(ValueError,),
         check=lambda r: r.startswith("1.5"))
    case("scalar_method/round_junk", lambda: round(s, "x"), raises=(TypeError,))
    case("scalar_method/round_huge", lambda: round(s, 10**30), raises=TVO, check=anything)
    case("scalar_method/int_nan", lambda: int(nan8), raises=(ValueError,))
    case("scalar_method/int_inf", lambda: int(mf.float8_e5m2(float("inf"))), raises=(OverflowError,))
    case("scalar_method/int_e8m0_nan", lambda: int(np.array([255], np.uint8).view(mf.float8_e8m0fnu)[0]),
         raises=(ValueError,))
    case("scalar_method/as_integer_ratio_nan", lambda: nan8.as_integer_ratio(), raises=(ValueError,))
    case("scalar_method/getitem_0", lambda: s[0], raises=(IndexError, TypeError))
    case("scalar_method/getitem_str", lambda: s["x"], raises=(IndexError, TypeError, ValueError))
    case("scalar_method/item_index", lambda: s.item(5), raises=(IndexError, ValueError, TypeError))
    case("scalar_method/tolist", lambda: s.tolist(), check=lambda r: r == 1.5)
    case("scalar_method/array_dtype", lambda: s.__array__(np.int8), check=lambda r: r.dtype == np.int8 and r == 1)
    case("scalar_method/setflags", lambda: s.setflags(write=True), raises=TV, check=anything)  # float16: None
    case("scalar_method/reduce_ex_junk", lambda: s.__reduce_ex__("x"), raises=(TypeError,), check=anything)
    case("scalar_method/add_str", lambda: s + "x", raises=(TypeError,))
    case("scalar_method/add_None", lambda: s + None, raises=(TypeError,))
    case("scalar_method/pow_huge", lambda: s ** 10**400, raises=(OverflowError,), check=anything)
    case("scalar_method/lt_str", lambda: s < "x", raises=(TypeError,))
    case("scalar_method/divmod_zero", lambda: divmod(s, mf.float8_e4m3fn(0)), check=anything)
    case("scalar_method/hash_nan", lambda: hash(nan8), check=lambda r: isinstance(r, int))
    case("scalar_method/complex", lambda: complex(s), check=lambda r: r == 1.5)
    case("scalar_method/deepcopy", lambda: __import__("copy").deepcopy(s), check=scalar_of("float8_e4m3fn", 1.5))

    # -- dtype classes and descriptors ------------------------------------------
    case("dtype/class_with_arg", lambda: mf.dtypes.Float8E4M3FNDType("x"), raises=(TypeError,))
    case("dtype/class_no_arg", lambda: mf.dtypes.Float8E4M3FNDType(), check=lambda r: r == np.dtype(mf.float8_e4m3fn))
    case("dtype/abstract_base", lambda: mf.dtypes.MinifloatDType(), raises=(TypeError,))
    case("dtype/float_format_positional", lambda: mf.float_format(4, 3), raises=(TypeError,))
    case("dtype/float_format_no_args", lambda: mf.float_format(), raises=(TypeError,))
    case("dtype/float_format_float_bits", lambda: mf.float_format(exponent_bits=4.0, mantissa_bits=3),
         raises=(TypeError,))
    case("dtype/float_format_huge_bits", lambda: mf.float_format(exponent_bits=2**40, mantissa_bits=3),
         raises=(ValueError,))
    case("dtype/float_format_huge_bias", lambda: mf.float_format(exponent_bits=4, mantissa_bits=3, bias=2**70),
         raises=(ValueError,))
    case("dtype/float_format_choice_junk", lambda: mf.float_format(exponent_bits=4, mantissa_bits=3, nan=[1]),
         raises=(ValueError,))
    case("dtype/float_format_nan_list_junk",
         lambda: mf.float_format(exponent_bits=4, mantissa_bits=3, infinities=False, nan=(None, 0x7F)),
         raises=(TypeError,))
    case("dtype/float_format_nan_list_huge",
         lambda: mf.float_format(exponent_bits=4, mantissa_bits=3, infinities=False, nan=(2**70, 0x7F)),
         raises=(ValueError,))
    case("dtype/float_format_nan_list_long",
         lambda: mf.float_format(exponent_bits=4, mantissa_bits=3, infinities=False, nan=tuple(range(0x70, 0x80))
                                 + tuple(range(0xF0, 0x100))), raises=(ValueError,))
    case("dtype/float_format_nan_list_every_code",
         lambda: mf.float_format(exponent_bits=2, mantissa_bits=1, infinities=False, nan=tuple(range(16))),
         raises=(ValueError,))
    case("dtype/core_make_format_nan_junk",
         lambda: mf._core._make_format(exponent_bits=4, mantissa_bits=3, bias=7, signed=True, infinities="none",
                                       nan=(1.5,), negative_zero=True, subnormals=True, overflow="nan", name="x_junk",
                                       dtype_class_name="XJunkDType", repr_text="x", reduce_value=None),
         raises=(TypeError,))
    case("dtype/core_make_format_nan_hole",
         lambda: mf._core._make_format(exponent_bits=4, mantissa_bits=3, bias=7, signed=True, infinities="none",
                                       nan=(0x10, 0x90), negative_zero=True, subnormals=True, overflow="nan",
                                       name="x_hole", dtype_class_name="XHoleDType", repr_text="x", reduce_value=None),
         raises=(ValueError,))
    case("dtype/float_format_name_junk", lambda: mf.float_format(exponent_bits=4, mantissa_bits=3, name="a b"),
         raises=(ValueError,))
    case("dtype/float_format_name_taken", lambda: mf.float_format(exponent_bits=5, mantissa_bits=2, name="bfloat16"),
         raises=(ValueError,))
    case("dtype/empty_with_abstract", lambda: np.empty(3, dtype=mf.dtypes.MinifloatDType), raises=(TypeError,))
    case("dtype/name_junk", lambda: np.dtype("float8_e4m3fX"), raises=(TypeError,))
    case("dtype/newbyteorder", lambda: np.dtype(mf.bfloat16).newbyteorder(">"), raises=TV,
         check=lambda r: r == np.dtype(mf.bfloat16))
    case("dtype/setstate_junk",
         lambda: np.dtype(mf.float8_e4m3fn).__setstate__((3, "|", None, None, None, 100, 1, 0)),
         raises=TV + (RuntimeError,))
    case("dtype/setstate_not_tuple", lambda: np.dtype(mf.bfloat16).__setstate__("x"), raises=TV + (RuntimeError,))
    case("dtype/reduce", lambda: np.dtype(mf.bfloat16).__reduce__(), raises=TV + (RuntimeError,), check=anything)
    case("dtype/pickle_roundtrip", lambda: __import__("pickle").loads(__import__("pickle").dumps(
        np.dtype(mf.float6_e2m3fn))), raises=TV + (RuntimeError, __import__("pickle").PicklingError),
        check=lambda r: r == np.dtype(mf.float6_e2m3fn))
    case("dtype/array_pickle_roundtrip", lambda: __import__("pickle").loads(__import__("pickle").dumps(
        arr("float4_e2m1fn"))), raises=TV + (RuntimeError, __import__("pickle").PicklingError),
        check=values_equal("float4_e2m1fn", [1, 2, 3]))
    case("dtype/str_roundtrip", lambda: np.dtype(np.dtype(mf.float8_e4m3fn).str), raises=TV, check=anything)
    case("dtype/structured_field", lambda: np.zeros(2, [("a", mf.float8_e4m3fn), ("b", "f4")]),
         raises=TV, check=lambda r: r.shape == (2,))
    case("dtype/structured_field_astype",
         lambda: np.zeros(2, [("a", mf.float8_e4m3fn), ("b", "f4")]).astype([("a", "f4"), ("b", "f4")]),
         raises=TV, check=lambda r: r.shape == (2,))
    case("dtype/structured_field_repr", lambda: repr(np.ones(2, [("a", mf.bfloat16), ("b", "f4")])),
         raises=TV, check=lambda r: isinstance(r, str))
    case("dtype/structured_field_fill",
         lambda: np.ones(2, [("a", mf.float4_e2m1fn), ("b", mf.bfloat16)])["a"],
         raises=TV, check=values_equal("float4_e2m1fn", [1, 1]))
    case("dtype/subarray_field", lambda: np.zeros(2, [("a", mf.float8_e5m2, (3,))])["a"].astype(np.float32),
         raises=TV, check=lambda r: r.shape == (2, 3))
    case("dtype/result_type_junk", lambda: np.result_type(mf.float8_e4m3fn, "not-a-dtype"), raises=(TypeError,))
    case("dtype/promote_str", lambda: np.promote_types(mf.float8_e4m3fn, "U"), raises=(TypeError,), check=anything)
    case("dtype/promote_datetime", lambda: np.promote_types(mf.bfloat16, "M8[s]"), raises=(TypeError,))
    case("dtype/can_cast_python_float", lambda: np.can_cast(1.5, mf.float8_e4m3fn), raises=(TypeError,),
         check=anything)
    case("dtype/iinfo", lambda: np.iinfo(mf.float8_e4m3fn), raises=TV)
    case("dtype/finfo_junk", lambda: mf.finfo("x"), raises=TV)
    case("dtype/format_info_junk", lambda: mf.format_info("x"), raises=TV)
    case("dtype/format_info_float32", lambda: mf.format_info(np.float32), raises=TV)
    # issue 30: a name that is no dtype (NumPy's finfo said "<class 'numpy.str_'> not inexact") and None
    # (NumPy's float64) are a TypeError naming the value
    case("dtype/finfo_unknown_name", lambda: mf.finfo("nope"), raises=(TypeError,))
    case("dtype/finfo_None", lambda: mf.finfo(None), raises=(TypeError,))
    case("dtype/finfo_int_name", lambda: mf.finfo("int8"), raises=(ValueError,))
    case("dtype/finfo_format_name", lambda: mf.finfo("float8_e4m3fn"), check=lambda r: float(r.max) == 448.0)
    case("dtype/format_info_unknown_name", lambda: mf.format_info("nope"), raises=(TypeError,))
    case("dtype/format_info_None", lambda: mf.format_info(None), raises=(TypeError,))
    case("dtype/float_format_bool_bits", lambda: mf.float_format(exponent_bits=True, mantissa_bits=3),
         raises=(TypeError,))
    case("dtype/float_format_signed_int", lambda: mf.float_format(exponent_bits=4, mantissa_bits=3, signed=1),
         raises=(TypeError,))
    case("dtype/float_format_subnormals_str",
         lambda: mf.float_format(exponent_bits=4, mantissa_bits=3, subnormals="False"), raises=(TypeError,))
    case("dtype/float_format_name_int", lambda: mf.float_format(exponent_bits=4, mantissa_bits=3, name=3),
         raises=(TypeError,))

    # -- np.array / astype / assignment from junk ------------------------------------
    for name in ALL_FORMATS:
        t = fmt(name)
        p = f"array/{name}"
        case(f"{p}/str_junk", lambda t=t: np.array(["x"], dtype=t), raises=(ValueError,))
        case(f"{p}/str_number", lambda t=t: np.array(["2", "-0.5"], dtype=t),
             check=values_equal(name, [2, -0.5] if name != "float8_e8m0fnu" else [2, math.nan]))
        case(f"{p}/str_array_astype", lambda t=t: np.array(["1", "nan", "inf", "x"]).astype(t), raises=(ValueError,))
        case(f"{p}/bytes_astype", lambda t=t: np.array([b"2", b"1e999"]).astype(t), raises=TV,
             check=is_format_array(name, (2,)))
        case(f"{p}/None", lambda t=t: np.array([None], dtype=t), raises=TV, check=is_format_array(name, (1,)))
        case(f"{p}/object_mixed", lambda t=t: np.array([1, None, "x", [1]], dtype=object).astype(t), raises=TV)
        case(f"{p}/object_nested_list", lambda t=t: np.array([[1.0], [2.0, 3.0]], dtype=object).astype(t), raises=TV)
        case(f"{p}/object_complex", lambda t=t: np.array([1 + 1j], dtype=object).astype(t), raises=(TypeError,),
             check=is_format_array(name, (1,)))
        case(f"{p}/object_broken_float", lambda t=t: np.array([1.0, BrokenFloat()], dtype=object).astype(t),
             raises=(RuntimeError, TypeError))
        case(f"{p}/object_bad_last", lambda t=t: np.array([1.0] * 999 + ["x"], dtype=object).astype(t),
             raises=TV)
        case(f"{p}/object_huge_int", lambda t=t: np.array([10**400, -10**400], dtype=object).astype(t),
             raises=(OverflowError,), check=is_format_array(name, (2,)))
        case(f"{p}/object_fraction_decimal",
             lambda t=t: np.array([Fraction(1, 3), Decimal("nan"), Decimal("-1e5000")], dtype=object).astype(t),
             raises=(OverflowError,), check=is_format_array(name, (3,)))
        case(f"{p}/object_mutates_array", lambda t=t: _object_mutates(np, t), raises=TV + (RuntimeError,),
             check=is_format_array(name), known=KNOWN_HARDENING)
        case(f"{p}/void4_astype", lambda t=t: np.zeros(2, "V4").astype(t), raises=TV,
             known=KNOWN_HARDENING)
        case(f"{p}/void1_astype", lambda t=t: np.zeros(2, "V1").astype(t), raises=TV, check=is_format_array(name),
             known=KNOWN_HARDENING)
        case(f"{p}/astype_void4", lambda t=t, name=name: arr(name).astype("V4"), raises=TV, check=array_of("V4", (3,)))
        case(f"{p}/astype_void_itemsize", lambda t=t, name=name: arr(name).astype(f"V{np.dtype(t).itemsize}"), raises=TV,
             check=array_of(f"V{np.dtype(t).itemsize}", (3,)))
        case(f"{p}/structured_astype", lambda t=t: np.zeros(2, [("a", "f4")]).astype(t), raises=TV,
             check=is_format_array(name, (2,)))
        case(f"{p}/astype_structured", lambda t=t, name=name: arr(name).astype([("a", "f4")]), raises=TV,
             check=lambda r, name=name: r.shape == (3,) and list(r["a"]) == list(arr(name).astype("f4")))
        case(f"{p}/datetime_astype", lambda t=t: np.zeros(2, "M8[s]").astype(t), raises=(TypeError,))
        case(f"{p}/astype_datetime", lambda t=t, name=name: arr(name).astype("M8[s]"), raises=(TypeError,))
        case(f"{p}/timedelta_astype", lambda t=t: np.array([1, 2], "m8[s]").astype(t), raises=(TypeError,),
             check=is_format_array(name, (2,)))
        case(f"{p}/astype_str_short", lambda t=t: arr(name, [1.5, -448.0]).astype("U1"), raises=TV,
             check=array_of("U1", (2,)))
        case(f"{p}/astype_bytes_short", lambda t=t: arr(name, [1.5, 2]).astype("S1"), raises=TV,
             check=array_of("S1", (2,)))
        case(f"{p}/astype_complex", lambda t=t, name=name: arr(name).astype(np.complex64),
             check=lambda r, name=name: r.dtype == np.complex64 and list(r.real) == list(arr(name).astype("f4")))
        case(f"{p}/astype_class", lambda t=t, name=name: arr(name).astype(type(np.dtype(t))), raises=(TypeError,),
             check=is_format_array(name, (3,)))
        case(f"{p}/setitem_junk", lambda t=t, name=name: arr(name).__setitem__(0, "x"), raises=(ValueError,))
        case(f"{p}/setitem_None", lambda t=t, name=name: arr(name).__setitem__(0, None), raises=TV, check=anything)
        case(f"{p}/setitem_sequence", lambda t=t, name=name: arr(name).__setitem__(0, [1, 2]), raises=(ValueError, TypeError))
        case(f"{p}/setitem_huge_int", lambda t=t, name=name: arr(name).__setitem__(0, 10**400), raises=(OverflowError,),
             check=anything)
        case(f"{p}/setitem_broken_float", lambda t=t, name=name: arr(name).__setitem__(0, BrokenFloat()),
             raises=(RuntimeError, TypeError))
        case(f"{p}/fill_junk", lambda t=t, name=name: arr(name).fill("x"), raises=(ValueError,))
        case(f"{p}/fill_object", lambda t=t, name=name: arr(name).fill(object()), raises=(TypeError,))
        case(f"{p}/byteswap", lambda t=t, name=name: arr(name).byteswap(), raises=TV, check=is_format_array(name, (3,)),
             known=KNOWN_HARDENING)
        case(f"{p}/place", lambda t=t: np.place(arr(name), [True, False, True], [0.5]), raises=TV,
             check=anything, known=KNOWN_HARDENING)
        case(f"{p}/fromiter_junk", lambda t=t: np.fromiter(iter(["x"]), dtype=t), raises=(ValueError,))
        case(f"{p}/fromiter_numbers", lambda t=t: np.fromiter(range(1, 4), dtype=t), raises=TV,
             check=values_equal(name, [1, 2, 3]) if name != "float8_e8m0fnu" else values_equal(name, [1, 2, 4]))
        case(f"{p}/frombuffer_odd", lambda t=t: np.frombuffer(b"\x01\x02\x03", dtype=t),
             raises=(ValueError,), check=is_format_array(name, (3,)))
        case(f"{p}/frombuffer_negative_count", lambda t=t: np.frombuffer(b"\x01\x02", dtype=t, count=-5),
             raises=(ValueError,), check=is_format_array(name))  # NumPy: a negative count reads everything
        case(f"{p}/fromstring_sep", lambda t=t: np.fromstring("1 2 x", dtype=t, sep=" "),
             raises=(ValueError,), check=is_format_array(name))
        case(f"{p}/arange", lambda t=t: np.arange(0, 4, dtype=t), raises=TV,
             check=values_equal(name, [0, 1, 2, 3]) if name != "float8_e8m0fnu" else is_format_array(name))
        case(f"{p}/arange_step_nan", lambda t=t: np.arange(0, 4, float("nan"), dtype=t), raises=TV,
             check=anything)
        case(f"{p}/view_wrong_itemsize", lambda t=t: np.zeros(3, np.uint8).view(mf.bfloat16), raises=(ValueError,))
        case(f"{p}/ndarray_small_buffer", lambda t=t: np.ndarray((4,), dtype=t, buffer=b"\x00"), raises=TV)
        case(f"{p}/empty_negative", lambda t=t: np.empty(-1, t), raises=(ValueError,))
        case(f"{p}/empty_huge", lambda t=t: np.empty(HUGE, t), raises=MEM)
        case(f"{p}/zeros_huge", lambda t=t: np.zeros(HUGE, t), raises=MEM)
        case(f"{p}/ones_huge", lambda t=t: np.ones(HUGE, t), raises=MEM)
        case(f"{p}/full_huge", lambda t=t: np.full((HUGE,), 1.5, t), raises=MEM)
        case(f"{p}/empty_overflowing_shape", lambda t=t: np.empty((2**62, 2**62), t), raises=MEM)
        case(f"{p}/broadcast_huge_astype",
             lambda t=t: np.broadcast_to(np.ones((), t), (HUGE,)).astype(np.float32), raises=MEM)
        case(f"{p}/broadcast_huge_add", lambda t=t: np.broadcast_to(np.ones((), t), (HUGE,)) + 1, raises=MEM)
    case("array/lying_len", lambda: np.array(LyingLen(), dtype=mf.float8_e4m3fn), raises=TV + (IndexError,),
         check=anything)
    case("array/deep_nested", lambda: np.array(nested_list(100), dtype=mf.float8_e4m3fn), raises=(ValueError,))
    case("array/self_referencing", lambda: np.array(self_referencing_list(), dtype=mf.bfloat16),
         raises=(ValueError, RecursionError))
    case("array/broken_array_attr", lambda: np.array(BrokenArray(), dtype=mf.float8_e4m3fn),
         raises=(RuntimeError, TypeError))
    case("array/array_wrong_shape", lambda: np.array(ArrayReturnsWrongShape(), dtype=mf.bfloat16),
         check=is_format_array("bfloat16", (2, 3)))
    case("array/mixed_formats", lambda: np.array([mf.float8_e4m3fn(1), mf.bfloat16(2)]),
         check=lambda r: r.shape == (2,))
    case("array/mixed_format_and_str", lambda: np.array([mf.float8_e4m3fn(1), "x"]), raises=TV, check=anything)
    case("array/asarray_copy_false", lambda: np.asarray(np.ones(3), dtype=mf.float8_e4m3fn, copy=False),
         raises=(ValueError,))
    case("array/unaligned_bfloat16", lambda: np.frombuffer(bytearray(9), np.uint8)[1:].view(mf.bfloat16).sum(),
         check=scalar_of("bfloat16", 0.0))
    case("array/loadtxt_junk", lambda: np.loadtxt(__import__("io").StringIO("1 x"), dtype=mf.float8_e4m3fn),
         raises=(ValueError,))
    case("array/genfromtxt", lambda: np.genfromtxt(__import__("io").StringIO("1 2\n3 x"), dtype=mf.bfloat16),
         raises=TV, check=is_format_array("bfloat16", (2, 2)))
    case("array/savetxt", lambda: np.savetxt(__import__("io").StringIO(), arr("float8_e4m3fn")), check=anything)
    case("array/masked_sum", lambda: np.ma.masked_array(arr("float8_e4m3fn"), mask=[1, 0, 0]).sum(),
         raises=TV, check=anything)
    case("array/masked_repr", lambda: repr(np.ma.masked_array(arr("float8_e4m3fn"), mask=[1, 0, 0])),
         raises=TV, check=lambda r: isinstance(r, str))
    case("array/masked_filled", lambda: np.ma.masked_array(arr("float8_e8m0fnu"), mask=[1, 0, 0]).filled(),
         raises=TV, check=is_format_array("float8_e8m0fnu", (3,)))
    # float16 raises the same AttributeError; NumPy >= 2.5 prints a non-NumPy
    # dtype with str() before it looks at float formatters (numpy/numpy#30798)
    numpy_2_5 = tuple(int(p) for p in np.__version__.split(".")[:2]) >= (2, 5)
    case("array/array2string_bad_formatter",
         lambda: np.array2string(arr("bfloat16"), formatter={"float": lambda v: 1}),
         raises=(TypeError, AttributeError), check=(lambda r: r == "[1.0 2.0 3.0]") if numpy_2_5 else None)
    case("array/array2string_precision", lambda: np.array2string(arr("float8_e4m3fn"), precision=-1),
         raises=(ValueError,), check=lambda r: isinstance(r, str))
    case("array/format_float_positional", lambda: np.format_float_positional(mf.float8_e4m3fn(1.5), precision=-5),
         raises=TV, check=anything)

    # -- NumPy functions that reach legacy dtype slots -------------------------------
    a8 = lambda: np.array([3.0, -1.0, 2.0, 0.5, 0.0, -2.0], dtype=mf.float8_e4m3fn)  # noqa: E731
    m8 = lambda: np.array([[3.0, 1.0], [2.0, 0.0]], dtype=mf.float8_e4m3fn)  # noqa: E731
    legacy = {
        "sort_strided": (lambda: np.sort(a8()[::2]), values_equal("float8_e4m3fn", [0, 2, 3])),
        "sort_axis0": (lambda: np.sort(m8(), axis=0), values_equal("float8_e4m3fn", [[2, 0], [3, 1]])),
        "argsort_axis0": (lambda: np.argsort(m8(), axis=0), lambda r: r.tolist() == [[1, 1], [0, 0]]),
        "argsort_heap": (lambda: np.argsort(a8(), kind="heapsort"), lambda r: r.tolist() == [5, 1, 4, 3, 2, 0]),
        "sort_kind_junk": (lambda: np.sort(a8(), kind="x"), None),
        "partition": (lambda: np.partition(a8(), 2)[2], lambda r: float(r) == 0.0),
        "partition_out_of_range": (lambda: np.partition(a8(), 100), None),
        "argpartition_axis0": (lambda: np.argpartition(m8(), 0, axis=0), lambda r: r.shape == (2, 2)),
        "median": (lambda: np.median(a8()), lambda r: float(r) == 0.25 or float(r) == 0.25),
        "percentile": (lambda: np.percentile(a8(), 50), lambda r: abs(float(r) - 0.25) < 0.01),
        "searchsorted_junk": (lambda: np.searchsorted(np.sort(a8()), "x"), None),
        "searchsorted_side_junk": (lambda: np.searchsorted(np.sort(a8()), 1, side="x"), None),
        "searchsorted_strided": (lambda: np.searchsorted(np.sort(a8())[::2], [0.5]), lambda r: r.tolist() == [2]),
        "lexsort": (lambda: np.lexsort([a8()]), lambda r: r.tolist() == [5, 1, 4, 3, 2, 0]),
        "unique_axis0": (lambda: np.unique(m8(), axis=0), lambda r: r.shape == (2, 2)),
        "nonzero": (lambda: np.nonzero(a8())[0], lambda r: r.tolist() == [0, 1, 2, 3, 5]),
        "count_nonzero_strided": (lambda: np.count_nonzero(a8()[::2]), lambda r: int(r) == 2),
        "argwhere": (lambda: np.argwhere(m8()), lambda r: r.shape == (3, 2)),
        "take_wrap": (lambda: np.take(a8(), [7, -1], mode="wrap"), values_equal("float8_e4m3fn", [-1, -2])),
        "take_out_of_range": (lambda: np.take(a8(), [100]), None),
        "put": (lambda: np.put(a8(), [0, 100], [1.0, 2.0], mode="clip"), anything),
        "put_out_of_range": (lambda: np.put(a8(), [100], [1.0]), None),
        "putmask": (lambda: np.putmask(a8(), a8() > 0, 9.0), anything),
        "copyto_where": (lambda: np.copyto(a8(), 1.5, where=a8() > 0), anything),
        "copyto_casting": (lambda: np.copyto(a8(), np.ones(6), casting="same_kind"), anything),
        "choose": (lambda: np.choose([0, 1, 0], [a8()[:3], a8()[3:]]), values_equal("float8_e4m3fn", [3, 0, 2])),
        "compress": (lambda: np.compress([True, False, True], a8()), values_equal("float8_e4m3fn", [3, 2])),
        "repeat_huge": (lambda: np.repeat(a8(), HUGE), None),
        "repeat_negative": (lambda: np.repeat(a8(), -1), None),
        "tile_huge": (lambda: np.tile(a8(), HUGE), None),
        "resize_huge": (lambda: np.resize(a8(), HUGE), None),
        "reshape_huge": (lambda: a8().reshape(HUGE), None),
        "roll": (lambda: np.roll(a8(), 1), values_equal("float8_e4m3fn", [-2, 3, -1, 2, 0.5, 0])),
        "insert": (lambda: np.insert(a8(), 1, 7.0)[1], lambda r: float(r) == 7.0),
        "delete_out_of_range": (lambda: np.delete(a8(), 100), None),
        "pad_constant": (lambda: np.pad(a8(), 2, constant_values=1.5), lambda r: r.shape == (10,)),
        "pad_reflect": (lambda: np.pad(a8(), 2, mode="reflect"), lambda r: r.shape == (10,)),
        "fill_diagonal": (lambda: np.fill_diagonal(m8(), 7.0), anything),
        "diagonal_trace": (lambda: np.trace(m8()), lambda r: float(r) == 3.0),
        "tril": (lambda: np.tril(m8()), values_equal("float8_e4m3fn", [[3, 0], [2, 0]])),
        "flip_sum": (lambda: np.flip(a8()).sum(), lambda r: float(r) == 2.5),
        "diff": (lambda: np.diff(a8()), lambda r: r.shape == (5,)),
        "gradient": (lambda: np.gradient(a8()), lambda r: len(r) == 6),
        "interp": (lambda: np.interp([0.5], [0, 1], np.array([0, 2], mf.bfloat16)), lambda r: float(r[0]) == 1.0),
        "convolve": (lambda: np.convolve(a8(), a8()[:2]), lambda r: r.shape == (7,)),
        "correlate": (lambda: np.correlate(a8(), a8()[:2]), lambda r: r.shape == (5,)),
        "outer": (lambda: np.outer(a8(), a8()), lambda r: r.shape == (6, 6)),
        "kron": (lambda: np.kron(m8(), m8()), lambda r: r.shape == (4, 4)),
        "tensordot": (lambda: np.tensordot(m8(), m8(), axes=1), lambda r: r.shape == (2, 2)),
        "linalg_norm": (lambda: np.linalg.norm(a8()), lambda r: abs(float(r) - math.sqrt(18.25)) < 0.5),
        "round_decimals": (lambda: np.round(a8(), 2), lambda r: r.shape == (6,)),
        "round_huge_decimals": (lambda: np.round(a8(), 10**6), anything),
        "nan_to_num": (lambda: np.nan_to_num(np.array([np.nan, np.inf], mf.float8_e5m2)), anything),
        "nan_to_num_no_inf": (lambda: np.nan_to_num(np.array([np.nan, 1], mf.float8_e4m3fn)), anything),
        "isclose": (lambda: np.isclose(a8(), a8()), lambda r: bool(r.all())),
        "allclose": (lambda: np.allclose(a8(), 3), lambda r: r is False or r == False),  # noqa: E712
        "array_equal": (lambda: np.array_equal(a8(), a8()), lambda r: bool(r)),
        "ptp": (lambda: np.ptp(a8()), lambda r: float(r) == 5.0),
        "bincount_weights": (lambda: np.bincount([0, 1, 1], weights=np.array([1, 2, 3], mf.bfloat16)),
                             lambda r: r.tolist() == [1, 5]),
        "digitize": (lambda: np.digitize(a8(), np.array([0, 1], mf.float8_e4m3fn)), lambda r: r.shape == (6,)),
        "isin": (lambda: np.isin(a8(), [2.0]), lambda r: r.tolist() == [False, False, True, False, False, False]),
        "setdiff1d": (lambda: np.setdiff1d(a8(), a8()[:2]), lambda r: r.shape == (4,)),
        "intersect1d": (lambda: np.intersect1d(a8(), a8()[:2]), lambda r: r.shape == (2,)),
        "sort_complex": (lambda: np.sort_complex(a8()), lambda r: r.shape == (6,)),
        "trim_zeros": (lambda: np.trim_zeros(np.array([0, 1, 0], mf.bfloat16)), lambda r: r.shape == (1,)),
        "vander": (lambda: np.vander(a8()[:3], 3), lambda r: r.shape == (3, 3)),
        "polyval": (lambda: np.polyval(a8()[:3], 2.0), anything),
        "cross": (lambda: np.cross(a8()[:3], a8()[3:]), lambda r: r.shape == (3,)),
        "meshgrid": (lambda: np.meshgrid(a8(), a8())[0], lambda r: r.shape == (6, 6)),
        "histogram": (lambda: np.histogram(a8(), bins=3)[0], lambda r: int(r.sum()) == 6),
        "histogram_weights": (lambda: np.histogram(a8(), weights=a8())[0], anything),
        "concatenate_str": (lambda: np.concatenate([a8(), np.array(["x"])]), anything),
        "where_str": (lambda: np.where(a8() > 0, a8(), "x"), anything),
        "stack_mismatch": (lambda: np.stack([a8(), m8()]), None),
        "einsum_junk": (lambda: np.einsum("xyz", a8()), None),
        "einsum_trace": (lambda: np.einsum("ii", m8()), lambda r: float(r) == 3.0),
        "einsum_out_wrong": (lambda: np.einsum("i,i", a8(), a8(), out=np.empty(3, mf.float8_e4m3fn)), None),
        "dot_mismatch": (lambda: np.dot(a8(), a8()[:3]), None),
        "dot_out_wrong": (lambda: np.dot(m8(), m8(), out=np.empty((3, 3), mf.float8_e4m3fn)), None),
        "dot_out_wrong_dtype": (lambda: np.dot(m8(), m8(), out=np.empty((2, 2), np.int8)), anything),
        "vdot_mismatch": (lambda: np.vdot(a8(), a8()[:3]), None),
        "inner_mismatch": (lambda: np.inner(m8(), a8()), None),
        "matmul_mismatch": (lambda: m8() @ a8(), None),
        "matmul_out_wrong": (lambda: np.matmul(m8(), m8(), out=np.empty((2, 3), mf.float8_e4m3fn)), None),
        "matmul_out_readonly": (lambda: np.matmul(m8(), m8(), out=_readonly(np.empty((2, 2), mf.float8_e4m3fn))),
                                None),
        "ndarray_dot": (lambda: m8().dot(m8()), anything),
        "mean_dtype_junk": (lambda: np.mean(a8(), dtype="x"), None),
        "mean_empty": (lambda: np.mean(np.array([], mf.float8_e4m3fn)), anything),
        "var_ddof_huge": (lambda: np.var(a8(), ddof=10), anything),
        "std_axis_junk": (lambda: np.std(a8(), axis=5), None),
        "nansum_axis_junk": (lambda: np.nansum(a8(), axis=5), None),
        "nanmax_empty": (lambda: np.nanmax(np.array([], mf.bfloat16)), None),
        "nanmean_all_nan": (lambda: np.nanmean(np.array([np.nan], mf.float8_e4m3fn)), anything),
        "cumsum_axis_junk": (lambda: np.cumsum(a8(), axis=2), None),
        "clip_str": (lambda: np.clip(a8(), "x", 1), None),
        "clip_none_none": (lambda: np.clip(a8(), None, None), anything),
        "any_all": (lambda: (np.any(a8()), np.all(a8())), lambda r: r == (True, False)),
        "array_function_tolist": (lambda: m8().tolist(), lambda r: r == [[3.0, 1.0], [2.0, 0.0]]),
    }
    for key, (fn, check) in legacy.items():
        if check is None:
            case(f"numpy/{key}", fn, raises=TVO + (MemoryError, IndexError))
        else:
            case(f"numpy/{key}", fn, raises=TVO + (MemoryError, IndexError), check=check)

    # -- ufuncs: out=, where=, casting=, dtype= ------------------------------------------
    u = lambda: np.array([1.0, 2.0, 3.0], mf.float8_e4m3fn)  # noqa: E731
    ufunc_cases = {
        "out_wrong_shape": (lambda: np.add(u(), u(), out=np.empty(2, mf.float8_e4m3fn)), None),
        "out_wrong_dtype": (lambda: np.add(u(), u(), out=np.empty(3, np.int8)), None),
        "out_other_format": (lambda: np.add(u(), u(), out=np.empty(3, mf.bfloat16)), anything),
        "out_float32": (lambda: np.add(u(), u(), out=np.empty(3, np.float32)), anything),
        "out_readonly": (lambda: np.add(u(), u(), out=_readonly(np.empty(3, mf.float8_e4m3fn))), None),
        "out_tuple_too_long": (lambda: np.add(u(), u(), out=(u(), u())), None),
        "out_str": (lambda: np.add(u(), u(), out="x"), None),
        "out_overlapping": (lambda: _overlap_add(np, mf), values_equal("float8_e4m3fn", [4, 4, 4])),
        "out_strided": (lambda: np.add(u(), u(), out=np.empty(6, mf.float8_e4m3fn)[::2]),
                        values_equal("float8_e4m3fn", [2, 4, 6])),
        "where_str": (lambda: np.add(u(), u(), where="x"), anything),
        "where_wrong_shape": (lambda: np.add(u(), u(), where=[True, False]), None),
        "where_object": (lambda: np.add(u(), u(), where=np.array([None, 1, "x"], dtype=object)), anything),
        "where_without_out": (lambda: np.add(u(), u(), where=[True, False, True]), anything),
        "casting_junk": (lambda: np.add(u(), u(), casting="x"), None),
        "casting_no": (lambda: np.add(u(), np.ones(3), casting="no"), None),
        "casting_unsafe_int_out": (lambda: np.add(u(), u(), out=np.empty(3, np.int8), casting="unsafe"),
                                   lambda r: r.tolist() == [2, 4, 6]),
        "dtype_junk": (lambda: np.add(u(), u(), dtype="x"), None),
        "dtype_instance": (lambda: np.add(u(), u(), dtype=mf.float8_e4m3fn), anything),
        "dtype_class": (lambda: np.add(u(), u(), dtype=mf.dtypes.Float8E4M3FNDType), values_equal("float8_e4m3fn", [2, 4, 6])),
        "signature_junk": (lambda: np.add(u(), u(), signature="x"), None),
        "order_junk": (lambda: np.add(u(), u(), order="x"), None),
        "axes_on_elementwise": (lambda: np.add(u(), u(), axes=[0]), None),
        "add_None": (lambda: u() + None, None),
        "add_str": (lambda: u() + "x", None),
        "add_object": (lambda: u() + object(), None),
        "add_object_array": (lambda: u() + np.array([1, None, 2], dtype=object), None),
        "add_complex": (lambda: u() + 1j, anything),
        "add_huge_int": (lambda: u() + 10**400, anything),
        "pow_huge_int": (lambda: u() ** 10**400, anything),
        "lt_str": (lambda: u() < "x", None),
        "eq_str": (lambda: u() == "x", anything),
        "ldexp_huge": (lambda: np.ldexp(u(), 10**10), anything),
        "ldexp_float_exponent": (lambda: np.ldexp(u(), 1.5), None),
        "ldexp_int64_max": (lambda: np.ldexp(u(), np.int64(2**62)), anything),
        "frexp_out_wrong": (lambda: np.frexp(u(), out=(np.empty(3, np.float32), np.empty(2, np.int32))), None),
        "modf_out_wrong_dtype": (lambda: np.modf(u(), out=(np.empty(3, np.int8), np.empty(3, np.int8))), None),
        "divmod_out_wrong": (lambda: np.divmod(u(), u(), out=(u(),)), None),
        "nextafter_str": (lambda: np.nextafter(u(), "x"), None),
        "reduce_axis_junk": (lambda: np.add.reduce(u(), axis=5), None),
        "reduce_initial_str": (lambda: np.add.reduce(u(), initial="x"), None),
        "reduce_where_no_identity": (lambda: np.maximum.reduce(u(), where=[True, False, True]), None),
        "reduce_where_initial": (lambda: np.maximum.reduce(u(), where=[True, False, False], initial=-1.0),
                                 lambda r: float(r) == 1.0),
        "reduce_out_wrong": (lambda: np.add.reduce(u(), out=np.empty(3, mf.float8_e4m3fn)), None),
        "reduce_dtype_junk": (lambda: np.add.reduce(u(), dtype="x"), None),
        "reduce_empty_no_identity": (lambda: np.maximum.reduce(np.array([], mf.bfloat16)), None),
        "reduce_keepdims_junk": (lambda: np.add.reduce(u(), keepdims="x"), anything),
        "reduceat_bad_index": (lambda: np.add.reduceat(u(), [5, -100]), None),
        "reduceat_huge_index": (lambda: np.add.reduceat(u(), [2**62]), None),
        "reduceat_valid": (lambda: np.add.reduceat(u(), [0, 2]), values_equal("float8_e4m3fn", [3, 3])),
        "accumulate_axis_junk": (lambda: np.add.accumulate(u(), axis=3), None),
        "accumulate_out_wrong": (lambda: np.add.accumulate(u(), out=np.empty(2, mf.float8_e4m3fn)), None),
        "at_out_of_range": (lambda: np.add.at(u(), [100], 1), None),
        "at_str_index": (lambda: np.add.at(u(), ["x"], 1), None),
        "at_str_value": (lambda: np.add.at(u(), [0], "x"), None),
        "at_valid": (lambda: _at(np, u()), values_equal("float8_e4m3fn", [3, 2, 3])),
        "outer_str": (lambda: np.add.outer(u(), "x"), None),
        "argmax_empty": (lambda: np.argmax(np.array([], mf.float8_e4m3fn)), None),
        "argmax_axis_junk": (lambda: np.argmax(u(), axis=3), None),
        "argmax_out_wrong": (lambda: np.argmax(u(), out=np.empty(3, np.intp)), None),
        "min_empty": (lambda: np.array([], mf.float8_e5m2).min(), None),
        "sum_dtype_instance": (lambda: u().sum(dtype=mf.float8_e4m3fn), anything),
        "sum_dtype_int": (lambda: u().sum(dtype=np.int8), lambda r: int(r) == 6),
        "isnan_out_wrong": (lambda: np.isnan(u(), out=np.empty(3, mf.float8_e4m3fn)), anything),
        "sqrt_out_int": (lambda: np.sqrt(u(), out=np.empty(3, np.int16)), None),
        "negative_where_out": (lambda: np.negative(u(), out=u(), where=[True, False, True]),
                               values_equal("float8_e4m3fn", [-1, 2, -3])),
        "clip_out_wrong": (lambda: np.clip(u(), 0, 1, out=np.empty(2, mf.float8_e4m3fn)), None),
        "matmul_1d_scalar": (lambda: np.matmul(u(), 2.0), None),
        "vecdot_mismatch": (lambda: np.vecdot(u(), u()[:2]), None),
    }
    for key, (fn, check) in ufunc_cases.items():
        raises = TVO + (IndexError, MemoryError)
        if check is None:
            case(f"ufunc/{key}", fn, raises=raises)
        else:
            case(f"ufunc/{key}", fn, raises=raises, check=check)

    # -- mf.cast: every keyword wrong -----------------------------------------------------
    x32 = lambda: np.array([0.3, -1.5, 1000.0], np.float32)  # noqa: E731
    F = mf.float8_e4m3fn
    cast_cases = {
        "rounding_junk": (lambda: mf.cast(x32(), F, rounding="x"), (ValueError,), None),
        "rounding_None": (lambda: mf.cast(x32(), F, rounding=None), (TypeError,), None),
        "rounding_int": (lambda: mf.cast(x32(), F, rounding=1), (TypeError,), None),
        "rounding_list": (lambda: mf.cast(x32(), F, rounding=["up"]), (TypeError,), None),
        "rounding_array": (lambda: mf.cast(x32(), F, rounding=np.array(["up"])), (TypeError,), None),
        "rounding_numpy_str": (lambda: mf.cast(x32(), F, rounding=np.str_("up")), TV, is_format_array("float8_e4m3fn")),
        "rounding_upper": (lambda: mf.cast(x32(), F, rounding="UP"), (ValueError,), None),
        "rng_str": (lambda: mf.cast(x32(), F, rounding="stochastic", rng="x"), TV, None),
        "rng_negative": (lambda: mf.cast(x32(), F, rounding="stochastic", rng=-1), TV, None),
        "rng_float": (lambda: mf.cast(x32(), F, rounding="stochastic", rng=1.5), TV, None),
        "rng_object": (lambda: mf.cast(x32(), F, rounding="stochastic", rng=object()), TV, None),
        "rng_randomstate": (lambda: mf.cast(x32(), F, rounding="stochastic", rng=np.random.RandomState(0)), TV,
                            is_format_array("float8_e4m3fn")),
        "rng_bitgenerator": (lambda: mf.cast(x32(), F, rounding="stochastic", rng=np.random.PCG64(0)), TV,
                             is_format_array("float8_e4m3fn", (3,))),
        "rng_huge_seed": (lambda: mf.cast(x32(), F, rounding="stochastic", rng=10**400), TV,
                          is_format_array("float8_e4m3fn", (3,))),
        "rng_with_nearest": (lambda: mf.cast(x32(), F, rng="x"), TV, is_format_array("float8_e4m3fn", (3,))),
        "saturate_str": (lambda: mf.cast(x32(), F, saturate="no"), (TypeError,), None),
        # issue 30: flags are True or False ("False" saturated, "no" packed)
        "saturate_str_False": (lambda: mf.cast(x32(), F, saturate="False"), (TypeError,), None),
        "saturate_int": (lambda: mf.cast(x32(), F, saturate=1), (TypeError,), None),
        "saturate_numpy_bool": (lambda: mf.cast(x32(), F, saturate=np.True_), (),
                                values_equal("float8_e4m3fn", [0.3125, -1.5, 448])),
        "packed_str": (lambda: mf.cast(x32(), F, packed="no"), (TypeError,), None),
        "packed_int": (lambda: mf.cast(x32(), F, packed=0), (TypeError,), None),
        "packed_None": (lambda: mf.cast(x32(), F, packed=None), (TypeError,), None),
        "packed_numpy_bool": (lambda: mf.cast(x32(), mf.float4_e2m1fn, packed=np.True_), (),
                              lambda r: r.dtype == np.uint8 and r.shape == (2,)),
        "rng_bool": (lambda: mf.cast(x32(), F, rounding="stochastic", rng=True), (TypeError,), None),
        "x_0d_array": (lambda: mf.cast(np.array(1.5), F), (), is_format_array("float8_e4m3fn", ())),
        "x_python_float": (lambda: mf.cast(1.5, F), (), scalar_of("float8_e4m3fn", 1.5)),
        "saturate_array": (lambda: mf.cast(x32(), F, saturate=np.array([True, False])), (TypeError, ValueError),
                           None),
        "saturate_broken_bool": (lambda: mf.cast(x32(), F, saturate=BrokenBool()), (TypeError, RuntimeError), None),
        "saturate_None": (lambda: mf.cast(x32(), F, saturate=None), (TypeError,), None),
        "dtype_float32": (lambda: mf.cast(x32(), np.float32), (TypeError,), None),
        "dtype_junk": (lambda: mf.cast(x32(), "x"), (TypeError,), None),
        "dtype_None": (lambda: mf.cast(x32(), None), (TypeError,), None),
        "dtype_class": (lambda: mf.cast(x32(), mf.dtypes.Float8E4M3FNDType), (TypeError,), is_format_array("float8_e4m3fn")),
        "unknown_keyword": (lambda: mf.cast(x32(), F, foo=1), (TypeError,), None),
        "positional_saturate": (lambda: mf.cast(x32(), F, True), (TypeError,), None),
        "x_str": (lambda: mf.cast("x", F), TV, None),
        "x_str_list": (lambda: mf.cast([1, "x"], F), TV, None),
        "x_None": (lambda: mf.cast(None, F), TV, None),
        "x_ragged": (lambda: mf.cast([[1, 2], [3]], F), TV, None),
        "x_complex": (lambda: mf.cast(np.ones(2, np.complex64), F), TV, None),
        "x_complex_scalar": (lambda: mf.cast(1 + 2j, F), TV, None),
        "x_datetime": (lambda: mf.cast(np.zeros(2, "M8[s]"), F), TV, None),
        "x_structured": (lambda: mf.cast(np.zeros(2, [("a", "f4")]), F), TV, None),
        "x_void": (lambda: mf.cast(np.zeros(2, "V4"), F), TV, None),
        "x_bytes": (lambda: mf.cast(b"12", F), TV, None),
        "x_broken_array": (lambda: mf.cast(BrokenArray(), F), (RuntimeError, TypeError), None),
        "x_array_junk": (lambda: mf.cast(ArrayReturnsJunk(), F), TV, None),
        "x_object_None": (lambda: mf.cast(np.array([1.0, None], dtype=object), F), TV, None),
        "x_object_str": (lambda: mf.cast(np.array([1.0, "1.5"], dtype=object), F), TV, None),
        "x_object_bytes": (lambda: mf.cast(np.array([b"1"], dtype=object), F), TV, None),
        "x_object_complex": (lambda: mf.cast(np.array([1j], dtype=object), F), TV, None),
        "x_object_nested": (lambda: mf.cast(np.array([[1.0], [2.0, 3.0]], dtype=object), F), TV, None),
        "x_object_array_element": (lambda: mf.cast(np.array([np.ones(2), 1.0], dtype=object), F), TV, None),
        "x_object_broken_float": (lambda: mf.cast(np.array([BrokenFloat()], dtype=object), F),
                                  (RuntimeError, TypeError), None),
        "x_object_float_str": (lambda: mf.cast(np.array([FloatReturnsStr()], dtype=object), F), (TypeError,), None),
        "x_object_broken_index": (lambda: mf.cast(np.array([BrokenIndex()], dtype=object), F),
                                  (RuntimeError, TypeError), None),
        "x_object_recursive": (lambda: mf.cast(np.array([RecursiveFloat()], dtype=object), F),
                               (RecursionError, TypeError), None),
        "x_object_decimal_snan": (lambda: mf.cast(np.array([Decimal("snan")], dtype=object), F), (ValueError,),
                                  is_format_array("float8_e4m3fn", (1,))),
        "x_object_decimal_huge": (lambda: mf.cast(np.array([Decimal("-1e99999")], dtype=object), F,
                                                  saturate=True), (OverflowError,),
                                  values_equal("float8_e4m3fn", [-448])),
        "x_object_fraction_huge": (lambda: mf.cast(np.array([Fraction(10**400, 3)], dtype=object), F),
                                   (OverflowError,), is_nan_or_overflow("float8_e4m3fn")),
        "x_object_fraction_tiny": (lambda: mf.cast(np.array([Fraction(1, 10**400)], dtype=object), F, rounding="up"),
                                   (OverflowError,), values_equal("float8_e4m3fn", [2.0**-9])),
        "x_object_mutates_array": (lambda: _object_mutates_cast(np, mf), TV + (RuntimeError,),
                                   is_format_array("float8_e4m3fn"), KNOWN_HARDENING),
        "x_object_stochastic": (lambda: mf.cast(np.array([Fraction(1, 3), 2**70], dtype=object), F,
                                                rounding="stochastic", rng=0),
                                (OverflowError,), is_format_array("float8_e4m3fn", (2,))),
        "x_huge_int": (lambda: mf.cast(10**400, F), (OverflowError,), is_nan_or_overflow("float8_e4m3fn")),
        "x_huge_negative_int_e8m0": (lambda: mf.cast(-10**400, mf.float8_e8m0fnu), (OverflowError,),
                                     scalar_of("float8_e8m0fnu", math.nan)),
        "x_uint64_max": (lambda: mf.cast(np.array([2**64 - 1], np.uint64), mf.bfloat16),
                         (), values_equal("bfloat16", [2.0**64])),
        "x_int64_min": (lambda: mf.cast(np.array([-2**63], np.int64), mf.bfloat16, rounding="down"),
                        (), values_equal("bfloat16", [-2.0**63])),
        "x_longdouble_nan": (lambda: mf.cast(np.array([np.nan, -np.inf], np.longdouble), mf.float6_e2m3fn), (),
                             is_format_array("float6_e2m3fn", (2,))),
        "x_big_endian": (lambda: mf.cast(np.array([1.5, 2.0], ">f8"), F), (), values_equal("float8_e4m3fn", [1.5, 2])),
        "x_empty": (lambda: mf.cast(np.empty((0, 3), np.float32), F, rounding="stochastic", rng=0), (),
                    is_format_array("float8_e4m3fn", (0, 3))),
        "x_huge_empty": (lambda: mf.cast(np.empty((HUGE, 0), np.float32), F), MEM,
                         is_format_array("float8_e4m3fn", (HUGE, 0))),
        "x_huge_broadcast": (lambda: mf.cast(np.broadcast_to(np.float32(1), (HUGE,)), F), MEM, None),
        "x_huge_broadcast_stochastic": (lambda: mf.cast(np.broadcast_to(np.float32(1), (HUGE,)), F,
                                                        rounding="stochastic", rng=0), MEM, None),
        "x_format_to_format": (lambda: mf.cast(u(), mf.float4_e2m1fn, rounding="down"), (),
                               values_equal("float4_e2m1fn", [1, 2, 3])),
    }
    for key, (fn, raises, check, *known) in cast_cases.items():
        case(f"cast/{key}", fn, raises=raises, check=check, known=known[0] if known else None)

    # -- pack / unpack -----------------------------------------------------------------
    fp4 = lambda: np.array([0.5, 1, 6, -2, 3], mf.float4_e2m1fn)  # noqa: E731
    packing = {
        "pack_float32": (lambda: mf.pack(np.ones(3, np.float32)), (TypeError,), None),
        "pack_list": (lambda: mf.pack([1, 2]), (TypeError,), None),
        "pack_None": (lambda: mf.pack(None), (TypeError,), None),
        "pack_0d": (lambda: mf.pack(np.array(1.5, mf.float4_e2m1fn)), (), lambda r: r.tolist() == [3]),
        "pack_empty": (lambda: mf.pack(np.array([], mf.float6_e3m2fn)), (), lambda r: r.size == 0),
        "pack_strided": (lambda: mf.pack(fp4()[::-2]), (), lambda r: r.size == 2),
        "pack_huge_broadcast": (lambda: mf.pack(np.broadcast_to(np.ones((), mf.float4_e2m1fn), (HUGE,))), MEM, None),
        "unpack_short": (lambda: mf.unpack(b"\x00", mf.float4_e2m1fn, 3), (ValueError,), None),
        "unpack_long": (lambda: mf.unpack(b"\x00" * 5, mf.float6_e2m3fn, 3), (ValueError,), None),
        "unpack_empty": (lambda: mf.unpack(b"", mf.float6_e2m3fn, 0), (), is_format_array("float6_e2m3fn", (0,))),
        "unpack_negative": (lambda: mf.unpack(b"", mf.float4_e2m1fn, -1), (ValueError,), None),
        "unpack_negative_dim": (lambda: mf.unpack(b"\x00", mf.float4_e2m1fn, (2, -1)), (ValueError,), None),
        "unpack_huge_shape": (lambda: mf.unpack(b"\x00", mf.float4_e2m1fn, (HUGE, HUGE)), (ValueError,), None),
        "unpack_huge_count": (lambda: mf.unpack(b"\x00", mf.bfloat16, 2**70), (ValueError, OverflowError), None),
        "unpack_zero_by_huge": (lambda: mf.unpack(b"", mf.float4_e2m1fn, (0, 2**62)), TVO,
                                is_format_array("float4_e2m1fn", (0, 2**62))),
        "unpack_zero_by_too_huge": (lambda: mf.unpack(b"", mf.float4_e2m1fn, (0, 2**64)), TVO, None),
        "unpack_shape_str": (lambda: mf.unpack(b"\x00", mf.float4_e2m1fn, "x"), (TypeError,), None),
        "unpack_shape_None": (lambda: mf.unpack(b"\x00", mf.float4_e2m1fn, None), (TypeError,), None),
        # issue 30: sizes go through operator.index (1.5 was read as 1, "1" and True as 1)
        "unpack_shape_float": (lambda: mf.unpack(b"\x00", mf.float4_e2m1fn, 1.5), (TypeError,), None),
        "unpack_shape_digit_str": (lambda: mf.unpack(b"\x00", mf.float8_e4m3fn, "1"), (TypeError,), None),
        "unpack_shape_bool": (lambda: mf.unpack(b"\x00", mf.float8_e4m3fn, True), (TypeError,), None),
        "unpack_shape_float_entry": (lambda: mf.unpack(b"\x00", mf.float8_e4m3fn, (1.0,)), (TypeError,), None),
        "unpack_shape_numpy_ints": (lambda: mf.unpack(b"\x00" * 6, mf.float8_e4m3fn, np.array([2, 3])), (),
                                    is_format_array("float8_e4m3fn", (2, 3))),
        "unpack_int4_shape_float": (lambda: mf.unpack(b"\x00", mf.int4, 2.0), (TypeError,), None),
        "unpack_dtype_None": (lambda: mf.unpack(b"\x00", None, 1), (TypeError,), None),
        "unpack_shape_nested": (lambda: mf.unpack(b"\x00", mf.float4_e2m1fn, [[1]]), TV, None),
        "unpack_shape_broken_index": (lambda: mf.unpack(b"\x00", mf.float4_e2m1fn, BrokenIndex()),
                                      (RuntimeError, TypeError), None),
        "unpack_int32_buffer": (lambda: mf.unpack(np.array([1, 2], np.int32), mf.float8_e4m3fn, 2), (TypeError,),
                                None),
        "unpack_2d_buffer": (lambda: mf.unpack(np.zeros((2, 2), np.uint8), mf.float8_e4m3fn, 4), (ValueError,), None),
        "unpack_str_buffer": (lambda: mf.unpack("ab", mf.float8_e4m3fn, 2), TV, None),
        "unpack_None_buffer": (lambda: mf.unpack(None, mf.float8_e4m3fn, 2), TV, None),
        "unpack_dtype_float32": (lambda: mf.unpack(b"\x00", np.float32, 1), (TypeError,), None),
        "unpack_dtype_junk": (lambda: mf.unpack(b"\x00", "not-a-dtype", 1), (TypeError,), None),
        "unpack_strided_memoryview": (lambda: mf.unpack(memoryview(b"abcd")[::2], mf.float8_e4m3fn, 2),
                                      TV + (BufferError,), is_format_array("float8_e4m3fn", (2,))),
        "unpack_double_memoryview": (lambda: mf.unpack(memoryview(__import__("array").array("d", [1.0])),
                                                       mf.float8_e4m3fn, 8), TV + (BufferError,),
                                     is_format_array("float8_e4m3fn", (8,))),
        "unpack_strided_uint8": (lambda: mf.unpack(np.zeros(8, np.uint8)[::2], mf.float4_e2m1fn, 8), TV,
                                 is_format_array("float4_e2m1fn", (8,))),
        "unpack_bytearray_fp6": (lambda: mf.unpack(bytearray(b"\xff\xff\xff"), mf.float6_e3m2fn, 4), (),
                                 values_equal("float6_e3m2fn", [-28] * 4)),
    }
    for key, (fn, raises, check) in packing.items():
        case(f"pack/{key}", fn, raises=raises, check=check)

    # -- mf.mx.quantize ----------------------------------------------------------------------
    q = lambda: np.linspace(-3, 3, 64, dtype=np.float32).reshape(2, 32)  # noqa: E731

    def parts(data_shape, scales_shape, fmt, **kwargs):
        return mf.mx.MXArray.from_parts(np.zeros(data_shape, np.uint8), np.zeros(scales_shape, np.uint8), fmt, **kwargs)
    mx = {
        "fmt_junk": (lambda: mf.mx.quantize(q(), "x"), TV, None),
        "fmt_None": (lambda: mf.mx.quantize(q(), None), TV, None),
        "fmt_list": (lambda: mf.mx.quantize(q(), ["mxfp8_e4m3"]), TV, None),
        "fmt_upper": (lambda: mf.mx.quantize(q(), "MXFP8_E4M3"), TV, None),
        "axis_out_of_range": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3", axis=5), TV + (IndexError,), None),
        "axis_negative_out_of_range": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3", axis=-3), TV + (IndexError,), None),
        "axis_str": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3", axis="x"), TV, None),
        "axis_float": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3", axis=1.5), (TypeError,), None),
        "axis_None": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3", axis=None), (TypeError,), None),
        "axis_bool": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3", axis=True), (TypeError,), None),
        "axis_whole_float": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3", axis=1.0), (TypeError,), None),
        "axis_numpy_int": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3", axis=np.int8(0)), (),
                           lambda r: r.axis == 0 and r.scales.shape == (1, 32)),
        "axis_huge": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3", axis=2**70), TVO + (IndexError,), None),
        "block_zero": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3", block_size=0), (ValueError,), None),
        "block_negative": (lambda: mf.mx.quantize(q(), "mxfp4_e2m1", block_size=-32), (ValueError,), None),
        "block_str": (lambda: mf.mx.quantize(q(), "mxfp4_e2m1", block_size="x"), (TypeError,), None),
        "block_nan": (lambda: mf.mx.quantize(q(), "mxfp4_e2m1", block_size=float("nan")), (TypeError,), None),
        "block_inf": (lambda: mf.mx.quantize(q(), "mxfp4_e2m1", block_size=float("inf")), (TypeError,), None),
        # issue 30: sizes go through operator.index (1.5 was 1, 16.5 was 16, True was 1, "32" was 32)
        "block_float": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3", block_size=1.5), (TypeError,), None),
        "block_16_5": (lambda: mf.mx.quantize(q(), "mxfp4_e2m1", block_size=16.5), (TypeError,), None),
        "block_whole_float": (lambda: mf.mx.quantize(q(), "mxfp4_e2m1", block_size=16.0), (TypeError,), None),
        "block_bool": (lambda: mf.mx.quantize(q(), "mxfp4_e2m1", block_size=True), (TypeError,), None),
        "block_digit_str": (lambda: mf.mx.quantize(q(), "mxfp4_e2m1", block_size="32"), (TypeError,), None),
        "block_numpy_int": (lambda: mf.mx.quantize(q(), "mxfp4_e2m1", block_size=np.int16(16)), (),
                            lambda r: r.block_size == 16 and r.scales.shape == (2, 2)),
        # NVFP4's block is 16 values by definition; MX formats take any block size (OCP MX's k)
        "block_nvfp4_32": (lambda: mf.mx.quantize(q(), "nvfp4", block_size=32), (ValueError,), None),
        "block_nvfp4_8": (lambda: mf.mx.quantize(q(), "nvfp4", block_size=8), (ValueError,), None),
        "block_nvfp4_16": (lambda: mf.mx.quantize(q(), "nvfp4", block_size=16), (),
                           lambda r: r.block_size == 16 and r.scales.shape == (2, 2)),
        "block_shape_keyword": (lambda: mf.mx.quantize(q(), "mxfp4_e2m1", block_shape=16), (TypeError,), None),
        "group_size_keyword": (lambda: mf.mx.quantize(q(), "mxfp4_e2m1", group_size=16), (TypeError,), None),
        "block_2_31": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3", block_size=2**31), TVO + (MemoryError,),
                       lambda r: r.scales.shape == (2, 1)),
        "block_2_70": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3", block_size=2**70), TVO + (MemoryError,),
                       lambda r: r.scales.shape == (2, 1)),
        "block_2_29": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3", block_size=2**29), TVO + (MemoryError,),
                       lambda r: r.scales.shape == (2, 1), KNOWN_HARDENING),
        "block_2_29_nvfp4": (lambda: mf.mx.quantize(q(), "nvfp4", block_size=2**29), TVO + (MemoryError,),
                             lambda r: r.scales.shape == (2, 1)),
        "block_2_29_mxint8": (lambda: mf.mx.quantize(q(), "mxint8", block_size=2**29), TVO + (MemoryError,),
                              lambda r: r.scales.shape == (2, 1), KNOWN_HARDENING),
        "block_larger_than_row": (lambda: mf.mx.quantize(q(), "mxfp6_e2m3", block_size=1000), (),
                                  lambda r: r.scales.shape == (2, 1)),
        "block_one": (lambda: mf.mx.quantize(q(), "mxfp6_e3m2", block_size=1), (), lambda r: r.scales.shape == (2, 32)),
        "scale_mode_junk": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3", scale_mode="x"), TV, None),
        "scale_mode_None": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3", scale_mode=None), (TypeError,), None),
        "scale_mode_list": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3", scale_mode=["floor"]), (TypeError,), None),
        "scale_mode_nvfp4": (lambda: mf.mx.quantize(q(), "nvfp4", scale_mode="ceil"), TV,
                             lambda r: r.scales.shape == (2, 2)),
        "tensor_scale_junk": (lambda: mf.mx.quantize(q(), "nvfp4", tensor_scale="x"), TV, None),
        "tensor_scale_on_mx": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3", tensor_scale=2.0), TV, None),
        "tensor_scale_zero": (lambda: mf.mx.quantize(q(), "nvfp4", tensor_scale=0), TV, None),
        "tensor_scale_negative": (lambda: mf.mx.quantize(q(), "nvfp4", tensor_scale=-1), TV, None),
        "tensor_scale_nan": (lambda: mf.mx.quantize(q(), "nvfp4", tensor_scale=float("nan")), TV, None),
        "tensor_scale_inf": (lambda: mf.mx.quantize(q(), "nvfp4", tensor_scale=float("inf")), TV, None),
        "tensor_scale_underflow": (lambda: mf.mx.quantize(q(), "nvfp4", tensor_scale=1e-50), TV, None),
        "tensor_scale_overflow": (lambda: mf.mx.quantize(q(), "nvfp4", tensor_scale=1e300), TVO, None),
        "tensor_scale_subnormal": (lambda: mf.mx.quantize(q(), "nvfp4", tensor_scale=1e-45), TV,
                                   lambda r: r.scales.shape == (2, 2)),
        "tensor_scale_array": (lambda: mf.mx.quantize(q(), "nvfp4", tensor_scale=[1.0, 2.0]), TV, None),
        "tensor_scale_bool": (lambda: mf.mx.quantize(q(), "nvfp4", tensor_scale=True), (TypeError,), None),
        "tensor_scale_fraction": (lambda: mf.mx.quantize(q(), "nvfp4", tensor_scale=Fraction(1, 2)), (),
                                  lambda r: r.tensor_scale == 0.5),
        "tensor_scale_auto_empty": (lambda: mf.mx.quantize(np.empty((0,), np.float32), "nvfp4", tensor_scale="auto"),
                                    TV, lambda r: r.data.shape == (0,)),
        "tensor_scale_auto_nan": (lambda: mf.mx.quantize(np.full(16, np.nan, np.float32), "nvfp4",
                                                         tensor_scale="auto"), TV, lambda r: r.data.shape == (16,)),
        "data_nan_inf": (lambda: mf.mx.quantize(np.array([np.nan, np.inf, -np.inf, 1.0] * 8, np.float32),
                                                "mxfp8_e4m3"), (), lambda r: r.scales.view(np.uint8).tolist() == [255]),
        "data_nan_nvfp4": (lambda: mf.mx.quantize(np.array([np.nan] + [1.0] * 15, np.float32), "nvfp4"), (),
                           lambda r: r.data.shape == (16,)),
        "data_float64_overflow": (lambda: mf.mx.quantize(np.array([1e300, 1.0] * 16), "mxint8"), (),
                                  lambda r: r.scales.view(np.uint8).tolist() == [255]),
        "data_empty": (lambda: mf.mx.quantize(np.empty((0,), np.float32), "mxfp4_e2m1"), (),
                       lambda r: r.data.shape == (0,) and r.scales.shape == (0,)),
        "data_empty_rows": (lambda: mf.mx.quantize(np.empty((3, 0), np.float32), "mxfp4_e2m1"), (),
                            lambda r: r.scales.shape == (3, 0)),
        "data_empty_axis0": (lambda: mf.mx.quantize(np.empty((0, 5), np.float32), "nvfp4", axis=0), (),
                             lambda r: r.scales.shape == (0, 5)),
        # issue 30: a 0-d input came back with shape (1,); blocks need an axis
        "data_0d": (lambda: mf.mx.quantize(np.float32(2.0), "mxfp8_e5m2"), (ValueError,), None),
        "data_0d_array_nvfp4": (lambda: mf.mx.quantize(np.array(2.0), "nvfp4"), (ValueError,), None),
        "data_complex": (lambda: mf.mx.quantize(np.ones(4, np.complex64), "mxfp8_e4m3"), (TypeError,), None),
        "data_str": (lambda: mf.mx.quantize(np.array(["1"]), "mxfp8_e4m3"), (TypeError,), None),
        "data_object": (lambda: mf.mx.quantize(np.array([1.0, None], dtype=object), "mxfp8_e4m3"), TV, None),
        "data_None": (lambda: mf.mx.quantize(None, "mxfp8_e4m3"), TV, None),
        "data_ragged": (lambda: mf.mx.quantize([[1, 2], [3]], "mxfp8_e4m3"), TV, None),
        "data_datetime": (lambda: mf.mx.quantize(np.zeros(2, "M8[s]"), "mxfp8_e4m3"), TV, None),
        "data_structured": (lambda: mf.mx.quantize(np.zeros(2, [("a", "f4")]), "mxfp8_e4m3"), TV, None),
        "data_bool": (lambda: mf.mx.quantize(np.ones(4, bool), "mxint8"), (), lambda r: r.data.dtype == np.int8),
        "data_uint64": (lambda: mf.mx.quantize(np.array([2**64 - 1, 1], np.uint64), "mxfp6_e3m2"), (),
                        lambda r: r.data.shape == (2,)),
        "data_format": (lambda: mf.mx.quantize(np.ones(40, mf.float8_e8m0fnu), "mxfp4_e2m1"), (),
                        lambda r: r.scales.shape == (2,)),
        "data_big_endian": (lambda: mf.mx.quantize(np.ones(40, ">f4"), "mxfp8_e4m3"), (),
                            lambda r: r.scales.shape == (2,)),
        "data_negative_strides": (lambda: mf.mx.quantize(q()[::-1, ::-1], "nvfp4", axis=0), (),
                                  lambda r: r.scales.shape == (1, 32)),
        "data_huge_broadcast": (lambda: mf.mx.quantize(np.broadcast_to(np.float32(1), (2**20, 2**20)), "mxfp8_e4m3"),
                                MEM, None),
        "dequantize_dtype_junk": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3").dequantize("not-a-dtype"), (TypeError,), None),
        "dequantize_format": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3").dequantize(mf.float8_e4m3fn), (),
                              is_format_array("float8_e4m3fn", (2, 32))),
        "dequantize_None": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3").dequantize(None), (TypeError,), None),
        "dequantize_int32": (lambda: mf.mx.quantize(q(), "mxfp8_e4m3").dequantize(np.int32), (TypeError,), None),
        "from_parts_packed_str": (lambda: parts((2, 16), (2, 1), "mxfp4_e2m1", packed="yes"), (TypeError,), None),
        "from_parts_shape_float": (lambda: parts(16, 1, "mxfp4_e2m1", packed=True, shape=32.0), (TypeError,), None),
        "from_parts_axis_float": (lambda: parts((2, 32), (2, 1), "mxfp4_e2m1", axis=1.0), (TypeError,), None),
        "from_parts_block_bool": (lambda: parts((2, 32), (2, 32), "mxfp4_e2m1", block_size=True), (TypeError,), None),
        "from_parts_nvfp4_block_32": (lambda: parts((2, 32), (2, 1), "nvfp4", block_size=32), (ValueError,), None),
        "from_parts_nvfp4_block_16": (lambda: parts((2, 32), (2, 2), "nvfp4", block_size=16), (),
                                      lambda r: r.block_size == 16),
        "from_parts_tensor_scale_bool": (lambda: parts((2, 32), (2, 2), "nvfp4", tensor_scale=True), (TypeError,),
                                         None),
        "dequantize_tampered_block": (lambda: _tampered(mf, q(), "block_size", 0).dequantize(), TV + (IndexError,),
                                      None),
        "dequantize_tampered_axis": (lambda: _tampered(mf, q(), "axis", 7).dequantize(), TV + (IndexError,), None),
        "dequantize_tampered_scales": (lambda: _tampered(mf, q(), "scales", None).dequantize(),
                                       TV + (AttributeError,), None),
    }
    for key, (fn, raises, check, *known) in mx.items():
        case(f"mx/{key}", fn, raises=raises, check=check, known=known[0] if known else None)

    # -- mf.quant.quantize and quantize_affine (issue 30: the same argument rules) --------------
    w = lambda: np.linspace(-2, 2, 64, dtype=np.float32).reshape(8, 8)  # noqa: E731
    E4 = mf.float8_e4m3fn
    quant = {
        "channel_axis_None": (lambda: mf.quant.quantize(w(), E4, granularity="channel", axis=None), (TypeError,), None),
        "channel_axis_bool": (lambda: mf.quant.quantize(w(), E4, granularity="channel", axis=True), (TypeError,), None),
        "channel_axis_float": (lambda: mf.quant.quantize(w(), E4, granularity="channel", axis=1.0), (TypeError,), None),
        "channel_axis_out_of_range": (lambda: mf.quant.quantize(w(), E4, granularity="channel", axis=2), (ValueError,),
                                      None),
        "tensor_axis_None": (lambda: mf.quant.quantize(w(), E4, axis=None), (), lambda r: r.scales.shape == ()),
        "tensor_axis_str": (lambda: mf.quant.quantize(w(), E4, axis="0"), (TypeError,), None),
        "block_size_float": (lambda: mf.quant.quantize(w(), E4, granularity="block", block_size=(4.0, 4)), (TypeError,),
                             None),
        "block_size_bool": (lambda: mf.quant.quantize(w(), E4, granularity="block", block_size=True), (TypeError,),
                            None),
        "block_size_str": (lambda: mf.quant.quantize(w(), E4, granularity="block", block_size="44"), (TypeError,),
                           None),
        "block_size_zero": (lambda: mf.quant.quantize(w(), E4, granularity="block", block_size=(0, 4)), (ValueError,),
                            None),
        "block_size_empty": (lambda: mf.quant.quantize(w(), E4, granularity="block", block_size=()), (ValueError,),
                             None),
        "block_size_int": (lambda: mf.quant.quantize(w(), E4, granularity="block", block_size=4), (),
                           lambda r: r.block_size == (4,) and r.scales.shape == (8, 2)),
        # the old spelling block_shape works (DeprecationWarning); both at once is a TypeError
        "block_shape_deprecated": (lambda: mf.quant.quantize(w(), E4, granularity="block", block_shape=(4, 4)), (),
                                   lambda r: r.block_size == (4, 4) and r.scales.shape == (2, 2)),
        "block_shape_and_block_size": (lambda: mf.quant.quantize(w(), E4, granularity="block", block_size=(2, 2),
                                                                 block_shape=(4, 4)), (TypeError,), None),
        "group_size_keyword": (lambda: mf.quant.quantize(w(), E4, granularity="block", group_size=4), (TypeError,),
                               None),
        "dtype_None": (lambda: mf.quant.quantize(w(), None), (TypeError,), None),
        "granularity_None": (lambda: mf.quant.quantize(w(), E4, granularity=None), (TypeError,), None),
        "granularity_junk": (lambda: mf.quant.quantize(w(), E4, granularity="row"), (ValueError,), None),
        "margin_float": (lambda: mf.quant.quantize(w(), E4, margin=0.5), (TypeError,), None),
        "margin_bool": (lambda: mf.quant.quantize(w(), E4, margin=True), (TypeError,), None),
        "margin_huge": (lambda: mf.quant.quantize(w(), E4, margin=2**70), (ValueError,), None),
        "margin_numpy_int": (lambda: mf.quant.quantize(w(), E4, margin=np.int8(1)), (),
                             lambda r: r.options["margin"] == 1),
        "pow2_scales_str": (lambda: mf.quant.quantize(w(), E4, pow2_scales="no"), (TypeError,), None),
        "pow2_scales_int": (lambda: mf.quant.quantize(w(), E4, pow2_scales=1), (TypeError,), None),
        "data_0d_tensor": (lambda: mf.quant.quantize(np.float32(3.0), E4), (),
                           lambda r: r.data.shape == () and r.scales.shape == ()),
        "data_0d_channel": (lambda: mf.quant.quantize(np.float32(3.0), E4, granularity="channel"), (ValueError,), None),
        "data_0d_block": (lambda: mf.quant.quantize(np.float32(3.0), E4, granularity="block"), (ValueError,), None),
        "dequantize_None": (lambda: mf.quant.quantize(w(), E4).dequantize(None), (TypeError,), None),
        "dequantize_int8": (lambda: mf.quant.quantize(w(), E4).dequantize(np.int8), (TypeError,), None),
        "affine_block_size_float": (lambda: mf.quantize_affine(w(), mf.int4, block_size=8.0), (TypeError,), None),
        "affine_block_size_bool": (lambda: mf.quantize_affine(w(), mf.int4, block_size=True), (TypeError,), None),
        "affine_block_size_None": (lambda: mf.quantize_affine(w(), mf.int4, block_size=None), (),
                                   lambda r: r.block_size == 8 and r.scales.shape == (8, 1)),
        "affine_group_size_deprecated": (lambda: mf.quantize_affine(w(), mf.int4, group_size=4), (),
                                         lambda r: r.block_size == 4 and r.scales.shape == (8, 2)),
        "affine_group_size_and_block_size": (lambda: mf.quantize_affine(w(), mf.int4, block_size=4, group_size=8),
                                             (TypeError,), None),
        "affine_block_shape_keyword": (lambda: mf.quantize_affine(w(), mf.int4, block_shape=4), (TypeError,), None),
        "affine_zero_point_str": (lambda: mf.quantize_affine(w(), mf.int4, block_size=8, zero_point="no"), (TypeError,),
                                  None),
        "affine_axis_bool": (lambda: mf.quantize_affine(w(), mf.int4, block_size=8, axis=True), (TypeError,), None),
        "affine_axis_float": (lambda: mf.quantize_affine(w(), mf.int4, block_size=8, axis=0.0), (TypeError,), None),
        "affine_dtype_None": (lambda: mf.quantize_affine(w(), None), (TypeError,), None),
        "affine_0d": (lambda: mf.quantize_affine(np.float32(1.0), mf.int4), (ValueError,), None),
        "affine_dequantize_None": (lambda: mf.quantize_affine(w(), mf.int4, block_size=8).dequantize(None),
                                   (TypeError,), None),
    }
    for key, (fn, raises, check) in quant.items():
        case(f"quant/{key}", fn, raises=raises, check=check)

    # -- DLPack ---------------------------------------------------------------------------------
    e8 = lambda: np.array([1.0, 2.0, 3.0, 4.0], mf.float8_e4m3fn)  # noqa: E731
    dl = {
        "from_object": (lambda: mf.from_dlpack(object()), (TypeError,), None),
        "from_float32_array": (lambda: mf.from_dlpack(np.ones(3, np.float32)), TV, None),
        "from_list": (lambda: mf.from_dlpack([1, 2]), (TypeError,), None),
        "dlpack_returns_str": (lambda: mf.from_dlpack(Exports("x")), TV, None),
        "dlpack_returns_None": (lambda: mf.from_dlpack(Exports(None)), TV, None),
        "dlpack_raises": (lambda: mf.from_dlpack(Exports(RuntimeError("no"))), (RuntimeError,), None),
        "dlpack_raises_typeerror": (lambda: mf.from_dlpack(Exports(TypeError("no"))), (TypeError,), None),
        "device_junk": (lambda: mf.from_dlpack(Exports("x", device="x")), TV, None),
        "device_None": (lambda: mf.from_dlpack(Exports("x", device=None)), TV, None),
        "device_cuda": (lambda: mf.from_dlpack(Exports("x", device=(2, 0))), TV + (BufferError,), None),
        "device_raises": (lambda: mf.from_dlpack(Exports("x", device=RuntimeError("no"))), (RuntimeError,), None),
        "capsule_wrong_name": (lambda: core.dlpack_import(_capsule_new(id(core), b"not_dltensor")), TV, None),
        "capsule_null_name": (lambda: core.dlpack_import(_capsule_new(id(core), None)), TV, None),
        "capsule_used_versioned": (lambda: core.dlpack_import(make_capsule(name=b"used_dltensor_versioned")), TV,
                                   None),
        "capsule_used_legacy": (lambda: core.dlpack_import(make_capsule(versioned=False, name=b"used_dltensor")), TV,
                                None),
        "capsule_consumed_twice": (lambda: _consume_twice(mf, e8()), TV, None),
        "not_a_capsule": (lambda: core.dlpack_import(b"dltensor"), TV, None),
        "version_2": (lambda: core.dlpack_import(make_capsule(major=2)), TV, None),
        "version_0": (lambda: core.dlpack_import(make_capsule(major=0)), TV, None),
        "device_gpu": (lambda: core.dlpack_import(make_capsule(device_type=2)), TV + (BufferError,), None),
        "dtype_float32": (lambda: core.dlpack_import(make_capsule(code=2, bits=32)), TV, None),
        "dtype_bits_mismatch": (lambda: core.dlpack_import(make_capsule(code=10, bits=16)), TV, None),
        "dtype_lanes": (lambda: core.dlpack_import(make_capsule(code=10, bits=8, lanes=4)), TV, None),
        "dtype_lanes_zero": (lambda: core.dlpack_import(make_capsule(code=10, bits=8, lanes=0)), TV, None),
        "fp4_lanes_3": (lambda: core.dlpack_import(make_capsule(code=17, bits=4, lanes=3)), TV, None),
        "fp4_lanes_0": (lambda: core.dlpack_import(make_capsule(code=17, bits=4, lanes=0)), TV,
                        lambda r: isinstance(r, tuple)),
        "ndim_negative": (lambda: core.dlpack_import(make_capsule(ndim=-1)), TV + (MemoryError,), None),
        "ndim_negative_fp4": (lambda: core.dlpack_import(make_capsule(code=17, bits=4, ndim=-1)),
                              TV + (MemoryError,), None),
        "ndim_huge": (lambda: core.dlpack_import(make_capsule(ndim=100, shape=(1,) * 100)), TV, None),
        "shape_negative": (lambda: core.dlpack_import(make_capsule(shape=(-5,))), TV, None),
        "shape_negative_fp4": (lambda: core.dlpack_import(make_capsule(code=17, bits=4, shape=(-5,))),
                               TV + (MemoryError,), None),
        "shape_overflowing": (lambda: core.dlpack_import(make_capsule(shape=(2**40, 2**40))), TV + (MemoryError,),
                              None),
        "shape_overflowing_fp4": (lambda: core.dlpack_import(make_capsule(code=17, bits=4, shape=(2**62, 4))),
                                  TV + (MemoryError,), None),
        "shape_huge_fp4": (lambda: core.dlpack_import(make_capsule(code=17, bits=4, shape=(2**62,))),
                           TV + (MemoryError,), None),
        "strides_negative_fp4": (lambda: core.dlpack_import(make_capsule(code=17, bits=4, shape=(4,), strides=(-1,))),
                                 TV, None),
        "empty_fp6_null_data": (lambda: core.dlpack_import(make_capsule(code=15, bits=6, shape=(0,), null_data=True)),
                                TV, lambda r: isinstance(r, tuple), KNOWN_HARDENING),
        "empty_e4m3_null_data": (lambda: core.dlpack_import(make_capsule(shape=(0,), null_data=True)), TV,
                                 is_format_array("float8_e4m3fn", (0,))),
        "readonly_flag": (lambda: core.dlpack_import(make_capsule(flags=1)), TV,
                          lambda r: r.flags.writeable is False),
        "valid_legacy": (lambda: core.dlpack_import(make_capsule(versioned=False)), (),
                         is_format_array("float8_e4m3fn", (4,))),
        "to_float32": (lambda: mf.to_dlpack(np.ones(3, np.float32)), (TypeError,), None),
        "to_list": (lambda: mf.to_dlpack([1, 2]), (TypeError,), None),
        "to_fp6": (lambda: mf.to_dlpack(np.ones(4, mf.float6_e2m3fn)), (TypeError,), None),
        "to_fp4_odd": (lambda: mf.to_dlpack(np.ones(3, mf.float4_e2m1fn)), (ValueError,), None),
        "to_fp4_0d": (lambda: mf.to_dlpack(np.ones((), mf.float4_e2m1fn)), (ValueError,), None),
        "to_fp4_empty": (lambda: mf.from_dlpack(mf.to_dlpack(np.ones((0,), mf.float4_e2m1fn))), TV,
                         is_format_array("float4_e2m1fn", (0,))),
        "to_0d": (lambda: mf.from_dlpack(mf.to_dlpack(np.array(1.5, mf.float8_e5m2))), (),
                  values_equal("float8_e5m2", 1.5)),
        "to_device_cuda": (lambda: mf.to_dlpack(e8()).__dlpack__(dl_device=(2, 0)), TV + (BufferError,), None),
        "to_max_version_str": (lambda: mf.to_dlpack(e8()).__dlpack__(max_version="x"), TV, None),
        "to_max_version_floats": (lambda: mf.to_dlpack(e8()).__dlpack__(max_version=(1.0, 1.0)), (TypeError,), None),
        "to_copy_str": (lambda: mf.to_dlpack(e8()).__dlpack__(copy="no"), (TypeError,), None),
        "to_copy_int": (lambda: mf.to_dlpack(e8()).__dlpack__(copy=0), (TypeError,), None),
        "to_device_float": (lambda: mf.to_dlpack(e8()).__dlpack__(dl_device=(1.5, 0)), (TypeError,), None),
        "to_max_version_old": (lambda: mf.from_dlpack(Exports(mf.to_dlpack(e8()).__dlpack__(max_version=(0, 8)))),
                               (), values_equal("float8_e4m3fn", [1, 2, 3, 4])),
        "to_copy": (lambda: mf.from_dlpack(Exports(mf.to_dlpack(e8()).__dlpack__(copy=True))), (),
                    values_equal("float8_e4m3fn", [1, 2, 3, 4])),
        "to_unconsumed": (lambda: [mf.to_dlpack(e8()).__dlpack__() for _ in range(3)] and None, (),
                          lambda r: r is None),
        "roundtrip_readonly": (lambda: mf.from_dlpack(mf.to_dlpack(_readonly(e8()))), (),
                               lambda r: r.flags.writeable is False),
        "roundtrip_strided": (lambda: mf.from_dlpack(mf.to_dlpack(e8()[::2])), (),
                              values_equal("float8_e4m3fn", [1, 3])),
        "roundtrip_negative_strides": (lambda: mf.from_dlpack(mf.to_dlpack(e8()[::-1])), TV,
                                       values_equal("float8_e4m3fn", [4, 3, 2, 1]), KNOWN_HARDENING),
        "roundtrip_unaligned_bf16": (lambda: mf.from_dlpack(mf.to_dlpack(
            np.frombuffer(bytearray(9), np.uint8)[1:].view(mf.bfloat16))), TV, is_format_array("bfloat16", (4,))),
        "roundtrip_fp4": (lambda: mf.from_dlpack(mf.to_dlpack(np.array([[1, 2]], mf.float4_e2m1fn))), (),
                          values_equal("float4_e2m1fn", [[1, 2]])),
        # NumPy's importer knows only its own dtypes: its RuntimeError, the capsule intact
        "numpy_from_dlpack": (lambda: np.from_dlpack(mf.to_dlpack(e8())), TV + (BufferError, RuntimeError),
                              is_format_array("float8_e4m3fn", (4,)), KNOWN_HARDENING),
        "export_float32": (lambda: core.dlpack_export(np.ones(2, np.float32), True), (TypeError,), None),
        "export_packed_int8": (lambda: core.dlpack_export(np.ones(2, np.int8), True, True), (TypeError,), None),
        "export_not_array": (lambda: core.dlpack_export([1], True), TV, None),
        "export_odd_strides": (lambda: core.dlpack_export(
            np.frombuffer(bytearray(9), np.uint8)[1:].view(mf.bfloat16)[::1], True), TV, anything),
        "export_byte_strides": (lambda: core.dlpack_export(_byte_strided_bf16(np), False), TV, None),
    }
    for key, (fn, raises, check, *known) in dl.items():
        case(f"dlpack/{key}", fn, raises=raises, check=check, known=known[0] if known else None)

    # -- the private _core functions -------------------------------------------------------
    f32 = lambda: np.ones((2, 32), np.float32)  # noqa: E731
    e4 = core.format_index("float8_e4m3fn")
    e8i, bfi = core.format_index("float8_e8m0fnu"), core.format_index("bfloat16")
    u8 = lambda *shape: np.zeros(shape, np.uint8)  # noqa: E731
    mxq = core.mx_quantize
    private = {
        "active_kernels_args": (lambda: core._active_kernels(1), TV, None),
        "pair_kernel_args": (lambda: core._pair_kernel(1), TV, None),
        "cpu_kernel_sets_args": (lambda: core._cpu_kernel_sets("x"), TV, None),
        "mx_quantize_no_args": (lambda: core.mx_quantize(), TV, None),
        "mx_quantize_keywords_junk": (lambda: core.mx_quantize(values=None, element_index="x", emax=None,
                                                               max_element="x", significand_bits=None,
                                                               block_size=None, scale_mode=None), TV, None),
        "format_info_junk": (lambda: core.format_info("x"), TV, None),
        "format_count_args": (lambda: core._format_count(1), TV, None),
        "format_dtype_None": (lambda: core._format_dtype(None), TV, None),
        "format_dtype_unknown": (lambda: core._format_dtype("x"), TV, lambda r: r is None),
        "make_format_no_args": (lambda: core._make_format(), TV, None),
        "make_format_widths": (lambda: core._make_format(-1, 99, 2**20, True, "ieee", "ieee", True, True, "inf",
                                                         "x", "XDType", "x", None), TVO, None),
        "make_format_choices": (lambda: core._make_format(4, 3, 7, True, "x", "y", True, True, "z", "x", "XDType",
                                                          "x", None), TV, None),
        "make_format_existing_name": (lambda: core._make_format(4, 3, 9, True, "none", "all_ones", True, True, "nan",
                                                                "float8_e4m3fn", "XDType", "x", None), TV, None),
        "make_format_impossible": (lambda: core._make_format(4, 3, 7, True, "ieee", "none", True, True, "inf",
                                                             "bad_ieee_without_nan", "XDType", "x", None), TV, None),
        "dlpack_type_code_junk": (lambda: core.dlpack_type_code("x"), TV, None),
        "dlpack_type_code_None": (lambda: core.dlpack_type_code(None), TV, None),
        "fallback_promoters_not_ufunc": (lambda: core._add_fallback_promoters(len, np.dtypes.Float32DType), TV, None),
        "fallback_promoters_bad_target": (lambda: core._add_fallback_promoters(np.add, np.dtypes.Int8DType), TV, None),
        "fallback_promoters_no_args": (lambda: core._add_fallback_promoters(), TV, None),
        "ufuncs_with_loops_args": (lambda: core._ufuncs_with_loops(1), TV, None),
        "function_guard_not_callable": (lambda: core._function_guard(1, print), TV, None),
        "function_guard_no_handler": (lambda: core._function_guard(print), TV, None),
        # a guard whose handler raises: the error reaches the caller
        "function_guard_handler_raises": (lambda: core._function_guard(np.add, lambda *a: 1 / 0)(
            np.ones(1, mf.float8_e4m3fn), 1), (ZeroDivisionError,), None),
        "dot_through_slot_junk": (lambda: core._dot_through_slot([1], None), TV, None),
        "dot_through_slot_mixed": (lambda: core._dot_through_slot(np.ones(2, np.float32),
                                                                   np.ones(2, np.float32)), TV, None),
        "format_info_None": (lambda: core.format_info(None), TV, None),
        "format_index_junk": (lambda: core.format_index("x"), TV, lambda r: r == -1),
        "format_index_bytes": (lambda: core.format_index(b"\xff"), TV, lambda r: r == -1),
        "has_order_rule_junk": (lambda: core._has_order_rule("x"), TV, None),
        "set_avx512_junk": (lambda: core._set_avx512_kernels("x"), TV, None),
        # the thread pool's controls (with arguments, so nothing is shut down or changed)
        "get_num_threads_args": (lambda: core._get_num_threads(1), TV, None),
        "set_num_threads_zero": (lambda: core._set_num_threads(0), TV, None),
        "set_num_threads_junk": (lambda: core._set_num_threads("x"), TV, None),
        "shutdown_threads_args": (lambda: core._shutdown_threads(1), TV, None),
        "set_thread_min_chunk_negative": (lambda: core._set_thread_min_chunk(-1), TVO, None),
        "thread_min_chunk_override_args": (lambda: core._thread_min_chunk_override(1), TV, None),
        "last_parallel_threads_args": (lambda: core._last_parallel_threads(1), TV, None),
        "thread_min_chunks_args": (lambda: core._thread_min_chunks(1), TV, None),
        # mf.quant's two passes
        "scaled_maxima_junk": (lambda: core.scaled_maxima(None, (1, 1, 1, 1, 1, 0)), TV, None),
        "scaled_maxima_short_layout": (lambda: core.scaled_maxima(f32(), (2, 32)), TV, None),
        "scaled_maxima_wrong_size": (lambda: core.scaled_maxima(f32(), (2, 32, 2, 1, 2, 0)), TV, None),
        "scaled_maxima_zero_block": (lambda: core.scaled_maxima(f32(), (1, 2, 32, 0, 32, 0)), TV, None),
        "scaled_maxima_negative": (lambda: core.scaled_maxima(f32(), (1, -2, 32, 1, 32, 0)), TVO, None),
        "scaled_elements_unknown_format": (lambda: core.scaled_elements(f32(), np.ones(2, np.float32),
                                                                        (1, 2, 32, 1, 32, 0), "x", 0), TV, None),
        "scaled_elements_scales_size": (lambda: core.scaled_elements(f32(), np.ones(3, np.float32),
                                                                     (1, 2, 32, 1, 32, 0), "float8_e4m3fn", 0),
                                        TV, None),
        "scaled_elements_float64": (lambda: core.scaled_elements(f32().astype(np.float64), np.ones(2, np.float32),
                                                                 (1, 2, 32, 1, 32, 0), "float8_e4m3fn", 0), TV, None),
        "set_avx2_junk": (lambda: core._set_avx2_kernels([1]), TV, None),
        "set_stochastic_avx2_vaes_junk": (lambda: core._set_stochastic_avx2_vaes([1]), TV, None),
        "set_memory_streams_negative": (lambda: core._set_memory_streams(-1), TVO, None),
        "set_memory_streams_huge": (lambda: core._set_memory_streams(2**40), TVO, None),
        "set_beyond_cache_negative": (lambda: core._set_beyond_cache_bytes(-1), TVO, None),
        "set_beyond_cache_junk": (lambda: core._set_beyond_cache_bytes("x"), TV, None),
        "last_level_cache_with_argument": (lambda: core._last_level_cache_bytes(1), TV, None),
        "set_flush_to_zero_junk": (lambda: core._set_flush_to_zero("x"), TV, None),
        "encode_array_unknown_format": (lambda: core.encode_array(np.ones(2, np.float32), "x", False, "nearest", None),
                                        TV, None),
        "encode_array_rounding_junk": (lambda: core.encode_array(np.ones(2, np.float32), "bfloat16", False, "x", None),
                                       TV, None),
        "encode_array_int32": (lambda: core.encode_array(np.ones(2, np.int32), "bfloat16", False, "nearest", None),
                               TV, None),
        "encode_array_object": (lambda: core.encode_array(np.ones(2, object), "bfloat16", False, "nearest", None),
                                TV, None),
        "encode_array_format": (lambda: core.encode_array(e8(), "bfloat16", False, "nearest", None), TV, None),
        "encode_array_strided": (lambda: core.encode_array(np.ones(4, np.float32)[::2], "bfloat16", False, "up", None),
                                 TV, None),
        "encode_array_swapped": (lambda: core.encode_array(np.ones(4, ">f4"), "bfloat16", False, "up", None),
                                 TV, None),
        "encode_array_list": (lambda: core.encode_array([1.0], "bfloat16", False, "up", None), TV, None),
        "encode_array_stochastic_no_draws": (lambda: core.encode_array(np.ones(2, np.float32), "bfloat16", False,
                                                                       "stochastic", None), TV, None),
        "encode_array_draws_short": (lambda: core.encode_array(np.ones(4, np.float32), "bfloat16", False, "stochastic",
                                                               np.zeros(3, np.uint64)), TV, None),
        "encode_array_draws_int64": (lambda: core.encode_array(np.ones(4, np.float32), "bfloat16", False, "stochastic",
                                                               np.zeros(4, np.int64)), TV, None),
        "encode_array_draws_strided": (lambda: core.encode_array(np.ones(4, np.float32), "bfloat16", False,
                                                                 "stochastic", np.zeros(8, np.uint64)[::2]), TV, None),
        "encode_array_saturate_junk": (lambda: core.encode_array(np.ones(2, np.float32), "bfloat16", "x", "up", None),
                                       TV, None),
        "encode_objects_float_array": (lambda: core.encode_objects(np.ones(2), "bfloat16", False, "nearest", None),
                                       TV, None),
        "encode_objects_list": (lambda: core.encode_objects([1.0], "bfloat16", False, "nearest", None), TV, None),
        "encode_objects_strided": (lambda: core.encode_objects(np.ones(4, object)[::2], "bfloat16", False, "nearest",
                                                               None), TV, None),
        "encode_objects_draws_short": (lambda: core.encode_objects(np.ones(4, object), "bfloat16", False, "stochastic",
                                                                   np.zeros(1, np.uint64)), TV, None),
        "encode_objects_None_element": (lambda: core.encode_objects(np.empty(3, object), "bfloat16", False, "nearest",
                                                                    None), TV, None),
        "mx_quantize_index_99": (lambda: mxq(f32(), 99, 8, 448.0, 4, 32, "floor"), TV + (IndexError,), None,
                                 KNOWN_HARDENING),
        "mx_quantize_index_past_the_formats": (lambda: mxq(f32(), core._format_count(), 8, 448.0, 4, 32, "floor"),
                                               TV + (IndexError,), None,
                                 KNOWN_HARDENING),
        "mx_quantize_index_huge": (lambda: mxq(f32(), 2**40, 8, 448.0, 4, 32, "floor"), TVO + (IndexError,), None),
        "mx_quantize_index_negative": (lambda: mxq(f32(), -7, 0, 127 / 64, 7, 32, "floor"), TV,
                                       lambda r: r[0].dtype == np.int8),
        "mx_quantize_significand_0": (lambda: mxq(f32(), e4, 8, 448.0, 0, 32, "even"), TV, anything),
        "mx_quantize_significand_negative": (lambda: mxq(f32(), e4, 8, 448.0, -5, 32, "even"), TV, anything),
        "mx_quantize_significand_huge": (lambda: mxq(f32(), e4, 8, 448.0, 100, 32, "even"), TV, anything),
        "mx_quantize_emax_huge": (lambda: mxq(f32(), e4, 2**30, 448.0, 4, 32, "floor"), TV, anything),
        "mx_quantize_emax_negative": (lambda: mxq(f32(), e4, -2**30, 448.0, 4, 32, "ceil"), TV, anything),
        "mx_quantize_max_nan": (lambda: mxq(f32(), e4, 8, float("nan"), 4, 32, "rceil"), TV, anything),
        "mx_quantize_max_negative": (lambda: mxq(f32(), e4, 8, -448.0, 4, 32, "rceil"), TV, anything),
        "mx_quantize_max_zero": (lambda: mxq(f32(), e4, 8, 0.0, 4, 32, "rceil"), TV, anything),
        "mx_quantize_max_inf": (lambda: mxq(f32(), e4, 8, float("inf"), 4, 32, "even"), TV, anything),
        "mx_quantize_e8m0_elements": (lambda: mxq(f32(), core.format_index("float8_e8m0fnu"), 127, 2.0**127, 1, 32,
                                                  "floor"), TV, anything),
        "mx_quantize_bf16_elements": (lambda: mxq(f32(), core.format_index("bfloat16"), 127, 3.0e38, 8, 32, "even"),
                                      TV, anything),
        "mx_quantize_block_zero": (lambda: mxq(f32(), e4, 8, 448.0, 4, 0, "floor"), TV, None),
        "mx_quantize_block_negative": (lambda: mxq(f32(), e4, 8, 448.0, 4, -1, "floor"), TV, None),
        "mx_quantize_mode_junk": (lambda: mxq(f32(), e4, 8, 448.0, 4, 32, "x"), TV, None),
        "mx_quantize_float64": (lambda: mxq(np.ones((2, 2)), e4, 8, 448.0, 4, 32, "floor"), TV, None),
        "mx_quantize_1d": (lambda: mxq(np.ones(4, np.float32), e4, 8, 448.0, 4, 32, "floor"), TV, None),
        "mx_quantize_3d": (lambda: mxq(np.ones((1, 2, 2), np.float32), e4, 8, 448.0, 4, 32, "floor"), TV, None),
        "mx_quantize_fortran": (lambda: mxq(np.ones((2, 3), np.float32, order="F"), e4, 8, 448.0, 4, 32, "floor"), TV,
                                None),
        "mx_quantize_list": (lambda: mxq([[1.0]], e4, 8, 448.0, 4, 32, "floor"), TV, None),
        "nvfp4_block_zero": (lambda: core.nvfp4_quantize(f32(), 0, 1.0), TV, None),
        "nvfp4_block_2_29": (lambda: core.nvfp4_quantize(f32(), 2**29, 1.0), TV + (MemoryError,),
                             lambda r: r[1].shape == (2, 1)),
        "nvfp4_scale_tiny": (lambda: core.nvfp4_quantize(f32(), 16, 5e-324), TV, lambda r: r[1].shape == (2, 2)),
        "nvfp4_scale_huge": (lambda: core.nvfp4_quantize(f32(), 16, 1e308), TV, lambda r: r[1].shape == (2, 2)),
        "nvfp4_scale_nan": (lambda: core.nvfp4_quantize(f32(), 16, float("nan")), TV, None),
        "nvfp4_int_matrix": (lambda: core.nvfp4_quantize(np.ones((2, 2), np.int32), 16, 1.0), TV, None),
        # issue 17: dequantize, MX products, stochastic draws, packed casts, pack kernels
        "mx_dequantize_layout_wraps": (lambda: core.mx_dequantize(u8(0), u8(0), e4, e8i, 1, 2**32, 2**32, 1, 1.0,
                                                                  False), TV, None),
        "mx_dequantize_layout_mismatch": (lambda: core.mx_dequantize(u8(4), u8(4), e4, e8i, 2**62, 2**62, 4, 2**62, 1.0,
                                                                     False), TV, None),
        "mx_dequantize_block_huge": (lambda: core.mx_dequantize(u8(4), u8(1), e4, e8i, 2**62, 1, 4, 1, 1.0, False), TV,
                                     lambda r: r.shape == (4,)),
        "mx_dequantize_block_zero": (lambda: core.mx_dequantize(u8(4), u8(1), e4, e8i, 0, 1, 4, 1, 1.0, False), TV,
                                     None),
        "mx_dequantize_scale_index_99": (lambda: core.mx_dequantize(u8(4), u8(1), e4, 99, 4, 1, 4, 1, 1.0, False), TV,
                                         None),
        # 16-bit element or scale formats: refused (their codes would be read past the byte arrays)
        "mx_dequantize_bf16_codes": (lambda: core.mx_dequantize(u8(4), u8(1), bfi, bfi, 4, 1, 4, 1, 1.0, True), TV,
                                     None),
        "mx_dequantize_bf16_elements": (lambda: core.mx_dequantize(u8(4), u8(1), bfi, e8i, 4, 1, 4, 1, 1.0, False), TV,
                                        None),
        "mx_dequantize_bf16_scales": (lambda: core.mx_dequantize(u8(4), u8(1), e4, bfi, 4, 1, 4, 1, 1.0, False), TV,
                                      None),
        "mx_dequantize_strided": (lambda: core.mx_dequantize(u8(8)[::2], u8(1), e4, e8i, 4, 1, 4, 1, 1.0, False), TV,
                                  None),
        "mx_dequantize_int16_codes": (lambda: core.mx_dequantize(np.zeros(4, np.int16), u8(1), e4, e8i, 4, 1, 4, 1, 1.0,
                                                                 False), TV, None),
        "mx_dequantize_nan_tensor_scale": (lambda: core.mx_dequantize(u8(4), u8(1), e4, e8i, 4, 1, 4, 1,
                                                                      float("nan"), False), TV, anything),
        "mx_matmul_block_huge": (lambda: core.mx_matmul(u8(2, 4), u8(2, 1), e4, u8(4, 3), u8(1, 3), e4, 2**63 - 1), TV,
                                 lambda r: r.shape == (2, 3)),
        "mx_matmul_block_zero": (lambda: core.mx_matmul(u8(2, 4), u8(2, 1), e4, u8(4, 3), u8(1, 3), e4, 0), TV, None),
        "mx_matmul_element_99": (lambda: core.mx_matmul(u8(2, 4), u8(2, 1), 99, u8(4, 3), u8(1, 3), e4, 4), TV, None),
        "mx_matmul_bf16_elements": (lambda: core.mx_matmul(u8(2, 4), u8(2, 1), bfi, u8(4, 3), u8(1, 3), bfi, 4), TV,
                                    anything),
        "mx_matmul_scales_short": (lambda: core.mx_matmul(u8(2, 64), u8(2, 1), e4, u8(64, 3), u8(2, 3), e4, 32), TV,
                                   None),
        "mx_matmul_vectors": (lambda: core.mx_matmul(u8(4), u8(1), e4, u8(4), u8(1), e4, 4), TV, None),
        "mx_matmul_empty_inner": (lambda: core.mx_matmul(u8(2, 0), u8(2, 0), e4, u8(0, 3), u8(0, 3), e4, 4), TV,
                                  lambda r: r.shape == (2, 3) and (r == 0).all()),
        "stochastic_draws_negative": (lambda: core.stochastic_draws(1, -1), TV, None),
        "stochastic_draws_huge": (lambda: core.stochastic_draws(1, 2**62), TV + (MemoryError,), None),
        "stochastic_draws_key_negative": (lambda: core.stochastic_draws(-1, 3), TVO, None),
        "encode_stochastic_int32": (lambda: core.encode_stochastic(np.ones(3, np.int32), "float8_e4m3fn", False, 1), TV,
                                    None),
        "encode_stochastic_strided": (lambda: core.encode_stochastic(np.ones(6, np.float32)[::2], "float8_e4m3fn",
                                                                     False, 1), TV, None),
        "encode_stochastic_format_junk": (lambda: core.encode_stochastic(np.ones(3, np.float32), "x", False, 1), TV,
                                          None),
        "encode_stochastic_key_huge": (lambda: core.encode_stochastic(np.ones(3, np.float32), "float8_e4m3fn", False,
                                                                      2**70), TVO, None),
        "encode_stochastic_part_int32": (lambda: core._encode_stochastic_part(np.ones(3, np.int32), "float8_e4m3fn",
                                                                             False, 1, 0), TV, None),
        "encode_stochastic_part_first_negative": (lambda: core._encode_stochastic_part(
            np.ones(3, np.float32), "float8_e4m3fn", False, 1, -1), TVO, None),
        "encode_packed_int32": (lambda: core.encode_packed(np.ones(3, np.int32), "float4_e2m1fn", False, "nearest", 0),
                                TV, None),
        "encode_packed_rounding_junk": (lambda: core.encode_packed(np.ones(3, np.float32), "float4_e2m1fn", False, "x",
                                                                   0), TV, None),
        "encode_packed_strided": (lambda: core.encode_packed(np.ones(6, np.float32)[::2], "float4_e2m1fn", False, "up",
                                                             0), TV, None),
        "encode_packed_e8m0_stochastic": (lambda: core.encode_packed(np.ones(5), "float8_e8m0fnu", False, "stochastic",
                                                                     3), TV, lambda r: r.shape == (5,)),
        "pack_codes_bits_0": (lambda: core.pack_codes(u8(4), 0), TV, None),
        "pack_codes_bits_9": (lambda: core.pack_codes(u8(4), 9), TV, None),
        "pack_codes_uint16": (lambda: core.pack_codes(np.zeros(4, np.uint16), 4), TV, None),
        "pack_codes_list": (lambda: core.pack_codes([1, 2], 4), TV, None),
        "unpack_codes_short": (lambda: core.unpack_codes(u8(1), 100, 4), TV, None),
        "unpack_codes_count_huge": (lambda: core.unpack_codes(u8(1), 2**62, 4), TV, None),
        "unpack_codes_count_negative": (lambda: core.unpack_codes(u8(1), -1, 4), TV, None),
        "unpack_codes_strided": (lambda: core.unpack_codes(u8(8)[::2], 4, 4), TV, None),
        "dlpack_export_fp6": (lambda: core.dlpack_export(np.ones(4, mf.float6_e3m2fn), True), TV, None),
        "dlpack_export_versioned_junk": (lambda: core.dlpack_export(e8(), "x"), TV, None),
    }
    for key, (fn, raises, check, *known) in private.items():
        case(f"_core/{key}", fn, raises=raises, check=check, known=known[0] if known else None)

    # -- process state: each in a process of its own -----------------------------------------
    big = lambda: np.linspace(-100, 100, 1 << 21, dtype=np.float32)  # noqa: E731
    stateful = {
        "memory_streams_zero": lambda: (core._set_memory_streams(0), big().astype(mf.float8_e4m3fn).shape)[1],
        "memory_streams_max": lambda: (core._set_memory_streams(2**32 - 1), big().astype(mf.bfloat16).shape)[1],
        "cache_edge_one_byte": lambda: (core._set_beyond_cache_bytes(1), core._set_memory_streams(4),
                                        big().astype(mf.float8_e4m3fn).shape)[2],
        "cache_edge_max": lambda: (core._set_beyond_cache_bytes(2**64 - 1), big().astype(mf.bfloat16).shape)[1],
        "kernels_all_off": lambda: (core._set_avx512_kernels(False), core._set_avx2_kernels(False),
                                    (big().astype(mf.float8_e5m2) + mf.float8_e5m2(1)).shape)[2],
        "kernels_on_again": lambda: (core._set_avx512_kernels(True), core._set_avx2_kernels(True),
                                     (big().astype(mf.float8_e5m2) * mf.float8_e5m2(1)).shape)[2],
        "flush_to_zero_on": lambda: (core._set_flush_to_zero(True), big().astype(mf.bfloat16).shape)[1],
    }
    for key, fn in stateful.items():
        case(f"state/{key}", fn, raises=TV, check=lambda r: r == (1 << 21,), isolate=True)
    _mark_open_findings()


# Outcomes outside the expected set that this catalogue found and nobody has
# fixed yet: case name -> what is wrong (where the fix belongs).
OPEN_FINDINGS = {
    # name -> why it still fails; empty: every finding of this catalogue is fixed
    # (the fixed ones are listed in the hardening and reliability commits).
}


# Cases whose C++ code is expected to ask `operator new` for more memory than
# exists (and to turn std::bad_alloc into MemoryError). Under AddressSanitizer
# a failed `operator new` ends the process whatever allocator_may_return_null
# says, so tests/tools/sanitize.sh runs them without the sanitizer only.
ASAN_SKIP = {
    "dlpack/shape_huge_fp4": "std::vector of 2**62 bytes for the packed copy",
}


def _mark_open_findings():
    for name in OPEN_FINDINGS:
        c = CASES[name]
        c.known, c.isolate = KNOWN_OPEN, True
    for name, why in ASAN_SKIP.items():
        CASES[name].asan_skip = why


def under_asan():
    return "libasan" in os.environ.get("LD_PRELOAD", "")


def _readonly(a):
    a.flags.writeable = False
    return a


def _overlap_add(np, mf):
    a = np.array([1.0, 2.0, 3.0], mf.float8_e4m3fn)
    np.add(a, a[::-1], out=a[::-1])
    return a


def _at(np, a):
    np.add.at(a, [0, 0, 2], [1.0, 1.0, 0.0])
    return a


def _object_mutates(np, t):
    element = MutatesArrayOnFloat()
    objects = np.array([element] + [1.5] * 1000, dtype=object)
    element.array = objects
    return objects.astype(t)


def _object_mutates_cast(np, mf):
    element = MutatesArrayOnFloat()
    objects = np.array([element] + [Fraction(3, 2)] * 1000, dtype=object)
    element.array = objects
    return mf.cast(objects, mf.float8_e4m3fn)


def _tampered(mf, x, attribute, value):
    quantized = mf.mx.quantize(x, "mxfp8_e4m3")
    setattr(quantized, attribute, value)
    return quantized


def _consume_twice(mf, x):
    capsule = mf.to_dlpack(x).__dlpack__(max_version=(1, 1))
    mf._core.dlpack_import(capsule)
    return mf._core.dlpack_import(capsule)


def _byte_strided_bf16(np):
    import minifloat as mf

    raw = np.zeros(12, np.uint8)
    return np.lib.stride_tricks.as_strided(raw.view(mf.bfloat16), shape=(3,), strides=(3,))


def load():
    """The catalogue (built on first use: building imports minifloat)."""
    if not CASES:
        _build()
    return CASES


# ---- running cases --------------------------------------------------------------

def _summary(value):
    try:
        import numpy as np

        if isinstance(value, np.ndarray):
            return f"ndarray {value.dtype} {value.shape}"
        text = repr(value)
    except BaseException as error:  # noqa: BLE001 - a repr that fails is reported, not raised
        text = f"<repr failed: {type(error).__name__}>"
    return f"{type(value).__name__}: {text[:120]}"


def run_one(c):
    """Run case `c` here; the outcome as a JSON-able dict."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = c.fn()
        except BaseException as error:  # noqa: BLE001 - every exception is an outcome
            if isinstance(error, (KeyboardInterrupt, SystemExit)):
                raise
            message = str(error)
            # A clear exception says what went wrong; NumPy's own MemoryError
            # from some array functions (np.resize) comes without a message.
            ok = (isinstance(error, c.raises) and not isinstance(error, SystemError)
                  and (bool(message.strip()) or isinstance(error, MemoryError)))
            return {"kind": "raised", "type": type(error).__name__, "message": message[:300], "ok": ok}
        try:
            ok = bool(c.check(result)) if c.check is not None else False
            note = ""
        except BaseException as error:  # noqa: BLE001
            ok, note = False, f" (check raised {type(error).__name__}: {error})"
        return {"kind": "returned", "summary": _summary(result) + note, "ok": ok}


def _child(fd):
    import faulthandler

    if not under_asan():  # ASAN's own SEGV report has the C++ stack
        faulthandler.enable()
    names = json.loads(sys.stdin.read())
    cases = load()
    with os.fdopen(fd, "w", buffering=1) as report:
        for index, name in enumerate(names):
            report.write(f"S {index}\n")
            report.flush()
            outcome = run_one(cases[name])
            report.write(f"E {index} {json.dumps(outcome)}\n")
            report.flush()


def _stderr_tail(path, lines=25):
    """The end of a child's stderr, or the start of a sanitizer report in it."""
    try:
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError:
        return ""
    all_lines = text.splitlines()
    for i, line in enumerate(all_lines):
        if "ERROR: AddressSanitizer" in line or "runtime error:" in line:
            return "\n".join(line[:240] for line in all_lines[i:i + lines])
    return "\n".join(all_lines[-lines:])


def _describe_status(code):
    if code is None:
        return "killed"
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit status {code}"


def _run_batch(names, timeout, env):
    """Run `names` in one child until it ends. Returns (outcomes, next index, trouble)."""
    read_fd, write_fd = os.pipe()
    with tempfile.NamedTemporaryFile("w+", prefix="bad_inputs_", suffix=".stderr", delete=False) as err:
        err_path = err.name
    with open(err_path, "w") as err:
        proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", str(write_fd)],
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=err,
                                pass_fds=(write_fd,), env=env, cwd=os.path.dirname(os.path.abspath(__file__)))
    os.close(write_fd)
    proc.stdin.write(json.dumps(names).encode())
    proc.stdin.close()
    outcomes = {}
    started = None
    deadline = time.monotonic() + timeout * 4  # the import
    buffer = b""
    hung = False
    with os.fdopen(read_fd, "rb", buffering=0) as pipe:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                hung = True
                break
            ready, _, _ = select.select([pipe], [], [], remaining)
            if not ready:
                continue
            chunk = pipe.read(65536)
            if not chunk:
                break
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                kind, rest = line.decode().split(" ", 1)
                if kind == "S":
                    started = int(rest)
                    deadline = time.monotonic() + timeout
                else:
                    index, outcome = rest.split(" ", 1)
                    outcomes[names[int(index)]] = json.loads(outcome)
                    started = None
    if hung:
        proc.kill()
    code = proc.wait()
    tail = _stderr_tail(err_path)
    os.unlink(err_path)
    if hung:
        if started is None:
            return outcomes, len(names), {"kind": "hang", "where": "starting the child", "stderr": tail}
        outcomes[names[started]] = {"kind": "hang", "ok": False, "message": f"no result after {timeout} s",
                                    "stderr": tail}
        return outcomes, started + 1, None
    if started is not None:
        outcomes[names[started]] = {"kind": "crash", "ok": False, "message": _describe_status(code), "stderr": tail}
        return outcomes, started + 1, None
    if len(outcomes) < len(names):  # died between cases or before the first
        done = len(outcomes)
        return outcomes, done, {"kind": "crash", "where": f"child died ({_describe_status(code)}) before case {done}",
                                "stderr": tail}
    if code != 0:
        return outcomes, len(names), {"kind": "exit", "status": _describe_status(code), "stderr": tail}
    return outcomes, len(names), None


def default_timeout():
    return float(os.environ.get("MINIFLOAT_BAD_INPUT_TIMEOUT", "60"))


def run_catalogue(names=None, timeout=None, env=None):
    """Outcomes of the named cases (all by default), each run in a child process.

    A crash or hang ends its child; the next child starts after that case.
    A child that dies at exit after finishing its cases has each of them
    rerun alone, so the crash is charged to the case that causes it."""
    cases = load()
    names = list(cases) if names is None else list(names)
    timeout = default_timeout() if timeout is None else timeout
    outcomes = {}
    if under_asan():
        for n in [n for n in names if cases[n].asan_skip]:
            outcomes[n] = {"kind": "skipped", "ok": True, "message": f"under ASAN: {cases[n].asan_skip}"}
        names = [n for n in names if not cases[n].asan_skip]
    shared = [n for n in names if not cases[n].isolate]
    batches = [shared] + [[n] for n in names if cases[n].isolate]
    for batch in batches:
        pending = batch
        while pending:
            got, next_index, trouble = _run_batch(pending, timeout, env)
            outcomes.update(got)
            if trouble is not None and trouble["kind"] == "exit":
                for name in pending[:next_index]:
                    alone, _, alone_trouble = _run_batch([name], timeout, env)
                    outcomes.update(alone)
                    if alone_trouble is not None:
                        outcomes[name] = {"kind": "crash", "ok": False, "stderr": alone_trouble["stderr"],
                                          "message": f"at interpreter exit: {alone_trouble.get('status')}"}
            elif trouble is not None:
                name = pending[next_index] if next_index < len(pending) else None
                if name is None:
                    break
                outcomes[name] = {"kind": "crash", "ok": False, "message": trouble["where"],
                                  "stderr": trouble["stderr"]}
                next_index += 1
            pending = pending[next_index:]
    return outcomes


def findings(outcomes, cases=None):
    """(case name, outcome) of every outcome outside its case's expected set."""
    cases = load() if cases is None else cases
    return [(name, o) for name, o in outcomes.items() if not o["ok"]]


def describe(name, outcome):
    c = load()[name]
    expected = ", ".join(e.__name__ for e in c.raises) or "-"
    if outcome["kind"] == "raised":
        got = f"raised {outcome['type']}: {outcome['message']}"
    elif outcome["kind"] == "returned":
        got = f"returned {outcome['summary']}"
    elif outcome["kind"] == "skipped":
        got = f"skipped ({outcome['message']})"
    else:
        got = f"{outcome['kind'].upper()} ({outcome['message']})"
    known = f" [{c.known}]" if c.known else ""
    return f"{name}: {got} (expected: {expected}{' or a checked result' if c.check else ''}){known}"


def main(argv):
    if len(argv) >= 2 and argv[0] == "--child":
        _child(int(argv[1]))
        return 0
    verbose = "-v" in argv
    patterns = [a for a in argv if not a.startswith("-")]
    cases = load()
    names = [n for n in cases if not patterns or any(fnmatch.fnmatchcase(n, p) for p in patterns)]
    if "--list" in argv:
        print("\n".join(names))
        return 0
    start = time.monotonic()
    outcomes = run_catalogue(names)
    bad = findings(outcomes)
    for name in names:
        if verbose or not outcomes[name]["ok"]:
            print(("ok    " if outcomes[name]["ok"] else "FAIL  ") + describe(name, outcomes[name]))
            if outcomes[name]["kind"] in ("crash", "hang") and outcomes[name].get("stderr"):
                print("      | " + outcomes[name]["stderr"].replace("\n", "\n      | "))
    counts = {}
    for o in outcomes.values():
        counts[o["kind"]] = counts.get(o["kind"], 0) + 1
    print(f"{len(names)} cases in {time.monotonic() - start:.1f} s: " +
          ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) +
          f"; {len(bad)} outside the expected set ({sum(1 for n, _ in bad if cases[n].known)} known)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
