"""Sub-byte integers (issue 19) against an exact reference in Python ints:
every value for unary operations and casts, every pair for binary ones."""
import itertools
import math
import pickle
import warnings

import numpy as np
import pytest

import minifloat as mf

TYPES = {"int1": (1, True), "int2": (2, True), "int4": (4, True),
         "uint1": (1, False), "uint2": (2, False), "uint4": (4, False)}


def limits(name):
    bits, signed = TYPES[name]
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


def wrap(v, name):
    bits, signed = TYPES[name]
    v &= (1 << bits) - 1
    if signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def values(name):
    lo, hi = limits(name)
    return list(range(lo, hi + 1))


def typ(name):
    return getattr(mf, name)


@pytest.fixture(params=list(TYPES))
def name(request):
    return request.param


def test_dtype_identity(name):
    t = typ(name)
    dt = np.dtype(t)
    bits, signed = TYPES[name]
    assert dt.kind == ("i" if signed else "u")
    assert issubclass(t, np.signedinteger if signed else np.unsignedinteger)
    assert dt.itemsize == 1 and dt.name == name
    assert np.dtype(name) == dt and np.dtype(dt.str) == dt and np.dtype(dt.char) == dt
    assert pickle.loads(pickle.dumps(dt)) == dt
    assert pickle.loads(pickle.dumps(t(1 if name != "int1" else -1))) == t(1 if name != "int1" else -1)
    lo, hi = limits(name)
    assert (np.iinfo(t).min, np.iinfo(t).max, np.iinfo(t).bits) == (lo, hi, bits)
    assert (mf.iinfo(name).min, mf.iinfo(name).max) == (lo, hi)
    assert np.iinfo(np.int8).max == 127


def test_storage_is_sign_extended(name):
    vals = values(name)
    arr = np.array(vals, dtype=typ(name))
    raw = arr.view(np.uint8).tolist()
    assert raw == [v & 0xFF for v in vals]
    assert [int(x) for x in arr] == vals


def test_python_int_out_of_range_raises(name):
    lo, hi = limits(name)
    with pytest.raises(OverflowError):
        np.array([hi + 1], dtype=typ(name))
    with pytest.raises(OverflowError):
        typ(name)(lo - 1)
    arr = np.array(values(name), dtype=typ(name))
    with pytest.raises(OverflowError):
        arr + (hi + 1)
    assert (arr + 0).dtype == np.dtype(typ(name))


def test_comparisons_with_any_python_int_are_exact(name):
    """As NumPy 2 compares int8 with a Python int: exactly, also beyond the
    type's range (uint4 `a < 16` is True), both operand orders, arrays and
    scalars, against Python's own comparisons."""
    import operator
    arr = np.array(values(name), dtype=typ(name))
    lo, hi = limits(name)
    numbers = [lo - 2**40, lo - 1, lo, 0, hi, hi + 1, 16, -1, 100, 2**62]
    ops = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for op in ops:
            for k in numbers:
                assert (op(arr, k)).tolist() == [op(v, k) for v in values(name)], (op, k)
                assert (op(k, arr)).tolist() == [op(k, v) for v in values(name)], (op, k)
                assert bool(op(arr[0], k)) == op(values(name)[0], k), (op, k)
    # NumPy's own int8, for comparison
    assert (np.array([3], np.int8) > -1000).tolist() == [True]


def test_integer_casts_wrap(name):
    src = np.arange(-300, 300, dtype=np.int64)
    for numpy_type in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.bool_):
        s = src.astype(numpy_type)
        got = s.astype(typ(name))
        assert [int(x) for x in got] == [wrap(int(v), name) for v in s.tolist()]
    arr = np.array(values(name), dtype=typ(name))
    for numpy_type in (np.int8, np.int16, np.int64, np.uint64, np.float16, np.float32, np.float64, np.longdouble):
        out = arr.astype(numpy_type)
        expected = [numpy_type(v) for v in values(name)] if np.dtype(numpy_type).kind != "u" else \
            [numpy_type(v % (1 << (8 * np.dtype(numpy_type).itemsize))) for v in values(name)]
        assert out.tolist() == [e.item() for e in expected]
    assert arr.astype(bool).tolist() == [v != 0 for v in values(name)]


def test_between_integer_types(name):
    arr = np.array(values(name), dtype=typ(name))
    for other in TYPES:
        assert [int(x) for x in arr.astype(typ(other))] == [wrap(v, other) for v in values(name)]


def test_float_casts_truncate_and_warn(name):
    lo, hi = limits(name)
    xs = [x / 4 for x in range(4 * (lo - 2), 4 * (hi + 3))]
    for ftype in (np.float16, np.float32, np.float64):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = np.array(xs, dtype=ftype).astype(typ(name))
        expected = [math.trunc(x) if lo <= math.trunc(x) <= hi else 0 for x in xs]
        assert [int(v) for v in got] == expected
        assert any("invalid value" in str(w.message) for w in caught)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            inside = [x for x in xs if lo <= math.trunc(x) <= hi]
            np.array(inside, dtype=ftype).astype(typ(name))
    with pytest.warns(RuntimeWarning, match="invalid value"):
        got = np.array([np.nan, np.inf, -np.inf]).astype(typ(name))
    assert [int(v) for v in got] == [0, 0, 0]


def test_float_format_casts(name):
    arr = np.array(values(name), dtype=typ(name))
    for fmt in ("float8_e4m3fn", "float8_e5m2", "bfloat16", "float4_e2m1fn"):
        ft = getattr(mf, fmt)
        with np.errstate(all="ignore"):  # 7 and 15 overflow FP4, as from float64
            via_float64 = np.array(values(name), dtype=np.float64).astype(ft)
        assert arr.astype(ft).view(np.uint8).tolist() == via_float64.view(np.uint8).tolist()
        with np.errstate(all="ignore"):
            back = via_float64.astype(typ(name))
        lo, hi = limits(name)
        exp = [math.trunc(float(v)) if lo <= math.trunc(float(v)) <= hi else 0 for v in via_float64.astype(np.float64)]
        assert [int(v) for v in back] == exp


def test_text_and_object_casts(name):
    arr = np.array(values(name), dtype=typ(name))
    assert arr.astype(str).tolist() == [str(v) for v in values(name)]
    assert arr.astype(np.bytes_).tolist() == [str(v).encode() for v in values(name)]
    assert [int(v) for v in np.array([str(v) for v in values(name)]).astype(typ(name))] == values(name)
    assert [int(v) for v in arr.astype(object)] == values(name)
    with pytest.raises(ValueError):
        np.array(["x"]).astype(typ(name))


def ref_binary(op, a, b, name):
    """(result, flag) of NumPy's int8 rules, in the type's width."""
    if op in ("floor_divide", "remainder", "fmod"):
        if b == 0:
            return 0
        if op == "floor_divide":
            return wrap(a // b, name)
        if op == "remainder":
            return wrap(a - b * (a // b), name)
        return wrap(int(math.fmod(a, b)), name)
    if op == "left_shift":
        return wrap(a << b, name) if 0 <= b < 8 else 0
    if op == "right_shift":
        return wrap(a >> b, name) if 0 <= b < 8 else (-1 if a < 0 else 0)
    f = {"add": lambda: a + b, "subtract": lambda: a - b, "multiply": lambda: a * b,
         "bitwise_and": lambda: a & b, "bitwise_or": lambda: a | b, "bitwise_xor": lambda: a ^ b,
         "minimum": lambda: min(a, b), "maximum": lambda: max(a, b)}[op]
    return wrap(f(), name)


BINARY = ["add", "subtract", "multiply", "bitwise_and", "bitwise_or", "bitwise_xor", "minimum",
          "maximum", "floor_divide", "remainder", "fmod", "left_shift", "right_shift"]


@pytest.mark.parametrize("op", BINARY)
def test_binary_every_pair(name, op):
    pairs = list(itertools.product(values(name), repeat=2))
    a = np.array([p[0] for p in pairs], dtype=typ(name))
    b = np.array([p[1] for p in pairs], dtype=typ(name))
    with np.errstate(all="ignore"):
        got = getattr(np, op)(a, b)
    assert got.dtype == np.dtype(typ(name))
    assert [int(v) for v in got] == [ref_binary(op, x, y, name) for x, y in pairs]


@pytest.mark.parametrize("op", BINARY)
def test_binary_with_a_scalar_and_reductions(name, op):
    # an array with one value broadcast (a * 2 after NEP 50), both sides, and
    # ufunc.reduce: the scalar read once / the reduction folded in one loop
    vals = values(name)
    arr = np.array(vals * 9, dtype=typ(name))
    with np.errstate(all="ignore"):
        for k in vals:
            scalar = np.array(k, dtype=typ(name))
            assert [int(v) for v in getattr(np, op)(arr, scalar)] == [ref_binary(op, x, k, name) for x in vals * 9]
            assert [int(v) for v in getattr(np, op)(scalar, arr)] == [ref_binary(op, k, x, name) for x in vals * 9]
        if op in ("minimum", "maximum", "bitwise_and", "bitwise_or", "bitwise_xor"):  # (add, multiply: int64)
            total = vals[0]
            for x in (vals * 9)[1:]:
                total = ref_binary(op, total, x, name)
            assert int(getattr(np, op).reduce(arr)) == total


def test_comparisons_and_divmod_every_pair(name):
    pairs = list(itertools.product(values(name), repeat=2))
    a = np.array([p[0] for p in pairs], dtype=typ(name))
    b = np.array([p[1] for p in pairs], dtype=typ(name))
    import operator
    for op, f in [(np.equal, operator.eq), (np.not_equal, operator.ne), (np.less, operator.lt),
                  (np.less_equal, operator.le), (np.greater, operator.gt), (np.greater_equal, operator.ge)]:
        assert op(a, b).tolist() == [f(x, y) for x, y in pairs]
    with np.errstate(all="ignore"):
        q, r = np.divmod(a, b)
        t = np.true_divide(a, b)
    assert [int(v) for v in q] == [ref_binary("floor_divide", x, y, name) for x, y in pairs]
    assert [int(v) for v in r] == [ref_binary("remainder", x, y, name) for x, y in pairs]
    assert t.dtype == np.float64
    for (x, y), v in zip(pairs, t.tolist()):
        if y != 0:
            assert v == x / y


def test_division_by_zero_warns_like_int8(name):
    a = np.ones(2000, dtype=typ(name)) if name != "int1" else np.full(2000, -1, dtype=typ(name))
    z = np.zeros(2000, dtype=typ(name))
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        assert not np.floor_divide(a, z).any()
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        assert not np.remainder(a, z).any()


def test_unary_every_value(name):
    arr = np.array(values(name), dtype=typ(name))
    vs = values(name)
    assert [int(v) for v in np.negative(arr)] == [wrap(-v, name) for v in vs]
    assert [int(v) for v in np.abs(arr)] == [wrap(abs(v), name) for v in vs]
    assert [int(v) for v in np.sign(arr)] == [(v > 0) - (v < 0) for v in vs]
    assert [int(v) for v in np.invert(arr)] == [wrap(~v, name) for v in vs]
    assert [int(v) for v in np.square(arr)] == [wrap(v * v, name) for v in vs]
    assert np.logical_not(arr).tolist() == [v == 0 for v in vs]


@pytest.mark.parametrize("start", [0, 1, 37])
def test_wrapping_ops_on_long_arrays(name, start):
    # long enough for the vectorized byte loops and their tails, at an unaligned start
    pairs = list(itertools.product(values(name), repeat=2)) * 9
    xs, ys = [p[0] for p in pairs][start:], [p[1] for p in pairs][start:]
    a = np.array(xs, dtype=typ(name))
    b = np.array(ys, dtype=typ(name))
    for op in ("add", "subtract", "multiply"):
        assert [int(v) for v in getattr(np, op)(a, b)] == [ref_binary(op, x, y, name) for x, y in zip(xs, ys)]
    for op, f in (("negative", lambda v: -v), ("absolute", abs), ("square", lambda v: v * v),
                  ("invert", lambda v: ~v)):
        assert [int(v) for v in getattr(np, op)(a)] == [wrap(f(v), name) for v in xs]


def test_promotion_by_exact_range():
    assert np.result_type(mf.int4, np.int8) == np.int8
    assert np.result_type(mf.int4, mf.uint4) == np.int8
    assert np.result_type(mf.uint4, mf.float8_e4m3fn) == np.float16
    assert np.result_type(mf.int2, mf.uint1) == np.dtype(mf.int2)
    assert np.result_type(mf.int1, mf.uint1) == np.dtype(mf.int2)
    assert np.result_type(mf.int4, np.uint8) == np.int16
    assert np.result_type(mf.uint2, np.uint8) == np.uint8
    assert np.result_type(mf.int4, np.float32) == np.float32
    assert np.can_cast(mf.int4, np.int8) and not np.can_cast(np.int8, mf.int4)
    assert np.can_cast(mf.uint4, mf.int4, "same_kind") and not np.can_cast(mf.uint4, mf.int4)
    assert not np.can_cast(np.float32, mf.int4, "same_kind")
    a = np.array([7], dtype=mf.int4)
    assert (a + np.array([1], np.int8)).dtype == np.int8
    assert (a + np.array([1], np.int8)).tolist() == [8]
    assert (a + 1.5).dtype == np.float64


def test_sort_unique_matmul(name):
    vs = values(name)
    rng = np.random.default_rng(0)
    raw = rng.choice(vs, 500)
    arr = raw.astype(typ(name))
    assert [int(v) for v in np.sort(arr)] == sorted(raw.tolist())
    assert [int(v) for v in arr[np.argsort(arr, kind="stable")]] == sorted(raw.tolist())
    assert [int(v) for v in np.unique(arr)] == sorted(set(raw.tolist()))
    assert int(arr.max()) == max(raw.tolist()) and int(arr.min()) == min(raw.tolist())
    m = rng.choice(vs, (5, 7)); n = rng.choice(vs, (7, 3))
    got = m.astype(typ(name)) @ n.astype(typ(name))
    assert got.dtype == np.int32
    assert got.tolist() == (m.astype(np.int64) @ n.astype(np.int64)).tolist()


def test_scalars(name):
    t = typ(name)
    lo, hi = limits(name)
    assert int(t(hi)) == hi and int(t(lo)) == lo and hash(t(hi)) == hash(hi)
    assert t(hi) + t(0) == hi
    assert type(t(hi) + t(0)) is t
    assert int(t(float(hi) + 0.75)) == hi
    assert str(t(lo)) == str(lo)


def test_items_are_python_ints_and_indexing_gives_scalars(name):
    """As NumPy's int8: tolist(), item() and astype(object) give Python ints
    (json.dumps(arr.tolist()) works); indexing and iteration give the type's
    scalars, every value (negative ones sign-extended) read back exactly."""
    import json

    t = typ(name)
    vals = values(name)
    arr = np.array(vals, dtype=t)
    assert arr.tolist() == vals and all(type(v) is int for v in arr.tolist())
    assert arr.reshape(-1, 1).tolist() == [[v] for v in vals]
    assert [arr.item(i) for i in range(len(vals))] == vals and type(arr.item(0)) is int
    assert arr.astype(object).tolist() == vals and type(arr.astype(object)[0]) is int
    assert json.loads(json.dumps(arr.tolist())) == vals
    assert [type(x) for x in arr] == [t] * len(vals) and [int(x) for x in arr] == vals
    assert type(arr[0]) is t and [int(arr[i]) for i in range(len(vals))] == vals
    assert type(arr.reshape(())[()] if arr.size == 1 else arr[-1]) is t
    assert t(vals[-1]).item() == vals[-1] and type(t(vals[-1]).item()) is int


def test_power_every_pair(name):
    pairs = [(x, y) for x in values(name) for y in values(name) if y >= 0]
    a = np.array([p[0] for p in pairs], dtype=typ(name))
    b = np.array([p[1] for p in pairs], dtype=typ(name))
    got = np.power(a, b)
    assert got.dtype == np.dtype(typ(name))
    assert [int(v) for v in got] == [wrap(x ** y, name) for x, y in pairs]
    if limits(name)[1] >= 1:  # a Python int exponent
        assert [int(v) for v in a ** 1] == [wrap(x, name) for x, _ in pairs]
    if limits(name)[0] < 0:  # NumPy's rule for integer arrays
        with pytest.raises(ValueError, match="negative integer powers"):
            np.power(a, np.full(len(pairs), -1, dtype=typ(name)))


def test_bulk_cast_kernels(name):
    """Contiguous arrays long enough for the vectorized kernels (and their
    tails), aligned and not, against the Python-int reference."""
    lo, hi = limits(name)
    rng = np.random.default_rng(23)
    xs = np.concatenate([rng.uniform(lo - 3, hi + 3, 3000), [lo - 1, lo - 1 + 1e-6, hi + 1, hi + 1 - 1e-6,
                                                            -0.0, np.nan, np.inf, -np.inf, 1e30, -1e30]])
    for ftype in (np.float32, np.float64):
        f = xs.astype(ftype)
        for src in (f, np.frombuffer(b"\0" + f.tobytes(), dtype=ftype, offset=1)):  # unaligned too
            with np.errstate(invalid="ignore"):
                got = src.astype(typ(name))
            expected = [math.trunc(v) if math.isfinite(v) and lo <= math.trunc(v) <= hi else 0 for v in src.tolist()]
            assert [int(v) for v in got] == expected
        with pytest.warns(RuntimeWarning, match="invalid value"):
            f.astype(typ(name))
    ints = rng.integers(-(1 << 40), 1 << 40, 3001)
    for itype in (np.int32, np.uint32, np.int64, np.uint64, np.int16):
        src = ints.astype(itype)
        assert [int(v) for v in src.astype(typ(name))] == [wrap(int(v), name) for v in src.tolist()]
    arr = np.array(rng.integers(lo, hi + 1, 3001), dtype=typ(name))
    vals = [int(v) for v in arr]
    assert arr.astype(np.int32).tolist() == vals and arr.astype(np.float32).tolist() == [float(v) for v in vals]
    assert arr[1:].astype(np.int32).tolist() == vals[1:]


def test_without_ml_dtypes_in_a_fresh_interpreter():
    """ml_dtypes absent (blocked) or skipped: the integer types work, and
    the ml_dtypes helpers say what they need."""
    import os
    import subprocess
    import sys
    code = (
        "import sys; sys.modules['ml_dtypes'] = None\n"
        "import numpy as np, minifloat as mf\n"
        "a = np.array([1, -2], dtype=mf.int4)\n"
        "assert (a + a).tolist() == [2, -4] and np.sum(a).dtype == np.int64\n"
        "try:\n"
        "    mf.to_ml_dtypes(a)\n"
        "except TypeError as e:\n"
        "    assert 'ml_dtypes' in str(e)\n"
        "else:\n"
        "    raise SystemExit('no TypeError')\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=120)
    pytest.importorskip("ml_dtypes")
    code = (
        "import numpy as np, minifloat as mf, ml_dtypes\n"
        "a = np.array([1, -2], dtype=mf.int4)\n"
        "try:\n"
        "    a.astype(ml_dtypes.int4)\n"
        "except TypeError:\n"
        "    pass\n"
        "else:\n"
        "    raise SystemExit('a cast with ml_dtypes exists although it was skipped')\n"
        "assert [int(v) for v in mf.from_ml_dtypes(mf.to_ml_dtypes(a))] == [1, -2]\n"
    )
    env["MINIFLOAT_NO_ML_DTYPES"] = "1"
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=120)


def test_complex_casts(name):
    vals = values(name)
    arr = np.array(vals, dtype=typ(name))
    lo, hi = limits(name)
    for ctype in (np.complex64, np.complex128, np.clongdouble):
        assert np.can_cast(typ(name), ctype)
        got = arr.astype(ctype)
        assert got.dtype == ctype and got.tolist() == [complex(v) for v in vals]
        xs = [complex(x / 4, 1.5) for x in range(4 * (lo - 2), 4 * (hi + 3))]
        with pytest.warns(np.exceptions.ComplexWarning):
            with np.errstate(invalid="ignore"):
                back = np.array(xs, dtype=ctype).astype(typ(name))
        expected = [math.trunc(x.real) if lo <= math.trunc(x.real) <= hi else 0 for x in xs]
        assert [int(v) for v in back] == expected
    assert (arr + 1j).dtype == np.complex128


# ---- the rules NumPy's own integers follow (issue: integer gaps) -------------

TEXT_OPERANDS = [np.array(["10"]), np.array([b"10"]), np.array(["10"], dtype=np.dtypes.StringDType()),
                 np.array(["2000-01-01"], dtype="M8[D]"), np.array([1], dtype="m8[D]")]


@pytest.mark.parametrize("other", TEXT_OPERANDS, ids=["str", "bytes", "StringDType", "datetime", "timedelta"])
def test_text_and_time_operands_have_no_loop(name, other):
    """int8 has no arithmetic or ordering with text; neither have ours (no
    silent string concatenation), and == is elementwise False as for int8."""
    a = np.array([0], dtype=typ(name))
    with pytest.raises(np.exceptions.DTypePromotionError):
        np.result_type(a.dtype, other.dtype)
    for op in (np.less, np.greater_equal, np.add, np.multiply):
        with pytest.raises(TypeError, match="did not contain a loop"):
            op(a, other)
    if other.dtype.kind in "SUT":
        assert (a == other).tolist() == (np.array([0], np.int8) == other).tolist() == [False]


def test_text_scalar_operands(name):
    x = typ(name)(0)
    for op in (lambda v: v < "10", lambda v: v + "10", lambda v: "10" > v):
        with pytest.raises(TypeError):  # what np.int8 does
            op(np.int8(0))
        with pytest.raises(TypeError, match="did not contain a loop"):
            op(x)
    assert (x == "0") is np.False_ and (x != "0") is np.True_
    # a sequence times an integer repeats it, as with np.int8 and int
    n = typ(name)(1 if name != "int1" else 0)
    for seq in ("ab", b"ab", [1, 2], (1,)):
        assert seq * n == n * seq == seq * int(n) == seq * np.int8(int(n))


SCALAR_CHECKED = {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b,
                  "multiply": lambda a, b: a * b}


@pytest.mark.parametrize("op", list(SCALAR_CHECKED))
def test_scalar_overflow_warns_every_pair(name, op):
    """Scalars warn "overflow encountered in scalar add" exactly where the
    exact result leaves the type, as np.int8's do; the value still wraps."""
    lo, hi = limits(name)
    f = SCALAR_CHECKED[op]
    t = typ(name)
    for x, y in itertools.product(values(name), repeat=2):
        exact = f(x, y)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = f(t(x), t(y))
        assert type(got) is t and int(got) == wrap(exact, name)
        overflowed = not lo <= exact <= hi
        assert [str(w.message) for w in caught] == (
            [f"overflow encountered in scalar {op}"] if overflowed else []), (x, y)
        if overflowed:
            with np.errstate(over="raise"), pytest.raises(FloatingPointError, match=f"scalar {op}"):
                f(t(x), t(y))
            with np.errstate(over="ignore"), warnings.catch_warnings():
                warnings.simplefilter("error")
                f(t(x), t(y))


def test_scalar_overflow_with_python_ints_and_unary(name):
    lo, hi = limits(name)
    t = typ(name)
    one = 1 if hi >= 1 else -1  # a weak Python int the type holds (int1 holds -1 and 0)
    with pytest.warns(RuntimeWarning, match="overflow encountered in scalar add"):
        assert int((t(hi) if one == 1 else t(lo)) + one) == (lo if one == 1 else hi)
    for v in values(name):
        for f, label in ((lambda s: -s, "negative"), (abs, "absolute")):
            exact = f(v)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                got = f(t(v))
            assert int(got) == wrap(exact, name)
            expected = [f"overflow encountered in scalar {label}"] if not lo <= exact <= hi else []
            assert [str(w.message) for w in caught] == expected, (v, label)
    # arrays keep wrapping silently, as NumPy's integer arrays do
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = np.array(values(name), dtype=t)
        np.add(a, a), np.negative(a), np.multiply(a, a)


def test_dtype_attribute_of_scalar_types(name):
    t = typ(name)
    assert t.dtype == np.dtype(t) and np.dtype(t.dtype) == np.dtype(t)
    assert t(0).dtype == np.dtype(t) and type(t(0).dtype) is type(np.dtype(t))


def test_iinfo_of_arrays_scalars_and_names(name):
    lo, hi = limits(name)
    t = typ(name)
    for arg in (t, np.dtype(t), np.zeros(3, dtype=t), t(0), f"minifloat.{name}"):
        info = mf.iinfo(arg)
        assert (info.min, info.max, info.bits, info.dtype) == (lo, hi, TYPES[name][0], np.dtype(t))


@pytest.mark.parametrize("name", sorted(TYPES))
def test_newbyteorder_like_int8(name):
    # One byte has no byte order: every order is this dtype, as for np.int8;
    # an order that is none raises ValueError, as np.int8's does.
    dt = np.dtype(getattr(mf, name))
    for order in ("S", "=", "|", "<", ">", "N", "I", "L", "B", "little", "big"):
        assert dt.newbyteorder(order) is dt
        assert np.dtype(np.int8).newbyteorder(order).itemsize == 1
    assert dt.newbyteorder() is dt
    with pytest.raises(ValueError):
        np.dtype(np.int8).newbyteorder("Q")
    with pytest.raises(ValueError):
        dt.newbyteorder("Q")
    with pytest.raises(TypeError):
        dt.newbyteorder("<", ">")
