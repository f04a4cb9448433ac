"""Ordering: sort/argsort (every kind), partition, argpartition,
searchsorted, unique (NaN last, -0 == +0); max/min/argmax/argmin (NaN
propagates, first NaN); nanmax/nanmin/nanargmax/nanargmin; where, nonzero,
count_nonzero; np.arange / np.linspace with dtype=T."""

import warnings

import numpy as np
import pytest

import reference as R
import ufunc_reference as U

NAMES = list(U.NAMES)
ALL = pytest.mark.parametrize("name", NAMES)
KINDS = ["quicksort", "mergesort", "heapsort", "stable"]
STABLE = {"mergesort", "stable"}


def T_of(mf, name):
    return getattr(mf, name)


def codes(x):
    return U.codes_of(np.asarray(x)).reshape(-1).astype(np.int64)


def sample(name, seed=0):
    """Every code once plus 2000 repeats, shuffled (duplicates, both zeros,
    every NaN code)."""
    f = R.FORMATS[name]
    rng = np.random.default_rng(seed)
    c = np.concatenate([U.unary_codes(name), rng.integers(0, f.ncodes, 2000).astype(f.code_dtype)])
    rng.shuffle(c)
    return c


def order_key(name, c):
    """Integer key of the documented total order: values ascending, -0 == +0,
    every NaN after everything and equal to each other."""
    v = U.decode(name, c)
    nan = np.isnan(v)
    u = np.unique(v[~nan])
    k = np.searchsorted(u, np.where(nan, 0.0, v))
    return np.where(nan, u.size + 1, k)


def same_values(name, got_codes, exp_codes):
    a, b = U.decode(name, got_codes), U.decode(name, exp_codes)
    return ((a == b) | (np.isnan(a) & np.isnan(b))).all()


# --------------------------------------------------------------------------
# sort / argsort
# --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@ALL
def test_sort_and_argsort(mf, name, kind):
    T = T_of(mf, name)
    c = sample(name)
    x = c.view(T)
    key = order_key(name, c)
    perm = np.argsort(key, kind="stable")
    exp = c[perm]
    s = np.sort(x, kind=kind)
    assert s.dtype == np.dtype(T)
    a = np.argsort(x, kind=kind)
    if kind in STABLE:
        assert (codes(s) == exp).all(), name
        assert (a == perm).all(), name
    else:
        assert same_values(name, codes(s), exp), name
        assert (np.sort(codes(s)) == np.sort(c.astype(np.int64))).all()  # a permutation
        assert (np.sort(a) == np.arange(c.size)).all()
        assert (np.diff(key[a]) >= 0).all(), name
    # in-place sort and 2-D along each axis
    y = x.copy()
    y.sort(kind=kind)
    assert same_values(name, codes(y), exp)
    m = c[: 50 * 40].reshape(50, 40)
    for axis in (0, 1, -1):
        got = np.sort(m.view(T), axis=axis, kind=kind)
        ref = np.take_along_axis(m, np.argsort(order_key(name, m.reshape(-1)).reshape(m.shape),
                                               axis=axis, kind="stable"), axis=axis)
        assert same_values(name, codes(got), ref.reshape(-1)), (name, axis)


@ALL
def test_sort_nan_last_and_zeros_equal(mf, name):
    f = R.FORMATS[name]
    T = T_of(mf, name)
    vals = [3.0, -1.0, 0.5] if f.signed else [4.0, 1.0, 0.5]
    vals = [v / 4 for v in vals] if float(R.finfo_expected(name)["max"]) < 4 else vals  # P3109's P = 7
    base = U.encode_codes(name, np.array(vals))
    extra = []
    if f.has_nan:
        extra.append(f.nan_code())
    if f.has_inf:
        extra += [f.inf_code(), f.inf_code(True)] if f.signed else [f.inf_code()]
    if f.has_neg_zero:
        extra += [f.sign_bit, 0]
    c = np.concatenate([np.array(extra[:1], f.code_dtype), base,
                        np.array(extra[1:], f.code_dtype)])
    for kind in KINDS:
        s = codes(np.sort(c.view(T), kind=kind))
        v = U.decode(name, s)
        if f.has_nan:
            assert np.isnan(v[-1]) and not np.isnan(v[:-1]).any(), (name, kind)
        fin = v[~np.isnan(v)]
        assert (np.diff(fin) >= 0).all(), (name, kind)
        if f.has_neg_zero and kind in STABLE:
            i = list(s).index(f.sign_bit)
            assert s[i + 1] == 0  # -0 and +0 keep their input order


# --------------------------------------------------------------------------
# partition / argpartition
# --------------------------------------------------------------------------


@ALL
def test_partition_and_argpartition(mf, name):
    T = T_of(mf, name)
    c = sample(name, seed=1)[:2000]
    x = c.view(T)
    key = order_key(name, c)
    skey = np.sort(key)
    for kth in (0, 1, 1000, 1998, 1999, [10, 1500]):
        p = np.partition(x, kth)
        ap = np.argpartition(x, kth)
        assert p.dtype == np.dtype(T)
        # keys of the partitioned values (against the same value table)
        kp = _keys_like(name, c, codes(p))
        ka = key[ap]
        for k in np.atleast_1d(kth):
            for kk in (kp, ka):
                assert kk[k] == skey[k], (name, kth)
                assert (kk[:k] <= kk[k]).all() and (kk[k + 1 :] >= kk[k]).all(), (name, kth)
        assert (np.sort(ap) == np.arange(c.size)).all()


def _keys_like(name, ref_codes, c):
    v_ref = U.decode(name, ref_codes)
    u = np.unique(v_ref[~np.isnan(v_ref)])
    v = U.decode(name, c)
    nan = np.isnan(v)
    return np.where(nan, u.size + 1, np.searchsorted(u, np.where(nan, 0.0, v)))


# --------------------------------------------------------------------------
# searchsorted / unique
# --------------------------------------------------------------------------


@ALL
def test_searchsorted(mf, name):
    T = T_of(mf, name)
    c = sample(name, seed=2)
    key = order_key(name, c)
    srt = c[np.argsort(key, kind="stable")]
    q = U.unary_codes(name)
    v_srt, v_q = U.decode(name, srt), U.decode(name, q)
    for side in ("left", "right"):
        got = np.searchsorted(srt.view(T), q.view(T), side=side)
        exp = np.searchsorted(v_srt, v_q, side=side)  # float64: NaN last, -0 == 0
        bad = np.nonzero(got != exp)[0]
        assert not bad.size, (name, side, [(hex(int(q[i])), got[i], exp[i]) for i in bad[:5]])
    # with a sorter
    sorter = np.argsort(c.view(T), kind="stable")
    got = np.searchsorted(c.view(T), q.view(T), sorter=sorter)
    assert (got == np.searchsorted(v_srt, v_q)).all()


@ALL
def test_unique(mf, name):
    T = T_of(mf, name)
    c = sample(name, seed=3)
    x = c.view(T)
    v = U.decode(name, c)
    u, idx, inv, cnt = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    eu, eidx, einv, ecnt = np.unique(v, return_index=True, return_inverse=True,
                                     return_counts=True)
    assert u.dtype == np.dtype(T)
    assert u.size == eu.size, (name, u.size, eu.size)
    assert same_values(name, codes(u), U.encode_codes(name, eu))
    assert (cnt == ecnt).all() and (inv.reshape(-1) == einv.reshape(-1)).all()
    # return_index: the first occurrence of each value
    assert same_values(name, c[idx], c[eidx])
    # NaNs collapse into one (equal_nan=True), -0 and +0 into one
    f = R.FORMATS[name]
    if f.has_nan:
        assert np.isnan(U.decode(name, codes(u))).sum() == 1
        assert np.isnan(U.decode(name, codes(np.unique(x, equal_nan=False)))).sum() == \
            np.isnan(v).sum()
    assert (U.decode(name, codes(u)) == 0).sum() == (1 if f.has_zero else 0)


# --------------------------------------------------------------------------
# max / min / argmax / argmin and the nan-variants
# --------------------------------------------------------------------------


@ALL
def test_max_min_argmax_argmin(mf, name):
    f = R.FORMATS[name]
    T = T_of(mf, name)
    rng = np.random.default_rng(8)
    allc = U.unary_codes(name)
    v_all = U.decode(name, allc)
    finite = allc[~np.isnan(v_all)]
    for trial in range(20):
        c = rng.choice(finite, 257)
        v = U.decode(name, c)
        x = c.view(T)
        assert U.decode(name, [codes(x.max())[0]])[0] == v.max()
        assert U.decode(name, [codes(x.min())[0]])[0] == v.min()
        assert np.argmax(x) == np.argmax(v) and np.argmin(x) == np.argmin(v)  # first
        m = c[:256].reshape(16, 16)
        vm = U.decode(name, m.reshape(-1)).reshape(16, 16)
        for axis in (0, 1):
            assert (U.decode(name, codes(m.view(T).max(axis=axis))) == vm.max(axis=axis)).all()
            assert (np.argmin(m.view(T), axis=axis) == np.argmin(vm, axis=axis)).all()
        if f.has_nan:
            cn = c.copy()
            pos = rng.choice(257, 3, replace=False)
            cn[pos] = f.nan_code()
            xn = cn.view(T)
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                assert U.is_nan_code(name, codes(xn.max()))[0]
                assert U.is_nan_code(name, codes(np.min(xn)))[0]
                assert np.argmax(xn) == pos.min() and np.argmin(xn) == pos.min()
    if f.has_neg_zero:  # -0 == +0: the first one is the arg
        z = np.array([f.sign_bit, 0], f.code_dtype).view(T)
        assert np.argmax(z) == 0 and np.argmin(z) == 0
        assert np.argmax(z[::-1]) == 0 and np.argmin(z[::-1]) == 0
    with pytest.raises(ValueError):
        np.array([], T).max()


@ALL
def test_max_min_reduce_small(mf, name):
    """The reductions on a few elements (a minimal reproducer)."""
    T = T_of(mf, name)
    scale = 0.25 if float(R.finfo_expected(name)["max"]) < 4 else 1.0  # P3109's P = 7
    for vals in ([1.0, 4.0, 2.0], [4.0, 1.0, 2.0, 0.5], [0.5, 1.0, 2.0, 4.0, 1.0]):
        vals = [v * scale for v in vals]
        x = np.array(vals).astype(T)
        for red, ref in ((np.max, max), (np.min, min), (np.fmax.reduce, max),
                         (np.fmin.reduce, min), (np.maximum.reduce, max),
                         (np.minimum.reduce, min)):
            got = float(np.asarray(red(x)).astype(np.float64))
            assert got == ref(vals), (name, red, vals, got)


def _nan_sample(name, rng):
    f = R.FORMATS[name]
    allc = U.unary_codes(name)
    v_all = U.decode(name, allc)
    finite = allc[~np.isnan(v_all)]
    c = rng.choice(finite, 100)
    pos = rng.choice(100, 5, replace=False)
    c[pos] = f.nan_code()
    return c


def _nan_trials(mf, name):
    """Ten samples with NaNs (the same ones for every test): (array, values)."""
    T = T_of(mf, name)
    rng = np.random.default_rng(12)
    for _ in range(10):
        c = _nan_sample(name, rng)
        yield c.view(T), U.decode(name, c)


HAS_NAN = [n for n in NAMES if R.FORMATS[n].has_nan]


@pytest.mark.parametrize("name", HAS_NAN)
def test_nanmax_nanmin(mf, name):
    f = R.FORMATS[name]
    T = T_of(mf, name)
    for x, v in _nan_trials(mf, name):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert U.decode(name, codes(np.nanmax(x)))[0] == np.nanmax(v)
            assert U.decode(name, codes(np.nanmin(x)))[0] == np.nanmin(v)
            assert np.asarray(np.nanmax(x)).dtype == np.dtype(T)
    allnan = np.full(3, f.nan_code(), f.code_dtype).view(T)
    with pytest.warns(RuntimeWarning, match="All-NaN"):
        assert U.is_nan_code(name, codes(np.nanmax(allnan)))[0]


@pytest.mark.usefixtures("patched_numpy")  # mf.patch_numpy()'s wrapper
@pytest.mark.parametrize("name", HAS_NAN)
def test_nanargmax_nanargmin(mf, name):
    for x, v in _nan_trials(mf, name):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert np.nanargmax(x) == np.nanargmax(v), name
            assert np.nanargmin(x) == np.nanargmin(v), name


# --------------------------------------------------------------------------
# where / nonzero / count_nonzero
# --------------------------------------------------------------------------


@ALL
def test_where_nonzero_count_nonzero(mf, name):
    T = T_of(mf, name)
    c = sample(name, seed=5)
    d = sample(name, seed=6)
    x, y = c.view(T), d.view(T)
    cond = np.random.default_rng(0).integers(0, 2, c.size).astype(bool)
    w = np.where(cond, x, y)
    assert w.dtype == np.dtype(T)
    assert (codes(w) == np.where(cond, c, d)).all()
    v = U.decode(name, c)
    nz = v != 0  # NaN is nonzero, -0 is zero
    assert (np.nonzero(x)[0] == np.nonzero(nz)[0]).all()
    assert np.count_nonzero(x) == nz.sum()
    m = x[:2000].reshape(40, 50)
    assert (np.count_nonzero(m, axis=0) == nz[:2000].reshape(40, 50).sum(axis=0)).all()
    assert (np.flatnonzero(x) == np.flatnonzero(nz)).all()
    with np.errstate(all="ignore"):
        w2 = np.where(cond, x, 1.0)  # a Python float is weak
    assert w2.dtype == np.dtype(T)


# --------------------------------------------------------------------------
# arange / linspace
# --------------------------------------------------------------------------


def _arange_expected(name, start, stop, step):
    """NumPy's fill rule for arange with a non-native dtype (as for float16):
    x0 = T(start), x1 = T(start + step), delta = x1 - x0, x_i = T(x0 + i*delta),
    n = ceil((stop - start) / step)."""
    n = int(np.ceil((stop - start) / step))
    x0 = U.decode(name, U.encode_codes(name, [start]))[0]
    if n == 1:
        return U.encode_codes(name, [start])
    x1 = U.decode(name, U.encode_codes(name, [start + step]))[0]
    delta = x1 - x0
    return U.encode_codes(name, x0 + np.arange(n) * delta)


@ALL
def test_arange(mf, name):
    T = T_of(mf, name)
    f = R.FORMATS[name]
    cases = [(1, 6, 1), (0.5, 3, 0.25), (1, 2, 0.125), (0.1, 0.5, 0.1)]
    if f.has_zero:
        cases += [(0, 10, 1), (0, 20, 1)]
    if f.signed:
        cases += [(-3, 3, 0.5), (2, -2, -1)]
    top = float(R.finfo_expected(name)["max"])
    for start, stop, step in cases:
        if max(abs(start), abs(stop)) > top:
            continue  # (P3109's P = 7 ends below 2)
        with np.errstate(all="ignore"):
            got = np.arange(start, stop, step, dtype=T)
        assert got.dtype == np.dtype(T)
        exp = _arange_expected(name, start, stop, step)
        assert U.compare_codes(name, codes(got), exp).all(), (name, start, stop, step,
                                                              codes(got), exp)
    if f.has_zero:
        with np.errstate(all="ignore"):
            assert (codes(np.arange(5, dtype=T)) == U.encode_codes(name, np.arange(5.0))).all()


@ALL
def test_linspace(mf, name):
    T = T_of(mf, name)
    for args in [(0, 1, 7), (1, 4, 13), (-2, 2, 9), (0.1, 0.9, 5)]:
        with np.errstate(all="ignore"):
            got = np.linspace(*args, dtype=T)
            exp = U.encode_codes(name, np.linspace(*args))  # float64, rounded once
        assert got.dtype == np.dtype(T)
        assert U.compare_codes(name, codes(got), exp).all(), (name, args)


@pytest.mark.parametrize("scalar", [0.0, -0.0, 1.5, -np.inf, np.nan])
def test_bfloat16_selection_and_comparison_with_a_scalar_or_strides(scalar):
    # x op scalar (ReLU's np.maximum(x, 0.0)) and strided operands run the
    # contiguous kernels on staged chunks: the same bytes as those kernels
    # give on materialized, contiguous operands
    import minifloat as mf
    rng = np.random.default_rng(11)
    values = rng.standard_normal(5000) * 10
    values[::97] = np.nan
    values[1::89] = -0.0
    values[2::83] = np.inf
    x = values.astype(mf.bfloat16)
    s = np.array(scalar).astype(mf.bfloat16)
    full = np.full_like(x, s)
    for op in (np.maximum, np.minimum, np.fmax, np.fmin, np.less, np.less_equal, np.greater, np.greater_equal,
               np.equal, np.not_equal):
        want = op(x, full)
        assert op(x, s[()]).tobytes() == want.tobytes(), op
        assert op(s[()], x).tobytes() == op(full, x).tobytes(), op
        assert op(x[::-1], full[::2].repeat(2)).tobytes() == op(x[::-1].copy(), full).tobytes(), op
        out = np.empty(2 * x.size, want.dtype)[::2]  # a strided output
        op(x, s[()], out=out)
        assert out.tobytes() == want.tobytes(), op
    y = x.copy()  # in place
    np.maximum(y, s[()], out=y)
    assert y.tobytes() == np.maximum(x, full).tobytes()
