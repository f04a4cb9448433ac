"""Unary ufuncs on every code of every format (all 65536 for bfloat16),
bit-exact against ufunc_reference; frexp/modf/ldexp/spacing/clip; FP status."""

import warnings

import numpy as np
import pytest

import reference as R
import ufunc_reference as U
from test_ufunc_binary import check_flags, check_outputs

NAMES = list(U.NAMES)
FORMAT_OPS = U.UNARY_FORMAT_OPS + ["modf", "frexp"]


def all_codes(mf, name):
    T = getattr(mf, name)
    c = U.unary_codes(name)
    return T, c, c.view(T)


def call(op, *args, **kw):
    with np.errstate(all="ignore"):
        return getattr(np, op)(*args, **kw)


@pytest.mark.parametrize("op", FORMAT_OPS + U.BOOL_UNARY)
@pytest.mark.parametrize("name", NAMES)
def test_unary_every_code(mf, name, op):
    T, c, x = all_codes(mf, name)
    ref = U.expected_unary(name, op)
    check_outputs(name, T, ref, call(op, x), (c,), op)


@pytest.mark.parametrize("op", FORMAT_OPS)
@pytest.mark.parametrize("name", NAMES)
def test_unary_fp_status(mf, name, op):
    T, c, x = all_codes(mf, name)
    check_flags(op, U.expected_unary(name, op), (x,))


@pytest.mark.parametrize("op", U.BOOL_UNARY)
@pytest.mark.parametrize("name", NAMES)
def test_predicates_never_warn(mf, name, op):
    T, c, x = all_codes(mf, name)
    with np.errstate(all="raise"):
        getattr(np, op)(x)


# --------------------------------------------------------------------------
# ldexp
# --------------------------------------------------------------------------

EXPONENTS = list(range(-24, 25)) + [-140, -135, -128, -127, 126, 127, 128, 133, 140,
                                    -300, 300, -1100, 1100, 2**31 - 1, -(2**31)]


@pytest.mark.parametrize("itype", [np.int32, np.int64])
@pytest.mark.parametrize("name", NAMES)
def test_ldexp(mf, name, itype):
    T = getattr(mf, name)
    f = R.FORMATS[name]
    c = U.unary_codes(name)
    if f.bits > 8:  # every code with a few exponents, the specials with all
        rng = np.random.default_rng(3)
        n_all = np.array(EXPONENTS, dtype=np.int64)
        cs = np.concatenate([np.repeat(c, 3), np.repeat(U.special_codes(name), n_all.size)])
        ns = np.concatenate([rng.choice(n_all, c.size * 3),
                             np.tile(n_all, U.special_codes(name).size)])
    else:
        cc, nn = np.meshgrid(c, np.array(EXPONENTS, dtype=np.int64), indexing="ij")
        cs, ns = cc.reshape(-1), nn.reshape(-1)
    ns = ns.astype(itype)
    ref = U.expected_ldexp(name, cs, ns)
    got = call("ldexp", cs.view(T), ns)
    check_outputs(name, T, ref, got, (cs, ns), "ldexp")


@pytest.mark.parametrize("name", NAMES)
def test_ldexp_python_int_and_fp_status(mf, name):
    T = getattr(mf, name)
    f = R.FORMATS[name]
    one = np.array([1.0], np.float64).astype(T)
    eight = U.decode(name, U.encode_codes(name, [8.0]))[0]  # 8 rounded once
    with warnings.catch_warnings(record=True) as caught:  # fp4/fp6 overflow at 8
        warnings.simplefilter("always")
        result = np.ldexp(one, 3)
    assert result.dtype == np.dtype(T)
    assert np.array_equal(result.astype(np.float64), [eight], equal_nan=True)  # NaN where 8 overflows to it
    assert bool(caught) == (R.finfo_expected(name)["max"] < 8), [str(w.message) for w in caught]
    mx = np.array([f.max_code()], f.code_dtype).view(T)
    with pytest.warns(RuntimeWarning, match="overflow"):
        np.ldexp(mx, np.int32(1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.ldexp(one, np.int32(-3))


# --------------------------------------------------------------------------
# frexp / modf specifics, spacing / sign examples
# --------------------------------------------------------------------------


def test_frexp_examples(mf):
    e4 = mf.float8_e4m3fn
    m, e = np.frexp(np.array([1.0, 3.0, 448.0, 2.0**-9, 0.0, -0.0], np.float64).astype(e4))
    assert m.dtype == np.dtype(e4) and e.dtype == np.int32
    np.testing.assert_array_equal(m.astype(np.float64), [0.5, 0.75, 0.875, 0.5, 0.0, -0.0])
    np.testing.assert_array_equal(e, [1, 2, 9, -8, 0, 0])
    assert np.signbit(m.astype(np.float64)[-1])
    # fp4 has no 0.75: the mantissa of 1.5 rounds once (tie to even -> 1.0)
    m4, e4_ = np.frexp(np.array([1.5], np.float64).astype(mf.float4_e2m1fn))
    assert m4.astype(np.float64)[0] == 1.0 and e4_[0] == 1


def test_sign_and_spacing_examples(mf):
    e4 = mf.float8_e4m3fn
    s = np.sign(np.array([-0.0, 0.0, -3.0, 2.0], np.float64).astype(e4))
    assert U.codes_of(s).tolist() == [0x00, 0x00, 0xB8, 0x38]  # sign(-0.0) is +0.0
    with pytest.warns(RuntimeWarning, match="overflow"):  # past 448: NaN, like float16's inf
        sp = np.spacing(np.array([1.0, -1.0, 0.0, 448.0], np.float64).astype(e4))
    with np.errstate(all="ignore"):
        assert sp.astype(np.float64)[:3].tolist() == [0.125, -0.125, 2.0**-9]
    assert np.isnan(sp.astype(np.float64)[3])


@pytest.mark.parametrize("name", [n for n in NAMES if R.FORMATS[n].signed
                                  and R.FORMATS[n].nan in (True, "all_ones")])
def test_nan_sign_bit_ops(mf, name):
    """negative flips, absolute/fabs clear, copysign sets the sign of a NaN
    (NumPy's float16 behaviour); the result stays a NaN."""
    f = R.FORMATS[name]
    T = getattr(mf, name)
    nans = np.array([f.nan_code(), f.nan_code(True)], f.code_dtype).view(T)
    sb = f.sign_bit
    neg = U.codes_of(np.negative(nans)).astype(int)
    assert U.is_nan_code(name, neg).all()
    assert (neg & sb).tolist() == [sb, 0]
    for op in (np.absolute, np.fabs):
        r = U.codes_of(op(nans)).astype(int)
        assert U.is_nan_code(name, r).all() and (r & sb).tolist() == [0, 0]
    m1 = np.array([-1.0, -1.0], np.float64).astype(T)
    r = U.codes_of(np.copysign(nans, m1)).astype(int)
    assert U.is_nan_code(name, r).all() and (r & sb).tolist() == [sb, sb]
    assert np.signbit(nans).tolist() == [False, True]


# --------------------------------------------------------------------------
# clip
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_clip(mf, name):
    T = getattr(mf, name)
    f = R.FORMATS[name]
    bounds = U.special_codes(name)
    rng = np.random.default_rng(11)
    extra = rng.integers(0, f.ncodes, 6).astype(f.code_dtype)
    bounds = np.unique(np.concatenate([bounds, extra]))
    if f.bits <= 8:
        x = U.unary_codes(name)
    else:
        rand = rng.integers(0, f.ncodes, 400).astype(f.code_dtype)
        x = np.unique(np.concatenate([U.special_codes(name), rand]))
    lo, hi = np.meshgrid(bounds, bounds, indexing="ij")
    lo, hi = lo.reshape(-1), hi.reshape(-1)
    cx = np.repeat(x, lo.size)
    clo, chi = np.tile(lo, x.size), np.tile(hi, x.size)
    ref = U.expected_clip(name, cx, clo, chi)
    with np.errstate(all="ignore"):
        got = np.clip(cx.view(T), clo.view(T), chi.view(T))
    check_outputs(name, T, ref, got, (cx, clo, chi), "clip")
    # scalar bounds from Python floats (weak) keep the dtype
    with np.errstate(all="ignore"):
        g2 = np.clip(x.view(T), 0.5, 2.0)
    assert g2.dtype == np.dtype(T)
    lo_c = U.encode_codes(name, [0.5])[0]
    hi_c = U.encode_codes(name, [2.0])[0]
    ref2 = U.expected_clip(name, x, np.full(x.size, lo_c, f.code_dtype),
                           np.full(x.size, hi_c, f.code_dtype))
    check_outputs(name, T, ref2, g2, (x,), "clip(x, 0.5, 2.0)")


# --------------------------------------------------------------------------
# layouts
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_unary_layouts_match_contiguous(mf, name):
    T = getattr(mf, name)
    f = R.FORMATS[name]
    rng = np.random.default_rng(5)
    c = rng.integers(0, f.ncodes, 3003).astype(f.code_dtype)
    x = c.view(T)
    for op in ("negative", "absolute", "sqrt", "exp", "sin", "floor", "isnan", "spacing",
               "reciprocal", "log1p"):
        u = getattr(np, op)
        with np.errstate(all="ignore"):
            sx = x[::-3]
            ref = u(np.ascontiguousarray(sx))
            assert U.codes_of(u(sx)).tolist() == U.codes_of(ref).tolist(), op
            out = np.empty(2 * sx.size, dtype=ref.dtype)[1::2]
            u(sx, out=out)
            assert U.codes_of(out).tolist() == U.codes_of(ref).tolist(), op
            x2 = x[:3000].reshape(30, 100).T  # non-contiguous 2-D
            assert U.codes_of(u(x2)).tolist() == U.codes_of(u(x2.copy())).tolist(), op
            mask = rng.integers(0, 2, sx.size).astype(bool)
            out2 = np.zeros(sx.size, dtype=ref.dtype)
            u(sx, out=out2, where=mask)
            exp = np.where(mask, ref, np.zeros(sx.size, dtype=ref.dtype))
            assert U.codes_of(out2).tolist() == U.codes_of(exp).tolist(), op
