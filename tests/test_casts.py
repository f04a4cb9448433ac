"""Casts into every format: exact single rounding from every source dtype,
every format-to-format cast on every code, and the FP status flags."""

import warnings
import zlib
from fractions import Fraction

import numpy as np
import pytest

import reference as R
from kernel_sets import KERNEL_SETS, kernels

NAMES = R.FORMAT_NAMES
ALL = pytest.mark.parametrize("name", NAMES)


def cast(x, T):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        return np.asarray(x).astype(T)


def assert_codes(got_arr, exp, x=None, name=""):
    got = R.codes_of(got_arr).reshape(-1)
    exp = np.asarray(exp).reshape(-1)
    bad = np.nonzero(got != exp)[0]
    if bad.size:
        xs = np.asarray(x).reshape(-1) if x is not None else None
        rows = [
            (xs[i] if xs is not None else i, hex(int(exp[i])), hex(int(got[i]))) for i in bad[:8]
        ]
        raise AssertionError(
            f"{name}: {bad.size} of {exp.size} codes differ; (input, expected, got): {rows}"
        )


def ref_codes(name, x, saturate=False):
    return R.encode_array(name, x, saturate)[0]


def fraction_of(v):
    return Fraction(*v.as_integer_ratio())


# --------------------------------------------------------------------------
# float sources
# --------------------------------------------------------------------------


@ALL
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_midpoints_and_neighbours(mf, name, dtype):
    """Every value, every midpoint between adjacent values, the overflow
    midpoint, and their float32/float64 neighbours, both signs.  The expected
    codes follow from the sorted value table (see R.boundary_cases)."""
    T = getattr(mf, name)
    x, codes, _ = R.boundary_cases(name, dtype)
    assert_codes(cast(x, T), codes, x, name)
    assert_codes(cast(x, T), ref_codes(name, x), x, name)


@ALL
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_special_values(mf, name, dtype):
    T = getattr(mf, name)
    fi = np.finfo(dtype)
    x = np.concatenate(
        [
            R.special_inputs(dtype),
            np.array(
                [fi.max, -fi.max, fi.smallest_subnormal, -fi.smallest_subnormal,
                 fi.smallest_normal, -fi.smallest_normal, 1, -1, 0.5, 2],
                dtype=dtype,
            ),
        ]
    )
    exp = [R.encode(name, v)[0] for v in x]
    assert_codes(cast(x, T), exp, x, name)


def nan_payloads(dtype):
    """NaNs with assorted payloads, quiet and signalling, both signs."""
    if dtype == np.float32:
        bits = np.array([0x7FC00000, 0x7F800001, 0x7FBFFFFF, 0x7FC00001, 0x7FFFFFFF, 0x7FA00000],
                        np.uint32)
        bits = np.concatenate([bits, bits | np.uint32(0x80000000)])
        return bits.view(np.float32)
    bits = np.array([0x7FF8000000000000, 0x7FF0000000000001, 0x7FF7FFFFFFFFFFFF,
                     0x7FFFFFFFFFFFFFFF, 0x7FF8000000000001], np.uint64)
    bits = np.concatenate([bits, bits | np.uint64(1 << 63)])
    return bits.view(np.float64)


@ALL
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_payloads_and_signs(mf, name, dtype):
    T = getattr(mf, name)
    x = nan_payloads(dtype)
    neg = np.signbit(x)
    exp = [R.encode(name, R.NEG_NAN if s else R.NAN)[0] for s in neg]
    assert_codes(cast(x, T), exp, x, name)


@ALL
def test_random_float32_bit_patterns(mf, name):
    T = getattr(mf, name)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    bits = np.concatenate(
        [
            rng.integers(0, 2**32, 1_000_000, dtype=np.uint64).astype(np.uint32),
            R.targeted_float32_bits(name, 1_000_000, rng),
        ]
    )
    x = bits.view(np.float32)
    assert_codes(cast(x, T), ref_codes(name, x), x, name)


@ALL
def test_random_float64(mf, name):
    T = getattr(mf, name)
    fmt = R.FORMATS[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()) + 64)
    n = 500_000
    fi = R.finfo_expected(name)
    lo = R.floor_log2(fi["smallest_subnormal"]) - 3
    hi = R.floor_log2(fi["max"]) + 2
    e = rng.integers(lo + 1023, hi + 1023 + 1, n, dtype=np.uint64)
    mant = rng.integers(0, 1 << 52, n, dtype=np.uint64)
    low = np.uint64((1 << (52 - fmt.mbits - 1)) - 1)
    kind = rng.integers(0, 5, n)
    mant = np.where(kind == 0, mant & ~low, mant)
    mant = np.where(kind == 1, (mant & ~low) | np.uint64(1), mant)
    mant = np.where(kind == 2, (mant & ~low) - np.uint64(1), mant) & np.uint64((1 << 52) - 1)
    # kind 3: a tie in float32 but not in float64 (catches rounding via float32)
    tie32 = (mant & ~low) | np.uint64(1 << 20)
    mant = np.where(kind == 3, tie32, mant)
    s = rng.integers(0, 2, n, dtype=np.uint64)
    bits = (s << np.uint64(63)) | (e << np.uint64(52)) | mant
    x = np.concatenate([bits.view(np.float64), rng.integers(0, 2**63, 200_000, dtype=np.uint64)
                        .view(np.float64)])
    assert_codes(cast(x, T), ref_codes(name, x), x, name)


@ALL
def test_all_float16(mf, name):
    T = getattr(mf, name)
    x = np.arange(65536, dtype=np.uint16).view(np.float16)
    assert_codes(cast(x, T), ref_codes(name, x), x, name)


@ALL
def test_longdouble_source(mf, name):
    T = getattr(mf, name)
    x64, _, _ = R.boundary_cases(name, np.float64)
    x = x64.astype(np.longdouble)
    assert_codes(cast(x, T), ref_codes(name, x64), x64, name)
    # values with bits beyond float64 (when longdouble is wider): each is
    # rounded once from its exact value
    one = np.longdouble(1)
    tiny = np.longdouble(2) ** -60
    extra = []
    for v, _ in R.finite_values(name)[1:40]:
        f = np.longdouble(float(v))
        extra += [f + f * tiny, f - f * tiny]
    pos = [v for v, _ in R.finite_values(name) if v > 0]
    for v0, v1 in zip(pos[:40], pos[1:41]):
        m = np.longdouble(float(v0)) / 2 + np.longdouble(float(v1)) / 2
        extra += [m + m * tiny, m - m * tiny, -(m + m * tiny)]
    extra.append(one + np.longdouble(2) ** -4 + np.longdouble(2) ** -60)
    xe = np.array(extra, dtype=np.longdouble)
    exp = [R.encode(name, fraction_of(v))[0] for v in xe]
    assert_codes(cast(xe, T), exp, xe, name)


def test_double_rounding_examples(mf):
    x = 1 + 2**-4 + 2**-40
    assert mf.float8_e4m3fn(x) == 1.125
    assert float(mf.float8_e4m3fn(x)) == 1.125
    a = np.array([x]).astype(mf.float8_e4m3fn)
    assert a.astype(np.float64)[0] == 1.125
    assert R.codes_of(a)[0] == R.encode("float8_e4m3fn", Fraction(9, 8))[0]
    assert mf.bfloat16(2**25 + 2**17 + 1) == 2**25 + 2**18
    assert np.array([2**25 + 2**17 + 1], np.int64).astype(mf.bfloat16).astype(np.float64)[0] == (
        2**25 + 2**18
    )
    # a float64 just below a midpoint must not become the midpoint in float32
    y = np.nextafter(1.0625, 0)
    assert np.array([y]).astype(mf.float8_e4m3fn).astype(np.float64)[0] == 1.0
    assert mf.float8_e4m3fn("1.0625000000000000001") == 1.125
    assert mf.float8_e4m3fn("1.0624999999999999999") == 1.0
    assert mf.float8_e4m3fn("1.0625") == 1.0  # a real tie: to even


# --------------------------------------------------------------------------
# integer, bool and complex sources
# --------------------------------------------------------------------------

SMALL_INTS = [np.int8, np.uint8, np.int16, np.uint16]
BIG_INTS = [np.int32, np.uint32, np.int64, np.uint64]


@ALL
@pytest.mark.parametrize("it", SMALL_INTS)
def test_small_int_sources_every_value(mf, name, it):
    T = getattr(mf, name)
    info = np.iinfo(it)
    x = np.arange(info.min, info.max + 1, dtype=np.int64).astype(it)
    assert_codes(cast(x, T), R.encode_int_array(name, x)[0], x, name)


def int_cases(name, it):
    """Integers at and around every integer midpoint / value, scaled up to
    the type's range, plus extremes and random values."""
    info = np.iinfo(it)
    vals = set()
    pos = [v for v, _ in R.finite_values(name) if v > 0]
    points = list(pos) + [(a + b) / 2 for a, b in zip(pos, pos[1:])]
    mx = pos[-1]
    points.append(mx + R._2 ** (R.floor_log2(mx) - R.FORMATS[name].mbits) / 2)
    for p in points:
        if p.denominator != 1:
            continue
        p = int(p)
        for d in (-2, -1, 0, 1, 2):
            vals.update((p + d, -(p + d)))
    # midpoints scaled by powers of two cover formats whose integers stop early
    for k in range(0, 64):
        for base in (3, 5, 7, 9, 17, 33, 65, 129, 257):
            p = base << k
            for d in (-1, 0, 1):
                vals.update((p + d, -(p + d)))
    vals.update((info.min, info.max, info.max - 1, info.min + 1, 0, 1, -1))
    vals = [v for v in vals if info.min <= v <= info.max]
    rng = np.random.default_rng(11)
    rnd = rng.integers(info.min, info.max, 20000, dtype=it, endpoint=True)
    return np.concatenate([np.array(sorted(vals), dtype=it), rnd])


@ALL
@pytest.mark.parametrize("it", BIG_INTS)
def test_big_int_sources(mf, name, it):
    T = getattr(mf, name)
    x = int_cases(name, it)
    assert_codes(cast(x, T), R.encode_int_array(name, x)[0], x, name)


@ALL
def test_int64_sample_against_fraction(mf, name):
    T = getattr(mf, name)
    x = int_cases(name, np.int64)[::7]
    exp = [R.encode(name, int(v))[0] for v in x]
    assert_codes(cast(x, T), exp, x, name)


@ALL
def test_python_ints_beyond_64_bits(mf, name):
    T = getattr(mf, name)
    fmt = R.FORMATS[name]
    vals = []
    for k in (64, 65, 80, 100, 120, 126, 127, 128, 129, 200, 1000, 5000):
        for mid in (2**k, 2**k + 2 ** (k - fmt.mbits - 1), 3 * 2**k):
            for d in (-1, 0, 1):
                vals += [mid + d, -(mid + d)]
    # exact bfloat16 midpoints (integers) beyond 2**64, nudged by one
    for k in (70, 100, 127):
        m = 2**k + 2 ** (k - 8)
        vals += [m - 1, m, m + 1]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for v in vals:
            code = R.encode(name, v)[0]
            s = T(v)
            assert R.codes_of(np.array([s], dtype=T))[0] == code, (name, v)
        obj = np.array(vals, dtype=object)
        got = obj.astype(T)
    assert_codes(got, [R.encode(name, v)[0] for v in vals], vals, name)


@ALL
def test_bool_source(mf, name):
    T = getattr(mf, name)
    x = np.array([False, True, True, False])
    assert_codes(cast(x, T), [R.encode(name, int(v))[0] for v in x], x, name)


@ALL
@pytest.mark.parametrize("ct", [np.complex64, np.complex128, np.clongdouble])
def test_complex_source_takes_real_part(mf, name, ct):
    T = getattr(mf, name)
    x64, _, _ = R.boundary_cases(name, np.float64)
    if ct == np.complex64:
        with np.errstate(all="ignore"):
            x64 = x64[x64.astype(np.float32) == x64]
    z = np.empty(len(x64), dtype=ct)
    z.real = x64  # (x + 3j would turn -0.0 into +0.0)
    z.imag = 3
    assert_codes(cast(z, T), ref_codes(name, x64), x64, name)


# --------------------------------------------------------------------------
# strings, bytes, objects
# --------------------------------------------------------------------------


def dyadic_decimal(q: Fraction) -> str:
    """Exact decimal expansion of a dyadic rational."""
    neg = q < 0
    q = abs(q)
    k = 0
    while (q * 10**k).denominator != 1:
        k += 1
    digits = str((q * 10**k).numerator).rjust(k + 1, "0")
    s = digits[: len(digits) - k] + ("." + digits[len(digits) - k:] if k else "")
    return ("-" if neg else "") + s


def near_midpoint_strings(name, limit=None):
    pos = [v for v, _ in R.finite_values(name) if v > 0]
    mids = [(a + b) / 2 for a, b in zip(pos, pos[1:])]
    if limit is not None and len(mids) > limit:
        step = len(mids) // limit
        mids = mids[::step]
    out = []
    for m in mids:
        s = dyadic_decimal(m)
        if "." not in s:
            s += ".0"
        above = s + "00000000000000000001"
        below = dyadic_decimal(Fraction(s) - Fraction(1, 10 ** (len(s) + 25)))
        out += [s, above, below, "-" + above]
    return out


def string_cases(name):
    fmt = R.FORMATS[name]
    cases = ["0", "-0.0", "1", "1.5", "-2.25", "0.1", "1e-3", "1E2", "+3.5", "nan", "-nan", "inf",
             "-inf", "Infinity", "1e400", "-1e400", "1e-400", "123456789012345678901234567890"]
    cases += near_midpoint_strings(name, limit=300 if fmt.bits > 8 else None)
    return cases


def expected_for_string(name, s):
    return R.encode(name, s)[0]


@ALL
def test_scalar_from_decimal_strings(mf, name):
    T = getattr(mf, name)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in string_cases(name):
            if s.lower() in ("nan", "-nan") and not R.FORMATS[name].has_nan:
                continue  # sign of a parsed NaN is not specified
            got = R.codes_of(np.array([T(s)], dtype=T))[0]
            assert got == expected_for_string(name, s), (name, s, hex(got))
            got = R.codes_of(np.array([T(s.encode())], dtype=T))[0]
            assert got == expected_for_string(name, s), (name, s.encode(), hex(got))


@ALL
@pytest.mark.parametrize("kind", ["U", "S"])
def test_string_array_source(mf, name, kind):
    T = getattr(mf, name)
    cases = [s for s in string_cases(name) if s.lower() not in ("nan", "-nan")]
    arr = np.array(cases if kind == "U" else [s.encode() for s in cases])
    assert arr.dtype.kind == kind
    exp = [expected_for_string(name, s) for s in cases]
    assert_codes(cast(arr, T), exp, cases, name)


@ALL
def test_object_array_source(mf, name):
    T = getattr(mf, name)
    x64, _, _ = R.boundary_cases(name, np.float64)
    xs = list(x64[:: max(1, len(x64) // 400)])
    objs = [float(v) for v in xs] + [np.float32(1.5), np.float16(-0.25), np.int64(3), 7, -3, True]
    exp = [R.encode(name, v)[0] for v in objs]
    arr = np.array(objs, dtype=object)
    assert_codes(cast(arr, T), exp, objs, name)


# --------------------------------------------------------------------------
# memory layouts
# --------------------------------------------------------------------------


@ALL
@pytest.mark.parametrize("src", ["<f4", ">f4", "<f8", ">f8", ">f2", ">i8", ">u2"])
@pytest.mark.parametrize("layout", ["contiguous", "strided", "reversed", "unaligned", "2d-T"])
def test_source_layouts(mf, name, src, layout):
    with np.errstate(all="ignore"):
        _check_source_layout(mf, name, src, layout)


def _check_source_layout(mf, name, src, layout):
    T = getattr(mf, name)
    dt = np.dtype(src)
    x64, _, _ = R.boundary_cases(name, np.float64)
    if dt.kind == "f":
        base = x64.astype(dt.newbyteorder("="))
        base = base[base.astype(np.float64) == x64] if dt.itemsize < 8 else base
        exp = ref_codes(name, base.astype(np.float64) if dt.itemsize < 8 else base)
    else:
        info = np.iinfo(dt)
        base = np.arange(-300, 300, dtype=np.int64)
        base = base[(base >= info.min) & (base <= info.max)].astype(dt.newbyteorder("="))
        exp = R.encode_int_array(name, base.astype(np.int64))[0]
    base = base[: (len(base) // 4) * 4]
    exp = exp[: len(base)]
    x = base.astype(dt)  # requested byte order
    if layout == "strided":
        big = np.empty(len(x) * 2, dtype=dt)
        big[::2] = x
        x = big[::2]
    elif layout == "reversed":
        x = x[::-1].copy()[::-1]
    elif layout == "unaligned":
        raw = np.zeros(len(x) * dt.itemsize + 1, dtype=np.uint8)
        x_un = raw[1:].view(dt)
        x_un[...] = x
        x = x_un
        if dt.itemsize > 1:
            assert not x.flags.aligned
    elif layout == "2d-T":
        x = x.reshape(4, -1).T
        exp = exp.reshape(4, -1).T
    got = cast(x, T)
    assert got.shape == x.shape
    assert_codes(got, exp, x, name)


@ALL
def test_destination_layouts(mf, name):
    T = getattr(mf, name)
    fmt = R.FORMATS[name]
    x, codes, _ = R.boundary_cases(name, np.float32)
    out = np.zeros(len(x) * 3, dtype=T)
    with np.errstate(all="ignore"):
        out[::3] = x
    assert_codes(out[::3], codes, x, name)
    assert (R.codes_of(out[1::3]) == 0).all()
    if fmt.bits == 16:
        raw = np.zeros(len(x) * 2 + 1, dtype=np.uint8)
        un = raw[1:].view(T)
        with np.errstate(all="ignore"):
            un[...] = x
        assert_codes(un, codes, x, name)


# --------------------------------------------------------------------------
# format to format
# --------------------------------------------------------------------------


def convert_table(src, dst):
    """Expected codes of src -> dst for every src code (vectorized through
    float64: every decoded value is exact in float64, and the NaN sign is
    the code's sign)."""
    codes = R.all_codes(src)
    if src == dst:
        return codes  # a same-dtype astype is a copy: bits kept
    return R.encode_array(dst, R.decode_array(src, codes))[0]


@pytest.mark.parametrize("src", NAMES)
@pytest.mark.parametrize("dst", NAMES)
def test_format_to_format_every_code(mf, src, dst):
    S = getattr(mf, src)
    D = getattr(mf, dst)
    codes = R.all_codes(src)
    exp = convert_table(src, dst)
    if R.FORMATS[src].bits <= 8 and src != dst:  # cross-check with the Fraction path
        assert all(R.convert(src, dst, int(c))[0] == exp[c] for c in codes)
    # (8-bit sources: the AVX2 set looks their tables up by rows of 16, or,
    # from 1024 codes a call, by 8 where the negative codes mirror the
    # positive ones)
    for kernel_set in KERNEL_SETS if R.FORMATS[src].bits <= 8 else ["avx512"]:
        with kernels(mf, kernel_set):
            got = cast(codes.view(S), D)
            assert got.dtype == np.dtype(D)
            assert_codes(got, exp, [hex(c) for c in codes], f"{src}->{dst} {kernel_set}")
            # strided source
            got = cast(codes.view(S)[::-3], D)
            assert_codes(got, exp[::-1][::3], None, f"{src}->{dst} strided {kernel_set}")
            if R.FORMATS[src].bits <= 8:
                long = np.tile(codes[::-1], 9)  # (2304 codes, past kMirrorWorthIt)
                assert_codes(cast(long.view(S), D), np.tile(exp[::-1], 9), None, f"{src}->{dst} long {kernel_set}")


# --------------------------------------------------------------------------
# saturating casts (mf.cast(x, dtype, saturate=True))
# --------------------------------------------------------------------------


@ALL
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_saturating_cast(mf, name, dtype):
    if not hasattr(mf, "cast"):
        pytest.skip("minifloat.cast is not provided")
    T = getattr(mf, name)
    x, _, _ = R.boundary_cases(name, dtype)
    x = np.concatenate([x, R.special_inputs(dtype), nan_payloads(dtype)])
    with np.errstate(all="ignore"):
        got = mf.cast(x, T, saturate=True)
    assert got.dtype == np.dtype(T)
    assert_codes(got, R.encode_array(name, x, saturate=True)[0], x, name)
    # no overflow flag; invalid only where the reference says so
    _, flags = R.encode_array(name, x, saturate=True)
    assert not flags["overflow"].any()
    with np.errstate(over="raise", invalid="ignore"):
        mf.cast(x, T, saturate=True)
    ok = ~flags["invalid"] & ~np.isnan(x)
    with np.errstate(all="raise"):
        mf.cast(x[ok], T, saturate=True)


# --------------------------------------------------------------------------
# FP status: overflow / invalid
# --------------------------------------------------------------------------


def flag_cases(name):
    """(float64 value, flags) pairs for single-element casts."""
    fmt = R.FORMATS[name]
    x, _, _ = R.boundary_cases(name, np.float64)
    if len(x) > 3000:
        rng = np.random.default_rng(3)
        x = np.concatenate([x[-200:], rng.choice(x, 800, replace=False)])
    x = np.concatenate([x, R.special_inputs(np.float64)])
    out = []
    for v in x:
        out.append((v, R.encode(name, v)[1]))
    assert any(R.OVERFLOW in f for _, f in out) or not fmt.has_zero
    return out


@ALL
def test_flags_per_element(mf, name):
    T = getattr(mf, name)
    for v, flags in flag_cases(name):
        a = np.array([v])
        a32 = a.astype(np.float32) if np.isnan(v) or abs(v) < 3e38 else None
        for src in (a, a32):
            if src is None or (not np.isnan(v) and src.astype(np.float64)[0] != v):
                continue
            if not flags:
                with np.errstate(all="raise"):
                    src.astype(T)  # no flag at all, not even underflow
                continue
            for flag in (R.OVERFLOW, R.INVALID):
                kw = {"over": "ignore", "invalid": "ignore", "under": "ignore", "divide": "ignore"}
                kw["over" if flag == R.OVERFLOW else "invalid"] = "raise"
                with np.errstate(**kw):
                    if flag in flags:
                        with pytest.raises(FloatingPointError):
                            src.astype(T)
                    else:
                        src.astype(T)


@ALL
def test_overflow_raises_and_warns(mf, name):
    T = getattr(mf, name)
    mx = float(R.finfo_expected(name)["max"])
    f32max = float(np.finfo(np.float32).max)
    big = np.array([1.0, min(mx * 4, f32max), 2.0])  # exact in float32 too
    big32 = big.astype(np.float32)
    assert R.OVERFLOW in R.encode(name, big[1])[1]
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            big.astype(T)
        with pytest.raises(FloatingPointError):
            big32.astype(T)
    with np.errstate(over="warn"):
        with pytest.warns(RuntimeWarning, match="overflow"):
            big.astype(T)
    # default state warns too
    with pytest.warns(RuntimeWarning, match="overflow"):
        big.astype(T)
    # an overflowing integer source is a single rounding too
    if R.encode(name, 10**6)[1]:
        with np.errstate(over="raise"):
            with pytest.raises(FloatingPointError):
                np.array([10**6], np.int64).astype(T)


@ALL
def test_invalid_raises_and_warns(mf, name):
    T = getattr(mf, name)
    fmt = R.FORMATS[name]
    bad = []
    for v in (np.inf, -np.inf, np.nan, -np.nan, 0.0, -1.0):
        if R.INVALID in R.encode(name, v)[1]:
            bad.append(v)
    if fmt.has_inf and fmt.has_nan and fmt.signed:  # every special input has a code
        assert bad == []
        with np.errstate(all="raise"):
            np.array([np.inf, -np.inf, np.nan, -np.nan]).astype(T)
        return
    assert bad
    for v in bad:
        with np.errstate(invalid="raise"):
            with pytest.raises(FloatingPointError):
                np.array([1.0, v]).astype(T)
        with pytest.warns(RuntimeWarning, match="invalid"):
            np.array([1.0, v]).astype(T)


@ALL
def test_underflow_is_never_reported(mf, name):
    T = getattr(mf, name)
    x = np.array([1e-30, -1e-30, 5e-324, np.finfo(np.float32).smallest_subnormal])
    if not R.FORMATS[name].signed:
        x[1] = 1e-31  # negatives are invalid there
    with np.errstate(all="ignore"):
        x32 = x.astype(np.float32)
    x32 = x32[x32 != 0]  # (zero is invalid for float8_e8m0fnu)
    with np.errstate(under="raise", over="raise"):
        x.astype(T)
        x32.astype(T)


def test_format_to_format_overflow_flag(mf):
    a = np.array([57344.0]).astype(mf.float8_e5m2)
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            a.astype(mf.float8_e4m3fn)
    b = np.array([1e30], dtype=np.float32).astype(mf.bfloat16)
    with np.errstate(invalid="raise"):  # bfloat16 -> fn: inf is invalid
        with pytest.raises(FloatingPointError):
            np.array([np.inf]).astype(mf.bfloat16).astype(mf.float8_e4m3fn)
    with pytest.warns(RuntimeWarning, match="overflow"):
        b.astype(mf.float8_e4m3fn)
