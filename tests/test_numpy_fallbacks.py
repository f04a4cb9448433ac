"""NumPy functions without minifloat loops work the way they do for float16.

Ufuncs with no minifloat loop (np.fft's, np.linalg's gufuncs) widen the
operands exactly to float32, as NumPy widens float16; functions whose C code
takes legacy dtypes only (np.convolve, np.correlate, np.linalg.norm,
multi_dot) compute on the exact float32 values and round once; reductions and
accumulations accept a minifloat ``dtype=``; np.frompyfunc/np.vectorize and
np.histogram work. Expectations come from exact arithmetic (Fractions) and
the exact encoder in tests/reference.py.
"""
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest

import reference as ref

import minifloat as mf

# What this file checks is mf.patch_numpy()'s wrappers (a plain import
# changes no NumPy function: test_good_neighbour.py).
pytestmark = pytest.mark.usefixtures("patched_numpy")

FORMATS = list(mf.FORMAT_NAMES)


def dtype_of(name):
    return np.dtype(getattr(mf, name))


def sample(name, n=8):
    """n small values every format holds (float8_e8m0fnu: powers of two),
    whose products and sums of a few dozen are exact in float32."""
    values = [Fraction(v) for v in (1, 1.5, 2, 0.5, 3, 6, 4, 0.5)]
    if ref.fmt_of(name).mbits == 0:  # float8_e8m0fnu, P3109's P = 1
        values = [Fraction(2) ** k for k in (0, 1, -1, 2, -2, 3, 0, 1)]
    while max(values) > ref.finfo_expected(name)["max"]:  # P3109's P = 6, 7: scaled into range
        values = [v / 4 for v in values]
    chosen = []
    for v in values:
        code, flags = ref.encode(name, v)
        assert not flags and ref.decode(name, code) == v, (name, v)
        chosen.append(code)
    codes = np.array(chosen[:n], dtype=ref.fmt_of(name).code_dtype)
    return codes.view(dtype_of(name)), [Fraction(v) for v in values[:n]]


def codes(arr):
    return np.asarray(arr).view(np.uint8 if arr.dtype.itemsize == 1 else np.uint16)


def rounded_codes(name, exact_values):
    return np.array([ref.encode(name, v)[0] for v in exact_values],
                    dtype=ref.fmt_of(name).code_dtype)


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("function", [np.fft.fft, np.fft.rfft, np.fft.ifft, np.fft.hfft])
def test_fft_widens_like_float16(name, function):
    a, _ = sample(name)
    result = function(a)
    expected = function(a.astype(np.float32))
    assert result.dtype == expected.dtype
    if function is not np.fft.hfft:  # float16's hfft rounds its output to float16
        assert result.dtype == function(a.astype(np.float16)).dtype
    assert np.array_equal(result, expected)


@pytest.mark.parametrize("name", FORMATS)
def test_fft2_of_a_matrix(name):
    a, _ = sample(name)
    m = a.reshape(2, 4)
    assert np.array_equal(np.fft.fft2(m), np.fft.fft2(m.astype(np.float32)))


@pytest.mark.parametrize("name", FORMATS)
def test_linalg_gufunc_called_directly(name):
    from numpy.linalg import _umath_linalg

    a, _ = sample(name, 4)
    m = np.diag(a)
    assert _umath_linalg.det(m) == _umath_linalg.det(m.astype(np.float32))


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_and_correlate_round_once(name, mode):
    a, va = sample(name, 5)
    v, vv = sample(name, 3)
    exact_full = [sum(va[i] * vv[k - i] for i in range(len(va)) if 0 <= k - i < len(vv))
                  for k in range(len(va) + len(vv) - 1)]
    n = len(exact_full)
    if mode == "same":
        start = (n - len(va)) // 2
        exact = exact_full[start:start + len(va)]
    elif mode == "valid":
        exact = exact_full[len(vv) - 1:len(va)]
    else:
        exact = exact_full
    result = np.convolve(a, v, mode=mode)
    assert result.dtype == a.dtype
    assert np.array_equal(codes(result), rounded_codes(name, exact))
    # correlate(a, v) is convolve(a, v reversed)
    result = np.correlate(a, v[::-1], mode=mode)
    assert result.dtype == a.dtype
    assert np.array_equal(codes(result), rounded_codes(name, exact))


def test_convolve_mixed_with_float64_is_float64():
    a, _ = sample("float8_e4m3fn", 4)
    result = np.convolve(a, np.array([1.0, 2.0]))
    assert result.dtype == np.float64
    assert np.array_equal(result, np.convolve(a.astype(np.float64), [1.0, 2.0]))


def correctly_rounded_sqrt(name, square):
    with localcontext() as context:
        context.prec = 80
        root = (Decimal(square.numerator) / Decimal(square.denominator)).sqrt()
    return ref.encode(name, Fraction(root))[0]


@pytest.mark.parametrize("name", FORMATS)
def test_norm_is_the_correctly_rounded_root(name):
    a, values = sample(name)
    result = np.linalg.norm(a)
    assert result.dtype == a.dtype
    assert int(codes(np.asarray(result))) == correctly_rounded_sqrt(name, sum(v * v for v in values))
    m = a.reshape(2, 4)
    by_row = np.linalg.norm(m, axis=1)
    for row, got in zip(np.array(values, dtype=object).reshape(2, 4), codes(by_row)):
        assert int(got) == correctly_rounded_sqrt(name, sum(v * v for v in row))


def product_codes(name, left, right):
    """Exact matrix product of value lists, rounded once per element."""
    rows, inner, cols = len(left), len(right), len(right[0])
    exact = [sum(left[i][k] * right[k][j] for k in range(inner)) for i in range(rows) for j in range(cols)]
    return rounded_codes(name, exact).reshape(rows, cols)


@pytest.mark.parametrize("name", FORMATS)
def test_multi_dot(name):
    a, values = sample(name)
    left, right = a.reshape(2, 4), a.reshape(4, 2)
    lv = [values[0:4], values[4:8]]
    rv = [values[0:2], values[2:4], values[4:6], values[6:8]]
    result = np.linalg.multi_dot([left, right])
    assert result.dtype == a.dtype
    assert np.array_equal(codes(result), product_codes(name, lv, rv))
    three = np.linalg.multi_dot([left, right, left])
    assert three.dtype == a.dtype and three.shape == (2, 4)


@pytest.mark.parametrize("name", FORMATS)
def test_reductions_take_a_dtype_instance(name):
    # NumPy refuses dtype instances of new-style DTypes in ufuncs; reductions
    # pass them on (dask does: np.sum(x, dtype=x.dtype)).
    a, _ = sample(name)
    dt = a.dtype
    # (np.mean(a, dtype=dt) sums in dt first, as float16's does, so it is
    # not np.mean(a), which accumulates in float32.)
    for function in (np.sum, np.prod):
        assert np.array_equal(codes(np.asarray(function(a, dtype=dt))), codes(np.asarray(function(a))))
    assert np.mean(a, dtype=dt).dtype == dt
    assert np.array_equal(codes(np.asarray(a.sum(dtype=dt))), codes(np.asarray(a.sum())))
    assert np.array_equal(codes(np.asarray(a.prod(dtype=dt))), codes(np.asarray(a.prod())))
    assert np.array_equal(codes(np.cumsum(a, dtype=dt)), codes(np.add.accumulate(a)))
    assert np.array_equal(codes(np.cumprod(a, dtype=dt)), codes(np.multiply.accumulate(a)))
    m = a.reshape(2, 4)
    assert np.array_equal(codes(np.sum(m, axis=0, dtype=dt)), codes(np.add.reduce(m, axis=0)))
    assert np.array_equal(codes(np.cumsum(m, axis=1, dtype=dt)), codes(np.add.accumulate(m, axis=1)))
    assert np.cumsum(m, dtype=dt).shape == (8,)
    # the scalar type names the dtype too
    assert np.sum(a, dtype=getattr(mf, name)).dtype == dt


@pytest.mark.parametrize("name", FORMATS)
def test_frompyfunc_and_vectorize(name):
    a, values = sample(name)
    seen = []

    def double(v):
        seen.append(v)
        return v * 2

    result = np.frompyfunc(double, 1, 1)(a)
    assert result.dtype == object
    assert [Fraction(float(v)) for v in seen] == values
    assert np.frompyfunc(lambda x, y: x, 2, 1)(a, np.arange(8.0)).dtype == object
    vectorized = np.vectorize(lambda v: v * 2)(a)
    assert vectorized.dtype == a.dtype
    assert np.array_equal(codes(vectorized), rounded_codes(name, [2 * v for v in values]))
    as_float = np.vectorize(lambda v: float(v) + 0.25, otypes=[np.float64])(a)
    assert np.array_equal(as_float, np.array([float(v) + 0.25 for v in values]))


@pytest.mark.parametrize("name", FORMATS)
def test_histogram_bins_the_exact_values(name):
    a, values = sample(name)
    wide = a.astype(np.float32)
    for kwargs in ({}, {"bins": 4}, {"bins": 3, "range": (0.5, 4)}, {"weights": a}, {"density": True}):
        counts, edges = np.histogram(a, **kwargs)
        expected_kwargs = dict(kwargs)
        if "weights" in kwargs:
            expected_kwargs["weights"] = wide
        expected_counts, expected_edges = np.histogram(wide, **expected_kwargs)
        assert np.array_equal(counts, expected_counts) and np.array_equal(edges, expected_edges)
        assert edges.dtype == np.float32
    assert np.array_equal(np.histogram_bin_edges(a, bins=5), np.histogram_bin_edges(wide, bins=5))
    h, _, _ = np.histogram2d(a, a, bins=2)
    assert h.sum() == len(values)


def test_matplotlib_hist():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    a, _ = sample("float8_e4m3fn")
    figure, axes = plt.subplots()
    counts, edges, _ = axes.hist(a, bins=4)
    plt.close(figure)
    assert np.array_equal(counts, np.histogram(a.astype(np.float32), bins=4)[0])


@pytest.mark.xfail(strict=True, raises=ValueError,
                   reason="numpy/numpy#23500: the buffer protocol has no format for new-style "
                          "DTypes; use memoryview(arr.view(np.uint8))")
def test_memoryview_of_an_array():
    memoryview(np.ones(4, mf.float8_e4m3fn))


def test_memoryview_workaround():
    a = np.ones(4, mf.float8_e4m3fn)
    assert memoryview(a.view(np.uint8)).tobytes() == a.tobytes()


@pytest.mark.xfail(strict=True, raises=TypeError,
                   reason="numpy/numpy#22540: ufuncs take the DType class, not an instance, of "
                          "new-style DTypes in dtype=/signature=; pass type(dtype)")
def test_ufunc_dtype_instance():
    a = np.ones(4, mf.float8_e4m3fn)
    np.add(a, a, dtype=a.dtype)


def test_ufunc_dtype_class_workaround():
    a = np.ones(4, mf.float8_e4m3fn)
    assert np.add(a, a, dtype=type(a.dtype)).dtype == a.dtype


@pytest.mark.parametrize("name", FORMATS)
def test_float_power_computes_in_float64_as_for_float16(name):
    a, values = sample(name)
    result = np.float_power(a, a[::-1])
    assert result.dtype == np.float64 == np.float_power(a.astype(np.float16), 2).dtype
    assert np.array_equal(result, np.float_power(a.astype(np.float64), a[::-1].astype(np.float64)))


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("ufunc", [np.sqrt, np.exp, np.negative, np.square])
def test_unary_ufunc_with_a_float32_dtype(name, ufunc):
    a, _ = sample(name)
    result = ufunc(a, dtype=np.float32)
    assert result.dtype == np.float32
    assert np.array_equal(result, ufunc(a.astype(np.float32)))


@pytest.mark.parametrize("name", FORMATS)
def test_average_with_weights(name):
    a, values = sample(name)
    w, weights = sample(name)
    weights = weights[::-1]
    w = w[::-1]
    exact = sum(v * x for v, x in zip(values, weights)) / sum(weights)
    result = np.average(a, weights=w)
    assert result.dtype == a.dtype
    assert int(codes(np.asarray(result))) == ref.encode(name, exact)[0]
    value, total = np.average(a, weights=w, returned=True)
    assert int(codes(np.asarray(total))) == ref.encode(name, sum(weights))[0]
    pair = [Fraction(1), Fraction(2)] if ref.finfo_expected(name)["max"] >= 2 else [Fraction(1, 2), Fraction(1)]
    by_column = np.average(a.reshape(2, 4), axis=0, weights=np.array([float(p) for p in pair]).astype(a.dtype))
    expected = [(pair[0] * values[j] + pair[1] * values[4 + j]) / sum(pair) for j in range(4)]
    assert by_column.dtype == a.dtype
    assert np.array_equal(codes(by_column), rounded_codes(name, expected))
    expected = [(values[j] + 2 * values[4 + j]) / 3 for j in range(4)]
    integer_weights = np.average(a.reshape(2, 4), axis=0, weights=[1, 2])  # int64: float64, as NumPy
    assert integer_weights.dtype == np.float64
    assert np.array_equal(integer_weights, [float(v) for v in expected])
    assert np.average(a, weights=np.arange(1.0, 9.0)).dtype == np.float64


@pytest.mark.parametrize("name", FORMATS)
def test_common_type_and_polynomials(name):
    a, values = sample(name, 3)
    scalar_type = getattr(mf, name)
    assert np.common_type(a) is scalar_type
    assert np.common_type(a, np.arange(3)) is np.result_type(a.dtype, np.float64).type
    assert np.common_type(a, np.ones(2, np.float32)) is np.result_type(a.dtype, np.float32).type
    product = np.polymul(a, a)
    exact = [sum(values[i] * values[k - i] for i in range(3) if 0 <= k - i < 3) for k in range(5)]
    assert product.dtype == a.dtype
    assert np.array_equal(codes(product), rounded_codes(name, exact))


@pytest.mark.parametrize("name", FORMATS)
def test_text_readers_round_once(name, tmp_path):
    # np.fromstring/np.fromfile with sep= parse through the format's exact
    # decimal parser (the same as the str casts): one rounding from the text.
    dt = dtype_of(name)
    texts = ["1", "1.5", "0.1", "-2.75e0", "3.0000000000000000001", "1e-1", "inf", "-nan", "448"]
    expected = []
    for text in texts:
        if text.lstrip("+-") in ("inf", "nan"):  # the str cast's bits for the specials
            expected.append(int(codes(np.array([text]).astype(dt))[0]))
        else:
            expected.append(ref.encode(name, Fraction(text))[0])
    parsed = np.fromstring(" ".join(texts), dtype=dt, sep=" ")
    assert parsed.dtype == dt
    assert codes(parsed).tolist() == expected
    assert codes(np.fromstring(",".join(texts), dtype=dt, sep=",")).tolist() == expected
    path = tmp_path / "values.txt"
    path.write_text("\n".join(texts) + "\n")
    assert codes(np.fromfile(path, dtype=dt, sep="\n")).tolist() == expected
    a, _ = sample(name)
    a.tofile(path, sep=",")
    assert np.array_equal(codes(np.fromfile(path, dtype=dt, sep=",")), codes(a))


def test_text_readers_refuse_junk_as_for_float16():
    for dt in (np.float16, mf.float8_e4m3fn, mf.bfloat16):
        with pytest.raises(ValueError, match="unmatched data"):
            np.fromstring("1 2 x 3", dtype=dt, sep=" ")


def test_histogram_range_of_minifloat_scalars():
    """range=(a.min(), a.max()) holds minifloat scalars (matplotlib's hist
    passes them): binned as their exact values."""
    a, _ = sample("float8_e4m3fn")
    wide = a.astype(np.float32)
    lo, hi = a.min(), a.max()
    counts, edges = np.histogram(a, bins=5, range=(lo, hi))
    expected_counts, expected_edges = np.histogram(wide, bins=5, range=(float(lo), float(hi)))
    assert np.array_equal(counts, expected_counts) and np.array_equal(edges, expected_edges)
    assert np.array_equal(np.histogram(a, 5, (lo, hi))[0], expected_counts)
    h, _, _ = np.histogram2d(a, a, bins=2, range=[(lo, hi), (lo, hi)])
    assert np.array_equal(h, np.histogram2d(wide, wide, bins=2, range=[(float(lo), float(hi))] * 2)[0])
