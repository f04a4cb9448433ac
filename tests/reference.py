"""Exact, implementation-independent reference model of the minifloat formats.

This module must never import ``minifloat``: the tests compare the package
against it.  Everything here is written from the format facts and the cast
semantics of the project design notes.

Two layers:

* An exact scalar layer on ``fractions.Fraction`` / Python ints
  (``decode``, ``encode``, ``shortest_reprs``).  It is slow and obviously
  correct; it is used for small sets (every code, every midpoint) and to
  cross-check the fast layer.
* A vectorized NumPy layer (``decode_array``, ``encode_array``,
  ``encode_int_array``).  Every float64 operation in it is exact; the proof
  of each step is written next to it.

Value vocabulary of the scalar layer
------------------------------------
``decode`` returns a ``Fraction`` for finite non-(-0) values, or one of the
string markers ``NAN`` ('nan'), ``POS_INF`` ('+inf'), ``NEG_INF`` ('-inf'),
``NEG_ZERO`` ('-0').  The sign bit of a NaN code is given by ``code_sign``.
``encode`` accepts Fractions, ints, Python/NumPy floats (NaN sign and -0.0
respected), decimal strings, and the markers above plus ``NEG_NAN`` ('-nan').

NaN sign convention when a NaN *code* is decoded: the float's sign is the
code's sign bit.  For the fnuz formats the only NaN is 0x80, so it decodes to
a negative NaN; float8_e8m0fnu has no sign bit, so 0xFF decodes to a positive
NaN.  (This is what ml_dtypes 0.6 does, and the design says to keep ml_dtypes'
bits where the specs are silent.)
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

NAN = "nan"
NEG_NAN = "-nan"
POS_INF = "+inf"
NEG_INF = "-inf"
NEG_ZERO = "-0"

OVERFLOW = "overflow"
INVALID = "invalid"

# --------------------------------------------------------------------------
# The format description
# --------------------------------------------------------------------------
# A format is a description of independent fields (the parameters of
# minifloat.float_format): exponent and mantissa widths, bias, signedness,
# where infinities live (False: none; True: IEEE, the all-ones exponent with
# a zero mantissa; "max": the largest-magnitude codes that are not NaN, as
# P3109), which codes are NaN (False: none; True: IEEE, the all-ones
# exponent with a non-zero mantissa; "all_ones": the all-ones magnitude;
# "negative_zero": the code of -0), whether -0 exists, whether the zero
# exponent field holds zero and subnormals (False: it is a normal binade and
# there is no zero, as float8_e8m0fnu) and what a default cast does on
# overflow ("inf", "nan" or "saturate"; default: inf where the format has
# one, else NaN where it has one, else saturate). Everything below is
# derived from these fields.


def _default_overflow(infinities, nan):
    return "inf" if infinities is not False else ("nan" if nan is not False else "saturate")


@dataclass(frozen=True)
class Fmt:
    name: str
    ebits: int
    mbits: int
    bias: int
    signed: bool = True
    infinities: object = True
    nan: object = True
    neg_zero: bool = True
    subnormals: bool = True
    overflow: str = None

    def __post_init__(self):
        if self.overflow is None:
            object.__setattr__(self, "overflow", _default_overflow(self.infinities, self.nan))

    # ---- derived facts -------------------------------------------------
    @property
    def bits(self) -> int:
        return int(self.signed) + self.ebits + self.mbits

    @property
    def mask(self) -> int:
        return (1 << self.bits) - 1

    @property
    def ncodes(self) -> int:
        return 1 << self.bits

    @property
    def sign_bit(self) -> int:
        return (1 << (self.bits - 1)) if self.signed else 0

    @property
    def mag_mask(self) -> int:
        return self.mask >> 1 if self.signed else self.mask

    @property
    def emin(self) -> int:
        """Exponent of the smallest normal (field 1); without subnormals the
        zero field is normal: exponent -bias."""
        return 1 - self.bias if self.subnormals else -self.bias

    @property
    def all_ones_exponent(self) -> int:
        """Magnitude bits of the all-ones exponent with a zero mantissa."""
        return ((1 << self.ebits) - 1) << self.mbits

    @property
    def nan_from(self) -> int:
        """Magnitudes from here up are NaN (ieee / all_ones NaNs)."""
        if self.nan is True:
            return self.all_ones_exponent + 1
        if self.nan == "all_ones":
            return self.mag_mask
        return self.mag_mask + 1

    @property
    def inf_mag(self) -> int:
        assert self.has_inf
        return self.all_ones_exponent if self.infinities is True else self.nan_from - 1

    @property
    def has_inf(self) -> bool:
        return self.infinities is not False

    @property
    def has_nan(self) -> bool:
        return self.nan is not False

    @property
    def has_neg_zero(self) -> bool:
        return self.neg_zero

    @property
    def has_zero(self) -> bool:
        return self.subnormals

    @property
    def max_mag_code(self) -> int:
        """Magnitude bits of the largest finite value."""
        return self.inf_mag - 1 if self.has_inf else self.nan_from - 1

    @property
    def code_dtype(self):
        return np.dtype(np.uint16) if self.bits > 8 else np.dtype(np.uint8)

    def is_nan_code(self, code: int) -> bool:
        code &= self.mask
        if self.nan == "negative_zero":
            return code == self.sign_bit
        return self.has_nan and (code & self.mag_mask) >= self.nan_from

    def nan_code(self, negative: bool = False) -> int:
        """Code produced when a NaN is converted (for formats with NaN)."""
        sign = self.sign_bit if negative else 0
        if self.nan is True:  # quiet NaN: exponent all ones + mantissa MSB
            return self.all_ones_exponent | (1 << (self.mbits - 1)) | sign
        if self.nan == "all_ones":
            return self.mag_mask | sign
        if self.nan == "negative_zero":
            return self.sign_bit
        raise ValueError(f"{self.name} has no NaN")

    def inf_code(self, negative: bool = False) -> int:
        assert self.has_inf
        return self.inf_mag | (self.sign_bit if negative else 0)

    def max_code(self, negative: bool = False) -> int:
        return self.max_mag_code | (self.sign_bit if negative else 0)

    def zero_code(self, negative: bool = False) -> int:
        assert self.has_zero
        return self.sign_bit if (negative and self.has_neg_zero) else 0

    @property
    def invalid_code(self) -> int:
        """What an input the format has no code for becomes: a negative value
        of an unsigned format, a zero without zero (NaN, else 0)."""
        return self.nan_code() if self.has_nan else 0

    def overflow_code(self, negative: bool, saturate: bool = False) -> int:
        """Code of a finite value beyond the largest one (rounding away)."""
        if saturate or self.overflow == "saturate":
            return self.max_code(negative)
        if self.overflow == "inf":
            return self.inf_code(negative)
        return self.nan_code(negative)

    def params(self) -> dict:
        """The keyword arguments of minifloat.float_format for this format."""
        return dict(exponent_bits=self.ebits, mantissa_bits=self.mbits, bias=self.bias, signed=self.signed,
                    infinities=self.infinities, nan=self.nan, negative_zero=self.neg_zero,
                    subnormals=self.subnormals, overflow=self.overflow)


# Fields shared by the rows below.
_FN = dict(infinities=False, nan="all_ones")                       # no inf, NaN S.111..1
_FNUZ = dict(infinities=False, nan="negative_zero", neg_zero=False)  # NaN 0x80, no -0
_MX = dict(infinities=False, nan=False)                             # FP6/FP4: no inf, no NaN
# P3109: no -0; NaN the code of -0 (signed) or the all-ones code (unsigned);
# extended formats have infinities at the largest codes, finite ones none
_P3109_SE = dict(nan="negative_zero", neg_zero=False, infinities="max")
_P3109_SF = dict(nan="negative_zero", neg_zero=False, infinities=False)
_P3109_UE = dict(signed=False, nan="all_ones", neg_zero=False, infinities="max")
_P3109_UF = dict(signed=False, nan="all_ones", neg_zero=False, infinities=False)

FORMATS_LIST = (
    Fmt("float8_e4m3fn", 4, 3, 7, **_FN),
    Fmt("float8_e4m3fnuz", 4, 3, 8, **_FNUZ),
    Fmt("float8_e5m2", 5, 2, 15),
    Fmt("float8_e5m2fnuz", 5, 2, 16, **_FNUZ),
    Fmt("float8_e4m3", 4, 3, 7),
    Fmt("float8_e3m4", 3, 4, 3),
    Fmt("float8_e4m3b11fnuz", 4, 3, 11, **_FNUZ),
    Fmt("float8_e8m0fnu", 8, 0, 127, signed=False, infinities=False, nan="all_ones", neg_zero=False,
        subnormals=False),
    Fmt("float6_e2m3fn", 2, 3, 1, **_MX),
    Fmt("float6_e3m2fn", 3, 2, 3, **_MX),
    Fmt("float4_e2m1fn", 2, 1, 1, **_MX),
    Fmt("bfloat16", 8, 7, 127),
    # IEEE P3109 binary8p<P><s|u><e|f> (interim report)
    Fmt("binary8p1se", 7, 0, 64, **_P3109_SE),
    Fmt("binary8p1sf", 7, 0, 64, **_P3109_SF),
    Fmt("binary8p1ue", 8, 0, 128, **_P3109_UE),
    Fmt("binary8p1uf", 8, 0, 128, **_P3109_UF),
    Fmt("binary8p2se", 6, 1, 32, **_P3109_SE),
    Fmt("binary8p2sf", 6, 1, 32, **_P3109_SF),
    Fmt("binary8p2ue", 7, 1, 64, **_P3109_UE),
    Fmt("binary8p2uf", 7, 1, 64, **_P3109_UF),
    Fmt("binary8p3se", 5, 2, 16, **_P3109_SE),
    Fmt("binary8p3sf", 5, 2, 16, **_P3109_SF),
    Fmt("binary8p3ue", 6, 2, 32, **_P3109_UE),
    Fmt("binary8p3uf", 6, 2, 32, **_P3109_UF),
    Fmt("binary8p4se", 4, 3, 8, **_P3109_SE),
    Fmt("binary8p4sf", 4, 3, 8, **_P3109_SF),
    Fmt("binary8p4ue", 5, 3, 16, **_P3109_UE),
    Fmt("binary8p4uf", 5, 3, 16, **_P3109_UF),
    Fmt("binary8p5se", 3, 4, 4, **_P3109_SE),
    Fmt("binary8p5sf", 3, 4, 4, **_P3109_SF),
    Fmt("binary8p5ue", 4, 4, 8, **_P3109_UE),
    Fmt("binary8p5uf", 4, 4, 8, **_P3109_UF),
    Fmt("binary8p6se", 2, 5, 2, **_P3109_SE),
    Fmt("binary8p6sf", 2, 5, 2, **_P3109_SF),
    Fmt("binary8p6ue", 3, 5, 4, **_P3109_UE),
    Fmt("binary8p6uf", 3, 5, 4, **_P3109_UF),
    Fmt("binary8p7se", 1, 6, 1, **_P3109_SE),
    Fmt("binary8p7sf", 1, 6, 1, **_P3109_SF),
    Fmt("binary8p7ue", 2, 6, 2, **_P3109_UE),
    Fmt("binary8p7uf", 2, 6, 2, **_P3109_UF),
)
FORMATS = {f.name: f for f in FORMATS_LIST}
FORMAT_NAMES = tuple(f.name for f in FORMATS_LIST)
EIGHT_BIT = tuple(f.name for f in FORMATS_LIST if f.bits <= 8)

_F = Fraction
_2 = Fraction(2)

# Literal values copied from the design notes' table, used to cross-check the
# parameters above (see check_table()).
EXPECTED_FINFO = {
    #  name: (max, min normal, min subnormal, eps)
    "float8_e4m3fn": (_F(448), _2**-6, _2**-9, _2**-3),
    "float8_e4m3fnuz": (_F(240), _2**-7, _2**-10, _2**-3),
    "float8_e5m2": (_F(57344), _2**-14, _2**-16, _2**-2),
    "float8_e5m2fnuz": (_F(57344), _2**-15, _2**-17, _2**-2),
    "float8_e4m3": (_F(240), _2**-6, _2**-9, _2**-3),
    "float8_e3m4": (_F(31, 2), _2**-2, _2**-6, _2**-4),
    "float8_e4m3b11fnuz": (_F(30), _2**-10, _2**-13, _2**-3),
    "float8_e8m0fnu": (_2**127, _2**-127, None, _F(1)),
    "float6_e2m3fn": (_F(15, 2), _F(1), _2**-3, _2**-3),
    "float6_e3m2fn": (_F(28), _2**-2, _2**-4, _2**-2),
    "float4_e2m1fn": (_F(6), _F(1), _2**-1, _2**-1),
    # the notes say "≈3.3895e38": the exact value is (2 - 2^-7) * 2^127
    "bfloat16": ((2 - _2**-7) * _2**127, _2**-126, _2**-133, _2**-7),
    # P3109 interim report, value tables (K8): largest finite value (the code
    # below the infinity in extended formats), smallest normal and subnormal
    "binary8p1se": (_2**62, _2**-63, _2**-63, _2**0),
    "binary8p1sf": (_2**63, _2**-63, _2**-63, _2**0),
    "binary8p1ue": (_2**125, _2**-127, _2**-127, _2**0),
    "binary8p1uf": (_2**126, _2**-127, _2**-127, _2**0),
    "binary8p2se": (_F(2147483648), _2**-31, _2**-32, _2**-1),
    "binary8p2sf": (_F(3221225472), _2**-31, _2**-32, _2**-1),
    "binary8p2ue": (_F(3, 2) * _2**62, _2**-63, _2**-64, _2**-1),
    "binary8p2uf": (_2**63, _2**-63, _2**-64, _2**-1),
    "binary8p3se": (_F(49152), _2**-15, _2**-17, _2**-2),
    "binary8p3sf": (_F(57344), _2**-15, _2**-17, _2**-2),
    "binary8p3ue": (_F(2684354560), _2**-31, _2**-33, _2**-2),
    "binary8p3uf": (_F(3221225472), _2**-31, _2**-33, _2**-2),
    "binary8p4se": (_F(224), _2**-7, _2**-10, _2**-3),
    "binary8p4sf": (_F(240), _2**-7, _2**-10, _2**-3),
    "binary8p4ue": (_F(53248), _2**-15, _2**-18, _2**-3),
    "binary8p4uf": (_F(57344), _2**-15, _2**-18, _2**-3),
    "binary8p5se": (_F(15), _2**-3, _2**-7, _2**-4),
    "binary8p5sf": (_F(31, 2), _2**-3, _2**-7, _2**-4),
    "binary8p5ue": (_F(232), _2**-7, _2**-11, _2**-4),
    "binary8p5uf": (_F(240), _2**-7, _2**-11, _2**-4),
    "binary8p6se": (_F(31, 8), _2**-1, _2**-6, _2**-5),
    "binary8p6sf": (_F(63, 16), _2**-1, _2**-6, _2**-5),
    "binary8p6ue": (_F(61, 4), _2**-3, _2**-8, _2**-5),
    "binary8p6uf": (_F(31, 2), _2**-3, _2**-8, _2**-5),
    "binary8p7se": (_F(63, 32), _2**0, _2**-6, _2**-6),
    "binary8p7sf": (_F(127, 64), _2**0, _2**-6, _2**-6),
    "binary8p7ue": (_F(125, 32), _2**-1, _2**-7, _2**-6),
    "binary8p7uf": (_F(63, 16), _2**-1, _2**-7, _2**-6),
}

# Quiet-NaN codes given literally by the cast rules (positive, negative).
EXPECTED_NAN_CODES = {
    "float8_e5m2": (0x7E, 0xFE),
    "float8_e4m3": (0x7C, 0xFC),
    "float8_e3m4": (0x78, 0xF8),
    "bfloat16": (0x7FC0, 0xFFC0),
    "float8_e4m3fn": (0x7F, 0xFF),
    "float8_e4m3fnuz": (0x80, 0x80),
    "float8_e5m2fnuz": (0x80, 0x80),
    "float8_e4m3b11fnuz": (0x80, 0x80),
    "float8_e8m0fnu": (0xFF, 0xFF),
    # P3109: the code of -0 (signed), the all-ones code (unsigned)
    "binary8p1se": (0x80, 0x80),
    "binary8p1sf": (0x80, 0x80),
    "binary8p1ue": (0xFF, 0xFF),
    "binary8p1uf": (0xFF, 0xFF),
    "binary8p2se": (0x80, 0x80),
    "binary8p2sf": (0x80, 0x80),
    "binary8p2ue": (0xFF, 0xFF),
    "binary8p2uf": (0xFF, 0xFF),
    "binary8p3se": (0x80, 0x80),
    "binary8p3sf": (0x80, 0x80),
    "binary8p3ue": (0xFF, 0xFF),
    "binary8p3uf": (0xFF, 0xFF),
    "binary8p4se": (0x80, 0x80),
    "binary8p4sf": (0x80, 0x80),
    "binary8p4ue": (0xFF, 0xFF),
    "binary8p4uf": (0xFF, 0xFF),
    "binary8p5se": (0x80, 0x80),
    "binary8p5sf": (0x80, 0x80),
    "binary8p5ue": (0xFF, 0xFF),
    "binary8p5uf": (0xFF, 0xFF),
    "binary8p6se": (0x80, 0x80),
    "binary8p6sf": (0x80, 0x80),
    "binary8p6ue": (0xFF, 0xFF),
    "binary8p6uf": (0xFF, 0xFF),
    "binary8p7se": (0x80, 0x80),
    "binary8p7sf": (0x80, 0x80),
    "binary8p7ue": (0xFF, 0xFF),
    "binary8p7uf": (0xFF, 0xFF),
}
# NaN into fp6/fp4 (no NaN): positive NaN -> code of -0, negative NaN -> +0.
EXPECTED_NAN_NONE = {"float6_e2m3fn": 0x20, "float6_e3m2fn": 0x20, "float4_e2m1fn": 0x8}


# --------------------------------------------------------------------------
# Formats from mf.float_format's parameters
# --------------------------------------------------------------------------


def describe(*, exponent_bits, mantissa_bits, bias=None, signed=True, infinities=True, nan=True,
             negative_zero=True, subnormals=True, overflow=None, name=None) -> Fmt:
    """The format minifloat.float_format(...) describes, or ValueError when
    the parameters do not describe one: written from what each parameter
    means for the codes, independently of the package."""
    e, m = exponent_bits, mantissa_bits
    if bias is None:
        bias = 2 ** (e - 1) - 1
    f = Fmt(name or "user", e, m, bias, signed, infinities, nan, negative_zero, subnormals, overflow)
    if e < 1 or m < 0 or not 2 <= f.bits <= 16:
        raise ValueError("widths")
    if nan is True and m == 0:
        raise ValueError("IEEE NaNs need a mantissa bit")
    if infinities is True:
        # the all-ones exponent's other codes must be NaN, and it not
        if not (f.nan_from <= f.all_ones_exponent + 1 and f.all_ones_exponent < f.nan_from):
            raise ValueError("IEEE infinities need the rest of the all-ones exponent to be NaN")
    if nan == "negative_zero" and not (signed and subnormals and not negative_zero):
        raise ValueError("the NaN of the -0 code needs a sign, a zero and no -0")
    if negative_zero and not (signed and subnormals and nan != "negative_zero"):
        raise ValueError("-0 needs a sign, a zero and its code")
    if not negative_zero and signed and subnormals and nan != "negative_zero":
        raise ValueError("the code of -0 would mean nothing")
    if not subnormals and nan is False:
        raise ValueError("without zero, zero inputs need a NaN")
    if (f.overflow == "inf" and not f.has_inf) or (f.overflow == "nan" and not f.has_nan):
        raise ValueError("overflow to a special the format lacks")
    if f.max_mag_code < (1 if subnormals else 0):
        raise ValueError("no positive finite value")
    top = (f.max_mag_code >> m) - bias
    bottom = (1 - bias - m) if subnormals else -bias
    if top > 127 or bottom < -149:
        raise ValueError("values beyond float32")
    return f


def meaning(f: Fmt):
    """What the format's codes mean, whatever the spelling: equal meanings
    are the same format (and must be the same dtype). The NaN codes are the
    code of -0 or the magnitudes from nan_from up, the infinities inf_mag."""
    return (f.ebits, f.mbits, f.bias, f.signed, f.has_neg_zero, f.subnormals, f.overflow,
            f.inf_mag if f.has_inf else None, f.nan == "negative_zero", f.nan_from)


# Every spelling of the parameters other than the widths and bias.
FLAG_SPACE = dict(signed=(True, False), infinities=(False, True, "max"),
                  nan=(False, True, "all_ones", "negative_zero"), negative_zero=(True, False),
                  subnormals=(True, False), overflow=(None, "inf", "nan", "saturate"))


def parameter_sweep(shapes):
    """For each (exponent_bits, mantissa_bits, bias or None): every
    combination of the other parameters, as (params, Fmt or the ValueError
    the package must raise)."""
    keys = list(FLAG_SPACE)
    for e, m, bias in shapes:
        for values in itertools.product(*FLAG_SPACE.values()):
            params = dict(exponent_bits=e, mantissa_bits=m, bias=bias, **dict(zip(keys, values)))
            try:
                yield params, describe(**params)
            except ValueError as problem:
                yield params, problem


def fmt_of(f) -> Fmt:
    return f if isinstance(f, Fmt) else FORMATS[f]


# --------------------------------------------------------------------------
# Exact scalar layer
# --------------------------------------------------------------------------


def code_sign(fmt, code: int) -> bool:
    fmt = fmt_of(fmt)
    return bool((code & fmt.mask) & fmt.sign_bit)


def decode(fmt, code: int):
    """Exact value of ``code`` (high bits beyond the format width ignored)."""
    fmt = fmt_of(fmt)
    code = int(code) & fmt.mask
    if fmt.is_nan_code(code):
        return NAN
    neg = bool(code & fmt.sign_bit)
    mag = code & fmt.mag_mask
    if fmt.has_inf and mag == fmt.inf_mag:
        return NEG_INF if neg else POS_INF
    field = mag >> fmt.mbits
    mant = mag & ((1 << fmt.mbits) - 1)
    if field == 0 and fmt.subnormals:
        v = mant * _2 ** (fmt.emin - fmt.mbits)
    else:
        v = ((1 << fmt.mbits) + mant) * _2 ** (field - fmt.bias - fmt.mbits)
    if v == 0 and neg:
        return NEG_ZERO
    return -v if neg else v


def decode_float(fmt, code: int) -> float:
    """decode() as a Python float (exact: every value is a float64)."""
    v = decode(fmt, code)
    if v == NAN:
        return -math.nan if code_sign(fmt, code) else math.nan
    if v == POS_INF:
        return math.inf
    if v == NEG_INF:
        return -math.inf
    if v == NEG_ZERO:
        return -0.0
    f = float(v)  # Fraction.__float__ is correctly rounded; checked exact:
    assert Fraction(f) == v
    return f


def _classify(value):
    """-> (kind, negative, magnitude) with kind in {'nan', 'inf', 'finite'}."""
    if isinstance(value, str):
        s = value.strip()
        low = s.lower()
        if low in (NAN, "+nan"):
            return "nan", False, None
        if low == NEG_NAN:
            return "nan", True, None
        if low in ("inf", "+inf", "infinity", "+infinity"):
            return "inf", False, None
        if low in ("-inf", "-infinity"):
            return "inf", True, None
        q = Fraction(s)  # exact decimal parsing
        neg = s.startswith("-")
        return "finite", neg, abs(q)
    if isinstance(value, (bool, np.bool_)):
        return "finite", False, Fraction(int(value))
    if isinstance(value, (int, np.integer)):
        v = int(value)
        return "finite", v < 0, Fraction(abs(v))
    if isinstance(value, Fraction):
        return "finite", value < 0, abs(value)
    if isinstance(value, (float, np.floating)):
        neg = bool(np.signbit(value))
        if np.isnan(value):
            return "nan", neg, None
        if np.isinf(value):
            return "inf", neg, None
        # as_integer_ratio is exact for float, float16/32/64 and longdouble
        return "finite", neg, abs(Fraction(*value.as_integer_ratio()))
    raise TypeError(f"cannot classify {value!r}")


def floor_log2(q: Fraction) -> int:
    """floor(log2(q)) for q > 0, exactly."""
    n, d = q.numerator, q.denominator
    e = n.bit_length() - d.bit_length()  # q in (2^(e-1), 2^(e+1))
    if q < _2**e:
        e -= 1
    return e


def round_half_even(q: Fraction) -> int:
    fl = math.floor(q)
    r = q - fl
    if r > Fraction(1, 2):
        return fl + 1
    if r < Fraction(1, 2):
        return fl
    return fl + (fl & 1)


def rounded_magnitude(fmt, q: Fraction) -> int:
    """Magnitude bits of q > 0 rounded once to nearest, ties to the even
    significand n (with M >= 1 the even code; with a 1-bit significand, M = 0,
    a tie between powers of two goes to the larger one, and one between 0
    and the smallest value to 0); may exceed max_mag_code (overflow).
    Without subnormals, values below the smallest one (the zero field's
    2^-bias) take it: there is no zero."""
    M = fmt.mbits
    if not fmt.subnormals:
        if q < _2**fmt.emin:
            return 0
        e = floor_log2(q)
        n = round_half_even(q / _2 ** (e - M))  # in [2^M, 2^(M+1)]
        return (e - fmt.emin) * (1 << M) + n - (1 << M)
    e = max(floor_log2(q), fmt.emin)
    n = round_half_even(q / _2 ** (e - M))
    # n in [0, 2^(M+1)]; field 0 holds the subnormals of binade emin, field 1
    # its normals, and a carry n == 2^(M+1) lands on mantissa 0 of the next field
    return (e - fmt.emin) * (1 << M) + n


def encode(fmt, value, saturate: bool = False):
    """Round ``value`` once (RNE) into ``fmt``.  Returns (code, flags)."""
    fmt = fmt_of(fmt)
    kind, neg, q = _classify(value)

    if kind == "nan":
        if not fmt.has_nan:
            # ml_dtypes' bits: +NaN -> code of -0, -NaN -> +0; invalid.
            return (0 if neg else fmt.sign_bit), frozenset({INVALID})
        return fmt.nan_code(neg), frozenset()
    if neg and not fmt.signed:
        # no negative values: invalid, unless the value rounds to zero
        if kind == "finite" and fmt.has_zero and (q == 0 or rounded_magnitude(fmt, q) == 0):
            return 0, frozenset()
        return fmt.invalid_code, frozenset({INVALID})
    if kind == "finite" and q == 0 and not fmt.has_zero:
        return fmt.invalid_code, frozenset({INVALID})
    if kind == "inf":
        if saturate:
            return fmt.max_code(neg), frozenset()
        if fmt.has_inf:
            return fmt.inf_code(neg), frozenset()
        return fmt.overflow_code(neg), frozenset({INVALID})

    # finite
    if q == 0:
        return fmt.zero_code(neg), frozenset()
    mag = rounded_magnitude(fmt, q)
    if mag > fmt.max_mag_code:
        if saturate:
            return fmt.max_code(neg), frozenset()
        return fmt.overflow_code(neg), frozenset({OVERFLOW})
    if mag == 0 and fmt.has_zero:
        return fmt.zero_code(neg), frozenset()
    return mag | (fmt.sign_bit if neg else 0), frozenset()


def encode_code(fmt, value, saturate=False) -> int:
    return encode(fmt, value, saturate)[0]


def convert(src, dst, code: int, saturate=False):
    """Format-to-format cast of one code: exact decode, single rounding."""
    src = fmt_of(src)
    v = decode(src, code)
    if v == NAN:
        v = NEG_NAN if code_sign(src, code) else NAN
    return encode(dst, v, saturate)


def finite_values(fmt):
    """Sorted list of (Fraction, code) for every finite code (+0 only once)."""
    fmt = fmt_of(fmt)
    out = {}
    for c in range(fmt.ncodes):
        v = decode(fmt, c)
        if isinstance(v, Fraction):
            out.setdefault(v, c)
    return sorted(out.items())


def value_set(fmt) -> frozenset:
    """Every finite value of the format (as Fractions; -0 counts as 0)."""
    return _value_set(fmt_of(fmt))


@lru_cache(maxsize=None)
def _value_set(fmt) -> frozenset:
    return frozenset(v for v, _ in finite_values(fmt))


def finfo_expected(name):
    """finfo constants derived from the value set (exact Fractions)."""
    fmt = fmt_of(name)
    vals = sorted(value_set(fmt))
    pos = [v for v in vals if v > 0]
    mx = pos[-1]
    smallest_normal = _2**fmt.emin
    smallest_subnormal = pos[0]  # without subnormals: the smallest value
    one = vals.index(Fraction(1))
    eps = vals[one + 1] - 1
    epsneg = 1 - vals[one - 1]
    return dict(
        max=mx,
        min=vals[0],  # the lowest value: -max, 0 (unsigned) or the smallest (no zero)
        smallest_normal=smallest_normal,
        tiny=smallest_normal,
        smallest_subnormal=smallest_subnormal,
        eps=eps,
        epsneg=epsneg,
        bits=fmt.bits,
        nmant=fmt.mbits,
        maxexp=floor_log2(mx) + 1,  # smallest power of 2 that overflows
        minexp=floor_log2(smallest_normal),
    )


def check_table():
    """Cross-check the parameter table against the literal facts."""
    assert set(EXPECTED_FINFO) == set(FORMATS), "every built-in format states its finfo facts"
    for f in FORMATS_LIST:
        mx, mn, ms, eps = EXPECTED_FINFO[f.name]
        got = finfo_expected(f.name)
        assert got["max"] == mx, f.name
        assert got["smallest_normal"] == mn, f.name
        if ms is not None:
            assert got["smallest_subnormal"] == ms, f.name
        assert got["eps"] == eps, f.name
        if f.name in EXPECTED_NAN_CODES:
            p, n = EXPECTED_NAN_CODES[f.name]
            assert encode(f, NAN)[0] == p and encode(f, NEG_NAN)[0] == n, f.name
        else:
            assert encode(f, NAN)[0] == EXPECTED_NAN_NONE[f.name]
            assert encode(f, NEG_NAN)[0] == 0
    # the example given literally in the rules
    assert encode("float8_e4m3fn", 464)[0] == 0x7E
    assert encode("float8_e4m3fn", 465) == (0x7F, frozenset({OVERFLOW}))
    return True


# --------------------------------------------------------------------------
# Shortest round-trip decimal (scalar str/repr)
# --------------------------------------------------------------------------


def _pow10(k: int) -> Fraction:
    return Fraction(10) ** k


def shortest_reprs(fmt, code: int, overflow_ok: bool = True):
    """All acceptable str(s) for the scalar with this code.

    The shortest decimal d (fewest significant digits) such that rounding d
    into the format gives ``code`` back; among those of that length the
    closest to the value; printed as Python's ``repr(float(d))``.  Usually a
    single string; two if two decimals of that length are equally close
    (the rules do not say which one to print then).

    For fp6/fp4 an overflowing decimal saturates to max, so "8.0" reads back
    as float6_e2m3fn's max 7.5 (with an overflow flag).  ``overflow_ok=False``
    does not count such decimals as round-tripping ("7.5").
    """
    fmt = fmt_of(fmt)
    code &= fmt.mask
    v = decode(fmt, code)
    if v == NAN:
        return ["nan"]
    if v == POS_INF:
        return ["inf"]
    if v == NEG_INF:
        return ["-inf"]
    if v == NEG_ZERO:
        return ["-0.0"]
    if v == 0:
        return ["0.0"]
    neg = v < 0
    q = abs(v)
    k10 = math.floor(math.log10(q))  # may be off by one; harmless below
    for ndig in range(1, 40):
        unit = _pow10(k10 - ndig + 1)
        lo = math.floor(q / unit) * unit
        cands = {lo, lo + unit}
        good = []
        for d in cands:
            if d == 0:
                continue
            c2, fl = encode(fmt, -d if neg else d)
            if c2 == code and (overflow_ok or OVERFLOW not in fl):
                good.append(d)
        if good:
            best = min(abs(d - q) for d in good)
            picks = sorted(d for d in good if abs(d - q) == best)
            return [repr(float(-d if neg else d)) for d in picks]
    raise AssertionError("no decimal found")


# --------------------------------------------------------------------------
# Vectorized layer
# --------------------------------------------------------------------------


@lru_cache(maxsize=None)
def _decode_table(fmt) -> np.ndarray:
    fmt = fmt_of(fmt)
    t = np.array([decode_float(fmt, c) for c in range(fmt.ncodes)], dtype=np.float64)
    t.setflags(write=False)
    return t


def decode_array(fmt, codes) -> np.ndarray:
    """float64 array of the exact values of ``codes`` (table lookup)."""
    fmt = fmt_of(fmt)
    codes = np.asarray(codes).astype(np.int64) & fmt.mask
    return _decode_table(fmt)[codes]


def encode_array(fmt, x, saturate: bool = False):
    """Vectorized encode() of a float16/float32/float64 array.

    Returns ``(codes, flags)``: codes has dtype uint8 (uint16 for bfloat16)
    and the shape of ``x``; flags is ``{"overflow": bool array, "invalid":
    bool array}``.

    Exactness argument (every step is exact, so the result is the correct
    single rounding of the source value):

    1. ``x.astype(float64)`` for float16/float32 input is exact: both are
       subsets of float64.  The sign is read from the *source* (np.signbit
       works on NaN and -0.0), so nothing depends on how the NaN widens.
    2. ``a = abs(x64)`` is exact (clears the sign bit).
    3. ``m, ex = frexp(a)`` is an exact decomposition a = m * 2**ex with
       m in [0.5, 1) (also for float64 subnormals), so e = ex - 1 is
       exactly floor(log2(a)).
    4. ep = max(e, emin) and y = ldexp(a, M - ep), i.e. y = a * 2**(M-ep):
       - if ep = e, y lies in [2**M, 2**(M+1)) -- a normal float64; scaling a
         float64 by a power of two is exact whenever the result is a normal
         float64 (only the exponent changes);
       - if ep = emin > e (target subnormal range), M - emin >= 1 for every
         format here, so y = a * 2**k with k >= 1 and y < 2**M: multiplying
         by 2**k >= 1 cannot drop bits (the significand is shifted towards
         the normal range, never out of the 53-bit field), and cannot
         overflow.
       So y equals a / 2**(ep - M) exactly: the position of a on the
       target's grid in units of its quantum 2**(ep-M).
    5. N = rint(y): IEEE roundToIntegralTiesToEven under the default
       round-to-nearest-even mode; |y| < 2**(M+1) <= 2**8 so the integer is
       exactly representable.  This is the single RNE rounding.
    6. mag = (ep - emin) * 2**M + N in int64 (exact integer arithmetic) is the
       code's magnitude field, with the carry N = 2**(M+1) landing on the
       next exponent field; overflow iff mag > max_mag_code, which is the
       "round with unbounded exponent, then compare to max" rule.

    Without subnormals (float8_e8m0fnu): k = ex - 1 = floor(log2(a)),
    y = ldexp(a, M - k) in [2**M, 2**(M+1)) (a power-of-two scaling to a
    normal float64: exact), N = rint(y), and the magnitude is
    (k - emin) * 2**M + N - 2**M (the zero field is a normal binade, its
    implicit bit is not part of the code; M = 0: a tie goes to the larger
    power of two, as RNE on a 1-bit significand); every positive value
    below 2**emin gives magnitude 0, the smallest value.

    Unsigned formats: a negative value is invalid (NaN, else 0) unless it
    rounds to zero; without zero, zero is invalid too.
    """
    fmt = fmt_of(fmt)
    x = np.asarray(x)
    if x.dtype not in (np.float16, np.float32, np.float64):
        raise TypeError(f"encode_array needs float16/32/64, got {x.dtype}")
    shape = x.shape
    x = x.reshape(-1)
    neg = np.signbit(x)
    with np.errstate(invalid="ignore"):  # signalling NaNs quieten on widening
        x64 = x.astype(np.float64)  # step 1
    a = np.abs(x64)  # step 2
    isnan = np.isnan(a)
    isinf = np.isinf(a)
    fin = ~(isnan | isinf)
    a = np.where(fin, a, 0.0)
    zero = fin & (a == 0.0)
    m, ex = np.frexp(a)  # step 3
    ex = ex.astype(np.int64)
    M = fmt.mbits
    invalid = np.zeros(x.shape, dtype=bool)

    if fmt.subnormals:
        e = np.where(zero, fmt.emin, ex - 1)
        ep = np.maximum(e, fmt.emin)  # step 4
        y = np.ldexp(a, M - ep)
        N = np.rint(y).astype(np.int64)  # step 5
        mag = (ep - fmt.emin) * (1 << M) + N  # step 6
    else:
        k = np.where(zero, fmt.emin, ex - 1)
        y = np.ldexp(a, M - k)
        N = np.rint(y).astype(np.int64)
        mag = np.where(k < fmt.emin, 0, (k - fmt.emin) * (1 << M) + N - (1 << M))
    sbit = np.where(neg, fmt.sign_bit, 0)
    over = fin & (mag > fmt.max_mag_code)
    mag_c = np.minimum(mag, fmt.max_mag_code)
    codes = mag_c | sbit
    # zeros (including everything that rounded to zero)
    is0 = fin & (mag == 0) & fmt.has_zero
    if not fmt.has_neg_zero:
        codes = np.where(is0, 0, codes)

    # overflow
    ov_code = np.where(neg, fmt.overflow_code(True, saturate), fmt.overflow_code(False, saturate))
    codes = np.where(over, ov_code, codes)

    # infinities
    if saturate:
        inf_code = np.where(neg, fmt.max_code(True), fmt.max_code(False))
    elif fmt.has_inf:
        inf_code = np.where(neg, fmt.inf_code(True), fmt.inf_code(False))
    else:
        inf_code = ov_code
        invalid |= isinf
    codes = np.where(isinf, inf_code, codes)

    # values the format has no code for
    bad = np.zeros(x.shape, dtype=bool)
    if not fmt.signed:
        bad |= neg & (isinf | (fin & ((mag != 0) | (not fmt.has_zero))))
    if not fmt.has_zero:
        bad |= zero
    codes = np.where(bad, fmt.invalid_code, codes)
    invalid |= bad
    overflow = over & ~bad & (not saturate)

    # NaNs
    if not fmt.has_nan:
        nan_code = np.where(neg, 0, fmt.sign_bit)
        invalid |= isnan
    else:
        nan_code = np.where(neg, fmt.nan_code(True), fmt.nan_code(False))
    codes = np.where(isnan, nan_code, codes)
    return codes.astype(fmt.code_dtype).reshape(shape), dict(
        overflow=overflow.reshape(shape), invalid=invalid.reshape(shape)
    )


def int_to_float64_round_to_odd(n) -> np.ndarray:
    """int64/uint64 array -> float64 rounded to 53 bits *to odd*.

    Round-to-odd (truncate, then set the last kept bit if anything nonzero
    was dropped) to p' = 53 bits followed by round-to-nearest-even to p bits
    equals direct RNE to p bits whenever p' >= p + 2 (Boldo & Melquiond,
    "Emulation of FMA and correctly rounded sums: proved algorithms using
    rounding to odd", IEEE TC 2008).  Every format here has p <= 8, and
    integers are never in a target's subnormal range (min normal <= 1), so
    ``encode_array(fmt, int_to_float64_round_to_odd(n))`` is the single
    correct rounding of the integer n.  Each step below is exact integer
    arithmetic; the final conversion is of an integer < 2**54 whose low bit
    is kept (< 2**53 significant bits), times a power of two: exact.
    """
    n = np.asarray(n)
    if n.dtype.kind not in "iu":
        raise TypeError("integer array expected")
    shape = n.shape
    n = n.reshape(-1)
    if n.dtype.kind == "i":
        neg = n < 0
        # |n| as uint64 (exact also for INT64_MIN via two's complement)
        mag = np.where(neg, (~n.astype(np.uint64)) + np.uint64(1), n.astype(np.uint64))
    else:
        neg = np.zeros(n.shape, dtype=bool)
        mag = n.astype(np.uint64)
    # bit length: frexp of a float64 approximation is either the true
    # bit length or one more (when rounding carried to a power of two).
    _, bl = np.frexp(mag.astype(np.float64))
    bl = bl.astype(np.int64)
    shift_fix = np.clip(bl - 1, 0, 63).astype(np.uint64)
    too_big = (bl > 0) & ((mag >> shift_fix) == 0)
    bl = np.where(too_big, bl - 1, bl)
    s = np.clip(bl - 53, 0, 63).astype(np.uint64)
    kept = mag >> s
    dropped = mag & ((np.uint64(1) << s) - np.uint64(1))
    kept = kept | (dropped != 0).astype(np.uint64)  # sticky -> odd
    f = np.ldexp(kept.astype(np.float64), s.astype(np.int64))  # kept < 2**53
    f = np.where(neg, -f, f)
    return f.reshape(shape)


def encode_int_array(fmt, n, saturate=False):
    """Exact single rounding of an int64/uint64 array (see above)."""
    return encode_array(fmt, int_to_float64_round_to_odd(n), saturate)


def all_codes(fmt) -> np.ndarray:
    fmt = fmt_of(fmt)
    return np.arange(fmt.ncodes, dtype=fmt.code_dtype)


# --------------------------------------------------------------------------
# Representability / cast safety / promotion (derived from the value sets)
# --------------------------------------------------------------------------

# Standard binary floats: precision p (with hidden bit), emin, emax.
STD_FLOATS = {
    "float16": (11, -14, 15),
    "float32": (24, -126, 127),
    "float64": (53, -1022, 1023),
}


def fits_binary(q: Fraction, p: int, emin: int, emax: int) -> bool:
    """Is the rational q a value of the IEEE binary format (p, emin, emax)?"""
    if q == 0:
        return True
    q = abs(q)
    e = max(floor_log2(q), emin)
    if floor_log2(q) > emax:
        return False
    n = q / _2 ** (e - p + 1)
    return n.denominator == 1


def fits(q: Fraction, target: str) -> bool:
    """Is q a finite value of target (a format name or a standard float)?"""
    if target in STD_FLOATS:
        return fits_binary(q, *STD_FLOATS[target])
    if target == "longdouble":
        fi = np.finfo(np.longdouble)
        return fits_binary(q, fi.nmant + 1, fi.minexp, fi.maxexp - 1)
    return q in value_set(target)


def _is_format(x) -> bool:
    return isinstance(x, Fmt) or x in FORMATS


def specials_of(name):
    """(has_inf, has_nan, has_neg_zero) for a format or standard float."""
    if _is_format(name):
        f = fmt_of(name)
        return f.has_inf, f.has_nan, f.has_neg_zero
    return True, True, True


def safe_cast(src: str, dst: str) -> bool:
    """The design's rule: every finite value of src is a value of dst and dst
    keeps src's specials (inf, NaN, -0).  src/dst: format names or
    float16/float32/float64/longdouble."""
    if src == dst:
        return True
    si, sn, sz = specials_of(src)
    di, dn, dz = specials_of(dst)
    if (si and not di) or (sn and not dn) or (sz and not dz):
        return False
    if _is_format(src):
        return all(fits(v, dst) for v in value_set(src))
    # a standard float into something else
    if src == "longdouble":
        return False  # the widest type here (src == dst handled above)
    p, emin, emax = STD_FLOATS[src]
    if dst == "longdouble":
        return True
    if dst in STD_FLOATS:  # nested IEEE formats: precision and range
        dp, demin, demax = STD_FLOATS[dst]
        return dp >= p and demin <= emin and demax >= emax
    # standard float -> minifloat: its largest value, its smallest
    # subnormal and 1 + 2^(1-p) would all have to be values of dst
    witnesses = [_2**emax * (2 - _2 ** (1 - p)), _2 ** (emin - p + 1), 1 + _2 ** (1 - p)]
    return all(fits(w, dst) for w in witnesses)


def int_range_safe(lo: int, hi: int, dst: str) -> bool:
    """Every integer in [lo, hi] is a value of dst (dst a format)."""
    f = fmt_of(dst)
    if not f.has_zero and lo <= 0 <= hi:
        return False
    if hi - lo > 1 << 17:
        # more integers than any format here has codes
        return False
    vs = value_set(dst)
    return all(Fraction(i) in vs for i in range(lo, hi + 1))


def common_type(a: str, b: str) -> str:
    """The design's promotion rule for two formats (or a format and a
    standard float): the target of a safe cast when one exists, otherwise
    the smallest of float16/float32/float64 holding both exactly. Two
    formats of the same values (binary8p3sf and float8_e5m2fnuz): the one
    first in the table, whichever side asks."""
    if safe_cast(a, b) and safe_cast(b, a) and a in FORMATS and b in FORMATS:
        return min(a, b, key=FORMAT_NAMES.index)
    if safe_cast(a, b):
        return b
    if safe_cast(b, a):
        return a
    for t in ("float16", "float32", "float64"):
        if safe_cast(a, t) and safe_cast(b, t):
            return t
    return "longdouble"


check_table()


# --------------------------------------------------------------------------
# Test-case generators derived from the value table only
# --------------------------------------------------------------------------
# These do not call encode(): the expected code of every case follows from
# the sorted list of values and the stated tie rule (ties to the even
# mantissa; with no mantissa bits, M = 0 as float8_e8m0fnu and P3109's P = 1:
# to the larger value, except 0 against the smallest value).  Because a
# code's magnitude bits are field << M | mantissa, with M >= 1 "even
# mantissa" is "even code".  They give an expectation independent of the
# encoder above.

OVER = -1  # marker: the case overflows


def _neg_code(fmt, c):
    """Expected code for -x given the expected code c (or OVER) for +x > 0."""
    if not fmt.signed:
        return 0 if c == 0 and fmt.has_zero else fmt.invalid_code
    if c == OVER:
        return OVER
    if c == 0 and fmt.has_zero:
        return 0 if not fmt.has_neg_zero else fmt.sign_bit
    return c | fmt.sign_bit


def overflow_code(fmt, negative, saturate=False):
    fmt = fmt_of(fmt)
    if negative and not fmt.signed:
        return fmt.invalid_code
    return fmt.overflow_code(negative, saturate)


def boundary_cases(fmt, dtype=np.float64):
    return _boundary_cases(fmt_of(fmt), np.dtype(dtype).name)


@lru_cache(maxsize=None)
def _boundary_cases(fmt, dtype_name):
    """Every value, every midpoint between adjacent values and the overflow
    midpoint, each with its two ``dtype`` neighbours (np.nextafter), both
    signs, plus tiny and huge values.

    Returns (x, expected_codes, expected_overflow) where x has ``dtype``.
    Cases whose exact value is not representable in ``dtype`` are dropped.
    """
    dtype = np.dtype(dtype_name)
    pos = [(v, c) for v, c in finite_values(fmt) if v >= 0]
    cases = []  # (value in dtype, code or OVER) for positive x

    def add(xv, code):
        cases.append((xv, code))

    def rep(q):
        """q as a dtype scalar if exact, else None."""
        with np.errstate(over="ignore", under="ignore"):
            f = dtype.type(float(q)) if q < 2**1100 else dtype.type(np.inf)
        if not np.isfinite(f) or Fraction(*f.as_integer_ratio()) != q:
            return None
        return f

    inf = dtype.type(np.inf)
    for v, c in pos:
        f = rep(v)
        if f is not None:
            add(f, c)
    for (v0, c0), (v1, c1) in zip(pos, pos[1:]):
        m = (v0 + v1) / 2
        if fmt.mbits > 0:
            tie = c0 if c0 % 2 == 0 else c1  # the even mantissa is the even code
        else:  # a 1-bit significand: the larger power of two (but 0 against the smallest)
            tie = c0 if v0 == 0 else c1
        f = rep(m)
        if f is None:
            continue
        add(f, tie)
        add(np.nextafter(f, -inf), c0)
        add(np.nextafter(f, inf), c1)
    # above max
    mx, cmax = pos[-1]
    gap = _2 ** (max(floor_log2(mx), fmt.emin) - fmt.mbits)  # the quantum at max (subnormal or not)
    for q, code in (
        (mx + gap / 2, cmax if (fmt.mbits > 0 and cmax % 2 == 0) else OVER),
        (mx + gap, OVER),
        (2 * mx, OVER),
        (mx * 1024, OVER),
    ):
        f = rep(q)
        if f is None:
            continue
        add(f, code)
        if q == mx + gap / 2:
            add(np.nextafter(f, -inf), cmax)
            add(np.nextafter(f, inf), OVER)
    fi = np.finfo(dtype)
    add(fi.max, OVER)
    # below the smallest value
    vmin = pos[1][0] if fmt.has_zero else pos[0][0]
    tiny = [fi.smallest_subnormal, fi.smallest_normal]
    for q in (vmin / 4, vmin / 2, vmin * 3 / 8):
        f = rep(q)
        if f is not None:
            tiny.append(f)
    f = rep(vmin / 2)
    if f is not None:
        tiny.append(np.nextafter(f, -inf))
    for f in tiny:
        if Fraction(*f.as_integer_ratio()) < vmin / 2 or (
            fmt.has_zero and Fraction(*f.as_integer_ratio()) == vmin / 2
        ):
            add(f, 0)
        elif not fmt.has_zero and Fraction(*f.as_integer_ratio()) < vmin:
            add(f, 0)
    xs, codes, over = [], [], []
    for f, c in cases:
        for neg in (False, True):
            cc = c if not neg else _neg_code(fmt, c)
            ov = cc == OVER
            if cc == OVER:
                cc = overflow_code(fmt, neg)
            xs.append(-f if neg else f)
            codes.append(cc)
            over.append(bool(ov))
    # zeros
    for z, neg in ((0.0, False), (-0.0, True)):
        xs.append(dtype.type(z))
        codes.append(fmt.zero_code(neg) if fmt.has_zero else fmt.invalid_code)
        over.append(False)
    out = (
        np.array(xs, dtype=dtype),
        np.array(codes, dtype=np.int64).astype(fmt.code_dtype),
        np.array(over, dtype=bool),
    )
    for a in out:
        a.setflags(write=False)
    return out


def special_inputs(dtype=np.float64):
    """Special source values: NaNs of both signs, infinities, zeros."""
    dtype = np.dtype(dtype)
    return np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0], dtype=dtype)


def codes_of(arr, fmt=None) -> np.ndarray:
    """Raw codes of a minifloat array (uint8, uint16 for 16-bit formats)."""
    arr = np.asarray(arr)
    return arr.view(np.uint16 if arr.dtype.itemsize == 2 else np.uint8)


def targeted_float32_bits(name, n, rng):
    """float32 bit patterns whose exponent lies in (or just around) the
    format's range, with extra weight on ties and near-ties."""
    fmt = fmt_of(name)
    fi = finfo_expected(fmt)
    lo = floor_log2(fi["smallest_subnormal"]) - 3
    hi = floor_log2(fi["max"]) + 2
    e = rng.integers(max(lo + 127, 0), min(hi + 127, 254) + 1, n, dtype=np.uint32)
    mant = rng.integers(0, 1 << 23, n, dtype=np.uint32)
    low = np.uint32((1 << (23 - fmt.mbits - 1)) - 1)
    kind = rng.integers(0, 4, n)
    mant = np.where(kind == 0, mant & ~low, mant)  # exact ties / values
    mant = np.where(kind == 1, (mant & ~low) | np.uint32(1), mant)  # just above
    mant = np.where(kind == 2, (mant & ~low) - np.uint32(1), mant) & np.uint32((1 << 23) - 1)
    s = rng.integers(0, 2, n, dtype=np.uint32)
    return ((s << 31) | (e << 23) | mant).astype(np.uint32)
