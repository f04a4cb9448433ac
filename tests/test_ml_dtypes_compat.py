"""Bit compatibility with ml_dtypes 0.6 for default casts.

ml_dtypes is not an oracle: it rounds float64 (and int64) sources through
float32, and rounds float32 subnormal inputs into float8_e8m0fnu wrongly.
Everything else that goes through float32 must be bit-identical.  The tests
prefixed ``test_reference_`` check the reference model itself and do not
need minifloat."""

import warnings
import zlib

import numpy as np
import pytest

import reference as R

md = pytest.importorskip("ml_dtypes")

# the formats ml_dtypes has (not P3109's)
NAMES = tuple(n for n in R.FORMAT_NAMES if getattr(md, n, None) is not None)
ALL = pytest.mark.parametrize("name", NAMES)
F32_MIN_NORMAL = float(np.finfo(np.float32).smallest_normal)


def ml_cast(x, name):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(x).astype(getattr(md, name)).view(R.FORMATS[name].code_dtype)


def mf_cast(x, T):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return R.codes_of(np.asarray(x).astype(T))


def ml_known_wrong_f32(name, x32):
    """float32 inputs where ml_dtypes 0.6 is known to round wrongly:
    subnormal float32 values into float8_e8m0fnu."""
    if name != "float8_e8m0fnu":
        return np.zeros(x32.shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        a = np.abs(x32.astype(np.float64))
    return (a > 0) & (a < F32_MIN_NORMAL)


def float32_sample(name, n=400_000):
    rng = np.random.default_rng(zlib.crc32(name.encode()) + 32)
    targeted = R.targeted_float32_bits(name, n, rng).view(np.float32)
    random = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    boundary, _, _ = R.boundary_cases(name, np.float32)
    specials = np.concatenate([
        R.special_inputs(np.float32),
        np.array([0x7F800001, 0xFF800001, 0x7FC00001, 0xFFFFFFFF, 0x00000001, 0x80000001,
                  0x7F7FFFFF, 0xFF7FFFFF, 0x00800000, 0x007FFFFF], np.uint32).view(np.float32),
    ])
    return np.concatenate([specials, boundary, targeted, random])


def _compare(got, exp, x, name, what):
    bad = np.nonzero(got != exp)[0]
    assert bad.size == 0, (
        f"{what} {name}: {bad.size} differ; (input, expected, got): "
        + str([(x[i], hex(int(exp[i])), hex(int(got[i]))) for i in bad[:8]])
    )


@ALL
def test_reference_matches_ml_dtypes_from_float32(name):
    x = float32_sample(name)
    ref = R.encode_array(name, x)[0]
    ml = ml_cast(x, name)
    wrong = ml_known_wrong_f32(name, x)
    _compare(ref[~wrong], ml[~wrong], x[~wrong], name, "reference vs ml_dtypes")
    if name == "float8_e8m0fnu":
        # where they differ, ml_dtypes is off by one code, and the reference
        # is the correctly rounded value (checked with the Fraction path)
        d = np.nonzero(wrong & (ref != ml))[0]
        assert d.size > 0
        for i in d[:200]:
            assert R.encode(name, x[i])[0] == ref[i]
            assert abs(int(ml[i]) - int(ref[i])) == 1


@ALL
def test_reference_decoding_matches_ml_dtypes(name):
    codes = R.all_codes(name)
    with np.errstate(all="ignore"):
        ml = codes.view(getattr(md, name)).astype(np.float64)
    ref = R.decode_array(name, codes)
    same = np.where(np.isnan(ref), np.isnan(ml), ml == ref) & (np.signbit(ml) == np.signbit(ref))
    assert same.all(), codes[~same][:8]


@ALL
def test_minifloat_matches_ml_dtypes_from_float32(mf, name):
    T = getattr(mf, name)
    x = float32_sample(name)
    got = mf_cast(x, T)
    ml = ml_cast(x, name)
    wrong = ml_known_wrong_f32(name, x)
    _compare(got[~wrong], ml[~wrong], x[~wrong], name, "minifloat vs ml_dtypes")
    _compare(got[wrong], R.encode_array(name, x[wrong])[0], x[wrong], name,
             "minifloat vs reference where ml_dtypes is wrong")


@ALL
def test_minifloat_decoding_matches_ml_dtypes(mf, name):
    T = getattr(mf, name)
    codes = R.all_codes(name)
    with np.errstate(all="ignore"):
        ml = codes.view(getattr(md, name)).astype(np.float32)
        got = codes.view(T).astype(np.float32)
    same = np.where(np.isnan(ml), np.isnan(got), got == ml) & (np.signbit(ml) == np.signbit(got))
    assert same.all(), codes[~same][:8]


def float64_sample(name, n=300_000):
    rng = np.random.default_rng(zlib.crc32(name.encode()) + 64)
    fi = R.finfo_expected(name)
    lo = R.floor_log2(fi["smallest_subnormal"]) - 3
    hi = R.floor_log2(fi["max"]) + 2
    m = 1 + rng.random(n)
    # half of them: a float32 tie plus a tiny float64 perturbation
    fmt = R.FORMATS[name]
    tie = 1 + (rng.integers(0, 1 << fmt.mbits, n) * 2 + 1) * 2.0 ** (-fmt.mbits - 1)
    pert = tie * (1 + rng.choice([-1.0, 1.0], n) * 2.0 ** -40)
    m = np.where(rng.random(n) < 0.5, pert, m)
    x = np.ldexp(m, rng.integers(lo, hi + 1, n)) * rng.choice([-1.0, 1.0], n)
    boundary, _, _ = R.boundary_cases(name, np.float64)
    return np.concatenate([boundary, x, R.special_inputs(np.float64)])


@ALL
def test_ml_dtypes_from_float64_where_double_rounding_is_irrelevant(mf, name):
    T = getattr(mf, name)
    x = float64_sample(name)
    with np.errstate(all="ignore"):
        x32 = x.astype(np.float32)
    exact = R.encode_array(name, x)[0]
    via32 = R.encode_array(name, x32)[0]
    got = mf_cast(x, T)
    ml = ml_cast(x, name)
    _compare(got, exact, x, name, "minifloat vs exact reference (float64)")
    irrelevant = (exact == via32) & ~ml_known_wrong_f32(name, x32)
    _compare(got[irrelevant], ml[irrelevant], x[irrelevant], name, "minifloat vs ml_dtypes")
    # elsewhere ml_dtypes gives the float32 double rounding
    rel = ~irrelevant & ~ml_known_wrong_f32(name, x32)
    _compare(ml[rel], via32[rel], x[rel], name, "ml_dtypes vs rounding through float32")
    if name != "float8_e8m0fnu":
        assert rel.sum() > 0  # the sample does exercise double rounding


def test_ml_dtypes_double_rounding_is_wrong_and_minifloat_right(mf):
    x = np.array([1 + 2**-4 + 2**-40])
    assert ml_cast(x, "float8_e4m3fn")[0] == 0x38  # 1.0: rounded through float32
    assert mf_cast(x, mf.float8_e4m3fn)[0] == 0x39  # 1.125: the correct answer
    assert R.encode("float8_e4m3fn", x[0])[0] == 0x39
    y = np.array([2**25 + 2**17 + 1], dtype=np.int64)
    assert mf_cast(y, mf.bfloat16)[0] == R.encode("bfloat16", 2**25 + 2**18)[0]
    z = np.array([1.2 * 2.0**-127], dtype=np.float32)  # float32 subnormal
    assert ml_cast(z, "float8_e8m0fnu")[0] == 1  # 2**-126: wrong
    assert mf_cast(z, mf.float8_e8m0fnu)[0] == 0  # 2**-127: nearest


def ml_cast_supported(src, dst):
    try:
        np.zeros(1, getattr(md, src)).astype(getattr(md, dst))
        return True
    except TypeError:
        return False


@pytest.mark.parametrize("src", NAMES)
def test_format_to_format_matches_ml_dtypes(mf, src):
    codes = R.all_codes(src)
    vals = R.decode_array(src, codes)
    checked = 0
    for dst in NAMES:
        if not ml_cast_supported(src, dst):
            continue
        ml = ml_cast(codes.view(getattr(md, src)), dst)
        got = mf_cast(codes.view(getattr(mf, src)), getattr(mf, dst))
        keep = np.ones(codes.shape, dtype=bool)
        if dst == "float8_e8m0fnu":  # ml_dtypes goes through float32 subnormals
            keep &= ~((np.abs(vals) > 0) & (np.abs(vals) < F32_MIN_NORMAL))
        _compare(got[keep], ml[keep], codes[keep], f"{src}->{dst}", "minifloat vs ml_dtypes")
        checked += 1
    assert checked > 0
