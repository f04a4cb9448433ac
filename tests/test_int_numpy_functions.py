"""The sub-byte integers through NumPy functions without loops of their own:
ufuncs such as np.sqrt, np.gcd, np.clip compute as the int8/uint8 of the same
values (NumPy's int8 rules, so np.sqrt gives float16); dot, inner, vdot,
tensordot, convolve, correlate and einsum multiply and sum exactly in int32,
as matmul does. References are Python ints, or NumPy's int8 on the same
values where the rule is "what int8 gives"."""
import math

import numpy as np
import pytest

import minifloat as mf

TYPES = {"int1": (-1, 0), "int2": (-2, 1), "int4": (-8, 7), "uint1": (0, 1), "uint2": (0, 3), "uint4": (0, 15)}


@pytest.fixture(params=list(TYPES))
def name(request):
    return request.param


def every(name):
    lo, hi = TYPES[name]
    return list(range(lo, hi + 1))


def as_type(values, name):
    return np.array(values, dtype=getattr(mf, name))


def stand_in(name):
    return np.int8 if name.startswith("i") else np.uint8


@pytest.mark.parametrize("ufunc", [np.sqrt, np.exp, np.rint, np.floor, np.ceil, np.trunc, np.cbrt, np.signbit,
                                   np.bitwise_count, np.spacing, np.deg2rad, np.conjugate])
def test_unary_ufuncs_as_int8(name, ufunc):
    vals = every(name) * 3
    with np.errstate(all="ignore"):
        got = ufunc(as_type(vals, name))
        want = ufunc(np.array(vals, dtype=stand_in(name)))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("ufunc", [np.gcd, np.lcm, np.copysign, np.heaviside, np.hypot, np.arctan2,
                                   np.logaddexp, np.nextafter, np.float_power])
def test_binary_ufuncs_as_int8(name, ufunc):
    pairs = [(x, y) for x in every(name) for y in every(name)]
    a, b = as_type([p[0] for p in pairs], name), as_type([p[1] for p in pairs], name)
    with np.errstate(all="ignore"):
        got = ufunc(a, b)
        want = ufunc(a.astype(stand_in(name)), b.astype(stand_in(name)))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_integer_valued_fallbacks_exact(name):
    vals = every(name)
    arr = as_type(vals, name)
    assert np.gcd(arr, arr).tolist() == [abs(v) for v in vals]
    assert np.gcd.reduce(arr).item() == math.gcd(*vals)
    lo, hi = TYPES[name]
    assert np.clip(arr, lo, hi).tolist() == vals
    assert np.clip(arr, 0, 0).tolist() == [0] * len(vals)
    assert np.bitwise_count(arr).tolist() == [bin(v).count("1") for v in vals]
    assert np.signbit(arr).tolist() == [v < 0 for v in vals]


@pytest.mark.usefixtures("patched_numpy")  # mf.patch_numpy()'s wrapper
def test_histogram_and_fft(name):
    vals = every(name) * 2
    arr = as_type(vals, name)
    counts, edges = np.histogram(arr, bins=len(every(name)))
    assert counts.tolist() == [2] * len(every(name))
    assert np.allclose(np.fft.ifft(np.fft.fft(arr)).real, vals)


def dot(x, y):
    return sum(a * b for a, b in zip(x, y))


@pytest.mark.usefixtures("patched_numpy")  # mf.patch_numpy()'s wrapper
def test_products_exact_in_int32(name):
    rng = np.random.default_rng(41)
    lo, hi = TYPES[name]
    x, y = rng.integers(lo, hi + 1, 3000).tolist(), rng.integers(lo, hi + 1, 3000).tolist()
    a, b = as_type(x, name), as_type(y, name)
    for func in (np.dot, np.inner, np.vdot):
        got = func(a, b)
        assert got.dtype == np.int32 and int(got) == dot(x, y)
    m = as_type(x[:12], name).reshape(3, 4)
    n = as_type(y[:8], name).reshape(4, 2)
    want = [[dot(r, c) for c in zip(*n.astype(np.int64).tolist())] for r in m.astype(np.int64).tolist()]
    assert np.dot(m, n).tolist() == want and np.dot(m, n).tolist() == (m @ n).tolist()
    assert np.tensordot(m, n, 1).tolist() == want
    assert np.einsum("ij,jk", m, n).tolist() == want
    assert int(np.einsum("i,i", a, b)) == dot(x, y)
    assert int(np.einsum("i->", a)) == sum(x)
    assert int(np.einsum("i->", a, dtype=getattr(mf, name))) == (lambda v: v)(
        int(np.array([sum(x)]).astype(getattr(mf, name))[0]))
    k = x[:5]
    assert np.convolve(a[:5], b[:4]).tolist() == [
        sum(k[i] * y[j - i] for i in range(5) if 0 <= j - i < 4) for j in range(8)]
    assert np.correlate(a[:5], b[:5]).tolist() == [dot(x[:5], y[:5])]
    # with another type, as the int8/uint8 of the same values
    f = np.arange(3000, dtype=np.float32) / 7
    got = np.dot(a, f)
    assert got.dtype == np.float32 and got == np.dot(a.astype(stand_in(name)), f)


@pytest.mark.parametrize("fmt", ["float8_e4m3fn", "bfloat16"])
def test_mixed_with_float_formats(name, fmt):
    """An integer of ours with a float format: both promote to their common
    type (float16 with float8_e4m3fn, bfloat16 with bfloat16), whose loops run; before, the two
    libraries' promoters tied and NumPy refused the call."""
    vals = every(name)
    fvals = [0.5, -1.0, 2.0, 3.0]
    pairs = [(x, y) for x in vals for y in fvals]
    a = as_type([p[0] for p in pairs], name)
    f = np.array([p[1] for p in pairs], dtype=getattr(mf, fmt))
    common = np.result_type(a, f)  # float16 with float8_e4m3fn, bfloat16 itself
    assert (a + f).dtype == common and (a + f).tolist() == [x + y for x, y in pairs]
    assert (f * a).tolist() == [x * y for x, y in pairs]
    assert (a < f).tolist() == [x < y for x, y in pairs]
    got = np.copysign(a, f)
    assert got.dtype == common and got.tolist() == [math.copysign(x, y) for x, y in pairs]
    assert np.maximum(a, f).tolist() == [max(x, y) for x, y in pairs]
