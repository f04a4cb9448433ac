"""mf.cast(x, dtype, *, saturate=False, rounding="nearest_even", rng=None):
every rounding mode, saturation and stochastic rounding, checked exactly
against cast_mode_reference (Fractions / exact float64 steps).

Tests named test_reference_* check the reference itself and do not need
minifloat.
"""

import math
import warnings
import zlib
from fractions import Fraction

import numpy as np
import pytest

import cast_mode_reference as I
import reference as R
from kernel_sets import kernels

NAMES = R.FORMAT_NAMES
ALL = pytest.mark.parametrize("name", NAMES)
MODES = I.MODES
DET = I.DETERMINISTIC
LONGDOUBLE_WIDER = np.finfo(np.longdouble).nmant > 52


def seed_of(*parts):
    return zlib.crc32("/".join(map(str, parts)).encode())


# Stochastic rounding's draws (the rule mf.cast documents) are written out
# in issue5_reference (ARS-5 from an AES round built from FIPS-197:
# ars5_blocks, draws32_from_key, draws32_for, draws_for).
draws32_from_key, draws32_for, draws_for = I.draws32_from_key, I.draws32_for, I.draws_for


def _aes128_round_keys(key):
    """FIPS-197's AES-128 key expansion (section 5.2), for checking the
    reference's round against the standard's test vector."""
    words = [list(key[4 * i:4 * i + 4]) for i in range(4)]
    rcon = 1
    for i in range(4, 44):
        t = list(words[i - 1])
        if i % 4 == 0:
            t = [int(I.SBOX[b]) for b in t[1:] + t[:1]]
            t[0] ^= rcon
            rcon = int(I._xtime(rcon))
        words.append([a ^ b for a, b in zip(words[i - 4], t)])
    return [np.array(sum(words[4 * r:4 * r + 4], []), np.int64) for r in range(11)]


def test_reference_aes_round_is_fips197():
    """The reference's AES round is the standard's: the S-box entries and
    the AES-128 example of FIPS-197 appendix C.1 (ten rounds, the last
    without MixColumns)."""
    assert [int(I.SBOX[b]) for b in (0x00, 0x01, 0x53, 0xFF)] == [0x63, 0x7C, 0xED, 0x16]
    keys = _aes128_round_keys(bytes(range(16)))
    plain = np.frombuffer(bytes.fromhex("00112233445566778899aabbccddeeff"), np.uint8)[None, :]
    state = (plain ^ keys[0]).astype(np.uint8)
    for r in range(1, 11):
        state = I.aes_round(state, keys[r], last=r == 10)
    assert bytes(state[0]).hex() == "69c4e0d86a7b0430d8cdb78070b4c55a"


def test_reference_ars5_block_layout():
    """ARS-5's block j from the rule written out with plain integers (the
    counter j xored with k_0 in the low 64 bits, the round keys stepping by
    the Weyl constants), and its words in element order; the widening
    keeps the 32-bit rule (checked on a boundary)."""
    key = 0x0123456789ABCDEF
    for j in (0, 1, 2**40 + 3):
        keys = [((key + r * I.WEYL_LOW) & I.MASK64) | (((r * I.WEYL_HIGH) & I.MASK64) << 64) for r in range(6)]
        state = np.frombuffer((j ^ keys[0]).to_bytes(16, "little"), np.uint8)[None, :]
        for r in range(1, 6):
            state = I.aes_round(state, np.frombuffer(keys[r].to_bytes(16, "little"), np.uint8).astype(np.int64),
                                last=r == 5)
        block = int.from_bytes(bytes(state[0]), "little")
        words = [(block >> (32 * w)) & 0xFFFFFFFF for w in range(4)]
        assert draws32_from_key(key, 4, first=4 * j).tolist() == words
        assert draws32_from_key(key, 2, first=4 * j + 1).tolist() == words[1:3]
    d = 12345
    wide = (d << 32) | 0xFFFFFFFF
    for f in (Fraction(d, 2**32), Fraction(d + 1, 2**32), Fraction(2 * d + 1, 2**33)):
        assert (wide < I.stochastic_threshold(f)) == (d < math.floor(f * 2**32))


def mcast(mf, x, T, **kw):
    with np.errstate(all="ignore"):
        return mf.cast(x, T, **kw)


def codes(a):
    return R.codes_of(np.asarray(a))


def assert_codes(got, exp, x=None, label=""):
    got = codes(got).reshape(-1)
    exp = np.asarray(exp).reshape(-1)
    assert got.shape == exp.shape, (label, got.shape, exp.shape)
    bad = np.nonzero(got != exp)[0]
    if bad.size:
        xs = np.asarray(x).reshape(-1) if x is not None else None
        rows = [
            (repr(xs[i]) if xs is not None else int(i), hex(int(exp[i])), hex(int(got[i])))
            for i in bad[:8]
        ]
        raise AssertionError(
            f"{label}: {bad.size} of {exp.size} codes differ; (input, expected, got): {rows}"
        )


def expected(name, x, mode, saturate, seed=None):
    draws = draws_for(seed, np.asarray(x).size) if mode == "stochastic" else None
    return I.cast_array(name, x, mode, saturate, draws)[0]


def kw_for(mode, saturate, seed):
    kw = dict(rounding=mode, saturate=saturate)
    if mode == "stochastic":
        kw["rng"] = seed
    return kw


# --------------------------------------------------------------------------
# Hand-written expectations (independent of both the reference and mf)
# --------------------------------------------------------------------------
# (format, value, rounding, saturate, expected code)
NEAR, AWAY, TZ, UP, DOWN = DET
HAND = []


def _h(name, value, table, saturate=False):
    for mode, code in table.items():
        HAND.append((name, value, mode, saturate, code))


# float8_e4m3fn: 1.0 = 0x38, 1.125 = 0x39, max 448 = 0x7E, NaN 0x7F/0xFF
_h("float8_e4m3fn", 1.0625, {NEAR: 0x38, AWAY: 0x39, TZ: 0x38, UP: 0x39, DOWN: 0x38})
_h("float8_e4m3fn", -1.0625, {NEAR: 0xB8, AWAY: 0xB9, TZ: 0xB8, UP: 0xB8, DOWN: 0xB9})
_h("float8_e4m3fn", 1.1875, {NEAR: 0x3A, AWAY: 0x3A, TZ: 0x39, UP: 0x3A, DOWN: 0x39})
_h("float8_e4m3fn", 1 + 2.0**-10, {NEAR: 0x38, AWAY: 0x38, TZ: 0x38, UP: 0x39, DOWN: 0x38})
_h("float8_e4m3fn", 1 + 2.0**-50, {UP: 0x39, DOWN: 0x38, TZ: 0x38, NEAR: 0x38})
_h("float8_e4m3fn", 464.0, {NEAR: 0x7E, AWAY: 0x7F, TZ: 0x7E, UP: 0x7F, DOWN: 0x7E})
_h("float8_e4m3fn", 464.0, {NEAR: 0x7E, AWAY: 0x7E, TZ: 0x7E, UP: 0x7E, DOWN: 0x7E}, True)
_h("float8_e4m3fn", 1000.0, {NEAR: 0x7F, AWAY: 0x7F, TZ: 0x7E, UP: 0x7F, DOWN: 0x7E})
_h("float8_e4m3fn", -1000.0, {NEAR: 0xFF, AWAY: 0xFF, TZ: 0xFE, UP: 0xFE, DOWN: 0xFF})
_h("float8_e4m3fn", -1000.0, {NEAR: 0xFE, UP: 0xFE, DOWN: 0xFE}, True)
_h("float8_e4m3fn", math.inf, {NEAR: 0x7F, TZ: 0x7F, DOWN: 0x7F})
_h("float8_e4m3fn", math.inf, {NEAR: 0x7E, TZ: 0x7E, UP: 0x7E}, True)
_h("float8_e4m3fn", -math.inf, {NEAR: 0xFE, UP: 0xFE}, True)
_h("float8_e4m3fn", math.nan, {NEAR: 0x7F, TZ: 0x7F}, True)
_h("float8_e4m3fn", 2.0**-10, {NEAR: 0x00, AWAY: 0x01, TZ: 0x00, UP: 0x01, DOWN: 0x00})
_h("float8_e4m3fn", -(2.0**-10), {NEAR: 0x80, AWAY: 0x81, TZ: 0x80, UP: 0x80, DOWN: 0x81})
_h("float8_e4m3fn", -0.0, {NEAR: 0x80, UP: 0x80, DOWN: 0x80, TZ: 0x80})
# float8_e4m3fnuz: no -0, NaN 0x80, max 240 = 0x7F
_h("float8_e4m3fnuz", -(2.0**-12), {NEAR: 0x00, AWAY: 0x00, TZ: 0x00, UP: 0x00, DOWN: 0x81})
_h("float8_e4m3fnuz", -0.0, {NEAR: 0x00, TZ: 0x00, UP: 0x00, DOWN: 0x00})
_h("float8_e4m3fnuz", -0.0, {NEAR: 0x00, DOWN: 0x00}, True)
_h("float8_e4m3fnuz", 1000.0, {NEAR: 0x80, TZ: 0x7F, UP: 0x80, DOWN: 0x7F})
_h("float8_e4m3fnuz", 1000.0, {NEAR: 0x7F, UP: 0x7F}, True)
_h("float8_e4m3fnuz", -1000.0, {UP: 0xFF, DOWN: 0x80})
_h("float8_e4m3fnuz", math.inf, {NEAR: 0x7F, UP: 0x7F}, True)
_h("float8_e4m3fnuz", -math.inf, {NEAR: 0xFF, DOWN: 0xFF}, True)
_h("float8_e4m3fnuz", math.nan, {NEAR: 0x80}, True)
# float8_e5m2: max 57344 = 0x7B, inf 0x7C; 61440 is the overflow tie (57344 is odd)
_h("float8_e5m2", 61440.0, {NEAR: 0x7C, AWAY: 0x7C, TZ: 0x7B, UP: 0x7C, DOWN: 0x7B})
_h("float8_e5m2", 1e6, {NEAR: 0x7C, TZ: 0x7B, UP: 0x7C, DOWN: 0x7B})
_h("float8_e5m2", -1e6, {NEAR: 0xFC, TZ: 0xFB, UP: 0xFB, DOWN: 0xFC})
_h("float8_e5m2", 1e6, {NEAR: 0x7B, UP: 0x7B, AWAY: 0x7B}, True)
_h("float8_e5m2", math.inf, {NEAR: 0x7C, TZ: 0x7C, DOWN: 0x7C})
_h("float8_e5m2", math.inf, {NEAR: 0x7B, DOWN: 0x7B}, True)
_h("float8_e5m2", -math.inf, {NEAR: 0xFB, UP: 0xFB}, True)
_h("float8_e5m2", math.nan, {NEAR: 0x7E}, True)
_h("float8_e5m2", -math.nan, {NEAR: 0xFE}, True)
# float8_e5m2fnuz: max 57344 = 0x7F
_h("float8_e5m2fnuz", 1e6, {NEAR: 0x80, TZ: 0x7F, DOWN: 0x7F, UP: 0x80})
# float8_e4m3 (IEEE-like): max 240 = 0x77, inf 0x78; 248 ties up to 256
_h("float8_e4m3", 248.0, {NEAR: 0x78, AWAY: 0x78, TZ: 0x77, UP: 0x78, DOWN: 0x77})
# float8_e3m4: max 15.5 = 0x6F, inf 0x70
_h("float8_e3m4", 15.75, {NEAR: 0x70, AWAY: 0x70, TZ: 0x6F, UP: 0x70, DOWN: 0x6F})
_h("float8_e3m4", 15.75, {NEAR: 0x6F, UP: 0x6F}, True)
# float8_e4m3b11fnuz: max 30 = 0x7F; 31 ties to 32 (30 is odd): overflow
_h("float8_e4m3b11fnuz", 31.0, {NEAR: 0x80, AWAY: 0x80, TZ: 0x7F, UP: 0x80, DOWN: 0x7F})
_h("float8_e4m3b11fnuz", 31.0, {NEAR: 0x7F, AWAY: 0x7F}, True)
# float8_e8m0fnu: 2 = 0x80, 4 = 0x81, 2^127 = 0xFE, NaN 0xFF
_h("float8_e8m0fnu", 3.0, {NEAR: 0x81, AWAY: 0x81, TZ: 0x80, UP: 0x81, DOWN: 0x80})
_h("float8_e8m0fnu", 2.5, {NEAR: 0x80, AWAY: 0x80, TZ: 0x80, UP: 0x81, DOWN: 0x80})
_h("float8_e8m0fnu", 3.5, {NEAR: 0x81, AWAY: 0x81, TZ: 0x80, UP: 0x81, DOWN: 0x80})
_h("float8_e8m0fnu", 2.0**-130, {NEAR: 0x00, AWAY: 0x00, TZ: 0x00, UP: 0x00, DOWN: 0x00})
_h("float8_e8m0fnu", 0.0, {NEAR: 0xFF, TZ: 0xFF, UP: 0xFF, DOWN: 0xFF})
_h("float8_e8m0fnu", -0.0, {NEAR: 0xFF, UP: 0xFF})
_h("float8_e8m0fnu", -1.0, {NEAR: 0xFF, TZ: 0xFF, UP: 0xFF, DOWN: 0xFF})
_h("float8_e8m0fnu", -1.0, {NEAR: 0xFF, UP: 0xFF}, True)
_h("float8_e8m0fnu", math.nan, {NEAR: 0xFF, DOWN: 0xFF}, True)
_h("float8_e8m0fnu", 1.5 * 2.0**127, {NEAR: 0xFF, AWAY: 0xFF, TZ: 0xFE, UP: 0xFF, DOWN: 0xFE})
_h("float8_e8m0fnu", 1.25 * 2.0**127, {NEAR: 0xFE, AWAY: 0xFE, TZ: 0xFE, UP: 0xFF, DOWN: 0xFE})
_h("float8_e8m0fnu", 1.5 * 2.0**127, {NEAR: 0xFE, UP: 0xFE}, True)
_h("float8_e8m0fnu", 1e300, {NEAR: 0xFF, TZ: 0xFE, UP: 0xFF, DOWN: 0xFE})
_h("float8_e8m0fnu", math.inf, {NEAR: 0xFF, TZ: 0xFF, DOWN: 0xFF})
_h("float8_e8m0fnu", math.inf, {NEAR: 0xFE, DOWN: 0xFE}, True)
# float4_e2m1fn: 0 .5 1 1.5 2 3 4 6 = codes 0..7
_h("float4_e2m1fn", 5.0, {NEAR: 0x6, AWAY: 0x7, TZ: 0x6, UP: 0x7, DOWN: 0x6})
_h("float4_e2m1fn", 7.0, {NEAR: 0x7, AWAY: 0x7, TZ: 0x7, UP: 0x7, DOWN: 0x7})
_h("float4_e2m1fn", -7.0, {NEAR: 0xF, UP: 0xF, DOWN: 0xF})
_h("float4_e2m1fn", 0.25, {NEAR: 0x0, AWAY: 0x1, TZ: 0x0, UP: 0x1, DOWN: 0x0})
_h("float4_e2m1fn", -0.25, {NEAR: 0x8, AWAY: 0x9, TZ: 0x8, UP: 0x8, DOWN: 0x9})
_h("float4_e2m1fn", 2.5, {NEAR: 0x4, AWAY: 0x5, TZ: 0x4, UP: 0x5, DOWN: 0x4})
_h("float4_e2m1fn", math.nan, {NEAR: 0x8, UP: 0x8}, True)
_h("float4_e2m1fn", -math.nan, {NEAR: 0x0, DOWN: 0x0}, True)
_h("float4_e2m1fn", math.inf, {NEAR: 0x7, DOWN: 0x7}, True)
_h("float4_e2m1fn", -math.inf, {NEAR: 0xF, UP: 0xF}, True)
# float6_e2m3fn: 1 = 0x08, 1.125 = 0x09, max 7.5 = 0x1F
_h("float6_e2m3fn", 1.0625, {NEAR: 0x08, AWAY: 0x09, TZ: 0x08, UP: 0x09, DOWN: 0x08})
_h("float6_e2m3fn", 7.75, {NEAR: 0x1F, AWAY: 0x1F, UP: 0x1F})
_h("float6_e2m3fn", -7.75, {NEAR: 0x3F, DOWN: 0x3F, TZ: 0x3F})
_h("float6_e2m3fn", math.nan, {NEAR: 0x20}, True)
# float6_e3m2fn: 1 = 0x0C, 1.25 = 0x0D, max 28 = 0x1F
_h("float6_e3m2fn", 1.125, {NEAR: 0x0C, AWAY: 0x0D, TZ: 0x0C, UP: 0x0D, DOWN: 0x0C})
_h("float6_e3m2fn", -1.375, {NEAR: 0x2E, AWAY: 0x2E, TZ: 0x2D, UP: 0x2D, DOWN: 0x2E})
# bfloat16: 1 = 0x3F80, 1 + 2^-7 = 0x3F81
_h("bfloat16", 1 + 2.0**-8, {NEAR: 0x3F80, AWAY: 0x3F81, TZ: 0x3F80, UP: 0x3F81, DOWN: 0x3F80})
_h("bfloat16", -(1 + 2.0**-8), {NEAR: 0xBF80, AWAY: 0xBF81, TZ: 0xBF80, UP: 0xBF80,
                                DOWN: 0xBF81})
_h("bfloat16", 1 + 2.0**-30, {NEAR: 0x3F80, UP: 0x3F81, DOWN: 0x3F80})
_h("bfloat16", float(np.finfo(np.float32).max),
   {NEAR: 0x7F80, AWAY: 0x7F80, TZ: 0x7F7F, UP: 0x7F80, DOWN: 0x7F7F})
_h("bfloat16", 1e300, {NEAR: 0x7F7F, UP: 0x7F7F}, True)

HAND_IDS = [f"{n}-{v!r}-{m}-{'sat' if s else 'nosat'}" for n, v, m, s, _ in HAND]


@pytest.mark.parametrize("name,value,mode,saturate,code", HAND, ids=HAND_IDS)
def test_reference_hand_table(name, value, mode, saturate, code):
    assert I.cast_exact(name, value, mode, saturate)[0] == code
    got = I.cast_array(name, np.array([value]), mode, saturate)[0][0]
    assert got == code


@pytest.mark.parametrize("name,value,mode,saturate,code", HAND, ids=HAND_IDS)
def test_hand_table(mf, name, value, mode, saturate, code):
    T = getattr(mf, name)
    for x in (np.array([value]), np.array([value, value], dtype=np.float64)):
        assert_codes(mcast(mf, x, T, rounding=mode, saturate=saturate), [code] * x.size, x,
                     f"{name} {mode} sat={saturate}")
    if np.isnan(value) or abs(value) < 3e38:  # exact in float32 as well
        x32 = np.array([value], dtype=np.float32)
        if np.isnan(value) or float(x32[0]) == value:
            assert_codes(mcast(mf, x32, T, rounding=mode, saturate=saturate), [code], x32,
                         f"{name} {mode} sat={saturate} (float32)")


# --------------------------------------------------------------------------
# Reference self-checks
# --------------------------------------------------------------------------


@ALL
def test_reference_nearest_even_is_the_default_cast_reference(name):
    x = case_inputs(name, np.float64)
    for sat in (False, True):
        got, over = I.cast_array(name, x, "nearest_even", sat)
        exp, flags = R.encode_array(name, x, sat)
        assert (got == exp).all()
        if not sat:
            assert (over == flags["overflow"]).all()


@ALL
def test_reference_vectorized_matches_fractions(name):
    rng = np.random.default_rng(seed_of("refcheck", name))
    x = rng.choice(case_inputs(name, np.float64), 120)
    x32 = rng.choice(case_inputs(name, np.float32), 60)
    for xs in (x, x32):
        draws = rng.integers(0, 2**64, xs.size, dtype=np.uint64)
        for mode in MODES:
            for sat in (False, True):
                va, vo = I.cast_array(name, xs, mode, sat, draws)
                for i, v in enumerate(xs):
                    assert I.cast_exact(name, v, mode, sat, draws[i]) == (va[i], vo[i]), (
                        name, mode, sat, v)


def test_reference_stochastic_threshold_split_is_exact():
    rng = np.random.default_rng(5)
    f = rng.random(2000)
    f[:4] = [0.0, 0.5, 1 - 2.0**-53, 2.0**-1074]
    got = I._threshold_u64(f)
    for g, v in zip(got, f):
        assert int(g) == math.floor(Fraction(v) * 2**64)


@ALL
def test_reference_directed_modes_bracket_the_value(name):
    """up >= x >= down, toward_zero never grows, nearest is one of them."""
    x = case_inputs(name, np.float64)
    fin = np.isfinite(x)
    vals = {}
    for mode in DET:
        c = I.cast_array(name, x, mode, saturate=True)[0]
        vals[mode] = R.decode_array(name, c)
    ok = fin & ~np.isnan(vals["up"]) & ~np.isnan(vals["down"])
    inside = ok & (np.abs(x) <= float(R.finfo_expected(name)["max"]))
    if not R.FORMATS[name].has_zero:  # below the smallest value every mode gives it
        inside &= np.abs(x) >= float(R.finfo_expected(name)["smallest_subnormal"])
    if not R.FORMATS[name].signed:  # negative values are invalid
        inside &= x >= 0
    assert (vals["up"][inside] >= x[inside]).all()
    assert (vals["down"][inside] <= x[inside]).all()
    assert (np.abs(vals["toward_zero"][inside]) <= np.abs(x[inside])).all()
    for m in ("nearest_even", "nearest_away"):
        v = vals[m][inside]
        assert ((v == vals["up"][inside]) | (v == vals["down"][inside])).all()


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------

_CASES = {}


def case_inputs(name, dtype):
    """Every value, every midpoint, their dtype neighbours (reference
    boundary cases), the neighbours of every value, specials, NaN payloads,
    values around max and below the smallest value."""
    key = (name, np.dtype(dtype).name)
    if key in _CASES:
        return _CASES[key]
    dtype = np.dtype(dtype)
    x, _, _ = R.boundary_cases(name, dtype)
    vals = R.decode_array(name, R.all_codes(name))
    vals = vals[np.isfinite(vals)]
    with np.errstate(over="ignore"):
        v = vals.astype(dtype)
    v = v[v.astype(np.float64) == vals]
    inf = dtype.type(np.inf)
    nb = np.concatenate([np.nextafter(v, inf), np.nextafter(v, -inf)])
    fi = np.finfo(dtype)
    if dtype == np.float32:
        nan_bits = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFBFFFFF], np.uint32)
    else:
        nan_bits = np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001,
                             0xFFF7FFFFFFFFFFFF], np.uint64)
    extra = np.array([0.0, -0.0, np.inf, -np.inf, fi.max, -fi.max, fi.smallest_subnormal,
                      -fi.smallest_subnormal, fi.smallest_normal, 1e-30, -1e-30, 3.0, -3.0],
                     dtype=dtype)
    out = np.concatenate([x, nb, extra, nan_bits.view(dtype)]).astype(dtype)
    out.setflags(write=False)
    _CASES[key] = out
    return out


def random_samples(name, dtype, n=20_000):
    rng = np.random.default_rng(seed_of("rand", name, np.dtype(dtype).name))
    if np.dtype(dtype) == np.float32:
        bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
        full = bits.view(np.float32)
    else:
        bits = rng.integers(0, 2**63, n, dtype=np.uint64) | (
            rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(63))
        full = bits.view(np.float64)
    fi = R.finfo_expected(name)
    lo = R.floor_log2(fi["smallest_subnormal"]) - 3
    hi = R.floor_log2(fi["max"]) + 2
    m = 1 + rng.random(n)
    inrange = np.ldexp(m, rng.integers(lo, hi + 1, n)) * rng.choice([-1.0, 1.0], n)
    with np.errstate(over="ignore", under="ignore"):
        inrange = inrange.astype(dtype)
    return np.concatenate([full, inrange])


# --------------------------------------------------------------------------
# Every mode, every format, float32/float64 sources
# --------------------------------------------------------------------------


@ALL
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", MODES)
def test_every_value_midpoint_and_neighbour(mf, name, dtype, mode):
    T = getattr(mf, name)
    x = case_inputs(name, dtype)
    for sat in (False, True):
        seed = seed_of("bound", name, mode, sat)
        got = mcast(mf, x, T, **kw_for(mode, sat, seed))
        assert isinstance(got, np.ndarray) and got.dtype == np.dtype(T)
        assert got.shape == x.shape
        assert_codes(got, expected(name, x, mode, sat, seed), x,
                     f"{name} {mode} saturate={sat} from {np.dtype(dtype)}")


def check_every_mode(mf, name, x, seed_tag, source):
    """mf.cast of `x` into `name` in every mode, saturating or not, against
    the reference (seeds drawn from `seed_tag`; `source` names x's dtype)."""
    T = getattr(mf, name)
    for mode in MODES:
        for sat in (False, True):
            seed = seed_of(seed_tag, name, mode, sat)
            got = mcast(mf, x, T, **kw_for(mode, sat, seed))
            assert_codes(got, expected(name, x, mode, sat, seed), x,
                         f"{name} {mode} saturate={sat} from {source}")


@ALL
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_random_samples_every_mode(mf, name, dtype):
    check_every_mode(mf, name, random_samples(name, dtype), "random", np.dtype(dtype))


@ALL
def test_all_float16_every_mode(mf, name):
    x = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    check_every_mode(mf, name, x, "f16", "float16")


@ALL
def test_nearest_even_is_astype(mf, name):
    """Default rounding: identical bits to np.asarray(x).astype(dtype)."""
    T = getattr(mf, name)
    for dtype in (np.float16, np.float32, np.float64):
        if dtype == np.float16:
            x = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
        else:
            x = np.concatenate([case_inputs(name, dtype), random_samples(name, dtype, 3000)])
        with np.errstate(all="ignore"):
            ref = codes(x.astype(T))
        assert_codes(mcast(mf, x, T), ref, x, f"{name} default")
        assert_codes(mcast(mf, x, T, rounding="nearest_even"), ref, x, f"{name} nearest_even")
        assert_codes(mcast(mf, x, T, rounding="nearest"), ref, x, f"{name} nearest")
        assert_codes(mcast(mf, x, T, rounding="nearest", saturate=False), ref, x, name)


@ALL
@pytest.mark.parametrize("src", NAMES)
def test_format_to_format_every_code_every_mode(mf, src, name):
    S, T = getattr(mf, src), getattr(mf, name)
    c = R.all_codes(src)
    a = c.view(S)
    vals = R.decode_array(src, c)  # exact, NaN sign = the code's sign bit
    for mode in MODES:
        for sat in (False, True):
            seed = seed_of("f2f", src, name, mode, sat)
            got = mcast(mf, a, T, **kw_for(mode, sat, seed))
            assert_codes(got, expected(name, vals, mode, sat, seed), vals,
                         f"{src}->{name} {mode} saturate={sat}")


# --------------------------------------------------------------------------
# Integer, bool and longdouble sources
# --------------------------------------------------------------------------

INT_TYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


def int_candidates(name):
    vals = [v for v, _ in R.finite_values(name) if v.denominator == 1 and abs(v) < 2**64]
    pos = sorted(set(int(abs(v)) for v in vals))
    out = set()
    for a, b in zip(pos, pos[1:]):
        out.update((a - 1, a, a + 1, (a + b) // 2, (a + b + 1) // 2, (3 * a + b) // 4))
    if pos:
        top = pos[-1]
        out.update((top + 1, top * 2, top * 2 + 1, top * 3))
    big = [2**53 + 1, 2**60 + 2**52 + 1, 2**62 + 2**54, 2**62 + 2**54 + 1, 2**62 + 2**55 - 1,
           2**63 - 1, 2**63, 2**63 + 2**55, 2**63 + 2**55 + 1, 2**64 - 1, 2**61 + 1,
           3 * 2**60, 3 * 2**60 + 1, 0, 1, 2, 3, 5, 7, 100, 1000, 10**6, 10**9]
    out.update(big)
    out = sorted(v for v in out if 0 <= v < 2**64)
    if len(out) > 3000:  # bfloat16: keep the run short
        rng = np.random.default_rng(seed_of("intcand", name))
        keep = set(rng.choice(len(out), 3000, replace=False).tolist())
        out = sorted(set(v for i, v in enumerate(out) if i in keep) | set(big))
    return out + [-v for v in out if v]


@ALL
@pytest.mark.parametrize("it", INT_TYPES + [np.bool_])
def test_integer_sources(mf, name, it):
    T = getattr(mf, name)
    if it is np.bool_:
        x = np.array([False, True, True, False])
    else:
        info = np.iinfo(it)
        cand = [v for v in int_candidates(name) if info.min <= v <= info.max]
        cand += [info.min, info.max, info.min + 1, info.max - 1]
        if info.bits <= 16:
            cand += list(range(info.min, info.max + 1))
        x = np.array(sorted(set(cand)), dtype=it)
    small = np.array([abs(int(v)) <= 2**53 for v in x])
    for mode in MODES:
        for sat in (False, True):
            seed = seed_of("int", name, np.dtype(it).name, mode, sat)
            draws = draws_for(seed, x.size)
            exp = I.cast_array(name, x.astype(np.float64), mode, sat, draws)[0]
            for i in np.nonzero(~small)[0]:
                exp[i] = I.cast_exact(name, int(x[i]), mode, sat, draws[i])[0]
            got = mcast(mf, x, T, **kw_for(mode, sat, seed))
            assert_codes(got, exp, x, f"{name} {mode} saturate={sat} from {np.dtype(it)}")


def test_int64_beyond_2_53_examples(mf):
    """Single rounding of int64/uint64 beyond 2**53 (not through float64)."""
    T = mf.bfloat16
    # 2**62 + 2**54 is a bfloat16 tie (gap 2**55); +1 breaks it upwards
    x = np.array([2**62 + 2**54, 2**62 + 2**54 + 1, 2**62 + 1, -(2**62 + 1)], np.int64)
    one = 0x5E80  # 2**62
    nxt = 0x5E81  # 2**62 + 2**55
    exp = {
        "nearest_even": [one, nxt, one, 0x8000 | one],
        "nearest_away": [nxt, nxt, one, 0x8000 | one],
        "toward_zero": [one, one, one, 0x8000 | one],
        "up": [nxt, nxt, nxt, 0x8000 | one],
        "down": [one, one, one, 0x8000 | nxt],
    }
    for mode, e in exp.items():
        assert_codes(mcast(mf, x, T, rounding=mode), e, x, f"bfloat16 {mode}")
    u = np.array([2**64 - 1, 2**63 + 1], np.uint64)
    assert_codes(mcast(mf, u, T, rounding="toward_zero"), [0x5F7F, 0x5F00], u, "uint64 tz")
    assert_codes(mcast(mf, u, T, rounding="up"), [0x5F80, 0x5F01], u, "uint64 up")
    # float8_e8m0fnu: 2**60 + 1 is just above a power of two
    e = np.array([2**60 + 1], np.int64)
    assert_codes(mcast(mf, e, mf.float8_e8m0fnu, rounding="up"), [127 + 61], e, "e8m0 up")
    assert_codes(mcast(mf, e, mf.float8_e8m0fnu, rounding="down"), [127 + 60], e, "e8m0 down")


@pytest.mark.skipif(not LONGDOUBLE_WIDER, reason="longdouble is float64 here")
@ALL
def test_longdouble_sources(mf, name):
    T = getattr(mf, name)
    base = case_inputs(name, np.float64)
    base = base[np.isfinite(base) & (np.abs(base) < 1e300) & (np.abs(base) > 1e-300)]
    rng = np.random.default_rng(seed_of("ld", name))
    base = rng.choice(base, min(base.size, 400), replace=False)
    ld = base.astype(np.longdouble)
    eps = np.longdouble(2) ** -60
    x = np.concatenate([ld * (1 + eps), ld * (1 - eps), ld,
                        np.array([np.nan, -np.inf, np.inf, -0.0], np.longdouble)])
    for mode in MODES:
        for sat in (False, True):
            seed = seed_of("ld", name, mode, sat)
            draws = draws_for(seed, x.size)
            exp = [I.cast_exact(name, v, mode, sat, draws[i])[0] for i, v in enumerate(x)]
            got = mcast(mf, x, T, **kw_for(mode, sat, seed))
            assert_codes(got, exp, x, f"{name} {mode} saturate={sat} from longdouble")


@pytest.mark.skipif(not LONGDOUBLE_WIDER, reason="longdouble is float64 here")
def test_longdouble_single_rounding_examples(mf):
    x = np.array([1 + 2.0**-4], np.longdouble) + np.longdouble(2) ** -60
    assert_codes(mcast(mf, x, mf.float8_e4m3fn), [0x39], x, "above a tie")
    y = np.array([1], np.longdouble) + np.longdouble(2) ** -60
    assert_codes(mcast(mf, y, mf.float8_e4m3fn, rounding="up"), [0x39], y, "up")
    assert_codes(mcast(mf, -y, mf.float8_e4m3fn, rounding="down"), [0xB9], y, "down")


# --------------------------------------------------------------------------
# Stochastic rounding
# --------------------------------------------------------------------------


def test_stochastic_hand_thresholds(mf):
    """float8_e4m3fn, x = 1 + f/8 lies a fraction f of the way from 1.0
    (0x38) to 1.125 (0x39): it goes up iff its 32-bit draw < floor(f * 2**32)."""
    n = 4000
    seed = 1234
    d = draws32_for(seed, n)
    for f in (Fraction(1, 2), Fraction(1, 4), Fraction(3, 4), Fraction(1, 1024)):
        x = np.full(n, float(1 + f / 8))
        got = codes(mf.cast(x, mf.float8_e4m3fn, rounding="stochastic", rng=seed))
        thr = np.uint64(math.floor(f * 2**32))
        exp = np.where(d < thr, 0x39, 0x38)
        assert_codes(got, exp, x, f"f={f}")
        neg = codes(mf.cast(-x, mf.float8_e4m3fn, rounding="stochastic", rng=seed))
        assert_codes(neg, exp | 0x80, -x, f"f=-{f}")
        x32 = x.astype(np.float32)
        assert_codes(mf.cast(x32, mf.float8_e4m3fn, rounding="stochastic", rng=seed), exp, x32, f"f32 f={f}")


def test_stochastic_threshold_is_floor_of_f_times_2_32(mf):
    """x is built from its own draw d: f = (d + 1) / 2**32 goes up (d < d + 1);
    f = d / 2**32 + 2**-45 stays down (floor(f * 2**32) = d, and d < d is
    false): a threshold rounded instead of floored, one with <= instead of <,
    or fewer than 32 bits gets some of these wrong. float64 x = 1 + f/8."""
    n = 3000
    seed = 77
    d = draws32_for(seed, n)
    up = np.arange(n) % 2 == 0
    f = np.where(up, (d + np.uint64(1)).astype(np.float64) * 2.0**-32, d.astype(np.float64) * 2.0**-32 + 2.0**-45)
    x = 1 + f / 8  # exact: f has at most 45 fraction bits
    exp = np.where(up & (f < 1), 0x39, 0x38)
    exp = np.where(f >= 1, 0x39, exp)
    got = codes(mf.cast(x, mf.float8_e4m3fn, rounding="stochastic", rng=seed))
    assert_codes(got, exp, x, "float64 near-threshold")
    ref = I.cast_array("float8_e4m3fn", x, "stochastic", draws=draws_for(seed, n))[0]
    assert (ref == exp).all()


def test_stochastic_threshold_is_strict_less_than(mf):
    """float8_e8m0fnu, x = 1 + f: x = 1 + d / 2**32 (threshold exactly d)
    rounds down to 1 (0x7F); x = 1 + (d + 1) / 2**32 rounds up to 2 (0x80)."""
    seed = 2024
    n = 2000
    d = draws32_for(seed, n)
    even = np.arange(n) % 2 == 0
    t = np.where(even, d, d + np.uint64(1))
    x = 1 + t.astype(np.float64) * 2.0**-32  # exact
    exp = np.where(even | (t >= 2**32), 0x7F, 0x80)
    exp = np.where(t >= 2**32, 0x80, exp)
    got = codes(mf.cast(x, mf.float8_e8m0fnu, rounding="stochastic", rng=seed))
    assert_codes(got, exp, x, "e8m0 threshold (float64)")
    assert (I.cast_array("float8_e8m0fnu", x, "stochastic", draws=draws_for(seed, n))[0] == exp).all()


@pytest.mark.skipif(not LONGDOUBLE_WIDER, reason="longdouble is float64 here")
def test_stochastic_longdouble_fraction_is_exact(mf):
    """float8_e8m0fnu, x = 1 + t / 2**64 with 63 fraction bits (longdouble):
    t = d * 2**32 + 2**32 - 2 has floor(f * 2**32) = d: down (0x7F);
    t = (d + 1) * 2**32: up (0x80). Rounded to float64 first, the first
    kind would become 1 + (d + 1) / 2**32 and go up."""
    n = 2000
    seed = 99
    d = draws32_for(seed, n)
    even = [i % 2 == 0 and int(v) < 2**32 - 1 for i, v in enumerate(d)]
    t = [(int(v) << 32) + 2**32 - 2 if e else (int(v) + 1) << 32 for v, e in zip(d, even)]

    def ld(v):  # exact: two 32-bit halves, 64-bit longdouble significand
        return np.longdouble(v >> 32) * np.longdouble(2**32) + np.longdouble(v & 0xFFFFFFFF)

    x = np.array([np.longdouble(1) + ld(v) / np.longdouble(2**64) for v in t])
    assert all(Fraction(*v.as_integer_ratio()) == 1 + Fraction(tv, 2**64) for v, tv in zip(x, t))
    exp = np.where(even, 0x7F, 0x80)
    got = codes(mf.cast(x, mf.float8_e8m0fnu, rounding="stochastic", rng=seed))
    assert_codes(got, exp, x, "e8m0 threshold (longdouble)")


@pytest.mark.parametrize(
    "make_rng",
    [
        lambda s: s,
        lambda s: np.int64(s),
        lambda s: s + 2**80,  # (seeds are remembered: a big one is a key too)
        lambda s: np.random.default_rng(s),
        lambda s: np.random.Generator(np.random.PCG64DXSM(s)),
        lambda s: np.random.Generator(np.random.Philox(s)),
        lambda s: np.random.Generator(np.random.MT19937(s)),
    ],
    ids=["int-seed", "numpy-int-seed", "big-int-seed", "default_rng", "PCG64DXSM", "Philox", "MT19937"],
)
def test_stochastic_draws_come_from_the_bit_generator(mf, make_rng):
    name = "float8_e5m2"
    x = random_samples(name, np.float64, 2000)
    rng = make_rng(11)
    twin = make_rng(11)
    twin = twin if isinstance(twin, np.random.Generator) else np.random.default_rng(twin)
    key = int(twin.bit_generator.random_raw())
    draws = (draws32_from_key(key, x.size) << np.uint64(32)) | np.uint64(0xFFFFFFFF)
    got = mcast(mf, x, mf.float8_e5m2, rounding="stochastic", rng=rng)
    assert_codes(got, I.cast_array(name, x, "stochastic", draws=draws)[0], x, name)
    if isinstance(rng, np.random.Generator):
        # exactly one draw (the key) was consumed
        assert rng.bit_generator.random_raw(3).tolist() == twin.bit_generator.random_raw(
            3).tolist()


def test_stochastic_draws_in_c_order_one_key_per_call(mf):
    name = "float8_e4m3fn"
    base = np.array(random_samples(name, np.float64, 600)[:600]).reshape(20, 30)
    for x in (base.T, base[::2, ::-3], base[:, 5]):
        xc = np.ascontiguousarray(x)
        a = mcast(mf, x, mf.float8_e4m3fn, rounding="stochastic", rng=3)
        assert a.shape == x.shape
        exp = I.cast_array(name, xc, "stochastic", draws=draws_for(3, xc.size))[0]
        assert_codes(a, exp, xc, "non-contiguous")
    # NaN, exact values and zeros have their draws too (element i takes d_i)
    x = np.array([np.nan, 1.0, 0.0, 1.0625, -1.0625, np.inf, 1.0625])
    exp = I.cast_array(name, x, "stochastic", draws=draws_for(8, x.size))[0]
    assert_codes(mcast(mf, x, mf.float8_e4m3fn, rounding="stochastic", rng=8), exp, x, "mix")
    g = np.random.default_rng(8)
    mcast(mf, x, mf.float8_e4m3fn, rounding="stochastic", rng=g)
    t = np.random.default_rng(8)
    t.bit_generator.random_raw(1)  # one key per call, whatever the size
    assert g.bit_generator.random_raw() == t.bit_generator.random_raw()
    # empty input consumes nothing
    g = np.random.default_rng(8)
    e = mcast(mf, np.zeros(0), mf.float8_e4m3fn, rounding="stochastic", rng=g)
    assert e.shape == (0,) and e.dtype == np.dtype(mf.float8_e4m3fn)
    assert g.bit_generator.random_raw() == np.random.default_rng(8).bit_generator.random_raw()


@ALL
def test_stochastic_reproducible_and_exact_values_fixed(mf, name):
    T = getattr(mf, name)
    x = case_inputs(name, np.float64)
    a = mcast(mf, x, T, rounding="stochastic", rng=42)
    b = mcast(mf, x, T, rounding="stochastic", rng=42)
    assert (codes(a) == codes(b)).all()
    # every representable value is returned unchanged whatever the draws
    c = R.all_codes(name)
    vals = R.decode_array(name, c)
    fin = np.isfinite(vals)
    for seed in (0, 1, None):
        got = mcast(mf, vals[fin], T, rounding="stochastic", rng=seed)
        assert_codes(got, R.encode_array(name, vals[fin])[0], vals[fin], f"{name} exact")
    # rng=None: each result is one of the two neighbours
    got = codes(mcast(mf, x, T, rounding="stochastic"))
    lo = I.cast_array(name, x, "stochastic", draws=np.full(x.size, 2**64 - 1, np.uint64))[0]
    hi = I.cast_array(name, x, "stochastic", draws=np.zeros(x.size, np.uint64))[0]
    ok = (got == lo) | (got == hi)
    assert ok.all(), list(zip(x[~ok][:5], got[~ok][:5], lo[~ok][:5], hi[~ok][:5]))


STAT_CASES = [
    ("float8_e4m3fn", 1.0, 0x38, [0.1, 0.5, 0.77]),
    ("float8_e5m2", -3.0, 0xC2, [0.3, 0.9]),
    ("float8_e4m3fnuz", 2.0**-8, 0x04, [0.25, 0.6]),  # subnormal range
    ("float8_e8m0fnu", 2.0, 0x80, [0.5, 0.1]),
    ("float4_e2m1fn", 4.0, 0x6, [0.2, 0.5]),
    ("float6_e3m2fn", 0.25, 0x04, [0.37]),
    ("bfloat16", 1.0, 0x3F80, [0.33, 0.5]),
]


@pytest.mark.parametrize("name,base,base_code,fracs", STAT_CASES,
                         ids=[c[0] for c in STAT_CASES])
@pytest.mark.parametrize("rng_kind", ["seed", "none"])
def test_stochastic_is_unbiased(mf, name, base, base_code, fracs, rng_kind):
    """E[result] = x: the sample mean is within 6 standard errors."""
    T = getattr(mf, name)
    fmt = R.FORMATS[name]
    assert R.decode_float(name, base_code) == base
    nxt = base_code + 1  # the larger-magnitude neighbour
    hi = R.decode_float(name, nxt)
    gap = abs(hi - base)
    n = 40_000
    for f in fracs:
        xv = base + math.copysign(f * gap, base)
        assert abs(base) < abs(xv) < abs(hi)
        x = np.full(n, xv)
        rng = seed_of("stat", name, f) if rng_kind == "seed" else None
        got = mcast(mf, x, T, rounding="stochastic", rng=rng)
        c = codes(got)
        assert set(np.unique(c).tolist()) <= {base_code, nxt}
        mean = R.decode_array(fmt, c).mean()
        se = gap * math.sqrt(f * (1 - f) / n)
        assert abs(mean - xv) <= 6 * se + 1e-12 * abs(xv), (name, f, mean, xv, se)


@ALL
def test_stochastic_overflow_follows_saturate(mf, name):
    """Beyond max: rounding away gives the default overflow result
    (saturate=False) or +-max (saturate=True); toward zero gives max."""
    T = getattr(mf, name)
    fmt = R.FORMATS[name]
    mx = R.finfo_expected(name)["max"]
    gap = 2 ** Fraction(R.floor_log2(mx) - fmt.mbits)
    x = np.array([float(mx + gap / 4), float(mx + gap / 2), float(mx * 4)] * 300)
    if fmt.signed:
        x = np.concatenate([x, -x])
    for sat in (False, True):
        seed = seed_of("stoch-over", name, sat)
        got = codes(mcast(mf, x, T, rounding="stochastic", saturate=sat, rng=seed))
        if sat:  # saturating: no overflow flag
            with np.errstate(over="raise", invalid="ignore"):
                mf.cast(x, T, rounding="stochastic", saturate=True, rng=seed)
        exp = expected(name, x, "stochastic", sat, seed)
        assert_codes(got, exp, x, f"{name} saturate={sat}")
        over = R.overflow_code(fmt, False, sat)
        assert over in got.tolist()  # some draws do go past max
        assert fmt.max_code() in got.tolist()


# --------------------------------------------------------------------------
# FP flags
# --------------------------------------------------------------------------


def flag_values(name):
    fmt = R.FORMATS[name]
    mx = R.finfo_expected(name)["max"]
    gap = 2 ** Fraction(R.floor_log2(mx) - fmt.mbits)
    qs = [mx, mx + gap / 4, mx + gap / 2, mx + gap * 3 / 4, mx + gap, 2 * mx, 1000 * mx,
          Fraction(1), Fraction(3, 2)]
    xs = [float(q) for q in qs if q < 2**1000]
    xs += [float(np.finfo(np.float64).max)]
    if fmt.signed:
        xs += [-v for v in xs]
    return xs


@ALL
def test_overflow_flag_every_mode(mf, name):
    """Overflow is raised as IEEE does (rounded result with unbounded exponent
    beyond max), whether the result is +-max or the overflow value; never with
    saturate=True."""
    T = getattr(mf, name)
    for v in flag_values(name):
        x = np.array([v])
        for mode in DET:
            code, over = I.cast_exact(name, v, mode)
            with np.errstate(over="raise", invalid="ignore"):
                if over:
                    with pytest.raises(FloatingPointError):
                        mf.cast(x, T, rounding=mode)
                else:
                    assert codes(mf.cast(x, T, rounding=mode))[0] == code
            with np.errstate(over="raise", invalid="ignore"):
                got = mf.cast(x, T, rounding=mode, saturate=True)
            assert codes(got)[0] == I.cast_exact(name, v, mode, True)[0]


def test_overflow_warns_when_rounded_toward_zero(mf):
    x = np.array([1000.0])
    with pytest.warns(RuntimeWarning, match="overflow"):
        r = mf.cast(x, mf.float8_e4m3fn, rounding="toward_zero")
    assert codes(r)[0] == 0x7E
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = mf.cast(x, mf.float8_e4m3fn, rounding="toward_zero", saturate=True)
        assert codes(r)[0] == 0x7E
        # 449 rounds toward zero to 448 without overflow
        r = mf.cast(np.array([449.0]), mf.float8_e4m3fn, rounding="toward_zero")
        assert codes(r)[0] == 0x7E


# --------------------------------------------------------------------------
# Arguments, scalars, errors
# --------------------------------------------------------------------------


def scalar_code(s, T):
    assert type(s) is T, (type(s), T)
    return int(codes(np.array([s], dtype=T))[0])


def test_scalar_inputs_give_scalars(mf):
    T = mf.float8_e4m3fn
    cases = [
        (1.0625, "up", 0x39),
        (1.0625, "nearest_even", 0x38),
        (np.float32(1.0625), "nearest_away", 0x39),
        (np.float64(-1.0625), "down", 0xB9),
        (np.float16(1.0625), "toward_zero", 0x38),
        (3, "nearest_even", 0x44),
        (np.int64(17), "up", 0x59),  # 17 -> 18
        (np.uint8(17), "down", 0x58),  # 17 -> 16
        (True, "nearest_even", 0x38),
        (np.bool_(False), "up", 0x00),
        (np.longdouble(1.0625), "up", 0x39),
    ]
    for v, mode, code in cases:
        r = mcast(mf, v, T, rounding=mode)
        assert scalar_code(r, T) == code, (v, mode)
    # a minifloat scalar source
    s = np.array([0x3A], np.uint8).view(mf.float8_e5m2)[0]  # 0.75 in e5m2
    assert scalar_code(mcast(mf, s, mf.float4_e2m1fn, rounding="up"), mf.float4_e2m1fn) == 0x2
    assert scalar_code(mcast(mf, s, mf.float4_e2m1fn, rounding="down"),
                       mf.float4_e2m1fn) == 0x1
    r = mcast(mf, 1.0625, T, rounding="stochastic", rng=5)
    d = draws32_for(5, 1)[0]
    assert scalar_code(r, T) == (0x39 if d < 2**31 else 0x38)


def test_zero_dim_array_keeps_shape(mf):
    for mode in MODES:
        r = mcast(mf, np.array(1.0625), mf.float8_e4m3fn, **kw_for(mode, False, 0))
        assert np.shape(r) == ()
        assert np.asarray(r).dtype == np.dtype(mf.float8_e4m3fn)
    r = mcast(mf, np.array(1.0625), mf.float8_e4m3fn, rounding="up")
    assert codes(np.asarray(r).reshape(1))[0] == 0x39


def test_shapes_preserved(mf):
    T = mf.float8_e5m2
    for shape in [(0,), (3,), (2, 3), (2, 0, 4), (1, 1, 1, 5)]:
        x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) / 7
        for mode in MODES:
            r = mcast(mf, x, T, **kw_for(mode, False, 0))
            assert isinstance(r, np.ndarray) and r.shape == shape and r.dtype == np.dtype(T)
    r = mcast(mf, [[1.5, 2.5], [3.5, -1e9]], T, rounding="up")
    assert r.shape == (2, 2)
    assert_codes(r, [0x3E, 0x41, 0x43, 0xFB], label="nested list")


def test_dtype_argument_forms(mf):
    x = np.array([1.0625, -3.3, 1e6])
    for name in NAMES:
        T = getattr(mf, name)
        ref = codes(mcast(mf, x, T, rounding="up"))
        for spec in (np.dtype(T), name):
            r = mcast(mf, x, spec, rounding="up")
            assert r.dtype == np.dtype(T)
            assert (codes(r) == ref).all()


@pytest.mark.parametrize("bad", [np.float32, np.dtype(np.float64), "float32", "int8",
                                 None, 3, np.uint8, "nope"])
def test_bad_dtype_is_type_error(mf, bad):
    with pytest.raises(TypeError):
        mf.cast(np.ones(2), bad)


@pytest.mark.parametrize(
    "bad",
    [
        np.array([1 + 2j]),
        1 + 1j,
        np.complex64(1),
        np.array(["1.0", 2.0], dtype=object),
        np.array(["1.0"]),
        "1.0",
        "abc",
        np.array([b"1"]),
    ],
    ids=["complex-array", "complex", "complex64", "object", "str-array", "str", "str2",
         "bytes-array"],
)
def test_bad_input_is_type_error(mf, bad):
    with pytest.raises(TypeError):
        mf.cast(bad, mf.float8_e4m3fn)


def test_object_array_of_numbers_is_exact(mf):
    """Object arrays of real numbers are accepted and rounded once, exactly
    (a Python int beyond 2^64 and a Fraction just past a tie included)."""
    from fractions import Fraction

    tie = Fraction(17, 1) + Fraction(1, 10**30)  # 16 and 18 are neighbours in e4m3fn
    x = np.array([1.0, 2**70, tie, np.float32(0.3), -3], dtype=object)
    got = codes(mf.cast(x, mf.float8_e4m3fn, saturate=True))
    expect = [I.cast_exact("float8_e4m3fn", v, "nearest_even", True)[0] for v in x]
    assert list(got) == expect
    assert got[2] == 0x59  # 18: just above the tie between 16 and 18


@pytest.mark.parametrize("bad", ["bogus", "", "NEAREST_EVEN", "round_half_up", "stochastic "])
def test_bad_rounding_is_value_error(mf, bad):
    with pytest.raises(ValueError):
        mf.cast(np.ones(2), mf.float8_e4m3fn, rounding=bad)


def test_saturate_and_rounding_are_keyword_only(mf):
    with pytest.raises(TypeError):
        mf.cast(np.ones(2), mf.float8_e4m3fn, True)


def _stochastic_mix(name, dtype, rng):
    """Normal-range, subnormal-range, beyond-max, special and far-out values
    of format `name`, interleaved so that vector steps mix them."""
    info = R.finfo_expected(name)
    mx, tiny = float(info["max"]), float(info["smallest_normal"])
    parts = [rng.standard_normal(3000) * mx / 4, rng.standard_normal(2000) * tiny * 4,
             rng.standard_normal(500) * mx * 1.5,
             np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, mx, -mx]),
             np.exp2(rng.uniform(-160, 140, 1000)) * rng.choice([-1.0, 1.0], 1000)]
    x = np.concatenate(parts)
    with np.errstate(over="ignore"):
        x = x.astype(dtype)
    blocks = np.concatenate([rng.permutation(x), x])  # shuffled, then grouped by kind
    return blocks


def check_stochastic_with_each_kernel_set(mf, name, x, salt):
    """mf.cast(x, rounding="stochastic") with the AVX-512 kernels and the
    portable ones, saturating or not, against the reference's draws."""
    T = getattr(mf, name)
    for sat in (False, True):
        seed = seed_of(salt, name, sat)
        exp = I.cast_array(name, x, "stochastic", sat, draws_for(seed, x.size))[0]
        previous = mf._core._set_avx512_kernels(True)
        try:
            for enabled in (True, False):
                mf._core._set_avx512_kernels(enabled)
                with np.errstate(all="ignore"):
                    got = mcast(mf, x, T, rounding="stochastic", saturate=sat, rng=seed)
                assert_codes(got, exp, x, f"{name} saturate={sat} avx512={enabled}")
        finally:
            mf._core._set_avx512_kernels(previous)


@ALL
@pytest.mark.parametrize("source", [np.float32, np.float64])
def test_stochastic_kernels_agree_with_the_reference(mf, name, source):
    """The hand-written (AVX-512) and portable kernels against the reference,
    on every kind of value, lengths not a multiple of any vector."""
    rng = np.random.default_rng(seed_of("kernels", name, np.dtype(source).name))
    x = _stochastic_mix(name, source, rng)[:12999]
    check_stochastic_with_each_kernel_set(mf, name, x, "kernels")


UNSIGNED_WITH_ZERO = [n for n in NAMES if not R.FORMATS[n].signed and R.FORMATS[n].has_zero]


@pytest.mark.parametrize("name", UNSIGNED_WITH_ZERO)
@pytest.mark.parametrize("source", [np.float32, np.float64])
def test_stochastic_unsigned_formats_kernels_and_negative_chunks(mf, name, source):
    """Unsigned formats: non-negative values take the stochastic kernels;
    a negative value (-0, -inf, -NaN included) goes to the exact encoders
    with the same draws (from float32 the AVX-512 kernels hand its vector
    over, whatever rule its group of 256 takes; otherwise its chunk of 2048
    is redone); both against the reference."""
    rng = np.random.default_rng(seed_of("unsigned", name, np.dtype(source).name))
    with np.errstate(invalid="ignore"):
        x = np.abs(_stochastic_mix(name, source, rng))
    x = np.concatenate([x, x[:7000]])[:20011]  # several chunks and a ragged tail
    x[1000] = -x[1000]  # among normal-range values
    x[3500] = -x[3500]  # among subnormal-range ones
    x[9000] = -x[9000]
    x[13000] = -0.0
    x[16000] = -np.inf
    x[20005] = -x[20005]  # in the tail
    check_stochastic_with_each_kernel_set(mf, name, x, "unsigned")


def grouped_inputs(name, dtype, seed):
    """Runs of 256 values (the AVX-512 stochastic kernels pick one rule per
    run of 256 from its smallest and largest magnitude) of each kind: all in
    the normal range up to max, some below it (subnormal range, zeros), some
    beyond max or not finite, and a mixed run; then a ragged tail."""
    x = random_samples(name, dtype, 40_000)
    fi = R.finfo_expected(name)
    with np.errstate(invalid="ignore"):  # signaling NaNs among the patterns
        a = np.abs(x.astype(np.float64))
        normal = x[(a >= float(fi["tiny"])) & (a <= float(fi["max"]))]
        below = x[a <= float(fi["max"])]
        beyond = x[~(a <= float(fi["max"]))]
    rng = np.random.default_rng(seed)
    pick = lambda pool, n: rng.choice(pool, n)  # noqa: E731
    runs = [
        pick(normal, 256),
        np.concatenate([pick(normal, 255), [dtype(fi["max"])]]),  # max itself is normal
        pick(below, 256),
        np.concatenate([pick(normal, 250), pick(beyond, 6)]),
        pick(x, 256 + 37),
    ]
    return np.concatenate(runs).astype(dtype)


@ALL
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_stochastic_runs_of_each_kind_with_every_kernel_set(mf, name, dtype):
    T = getattr(mf, name)
    seed = seed_of("runs", name, np.dtype(dtype).name)
    x = grouped_inputs(name, dtype, seed)
    for sat in (False, True):
        exp = expected(name, x, "stochastic", sat, seed)
        for kernel_set in mf._core._cpu_kernel_sets() + ["portable"]:
            avx512, avx2 = kernel_set == "avx512", kernel_set in ("avx512", "avx2")
            previous = mf._core._set_avx512_kernels(avx512), mf._core._set_avx2_kernels(avx2)
            try:
                got = mcast(mf, x, T, rounding="stochastic", saturate=sat, rng=seed)
            finally:
                mf._core._set_avx512_kernels(previous[0])
                mf._core._set_avx2_kernels(previous[1])
            assert_codes(got, exp, x, f"{name} {np.dtype(dtype).name} saturate={sat} {kernel_set}")


def binade_runs(name, dtype, seed):
    """Runs of 256 values (one AVX-512 group each), every value of a run in
    one binade 2**E, for every E from far below the format's smallest step
    (where the integer rules of the small-value kernels lose threshold bits
    and hand the group to the float rule) up to its normal range; then the
    same binades mixed. The threshold of a value 2**-40 steps below the
    smallest step still has set bits: these runs check every boundary.
    Binades 8 to 14 below the step (where float32's 32-bit and float64's
    64-bit shifts run out of threshold bits) get 32 runs: there a value
    rounds up with probability 2**-9 to 2**-14."""
    fi = R.finfo_expected(name)
    emin = int(np.log2(float(fi["smallest_normal"])))
    step = int(np.log2(float(fi["smallest_subnormal"])))
    rng = np.random.default_rng(seed)
    runs = []
    for e in range(step - 90, emin + 2):
        count = 256 * (32 if step - 14 <= e <= step - 8 else 1)
        significand = 1 + rng.integers(0, 2**52, count) / 2.0**52
        runs.append(np.ldexp(significand, e) * rng.choice([-1.0, 1.0], count))
    x = np.concatenate(runs)
    x = np.concatenate([x, rng.permutation(x)[:4096]])
    return x.astype(dtype)


@ALL
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_stochastic_binade_runs_against_the_reference(mf, name, dtype):
    T = getattr(mf, name)
    seed = seed_of("binades", name, np.dtype(dtype).name)
    x = binade_runs(name, dtype, seed)
    exp = expected(name, x, "stochastic", False, seed)
    got = mcast(mf, x, T, rounding="stochastic", rng=seed)
    assert_codes(got, exp, x, f"{name} {np.dtype(dtype).name} binade runs")


# --------------------------------------------------------------------------
# The AVX2 stochastic kernel (kernels/avx2/stochastic_avx2.cpp): where the
# AVX-512 one does not run, against the portable kernels and the reference
# --------------------------------------------------------------------------
needs_avx2 = pytest.mark.skipif(
    "avx2" not in __import__("minifloat")._core._cpu_kernel_sets(), reason="this CPU has no AVX2")


def _avx2_stochastic_inputs(name, dtype, seed):
    """Runs of 256 of every kind the kernel tells apart (the normal range, the
    subnormal range, far below the smallest step, beyond the largest value,
    inf/NaN, zeros) as grouped_inputs and binade_runs make them, mixed ones,
    every value and midpoint (a tie: the draw decides at 2**31) with their
    neighbours and both signs (negative values for unsigned formats too)."""
    bx = R.boundary_cases(name, dtype)[0]
    with np.errstate(invalid="ignore"):
        parts = [grouped_inputs(name, dtype, seed), binade_runs(name, dtype, seed)[::3],
                 _stochastic_mix(name, dtype, np.random.default_rng(seed)), bx,
                 np.random.default_rng(seed).permutation(bx)]
    return np.concatenate([p.astype(dtype) for p in parts])


def _casts_by_kernel_set(mf, x, T, sat, seed, kernel_set, vaes=True):
    """mf.cast's codes and warnings with one kernel set (AVX2: its draws by
    VAES or by AES-NI)."""
    previous_vaes = mf._core._set_stochastic_avx2_vaes(vaes)
    try:
        with kernels(mf, kernel_set), warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
            warnings.simplefilter("always")
            got = mf.cast(x, T, rounding="stochastic", saturate=sat, rng=seed)
    finally:
        mf._core._set_stochastic_avx2_vaes(previous_vaes)
    return codes(got), sorted({(w.category.__name__, str(w.message)) for w in caught})


@needs_avx2
@ALL
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_stochastic_avx2_kernel_bit_for_bit(mf, name, dtype):
    """The AVX2 kernel (its draws by VAES and by AES-NI) against the portable
    kernels, codes and warnings, and against the reference: unaligned starts,
    lengths with tails, several seeds, saturating or not."""
    T = getattr(mf, name)
    x = _avx2_stochastic_inputs(name, dtype, seed_of("avx2", name, np.dtype(dtype).name))
    for start, stop, sat in ((0, None, False), (1, -3, True), (3, -13, False), (5, -1, True)):
        part = x[start:stop]  # (not 32-byte aligned: starts 4 or 8 bytes in)
        seed = seed_of("avx2", name, start, sat)
        exp = expected(name, part, "stochastic", sat, seed)
        portable, portable_warnings = _casts_by_kernel_set(mf, part, T, sat, seed, "portable")
        assert_codes(portable, exp, part, f"{name} portable start={start}")
        for vaes in (True, False):
            got, got_warnings = _casts_by_kernel_set(mf, part, T, sat, seed, "avx2", vaes)
            label = f"{name} {np.dtype(dtype).name} avx2 vaes={vaes} start={start} saturate={sat}"
            assert_codes(got, exp, part, label)
            assert got_warnings == portable_warnings, label


@pytest.mark.parametrize("kernel_set", ["avx512", "avx2", "portable"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_stochastic_16_bit_format_without_negative_zero(mf, kernel_set, dtype):
    """A 16-bit format made by mf.float_format with no -0 (its code is NaN,
    as the fnuz formats'): negative values that round to zero give +0, on
    every kernel set (the AVX2 kernel drops the sign of 16 codes at once),
    the reference's codes throughout; values in the normal range, below it,
    rounding to zero about half the time, and zeros of both signs, mixed in
    runs of 256 and interleaved."""
    params = dict(exponent_bits=5, mantissa_bits=10, infinities=False, nan="negative_zero", negative_zero=False)
    T, fmt = mf.float_format(**params), R.describe(**params)
    rng = np.random.default_rng(seed_of("16-bit fnuz", np.dtype(dtype).name))
    tiny = 2.0 ** -24  # the smallest step
    kinds = [rng.standard_normal(4096) * 1000, rng.standard_normal(4096) * 2.0 ** -16,
             rng.standard_normal(4096) * tiny, np.where(rng.random(512) < 0.5, -0.0, 0.0)]
    x = np.concatenate(kinds + [rng.permutation(np.concatenate(kinds))]).astype(dtype)
    seed = seed_of("16-bit fnuz draws", np.dtype(dtype).name)
    exp = expected(fmt, x, "stochastic", False, seed)
    with kernels(mf, kernel_set):
        got = mf.cast(x, T, rounding="stochastic", rng=seed)
    assert_codes(got, exp, x, f"{kernel_set} {np.dtype(dtype).name}")
    assert not (codes(got) == 0x8000).any()  # (the NaN code: no value here is NaN)
    assert ((codes(got) == 0) & np.signbit(x) & (x != 0)).any()  # negative values did round to zero


@pytest.mark.parametrize("name", ["float8_e8m0fnu", "binary8p1ue", "binary8p1uf"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_stochastic_powers_of_two_edges_every_kernel_set(mf, name, dtype):
    """Formats of powers of two only (no fraction bits): the kernels take
    whole vectors of values inside the range from the exponent field alone
    and hand any vector with one value outside to the exact encoders. Here
    one value of the largest binade (it rounds to the largest value or
    overflows), of the smallest, or below it (or 2**-149, zero, a negative
    value) sits at every position of a run of 64 otherwise inside; a run
    whose every value lies in the largest binade follows, then a ragged
    tail. Codes against the reference, warnings as the portable kernels'
    (overflow where the reference overflows), saturating or not, on every
    kernel set."""
    T = getattr(mf, name)
    fi = R.finfo_expected(name)
    largest, smallest = float(fi["max"]), float(fi["smallest_normal"])
    rng = np.random.default_rng(seed_of("powers of two edges", name, np.dtype(dtype).name))
    inside = lambda n: np.exp2(rng.uniform(np.log2(smallest) + 1, np.log2(largest) - 1, n))  # noqa: E731
    edges = [largest * 1.0000001, largest * 1.999, largest, smallest, smallest * 1.5, smallest * 0.75,
             smallest * 0.5, 2.0**-149, 0.0, -1.0]
    runs = []
    for edge in edges:
        for position in range(64):
            run = inside(64)
            run[position] = edge
            runs.append(run)
    runs.append(largest * (1 + rng.random(256)))
    runs.append(inside(37))
    x = np.concatenate(runs).astype(dtype)
    for sat in (False, True):
        seed = seed_of("powers of two edges draws", name, np.dtype(dtype).name, sat)
        exp, overflow = I.cast_array(name, x, "stochastic", sat, draws_for(seed, x.size))
        portable_warnings = _casts_by_kernel_set(mf, x, T, sat, seed, "portable")[1]
        # (saturating casts do not warn of overflow)
        assert any("overflow" in message for _, message in portable_warnings) == (np.any(overflow) and not sat)
        for kernel_set in mf._core._cpu_kernel_sets() + ["portable"]:
            got, got_warnings = _casts_by_kernel_set(mf, x, T, sat, seed, kernel_set)
            label = f"{name} {np.dtype(dtype).name} saturate={sat} {kernel_set}"
            assert_codes(got, exp, x, label)
            assert got_warnings == portable_warnings, label


@needs_avx2
@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e3m4", "float8_e5m2fnuz", "float4_e2m1fn",
                                  "float8_e8m0fnu", "bfloat16", "binary8p7uf", "binary8p1ue"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_stochastic_avx2_kernel_in_chunks(mf, name, dtype):
    """Threads split the array into chunks starting at multiples of 64, each
    taking its elements' draws (element i draws d_i whatever the chunk): the
    AVX2 kernel on chunks of every size from 256 up gives the reference's
    codes, an unsigned format's negative values (in chunks of their own and
    among others) included."""
    T = getattr(mf, name)
    seed = seed_of("avx2 chunks", name, np.dtype(dtype).name)
    x = _avx2_stochastic_inputs(name, dtype, seed)[:30011]
    with np.errstate(invalid="ignore"):
        x[::509] = -np.abs(x[::509])
    exp = expected(name, x, "stochastic", False, seed)
    before = mf.get_num_threads(), mf._core._thread_min_chunk_override()
    try:
        for threads, chunk in ((2, 256), (3, 1000), (4, 4096)):
            mf.set_num_threads(threads)
            mf._core._set_thread_min_chunk(chunk)
            for vaes in (True, False):
                got, _ = _casts_by_kernel_set(mf, x, T, False, seed, "avx2", vaes)
                assert_codes(got, exp, x, f"{name} threads={threads} chunk={chunk} vaes={vaes}")
    finally:
        mf.set_num_threads(before[0])
        mf._core._set_thread_min_chunk(before[1])


@needs_avx2
@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e3m4", "float8_e5m2fnuz", "float4_e2m1fn",
                                  "float8_e8m0fnu", "bfloat16", "binary8p7uf", "binary8p1ue"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_stochastic_avx2_kernel_at_any_first_element(mf, name, dtype):
    """One call of the kernels for elements first.. of a longer array
    (_core._encode_stochastic_part): the AVX2 kernel rounds the elements up to
    a multiple of 32 by the portable rule and the rest in steps of 32 (their
    draws' counters then differ in their low bits alone), and declines a
    `first` not a multiple of 4; every split gives the reference's codes."""
    seed = seed_of("avx2 first", name, np.dtype(dtype).name)
    x = _avx2_stochastic_inputs(name, dtype, seed)[:5000]
    key = seed * 7919 + 1
    for first in (0, 1, 3, 4, 8, 12, 20, 28, 36, 68, 100, 2**40 + 4):
        draws = (draws32_from_key(key, x.size, first) << np.uint64(32)) | np.uint64(0xFFFFFFFF)
        for sat in (False, True):
            exp = I.cast_array(name, x, "stochastic", sat, draws)[0]
            for kernel_set, vaes in (("avx2", True), ("avx2", False), ("portable", True)):
                previous_vaes = mf._core._set_stochastic_avx2_vaes(vaes)
                try:
                    with kernels(mf, kernel_set), np.errstate(all="ignore"):
                        got = mf._core._encode_stochastic_part(x, name, sat, key, first)
                finally:
                    mf._core._set_stochastic_avx2_vaes(previous_vaes)
                got = got.view(np.uint16 if got.size == 2 * x.size else np.uint8)
                assert_codes(got, exp, x, f"{name} first={first} saturate={sat} {kernel_set} vaes={vaes}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, ">f4", "<f8", np.float16, np.int32])
def test_unaligned_and_byte_swapped_sources(mf, dtype):
    # np.frombuffer at an odd offset (a raw checkpoint) gives an unaligned,
    # C-contiguous array: every mode, packed casts and mx.quantize take it
    # and give what the aligned, native copy gives (checked there exactly)
    values = np.linspace(-500, 500, 96).astype(dtype)
    x = np.frombuffer(bytes(1) + values.tobytes(), values.dtype, offset=1)
    assert not x.flags.aligned
    native = np.ascontiguousarray(values.astype(values.dtype.newbyteorder("=")))
    with np.errstate(over="ignore"):
        for keywords in ({}, {"saturate": True}, {"rounding": "down"}, {"rounding": "stochastic", "rng": 5}):
            got = mf.cast(x, mf.float8_e4m3fn, **keywords).view(np.uint8)
            assert (got == mf.cast(native, mf.float8_e4m3fn, **keywords).view(np.uint8)).all(), keywords
            packed = mf.cast(x, mf.float4_e2m1fn, packed=True, **keywords)
            assert (packed == mf.cast(native, mf.float4_e2m1fn, packed=True, **keywords)).all(), keywords
    assert float(mf.cast(x, mf.float8_e4m3fn, saturate=True)[0]) == -448.0
    q = mf.mx.quantize(x, "mxfp8_e4m3")
    assert (q.dequantize() == mf.mx.quantize(native, "mxfp8_e4m3").dequantize()).all()
