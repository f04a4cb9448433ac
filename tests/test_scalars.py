"""Scalar types: construction, conversion to Python numbers, str/repr,
arithmetic and comparisons, bad input, pickling."""

import contextlib
import copy
import json
import math
import operator
import pickle
import warnings
import zlib
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import printing_reference as P
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
def test_str_and_repr_of_every_code(mf, name):
    """str and repr: the exact value as float32 prints it for formats of 8
    bits or fewer, the shortest round-trip decimal for bfloat16 (every code:
    256, or all 65536); and T(eval(repr(x))) gives the same bits."""
    T = getattr(mf, name)
    fmt = R.FORMATS[name]
    for c in range(fmt.ncodes):
        s = scalar_of(mf, name, c)
        text = str(s)
        if fmt.bits <= 8 or c % 64 == 0:  # the bfloat16 reference is slow: a sample
            ok = P.expected_texts(name, c)
            assert text in ok, (name, hex(c), text, ok)
        assert repr(s) == text
        with quiet():
            back = T(eval(repr(s), {"nan": math.nan, "inf": math.inf}))
        if R.decode(name, c) == R.NAN:
            assert math.isnan(float(back))
        else:
            assert bits(back, T) == c, (name, hex(c), text)
            assert bits(T(text), T) == c


def test_str_examples(mf):
    e4 = mf.float8_e4m3fn
    assert str(e4(0.1)) == repr(e4(0.1)) == "0.1015625" == str(np.float32(0.1015625))
    assert str(e4(448)) == "448.0" and str(e4(192)) == "192.0"
    assert str(mf.float8_e8m0fnu(2.0**127)) == str(np.float32(2.0**127)) == "1.7014118e+38"
    assert str(mf.float8_e8m0fnu(2.0**25)) == str(np.float32(2.0**25)) == "3.3554432e+07"
    assert str(mf.float8_e5m2(float("nan"))) == "nan"
    assert str(mf.float8_e5m2(float("inf"))) == "inf"
    assert str(mf.float8_e5m2(float("-inf"))) == "-inf"
    assert str(e4(-0.0)) == "-0.0"
    assert str(mf.float4_e2m1fn(6)) == "6.0"
    b = mf.bfloat16
    assert str(b(1)) == "1.0" and str(b(0.1)) == "0.1"  # 0.10009765625: shortest, like float16
    assert str(b(99.5)) == "99.5" and str(b(448)) == "4.48e+02"  # 10**finfo.precision = 100
    assert str(np.float16(1000)) == "1e+03"  # NumPy's own rule for float16 (10**3)


@ALL
def test_astype_str_is_scalar_str(mf, name):
    """One source of digits: astype(str) and str(scalar) agree."""
    T = getattr(mf, name)
    codes = sample_codes(name, n=None if R.FORMATS[name].bits <= 8 else 500)
    arr = np.array(codes, R.FORMATS[name].code_dtype).view(T)
    assert arr.astype(str).tolist() == [str(x) for x in arr]


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
    # the operands are values of the format (a weak Python number is cast
    # into it first: 2 is +inf in binary8p7se, whose values stop below 2)
    m = 2 if Fraction(2) in R.value_set(name) else 1
    with quiet(), np.errstate(all="ignore"):
        for c in sample_codes(name, n=None if fmt.bits <= 8 else 300):
            s = scalar_of(mf, name, c)
            v = R.decode(name, c)
            f = R.decode_float(name, c)
            cases = [
                (s * m, lambda x: x * m, lambda x: x * m),
                (m * s, lambda x: m * x, lambda x: m * x),
                (s + 1, lambda x: x + 1, lambda x: x + 1),
                (k - s, lambda x: Fraction(k) - x, lambda x: k - x),
                (s / float(m), lambda x: x / m, lambda x: x / float(m)),
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
            assert type(r) is np.bool_  # as NumPy's scalars give
            assert bool(r) == op(fa, fb), (name, op.__name__, hex(ca), hex(cb))
    for c in sample_codes(name, n=None if fmt.bits <= 8 else 300):
        s = scalar_of(mf, name, c)
        f = R.decode_float(name, c)
        for r, expected in ((s == 1.0, f == 1.0), (s < 2, f < 2), (s >= 0.5, f >= 0.5), (1 != s, 1 != f),
                            (0.5 < s, 0.5 < f), (s == True, f == 1.0)):  # noqa: E712
            assert type(r) is np.bool_ and bool(r) == expected, (name, hex(c))


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
    # None is no missing value here (np.float16 reads it as NaN): the message says what is
    with pytest.raises(TypeError, match=r"np\.nan marks a missing value"):
        np.array([1.0, None], dtype=T)
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


# --------------------------------------------------------------------------
# NumPy scalar behaviour, side by side with np.float16
# --------------------------------------------------------------------------


def exact_value(name, c):
    v = R.decode(name, c)
    return Fraction(0) if v == R.NEG_ZERO else v


def finite_codes(name, limit=None):
    codes = [c for c in range(R.FORMATS[name].ncodes) if isinstance(R.decode(name, c), Fraction)
             or R.decode(name, c) == R.NEG_ZERO]
    if limit is not None and len(codes) > limit:
        rng = np.random.default_rng(zlib.crc32(name.encode()) + 7)
        codes = sorted(int(c) for c in rng.choice(codes, limit, replace=False))
    return codes


@ALL
def test_comparisons_with_other_types(mf, name):
    """np.bool_ against every kind of number, as float16 gives; Python
    numbers are weak (rounded into the format first, except for
    float8_e8m0fnu, which holds neither 0 nor negatives)."""
    T = getattr(mf, name)
    fmt = R.FORMATS[name]
    other_format = "float8_e5m2" if name != "float8_e5m2" else "float8_e4m3fn"
    others = [1.0, 2, 0.3, np.float32(0.3), np.float16(1.5), np.float64(0.25), np.int32(3),
              getattr(mf, other_format)(0.75), Fraction(3, 2), Decimal("0.5")]
    with quiet(), np.errstate(all="ignore"):
        for c in finite_codes(name, 40):
            s = scalar_of(mf, name, c)
            f = R.decode_float(name, c)
            for other in others:
                weak = type(other) in (float, int) and fmt.signed
                theirs = R.decode_float(name, R.encode(name, other)[0]) if weak else float(other)
                for op in CMPS:
                    r, rr = op(s, other), op(other, s)
                    assert bool(r) == op(f, theirs) and bool(rr) == op(theirs, f), (name, hex(c), other)
                    h = np.float16(1.5)  # the types float16 gives
                    assert type(r) is type(op(h, other)) and type(rr) is type(op(other, h)), (other, op)
    s = T(1)
    h = np.float16(1)

    def outcome(f):
        try:
            r = f()
        except Exception as e:  # the same kind of failure as float16's
            return "raises", isinstance(e, TypeError), isinstance(e, ValueError)
        return type(r), (r.tolist() if isinstance(r, np.ndarray) else bool(r))

    odd = [None, "a", b"a", np.str_("a"), [1, "a"], [[1], [1, 2]], np.datetime64(1, "s"), {}, object(),
           1 + 0j, [1.0, 2.0], (1.0, 2.0), np.array(1.0), np.array([1.0, 2.0])]
    for other in odd:
        for op in CMPS:
            assert outcome(lambda: op(s, other)) == outcome(lambda: op(h, other)), (name, op, other)
            assert outcome(lambda: op(other, s)) == outcome(lambda: op(other, h)), (name, op, other)


@ALL
def test_broadcast_with_sequences_and_arrays(mf, name):
    """A scalar against a list, tuple or array broadcasts, in both orders,
    as np.float16(1) == [1.0, 2.0] gives array([ True, False])."""
    T = getattr(mf, name)
    fmt = R.FORMATS[name]
    codes = [c for c in finite_codes(name) if exact_value(name, c) > 0]
    rng = np.random.default_rng(zlib.crc32(name.encode()) + 11)
    for _ in range(30):
        c, a, b = (int(v) for v in rng.choice(codes, 3))
        s = scalar_of(mf, name, c)
        f = R.decode_float(name, c)
        seq = [R.decode_float(name, a), R.decode_float(name, b)]
        as_format = np.array([a, b], fmt.code_dtype).view(T)
        for container in (list, tuple, np.array, lambda q: as_format):
            other = container(seq)
            for op in CMPS:
                r, rr = op(s, other), op(other, s)
                for got, exp in ((r, [op(f, x) for x in seq]), (rr, [op(x, f) for x in seq])):
                    assert isinstance(got, np.ndarray) and got.dtype == bool and got.tolist() == exp, (name, op)
            with quiet(), np.errstate(all="ignore"):
                for op, exact_op in ((operator.add, operator.add), (operator.mul, operator.mul)):
                    r, rr = op(s, other), op(other, s)
                    assert isinstance(r, np.ndarray) and isinstance(rr, np.ndarray)
                    if r.dtype == np.dtype(T):  # the format's own arithmetic: rounded once
                        exp = [R.encode(name, exact_op(exact_value(name, c), exact_value(name, x)))[0]
                               for x in (a, b)]
                        assert R.codes_of(r).tolist() == exp and R.codes_of(rr).tolist() == exp
                    else:  # a list of Python floats is float64, as for float16
                        assert r.dtype == np.float64
                        assert r.tolist() == [op(f, x) for x in seq] == rr.tolist()
    h = np.float16(1)
    assert type(h + [1.0]) is type(T(1) + [1.0]) is np.ndarray


@ALL
def test_hash(mf, name):
    """hash(x) == hash(float(x)) for numbers (both zeros alike, as for
    float16); a NaN's hash stays the same for the object's life."""
    fmt = R.FORMATS[name]
    for c in sample_codes(name, n=None if fmt.bits <= 8 else 2000):
        s = scalar_of(mf, name, c)
        f = R.decode_float(name, c)
        if math.isnan(f):
            first = hash(s)
            junk = [scalar_of(mf, name, c) for _ in range(50)]  # reuse of freed memory must not matter
            assert all(hash(s) == first for _ in range(20)), name
            assert {s: 1}[s] == 1
            del junk
            continue
        assert hash(s) == hash(f)
        with np.errstate(over="ignore"):
            h16 = np.float16(f)
        if float(h16) == f:
            assert hash(s) == hash(h16)
    if fmt.has_neg_zero:
        assert hash(scalar_of(mf, name, fmt.sign_bit)) == hash(scalar_of(mf, name, 0)) == 0
    n16 = np.float16("nan")
    assert hash(n16) == hash(n16)


# ---- negative, absolute, copysign keep NaN payloads (IEEE 754 5.5.1) ------


def _negated(v):
    return {R.POS_INF: R.NEG_INF, R.NEG_INF: R.POS_INF, R.NEG_ZERO: Fraction(0)}.get(
        v, R.NEG_ZERO if v == 0 else (-v if isinstance(v, Fraction) else v))


def _magnitude(v):
    """|v| of a reference value (a Fraction or an infinity's marker)."""
    return R.POS_INF if v in (R.POS_INF, R.NEG_INF) else abs(v)


def _negative_magnitude(v):
    return R.NEG_INF if v in (R.POS_INF, R.NEG_INF) else -abs(v)


def expected_negative(name, c):
    fmt = R.FORMATS[name]
    if fmt.has_neg_zero:  # the sign bit is a pure sign: a bit operation
        return c ^ fmt.sign_bit
    if R.decode(name, c) == R.NAN:  # fnuz: the one NaN (the -0 code); e8m0: no sign
        return c
    return R.encode(name, _negated(R.decode(name, c)))[0]


def expected_absolute(name, c):
    fmt = R.FORMATS[name]
    if fmt.has_neg_zero:
        return c & ~fmt.sign_bit
    v = R.decode(name, c)
    if v == R.NAN:
        return c
    return R.encode(name, _magnitude(v))[0]


def expected_copysign(name, x, y):
    fmt = R.FORMATS[name]
    if fmt.has_neg_zero:
        return (x & ~fmt.sign_bit) | (y & fmt.sign_bit)
    v = R.decode(name, x)
    if v == R.NAN:
        return x
    negative = math.copysign(1.0, R.decode_float(name, y)) < 0  # fnuz NaN: its sign bit is set
    return R.encode(name, _negative_magnitude(v) if negative else _magnitude(v))[0]


@pytest.mark.parametrize("name", [n for n in NAMES if R.FORMATS[n].has_neg_zero])
def test_sign_bit_rule_agrees_with_values(mf, name):
    """Where the bit rule is used it gives the value rule's result on every
    non-NaN code (so it is the same operation, NaNs aside)."""
    fmt = R.FORMATS[name]
    for c in sample_codes(name, n=None if fmt.bits <= 8 else 3000):
        v = R.decode(name, c)
        if v == R.NAN:
            assert R.decode(name, expected_negative(name, c)) == R.NAN
            continue
        assert R.encode(name, _negated(v))[0] == expected_negative(name, c)
        assert R.encode(name, {R.NEG_INF: R.POS_INF, R.NEG_ZERO: Fraction(0)}.get(
            v, abs(v) if isinstance(v, Fraction) else v))[0] == expected_absolute(name, c)


def test_float16_keeps_payloads_too():
    """The model: NumPy's float16 negative/absolute/copysign are bit
    operations on NaN payloads."""
    payload = np.array([0x7C01, 0xFE37, 0x7E00], np.uint16)
    h = payload.view(np.float16)
    assert np.negative(h).view(np.uint16).tolist() == (payload ^ 0x8000).tolist()
    assert np.absolute(h).view(np.uint16).tolist() == (payload & 0x7FFF).tolist()
    assert np.copysign(h, np.float16(-1)).view(np.uint16).tolist() == (payload | 0x8000).tolist()


@ALL
def test_negative_absolute_keep_nan_payloads(mf, name):
    T = getattr(mf, name)
    fmt = R.FORMATS[name]
    codes = R.all_codes(name)
    exp_neg = np.array([expected_negative(name, int(c)) for c in codes], fmt.code_dtype)
    exp_abs = np.array([expected_absolute(name, int(c)) for c in codes], fmt.code_dtype)
    arr = codes.view(T)
    with np.errstate(all="ignore"):
        for got, exp in ((np.negative(arr), exp_neg), (np.absolute(arr), exp_abs), (np.fabs(arr), exp_abs),
                         (np.positive(arr), codes), (np.conjugate(arr), codes),
                         (np.negative(arr[::-3]), exp_neg[::-3]), (np.absolute(arr[1::2]), exp_abs[1::2])):
            np.testing.assert_array_equal(R.codes_of(got), exp)
        out = np.empty_like(arr)
        np.negative(arr, out=out)
        np.testing.assert_array_equal(R.codes_of(out), exp_neg)
    step = 1 if fmt.bits <= 8 else 97
    with quiet(), np.errstate(all="ignore"):
        for c in range(0, fmt.ncodes, step):
            s = scalar_of(mf, name, c)
            assert bits(-s, T) == exp_neg[c], (name, hex(c))
            assert bits(abs(s), T) == exp_abs[c], (name, hex(c))
            assert bits(+s, T) == c


def expected_copysign_codes(name, x, y):
    """expected_copysign over arrays of codes (the result depends on x and
    the sign bit of y: a table of the reference)."""
    fmt = R.FORMATS[name]
    negative_y = (y & fmt.sign_bit) != 0
    if fmt.has_neg_zero:
        return (x & fmt.mag_mask) | (y & fmt.sign_bit)
    table = np.array([[expected_copysign(name, a, fmt.sign_bit if neg else 0) for a in range(fmt.ncodes)]
                      for neg in (False, True)], fmt.code_dtype)
    return table[negative_y.astype(int), x]


@ALL
def test_copysign_keeps_nan_payloads(mf, name):
    """Every pair of codes (bfloat16: a sample with NaN payloads), contiguous,
    strided and with either operand a scalar."""
    T = getattr(mf, name)
    fmt = R.FORMATS[name]
    if fmt.bits <= 8:
        x, y = (a.ravel() for a in np.meshgrid(R.all_codes(name), R.all_codes(name)))
    else:
        rng = np.random.default_rng(5)
        nan_payloads = np.array([0x7F81, 0xFFC1, 0x7FFF, 0xFF80 | 0x35], fmt.code_dtype)
        x = np.concatenate([rng.integers(0, fmt.ncodes, 40000).astype(fmt.code_dtype), nan_payloads, nan_payloads])
        y = np.concatenate([rng.integers(0, fmt.ncodes, 40000).astype(fmt.code_dtype), nan_payloads[::-1],
                            np.array([0x8000, 0, 0x3F80, 0xBF80], fmt.code_dtype)])
    exp = expected_copysign_codes(name, x, y)
    xa, ya = x.view(T), y.view(T)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(R.codes_of(np.copysign(xa, ya)), exp)
        np.testing.assert_array_equal(R.codes_of(np.copysign(xa[::-2], ya[::-2])), exp[::-2])
        for k in range(0, len(y), max(1, len(y) // 7)):  # one operand a scalar, both orders
            np.testing.assert_array_equal(R.codes_of(np.copysign(xa, ya[k])),
                                          expected_copysign_codes(name, x, np.full_like(y, y[k])))
            np.testing.assert_array_equal(R.codes_of(np.copysign(xa[k], ya)),
                                          expected_copysign_codes(name, np.full_like(x, x[k]), y))


# ---- tolist, item, finfo, dtype ---------------------------------------------


@ALL
def test_tolist_and_item_give_python_floats(mf, name):
    """tolist(), item() and astype(object) give Python floats, as for
    float16 (so json.dumps(arr.tolist()) works); indexing gives scalars."""
    T = getattr(mf, name)
    fmt = R.FORMATS[name]
    codes = np.array(sample_codes(name, n=None if fmt.bits <= 8 else 1000), fmt.code_dtype)
    arr = codes.view(T)
    expected = [R.decode_float(name, int(c)) for c in codes]

    def same(got, exp):
        assert type(got) is float
        assert (math.isnan(got) and math.isnan(exp)) or (got == exp and math.copysign(1, got) == math.copysign(1, exp))

    for got, exp in zip(arr.tolist(), expected):
        same(got, exp)
    for got, exp in zip(arr.astype(object).tolist(), expected):
        same(got, exp)
    for i in range(0, len(codes), max(1, len(codes) // 50)):
        same(arr.item(i), expected[i])
        same(np.array(arr[i]).item(), expected[i])
        assert type(arr[i]) is T and bits(arr[i], T) == codes[i]
        same(arr[i].item(), expected[i])
        same(arr[i].tolist(), expected[i])
    assert [type(v) for v in arr[:3]] == [T] * 3
    assert type(arr.reshape(-1, 1)[0, 0]) is T and type(arr.flat[0]) is T
    nested = arr[:4].reshape(2, 2).tolist()
    assert [[type(v) for v in row] for row in nested] == [[float, float], [float, float]]
    finite = np.isfinite(np.array(expected))
    assert json.loads(json.dumps(arr[finite].tolist())) == [e for e, k in zip(expected, finite) if k]
    h = np.array([1.5], np.float16)
    assert type(h.tolist()[0]) is type(h.item(0)) is float and type(h[0]) is np.float16


@ALL
def test_finfo_of_anything(mf, name):
    T = getattr(mf, name)
    info = np.finfo(T)
    one = T(1)
    for arg in (T, np.dtype(T), name, one, np.zeros(3, T), np.zeros((), T), np.zeros((2, 2), T)[:, 0]):
        assert mf.finfo(arg) is info, arg
    assert np.finfo(one) is info
    assert mf.finfo(np.zeros(2, np.float16)) is np.finfo(np.float16)
    assert float(info.max) == float(R.finfo_expected(name)["max"])


@ALL
def test_dtype_attribute(mf, name):
    """The scalar type's dtype, on the class too (as ml_dtypes' types have)."""
    T = getattr(mf, name)
    d = np.dtype(T)
    assert T.dtype is d and isinstance(T.dtype, np.dtype)
    assert T(1).dtype is d and np.zeros(2, T)[0].dtype is d
    assert np.zeros(2, T.dtype).dtype is d


def _shared_values(name):
    """Values of the format that float16 holds too, for side-by-side checks."""
    vals = R.value_set(name)
    out = [v for v in (Fraction(3, 2), Fraction(-2), Fraction(1, 4), Fraction(3), Fraction(-1, 2), Fraction(6),
                       Fraction(2), Fraction(1, 8), Fraction(7, 2)) if v in vals]
    return out[:5]


@ALL
def test_behaves_like_float16(mf, name):
    T = getattr(mf, name)
    fmt = R.FORMATS[name]
    values = _shared_values(name)
    assert len(values) >= 3
    for v in values:
        x, h = T(float(v)), np.float16(float(v))
        code = bits(x, T)
        assert format(x, ".3f") == format(h, ".3f") and format(x, ".2e") == format(h, ".2e")
        # NumPy formats its float scalars as the Python float: f"{x}" is
        # format(float(x), "") (f"{np.float16(0.1)}" is '0.0999755859375')
        assert f"{x}" == format(float(x), "") == f"{h}" and f"{x:>8}" == f"{h:>8}"
        assert round(x) == round(h) and type(round(x)) is int
        r = round(x, 1)  # the decimal rounding, rounded into the type (as float16 does)
        assert type(r) is T and bits(r, T) == R.encode(name, round(v, 1))[0]
        assert float(round(h, 1)) == float(np.float16(float(round(v, 1))))
        assert int(x) == int(h) and float(x) == float(h) == float(v) and bool(x) == bool(h)
        assert x.is_integer() == h.is_integer() and x.as_integer_ratio() == h.as_integer_ratio()
        assert type(np.float32(x)) is np.float32 and np.float32(x) == np.float32(h)
        assert type(x.astype(np.float32)) is np.float32 and x.astype(np.float64) == float(v)
        assert x.view(fmt.code_dtype) == code and type(x.view(fmt.code_dtype)) is np.dtype(fmt.code_dtype).type
        swapped = x.byteswap()
        assert type(swapped) is T
        assert bits(swapped, T) == (code if fmt.bits <= 8 else ((code >> 8) | ((code & 0xFF) << 8)))
        with pytest.raises(ValueError):
            x.byteswap(inplace=True)
        with pytest.raises(ValueError):
            h.byteswap(inplace=True)
        assert type(x.item()) is type(h.item()) is float and x.item() == h.item()
        assert type(x.tolist()) is float and x.tolist() == h.tolist()
        a = x.__array__()
        assert type(a) is np.ndarray and a.shape == () and a.dtype == np.dtype(T) and bits(a[()], T) == code
        for y in (copy.copy(x), copy.deepcopy(x), pickle.loads(pickle.dumps(x))):
            assert bits(y, T) == code
        assert bits(x.real, T) == code and bits(x.conjugate(), T) == code
        assert x.imag == h.imag == 0
        assert type(x.imag) is (T if fmt.has_zero else np.float32)  # float8_e8m0fnu has no zero
        assert x.dtype is T.dtype and x.itemsize == x.nbytes == np.dtype(T).itemsize
        assert (x.shape, x.ndim, x.size) == (h.shape, h.ndim, h.size) == ((), 0, 1)
        assert bits(x.T, T) == code and [bits(e, T) for e in x.flat] == [code]


def test_e8m0_imaginary_part(mf):
    """float8_e8m0fnu holds no zero: its imaginary part is a float32 zero."""
    x = mf.float8_e8m0fnu(2.0)
    assert type(x.imag) is np.float32 and x.imag == 0
    assert x.real == 2 and type(x.real) is mf.float8_e8m0fnu
