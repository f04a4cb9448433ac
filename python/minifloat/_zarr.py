"""Zarr v3 data types for minifloat's formats, and chunked writing with dask.

Names
-----
A format the zarr-extensions registry (github.com/zarr-developers/zarr-extensions,
``data-types/``) names is stored under that name, so any Zarr v3 reader that
knows the name (tensorstore's ``zarr3`` driver, zarrs) reads it::

    "data_type": "float8_e4m3fn"        "fill_value": "NaN"

float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz,
float8_e4m3b11fnuz, float8_e4m3, float8_e3m4, float8_e8m0fnu, float6_e2m3fn,
float6_e3m2fn, float4_e2m1fn, bfloat16, int2, int4, uint2 and uint4 (the
registry lacks float8_e4m3fn, which tensorstore reads and writes under this
name). Every other format (the P3109 binary8p* formats, formats made by
``mf.float_format``, int1/uint1) is stored under a ``minifloat.`` name whose
configuration is the whole description, so a fresh process re-creates the
format when it opens the store::

    "data_type": {"name": "minifloat.float",
                  "configuration": {"name": "binary8p3se", "exponent_bits": 5,
                                    "mantissa_bits": 2, "bias": 16, "signed": true,
                                    "infinities": "max", "nan": "negative_zero",
                                    "negative_zero": false, "subnormals": true,
                                    "overflow": "inf"}}
    "data_type": {"name": "minifloat.int", "configuration": {"bits": 1, "signed": true}}

(the configuration of ``minifloat.float`` holds the keyword arguments of
``mf.float_format``; ``nan`` may be a list of codes).

Storage: one value per byte, bfloat16 and formats of 9-16 bits in two bytes
(the ``bytes`` codec's ``endian``); sub-byte values in the low bits, the bits
above them written zero for floats and as copies of the sign bit for signed
integers (minifloat's bytes in memory; tensorstore and ml_dtypes write zeros
there): the registry's ``bytes`` rule leaves those bits arbitrary, and
readers, this one included, ignore them.

Fill values
-----------
As the registry defines them for every format: a JSON number (exact: a value
the format holds), ``"NaN"`` (the format's canonical NaN: the code
``np.array(np.nan).astype(dtype)`` gives, which is the registry's code for
each named format), ``"Infinity"``/``"-Infinity"``, or the code in hex,
two digits per byte (``"0x7d"``: how a NaN other than the canonical one is
written). ``-0.0`` stays -0. A value the format cannot hold (out of range,
between two values, inf or NaN where the format has none, -0 in an fnuz
format) raises ValueError; zarr reports a bad stored one as
``TypeError: Invalid fill_value`` with ours as the cause. Exception: a JSON
``0`` for a format without zero (float8_e8m0fnu) reads as code 0 (its
smallest value), the bits tensorstore gives that fill value. The default fill
value is code 0 (+0, or the smallest value of a format without zero).

Registration
------------
zarr-python (3.1) finds data types in its ``data_type_registry``.
``register()`` adds the classes below (never replacing a name another
package registered, unless ``replace=True``); minifloat's
``pyproject.toml`` also lists them in the ``zarr.data_type`` entry-point
group, which zarr-python 3.2+ loads at its first data-type look-up (not at
``import zarr``) and 3.1 never loads. With 3.1: ``import minifloat``
registers them when zarr is already imported, and otherwise the first use
of ``mf.zarr`` (importing this module) does; nothing is hooked into
Python's import system.
Zarr format 2 has no names for these formats: arrays of them are Zarr v3 only.

This module imports NumPy and zarr only; minifloat's compiled core is
imported when a minifloat dtype is first needed.
"""
import math
import numbers
import os
import re
import sys
import threading
import warnings
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from zarr.core.dtype.common import HasEndianness, HasItemSize
from zarr.dtype import ZDType, data_type_registry

try:  # newer zarr (its old places warn)
    from zarr.errors import DataTypeValidationError
except ImportError:  # zarr 3.1
    from zarr.core.dtype.common import DataTypeValidationError

__all__ = ["DATA_TYPES", "ZARR_NAMES", "mx_from_zarr", "mx_to_zarr", "register", "to_zarr", "unregister",
           "zarr_data_type"]

# minifloat format -> Zarr v3 data type name (zarr-extensions data-types/),
# the same name each time; every other format is "minifloat.float" or
# "minifloat.int" with its description.
ZARR_NAMES = {name: name for name in (
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz",
    "float8_e4m3", "float8_e3m4", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn",
    "bfloat16", "int2", "int4", "uint2", "uint4")}
FLOAT_NAME = "minifloat.float"
INT_NAME = "minifloat.int"
# the keyword arguments of mf.float_format, in its order
_PARAMETERS = ("name", "exponent_bits", "mantissa_bits", "bias", "signed", "infinities", "nan",
               "negative_zero", "subnormals", "overflow")
_INT_BITS = {"int1": (1, True), "int2": (2, True), "int4": (4, True),
             "uint1": (1, False), "uint2": (2, False), "uint4": (4, False)}
_HEX = re.compile(r"0[xX]([0-9a-fA-F]+)\Z")
_V2_REFUSAL = ("Zarr format 2 has no data type names for minifloat's formats (its dtype field is a NumPy "
               "type string that only minifloat would read): write the array with zarr_format=3")


# --------------------------------------------------------------------------
# minifloat, imported when first needed
# --------------------------------------------------------------------------

def _core_module():
    from . import _core  # (imports the package: the compiled core)

    return _core


def _core_loaded():
    """Whether minifloat's core is imported: until it is, no array can have
    one of its dtypes, and matching a NumPy dtype needs nothing from it."""
    return "minifloat._core" in sys.modules


class _Facts:
    """What encoding scalars needs to know about one format (cached)."""

    __slots__ = ("dtype", "name", "bits", "code_type", "is_int", "signed", "has_nan", "has_inf",
                 "nan_code", "low", "high", "largest")

    def __init__(self, dtype):
        core = _core_module()
        from ._io import _code_type  # the unsigned integer type of one code, as mf.save writes them

        self.dtype = dtype
        self.name = dtype.name
        self.code_type = _code_type(dtype)
        self.is_int = isinstance(dtype, core.IntegerDType)
        if self.is_int:
            self.bits, self.signed = _INT_BITS[dtype.name]
            self.has_nan = self.has_inf = False
            self.nan_code = None
            self.low = -(1 << (self.bits - 1)) if self.signed else 0
            self.high = (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1
            self.largest = self.high
            return
        info = core.format_info(dtype.name)
        self.bits = info["bits"]
        self.signed = info["signed"]
        self.has_nan = info["has_nan"]
        self.has_inf = info["has_inf"]
        with np.errstate(all="ignore"):
            self.nan_code = int(np.array([np.nan]).astype(dtype).view(self.code_type)[0]) if self.has_nan else None
        self.largest = float(np.finfo(dtype).max)
        self.low = self.high = None


_facts_cache = {}


def _facts(dtype):
    facts = _facts_cache.get(dtype)
    if facts is None:
        facts = _facts_cache[dtype] = _Facts(dtype)
    return facts


def _scalar_of_code(facts, code):
    return np.array([code], dtype=facts.code_type).view(facts.dtype)[0]


def _code_of_scalar(facts, scalar):
    code = int(np.array([scalar], dtype=facts.dtype).view(facts.code_type)[0])
    # a sub-byte float ignores the bits above its width: they are not kept
    return code if facts.is_int else code & ((1 << facts.bits) - 1)


def _value_error(facts, value, why):
    return ValueError(f"{value!r} cannot be a {facts.name} fill value: {why}")


def _float_code(facts, value, shown):
    """The code of float `value` in a float format, exactly, or ValueError."""
    if math.isnan(value):
        if not facts.has_nan:
            raise _value_error(facts, shown, f"{facts.name} has no NaN")
        return facts.nan_code
    with np.errstate(all="ignore"):
        rounded = np.array([value], dtype=np.float64).astype(facts.dtype)
    back = float(rounded[0])
    if back == value and math.copysign(1.0, back) == math.copysign(1.0, value):
        return int(rounded.view(facts.code_type)[0])
    if math.isinf(value):
        raise _value_error(facts, shown, f"{facts.name} has no infinity")
    if value == 0:
        what = "no -0 (its zero is unsigned)" if back == 0 else "no zero"
        raise _value_error(facts, shown, f"{facts.name} has {what}")
    if value < 0 and not facts.signed:
        raise _value_error(facts, shown, f"{facts.name} has no negative values")
    if abs(value) > facts.largest:
        raise _value_error(facts, shown, f"beyond {facts.name}'s largest value, {facts.largest:g}")
    raise _value_error(facts, shown, f"not a {facts.name} value (the nearest is {back!r})")


def _int_code(facts, value, shown):
    if not facts.low <= value <= facts.high:
        raise _value_error(facts, shown, f"{facts.name} holds {facts.low} to {facts.high}")
    # stored sign-extended (signed) or zero-extended (unsigned): the int8 /
    # uint8 of the same value
    return int(np.array([value], dtype=np.int16).astype(np.int8 if facts.signed else np.uint8)
               .view(np.uint8)[0])


def _code_of(facts, data, *, from_json):
    """The code of a fill value given as a Python/NumPy number, a minifloat
    scalar, a hex code or a special string; TypeError for other types,
    ValueError for a value the format cannot hold."""
    if isinstance(data, np.generic) and data.dtype == facts.dtype:
        return _code_of_scalar(facts, data)
    if isinstance(data, (bool, np.bool_)):
        raise TypeError(f"a {facts.name} fill value is a number, not {data!r}")
    if isinstance(data, str):
        found = _HEX.match(data)
        if found:
            if facts.is_int:
                raise _value_error(facts, data, "integer fill values are numbers, not codes in hex")
            digits = found.group(1)
            if len(digits) != 2 * facts.dtype.itemsize:
                raise _value_error(facts, data, f"a {facts.name} code in hex has "
                                                f"{2 * facts.dtype.itemsize} digits")
            code = int(digits, 16)
            if code >> facts.bits:
                raise _value_error(facts, data, f"{facts.name} codes have {facts.bits} bits")
            return code
        special = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
        if data in special:
            if facts.is_int:
                raise _value_error(facts, data, f"{facts.name} is an integer type")
            return _float_code(facts, special[data], data)
        if from_json:
            raise _value_error(facts, data, 'a JSON fill value is a number, "NaN", "Infinity", '
                                            '"-Infinity" or a code in hex ("0x..")')
        try:
            number = float(data) if not facts.is_int else int(data)
        except ValueError:
            raise _value_error(facts, data, "not a number") from None
        return _code_of(facts, number, from_json=False)
    if isinstance(data, (numbers.Integral, np.integer)):
        if facts.is_int:
            return _int_code(facts, int(data), data)
        if abs(int(data)) > 2 ** 1024:
            raise _value_error(facts, data, f"beyond {facts.name}'s largest value, {facts.largest:g}")
        value = float(int(data))
        if value != int(data):
            raise _value_error(facts, data, f"not a {facts.name} value")
        if from_json and value == 0 and not _has_zero(facts):
            return 0  # tensorstore's default fill value of float8_e8m0fnu: code 0
        return _float_code(facts, value, data)
    if isinstance(data, (numbers.Real, np.floating)) and not isinstance(data, np.complexfloating):
        value = float(data)
        if facts.is_int:
            if not value.is_integer():
                raise _value_error(facts, data, f"{facts.name} holds integers")
            return _int_code(facts, int(value), data)
        if from_json and value == 0 and not _has_zero(facts):
            return 0
        return _float_code(facts, value, data)
    raise TypeError(f"a {facts.name} fill value is a number, 'NaN', 'Infinity', '-Infinity' or a code in "
                    f"hex, not {type(data).__name__} ({data!r})")


def _has_zero(facts):
    return facts.is_int or _core_module().format_info(facts.name)["has_zero"]


def _json_of_code(facts, code):
    scalar = _scalar_of_code(facts, code)
    if facts.is_int:
        return int(scalar)
    value = float(scalar)
    if math.isnan(value):
        return "NaN" if code == facts.nan_code else f"0x{code:0{2 * facts.dtype.itemsize}x}"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value  # exact: every value is a float32 value


# --------------------------------------------------------------------------
# The data type classes
# --------------------------------------------------------------------------

class _DTypeClassOf:
    """``cls.dtype_cls``: the NumPy DType class, looked up when asked for
    (not at import: that would import minifloat's core)."""

    def __get__(self, instance, owner):
        return owner._dtype_class()


@dataclass(frozen=True, kw_only=True)
class MinifloatZDType(ZDType, HasItemSize):
    """Base of minifloat's zarr data types: scalars, fill values, Zarr v2
    refusal. Subclasses say which format (``_format``) and how its data type
    JSON reads."""

    _zarr_v3_name: ClassVar[str]
    _format: ClassVar = None  # the minifloat format's name, for a named data type
    dtype_cls = _DTypeClassOf()

    # -- the native dtype -------------------------------------------------
    @classmethod
    def _dtype_class(cls):
        return type(cls._named_dtype())

    @classmethod
    def _named_dtype(cls):
        core = _core_module()
        return np.dtype(getattr(core, cls._format))

    def to_native_dtype(self):
        return self._named_dtype()

    @classmethod
    def _check_native_dtype(cls, dtype):
        return _core_loaded() and type(dtype) is type(cls._named_dtype())

    @classmethod
    def from_native_dtype(cls, dtype):
        if cls._check_native_dtype(dtype):
            return cls()
        raise DataTypeValidationError(f"{dtype!r} is not minifloat's {cls._format}")

    @property
    def item_size(self):
        return self.to_native_dtype().itemsize

    # -- data type JSON -------------------------------------------------
    @classmethod
    def _from_json_v2(cls, data):
        raise DataTypeValidationError(_V2_REFUSAL)

    @classmethod
    def _from_json_v3(cls, data):
        name = cls._zarr_v3_name
        if data == name or (isinstance(data, dict) and data.get("name") == name
                            and set(data) <= {"name", "configuration"} and not data.get("configuration")):
            return cls()
        raise DataTypeValidationError(f"{data!r} is not the Zarr data type {name!r}")

    @classmethod
    def _configuration_of(cls, data):
        """The "configuration" of data type JSON that names this data type (of
        the types with parameters; None where it has none); JSON that names
        another one is a DataTypeValidationError."""
        if not (isinstance(data, dict) and data.get("name") == cls._zarr_v3_name):
            raise DataTypeValidationError(f"{data!r} is not the Zarr data type {cls._zarr_v3_name!r}")
        return data.get("configuration")

    def to_json(self, zarr_format):
        if zarr_format == 3:
            return self._zarr_v3_name
        raise ValueError(_V2_REFUSAL)

    # -- scalars --------------------------------------------------------
    def _format_facts(self):
        return _facts(self.to_native_dtype())

    def _check_scalar(self, data):
        try:
            _code_of(self._format_facts(), data, from_json=False)
        except (TypeError, ValueError):
            return False
        return True

    def cast_scalar(self, data):
        facts = self._format_facts()
        return _scalar_of_code(facts, _code_of(facts, data, from_json=False))

    def default_scalar(self):
        return _scalar_of_code(self._format_facts(), 0)

    def from_json_scalar(self, data, *, zarr_format):
        facts = self._format_facts()
        if isinstance(data, bool) or not isinstance(data, (int, float, str)):
            # ValueError, as for a value the format cannot hold: zarr reports
            # both as "Invalid fill_value" with this as the cause
            raise ValueError(f"a {facts.name} fill value in JSON is a number or a string, not {data!r}")
        return _scalar_of_code(facts, _code_of(facts, data, from_json=True))

    def to_json_scalar(self, data, *, zarr_format):
        facts = self._format_facts()
        return _json_of_code(facts, _code_of(facts, data, from_json=False))


@dataclass(frozen=True, kw_only=True)
class _EndianMixin(HasEndianness):
    """Two-byte formats: the ``bytes`` codec records the byte order. minifloat
    holds them in the machine's order only."""

    endianness: str = sys.byteorder

    def _checked_order(self, dtype):
        if self.endianness != sys.byteorder:
            raise ValueError(f"this array stores {dtype.name} {self.endianness}-endian (its bytes codec's "
                             f"'endian'), and minifloat holds {dtype.name} in this machine's byte order "
                             f"({sys.byteorder}) only; rewrite the array with endian '{sys.byteorder}' "
                             f"(e.g. with tensorstore) to read it here")
        return dtype


def _named_class(zarr_name, format_name, class_name):
    wide = format_name == "bfloat16"
    bases = (_EndianMixin, MinifloatZDType) if wide else (MinifloatZDType,)
    namespace = {"_zarr_v3_name": zarr_name, "_format": format_name, "__module__": __name__,
                 "__qualname__": class_name,
                 "__doc__": f"The Zarr v3 data type {zarr_name!r}: minifloat's {format_name}."}
    if wide:
        namespace["to_native_dtype"] = lambda self: self._checked_order(self._named_dtype())
        namespace["from_native_dtype"] = classmethod(_wide_from_native)
    return dataclass(frozen=True, kw_only=True)(type(class_name, bases, namespace))


def _wide_from_native(cls, dtype):
    if cls._check_native_dtype(dtype):
        return cls(endianness=sys.byteorder)
    raise DataTypeValidationError(f"{dtype!r} is not minifloat's {cls._format}")


_CLASS_NAMES = {
    "float8_e4m3fn": "Float8E4M3FN", "float8_e5m2": "Float8E5M2", "float8_e4m3fnuz": "Float8E4M3FNUZ",
    "float8_e5m2fnuz": "Float8E5M2FNUZ", "float8_e4m3b11fnuz": "Float8E4M3B11FNUZ", "float8_e4m3": "Float8E4M3",
    "float8_e3m4": "Float8E3M4", "float8_e8m0fnu": "Float8E8M0FNU", "float6_e2m3fn": "Float6E2M3FN",
    "float6_e3m2fn": "Float6E3M2FN", "float4_e2m1fn": "Float4E2M1FN", "bfloat16": "BFloat16",
    "int2": "Int2", "int4": "Int4", "uint2": "UInt2", "uint4": "UInt4",
}
for _name, _class_name in _CLASS_NAMES.items():
    globals()[_class_name] = _named_class(ZARR_NAMES[_name], _name, _class_name)
del _name, _class_name


# -- formats without a registered name ---------------------------------------

def _json_parameter(value):
    return list(value) if isinstance(value, tuple) else value


def _description_of(dtype):
    """The mf.float_format keywords of a float format, as a tuple of pairs."""
    info = _core_module().format_info(dtype.name)
    return tuple((key, info[key]) for key in _PARAMETERS)


_described = {}  # description -> dtype (a process's formats never change once made)


def _format_of_description(description, shown):
    """The float format a minifloat.float configuration describes (made now
    if this process lacks it), or ValueError saying why not."""
    dtype = _described.get(description)
    if dtype is None:
        dtype = _described[description] = _make_described(description, shown)
    return dtype


def _make_described(description, shown):
    core = _core_module()
    from ._user_formats import _canonical, _generated_name, float_format

    params = dict(description)
    name = params.pop("name")
    if isinstance(params.get("nan"), list):
        params["nan"] = tuple(params["nan"])
    try:
        # a name spelled from the parameters is asked for as float_format spells it (name=None)
        generated = name == _generated_name(_canonical(*(params[key] for key in _PARAMETERS[1:])))
    except (TypeError, ValueError, KeyError):  # bad parameters: float_format says which
        generated = False
    try:
        # float_format checks the parameters first, then refuses a name that a
        # format of other parameters holds (without making anything)
        return float_format(**params, name=None if generated else name)
    except (TypeError, ValueError) as error:
        existing = core._format_dtype(name) if isinstance(name, str) else None
        if existing is not None and str(error).startswith("a minifloat format named"):
            ours = {key: _json_parameter(value) for key, value in _description_of(existing)}
            raise ValueError(f"the array's data type {shown} describes a format named {name!r}, but this "
                             f"process's minifloat format of that name is another one ({ours}); reading it as "
                             "that format would change its values. Rename one of the two formats (the array's "
                             "name is in its zarr.json)") from None
        raise ValueError(f"the array's data type {shown} is not a minifloat format: {error}") from None


@dataclass(frozen=True, kw_only=True)
class MinifloatFloat(MinifloatZDType):
    """``{"name": "minifloat.float", "configuration": {...}}``: a float format
    the registry does not name, by the keyword arguments of mf.float_format
    (and its name). Formats of 9-16 bits are ``MinifloatFloat16``."""

    _zarr_v3_name: ClassVar[str] = FLOAT_NAME
    description: tuple = field(default=())

    def to_native_dtype(self):
        return _format_of_description(self.description, self._shown())

    def _shown(self):
        return repr(self.to_json(3))

    @classmethod
    def _dtype_class(cls):
        return _core_module().MinifloatDType

    @classmethod
    def _check_native_dtype(cls, dtype):
        if not _core_loaded():
            return False
        core = _core_module()
        return isinstance(dtype, core.MinifloatDType) and dtype.name not in ZARR_NAMES \
            and core._format_dtype(dtype.name) == dtype

    @classmethod
    def _make(cls, description, itemsize, **extra):
        return (MinifloatFloat16 if itemsize == 2 else MinifloatFloat)(description=description, **extra)

    @classmethod
    def from_native_dtype(cls, dtype):
        if cls._check_native_dtype(dtype):
            extra = {"endianness": sys.byteorder} if dtype.itemsize == 2 else {}
            return cls._make(_description_of(dtype), dtype.itemsize, **extra)
        raise DataTypeValidationError(f"{dtype!r} is not a minifloat format without a Zarr data type name")

    @classmethod
    def _from_json_v3(cls, data):
        config = cls._configuration_of(data)
        if set(data) != {"name", "configuration"} or not isinstance(config, dict):
            raise ValueError(f"the Zarr data type {data!r} needs a configuration: the format's description "
                             f"({', '.join(_PARAMETERS)})")
        missing = [key for key in _PARAMETERS if key not in config]
        unknown = sorted(set(config) - set(_PARAMETERS))
        if missing or unknown:
            raise ValueError(f"the configuration of the Zarr data type {data!r} "
                             + (f"lacks {', '.join(missing)}" if missing else "")
                             + ("; " if missing and unknown else "")
                             + (f"has unknown keys {', '.join(unknown)}" if unknown else "")
                             + f" (it holds exactly {', '.join(_PARAMETERS)})")
        description = tuple((key, tuple(config[key]) if isinstance(config[key], list) else config[key])
                            for key in _PARAMETERS)
        try:
            hash(description)
        except TypeError:
            raise ValueError(f"the array's data type {data!r} is not a minifloat format: its parameters are "
                             "numbers, strings, booleans and (nan) a list of codes") from None
        # made now, so that an array that cannot be read says so when opened
        dtype = _format_of_description(description, repr(data))
        return cls._make(_description_of(dtype), dtype.itemsize)

    def to_json(self, zarr_format):
        if zarr_format != 3:
            raise ValueError(_V2_REFUSAL)
        return {"name": FLOAT_NAME,
                "configuration": {key: _json_parameter(value) for key, value in self.description}}


@dataclass(frozen=True, kw_only=True)
class MinifloatFloat16(_EndianMixin, MinifloatFloat):
    """A minifloat.float format of 9-16 bits (two bytes per value: the bytes
    codec records the byte order). Not registered itself: MinifloatFloat
    reads its JSON."""

    def to_native_dtype(self):
        return self._checked_order(MinifloatFloat.to_native_dtype(self))


@dataclass(frozen=True, kw_only=True)
class MinifloatInt(MinifloatZDType):
    """``{"name": "minifloat.int", "configuration": {"bits": 1, "signed": true}}``:
    minifloat's int1 and uint1, which the registry does not name."""

    _zarr_v3_name: ClassVar[str] = INT_NAME
    bits: int = 1
    signed: bool = True

    def _type_name(self):
        return f"{'' if self.signed else 'u'}int{self.bits}"

    @classmethod
    def _dtype_class(cls):
        return _core_module().IntegerDType

    def to_native_dtype(self):
        return np.dtype(getattr(_core_module(), self._type_name()))

    @classmethod
    def _check_native_dtype(cls, dtype):
        if not _core_loaded():
            return False
        core = _core_module()
        return isinstance(dtype, core.IntegerDType) and dtype.name in _INT_BITS and dtype.name not in ZARR_NAMES

    @classmethod
    def from_native_dtype(cls, dtype):
        if cls._check_native_dtype(dtype):
            bits, signed = _INT_BITS[dtype.name]
            return cls(bits=bits, signed=signed)
        raise DataTypeValidationError(f"{dtype!r} is not minifloat's int1 or uint1")

    @classmethod
    def _from_json_v3(cls, data):
        config = cls._configuration_of(data)
        if set(data) != {"name", "configuration"} or not isinstance(config, dict) \
                or set(config) != {"bits", "signed"}:
            raise ValueError(f"the Zarr data type {data!r} needs the configuration "
                             '{"bits": <1, 2 or 4>, "signed": <true or false>}')
        bits, signed = config["bits"], config["signed"]
        if not isinstance(signed, bool) or isinstance(bits, bool) or not isinstance(bits, int) \
                or f"{'' if signed else 'u'}int{bits}" not in _INT_BITS:
            raise ValueError(f"the Zarr data type {data!r} is not one of minifloat's integer types "
                             f"({', '.join(_INT_BITS)})")
        return cls(bits=bits, signed=signed)

    def to_json(self, zarr_format):
        if zarr_format != 3:
            raise ValueError(_V2_REFUSAL)
        if self._type_name() in ZARR_NAMES:
            return self._type_name()
        return {"name": INT_NAME, "configuration": {"bits": self.bits, "signed": self.signed}}


# The classes zarr's registry holds (entry points of the zarr.data_type group).
DATA_TYPES = tuple(globals()[name] for name in _CLASS_NAMES.values()) + (MinifloatFloat, MinifloatInt)


def _ours(cls):
    return getattr(cls, "__module__", None) == __name__


def register(*, replace=False):
    """Add minifloat's data types to zarr-python's data type registry.

    Idempotent; importing ``minifloat.zarr`` calls it. A name another
    package registered stays that package's (with a warning) unless
    `replace` is True.

    Parameters
    ----------
    replace : bool, optional
        Take the names other packages hold too.

    Returns
    -------
    list of str
        The Zarr v3 data type names registered.

    Warns
    -----
    UserWarning
        Naming the names another package holds (not taken).

    See Also
    --------
    unregister

    Examples
    --------
    >>> import minifloat as mf
    >>> names = mf.zarr.register()
    >>> names[:3], len(names) == len(mf.zarr.DATA_TYPES)
    (['float8_e4m3fn', 'float8_e5m2', 'float8_e4m3fnuz'], True)
    """
    registered, held = [], []
    for cls in DATA_TYPES:
        holder = data_type_registry.contents.get(cls._zarr_v3_name)
        if holder is not None and holder is not cls and not _ours(holder) and not replace:
            held.append(f"{cls._zarr_v3_name} ({holder.__module__}.{holder.__qualname__})")
            continue
        data_type_registry.register(cls._zarr_v3_name, cls)
        registered.append(cls._zarr_v3_name)
    if held:
        warnings.warn("zarr data type names held by another package stay its own: " + ", ".join(held)
                      + "; minifloat._zarr.register(replace=True) takes them", UserWarning, stacklevel=2)
    return registered


def unregister():
    """Remove minifloat's data types from zarr's data type registry.

    Names other packages hold are left alone; ``register()`` adds them
    back.

    Returns
    -------
    None

    Examples
    --------
    >>> import minifloat as mf
    >>> mf.zarr.unregister()
    >>> _ = mf.zarr.register()
    """
    for cls in DATA_TYPES:
        if _ours(data_type_registry.contents.get(cls._zarr_v3_name)):
            data_type_registry.unregister(cls._zarr_v3_name)


def zarr_data_type(dtype):
    """The zarr data type of a minifloat format.

    Parameters
    ----------
    dtype : minifloat dtype, scalar type or name
        Any minifloat format or integer type (formats of ``float_format``
        too).

    Returns
    -------
    zarr.dtype.ZDType
        Its ``.to_json(3)`` is the ``data_type`` metadata zarr writes.

    Raises
    ------
    TypeError
        If `dtype` is not one of minifloat's dtypes.

    Examples
    --------
    >>> import minifloat as mf
    >>> mf.zarr.zarr_data_type(mf.float8_e4m3fn).to_json(3)
    'float8_e4m3fn'
    >>> mf.zarr.zarr_data_type("int1").to_json(3)
    {'name': 'minifloat.int', 'configuration': {'bits': 1, 'signed': True}}
    """
    from ._dtype_arguments import own_dtype_named

    own = own_dtype_named(dtype)
    resolved = own if own is not None else np.dtype(dtype)
    for cls in DATA_TYPES:
        try:
            return cls.from_native_dtype(resolved)
        except DataTypeValidationError:
            pass
    raise TypeError(f"{resolved} is not one of minifloat's dtypes")


# --------------------------------------------------------------------------
# Writing chunk by chunk with dask
# --------------------------------------------------------------------------
#
# Each dask task reads one chunk of the source, converts it and writes it as
# one zarr chunk (the dask chunks are the zarr chunks, so no two tasks share
# a chunk and no chunk is read back and rewritten). zarr-python puts a chunk
# into a store as one object: LocalStore writes a temporary file
# "<key>.<32 hex digits>.partial" and renames it to the chunk's key, object
# stores put whole objects, so a chunk is either absent or complete, never
# half written. The attributes below say that a write is under way; a rerun
# with resume=True skips the chunks the store holds and writes the others.

_INCOMPLETE = "minifloat_incomplete"  # to_zarr: on the array until its last chunk is written
_MX_ATTRIBUTE = "minifloat_mx"
_MX_INCOMPLETE = "minifloat_mx_incomplete"  # mx_to_zarr: in place of minifloat_mx until the end
_MX_VERSION = 1
_PARTIAL = re.compile(r"\.[0-9a-f]{32}\.partial\Z")  # LocalStore: a chunk whose writing was cut off


class _FileArray:
    """An array in a file (a .npy file, or the file of a NumPy memory map),
    read region by region: a read copies its region out of the file (one
    read() where the region is contiguous in the file, else through a memory
    map made for that read) and keeps nothing mapped. A process reading a 4
    GiB file through one memory map keeps every page it touched resident
    (file pages count in its RSS), and dask's from_array of a memory map
    hashes all of it for a name (the whole file resident, and as much again
    in anonymous memory); this keeps only the regions being converted.
    Pickled (dask.distributed) it is the file's name and layout, not its
    data."""

    def __init__(self, filename, offset, shape, dtype, fortran=False):
        self.filename = os.fspath(filename)
        self.offset = int(offset)
        self.shape = tuple(int(n) for n in shape)
        self.dtype = np.dtype(dtype)
        self.fortran = bool(fortran)

    @property
    def ndim(self):
        return len(self.shape)

    @classmethod
    def of_npy(cls, path):
        mapped = np.load(path, mmap_mode="r", allow_pickle=False)
        if not isinstance(mapped, np.memmap):  # (a .npz file gives an NpzFile)
            getattr(mapped, "close", lambda: None)()
            raise ValueError(f"{os.fspath(path)!r} is not a .npy file")
        found = cls.of_memmap(mapped)
        if found is None:  # an empty array: nothing to read
            return cls(os.path.abspath(path), 0, mapped.shape, mapped.dtype)
        return found

    @classmethod
    def of_memmap(cls, mapped):
        """The file of a NumPy memory map made on a whole file region (as
        np.load and np.memmap make them) that the file reads as (modes r, r+
        and w+; not a copy-on-write map or a view of one); else None."""
        import mmap

        if not (isinstance(mapped, np.memmap) and isinstance(mapped.base, mmap.mmap) and mapped.filename
                and getattr(mapped, "mode", None) in ("r", "r+", "w+")
                and (mapped.flags.c_contiguous or mapped.flags.f_contiguous)):
            return None
        return cls(mapped.filename, mapped.offset, mapped.shape, mapped.dtype,
                   fortran=not mapped.flags.c_contiguous)

    def __dask_tokenize__(self):
        try:
            stat = os.stat(self.filename)
            stamp = (stat.st_size, stat.st_mtime_ns)
        except OSError:
            stamp = None
        return ("minifloat._zarr._FileArray", self.filename, self.offset, self.shape, self.dtype.str,
                self.fortran, stamp)

    def __reduce__(self):
        return type(self), (self.filename, self.offset, self.shape, self.dtype, self.fortran)

    def __getitem__(self, index):
        if 0 in self.shape:
            return np.empty(self.shape, self.dtype)[index]
        region = None if self.fortran else self._region(index)
        if region is not None:
            read = self._read_contiguous(region)
            if read is not None:
                return read
        mapped = np.memmap(self.filename, dtype=self.dtype, mode="r", offset=self.offset, shape=self.shape,
                           order="F" if self.fortran else "C")
        return np.array(mapped[index])  # a copy: the map goes when `mapped` does

    def _region(self, index):
        """[(start, stop)] per axis of a basic index of slices, else None."""
        if not isinstance(index, tuple):
            index = (index,)
        if len(index) > self.ndim or not all(isinstance(s, slice) for s in index):
            return None
        region = []
        for s, n in zip(index + (slice(None),) * (self.ndim - len(index)), self.shape):
            start, stop, step = s.indices(n)
            if step != 1:
                return None
            region.append((start, max(stop, start)))
        return region

    def _read_contiguous(self, region):
        """The region (C order), read with one read() where it is one run of
        the file's bytes; else None."""
        lengths = [stop - start for start, stop in region]
        out = np.empty(lengths, self.dtype)
        if out.size == 0:
            return out
        partial = [axis for axis, (length, n) in enumerate(zip(lengths, self.shape)) if length != n]
        if partial and any(length != 1 for length in lengths[:partial[-1]]):
            return None  # rows of the region lie apart in the file
        first, stride = 0, 1
        for (start, _), n in zip(reversed(region), reversed(self.shape)):
            first += start * stride
            stride *= n
        view = memoryview(out.reshape(-1).view(np.uint8))
        with open(self.filename, "rb", buffering=0) as fh:
            fh.seek(self.offset + first * self.dtype.itemsize)
            done = 0
            while done < len(view):
                count = fh.readinto(view[done:])
                if not count:
                    raise EOFError(f"{self.filename} ends before its array does")
                done += count
        return out


class _InMemory:
    """A NumPy array as a source that dask reads region by region (dask's
    from_array of a NumPy array copies it chunk by chunk into the graph, and
    hashes it, taking time and as much memory again)."""

    def __init__(self, array):
        self.array = array
        self.shape, self.dtype, self.ndim = array.shape, array.dtype, array.ndim

    def __getitem__(self, index):
        return self.array[index]


def _source(source, chunks):
    """(`source` as a dask array in `chunks`, reader). source: a .npy path, a
    NumPy array or memory map, a zarr array, a dask array or another array
    dask reads. The reader (a _FileArray for a file, an _InMemory NumPy array,
    the zarr array) is what a task reads its chunk from; None where dask
    computes the blocks (dask arrays, other array-likes)."""
    import uuid

    import dask.array as da

    try:
        import zarr
    except ImportError:  # pragma: no cover
        zarr = None
    reader = None
    if isinstance(source, (str, os.PathLike)):
        reader = _FileArray.of_npy(os.fspath(source))
    elif isinstance(source, np.ndarray):
        reader = _FileArray.of_memmap(source) or _InMemory(source)
    elif zarr is not None and isinstance(source, zarr.Array):
        reader = source
        if chunks is None:
            chunks = source.chunks
    if isinstance(source, da.Array):
        arr = source
    elif reader is not None:
        # named here: dask would otherwise hash the whole source for a name
        arr = da.from_array(reader, chunks="auto" if chunks is None else chunks, lock=False, asarray=True,
                            name=f"minifloat-source-{uuid.uuid4().hex}",
                            meta=np.empty((0,) * len(reader.shape), reader.dtype))
    else:
        arr = da.from_array(source, chunks="auto" if chunks is None else chunks)
    if chunks is not None:
        arr = arr.rechunk(chunks)
    return arr, reader


def _regular_chunks(arr):
    """The zarr chunk shape of a dask array's chunks (all but the last equal
    along each axis), or ValueError."""
    shape = []
    for axis, sizes in enumerate(arr.chunks):
        if len(set(sizes[:-1])) > 1 or (len(sizes) > 1 and sizes[-1] > sizes[0]):
            raise ValueError(f"the chunks along axis {axis} are {sizes}: a zarr array needs equal chunks "
                             "(the last may be shorter); pass chunks=")
        shape.append(max(sizes[0], 1) if sizes else 1)
    return tuple(shape)


def _check_flags(overwrite, resume):
    for name, value in (("overwrite", overwrite), ("resume", resume)):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, not {value!r}")
    if overwrite and resume:
        raise ValueError("overwrite=True starts the array afresh and resume=True completes the one in the store: "
                         "pass one of them")


def _is_distributed(scheduler):
    """Whether dask runs the tasks on a dask.distributed client."""
    import dask.base

    try:
        get = dask.base.get_scheduler(scheduler=scheduler)
    except Exception:  # a bad scheduler: dask.compute says so
        return False
    owner = getattr(get, "__self__", None)
    return owner is not None and type(owner).__module__.split(".")[0] == "distributed"


def _check_store(store, scheduler):
    """A store in this process's memory cannot take dask.distributed's
    workers' chunks (they would write into copies of it)."""
    import zarr
    from zarr.storage import MemoryStore, StorePath

    inner = store.store if isinstance(store, (zarr.Group, zarr.Array, StorePath)) else store
    if isinstance(inner, (dict, MemoryStore)) and _is_distributed(scheduler):
        raise ValueError("the store is in this process's memory (a zarr MemoryStore or dict), and "
                         "dask.distributed's workers would write into copies of it: write to a path or an object "
                         "store, or use the threaded scheduler (scheduler='threads')")


def _create(store, path, shape, chunks, dtype, fill_value, overwrite, attributes=None):
    import zarr

    register()
    kwargs = {} if fill_value is None else {"fill_value": fill_value}
    if path is None:
        return zarr.create_array(store, shape=shape, chunks=chunks, dtype=dtype, overwrite=overwrite,
                                 attributes=attributes, config={"write_empty_chunks": True}, **kwargs)
    group = store if isinstance(store, zarr.Group) else zarr.open_group(store, mode="a")
    return group.create_array(path, shape=shape, chunks=chunks, dtype=dtype, overwrite=overwrite,
                              attributes=attributes, config={"write_empty_chunks": True}, **kwargs)


def _existing_array(store, path):
    """The array at `store` (and `path` in its group), or None where there is
    no node."""
    import zarr

    try:
        if path is None:
            return zarr.open_array(store, mode="r+")
        group = store if isinstance(store, zarr.Group) else zarr.open_group(store, mode="r+")
        try:
            node = group[path]
        except KeyError:
            return None
    except FileNotFoundError:
        return None
    if not isinstance(node, zarr.Array):
        raise ValueError(f"resume=True: {path!r} in the group is a group, not an array")
    return node


def _summary(meta):
    chunks = meta.get("chunk_grid", {}).get("configuration", {}).get("chunk_shape")
    return (f"shape {tuple(meta.get('shape', ()))}, chunks {tuple(chunks) if chunks else chunks}, data type "
            f"{meta.get('data_type')!r}, fill value {meta.get('fill_value')!r}")


def _prepare(store, path, shape, chunks, dtype, fill_value, overwrite, resume, attributes=None):
    """(the zarr array to write, whether it was in the store already): a new
    array, or with resume=True the one at store/path when there is one of
    this shape, chunks, data type and fill value."""
    import zarr
    from zarr.storage import MemoryStore

    register()
    if resume:
        existing = _existing_array(store, path)
        if existing is not None:
            kwargs = {} if fill_value is None else {"fill_value": fill_value}
            wanted = zarr.create_array(MemoryStore(), shape=shape, chunks=chunks, dtype=dtype,
                                       **kwargs).metadata.to_dict()
            held = existing.metadata.to_dict()
            if held.get("zarr_format") != 3 or any(held.get(key) != wanted.get(key)
                                                   for key in ("shape", "chunk_grid", "data_type", "fill_value")):
                where = "the store's array" if path is None else f"the array {path!r}"
                raise ValueError(f"resume=True: {where} has {_summary(held)}; this write makes {_summary(wanted)}. "
                                 "It is not this write's to complete: overwrite=True replaces it")
            # (a chunk of fill values is written too: its presence says it is done)
            return existing.with_config({"write_empty_chunks": True}), True
    try:
        return _create(store, path, shape, chunks, dtype, fill_value, overwrite, attributes), False
    except zarr.errors.ContainsArrayError as error:
        raise zarr.errors.ContainsArrayError(f"{error} Pass resume=True to complete an interrupted write into "
                                             "it, or overwrite=True to replace it") from None


def _stored_chunks(array, clean):
    """The chunk grid coordinates of the chunks `array`'s store holds. With
    `clean`, LocalStore's temporary files of chunks whose writing was cut off
    are removed."""
    from zarr.core.sync import sync

    store, prefix = array.store_path.store, array.store_path.path

    async def listing():
        return [key async for key in store.list_prefix(prefix)]

    keys = [key for key in sync(listing()) if not prefix or key.startswith(prefix + "/")]
    held = {key[len(prefix) + 1:] if prefix else key for key in keys}
    encode = array.metadata.encode_chunk_key
    done = {index for index in np.ndindex(*array.cdata_shape) if encode(index) in held}
    if clean:
        for key in keys:
            if _PARTIAL.search(key):
                sync(store.delete(key))
    return done


def _set_attributes(node, remove=(), add=None):
    """Rewrite `node`'s attributes (one metadata write) without `remove`,
    with `add`."""
    attrs = node.attrs.asdict()
    new = {key: value for key, value in attrs.items() if key not in remove}
    new.update(add or {})
    if new != attrs:
        node.attrs.put(new)


class _Run:
    """The chunk tasks of one call that run in this process (dask's threaded
    and synchronous schedulers): when a task fails, dask raises at once while
    other threads may still be writing chunks; the call waits for them, and
    the tasks that have not started write nothing, so that once to_zarr or
    mx_to_zarr has raised, the store no longer changes."""

    def __init__(self):
        self.stopped = False
        self.running = 0
        self.changed = threading.Condition()


_RUNS = {}  # run id -> _Run, in the process that called to_zarr / mx_to_zarr


def _new_process_token():
    import uuid

    return os.getpid(), f"{os.getpid()}-{uuid.uuid4().hex}"


_PROCESS = _new_process_token()  # this process's part of its run ids (made anew in a forked process)


def _process_token():
    global _PROCESS
    if _PROCESS[0] != os.getpid():
        _PROCESS = _new_process_token()
    return _PROCESS[1]


def _chunk_task(run_id, function, reader, block, region, *shared):
    process, _ = run_id
    if process != _process_token():  # another process (a dask.distributed worker)
        function(reader, block, region, *shared)
        return
    run = _RUNS.get(run_id)
    if run is None:  # a task dask started after the call had raised: its run is over
        return
    with run.changed:
        if run.stopped:
            return
        run.running += 1
    try:
        function(reader, block, region, *shared)
    finally:
        with run.changed:
            run.running -= 1
            run.changed.notify_all()


def _chunk_tasks(run_id, function, arr, reader, done, shared):
    """One dask task per chunk of `arr` whose index is not in `done`:
    ``function(reader, block, region, *shared)``, reading its chunk from
    `reader` (block None) or getting it from dask (reader None). The task
    functions and their arguments are module-level, so that a
    dask.distributed worker unpickling a task imports this module (which
    registers the data types); `reader` and `shared` are one node of the
    graph each, not copied into every task."""
    import dask

    reader = None if reader is None else dask.delayed(reader, traverse=False)
    shared = [dask.delayed(value, traverse=False) for value in shared]
    blocks = arr.to_delayed() if reader is None else None
    starts = [np.concatenate([[0], np.cumsum(sizes)]).astype(int).tolist() for sizes in arr.chunks]
    tasks = []
    for index in np.ndindex(*arr.numblocks):
        if index in done:
            continue
        region = tuple(slice(s[i], s[i + 1]) for s, i in zip(starts, index))
        block = None if blocks is None else blocks[index]
        tasks.append(dask.delayed(_chunk_task, pure=False)(run_id, function, reader, block, region, *shared))
    return tasks


def _run(function, arr, reader, done, shared, scheduler):
    """Write the chunks of `arr` not in `done` (_chunk_tasks) and return
    when every task that started has ended."""
    import uuid

    import dask

    run_id = (_process_token(), uuid.uuid4().hex)
    tasks = _chunk_tasks(run_id, function, arr, reader, done, shared)
    if not tasks:
        return
    run = _RUNS[run_id] = _Run()
    try:
        dask.compute(*tasks, scheduler=scheduler)
    except BaseException:
        with run.changed:
            run.stopped = True
            run.changed.wait_for(lambda: run.running == 0)
        raise
    finally:
        del _RUNS[run_id]


def _read(reader, block, region):
    return np.asarray(block if reader is None else reader[region])


def _convert_chunk(reader, block, region, out, target):
    _register_once()
    out[region] = _read(reader, block, region).astype(target)


def _quantize_chunk(reader, block, region, elements, scales, fmt, axis, block_size, scale_mode, tensor_scale):
    from . import mx

    _register_once()
    q = mx.quantize(_read(reader, block, region), fmt, axis=axis, block_size=block_size, scale_mode=scale_mode,
                    tensor_scale=tensor_scale)
    elements[region] = q.data  # elements, then scales: a chunk is done when both are there
    start = region[axis].start // block_size
    scales[region[:axis] + (slice(start, start + q.scales.shape[axis]),) + region[axis + 1:]] = q.scales


def _register_once():
    """register() where zarr's registry lacks minifloat's data types (a
    worker process that unpickled a task imported this module, which
    registers them; this covers a registry emptied since)."""
    if data_type_registry.contents.get(FLOAT_NAME) is not MinifloatFloat:
        register()


def to_zarr(source, store, dtype, *, chunks=None, path=None, fill_value=None, overwrite=False, resume=False,
            scheduler=None):
    """Convert an array to a minifloat format chunk by chunk into a new zarr array.

    Each dask task reads one chunk of the source, converts it with
    ``astype(dtype)`` (the bits of converting the whole array in memory)
    and writes it as one zarr chunk, so only the chunks being converted are
    in memory. Empty chunks are written too (``write_empty_chunks``), so no
    NaN payload is replaced by the fill value. Needs dask.

    While it writes, the array has the attribute ``minifloat_incomplete``
    (removed after the last chunk). Each chunk is put whole, so an
    interrupted write leaves whole chunks and missing ones: ``resume=True``
    completes it.

    Parameters
    ----------
    source : str, os.PathLike, ndarray, zarr.Array or dask.array.Array
        A .npy path (read chunk by chunk by each task), a NumPy array or
        memory map, a zarr array or a dask array.
    store : zarr store or path
        Where to write (``zarr.create_array(store, ...)``).
    dtype : minifloat dtype, scalar type or name
        The target format.
    chunks : tuple of ints, optional
        The zarr chunks (default: the dask or zarr array's, else dask's
        "auto").
    path : str, optional
        Write the array `path` of the group at `store`.
    fill_value : scalar, optional
        The array's fill value (default code 0).
    overwrite : bool, optional
        Replace an array in the store.
    resume : bool, optional
        Complete an interrupted write, writing only the chunks the store
        lacks (the array must have this shape, chunks, data type and fill
        value; the source is not checked), or make the array where there
        is none.
    scheduler : optional
        Passed to ``dask.compute`` (None: dask's default; a
        ``distributed.Client``; "threads", "processes", "sync").

    Returns
    -------
    zarr.Array

    Raises
    ------
    TypeError
        If `dtype` is not a minifloat dtype, or a flag is not a bool.
    ValueError
        If the store holds an array and neither `overwrite` nor `resume` is
        given, `resume` finds a different array, or both flags are given.

    See Also
    --------
    mx_to_zarr

    Examples
    --------
    >>> import numpy as np, zarr, minifloat as mf
    >>> z = mf.zarr.to_zarr(np.linspace(0, 1, 10), zarr.storage.MemoryStore(), mf.float8_e4m3fn,
    ...                     chunks=(5,), scheduler="sync")
    >>> z.dtype, z[:3].tolist()
    (float8_e4m3fn, [0.0, 0.109375, 0.21875])
    """
    from ._dtype_arguments import own_dtype_named

    _check_flags(overwrite, resume)
    own = own_dtype_named(dtype)
    target = own if own is not None else np.dtype(dtype)
    arr, reader = _source(source, chunks)
    _check_store(store, scheduler)
    out, existed = _prepare(store, path, arr.shape, _regular_chunks(arr), target, fill_value, overwrite, resume,
                            attributes={_INCOMPLETE: True})
    done = _stored_chunks(out, clean=True) if existed else set()
    if existed and len(done) < math.prod(out.cdata_shape):
        _set_attributes(out, add={_INCOMPLETE: True})
    _run(_convert_chunk, arr, reader, done, (out, target), scheduler)
    _set_attributes(out, remove=(_INCOMPLETE,))
    return out


def _mx_layout(fmt, block_size):
    from . import mx

    name, parameters = mx._format_spec(fmt)
    return name, parameters[4] if block_size is None else int(block_size)


def mx_to_zarr(source, store, fmt=None, *, axis=-1, block_size=None, scale_mode="floor", tensor_scale=None,
               chunks=None, overwrite=False, resume=False, scheduler=None):
    """Block-quantize an array with ``mf.mx.quantize`` chunk by chunk into a zarr group.

    The group holds the arrays ``elements`` (the element codes, one per
    byte, in the element format's zarr data type; MXINT8: int8) and
    ``scales`` (float8_e8m0fnu, NVFP4: float8_e4m3fn), and the attribute
    ``minifloat_mx`` = {format, axis, block_size, tensor_scale (float32 in
    hex, or null), version}. The result is bit-identical to quantizing the
    whole array in memory. Until every chunk is written the group holds the
    attribute ``minifloat_mx_incomplete`` instead, so ``mx_from_zarr``
    refuses a group whose writing was interrupted. Needs dask.

    Parameters
    ----------
    source : str, os.PathLike, ndarray, zarr.Array, dask.array.Array or MXArray
        A .npy path (read chunk by chunk), a NumPy array or memory map, a
        zarr or dask array, or an ``MXArray`` (written as it is; `fmt` and
        the other options then come from it).
    store : zarr store or path
        Where the group goes.
    fmt, axis, block_size, scale_mode, tensor_scale : optional
        As for ``mf.mx.quantize`` (NVFP4's ``tensor_scale="auto"`` takes
        one more pass over the source).
    chunks : tuple of ints, optional
        The chunks; along `axis` they must hold whole blocks (a multiple of
        the block size, the last chunk excepted).
    overwrite : bool, optional
        Replace the group.
    resume : bool, optional
        Complete an interrupted write (the same format, axis, block size,
        scale mode and tensor scale), writing the chunks the store lacks.
    scheduler : optional
        As for ``to_zarr``.

    Returns
    -------
    zarr.Group

    Raises
    ------
    TypeError
        If an argument has the wrong type.
    ValueError
        If a chunk splits a block, the store holds a group and neither
        flag is given, or `resume` finds another description.

    See Also
    --------
    mx_from_zarr, to_zarr

    Examples
    --------
    >>> import numpy as np, zarr, minifloat as mf
    >>> g = mf.zarr.mx_to_zarr(np.ones((4, 64)), zarr.storage.MemoryStore(), "mxfp4_e2m1",
    ...                        chunks=(2, 32), scheduler="sync")
    >>> sorted(g.keys()), g.attrs["minifloat_mx"]["block_size"]
    (['elements', 'scales'], 32)
    """
    from . import mx

    _check_flags(overwrite, resume)
    if isinstance(source, mx.MXArray):
        return _write_mx_array(source, store, chunks, overwrite, resume)
    if fmt is None:
        raise TypeError("mx_to_zarr needs fmt (an MX format name or element dtype) for a source to quantize")
    fmt, block_size = _mx_layout(fmt, block_size)
    if block_size <= 0:
        raise ValueError(f"block_size must be positive, not {block_size}")
    scale_mode = mx._checked_scale_mode(fmt, scale_mode)
    arr, reader = _source(source, chunks)
    if arr.ndim == 0:
        arr = arr.reshape(1)
        if reader is not None:  # (a 0-d source: read whole by dask)
            arr, reader = arr.rechunk(1), None
    axis = np.lib.array_utils.normalize_axis_index(axis, arr.ndim)
    if chunks is None and len(arr.chunks[axis]) > 1 and arr.chunks[axis][0] % block_size:
        # chunks of dask's choosing: rounded to whole blocks
        arr = arr.rechunk({axis: max(block_size, arr.chunks[axis][0] // block_size * block_size)})
    sizes = arr.chunks[axis]
    if any(size % block_size for size in sizes[:-1]):
        raise ValueError(f"chunks of {sizes[0]} along axis {axis} split the {fmt} blocks of {block_size}: "
                         f"each chunk along the block axis must hold whole blocks (a multiple of {block_size}, "
                         "the last chunk excepted)")
    t = None
    if fmt == "nvfp4":
        if isinstance(tensor_scale, str) and tensor_scale == "auto":
            import dask.array as da

            magnitudes = da.abs(arr.astype(np.float32))  # the finite ones, as mx.quantize's "auto"
            amax = np.float32(da.max(da.where(da.isfinite(magnitudes), magnitudes, np.float32(0)))
                              .compute(scheduler=scheduler)) if arr.size else np.float32(0)
            t = mx._tensor_scale(np.array([amax], np.float32), "auto")
        else:
            t = mx._tensor_scale(None, tensor_scale)
    elif tensor_scale is not None:
        raise ValueError("tensor_scale applies to 'nvfp4' only")
    _check_store(store, scheduler)
    chunk_shape = _regular_chunks(arr)
    element_dtype = mx._element_dtype(fmt)
    scale_dtype = mx._scale_dtype(fmt)
    n = arr.shape[axis]
    scale_shape = arr.shape[:axis] + (-(-n // block_size),) + arr.shape[axis + 1:]
    meta = _mx_meta(fmt, axis, block_size, t)
    group = _mx_begin(store, overwrite, resume, meta, scale_mode)
    elements, have_elements = _prepare(group, "elements", arr.shape, chunk_shape, element_dtype, None, overwrite,
                                       resume)
    scales, have_scales = _prepare(group, "scales", scale_shape, _scale_chunks(chunk_shape, axis, block_size),
                                   scale_dtype, None, overwrite, resume)
    done = set()
    if have_elements and have_scales:
        done = _stored_chunks(elements, clean=True) & _stored_chunks(scales, clean=True)
    # a run-time element format travels to worker processes as its dtype (its description), not its name
    fmt_arg = fmt if fmt in mx.FORMATS else element_dtype
    _run(_quantize_chunk, arr, reader, done,
         (elements, scales, fmt_arg, axis, block_size, scale_mode, None if t is None else float(t)), scheduler)
    _set_attributes(group, remove=(_MX_INCOMPLETE,), add={_MX_ATTRIBUTE: meta})  # last: the group is whole
    return group


def _scale_chunks(chunk_shape, axis, block_size):
    """The scales' chunks: one scale chunk per element chunk (a single chunk
    along the axis ending in a partial block included)."""
    return chunk_shape[:axis] + (-(-chunk_shape[axis] // block_size),) + chunk_shape[axis + 1:]


def _mx_meta(fmt, axis, block_size, tensor_scale):
    return {"format": fmt, "axis": int(axis), "block_size": int(block_size),
            "tensor_scale": None if tensor_scale is None else float(tensor_scale).hex(), "version": _MX_VERSION}


def _mx_begin(store, overwrite, resume, meta, scale_mode):
    """The group to write into, holding ``minifloat_mx_incomplete`` (meta and
    the scale mode) and no ``minifloat_mx`` until the write is complete."""
    import zarr

    register()
    pending = {**meta, "scale_mode": scale_mode}
    if isinstance(store, zarr.Group):
        group = store
    elif resume:
        try:
            group = zarr.open_group(store, mode="r+")
        except FileNotFoundError:
            return zarr.create_group(store, attributes={_MX_INCOMPLETE: pending})
    else:
        try:
            return zarr.create_group(store, overwrite=overwrite, attributes={_MX_INCOMPLETE: pending})
        except (zarr.errors.ContainsGroupError, zarr.errors.ContainsArrayError) as error:
            raise type(error)(f"{error} Pass resume=True to complete an interrupted mx_to_zarr into it, or "
                              "overwrite=True to replace it") from None
    attrs = group.attrs.asdict()
    if resume:
        held = attrs.get(_MX_INCOMPLETE)
        if held is None:
            held = attrs.get(_MX_ATTRIBUTE)
        if held is not None and not _same_mx_write(held, pending):
            raise ValueError(f"resume=True: the group holds the MX write {held}, and this one is {pending}: it is "
                             "not this write's to complete (overwrite=True replaces it)")
    elif not overwrite and (_MX_ATTRIBUTE in attrs or _MX_INCOMPLETE in attrs or "elements" in group
                            or "scales" in group):
        raise zarr.errors.ContainsArrayError(
            "the group already holds an MX array (or an array named 'elements' or 'scales'): pass resume=True to "
            "complete an interrupted mx_to_zarr into it, or overwrite=True to replace it")
    _set_attributes(group, remove=(_MX_ATTRIBUTE,), add={_MX_INCOMPLETE: pending})
    return group


def _same_mx_write(held, pending):
    if not isinstance(held, dict):
        return False
    if any(held.get(key) != pending[key] for key in ("format", "axis", "block_size", "tensor_scale", "version")):
        return False
    # the scale mode is not part of minifloat_mx, nor known for an MXArray written as it is
    return held.get("scale_mode") is None or pending["scale_mode"] is None or held["scale_mode"] == pending["scale_mode"]


def _write_mx_array(q, store, chunks, overwrite, resume):
    from . import mx

    shape = q.data.shape
    if chunks is None:
        chunks = shape
    chunks = tuple(int(c) for c in chunks)
    if len(chunks) != len(shape):
        raise ValueError(f"chunks {chunks} do not match the array's {len(shape)} dimensions")
    if chunks[q.axis] % q.block_size and chunks[q.axis] < shape[q.axis]:
        raise ValueError(f"chunks of {chunks[q.axis]} along axis {q.axis} split the {q.format} blocks of "
                         f"{q.block_size}: each chunk along the block axis must hold whole blocks (a multiple "
                         f"of {q.block_size}, the last chunk excepted)")
    meta = _mx_meta(q.format, q.axis, q.block_size, q.tensor_scale)
    group = _mx_begin(store, overwrite, resume, meta, None)
    elements, _ = _prepare(group, "elements", shape, chunks, mx._element_dtype(q.format), None, overwrite, resume)
    scales, _ = _prepare(group, "scales", q.scales.shape, _scale_chunks(chunks, q.axis, q.block_size),
                         mx._scale_dtype(q.format), None, overwrite, resume)
    elements[...] = q.data  # (in memory: a rerun writes it all again)
    scales[...] = q.scales
    _set_attributes(group, remove=(_MX_INCOMPLETE,), add={_MX_ATTRIBUTE: meta})
    return group


def mx_from_zarr(group):
    """Read the ``MXArray`` that ``mx_to_zarr`` stored in a zarr group.

    Parameters
    ----------
    group : zarr.Group, store or path
        The group, or anything ``zarr.open_group`` opens.

    Returns
    -------
    MXArray
        Checked as ``MXArray.from_parts`` checks its parts.

    Raises
    ------
    ValueError
        If the group holds no MX array, or one whose writing did not
        finish.

    See Also
    --------
    mx_to_zarr

    Examples
    --------
    >>> import numpy as np, zarr, minifloat as mf
    >>> store = zarr.storage.MemoryStore()
    >>> _ = mf.zarr.mx_to_zarr(np.ones((4, 64)), store, "nvfp4", chunks=(2, 64), scheduler="sync")
    >>> mf.zarr.mx_from_zarr(store)
    MXArray(format='nvfp4', shape=(4, 64), block_size=16, axis=1, data=float4_e2m1fn, scales=float8_e4m3fn)
    """
    import zarr

    from . import mx

    register()
    if not isinstance(group, zarr.Group):
        group = zarr.open_group(group, mode="r")
    meta = group.attrs.get(_MX_ATTRIBUTE)
    if not isinstance(meta, dict):
        where = group.path or group.store
        if _MX_INCOMPLETE in group.attrs:
            raise ValueError(f"the zarr group {where!r} holds an MX array whose writing did not finish (its "
                             f"attribute {_MX_INCOMPLETE!r}): complete it with mx_to_zarr(<the same source>, ..., "
                             "resume=True), or write it again")
        raise ValueError(f"the zarr group {where!r} holds no MX array (no {_MX_ATTRIBUTE!r} attribute)")
    try:
        version = meta["version"]
        fmt, axis, block_size, tensor_scale = meta["format"], meta["axis"], meta["block_size"], meta["tensor_scale"]
    except KeyError as error:
        raise ValueError(f"the {_MX_ATTRIBUTE!r} attribute lacks {error}") from None
    if version != _MX_VERSION:
        raise ValueError(f"MX group version {version} is not supported (this is {_MX_VERSION})")
    elements = group["elements"][...]  # opening it re-creates a run-time element format
    scales = group["scales"][...]
    if tensor_scale is not None:
        tensor_scale = np.float32(float.fromhex(tensor_scale))
    return mx.MXArray.from_parts(elements, scales, fmt, axis=axis, block_size=block_size,
                                 tensor_scale=tensor_scale)


register()  # importing this module (mf.zarr) is asking for minifloat's zarr data types


def __dir__():
    """The module's API: its imports are not part of it."""
    return sorted(__all__)
