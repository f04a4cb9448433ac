"""The format table, decoding of every code, finfo, and the reference itself."""

import math
import platform
from fractions import Fraction

import numpy as np
import pytest

import printing_reference as P
import reference as R

NAMES = R.FORMAT_NAMES
ALL = pytest.mark.parametrize("name", NAMES)
EIGHT = pytest.mark.parametrize("name", R.EIGHT_BIT)


def same_float(got, exp, check_nan_sign=True):
    """Elementwise: identical value and sign (NaN == NaN)."""
    with np.errstate(invalid="ignore"):  # signalling NaNs widening
        got = np.asarray(got, dtype=np.float64)
        exp = np.asarray(exp, dtype=np.float64)
    nan = np.isnan(exp)
    ok = np.where(nan, np.isnan(got), got == exp)
    sign_ok = np.signbit(got) == np.signbit(exp)
    if not check_nan_sign:
        sign_ok |= nan
    return ok & sign_ok


def nan_sign_defined(fmt):
    # the rules fix the NaN sign on decoding where a NaN code has a sign
    # (IEEE NaNs, the all-ones magnitude of a signed format)
    return fmt.signed and fmt.nan in (True, "all_ones")


# --------------------------------------------------------------------------
# The reference checks itself (no package needed)
# --------------------------------------------------------------------------


def test_reference_table_matches_design_literals():
    assert R.check_table()
    assert len(set(NAMES)) == len(NAMES) == len(R.EXPECTED_FINFO)
    for name in NAMES:
        mx, mn, ms, eps = R.EXPECTED_FINFO[name]
        fi = R.finfo_expected(name)
        assert (fi["max"], fi["smallest_normal"], fi["eps"]) == (mx, mn, eps)
        if ms is not None:
            assert fi["smallest_subnormal"] == ms


@ALL
def test_reference_decode_vectorized_matches_fraction(name):
    fmt = R.FORMATS[name]
    codes = R.all_codes(name)
    table = R.decode_array(name, codes)
    for c in range(0, fmt.ncodes, 1 if fmt.bits <= 8 else 7):
        v = R.decode(name, c)
        f = table[c]
        if v == R.NAN:
            assert math.isnan(f)
            assert bool(np.signbit(f)) == R.code_sign(name, c)
        elif v == R.NEG_ZERO:
            assert f == 0 and np.signbit(f)
        elif v in (R.POS_INF, R.NEG_INF):
            assert f == (math.inf if v == R.POS_INF else -math.inf)
        else:
            assert Fraction(float(f)) == v
            assert not (v == 0 and np.signbit(f))


@ALL
def test_reference_every_code_roundtrips(name):
    fmt = R.FORMATS[name]
    step = 1 if fmt.bits <= 8 else 13
    for c in range(0, fmt.ncodes, step):
        v = R.decode(name, c)
        if v == R.NAN:
            continue
        assert R.encode(name, v) == (c, frozenset()), (name, c, v)
    # sub-byte formats ignore the high bits
    if fmt.bits < 8:
        for c in range(256):
            assert str(R.decode(name, c)) == str(R.decode(name, c & fmt.mask))


@ALL
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reference_vectorized_encoder_matches_structure(name, dtype):
    """encode_array on every value / midpoint / neighbour agrees with the
    expectation derived from the sorted value table alone."""
    x, codes, over = R.boundary_cases(name, dtype)
    got, flags = R.encode_array(name, x)
    np.testing.assert_array_equal(got, codes)
    np.testing.assert_array_equal(flags["overflow"], over)


@ALL
@pytest.mark.parametrize("saturate", [False, True])
def test_reference_vectorized_encoder_matches_fraction(name, saturate):
    rng = np.random.default_rng(12345)
    fi = R.finfo_expected(name)
    lo = R.floor_log2(fi["smallest_subnormal"]) - 4
    hi = R.floor_log2(fi["max"]) + 3
    n = 1500
    x = np.ldexp(1 + rng.random(n), rng.integers(lo, hi, n)) * rng.choice([-1.0, 1.0], n)
    bits32 = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    with np.errstate(all="ignore"):
        x32 = x.astype(np.float32)
    srcs = [
        x,
        x32,
        bits32.view(np.float32),
        R.special_inputs(np.float64),
        R.special_inputs(np.float32),
        np.array([5e-324, -5e-324, 1.7976931348623157e308, -1.7976931348623157e308]),
    ]
    with np.errstate(all="ignore"):
        for xs in srcs:
            got, flags = R.encode_array(name, xs, saturate=saturate)
            for i in range(len(xs)):
                code, fl = R.encode(name, xs[i], saturate=saturate)
                assert code == got[i], (name, xs[i])
                assert (R.OVERFLOW in fl) == flags["overflow"][i]
                assert (R.INVALID in fl) == flags["invalid"][i]


@ALL
def test_reference_integer_path_matches_fraction(name):
    rng = np.random.default_rng(7)
    ints = [int(v) for v in rng.integers(-(2**63), 2**63 - 1, 500, dtype=np.int64)]
    for k in range(64):
        for d in (-1, 0, 1):
            for base in (2**k, 3 * 2**k // 2, 2**k + 2 ** max(k - 8, 0)):
                v = base + d
                if -(2**63) <= v < 2**63:
                    ints += [v, -v]
    ints += [-(2**63), 2**63 - 1, 0]
    arr = np.array(ints, dtype=np.int64)
    got, flags = R.encode_int_array(name, arr)
    for i, v in enumerate(ints):
        code, fl = R.encode(name, v)
        assert code == got[i], (name, v)
        assert (R.OVERFLOW in fl) == flags["overflow"][i]
    u = np.array([2**64 - 1, 2**63, 2**63 + 2**62 + 1, 2**63 + 1], dtype=np.uint64)
    got, _ = R.encode_int_array(name, u)
    for i in range(len(u)):
        assert R.encode(name, int(u[i]))[0] == got[i]


def test_reference_documented_examples():
    e4 = "float8_e4m3fn"
    assert R.decode(e4, R.encode(e4, 1 + Fraction(1, 16) + Fraction(1, 2**40))[0]) == Fraction(9, 8)
    assert R.decode(e4, R.encode(e4, 464)[0]) == 448
    assert R.encode(e4, 465)[0] == 0x7F
    assert R.encode(e4, -465)[0] == 0xFF
    assert R.decode("bfloat16", R.encode("bfloat16", 2**25 + 2**17 + 1)[0]) == 2**25 + 2**18
    assert R.encode(e4, "1.0625000000000000001")[0] == R.encode(e4, Fraction(9, 8))[0]
    assert R.encode(e4, "1.0624999999999999999")[0] == R.encode(e4, 1)[0]
    e8 = "float8_e8m0fnu"
    assert R.encode(e8, Fraction(3, 2)) == (128, frozenset())  # tie -> 2
    assert R.encode(e8, 0) == (0xFF, frozenset({R.INVALID}))
    assert R.encode(e8, 2 ** -200 * Fraction(1)) == (0, frozenset())
    assert R.encode(e8, 3 * Fraction(2) ** 126) == (0xFF, frozenset({R.OVERFLOW}))
    assert R.encode(e8, 3 * Fraction(2) ** 126, saturate=True) == (0xFE, frozenset())
    assert R.encode("float4_e2m1fn", R.NAN) == (0x8, frozenset({R.INVALID}))
    assert R.encode("float4_e2m1fn", R.NEG_NAN) == (0x0, frozenset({R.INVALID}))
    assert R.encode("float8_e4m3fnuz", R.NEG_ZERO) == (0, frozenset())
    assert R.encode("float8_e4m3fnuz", -Fraction(1, 2**20)) == (0, frozenset())
    assert R.shortest_reprs(e4, R.encode(e4, 0.1)[0]) == ["0.1"]


# --------------------------------------------------------------------------
# The package: names, dtypes
# --------------------------------------------------------------------------


def test_format_names(mf):
    assert tuple(mf.FORMAT_NAMES) == NAMES
    for name in NAMES:
        assert getattr(mf, name).__name__ == name


@ALL
def test_dtype_basics(mf, name):
    T = getattr(mf, name)
    fmt = R.FORMATS[name]
    dt = np.dtype(T)
    assert dt == np.dtype(name)
    assert np.dtype(name).type is T
    assert dt.kind == "f"
    assert dt.itemsize == (2 if fmt.bits == 16 else 1)
    assert dt.name == name
    assert dt.type is T
    assert np.issubdtype(T, np.floating)
    assert np.issubdtype(dt, np.floating)
    assert isinstance(T(1), np.floating)
    assert isinstance(T(1), T)
    assert np.zeros(3, dtype=T).dtype == dt
    assert np.empty((2, 3), dtype=name).dtype == dt


@ALL
@pytest.mark.parametrize("which", ["np", "mf"])
def test_finfo(mf, name, which):
    T = getattr(mf, name)
    fi = np.finfo(T) if which == "np" else mf.finfo(T)
    exp = R.finfo_expected(name)
    for key in ("max", "min", "smallest_normal", "smallest_subnormal", "eps", "epsneg", "tiny"):
        got = getattr(fi, key)
        assert Fraction(float(got)) == exp[key], (name, key, got)
    for key in ("bits", "nmant", "maxexp", "minexp"):
        assert getattr(fi, key) == exp[key], (name, key)
    # the exponent field's width, even where inf is absent and the top
    # exponent holds numbers (NumPy would infer one bit more)
    assert fi.nexp == fi.iexp == R.FORMATS[name].ebits, name
    assert fi.dtype == np.dtype(T)
    # the literal design facts
    mx, mn, ms, eps = R.EXPECTED_FINFO[name]
    assert Fraction(float(fi.max)) == mx and Fraction(float(fi.smallest_normal)) == mn
    assert Fraction(float(fi.eps)) == eps
    if ms is not None:
        assert Fraction(float(fi.smallest_subnormal)) == ms
    # by dtype and by name too
    if which == "np":
        assert float(np.finfo(np.dtype(name)).max) == float(fi.max)


# --------------------------------------------------------------------------
# Every code decodes exactly
# --------------------------------------------------------------------------


@ALL
@pytest.mark.parametrize("target", [np.float64, np.float32])
def test_every_code_decodes_exactly(mf, name, target):
    fmt = R.FORMATS[name]
    T = getattr(mf, name)
    codes = R.all_codes(name)
    arr = codes.view(T)
    assert arr.dtype == np.dtype(T)
    np.testing.assert_array_equal(arr.view(fmt.code_dtype), codes)
    with np.errstate(all="ignore"):
        got = arr.astype(target)
    assert got.dtype == target
    exp = R.decode_array(name, codes)  # every value is exact in float32 too
    ok = same_float(got, exp, check_nan_sign=nan_sign_defined(fmt))
    bad = np.nonzero(~ok)[0]
    assert bad.size == 0, [(hex(codes[i]), got[i], exp[i]) for i in bad[:8]]


@ALL
@pytest.mark.parametrize("target", [np.float64, np.float32, np.longdouble])
def test_decoding_sets_no_fp_flags(mf, name, target):
    """Decoding is exact: no FP flag, also for NaN codes whose payload looks
    signalling (as for float16 -> float64 in NumPy)."""
    T = getattr(mf, name)
    arr = R.all_codes(name).view(T)
    with np.errstate(all="raise"):
        arr.astype(target)


@pytest.mark.parametrize("name", [n for n in NAMES if R.FORMATS[n].bits < 8])
def test_subbyte_high_bits_ignored(mf, name):
    fmt = R.FORMATS[name]
    T = getattr(mf, name)
    codes = np.arange(256, dtype=np.uint8)
    arr = codes.view(T)
    exp = R.decode_array(name, codes & fmt.mask)
    assert same_float(arr.astype(np.float64), exp).all()
    assert same_float(arr.astype(np.float32), exp).all()
    assert same_float([float(s) for s in arr], exp).all()
    for other in ("float8_e4m3fn", "bfloat16", "float8_e8m0fnu"):
        with np.errstate(all="ignore"):
            got = R.codes_of(arr.astype(getattr(mf, other)))
            low = R.codes_of((codes & fmt.mask).view(T).astype(getattr(mf, other)))
        np.testing.assert_array_equal(got, low)


@ALL
def test_decode_to_float16(mf, name):
    fmt = R.FORMATS[name]
    T = getattr(mf, name)
    codes = R.all_codes(name)
    with np.errstate(all="ignore"):
        got = codes.view(T).astype(np.float16)
        # float64 -> float16 is a single correct rounding in NumPy, and the
        # float64 value is exact, so this is the single rounding of the value
        exp = R.decode_array(name, codes).astype(np.float16)
    assert got.dtype == np.float16
    assert same_float(got, exp, check_nan_sign=nan_sign_defined(fmt)).all()


@ALL
def test_decode_to_longdouble_and_complex(mf, name):
    fmt = R.FORMATS[name]
    T = getattr(mf, name)
    codes = R.all_codes(name)
    arr = codes.view(T)
    exp = R.decode_array(name, codes)
    with np.errstate(invalid="ignore"):  # flags are checked elsewhere
        got = arr.astype(np.longdouble)
    assert got.dtype == np.longdouble
    assert same_float(got.astype(np.float64), exp, nan_sign_defined(fmt)).all()
    for ct in (np.complex64, np.complex128, np.clongdouble):
        with np.errstate(invalid="ignore"):
            got = arr.astype(ct)
        assert got.dtype == ct
        assert same_float(got.real.astype(np.float64), exp, nan_sign_defined(fmt)).all()
        assert (got.imag == 0).all()


INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@ALL
@pytest.mark.parametrize("it", INT_TYPES)
def test_decode_to_integers(mf, name, it):
    T = getattr(mf, name)
    codes = R.all_codes(name)
    vals = R.decode_array(name, codes)
    info = np.iinfo(it)
    keep = np.array([math.isfinite(v) and info.min <= int(v) <= info.max for v in vals], bool)
    arr = codes[keep].view(T)
    with np.errstate(all="raise"):  # representable values raise nothing, in whole vectors too
        got = arr.astype(it)
    assert got.dtype == it
    exp = [int(v) for v in vals[keep]]  # int() truncates toward zero, exactly
    assert [int(g) for g in got] == exp


def integer_cast_rule(v, it):
    """NumPy's float -> integer cast as the C conversion behind it behaves on
    x86-64, for the exact value v: (result, invalid). Truncation toward
    zero; a value the conversion cannot represent (NaN, inf, out of range)
    gives the conversion's lowest integer and raises invalid. Targets
    narrower than 32 bits convert through int32 and keep its low bits,
    uint32 converts through int64, uint64 takes [2**63, 2**64) directly."""
    info = np.iinfo(it)
    bits, signed = info.bits, info.min < 0
    width = 32 if bits < 32 or (bits == 32 and signed) else 64
    if math.isfinite(v):
        t = int(v)  # exact truncation of an exact float64
        if -(2 ** (width - 1)) <= t < 2 ** (width - 1):
            return t % 2**bits, False
        if bits == 64 and not signed and 2**63 <= t < 2**64:
            return t, False
    return (-(2 ** (width - 1))) % 2**bits, True


def _raises_invalid(fn):
    with np.errstate(invalid="raise", over="ignore", under="ignore", divide="ignore"):
        try:
            fn()
        except FloatingPointError:
            return True
    return False


@ALL
@pytest.mark.parametrize("it", INT_TYPES)
def test_decode_to_integers_every_code_and_flag(mf, name, it):
    """Every code, NaN, inf and out-of-range values included: the bits of the
    rule above and its invalid flag, per code (a sample of 16-bit codes)."""
    T = getattr(mf, name)
    codes = R.all_codes(name)
    vals = R.decode_array(name, codes)
    unsigned = np.dtype(it).str.replace("i", "u")
    with np.errstate(invalid="ignore"):
        got = codes.view(T).astype(it)
    got_bits = [int(g) for g in got.view(unsigned)]
    rule = [integer_cast_rule(float(v), it) for v in vals]
    assert got_bits == [r for r, _ in rule], name
    sample = range(len(codes)) if len(codes) <= 256 else np.unique(np.r_[
        np.flatnonzero([bad for _, bad in rule])[:64],
        np.random.default_rng(3).integers(0, len(codes), 200)])
    for i in sample:
        one = codes[i : i + 1].view(T)
        assert _raises_invalid(lambda: one.astype(it)) == rule[i][1], (name, hex(codes[i]))
    if platform.machine() in ("x86_64", "AMD64"):
        # NumPy's own float64 cast agrees on the values inside the target's
        # range (outside it, its vectorized loops give what the CPU's
        # instruction gives: no rule to compare with)
        info = np.iinfo(it)
        with np.errstate(invalid="ignore"):
            # info.max + 1 is a power of two, exact in float64 (info.max is not)
            inside = (np.trunc(vals) >= info.min) & (np.trunc(vals) < float(info.max + 1))
        np.testing.assert_array_equal(got[inside], vals[inside].astype(it))


@ALL
def test_decode_to_float16_flags_per_code(mf, name):
    """Each code alone (every 8-bit code, a sample of 16-bit ones with the
    tiny and huge ones): the float16 cast raises exactly what NumPy's float64
    -> float16 cast of the exact value raises (overflow; underflow for an
    inexact result below float16's normal range)."""
    T = getattr(mf, name)
    codes = R.all_codes(name)
    vals = R.decode_array(name, codes)
    if len(codes) > 256:
        with np.errstate(invalid="ignore"):
            edge = np.flatnonzero((np.abs(vals) < 2.0**-13) | (np.abs(vals) > 60000))
        rng = np.random.default_rng(4)
        pick = np.unique(np.r_[rng.choice(edge, 300, replace=False), rng.integers(0, len(codes), 100)])
        codes, vals = codes[pick], vals[pick]
    for code, v in zip(codes.tolist(), vals):
        for category in ("over", "under", "invalid"):
            def raised(fn):
                with np.errstate(all="ignore", **{category: "raise"}):
                    try:
                        fn()
                    except FloatingPointError:
                        return True
                return False
            ours = raised(lambda: np.array([code], codes.dtype).view(T).astype(np.float16))
            numpy = raised(lambda: np.array([v]).astype(np.float16))
            assert ours == numpy, (name, hex(code), category)


@ALL
def test_decode_to_bool(mf, name):
    T = getattr(mf, name)
    codes = R.all_codes(name)
    vals = R.decode_array(name, codes)
    with np.errstate(invalid="ignore"):
        got = codes.view(T).astype(bool)
    np.testing.assert_array_equal(got, vals != 0)  # NaN -> True, -0 -> False


def _codes_sample(name):
    fmt = R.FORMATS[name]
    if fmt.bits <= 8:
        return R.all_codes(name)
    rng = np.random.default_rng(5)
    special = np.array([0, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F7F, 0x0001, 0x3F80], np.uint16)
    return np.concatenate([special, rng.integers(0, 65536, 700).astype(np.uint16)])


@ALL
@pytest.mark.parametrize("target", [str, bytes])
def test_decode_to_str_and_bytes(mf, name, target):
    T = getattr(mf, name)
    codes = _codes_sample(name)
    arr = codes.view(T)
    got = arr.astype(target)
    assert got.dtype.kind == ("U" if target is str else "S")
    for c, g in zip(codes, got):
        g = g if target is str else g.decode("ascii")
        ok = P.expected_texts(name, int(c))  # the scalar's str (test_printing.py)
        assert g in ok, (name, hex(c), g, ok)


@ALL
def test_decode_to_object(mf, name):
    fmt = R.FORMATS[name]
    T = getattr(mf, name)
    codes = _codes_sample(name)
    got = codes.view(T).astype(object)
    assert got.dtype == object
    # Python floats, as float16 gives (the getitem of item() and tolist())
    assert all(type(s) is float for s in got)
    exp = [R.decode_float(name, int(c)) for c in codes]
    assert same_float(got.astype(np.float64), exp).all()
    with np.errstate(invalid="ignore"):
        back = np.array(got, dtype=T).view(fmt.code_dtype)
    nan = np.isnan(np.array(exp))
    np.testing.assert_array_equal(back[~nan], codes[~nan])


@ALL
def test_view_roundtrip_and_layouts(mf, name):
    with np.errstate(invalid="ignore"):  # decoding flags are tested elsewhere
        _check_layouts(mf, name)


def _check_layouts(mf, name):
    fmt = R.FORMATS[name]
    T = getattr(mf, name)
    codes = R.all_codes(name)
    arr = codes.view(T)
    exp = R.decode_array(name, codes)
    nsd = nan_sign_defined(fmt)
    # strided, reversed, 2-D transposed sources
    assert same_float(arr[::3].astype(np.float64), exp[::3], nsd).all()
    assert same_float(arr[::-1].astype(np.float32), exp[::-1], nsd).all()
    two = arr.reshape(-1, 16)
    assert same_float(two.T.astype(np.float64), exp.reshape(-1, 16).T, nsd).all()
    # into byte-swapped and unaligned destinations
    assert same_float(arr.astype(">f4").astype(np.float64), exp, nsd).all()
    buf = np.zeros(arr.size * 8 + 1, dtype=np.uint8)
    dst = buf[1:].view(np.float64)
    dst[...] = arr
    assert same_float(dst, exp, nsd).all()
    # unaligned 2-byte source (bfloat16)
    if arr.itemsize == 2:
        raw = np.zeros(arr.size * 2 + 1, dtype=np.uint8)
        un = raw[1:].view(T)
        un[...] = arr
        assert not un.flags.aligned
        assert same_float(un.astype(np.float64), exp, nsd).all()


# IEEE P3109 binary8 facts as the interim report states them (its value
# tables), by code: (format, code, value). Every other expectation of these
# formats is derived from their rows in reference.py.
P3109_CODES = [
    ("binary8p3se", 0x00, 0.0), ("binary8p3se", 0x80, math.nan), ("binary8p3se", 0x7F, math.inf),
    ("binary8p3se", 0xFF, -math.inf), ("binary8p3se", 0x40, 1.0), ("binary8p3se", 0x7E, 49152.0),
    ("binary8p3se", 0x01, 2.0**-17),
    ("binary8p3sf", 0x7F, 57344.0), ("binary8p3sf", 0xFF, -57344.0), ("binary8p3sf", 0x80, math.nan),
    ("binary8p4se", 0x40, 1.0), ("binary8p4se", 0x7E, 224.0), ("binary8p4sf", 0x7F, 240.0),
    ("binary8p1se", 0x40, 1.0), ("binary8p1se", 0x01, 2.0**-63), ("binary8p1se", 0x7F, math.inf),
    ("binary8p3ue", 0xFF, math.nan), ("binary8p3ue", 0xFE, math.inf), ("binary8p3ue", 0x80, 1.0),
    ("binary8p3uf", 0xFE, 3.0 * 2.0**30), ("binary8p7uf", 0x80, 1.0), ("binary8p7se", 0x40, 1.0),
]


@pytest.mark.parametrize("name, code, value", P3109_CODES)
def test_p3109_codes_mean_what_the_report_says(mf, name, code, value):
    x = np.array([code], dtype=np.uint8).view(getattr(mf, name))
    got = float(x.astype(np.float64)[0])
    assert (math.isnan(got) and math.isnan(value)) or got == value, (name, hex(code), got)
    if value == 0.0:  # one zero: -0.0 encodes to it (no -0)
        assert np.array([-0.0]).astype(getattr(mf, name)).view(np.uint8)[0] == 0
