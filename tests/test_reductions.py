"""Reductions accumulate in float32 and round once: sum, add.reduce, mean,
prod, cumsum, cumprod, add.accumulate, add.at, nansum, dtype=float32.

Within one reduction the float32 summation order is an implementation
detail, so results are compared exactly only where float32 summation is
exact whatever the order (every partial sum is a multiple of the smallest
quantum q and stays below 2**24 q); otherwise the result must be the
rounding of a float32 value within the float32 error bound of the exact sum.
"""

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

import reference as R
import ufunc_reference as U

NAMES = list(U.NAMES)
ALL = pytest.mark.parametrize("name", NAMES)
WITH_ZERO = [n for n in NAMES if R.FORMATS[n].has_zero]


def T_of(mf, name):
    return getattr(mf, name)


def from_values(mf, name, values):
    """Array of the format holding exactly these values (asserted)."""
    v = np.asarray(values, dtype=np.float64)
    codes = U.encode_codes(name, v)
    assert (U.decode(name, codes)[~np.isnan(v)] == v[~np.isnan(v)]).all(), "not representable"
    return codes.view(T_of(mf, name))


def finite_max(name):
    return float(R.finfo_expected(name)["max"])


def rcode(name, value):
    """Code of the single rounding of an exact value (Fraction/int/float)."""
    return int(R.encode_code(name, value))


def code(x):
    return int(U.codes_of(np.asarray(x)).reshape(-1)[0])


def codes(x):
    return [int(c) for c in U.codes_of(np.asarray(x)).reshape(-1)]


def min_quantum(v):
    """Smallest power of two dividing every value (v finite float64)."""
    nz = v[v != 0]
    if nz.size == 0:
        return 1.0
    m, e = np.frexp(nz)
    # trailing zeros of the 53-bit significand
    sig = np.ldexp(np.abs(m), 53).astype(np.int64)
    tz = np.array([(int(s) & -int(s)).bit_length() - 1 for s in sig])
    return float(np.ldexp(1.0, int((e - 53 + tz).min())))


def f32_sum_is_exact(v):
    q = min_quantum(v)
    return q >= 2.0**-149 and math.fsum(np.abs(v).tolist()) / q < 2**24


def check_sum_code(name, got_code, values):
    v = np.asarray(values, dtype=np.float64)
    if f32_sum_is_exact(v):
        exact = sum(Fraction(x) for x in v.tolist())
        exp = rcode(name, exact) if exact != 0 else None
        if exp is None:  # an exact zero sum: +0 (-0 only if every term is -0)
            allneg = all(math.copysign(1, x) < 0 for x in v.tolist()) and v.size > 0
            exp = R.FORMATS[name].zero_code(allneg) if R.FORMATS[name].has_zero else \
                R.FORMATS[name].mask
        assert U.compare_codes(name, [got_code], [exp])[0], (name, hex(got_code), hex(exp))
    else:
        exact, ok = U.acceptable_sum_codes(name, v)
        assert got_code in ok, (name, hex(got_code), sorted(hex(c) for c in ok), exact)


# --------------------------------------------------------------------------
# sum
# --------------------------------------------------------------------------


@ALL
def test_sum_of_300_ones(mf, name):
    T = T_of(mf, name)
    x = np.ones(300, T)
    with np.errstate(all="ignore"):
        s = x.sum()
        assert isinstance(s, T) or np.asarray(s).dtype == np.dtype(T)
        assert code(s) == rcode(name, 300)
        assert code(np.add.reduce(x)) == rcode(name, 300)
        assert code(np.sum(x, axis=0)) == rcode(name, 300)
        s32 = x.sum(dtype=np.float32)
        assert np.asarray(s32).dtype == np.float32 and s32 == 300.0
        assert x.sum(dtype=np.float64) == 300.0
    if name == "float8_e4m3fn":
        assert s == 288  # ml_dtypes accumulates in the format and gets 16


@ALL
def test_sum_axes(mf, name):
    T = T_of(mf, name)
    e = rcode(name, 300)
    with np.errstate(all="ignore"):
        a = np.ones((300, 2), T)
        assert codes(a.sum(axis=0)) == [e, e]
        assert codes(a.T.sum(axis=1)) == [e, e]
        assert codes(a.sum(axis=1)) == [rcode(name, 2)] * 300
        assert code(a.sum()) == rcode(name, 600)
        b = np.ones((3, 100, 2), T)
        assert codes(b.sum(axis=(0, 1))) == [e, e]
        assert codes(b.sum(axis=(0, 2))) == [rcode(name, 6)] * 100
        assert codes(b.sum(axis=(0, 1), keepdims=True)) == [e, e]
        assert b.sum(axis=(0, 1), keepdims=True).shape == (1, 1, 2)
        c = np.ones((2, 300, 3), T)[:, ::2, :]  # strided
        assert codes(c.sum(axis=1)) == [rcode(name, 150)] * 6
        out = np.empty(2, T)
        np.sum(a, axis=0, out=out)
        assert codes(out) == [e, e]
        assert out.dtype == np.dtype(T)


@pytest.mark.parametrize("name", ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float6_e3m2fn", "float4_e2m1fn",
                                  "float8_e4m3fnuz", "binary8p3se"])
@pytest.mark.parametrize("op", ["add", "multiply"])
def test_row_by_row_reductions_round_once(mf, name, op):
    # x.sum(axis=0) is one NumPy call per row of x into the output row: the
    # row's float32 totals (in row order), rounded into the format once at
    # the end, overflow past the format's range and NaN included; the bulk
    # encoder rounds the row (value by value it took 28 ms for 1000x1000)
    T = T_of(mf, name)
    rng = np.random.default_rng(29)
    scale = 1.05 if op == "multiply" else 40.0
    x = (rng.standard_normal((64, 300)) * scale).astype(T)
    x[5, ::37] = np.nan
    with np.errstate(all="ignore"):
        got = getattr(np, op).reduce(x, axis=0)
        total = x[0].astype(np.float32)
        for row in x[1:].astype(np.float32):
            total = getattr(np, op)(total, row)
        info = mf.format_info(name)
        if not info["infinities"]:  # a float32 inf is an overflow past the format, not an inf
            total = np.where(np.isinf(total), np.copysign(np.finfo(np.float32).max, total), total)
        want = total.astype(T)
    assert np.array_equal(np.isnan(got.astype(np.float32)), np.isnan(want.astype(np.float32)))
    finite = ~np.isnan(want.astype(np.float32))
    assert got.view(np.uint8 if got.itemsize == 1 else np.uint16)[finite].tolist() == \
        want.view(np.uint8 if want.itemsize == 1 else np.uint16)[finite].tolist()


@pytest.mark.parametrize("name", ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "binary8p3se"])
@pytest.mark.parametrize("op", ["add", "multiply"])
def test_accumulate_rounds_each_running_float32_value_once(mf, name, op):
    # out[i] is the float32 running value after element i, rounded once into
    # the format (the running value itself stays float32); contiguous,
    # strided and in-place outputs, chunked past 1024 values
    T = T_of(mf, name)
    rng = np.random.default_rng(31)
    scale = 1.01 if op == "multiply" else 3.0
    x = (rng.standard_normal(3000) * scale).astype(T)
    x[1500] = np.nan if mf.format_info(name)["has_nan"] else x[1500]
    with np.errstate(all="ignore"):
        running = getattr(np, op).accumulate(x.astype(np.float32))  # float32, in order
        if not mf.format_info(name)["infinities"]:
            running = np.where(np.isinf(running), np.copysign(np.finfo(np.float32).max, running), running)
        want = running.astype(T)
        strided = np.empty(2 * x.size, T)[::2]
        in_place = x.copy()
        results = [getattr(np, op).accumulate(x), getattr(np, op).accumulate(x, out=strided),
                   getattr(np, op).accumulate(in_place, out=in_place)]
    view = np.uint8 if x.itemsize == 1 else np.uint16
    nan = np.isnan(want.astype(np.float32))
    for got in results:
        assert np.array_equal(np.isnan(got.astype(np.float32)), nan)
        assert got.view(view)[~nan].tolist() == want.view(view)[~nan].tolist()


@ALL
def test_sum_where_and_initial(mf, name):
    T = T_of(mf, name)
    x = np.ones(300, T)
    with np.errstate(all="ignore"):
        if R.FORMATS[name].has_zero:
            assert code(x.sum(where=np.arange(300) < 20)) == rcode(name, 20)
        else:  # no zero, so no identity: a where= mask needs an initial value
            with pytest.raises(ValueError):
                x.sum(where=np.arange(300) < 20)
            assert code(x.sum(where=np.arange(300) < 20, initial=1.0)) == rcode(name, 21)
        init = 2.0 if name != "float4_e2m1fn" else 1.0
        assert code(x.sum(initial=init)) == rcode(name, 300 + int(init))


@ALL
def test_sum_random_against_bound(mf, name):
    f = R.FORMATS[name]
    T = T_of(mf, name)
    rng = np.random.default_rng(21)
    allc = U.unary_codes(name)
    v_all = U.decode(name, allc)
    finite = allc[np.isfinite(v_all) & (np.abs(v_all) < 2.0**100)]
    for n in (1, 2, 7, 33, 100, 1000, 4097):
        for trial in range(3):
            c = rng.choice(finite, n)
            x = c.view(T)
            with np.errstate(all="ignore"):
                got = code(x.sum())
                got_r = code(x[::-1].sum())
                got_2d = codes(np.stack([x, x[::-1]]).sum(axis=1))
            v = U.decode(name, c)
            check_sum_code(name, got, v)
            check_sum_code(name, got_r, v)
            for g in got_2d:
                check_sum_code(name, g, v)
            # the float32 total is close to the exact sum
            s32 = float(x.sum(dtype=np.float32))
            exact, lo, hi = U.f32_sum_bounds(v)
            assert lo <= s32 <= hi, (name, n, s32, exact)
    # small dyadic values: float32 summation is exact, the result is the
    # exact sum rounded once
    small = finite[np.abs(U.decode(name, finite)) <= 8]
    for n in (10, 100, 1000):
        c = rng.choice(small, n)
        v = U.decode(name, c)
        if f32_sum_is_exact(v):
            with np.errstate(all="ignore"):
                check_sum_code(name, code(c.view(T).sum()), v)
                assert float(c.view(T).sum(dtype=np.float32)) == math.fsum(v.tolist())


@pytest.mark.parametrize("name", WITH_ZERO)
def test_sum_zeros_and_empty(mf, name):
    f = R.FORMATS[name]
    T = T_of(mf, name)
    assert code(np.array([], T).sum()) == 0  # +0
    assert codes(np.zeros((0, 3), T).sum(axis=0)) == [0, 0, 0]
    if f.has_neg_zero:
        nz = np.array([f.sign_bit], f.code_dtype).view(T)
        assert code(nz.sum()) == f.sign_bit  # sum([-0.0]) is -0.0
        assert code(np.concatenate([nz, nz]).sum()) == f.sign_bit
        assert code(np.concatenate([nz, np.zeros(1, T)]).sum()) == 0


@ALL
def test_sum_specials(mf, name):
    f = R.FORMATS[name]
    T = T_of(mf, name)
    one = from_values(mf, name, [1.0])
    mx = np.array([f.max_code()], f.code_dtype).view(T)
    if f.has_nan:
        nan = np.array([f.nan_code()], f.code_dtype).view(T)
        x = np.concatenate([one, nan, one])
        assert U.is_nan_code(name, [code(x.sum())])[0]
        assert U.is_nan_code(name, [code(x.prod())])[0]
        assert np.isnan(float(x.sum(dtype=np.float32)))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            x.sum()  # a NaN operand is quiet
    if f.has_inf:
        inf = np.array([f.inf_code()], f.code_dtype).view(T)
        assert code(np.concatenate([one, inf, one]).sum()) == f.inf_code()
        if f.signed:  # (an unsigned format has +inf only)
            ninf = np.array([f.inf_code(True)], f.code_dtype).view(T)
            assert code(np.concatenate([ninf, one]).sum()) == f.inf_code(True)
            with pytest.warns(RuntimeWarning, match="invalid"):
                r = np.concatenate([inf, ninf]).sum()
            assert U.is_nan_code(name, [code(r)])[0]
    # overflow of the format (float32 itself does not overflow)
    with pytest.warns(RuntimeWarning, match="overflow"):
        r = np.concatenate([mx, mx]).sum()
    assert code(r) == R.overflow_code(f, False)
    with np.errstate(over="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        np.concatenate([mx, mx]).sum()
    # a float32 total that rounds back into range is not an overflow
    # (bfloat16's max is near float32's: there float32 itself overflows)
    if f.signed and f.bits <= 8:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            r = np.concatenate([mx, mx, -mx]).sum()
        assert code(r) == f.max_code()


# --------------------------------------------------------------------------
# mean
# --------------------------------------------------------------------------


@pytest.mark.usefixtures("patched_numpy")  # mf.patch_numpy()'s wrapper
@ALL
def test_mean_rounds_once(mf, name):
    T = T_of(mf, name)
    with np.errstate(all="ignore"):
        x = np.ones(300, T)
        m = x.mean()
        assert np.asarray(m).dtype == np.dtype(T)
        assert code(m) == rcode(name, 1)  # not round(round(300) / 300)
        assert float(x.mean(dtype=np.float32)) == 1.0
        rng = np.random.default_rng(4)
        allc = U.unary_codes(name)
        v_all = U.decode(name, allc)
        small = allc[np.isfinite(v_all) & (np.abs(v_all) <= 4) & (np.abs(v_all) >= 2.0**-6)]
        for n in (3, 10, 77, 300):
            c = rng.choice(small, n)
            v = U.decode(name, c)
            if not f32_sum_is_exact(v):
                continue
            s = sum(Fraction(t) for t in v.tolist())
            exp = rcode(name, s / n) if s != 0 else R.FORMATS[name].zero_code() \
                if R.FORMATS[name].has_zero else R.FORMATS[name].mask
            assert U.compare_codes(name, [code(c.view(T).mean())], [exp])[0], (name, n)
        a = np.ones((300, 3), T)
        assert codes(a.mean(axis=0)) == [rcode(name, 1)] * 3
        if R.FORMATS[name].signed and R.FORMATS[name].mbits >= 2 and finite_max(name) >= 2:
            b = from_values(mf, name, [1.0, 2.0, 2.0, 2.0])
            assert code(b.mean()) == rcode(name, Fraction(7, 4))


# --------------------------------------------------------------------------
# prod, cumsum, cumprod, accumulate
# --------------------------------------------------------------------------


@ALL
def test_prod_and_cumprod(mf, name):
    T = T_of(mf, name)
    rng = np.random.default_rng(9)
    pool = U.few_bit_codes(name)
    for n in (1, 2, 5, 8):
        for trial in range(20):
            c = rng.choice(pool, n)
            v = U.decode(name, c)
            # <= 2 significant bits each, <= 8 factors: every running float32
            # product is exact (<= 16 bits, |exponent| <= 24)
            partial = [Fraction(1)]
            for t in v.tolist():
                partial.append(partial[-1] * Fraction(t))
            x = c.view(T)
            with np.errstate(all="ignore"):
                got_p = code(x.prod())
                got_c = codes(np.cumprod(x))
                got_a = codes(np.multiply.accumulate(x))
                got_p32 = float(x.prod(dtype=np.float32))
            assert got_p == rcode(name, partial[-1]), (name, v)
            exp_c = [rcode(name, p) for p in partial[1:]]
            assert got_c == exp_c, (name, v, got_c, exp_c)
            assert got_a == exp_c
            assert Fraction(got_p32) == partial[-1]
    # prod of an empty array is 1
    assert code(np.array([], T).prod()) == rcode(name, 1)


@ALL
def test_cumsum_and_accumulate(mf, name):
    T = T_of(mf, name)
    with np.errstate(all="ignore"):
        x = np.ones(300, T)
        exp = [rcode(name, k) for k in range(1, 301)]
        assert codes(np.cumsum(x)) == exp  # running float32 value, each rounded
        assert codes(np.add.accumulate(x)) == exp
        assert np.cumsum(x).dtype == np.dtype(T)
        c32 = np.cumsum(x, dtype=np.float32)
        assert c32.dtype == np.float32 and c32.tolist() == list(range(1, 301))
        a = np.ones((4, 300), T)
        assert codes(np.cumsum(a, axis=1)[2]) == exp
        assert codes(np.cumsum(a, axis=0)[:, 7]) == [rcode(name, k) for k in range(1, 5)]
        rng = np.random.default_rng(13)
        pool = U.few_bit_codes(name)
        c = rng.choice(pool, 200)
        v = U.decode(name, c)
        run, exp2 = Fraction(0), []
        for t in v.tolist():
            run += Fraction(t)
            exp2.append(rcode(name, run) if run != 0 else
                        (0 if R.FORMATS[name].has_zero else R.FORMATS[name].mask))
        # <= 2-bit values in [1/8, 8], 200 of them: partial sums are
        # multiples of 2**-5 below 2**11, exact in float32
        got = codes(np.cumsum(c.view(T)))
        ok = U.compare_codes(name, got, exp2)
        assert ok.all(), (name, np.nonzero(~ok)[0][:5])


# --------------------------------------------------------------------------
# add.at
# --------------------------------------------------------------------------


@ALL
def test_add_at_accumulates_in_float32(mf, name):
    f = R.FORMATS[name]
    T = T_of(mf, name)
    with np.errstate(all="ignore"):
        start = [1.0, 2.0, 0.5] if not f.has_zero else [0.0, 2.0, 1.0]
        if finite_max(name) < 2:  # binary8p7*: halve what would not fit
            start = [v / 2 for v in start]
        x = from_values(mf, name, start)
        idx = np.array([0] * 300 + [2] * 5 + [1] * 3)
        vals = np.ones(idx.size, T)
        np.add.at(x, idx, vals)
        assert x.dtype == np.dtype(T)
        exp = [rcode(name, start[0] + 300), rcode(name, start[1] + 3), rcode(name, start[2] + 5)]
        assert codes(x) == exp, (name, codes(x), exp)
        # interleaved indices and a strided destination
        y = np.zeros(6, T)[::2] if f.has_zero else np.ones(6, T)[::2]
        base = 0 if f.has_zero else 1
        idx = np.tile([0, 1, 2], 100)
        np.add.at(y, idx, np.ones(300, T))
        assert codes(y) == [rcode(name, base + 100)] * 3


# --------------------------------------------------------------------------
# nansum
# --------------------------------------------------------------------------


@pytest.mark.usefixtures("patched_numpy")  # mf.patch_numpy()'s wrapper
@pytest.mark.parametrize("name", [n for n in NAMES if R.FORMATS[n].has_nan])
def test_nansum(mf, name):
    f = R.FORMATS[name]
    T = T_of(mf, name)
    # ten of a power of two whose sum the format holds (1, or less where 10
    # would overflow: binary8p7*)
    unit = 1.0
    while 10 * unit > finite_max(name):
        unit /= 2
    one = from_values(mf, name, [unit])
    nan = np.array([f.nan_code()], f.code_dtype).view(T)
    x = np.concatenate([one, nan] * 10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = np.nansum(x)
    assert code(s) == rcode(name, Fraction(unit) * 10)
    assert np.asarray(s).dtype == np.dtype(T)
    a = np.stack([x, x[::-1]])
    assert codes(np.nansum(a, axis=1)) == [rcode(name, Fraction(unit) * 10)] * 2
    if f.has_zero:
        assert code(np.nansum(np.concatenate([nan, nan]))) == 0
