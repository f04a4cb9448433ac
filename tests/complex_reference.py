"""Exact, implementation-independent reference for complex32 / bcomplex32.

This module never imports ``minifloat``. A complex32 element is two float16
codes and a bcomplex32 element two bfloat16 codes, real part first (the
layout of ml_dtypes 0.6 and torch.complex32); the reference works on those
uint16 code pairs, shape ``(..., 2)``.

Decoding is exact:

* float16 code c -> ``np.uint16(c).view(np.float16)`` -> float64. Every
  float16 is a float64 (11 <= 53 significant bits, exponents -24..15 inside
  float64's range), and NumPy's float16 -> float64 cast is a widening cast,
  so the float64 is the code's value (NaNs stay NaN with their sign).
* bfloat16 code b -> float32 with bits ``b << 16`` -> float64. bfloat16 is the
  top half of float32 (same sign and exponent fields, 7 of float32's 23
  fraction bits), so the float32 is the value exactly, and float32 -> float64
  widens exactly.

Encoding is written here with integers (``encode_part`` vectorized on the
bits of float64, ``encode_fraction`` on Python Fractions), rounding to
nearest, ties to even, overflowing to +-inf, keeping NaN (quiet, its sign)
and the sign of zero. It never goes through np.float16 or any NumPy cast to
a narrower type; ``check_against_numpy`` cross-checks the float16 encoder
against NumPy's own float64 -> float16 cast (which rounds once).

The operation reference is the issue's definition: "each result equals the
complex128 result of the exact operands rounded once per part": decode both
operands to complex128, apply NumPy's complex128 operation, encode each part
once (``complex_op``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np


@dataclass(frozen=True)
class Part:
    """An IEEE binary16-like format of one part: p significant bits
    (hidden bit included), normal exponents emin..emax, 16 bits in all."""

    name: str
    p: int
    emin: int
    emax: int

    @property
    def mbits(self):
        return self.p - 1

    @property
    def inf_code(self):
        # biased exponent all ones, zero fraction: (emax - emin + 2) << mbits
        return (self.emax - self.emin + 2) << self.mbits

    @property
    def quiet_nan_code(self):
        return self.inf_code | (1 << (self.mbits - 1))

    @property
    def max_code(self):
        return self.inf_code - 1

    @property
    def min_normal_code(self):
        return 1 << self.mbits

    @property
    def max(self):
        return Fraction(2) ** self.emax * (2 - Fraction(2) ** (1 - self.p))

    @property
    def smallest_subnormal(self):
        return Fraction(2) ** (self.emin - self.p + 1)


FLOAT16 = Part("float16", 11, -14, 15)
BFLOAT16 = Part("bfloat16", 8, -126, 127)
PARTS = {"complex32": FLOAT16, "bcomplex32": BFLOAT16}
# the NumPy complex type one step wider, and the minifloat name of the part
COMPLEX_NAMES = ("complex32", "bcomplex32")
PART_NAME = {"complex32": "float16", "bcomplex32": "bfloat16"}

SIGN = 0x8000


def part_of(kind) -> Part:
    return kind if isinstance(kind, Part) else PARTS[kind]


# --------------------------------------------------------------------------
# Decoding (exact)
# --------------------------------------------------------------------------


def decode_part(kind, codes) -> np.ndarray:
    """uint16 codes -> their exact values as float64 (proof: module doc)."""
    part = part_of(kind)
    codes = np.asarray(codes, dtype=np.uint16)
    if part is FLOAT16:
        x = codes.view(np.float16).astype(np.float64)
    else:
        with np.errstate(invalid="ignore"):  # a signalling NaN widens (a NaN, same sign)
            x = (codes.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    # Every NaN code decodes to the quiet NaN of its sign: a NaN code's value
    # is NaN, its payload and signalling bit are no value. (NumPy's float16
    # -> float64 keeps a signalling NaN signalling, and NumPy's complex128
    # functions treat the two apart in places: np.sign(inf + sNaN*1j) is
    # nan+nanj, np.sign(inf + qNaN*1j) is 1+0j.)
    nan = np.isnan(x)
    if nan.any():
        x = np.where(nan, np.copysign(np.nan, x), x)
    return x


def decode_fraction(kind, code: int):
    """One code -> Fraction, or the float nan/inf/-0.0 for specials (exact,
    from the fields alone; used to check decode_part)."""
    part = part_of(kind)
    neg = bool(code & SIGN)
    mag = code & 0x7FFF
    e_field, frac = mag >> part.mbits, mag & ((1 << part.mbits) - 1)
    if mag >= part.inf_code:
        if mag == part.inf_code:
            return -math.inf if neg else math.inf
        return math.copysign(math.nan, -1.0 if neg else 1.0)
    if mag == 0:
        return -0.0 if neg else Fraction(0)
    if e_field == 0:
        v = Fraction(frac) * Fraction(2) ** (part.emin - part.mbits)
    else:
        v = Fraction(frac + (1 << part.mbits)) * Fraction(2) ** (e_field - 1 + part.emin - part.mbits)
    return -v if neg else v


# --------------------------------------------------------------------------
# Encoding (written here with integers; round to nearest, ties to even)
# --------------------------------------------------------------------------


def encode_fraction(kind, value, negative_zero=False) -> int:
    """An exact rational (Fraction/int) or float special -> the code, rounded
    once to nearest-even. Infinite/NaN floats map to inf/quiet NaN with
    their sign; negative_zero (or a float -0.0) gives -0."""
    part = part_of(kind)
    if isinstance(value, float):
        if math.isnan(value):
            return part.quiet_nan_code | (SIGN if math.copysign(1.0, value) < 0 else 0)
        if math.isinf(value):
            return part.inf_code | (SIGN if value < 0 else 0)
        if value == 0:
            return SIGN if math.copysign(1.0, value) < 0 else 0
        value = Fraction(value)
    q = Fraction(value)
    if q == 0:
        return SIGN if negative_zero else 0
    sign = SIGN if q < 0 else 0
    q = abs(q)
    # floor(log2 q) from the integer parts
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    te = max(e, part.emin)
    scaled = q / Fraction(2) ** (te - part.mbits)  # in units of the quantum
    n = scaled.numerator // scaled.denominator
    rem = scaled - n
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n & 1):
        n += 1
    code = ((te - part.emin) << part.mbits) + n
    if code >= part.inf_code:
        code = part.inf_code
    return sign | code


def encode_part(kind, x) -> np.ndarray:
    """float64 array -> uint16 codes, each value rounded once (vectorized
    integer code on the float64 bit fields; no narrowing NumPy cast).

    |x| = M * 2**(E - 52) with M the 53-bit significand (hidden bit set for
    normals, E = max(biased, 1) - 1023). The result's quantum is
    2**(te - mbits) with te = max(floor(log2|x|), emin); dropping
    s = te - mbits - (E - 52) low bits of M (s >= 52 - mbits > 0 because
    te >= E for every float64 and mbits <= 10) and rounding half to even
    gives n, the result in quanta. The code is ((te - emin) << mbits) + n,
    which is right for subnormals (te == emin, n < 2**mbits) and normals
    (n in [2**mbits, 2**(mbits+1)], the top value carrying into the
    exponent) alike; codes >= inf_code overflow to inf."""
    part = part_of(kind)
    x = np.asarray(x, dtype=np.float64)
    bits = x.view(np.uint64)
    sign = ((bits >> np.uint64(63)).astype(np.uint16)) << np.uint16(15)
    biased = ((bits >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    frac = (bits & np.uint64((1 << 52) - 1)).astype(np.int64)
    normal64 = biased != 0
    M = np.where(normal64, frac | (1 << 52), frac)
    E = np.maximum(biased, 1) - 1023
    # floor(log2 |x|): E for normals; for float64 subnormals E - (53 - bitlen(M)),
    # far below emin, so max(., emin) only needs "< emin"
    te = np.maximum(E, part.emin)
    s = te - part.mbits - (E - 52)
    # s > 54: M / 2**s < 2**53 / 2**55 < 1/2 rounds to 0 (clamp: shifts stay < 64)
    zero_out = s > 54
    s = np.minimum(s, 54)
    n = M >> s
    rem = M & ((np.int64(1) << s) - 1)
    half = np.int64(1) << (s - 1)
    up = (rem > half) | ((rem == half) & ((n & 1) == 1))
    n = n + up
    n = np.where(zero_out, 0, n)
    code = ((te - part.emin) << part.mbits) + n
    code = np.minimum(code, part.inf_code)
    special = biased == 0x7FF
    is_nan = special & (frac != 0)
    code = np.where(special, np.where(is_nan, part.quiet_nan_code, part.inf_code), code)
    return (code.astype(np.uint16) | sign).astype(np.uint16)


def encode_int(kind, n) -> int:
    """A Python int -> the code (exact: no float64 on the way)."""
    return encode_fraction(kind, Fraction(int(n)))


def encode_exact_float(kind, x) -> int:
    """Any NumPy/Python real float scalar (longdouble included) -> the code,
    from its exact value (as_integer_ratio)."""
    xf = float(x)
    if math.isnan(xf) or math.isinf(xf):
        return encode_fraction(kind, xf)
    if x == 0:
        return encode_fraction(kind, Fraction(0), negative_zero=bool(np.signbit(x)))
    return encode_fraction(kind, Fraction(*x.as_integer_ratio()))


# --------------------------------------------------------------------------
# Complex values and operations
# --------------------------------------------------------------------------


def pair_codes(re_codes, im_codes) -> np.ndarray:
    """Two uint16 code arrays -> (..., 2) code pairs, real part first."""
    re_codes, im_codes = np.broadcast_arrays(np.asarray(re_codes, np.uint16), np.asarray(im_codes, np.uint16))
    return np.stack([re_codes, im_codes], axis=-1)


def decode(kind, pairs) -> np.ndarray:
    """(..., 2) uint16 code pairs -> complex128 values (exact)."""
    pairs = np.asarray(pairs, dtype=np.uint16)
    out = np.empty(pairs.shape[:-1], dtype=np.complex128)
    out.real = decode_part(kind, pairs[..., 0])
    out.imag = decode_part(kind, pairs[..., 1])
    return out


def encode(kind, z) -> np.ndarray:
    """complex128 values -> (..., 2) code pairs, each part rounded once."""
    z = np.asarray(z, dtype=np.complex128)
    return pair_codes(encode_part(kind, z.real), encode_part(kind, z.imag))


def complex_op(kind, fn, *operands) -> np.ndarray:
    """The issue's definition: NumPy's complex128 result of the exact operands,
    each part rounded once. Operands are (..., 2) code pairs."""
    with np.errstate(all="ignore"):
        result = fn(*(decode(kind, o) for o in operands))
    return encode(kind, result)


def real_op(kind, fn, *operands) -> np.ndarray:
    """A real-valued result (absolute value): complex128 -> float64 result
    rounded once into the part format."""
    with np.errstate(all="ignore"):
        result = fn(*(decode(kind, o) for o in operands))
    return encode_part(kind, np.asarray(result, dtype=np.float64))


def is_nan_code(kind, codes) -> np.ndarray:
    part = part_of(kind)
    return (np.asarray(codes, np.uint16) & 0x7FFF) > part.inf_code


def same_codes(kind, got, exp, nan_sign=False) -> np.ndarray:
    """Elementwise: equal codes, or both NaN (any payload; with nan_sign the
    same sign bit as well)."""
    got, exp = np.asarray(got, np.uint16), np.asarray(exp, np.uint16)
    gn, en = is_nan_code(kind, got), is_nan_code(kind, exp)
    nan_ok = gn & en
    if nan_sign:
        nan_ok &= (got & SIGN) == (exp & SIGN)
    return np.where(en | gn, nan_ok, got == exp)


# --------------------------------------------------------------------------
# Samples of codes
# --------------------------------------------------------------------------


def special_codes(kind) -> list:
    """Every special of a part format with both signs: +-0, +-inf, quiet and
    signalling NaN, max, min normal, min subnormal, max subnormal, 1, the
    number after 1, 0.5, 2."""
    part = part_of(kind)
    one = (1 - part.emin) << part.mbits  # 1.0: biased exponent field 1 - emin
    mags = [
        0,
        part.inf_code,
        part.quiet_nan_code,
        part.inf_code | 1,  # signalling NaN
        part.max_code,
        part.max_code - 1,
        part.min_normal_code,
        part.min_normal_code - 1,  # max subnormal
        1,  # min subnormal
        2,
        one,
        one + 1,
        one - 1,
        one - (1 << part.mbits),  # 0.5
        one + (1 << part.mbits),  # 2
    ]
    return sorted({m | s for m in mags for s in (0, SIGN)})


def sample_codes(kind, n, seed=0) -> np.ndarray:
    """n distinct codes (n >= the specials): every special, then codes spread
    over every binade (random mantissas, both signs), sorted."""
    rng = np.random.default_rng(seed)
    part = part_of(kind)
    chosen = set(special_codes(kind))
    all_finite = np.arange(part.inf_code, dtype=np.int64)
    while len(chosen) < n:
        # a random exponent field (uniform over binades) and mantissa
        e = int(rng.integers(0, part.emax - part.emin + 2))
        m = int(rng.integers(0, 1 << part.mbits))
        c = int(all_finite[(e << part.mbits) | m]) | (SIGN if rng.integers(2) else 0)
        chosen.add(c)
    return np.array(sorted(chosen), dtype=np.uint16)


def all_codes() -> np.ndarray:
    return np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)


# --------------------------------------------------------------------------
# Self-checks (run by the tests without the extension)
# --------------------------------------------------------------------------


def check_decode(kind) -> None:
    """decode_part agrees with the field-by-field Fraction decoder on every
    code."""
    codes = all_codes()
    vals = decode_part(kind, codes)
    for c in range(1 << 16):
        ref = decode_fraction(kind, c)
        v = vals[c]
        if isinstance(ref, float):
            if math.isnan(ref):
                assert math.isnan(v) and math.copysign(1, v) == math.copysign(1, ref), (kind, hex(c))
            else:
                assert v == ref and math.copysign(1, v) == math.copysign(1, ref), (kind, hex(c))
        else:
            assert Fraction(float(v)) == ref and not (ref == 0 and math.copysign(1, v) < 0), (kind, hex(c))


def check_encode_every_code_and_midpoint(kind) -> None:
    """encode_part maps every code's value to the code (NaNs to the quiet
    NaN of their sign), and every midpoint between neighbours, and the
    points one float64 ulp either side of it, as encode_fraction says."""
    part = part_of(kind)
    codes = all_codes()
    vals = decode_part(kind, codes)
    got = encode_part(kind, vals)
    nan = is_nan_code(kind, codes)
    assert np.array_equal(got[~nan], codes[~nan])
    assert np.array_equal(got[nan], (codes[nan] & SIGN) | part.quiet_nan_code)
    pos = np.arange(part.max_code, dtype=np.uint16)  # +0 .. the code below max
    lo = decode_part(kind, pos)
    hi = decode_part(kind, pos + 1)
    mid = (lo + hi) / 2  # exact: both have <= 11 significant bits, adjacent
    for x in (mid, np.nextafter(mid, 0), np.nextafter(mid, np.inf)):
        for sgn in (1.0, -1.0):
            xs = sgn * x
            enc = encode_part(kind, xs)
            step = max(1, len(xs) // 4000)
            for i in list(range(0, len(xs), step)) + [len(xs) - 1, len(xs) - 2, 0, 1, 2]:
                exp = encode_fraction(kind, Fraction(float(xs[i])))
                assert enc[i] == exp, (kind, float(xs[i]), hex(int(enc[i])), hex(exp))
    # the midpoint between max and 2**(emax+1) (the first value that
    # overflows) goes to inf; just below it stays max
    top = float(part.max + Fraction(2) ** (part.emax - part.p))
    assert encode_part(kind, np.array([top]))[0] == part.inf_code
    assert encode_part(kind, np.array([np.nextafter(top, 0)]))[0] == part.max_code


def check_against_numpy() -> None:
    """The float16 encoder equals NumPy's float64 -> float16 cast (which
    rounds once, to nearest-even) on many float64 values around float16's
    range, specials included (NaN: NaN-ness and sign)."""
    rng = np.random.default_rng(1)
    e = rng.integers(-30, 20, 200_000)
    x = np.ldexp(rng.random(200_000) + 1.0, e) * rng.choice([-1.0, 1.0], 200_000)
    # ties and near-ties of float16
    ties = decode_part(FLOAT16, np.arange(0x7BFF, dtype=np.uint16))
    nxt = decode_part(FLOAT16, np.arange(1, 0x7C00, dtype=np.uint16))
    mids = (ties + nxt) / 2
    x = np.concatenate([x, mids, np.nextafter(mids, 0), np.nextafter(mids, 1e9), -mids,
                        [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 65520.0, 65519.99, 1e300, 5e-324]])
    ours = encode_part(FLOAT16, x)
    with np.errstate(all="ignore"):
        theirs = x.astype(np.float16).view(np.uint16)
    assert np.array_equal(same_codes(FLOAT16, ours, theirs, nan_sign=True), np.ones(len(x), bool))
