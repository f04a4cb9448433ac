"""Scalar types: construction, conversion to Python numbers, str/repr,
arithmetic and comparisons, bad input, pickling."""

import contextlib
import math
import operator
import pickle
import warnings
import zlib
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import reference as R

NAMES = R.FORMAT_NAMES
ALL = pytest.mark.parametrize("name", NAMES)

try:
    from hypothesis import given, strategies as st

    HAVE_HYPOTHESIS = True
except ImportError:  # pragma: no cover
    HAVE_HYPOTHESIS = False

needs_hypothesis = pytest.mark.skipif(not HAVE_HYPOTHESIS, reason="hypothesis not installed")


def bits(s, T):
    """Code of a scalar of type T."""
    assert type(s) is T, (type(s), T)
    return int(R.codes_of(np.array([s], dtype=T))[0])


@contextlib.contextmanager
def quiet():
    """Silence FP warnings for constructions that may overflow."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def sample_codes(name, n=None, seed=0):
    fmt = R.FORMATS[name]
    if fmt.bits <= 8 and n is None:
        return list(range(fmt.ncodes))
    rng = np.random.default_rng(seed + zlib.crc32(name.encode()))
    base = [0, fmt.sign_bit, fmt.max_code(), fmt.max_code(True), 1, fmt.sign_bit | 1]
    return base + [int(c) for c in rng.integers(0, fmt.ncodes, n or 600)]


def scalar_of(mf, name, code):
    T = getattr(mf, name)
    fmt = R.FORMATS[name]
    return np.array([code], dtype=fmt.code_dtype).view(T)[0]


# --------------------------------------------------------------------------
# construction
# --------------------------------------------------------------------------


@ALL
def test_scalar_from_array_keeps_bits(mf, name):
    T = getattr(mf, name)
    for c in sample_codes(name):
        s = scalar_of(mf, name, c)
        assert type(s) is T
        assert bits(s, T) == c & R.FORMATS[name].mask
        assert bits(T(s), T) == c & R.FORMATS[name].mask  # T(T) is a copy
        assert np.asarray(s).dtype == np.dtype(T) and np.asarray(s).shape == ()


@ALL
def test_from_python_float(mf, name):
    T = getattr(mf, name)
    x, codes, _ = R.boundary_cases(name, np.float64)
    step = max(1, len(x) // 2000)
    with quiet(), np.errstate(all="ignore"):
        for v, c in zip(x[::step], codes[::step]):
            s = T(float(v))
            assert type(s) is T
            assert bits(s, T) == c, (name, float(v), hex(c), hex(bits(s, T)))
        for v in (math.nan, -math.nan, math.inf, -math.inf, 0.0, -0.0):
            assert bits(T(v), T) == R.encode(name, v)[0], (name, v)


@ALL
def test_from_python_int_and_bool(mf, name):
    T = getattr(mf, name)
    vals = [0, 1, -1, 2, 3, 5, 7, 17, 100, 255, 256, 257, 448, 464, 465, 1000, 2**24 + 1,
            2**31, 2**63 - 1, 2**64 + 1, 2**100 + 2**92 + 1, -(2**100), 2**1000, -(2**1000),
            10**400, 2**25 + 2**17 + 1]
    with quiet(), np.errstate(all="ignore"):
        for v in vals:
            assert bits(T(v), T) == R.encode(name, v)[0], (name, v)
        assert bits(T(True), T) == R.encode(name, 1)[0]
        assert bits(T(False), T) == R.encode(name, 0)[0]


@ALL
def test_from_str_and_bytes(mf, name):
    T = getattr(mf, name)
    for s in ["1.5", "-0.0", "0", "0.1", "-2.75", "1e-2", "3E1", "inf", "-inf", "1e100",
              "1.0625000000000000001", "1.0624999999999999999", "0.00000000000000000001"]:
        with quiet(), np.errstate(all="ignore"):
            assert bits(T(s), T) == R.encode(name, s)[0], (name, s)
            assert bits(T(s.encode()), T) == R.encode(name, s)[0], (name, s)
    if R.FORMATS[name].has_nan:
        assert math.isnan(float(T("nan")))
        assert math.isnan(float(T(b"nan")))


@ALL
def test_from_numpy_scalars(mf, name):
    T = getattr(mf, name)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    x, _, _ = R.boundary_cases(name, np.float64)
    xs = list(rng.choice(x, min(len(x), 300), replace=False)) + [1.0, -0.0, np.nan, np.inf]
    with quiet(), np.errstate(all="ignore"):
        for v in xs:
            for ft in (np.float16, np.float32, np.float64, np.longdouble):
                f = ft(v)
                assert bits(T(f), T) == R.encode(name, f)[0], (name, ft, f)
        for it in (np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64):
            for v in (0, 1, 3, 100, 127, np.iinfo(it).max):
                assert bits(T(it(v)), T) == R.encode(name, int(v))[0], (name, it, v)
        assert bits(T(np.int64(-(2**63))), T) == R.encode(name, -(2**63))[0]
        assert bits(T(np.bool_(True)), T) == R.encode(name, 1)[0]


@ALL
def test_from_other_minifloat_scalars(mf, name):
    T = getattr(mf, name)
    with quiet(), np.errstate(all="ignore"):
        for src in NAMES:
            for c in sample_codes(src, n=60, seed=1):
                s = scalar_of(mf, src, c)
                got = bits(T(s), T)
                exp = c & R.FORMATS[src].mask if src == name else R.convert(src, name, c)[0]
                assert got == exp, (src, name, hex(c), hex(got), hex(exp))


def test_double_rounding_scalars(mf):
    assert mf.float8_e4m3fn(1 + 2**-4 + 2**-40) == 1.125
    assert mf.bfloat16(2**25 + 2**17 + 1) == 2**25 + 2**18
    assert mf.float8_e4m3fn("1.0625000000000000001") == 1.125
    assert float(mf.float8_e4m3fn(np.float64(1 + 2**-4 + 2**-40))) == 1.125
    assert float(mf.bfloat16(np.int64(2**25 + 2**17 + 1))) == 2**25 + 2**18
    assert float(mf.float8_e4m3fn(464)) == 448


# --------------------------------------------------------------------------
# to Python numbers, hash, str/repr
# --------------------------------------------------------------------------


@ALL
def test_float_int_hash(mf, name):
    for c in sample_codes(name):
        s = scalar_of(mf, name, c)
        v = R.decode(name, c)
        f = float(s)
        assert type(f) is float
        if v == R.NAN:
            assert math.isnan(f)
            with pytest.raises(ValueError):
                int(s)
            continue
        assert f == R.decode_float(name, c)
        assert math.copysign(1, f) == math.copysign(1, R.decode_float(name, c))
        if v in (R.POS_INF, R.NEG_INF):
            with pytest.raises(OverflowError):
                int(s)
        else:
            assert int(s) == int(f)
        assert hash(s) == hash(f)


@ALL
def test_str_and_repr_shortest_roundtrip(mf, name):
    T = getattr(mf, name)
    for c in sample_codes(name, n=None if R.FORMATS[name].bits <= 8 else 400):
        s = scalar_of(mf, name, c)
        # (fp6/fp4 max: "8.0" reads back as 7.5 by saturation; accept "7.5")
        ok = R.shortest_reprs(name, c, overflow_ok=False)  # reads back without overflowing
        assert str(s) in ok, (name, hex(c), str(s), ok)
        assert repr(s) == str(s), (name, hex(c), repr(s))
        if R.decode(name, c) != R.NAN:
            with quiet():
                assert bits(T(str(s)), T) == c


def test_str_examples(mf):
    assert str(mf.float8_e4m3fn(0.1)) == "0.1"
    assert repr(mf.float8_e4m3fn(0.1)) == "0.1"
    assert str(mf.float8_e5m2(float("nan"))) == "nan"
    assert str(mf.float8_e5m2(float("inf"))) == "inf"
    assert str(mf.float8_e5m2(float("-inf"))) == "-inf"
    assert str(mf.float8_e4m3fn(-0.0)) == "-0.0"
    assert str(mf.bfloat16(1)) == "1.0"
    assert str(mf.float4_e2m1fn(6)) == "6.0"


# --------------------------------------------------------------------------
# arithmetic and comparisons
# --------------------------------------------------------------------------

OPS = {
    "add": (operator.add, lambda a, b: a + b),
    "sub": (operator.sub, lambda a, b: a - b),
    "mul": (operator.mul, lambda a, b: a * b),
    "div": (operator.truediv, lambda a, b: a / b),
}


def exact(v):
    return Fraction(0) if v == R.NEG_ZERO else v


def ref_binop(name, opname, ca, cb):
    """Expected code of T(a) op T(b): the exact result rounded once."""
    pyop, fop = OPS[opname]
    va, vb = R.decode(name, ca), R.decode(name, cb)
    fa, fb = R.decode_float(name, ca), R.decode_float(name, cb)
    with np.errstate(all="ignore"):
        f = float(pyop(np.float64(fa), np.float64(fb)))
    finite = all(isinstance(exact(v), Fraction) for v in (va, vb))
    if finite and not (opname == "div" and exact(vb) == 0):
        q = fop(exact(va), exact(vb))
        if q != 0:
            return R.encode(name, q)[0]
    # a zero result, or specials: float64 arithmetic on the exact operands
    # gives the exact (signed zero / inf / NaN) result
    return R.encode(name, f)[0]


def pair_sample(name):
    fmt = R.FORMATS[name]
    if fmt.ncodes <= 64:
        return [(a, b) for a in range(fmt.ncodes) for b in range(fmt.ncodes)]
    rng = np.random.default_rng(zlib.crc32(name.encode()) + 99)
    pairs = [tuple(int(v) for v in p) for p in rng.integers(0, fmt.ncodes, (1500, 2))]
    # near-equal operands (cancellation) and tiny ones (underflow)
    for a in rng.integers(0, fmt.ncodes, 200):
        a = int(a)
        pairs += [(a, a ^ 1), (a, a ^ fmt.sign_bit), (a & 0xF, (a >> 3) & 0xF)]
    return pairs


def check_result(name, T, r, exp_code, ctx):
    assert type(r) is T, (ctx, type(r))
    if R.decode(name, exp_code) == R.NAN:
        assert math.isnan(float(r)), ctx
    else:
        assert bits(r, T) == exp_code, (ctx, hex(exp_code), hex(bits(r, T)))


@ALL
@pytest.mark.parametrize("opname", list(OPS))
def test_same_type_arithmetic(mf, name, opname):
    T = getattr(mf, name)
    fmt = R.FORMATS[name]
    pyop = OPS[opname][0]
    with quiet(), np.errstate(all="ignore"):
        for ca, cb in pair_sample(name):
            ca, cb = ca & fmt.mask, cb & fmt.mask
            if opname == "div" and R.decode(name, cb) in (0, R.NEG_ZERO) and not fmt.has_nan:
                continue  # 0/0 has no value in a format without NaN
            a, b = scalar_of(mf, name, ca), scalar_of(mf, name, cb)
            exp = ref_binop(name, opname, ca, cb)
            check_result(name, T, pyop(a, b), exp, (name, opname, hex(ca), hex(cb)))


@ALL
def test_python_number_operands_are_weak(mf, name):
    T = getattr(mf, name)
    fmt = R.FORMATS[name]
    k = 1.5 if Fraction(3, 2) in R.value_set(name) else 2.0
    with quiet(), np.errstate(all="ignore"):
        for c in sample_codes(name, n=None if fmt.bits <= 8 else 300):
            s = scalar_of(mf, name, c)
            v = R.decode(name, c)
            f = R.decode_float(name, c)
            cases = [
                (s * 2, lambda x: x * 2, lambda x: x * 2),
                (2 * s, lambda x: 2 * x, lambda x: 2 * x),
                (s + 1, lambda x: x + 1, lambda x: x + 1),
                (k - s, lambda x: Fraction(k) - x, lambda x: k - x),
                (s / 2.0, lambda x: x / 2, lambda x: x / 2.0),
            ]
            for r, fx, ff in cases:
                if isinstance(exact(v), Fraction) and fx(exact(v)) != 0:
                    exp = R.encode(name, fx(exact(v)))[0]
                else:
                    exp = R.encode(name, float(ff(np.float64(f))))[0]
                check_result(name, T, r, exp, (name, hex(c)))


@ALL
def test_unary_negative_and_abs(mf, name):
    T = getattr(mf, name)
    with quiet(), np.errstate(all="ignore"):
        for c in sample_codes(name):
            s = scalar_of(mf, name, c)
            v = R.decode(name, c)
            if v == R.NAN:
                assert math.isnan(float(-s)) and math.isnan(float(abs(s)))
                continue
            neg = {R.POS_INF: R.NEG_INF, R.NEG_INF: R.POS_INF, R.NEG_ZERO: 0}.get(v)
            if neg is None:
                neg = R.NEG_ZERO if v == 0 else -v
            check_result(name, T, -s, R.encode(name, neg)[0], (name, "neg", hex(c)))
            av = {R.NEG_INF: R.POS_INF, R.NEG_ZERO: 0}.get(v, v)
            av = abs(av) if isinstance(av, Fraction) else av
            check_result(name, T, abs(s), R.encode(name, av)[0], (name, "abs", hex(c)))


CMPS = [operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne]


@ALL
def test_comparisons(mf, name):
    fmt = R.FORMATS[name]
    for ca, cb in pair_sample(name)[:2000]:
        ca, cb = ca & fmt.mask, cb & fmt.mask
        a, b = scalar_of(mf, name, ca), scalar_of(mf, name, cb)
        fa, fb = R.decode_float(name, ca), R.decode_float(name, cb)
        for op in CMPS:
            r = op(a, b)
            assert isinstance(r, (bool, np.bool_))
            assert bool(r) == op(fa, fb), (name, op.__name__, hex(ca), hex(cb))
    for c in sample_codes(name, n=None if fmt.bits <= 8 else 300):
        s = scalar_of(mf, name, c)
        f = R.decode_float(name, c)
        assert bool(s == 1.0) == (f == 1.0)
        assert bool(s < 2) == (f < 2)
        assert bool(s >= 0.5) == (f >= 0.5)
        assert bool(1 != s) == (1 != f)


# --------------------------------------------------------------------------
# bad input never crashes
# --------------------------------------------------------------------------


@ALL
def test_bad_input(mf, name):
    T = getattr(mf, name)
    for bad in ("abc", "", "1.5x", "--1", "0x10", b"abc", "1.5.5", "nanx"):
        with pytest.raises(ValueError):
            T(bad)
    for bad in (None, object(), {}, Fraction):
        with pytest.raises(TypeError):
            T(bad)
    with quiet(), np.errstate(all="ignore"):
        for big in (2**1000, -(2**1000), 10**5000, 2**64, -(2**64) - 1):
            assert bits(T(big), T) == R.encode(name, big)[0]
        assert bits(T(1e308), T) == R.encode(name, 1e308)[0]


if HAVE_HYPOTHESIS:

    @needs_hypothesis
    @ALL
    @given(x=st.floats(allow_nan=True, allow_infinity=True))
    def test_hypothesis_python_floats(mf, name, x):
        T = getattr(mf, name)
        with quiet(), np.errstate(all="ignore"):
            got = bits(T(x), T)
            arr = R.codes_of(np.array([x]).astype(T))[0]
        exp = R.encode(name, x)[0]  # NaN: by its sign bit
        assert got == exp and arr == exp, (x, hex(exp), hex(got), hex(arr))

    @needs_hypothesis
    @ALL
    @given(v=st.integers(min_value=-(2**300), max_value=2**300))
    def test_hypothesis_python_ints(mf, name, v):
        T = getattr(mf, name)
        with quiet(), np.errstate(all="ignore"):
            got = bits(T(v), T)
        assert got == R.encode(name, v)[0], v

    @needs_hypothesis
    @ALL
    @given(
        m=st.integers(min_value=-(10**25), max_value=10**25),
        e=st.integers(min_value=-60, max_value=45),
        style=st.sampled_from(["e", "fixed"]),
    )
    def test_hypothesis_decimal_strings(mf, name, m, e, style):
        T = getattr(mf, name)
        if style == "e":
            s = f"{m}e{e}"
        else:
            s = format(Decimal(m).scaleb(e), "f")
        with quiet(), np.errstate(all="ignore"):
            got = bits(T(s), T)
        assert got == R.encode(name, s)[0], s

    @needs_hypothesis
    @given(text=st.text(alphabet="0123456789.eE+-naifINFty x_\t", max_size=12))
    def test_hypothesis_junk_strings_never_crash(mf, text):
        for name in NAMES:
            T = getattr(mf, name)
            try:
                with quiet(), np.errstate(all="ignore"):
                    s = T(text)
            except ValueError:
                continue
            assert type(s) is T


# --------------------------------------------------------------------------
# pickling
# --------------------------------------------------------------------------


@ALL
def test_pickle_scalars(mf, name):
    T = getattr(mf, name)
    for c in sample_codes(name, n=None if R.FORMATS[name].bits <= 8 else 300):
        s = scalar_of(mf, name, c)
        for proto in (2, pickle.HIGHEST_PROTOCOL):
            t = pickle.loads(pickle.dumps(s, protocol=proto))
            assert type(t) is T
            assert bits(t, T) == c & R.FORMATS[name].mask
