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
# The format table
# --------------------------------------------------------------------------
# specials:
#   "ieee" : exponent field all ones = inf (mantissa 0) / NaN; has -0
#   "fn"   : no inf; NaN = S.1111...1 (both signs); has -0
#   "fnuz" : no inf; NaN = sign bit only (0x80); no -0
#   "none" : no inf, no NaN; has -0                  (fp6, fp4)
#   "fnu"  : unsigned, no zero, no inf; NaN = all ones (float8_e8m0fnu)


@dataclass(frozen=True)
class Fmt:
    name: str
    bits: int
    ebits: int
    mbits: int
    bias: int
    specials: str
    signed: bool

    # ---- derived facts -------------------------------------------------
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
        """Exponent of the smallest normal (field 1); e8m0: field 0."""
        if self.specials == "fnu":
            return -self.bias
        return 1 - self.bias

    @property
    def has_inf(self) -> bool:
        return self.specials == "ieee"

    @property
    def has_nan(self) -> bool:
        return self.specials != "none"

    @property
    def has_neg_zero(self) -> bool:
        return self.specials in ("ieee", "fn", "none")

    @property
    def has_zero(self) -> bool:
        return self.specials != "fnu"

    @property
    def max_mag_code(self) -> int:
        """Magnitude bits of the largest finite value."""
        if self.specials == "ieee":
            return ((1 << self.ebits) - 1 << self.mbits) - 1
        if self.specials == "fn":
            return self.mag_mask - 1
        if self.specials == "fnu":
            return self.mask - 1
        return self.mag_mask  # fnuz, none: every magnitude pattern is finite

    @property
    def code_dtype(self):
        return np.dtype(np.uint16) if self.bits > 8 else np.dtype(np.uint8)

    def nan_code(self, negative: bool = False) -> int:
        """Code produced when a NaN is converted (for formats with NaN)."""
        if self.specials == "ieee":  # quiet NaN: exponent all ones + mantissa MSB
            q = ((1 << self.ebits) - 1 << self.mbits) | (1 << (self.mbits - 1))
            return q | (self.sign_bit if negative else 0)
        if self.specials == "fn":
            return self.mag_mask | (self.sign_bit if negative else 0)
        if self.specials == "fnuz":
            return self.sign_bit
        if self.specials == "fnu":
            return self.mask
        raise ValueError(f"{self.name} has no NaN")

    def inf_code(self, negative: bool = False) -> int:
        assert self.has_inf
        return ((1 << self.ebits) - 1 << self.mbits) | (self.sign_bit if negative else 0)

    def max_code(self, negative: bool = False) -> int:
        return self.max_mag_code | (self.sign_bit if negative else 0)

    def zero_code(self, negative: bool = False) -> int:
        assert self.has_zero
        return self.sign_bit if (negative and self.has_neg_zero) else 0


FORMATS_LIST = (
    Fmt("float8_e4m3fn", 8, 4, 3, 7, "fn", True),
    Fmt("float8_e4m3fnuz", 8, 4, 3, 8, "fnuz", True),
    Fmt("float8_e5m2", 8, 5, 2, 15, "ieee", True),
    Fmt("float8_e5m2fnuz", 8, 5, 2, 16, "fnuz", True),
    Fmt("float8_e4m3", 8, 4, 3, 7, "ieee", True),
    Fmt("float8_e3m4", 8, 3, 4, 3, "ieee", True),
    Fmt("float8_e4m3b11fnuz", 8, 4, 3, 11, "fnuz", True),
    Fmt("float8_e8m0fnu", 8, 8, 0, 127, "fnu", False),
    Fmt("float6_e2m3fn", 6, 2, 3, 1, "none", True),
    Fmt("float6_e3m2fn", 6, 3, 2, 3, "none", True),
    Fmt("float4_e2m1fn", 4, 2, 1, 1, "none", True),
    Fmt("bfloat16", 16, 8, 7, 127, "ieee", True),
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
}
# NaN into fp6/fp4 (no NaN): positive NaN -> code of -0, negative NaN -> +0.
EXPECTED_NAN_NONE = {"float6_e2m3fn": 0x20, "float6_e3m2fn": 0x20, "float4_e2m1fn": 0x8}


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
    if fmt.specials == "fnu":
        if code == fmt.mask:
            return NAN
        return _2 ** (code - fmt.bias)
    neg = bool(code & fmt.sign_bit)
    mag = code & fmt.mag_mask
    field = mag >> fmt.mbits
    mant = mag & ((1 << fmt.mbits) - 1)
    if fmt.specials == "fnuz" and code == fmt.sign_bit:
        return NAN
    if fmt.specials == "fn" and mag == fmt.mag_mask:
        return NAN
    if fmt.specials == "ieee" and field == (1 << fmt.ebits) - 1:
        if mant == 0:
            return NEG_INF if neg else POS_INF
        return NAN
    if field == 0:
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


def encode(fmt, value, saturate: bool = False):
    """Round ``value`` once (RNE) into ``fmt``.  Returns (code, flags)."""
    fmt = fmt_of(fmt)
    kind, neg, q = _classify(value)
    sp = fmt.specials

    if kind == "nan":
        if sp == "none":
            # ml_dtypes' bits: +NaN -> code of -0, -NaN -> +0; invalid.
            return (0 if neg else fmt.sign_bit), frozenset({INVALID})
        return fmt.nan_code(neg), frozenset()

    if sp == "fnu":
        if neg or (kind == "finite" and q == 0):
            return fmt.mask, frozenset({INVALID})
        if kind == "inf":
            if saturate:
                return fmt.max_code(), frozenset()
            return fmt.mask, frozenset({INVALID})
        if q < _2**-127:
            return 0, frozenset()
        k = floor_log2(q)
        n = round_half_even(q / _2**k)  # in {1, 2}; 1.5 -> 2 (ties up)
        code = k + fmt.bias + (n - 1)
        if code > fmt.max_mag_code:
            if saturate:
                return fmt.max_code(), frozenset()
            return fmt.mask, frozenset({OVERFLOW})
        return code, frozenset()

    if kind == "inf":
        if saturate:
            return fmt.max_code(neg), frozenset()
        if sp == "ieee":
            return fmt.inf_code(neg), frozenset()
        if sp == "none":
            return fmt.max_code(neg), frozenset({INVALID})
        return fmt.nan_code(neg), frozenset({INVALID})

    # finite
    if q == 0:
        return fmt.zero_code(neg), frozenset()
    e = max(floor_log2(q), fmt.emin)
    n = round_half_even(q / _2 ** (e - fmt.mbits))
    # n in [0, 2^(M+1)]; the code's magnitude bits are (e - emin) * 2^M + n
    # (field 0 holds the subnormals of binade emin, field 1 its normals, and a
    # carry n == 2^(M+1) lands on mantissa 0 of the next field).
    mag = (e - fmt.emin) * (1 << fmt.mbits) + n
    if mag > fmt.max_mag_code:
        if saturate or sp == "none":
            return fmt.max_code(neg), frozenset() if saturate else frozenset({OVERFLOW})
        if sp == "ieee":
            return fmt.inf_code(neg), frozenset({OVERFLOW})
        return fmt.nan_code(neg), frozenset({OVERFLOW})
    if mag == 0:
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


@lru_cache(maxsize=None)
def value_set(name) -> frozenset:
    """Every finite value of the format (as Fractions; -0 counts as 0)."""
    return frozenset(v for v, _ in finite_values(name))


def finfo_expected(name):
    """finfo constants derived from the value set (exact Fractions)."""
    fmt = fmt_of(name)
    vals = sorted(value_set(name))
    pos = [v for v in vals if v > 0]
    mx = pos[-1]
    if fmt.specials == "fnu":
        smallest_normal = pos[0]
        smallest_subnormal = pos[0]  # no subnormals: the smallest value
    else:
        smallest_normal = _2**fmt.emin
        smallest_subnormal = pos[0]
    one = vals.index(Fraction(1))
    eps = vals[one + 1] - 1
    epsneg = 1 - vals[one - 1]
    return dict(
        max=mx,
        min=(pos[0] if fmt.specials == "fnu" else -mx),
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
    for f in FORMATS_LIST:
        mx, mn, ms, eps = EXPECTED_FINFO[f.name]
        got = finfo_expected(f.name)
        assert got["max"] == mx, f.name
        assert got["smallest_normal"] == mn, f.name
        if ms is not None:
            assert got["smallest_subnormal"] == ms, f.name
        assert got["eps"] == eps, f.name
        assert f.bits == 1 + f.ebits + f.mbits or (not f.signed and f.bits == f.ebits + f.mbits)
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
def _decode_table(name) -> np.ndarray:
    fmt = fmt_of(name)
    t = np.array([decode_float(fmt, c) for c in range(fmt.ncodes)], dtype=np.float64)
    t.setflags(write=False)
    return t


def decode_array(fmt, codes) -> np.ndarray:
    """float64 array of the exact values of ``codes`` (table lookup)."""
    fmt = fmt_of(fmt)
    codes = np.asarray(codes).astype(np.int64) & fmt.mask
    return _decode_table(fmt.name)[codes]


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

    float8_e8m0fnu: k = ex - 1 = floor(log2(a)), y = ldexp(a, -k) in [1, 2)
    (a power-of-two scaling to a normal float64: exact), N = rint(y) in
    {1, 2} (rint(1.5) = 2: a tie goes to the larger power of two, as RNE on
    a 1-bit significand), code = k + 127 + (N - 1); every positive value
    below 2**-127 gives code 0.
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
    overflow = np.zeros(x.shape, dtype=bool)
    invalid = np.zeros(x.shape, dtype=bool)
    codes = np.zeros(x.shape, dtype=np.int64)
    sp = fmt.specials

    if sp == "fnu":
        k = np.where(zero, 0, ex - 1)
        y = np.ldexp(a, -k)
        N = np.rint(y).astype(np.int64)
        c = k + fmt.bias + (N - 1)
        c = np.maximum(c, 0)
        over = fin & ~zero & ~neg & (c > fmt.max_mag_code)
        c = np.where(over, fmt.max_code() if saturate else fmt.mask, c)
        if not saturate:
            overflow |= over
        bad = (fin & (zero | neg)) | isnan | (isinf & neg) | (isinf & ~neg & (not saturate))
        invalid |= bad & ~isnan
        codes = np.where(bad, fmt.mask, c)
        codes = np.where(isinf & ~neg & saturate, fmt.max_code(), codes)
        return codes.astype(fmt.code_dtype).reshape(shape), dict(
            overflow=overflow.reshape(shape), invalid=invalid.reshape(shape)
        )

    e = np.where(zero, fmt.emin, ex - 1)
    ep = np.maximum(e, fmt.emin)  # step 4
    y = np.ldexp(a, M - ep)
    N = np.rint(y).astype(np.int64)  # step 5
    mag = (ep - fmt.emin) * (1 << M) + N  # step 6
    sbit = np.where(neg, fmt.sign_bit, 0)
    over = fin & (mag > fmt.max_mag_code)
    mag_c = np.minimum(mag, fmt.max_mag_code)
    codes = mag_c | sbit
    # zeros (including everything that rounded to zero)
    is0 = fin & (mag == 0)
    if not fmt.has_neg_zero:
        codes = np.where(is0, 0, codes)

    # overflow
    if saturate or sp == "none":
        ov_code = fmt.max_mag_code | sbit
    elif sp == "ieee":
        ov_code = fmt.inf_code() | sbit
    elif sp == "fn":
        ov_code = fmt.nan_code() | sbit
    else:  # fnuz
        ov_code = np.full(x.shape, fmt.nan_code())
    codes = np.where(over, ov_code, codes)
    if not saturate:
        overflow |= over

    # infinities
    if saturate:
        inf_code = fmt.max_mag_code | sbit
    elif sp == "ieee":
        inf_code = fmt.inf_code() | sbit
    elif sp == "none":
        inf_code = fmt.max_mag_code | sbit
        invalid |= isinf
    elif sp == "fn":
        inf_code = fmt.nan_code() | sbit
        invalid |= isinf
    else:
        inf_code = np.full(x.shape, fmt.nan_code())
        invalid |= isinf
    codes = np.where(isinf, inf_code, codes)

    # NaNs
    if sp == "none":
        nan_code = np.where(neg, 0, fmt.sign_bit)
        invalid |= isnan
    elif sp == "fnuz":
        nan_code = fmt.nan_code()
    else:
        nan_code = fmt.nan_code() | sbit
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


def specials_of(name):
    """(has_inf, has_nan, has_neg_zero) for a format or standard float."""
    if name in FORMATS:
        f = FORMATS[name]
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
    if src in FORMATS:
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
    """Every integer in [lo, hi] is a value of dst (dst a format name)."""
    f = FORMATS[dst]
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
    the smallest of float16/float32/float64 holding both exactly."""
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
# mantissa; float8_e8m0fnu: ties to the larger value).  Because a code's
# magnitude bits are field << M | mantissa with M >= 1, "even mantissa" is
# "even code".  They give an expectation independent of the encoder above.

OVER = -1  # marker: the case overflows


def _neg_code(fmt, c):
    """Expected code for -x given the expected code c (or OVER) for +x > 0."""
    if fmt.specials == "fnu":
        return fmt.mask
    if c == OVER:
        return OVER
    if c == 0:
        return 0 if not fmt.has_neg_zero else fmt.sign_bit
    return c | fmt.sign_bit


def overflow_code(fmt, negative, saturate=False):
    if saturate:
        if fmt.specials == "fnu":
            return fmt.mask if negative else fmt.max_code()
        return fmt.max_code(negative)
    sp = fmt.specials
    if sp == "ieee":
        return fmt.inf_code(negative)
    if sp == "none":
        return fmt.max_code(negative)
    if sp == "fnu":
        return fmt.mask
    return fmt.nan_code(negative)


def boundary_cases(fmt, dtype=np.float64):
    fmt = fmt_of(fmt)
    return _boundary_cases(fmt.name, np.dtype(dtype).name)


@lru_cache(maxsize=None)
def _boundary_cases(name, dtype_name):
    """Every value, every midpoint between adjacent values and the overflow
    midpoint, each with its two ``dtype`` neighbours (np.nextafter), both
    signs, plus tiny and huge values.

    Returns (x, expected_codes, expected_overflow) where x has ``dtype``.
    Cases whose exact value is not representable in ``dtype`` are dropped.
    """
    fmt = fmt_of(name)
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
        if fmt.specials == "fnu":
            tie = c1
        else:
            tie = c0 if c0 % 2 == 0 else c1
        f = rep(m)
        if f is None:
            continue
        add(f, tie)
        add(np.nextafter(f, -inf), c0)
        add(np.nextafter(f, inf), c1)
    # above max
    mx, cmax = pos[-1]
    gap = _2 ** (floor_log2(mx) - fmt.mbits)
    for q, code in (
        (mx + gap / 2, cmax if (fmt.specials != "fnu" and cmax % 2 == 0) else OVER),
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
            ov = cc == OVER or (c == OVER and fmt.specials == "fnu" and not neg)
            if cc == OVER:
                cc = overflow_code(fmt, neg)
            xs.append(-f if neg else f)
            codes.append(cc)
            over.append(bool(ov))
    # zeros
    for z, neg in ((0.0, False), (-0.0, True)):
        xs.append(dtype.type(z))
        codes.append(fmt.zero_code(neg) if fmt.has_zero else fmt.mask)
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
    fmt = FORMATS[name]
    fi = finfo_expected(name)
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
