"""Sums, products, accumulations, matmul and division by zero of the sub-byte
integers (issue 19), against a Python-int reference, following NumPy's int8
rules: sum/prod/cumsum/cumprod accumulate in the platform integer (int64,
uint64 for unsigned types) unless dtype= or out= says otherwise."""
import itertools
import math
import warnings

import numpy as np
import pytest

import minifloat as mf

TYPES = {"int1": (1, True), "int2": (2, True), "int4": (4, True),
         "uint1": (1, False), "uint2": (2, False), "uint4": (4, False)}


def limits(name):
    bits, signed = TYPES[name]
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


def wrap_bits(v, bits, signed):
    v &= (1 << bits) - 1
    if signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def wrap(v, name):
    return wrap_bits(v, *TYPES[name])


def accumulator(name):
    """NumPy's int8 -> int64, uint8 -> uint64."""
    return (64, True) if TYPES[name][1] else (64, False)


def sample(name, shape, seed=0):
    lo, hi = limits(name)
    ints = np.random.default_rng(seed).integers(lo, hi + 1, shape)
    return ints.tolist(), ints.astype(np.int64).astype(getattr(mf, name))


@pytest.fixture(params=list(TYPES))
def name(request):
    return request.param


def ints(arr):
    return [int(v) for v in np.asarray(arr).reshape(-1)]


def test_sum_and_prod_accumulate_like_int8(name):
    rows, arr = sample(name, (5, 300))
    flat = [v for row in rows for v in row]
    acc = np.int64 if TYPES[name][1] else np.uint64
    assert np.sum(arr.view(np.int8 if TYPES[name][1] else np.uint8)).dtype == acc  # NumPy's own rule
    for got in (np.sum(arr), arr.sum(), np.add.reduce(arr, axis=None)):
        assert type(got) is acc and int(got) == wrap_bits(sum(flat), *accumulator(name))
    got = np.prod(arr)
    assert type(got) is acc and int(got) == wrap_bits(math.prod(flat), *accumulator(name))
    by_row = np.sum(arr, axis=1)
    assert by_row.dtype == acc and ints(by_row) == [sum(r) for r in rows]
    by_col = arr.sum(axis=0, keepdims=True)
    assert by_col.shape == (1, 300) and ints(by_col) == [sum(c) for c in zip(*rows)]
    small = arr[:, :3]
    assert ints(np.prod(small, axis=0)) == [math.prod(c) for c in zip(*[r[:3] for r in rows])]
    # NumPy's add.reduce of int8 widens too; other reductions keep the type
    assert np.add.reduce(arr).dtype == acc and np.multiply.reduce(arr).dtype == acc
    assert np.maximum.reduce(arr, axis=None) == max(flat) and np.max(arr).dtype == arr.dtype


def test_sum_where_and_empty(name):
    rows, arr = sample(name, (4, 50), seed=3)
    mask = np.random.default_rng(4).random((4, 50)) < 0.5
    got = np.sum(arr, where=mask)
    assert int(got) == sum(v for r, m in zip(rows, mask.tolist()) for v, k in zip(r, m) if k)
    empty = np.zeros((0,), dtype=getattr(mf, name))
    assert np.sum(empty) == 0 and np.prod(empty) == 1
    assert np.sum(empty).dtype == (np.int64 if TYPES[name][1] else np.uint64)


@pytest.mark.usefixtures("patched_numpy")  # mf.patch_numpy()'s wrapper
def test_explicit_dtype_is_honoured(name):
    rows, arr = sample(name, (300,), seed=5)
    t = getattr(mf, name)
    total = sum(rows)
    for spelling in (t, np.dtype(t), name, type(np.dtype(t))):
        got = np.sum(arr, dtype=spelling)
        assert got.dtype == np.dtype(t) and int(got) == wrap(total, name)
    got = np.add.reduce(arr, dtype=type(np.dtype(t)))
    assert got.dtype == np.dtype(t) and int(got) == wrap(total, name)
    assert int(arr.sum(dtype=t)) == wrap(total, name)
    for numpy_type, bits in ((np.int8, 8), (np.int16, 16), (np.int32, 32)):
        got = np.sum(arr, dtype=numpy_type)
        assert got.dtype == numpy_type and int(got) == wrap_bits(total, bits, True)
    assert np.sum(arr, dtype=np.float64) == float(total)
    got = np.prod(arr[:40], dtype=np.int16)
    assert got.dtype == np.int16 and int(got) == wrap_bits(math.prod(rows[:40]), 16, True)


def test_out_is_honoured(name):
    rows, arr = sample(name, (3, 100), seed=6)
    t = getattr(mf, name)
    out = np.zeros(3, dtype=np.int32)
    assert np.sum(arr, axis=1, out=out) is out
    assert ints(out) == [sum(r) for r in rows]
    out = np.zeros(3, dtype=t)  # an out of the type itself: NumPy's int8 wraps in int8
    np.sum(arr, axis=1, out=out)
    assert ints(out) == [wrap(sum(r), name) for r in rows]
    out = np.zeros(100, dtype=np.int64)
    np.prod(arr, axis=0, out=out)
    assert ints(out) == [math.prod(c) for c in zip(*rows)]


@pytest.mark.usefixtures("patched_numpy")  # mf.patch_numpy()'s wrapper
def test_cumsum_and_cumprod(name):
    rows, arr = sample(name, (2, 200), seed=7)
    flat = [v for row in rows for v in row]
    acc = np.int64 if TYPES[name][1] else np.uint64
    got = np.cumsum(arr)
    assert got.dtype == acc and ints(got) == list(itertools.accumulate(flat))
    got = arr.cumsum(axis=1)
    assert got.dtype == acc and ints(got) == [v for r in rows for v in itertools.accumulate(r)]
    assert np.add.accumulate(arr, axis=1).dtype == acc
    got = np.cumprod(arr[:, :30], axis=1)
    expected = [wrap_bits(v, *accumulator(name)) for r in rows for v in itertools.accumulate(r[:30], lambda a, b: a * b)]
    assert got.dtype == acc and ints(got) == expected
    t = getattr(mf, name)
    for spelling in (t, np.dtype(t), name):
        got = np.cumsum(arr[0], dtype=spelling)
        assert got.dtype == np.dtype(t) and ints(got) == [wrap(v, name) for v in itertools.accumulate(rows[0])]
    got = np.cumsum(arr[0], dtype=np.int16)
    assert got.dtype == np.int16 and ints(got) == list(itertools.accumulate(rows[0]))


def test_matmul_accumulates_in_int32_or_int64(name):
    lo, hi = limits(name)
    rng = np.random.default_rng(8)
    m, n = rng.integers(lo, hi + 1, (6, 2000)), rng.integers(lo, hi + 1, (2000, 5))
    a, b = m.astype(getattr(mf, name)), n.astype(getattr(mf, name))
    expected = [[sum(x * y for x, y in zip(row, col)) for col in zip(*n.tolist())] for row in m.tolist()]
    got = a @ b
    assert got.dtype == np.int32 and got.tolist() == expected
    got = np.matmul(a, b, dtype=np.int64)
    assert got.dtype == np.int64 and got.tolist() == expected
    out = np.zeros((6, 5), np.int64)
    assert np.matmul(a, b, out=out) is out and out.tolist() == expected
    got = a[0] @ b[:, 0]
    assert got.dtype == np.int32 and int(got) == expected[0][0]


def test_elementwise_dtype_argument(name):
    _, arr = sample(name, (50,), seed=9)
    vals = ints(arr)
    got = np.add(arr, arr, dtype=np.int64)
    assert got.dtype == np.int64 and ints(got) == [2 * v for v in vals]
    got = np.multiply(arr, arr, dtype=np.int16)
    assert got.dtype == np.int16 and ints(got) == [v * v for v in vals]
    got = np.subtract(arr, arr[::-1], dtype=type(np.dtype(getattr(mf, name))))
    assert ints(got) == [wrap(x - y, name) for x, y in zip(vals, vals[::-1])]


# ---- division by zero ------------------------------------------------------------


def int8_warnings(func, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = func(*args)
    return result, sorted({str(w.message) for w in caught})


def ref_division(op, a, b, name):
    if b == 0:
        return (0, 0) if op == "divmod" else 0
    q = a // b
    r = a - b * q
    return {"floor_divide": wrap(q, name), "remainder": wrap(r, name),
            "fmod": wrap(int(math.fmod(a, b)), name), "divmod": (wrap(q, name), wrap(r, name))}[op]


@pytest.mark.parametrize("size", [7, 1000, 5000])
@pytest.mark.parametrize("op", ["floor_divide", "remainder", "fmod", "divmod"])
def test_division_by_zero_like_int8(name, op, size):
    lo, hi = limits(name)
    rng = np.random.default_rng(size)
    x = rng.integers(lo, hi + 1, size)
    y = rng.integers(lo, hi + 1, size)
    y[::3] = 0
    t = getattr(mf, name)
    ours, our_warnings = int8_warnings(getattr(np, op), x.astype(t), y.astype(t))
    kind = np.int8 if TYPES[name][1] else np.uint8
    _, numpy_warnings = int8_warnings(getattr(np, op), x.astype(kind), y.astype(kind))
    expected = [ref_division(op, a, b, name) for a, b in zip(x.tolist(), y.tolist())]
    if op == "divmod":
        assert list(zip(ints(ours[0]), ints(ours[1]))) == expected
    else:
        assert ours.dtype == np.dtype(t) and ints(ours) == expected
    assert any("divide by zero" in m for m in our_warnings)
    # the same warnings as int8 on these values, save int8's own min // -1
    # overflow, which only a type whose min is -128 meets here
    assert [m for m in our_warnings if m.startswith("divide")] == [m for m in numpy_warnings if m.startswith("divide")]


def test_division_by_zero_strided_mixed_and_scalar(name):
    lo, hi = limits(name)
    t = getattr(mf, name)
    x = np.random.default_rng(10).integers(lo, hi + 1, 4000).astype(t)
    zeros = np.zeros(8000, dtype=t)
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        assert not np.floor_divide(x, zeros[::2]).any()
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        got = x // 0
    assert got.dtype == np.dtype(t) and not got.any()
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        got = np.remainder(x, np.zeros(4000, np.int16))
    assert got.dtype == np.int16 and not got.any()
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            np.floor_divide(x, zeros[:4000])
    with np.errstate(divide="ignore"):
        assert not np.fmod(x, zeros[:4000]).any()


@pytest.mark.parametrize("name", ["int1", "int2", "int4"])
def test_min_floor_divided_by_minus_one_overflows(name):
    lo, _ = limits(name)
    t = getattr(mf, name)
    if name == "int1":  # -1 // -1 = 1 does not fit int1 either
        a, b = np.full(2000, -1, dtype=t), np.full(2000, -1, dtype=t)
    else:
        a, b = np.full(2000, lo, dtype=t), np.full(2000, -1, dtype=t)
    for func in (np.floor_divide, np.divmod):
        result, caught = int8_warnings(func, a, b)
        assert any("overflow" in m for m in caught)
        q = result[0] if func is np.divmod else result
        assert ints(q) == [wrap(int(a[0]) // int(b[0]), name)] * 2000
    _, caught = int8_warnings(np.remainder, a, b)
    assert caught == []
