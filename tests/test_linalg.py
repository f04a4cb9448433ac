"""matmul, @, dot, vecdot, matvec, vecmat, einsum, inner, tensordot: the
result has the format's dtype, products are accumulated in float32 and each
output is rounded once; dtype=np.float32 gives the unrounded float32 value.

Exact comparisons use operands whose float32 accumulation is exact in any
order (few-bit values of moderate size); general random operands are checked
against the float32 error bound of the exact dot product."""

import math
import warnings

import numpy as np
import pytest

import reference as R
import ufunc_reference as U

NAMES = list(U.NAMES)
ALL = pytest.mark.parametrize("name", NAMES)


def T_of(mf, name):
    return getattr(mf, name)


def codes(x):
    return U.codes_of(np.asarray(x)).reshape(-1).astype(np.int64)


def operands(mf, name, shape_a, shape_b, seed, pool=None):
    rng = np.random.default_rng(seed)
    pool = U.few_bit_codes(name) if pool is None else pool
    ca = rng.choice(pool, shape_a)
    cb = rng.choice(pool, shape_b)
    T = T_of(mf, name)
    return ca, cb, ca.view(T), cb.view(T), U.decode(name, ca.reshape(-1)).reshape(shape_a), \
        U.decode(name, cb.reshape(-1)).reshape(shape_b)


def exact_codes(name, exact64):
    """Rounding of exact float64 results (zero results are +0)."""
    return U.encode_codes(name, np.asarray(exact64, dtype=np.float64).reshape(-1) + 0.0)


def check_exact(name, got, exact64, ctx):
    exp = exact_codes(name, exact64)
    ok = U.compare_codes(name, codes(got), exp)
    assert ok.all(), (ctx, name, np.nonzero(~ok)[0][:5], codes(got)[~ok][:5], exp[~ok][:5])


# --------------------------------------------------------------------------
# exact cases, every entry point
# --------------------------------------------------------------------------


@pytest.mark.usefixtures("patched_numpy")  # mf.patch_numpy()'s wrapper
@ALL
def test_matmul_family_exact(mf, name):
    T = T_of(mf, name)
    ca, cb, a, b, va, vb = operands(mf, name, (7, 64), (64, 5), seed=1)
    exact = va @ vb  # exact: see U.few_bit_codes
    with np.errstate(all="ignore"):
        for ctx, got in (
            ("matmul", np.matmul(a, b)),
            ("@", a @ b),
            ("dot", np.dot(a, b)),
            ("einsum", np.einsum("ij,jk->ik", a, b)),
            ("einsum-opt", np.einsum("ij,jk->ik", a, b, optimize=True)),
            ("tensordot", np.tensordot(a, b, axes=1)),
            ("inner", np.inner(a, b.T)),
        ):
            assert got.dtype == np.dtype(T), (ctx, got.dtype)
            assert got.shape == (7, 5)
            check_exact(name, got, exact, ctx)
        x, y = a[0], b[:, 0]
        vx, vy = va[0], vb[:, 0]
        for ctx, got in (
            ("dot1d", np.dot(x, y)),
            ("vecdot", np.vecdot(x, y)),
            ("einsum1d", np.einsum("i,i->", x, y)),
            ("inner1d", np.inner(x, y)),
            ("matmul1d", np.matmul(x, y)),
        ):
            assert np.asarray(got).dtype == np.dtype(T), ctx
            check_exact(name, got, vx @ vy, ctx)
        got = np.vecdot(a[:5], b.T)  # (5, 64) . (5, 64) along the last axis
        check_exact(name, got, (va[:5] * vb.T).sum(axis=1), "vecdot2d")
        got = np.matvec(a, b[:, 1])
        assert got.dtype == np.dtype(T)
        check_exact(name, got, va @ vb[:, 1], "matvec")
        got = np.vecmat(a[2], b)
        assert got.dtype == np.dtype(T)
        check_exact(name, got, va[2] @ vb, "vecmat")
        # wider than one block of columns (512), contiguous and strided, stacked
        cw, cv, w, v2, vw, vv2 = operands(mf, name, (40, 1100), (2, 40), seed=3)
        check_exact(name, np.vecmat(v2[0], w), vv2[0] @ vw, "vecmat wide")
        check_exact(name, np.vecmat(v2[1], w[:, ::-3]), vv2[1] @ vw[:, ::-3], "vecmat strided")
        check_exact(name, np.vecmat(v2[:, None, :], w[None]), vv2 @ vw, "vecmat stacked")
        # stacked / broadcast matmul and a transposed (non-contiguous) operand
        ca3, cb3, a3, b3, va3, vb3 = operands(mf, name, (3, 4, 32), (32, 6), seed=2)
        check_exact(name, np.matmul(a3, b3), va3 @ vb3, "batched")
        check_exact(name, np.matmul(b3.T, a3[1].T), vb3.T @ va3[1].T, "transposed")
        check_exact(name, np.tensordot(a3, b3, axes=([2], [0])), va3 @ vb3, "tensordot")
        check_exact(name, np.einsum("bij,jk->bik", a3, b3), va3 @ vb3, "einsum3")


@ALL
def test_matmul_float32_dtype_is_unrounded(mf, name):
    ca, cb, a, b, va, vb = operands(mf, name, (6, 128), (128, 4), seed=3)
    exact = va @ vb
    with np.errstate(all="ignore"):
        for ctx, got in (("matmul", np.matmul(a, b, dtype=np.float32)),
                         ("einsum", np.einsum("ij,jk->ik", a, b, dtype=np.float32))):
            assert got.dtype == np.float32, ctx
            assert (got.astype(np.float64) == exact).all(), ctx


@pytest.mark.usefixtures("patched_numpy")  # mf.patch_numpy()'s wrapper
@ALL
def test_dot_accumulates_in_float32(mf, name):
    """300 ones: ml_dtypes-style accumulation in the format would stall."""
    T = T_of(mf, name)
    x = np.ones(300, T)
    m = np.ones((2, 300), T)
    e = int(R.encode_code(name, 300))
    with np.errstate(all="ignore"):
        assert codes(np.dot(x, x)) == [e]
        assert codes(m @ m.T).tolist() == [e] * 4
        assert codes(np.vecdot(m, m)).tolist() == [e] * 2
        assert codes(np.einsum("i,i->", x, x)) == [e]
        assert float(np.matmul(m, m.T, dtype=np.float32)[0, 0]) == 300.0


# --------------------------------------------------------------------------
# general operands: within the float32 bound, rounded once
# --------------------------------------------------------------------------


def acceptable(name, prods):
    """Codes a float32-accumulated dot product of these exact products may
    round to (error <= gamma_n * sum|p|, products exact in float64)."""
    p = np.asarray(prods, dtype=np.float64)
    exact = math.fsum(p.tolist())
    n = p.size + 1
    u = 2.0**-24
    err = (n * u / (1 - n * u)) * math.fsum(np.abs(p).tolist()) * (1 + 2**-30)
    lo, hi = exact - err, exact + err
    c_lo = int(U.encode_codes(name, [lo])[0])
    c_hi = int(U.encode_codes(name, [hi])[0])
    allc = U.unary_codes(name).astype(np.int64)
    vals = U.decode(name, allc)
    v_lo, v_hi = U.decode(name, [c_lo])[0], U.decode(name, [c_hi])[0]
    with np.errstate(invalid="ignore"):
        sel = (vals >= v_lo) & (vals <= v_hi)
    return set(allc[sel].tolist()) | {c_lo, c_hi}


@ALL
def test_matmul_random_within_float32_bound(mf, name):
    f = R.FORMATS[name]
    allc = U.unary_codes(name)
    v = U.decode(name, allc)
    # finite values whose products stay well inside float32's range
    pool = allc[np.isfinite(v) & (np.abs(v) <= 2.0**30) & ((np.abs(v) >= 2.0**-30) | (v == 0))]
    ca, cb, a, b, va, vb = operands(mf, name, (6, 200), (200, 4), seed=4, pool=pool)
    with np.errstate(all="ignore"):
        got = codes(a @ b).reshape(6, 4)
        got32 = np.matmul(a, b, dtype=np.float32)
    for i in range(6):
        for j in range(4):
            prods = va[i] * vb[:, j]
            ok = acceptable(name, prods)
            assert int(got[i, j]) in ok, (name, i, j, hex(int(got[i, j])), sorted(ok)[:6])
            exact = math.fsum(prods.tolist())
            err = (201 * 2.0**-24) * 1.01 * math.fsum(np.abs(prods).tolist())
            assert abs(float(got32[i, j]) - exact) <= err


# --------------------------------------------------------------------------
# specials and warnings
# --------------------------------------------------------------------------


@ALL
def test_matmul_specials_and_overflow(mf, name):
    f = R.FORMATS[name]
    T = T_of(mf, name)
    mx = np.array([f.max_code()], f.code_dtype).view(T)
    one = np.array([1.0]).astype(T)
    row = np.concatenate([mx, mx]).reshape(1, 2)
    col = np.concatenate([one, one]).reshape(2, 1)
    with pytest.warns(RuntimeWarning, match="overflow"):
        r = row @ col
    if f.bits <= 8:  # float32 holds 2*max: the overflow is the format's
        assert codes(r) == [R.overflow_code(f, False)]
    # the overflow is the only flag (as for np.add / np.multiply)
    with np.errstate(over="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        row @ col
    if f.has_nan:
        nan = np.array([f.nan_code()], f.code_dtype).view(T)
        r = np.concatenate([one, nan]).reshape(1, 2) @ col
        assert U.is_nan_code(name, codes(r)).all()
    if f.has_inf:
        inf = np.array([f.inf_code()], f.code_dtype).view(T)
        assert codes(np.concatenate([inf, one]).reshape(1, 2) @ col) == [f.inf_code()]
        zero = np.zeros(1, T)
        with pytest.warns(RuntimeWarning, match="invalid"):
            r = np.concatenate([inf, one]).reshape(1, 2) @ np.concatenate([zero, one]).reshape(2, 1)
        assert U.is_nan_code(name, codes(r)).all()
    # empty inner dimension: the sum of nothing
    if f.has_zero:
        assert codes(np.ones((2, 0), T) @ np.ones((0, 3), T)).tolist() == [0] * 6
