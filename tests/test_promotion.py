"""Mixed-dtype ufuncs.  The result dtype is the common type derived from
exact representability (reference.common_type: the target of a safe cast if
one exists, else the smallest of float16/float32/float64 holding both
formats exactly), and the values are those of the same ufunc computed in
that common type after exact (safe) casts.  Python int/float scalars are
weak (NEP 50): converted to the array's format, which keeps its dtype;
NumPy scalars are strong."""

import warnings

import numpy as np
import pytest

import reference as R
import ufunc_reference as U

NAMES = list(U.NAMES)
STD = {"float16": np.float16, "float32": np.float32, "float64": np.float64}
OPS = ["add", "subtract", "multiply", "divide", "maximum", "fmin", "copysign", "arctan2",
       "hypot", "less", "equal", "greater_equal"]
BOOL_OPS = {"less", "equal", "greater_equal"}


def dtype_of(mf, n):
    return np.dtype(getattr(mf, n)) if n in R.FORMATS else np.dtype(STD[n])


def codes(x):
    return U.codes_of(np.asarray(x)).reshape(-1).astype(np.int64)


def sample_codes(name, n, seed):
    f = R.FORMATS[name]
    rng = np.random.default_rng(seed)
    c = np.concatenate([U.special_codes(name), rng.integers(0, f.ncodes, n).astype(f.code_dtype)])
    return c


def to_common(mf, name, c, common):
    """The exact value of each code as an array of the common type (the cast
    is safe, so it is exact; computed from the reference, not the package)."""
    v = U.decode(name, c)
    if common in STD:
        return v.astype(STD[common])  # exact: safe cast
    cc = U.encode_codes(common, v)
    assert (np.isnan(U.decode(common, cc)) == np.isnan(v)).all()
    return cc.view(getattr(mf, common))


def same(got, exp):
    """Bitwise equal, NaNs compared as both NaN."""
    got, exp = np.asarray(got), np.asarray(exp)
    assert got.dtype == exp.dtype, (got.dtype, exp.dtype)
    if got.dtype == np.bool_:
        return bool((got == exp).all())
    if str(got.dtype) in R.FORMATS:
        return bool(U.compare_codes(str(got.dtype), codes(got), codes(exp)).all())
    u = np.dtype(f"u{got.dtype.itemsize}")
    ok = (got.view(u) == exp.view(u)) | (np.isnan(got) & np.isnan(exp))
    return bool(ok.all())


@pytest.mark.parametrize("b", NAMES + list(STD))
@pytest.mark.parametrize("a", NAMES)
def test_mixed_ufuncs_compute_in_common_type(mf, a, b):
    if a == b:
        return
    common = R.common_type(a, b)
    C = dtype_of(mf, common)
    ca = sample_codes(a, 300, 1)
    x = ca.view(getattr(mf, a))
    if b in STD:
        rng = np.random.default_rng(2)
        y = np.concatenate([np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.5]),
                            rng.standard_normal(300) * 10.0 ** rng.integers(-8, 8, 300)])
        with np.errstate(over="ignore"):
            y = y.astype(STD[b])
        y_c = y.astype(STD[common]) if common in STD else None
    else:
        cb = sample_codes(b, 300, 2)
        y = cb.view(getattr(mf, b))
        y_c = to_common(mf, b, cb, common)
    n = min(x.size, y.size)
    x, y, y_c = x[:n], y[:n], y_c[:n]
    x_c = to_common(mf, a, ca[:n], common)
    failures = []
    for op in OPS:
        u = getattr(np, op)
        with np.errstate(all="ignore"):
            exp = u(x_c, y_c)
            exp_r = u(y_c, x_c)
            try:
                got = u(x, y)
                got_r = u(y, x)
            except Exception as e:  # report every op, not just the first
                failures.append((op, f"{type(e).__name__}: {e}"))
                continue
        want = np.dtype(np.bool_) if op in BOOL_OPS else C
        if got.dtype != want or got_r.dtype != want:
            failures.append((op, f"dtype {got.dtype}/{got_r.dtype}, expected {want}"))
        elif not same(got, exp) or not same(got_r, exp_r):
            failures.append((op, "values differ from the computation in " + str(want)))
    assert not failures, (a, b, failures)


@pytest.mark.parametrize("name", NAMES)
def test_mixed_logical_ops(mf, name):
    """logical_and/or/xor with any other operand: truthiness of each side."""
    T = getattr(mf, name)
    c = sample_codes(name, 50, 4)
    x = c.view(T)
    tx = U.decode(name, c) != 0
    other_name = "float8_e5m2" if name != "float8_e5m2" else "float8_e4m3fn"
    oc = sample_codes(other_name, c.size, 5)[: c.size]
    others = [
        (oc.view(getattr(mf, other_name)), U.decode(other_name, oc) != 0),
        (np.linspace(-1, 1, c.size).astype(np.float32), np.linspace(-1, 1, c.size) != 0),
        (np.arange(c.size) % 2 == 0, np.arange(c.size) % 2 == 0),
        (1.0, np.ones(c.size, bool)),
        (0, np.zeros(c.size, bool)),
    ]
    failures = []
    for y, ty in others:
        for op in ("logical_and", "logical_or", "logical_xor"):
            u = getattr(np, op)
            try:
                with np.errstate(all="ignore"):
                    got, got_r = u(x, y), u(y, x)
            except Exception as e:
                failures.append((op, type(y).__name__ if np.isscalar(y) else str(y.dtype),
                                 f"{type(e).__name__}: {str(e)[:60]}"))
                continue
            exp = u(tx, ty)
            if got.dtype != np.bool_ or not (got == exp).all() or not (got_r == exp).all():
                failures.append((op, str(np.asarray(y).dtype), "wrong result"))
    assert not failures, (name, failures)


def test_documented_examples(mf):
    e4, e5 = mf.float8_e4m3fn, mf.float8_e5m2
    x = np.array([1.0, 2.0]).astype(e4)
    assert (x + np.array([1.0, 2.0]).astype(e5)).dtype == np.float16
    assert (x + np.ones(2, np.float32)).dtype == np.float32
    assert (x + 1.0).dtype == np.dtype(e4)
    assert (x + 1).dtype == np.dtype(e4)
    assert (x + np.float32(1)).dtype == np.float32
    assert (x + np.float64(1)).dtype == np.float64
    assert (x < 1.5).dtype == np.bool_
    assert np.result_type(mf.bfloat16, np.float16) == np.float32


INT_TYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.int64]


def _int_common(name, it):
    """The format itself if it holds every value of the integer type exactly,
    else the smallest standard float holding the format and the integer
    type exactly (int64 -> float64, as NumPy's float16 + int64)."""
    info = np.iinfo(it) if it is not np.bool_ else None
    lo, hi = (0, 1) if info is None else (int(info.min), int(info.max))
    if R.int_range_safe(lo, hi, name):
        return name
    for t in ("float16", "float32", "float64"):
        if R.safe_cast(name, t) and all(R.fits_binary(R.Fraction(v), *R.STD_FLOATS[t])
                                        for v in (lo, hi)):
            return t
    return "float64"


@pytest.mark.parametrize("name", NAMES)
def test_integer_arrays(mf, name):
    T = getattr(mf, name)
    x = np.array([0.5, 1.0, 2.0, 3.0]).astype(T)
    for it in INT_TYPES:
        y = np.array([1, 0, 1, 1]).astype(it)
        common = _int_common(name, it)
        with np.errstate(all="ignore"):
            got = x + y
            exp_dtype = dtype_of(mf, common)
            assert got.dtype == exp_dtype, (name, it, got.dtype, exp_dtype)
            if common in STD:
                exp = U.decode(name, codes(x)).astype(STD[common]) + y.astype(STD[common])
                assert same(got, exp), (name, it)


@pytest.mark.parametrize("name", NAMES)
def test_weak_python_scalars_values(mf, name):
    """arr OP python_scalar: the scalar is converted to the format (NEP 50),
    then the format's own loop runs: round(a OP T(s))."""
    f = R.FORMATS[name]
    T = getattr(mf, name)
    c = U.unary_codes(name)
    x = c.view(T)
    for s in (1.0, 0.1, 3, 2.5, 0.75, -2, 1e-3):
        if not f.signed and s < 0:
            continue
        sc = np.full(c.size, U.encode_codes(name, [float(s)])[0], f.code_dtype)
        for op in ("add", "subtract", "multiply", "divide", "maximum", "power", "less", "equal"):
            u = getattr(np, op)
            with np.errstate(all="ignore"):
                got = u(x, s)
                got_l = u(s, x)
            ref = U.expected_binary_on(name, op, c, sc)
            ref_l = U.expected_binary_on(name, op, sc, c)
            if not f.signed and op in ("less", "equal"):
                # unsigned formats hold no negatives (float8_e8m0fnu no 0):
                # their comparisons with Python numbers are exact, in float64
                # (README decision)
                v = U.decode(name, c)
                with np.errstate(invalid="ignore"):
                    assert (got == getattr(np, op)(v, float(s))).all(), (name, op, s)
                    assert (got_l == getattr(np, op)(float(s), v)).all(), (name, op, s)
                continue
            for g, r in ((got, ref), (got_l, ref_l)):
                if r.kinds[0] == "bool":
                    assert g.dtype == np.bool_ and (g == r.outs[0]).all(), (name, op, s)
                else:
                    assert g.dtype == np.dtype(T), (name, op, s, g.dtype)
                    ok = U.compare_codes(name, codes(g), r.outs[0],
                                         r.nan_result[0] if r.nan_result else None)
                    assert ok.all(), (name, op, s, np.nonzero(~ok)[0][:5])


@pytest.mark.parametrize("name", NAMES)
def test_numpy_scalars_are_strong(mf, name):
    T = getattr(mf, name)
    x = np.array([1.0, 2.0]).astype(T)
    with np.errstate(all="ignore"):
        assert (x + np.float32(1)).dtype == np.float32
        assert (np.float32(1) * x).dtype == np.float32
        assert (x + np.float64(1)).dtype == np.float64
        assert (x + np.float16(1)).dtype == dtype_of(mf, R.common_type(name, "float16"))
        assert (x < np.float32(1.5)).dtype == np.bool_
        got = x + np.float32(0.1)
        assert same(got, U.decode(name, codes(x)).astype(np.float32) + np.float32(0.1))
        # a scalar of another format: strong as well
        for other in NAMES:
            if other == name:
                continue
            s = getattr(mf, other)(1.0)
            assert (x + s).dtype == dtype_of(mf, R.common_type(name, other)), (name, other)
            assert np.result_type(x, s) == dtype_of(mf, R.common_type(name, other))


@pytest.mark.parametrize("name", NAMES)
def test_weak_scalar_out_of_range(mf, name):
    """An out-of-range Python float becomes the format's overflow value, with
    NumPy's cast warning (as for float16, where it becomes inf)."""
    f = R.FORMATS[name]
    T = getattr(mf, name)
    x = np.array([1.0]).astype(T)
    big = 1e300
    with pytest.warns(RuntimeWarning, match="overflow"):
        r = x + big
    assert r.dtype == np.dtype(T)
    exp = U.expected_binary_on(name, "add", codes(x).astype(f.code_dtype),
                               U.encode_codes(name, [big]))
    assert U.compare_codes(name, codes(r), exp.outs[0]).all()


def test_e8m0_compares_with_python_numbers_exactly(mf):
    """0 and negatives have no float8_e8m0fnu code; comparing with them is
    still exact and silent (not NaN comparisons with an 'invalid' warning)."""
    T = mf.float8_e8m0fnu
    x = np.array([2.0**-127, 1.0, 2.0**127]).astype(T)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (x > 0).all() and (0 < x).all()
        assert not (x < -1).any()
        assert not (x == 0.75).any() and (x != 0.75).all()
        assert (x <= 2**127).all() and not (x > 2**127).any()
        assert (x[0] > 0) and (x[1] == 1)
