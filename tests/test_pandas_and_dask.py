"""pandas and dask.array on minifloat arrays (skipped when not installed).

Expected statistics come from the exact values (float64 arithmetic on the
decoded values, exact here: few small dyadic numbers) rounded once into the
format by tests/reference.py where the result is in the format.
"""
from fractions import Fraction

import numpy as np
import pytest

import reference as ref

import minifloat as mf

VALUES = [0.5, 1, 1.5, 2, 3, 6, 4, 0.5]


def holds_every_value(name):
    return all(ref.decode(name, ref.encode(name, Fraction(v))[0]) == Fraction(v) for v in VALUES)


# the formats that hold VALUES exactly (float8_e8m0fnu has no 1.5 or 3,
# binary8p1* no 1.5, binary8p7* no 6): the dtype machinery pandas and dask
# use is the same for every format, whose own values are tested elsewhere
FORMATS = [n for n in mf.FORMAT_NAMES if holds_every_value(n)]


def array_of(name):
    return np.array(VALUES, np.float64).astype(getattr(mf, name))


def rounded(name, value):
    code = ref.encode(name, Fraction(value))[0]
    return np.array([code], ref.fmt_of(name).code_dtype).view(getattr(mf, name))[0]


def same_value(x, y):
    return float(x) == float(y) or (np.isnan(float(x)) and np.isnan(float(y)))


@pytest.mark.usefixtures("patched_numpy")  # mf.patch_numpy()'s wrapper
@pytest.mark.parametrize("name", FORMATS)
def test_pandas_series_and_frame(name):
    pd = pytest.importorskip("pandas")
    a = array_of(name)
    series = pd.Series(a)
    assert series.dtype == a.dtype
    # pandas sums in the Series' dtype, then divides (float16 the same way):
    # the sum rounds once into the format (it may overflow), the quotient too
    total = ref.decode(name, ref.encode(name, sum(map(Fraction, VALUES)))[0])
    exact_mean = rounded(name, total / len(VALUES)) if isinstance(total, Fraction) else float("nan")
    if total == ref.POS_INF:
        exact_mean = float("inf")
    assert same_value(series.mean(), exact_mean)
    assert float(series.max()) == max(VALUES) and float(series.min()) == min(VALUES)
    described = series.describe()
    assert described["count"] == len(VALUES)
    assert same_value(described["mean"], exact_mean)  # the same, as float64
    assert described["max"] == max(VALUES)
    frame = pd.DataFrame({"x": a, "n": np.arange(len(VALUES))})
    assert frame.dtypes["x"] == a.dtype
    assert frame.describe().loc["max", "x"] == max(VALUES)
    assert float(frame.sum()["x"]) == float(a.sum())
    assert "x" in repr(frame) and frame.sort_values("x")["x"].iloc[0] == min(VALUES)


@pytest.mark.xfail(strict=True, raises=TypeError,
                   reason="pandas' Cython groupby kernels take NumPy's own float types only "
                          "(pandas widens float16 itself, not other kind-'f' dtypes); workaround: "
                          "frame.astype({'x': np.float32}).groupby(...)")
def test_pandas_groupby_mean():
    pd = pytest.importorskip("pandas")
    a = array_of("bfloat16")
    frame = pd.DataFrame({"x": a, "g": [0, 1] * 4})
    means = frame.groupby("g")["x"].mean()
    assert [float(m) for m in means] == [np.mean(VALUES[0::2]), np.mean(VALUES[1::2])]


@pytest.mark.parametrize("name", ["float8_e4m3fn", "bfloat16"])
def test_pandas_groupby_what_works(name):
    # what docs/numpy.md says works without the patch (sum, mean, min, max
    # and first do not: test_pandas_groupby_mean)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"x": array_of(name), "g": [0, 1] * 4})
    groups = frame.groupby("g")["x"]
    assert [float(m) for m in groups.median()] == [float(np.median(array_of(name)[k::2].astype(np.float64)))
                                                   for k in (0, 1)]
    assert [float(s) for s in groups.std()] == pytest.approx(
        [float(np.std(array_of(name)[k::2].astype(np.float64), ddof=1)) for k in (0, 1)])
    assert list(groups.count()) == list(groups.size()) == [4, 4]
    with pytest.raises(TypeError):
        groups.sum()
    assert list(frame.astype({"x": np.float32}).groupby("g")["x"].sum()) == [
        float(array_of(name)[k::2].astype(np.float32).sum()) for k in (0, 1)]


@pytest.mark.usefixtures("patched_numpy")  # mf.patch_numpy()'s wrapper
@pytest.mark.parametrize("name", FORMATS)
def test_dask_array_reductions(name):
    da = pytest.importorskip("dask.array")
    a = array_of(name)
    d = da.from_array(a, chunks=4)
    assert (d * 2).dtype == a.dtype
    assert np.array_equal((d * 2).compute().view(np.uint8 if a.itemsize == 1 else np.uint16),
                          (a * 2).view(np.uint8 if a.itemsize == 1 else np.uint16))
    assert float(d.max().compute()) == max(VALUES)
    assert float(d.min().compute()) == min(VALUES)
    partial = np.array([a[:4].sum(), a[4:].sum()])
    assert same_value(d.sum().compute(), partial.sum())
    assert d.mean().compute().dtype == a.dtype
    assert d.std().compute().dtype == a.dtype
    assert float(d.argmax().compute()) == int(np.argmax(VALUES))
