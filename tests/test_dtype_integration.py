"""NumPy integration: cast safety, promotion, weak Python scalars, pickling,
printing, array creation, junk in object arrays."""

import pickle
import warnings

import numpy as np
import pytest

import reference as R

NAMES = list(R.FORMAT_NAMES)
ALL = pytest.mark.parametrize("name", NAMES)
STD = ["float16", "float32", "float64", "longdouble"]
STD_TYPES = {"float16": np.float16, "float32": np.float32, "float64": np.float64,
             "longdouble": np.longdouble}


def dt(mf, n):
    """np.dtype for a format name or a standard float name."""
    return np.dtype(getattr(mf, n)) if n in R.FORMATS else np.dtype(STD_TYPES[n])


# --------------------------------------------------------------------------
# cast safety, derived from exact representability
# --------------------------------------------------------------------------


def test_cast_safety_examples(mf):
    assert np.can_cast(mf.float8_e4m3fn, np.float16)
    assert not np.can_cast(np.float32, mf.float8_e4m3fn)
    assert R.safe_cast("float8_e4m3fn", "float16")
    assert not R.safe_cast("float32", "float8_e4m3fn")


@pytest.mark.parametrize("src", NAMES + STD)
def test_can_cast_safe_table(mf, src):
    mismatches = []
    for dst in NAMES + STD:
        exp = R.safe_cast(src, dst)
        got = bool(np.can_cast(dt(mf, src), dt(mf, dst), casting="safe"))
        if got != exp:
            mismatches.append((dst, "expected", exp, "got", got))
    assert not mismatches, (src, mismatches)


@ALL
def test_can_cast_complex_and_integers(mf, name):
    D = np.dtype(getattr(mf, name))
    # to complex: safe iff safe to the component type
    assert np.can_cast(D, np.complex64) == R.safe_cast(name, "float32")
    assert np.can_cast(D, np.complex128) == R.safe_cast(name, "float64")
    assert not np.can_cast(np.complex64, D)
    # to integers / bool: never safe (every format has non-integers)
    for it in (np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64):
        assert not np.can_cast(D, it)
    # from bool and small integers: safe iff every integer value is a value
    for it in (np.bool_, np.int8, np.uint8, np.int16, np.uint16):
        if it is np.bool_:
            lo, hi = 0, 1
        else:
            lo, hi = int(np.iinfo(it).min), int(np.iinfo(it).max)
        assert bool(np.can_cast(it, D)) == R.int_range_safe(lo, hi, name), (it, name)
    for it in (np.int32, np.uint32, np.int64, np.uint64):
        assert not np.can_cast(it, D)


@ALL
def test_can_cast_other_levels(mf, name):
    D = np.dtype(getattr(mf, name))
    for other in NAMES + STD:
        O = dt(mf, other)
        assert np.can_cast(D, O, casting="unsafe")
        assert np.can_cast(D, O, casting="same_kind")  # all floating kinds
        assert np.can_cast(O, D, casting="same_kind")
        assert bool(np.can_cast(D, O, casting="equiv")) == (other == name)
        assert bool(np.can_cast(D, O, casting="no")) == (other == name)
    assert not np.can_cast(D, np.int64, casting="same_kind")


@ALL
def test_astype_respects_casting_argument(mf, name):
    T = getattr(mf, name)
    arr = R.all_codes(name)[:16].view(T)
    for other in NAMES + STD:
        O = dt(mf, other)
        if R.safe_cast(name, other):
            with np.errstate(all="ignore"):
                arr.astype(O, casting="safe")
        else:
            with pytest.raises(TypeError):
                arr.astype(O, casting="safe")


# --------------------------------------------------------------------------
# promotion
# --------------------------------------------------------------------------


def test_promotion_examples(mf):
    assert np.result_type(mf.float8_e4m3fn, mf.float8_e5m2) == np.float16
    assert np.result_type(mf.bfloat16, np.float16) == np.float32
    assert R.common_type("float8_e4m3fn", "float8_e5m2") == "float16"
    assert R.common_type("bfloat16", "float16") == "float32"


@pytest.mark.parametrize("a", NAMES)
def test_result_type_table(mf, a):
    mismatches = []
    for b in NAMES + STD:
        exp = dt(mf, R.common_type(a, b))
        A, B = dt(mf, a), dt(mf, b)
        for got in (np.result_type(A, B), np.result_type(B, A), np.promote_types(A, B),
                    np.promote_types(B, A)):
            if got != exp:
                mismatches.append((b, str(exp), str(got)))
                break
    assert not mismatches, (a, mismatches)


@ALL
def test_weak_python_scalars(mf, name):
    T = getattr(mf, name)
    D = np.dtype(T)
    arr = np.array([0.5, 1.0, 2.0], dtype=T)
    with np.errstate(all="ignore"):
        assert (arr + 1.0).dtype == D
        assert (1.0 + arr).dtype == D
        assert (arr + 1).dtype == D
        assert (arr * 2).dtype == D
        assert (arr - 0.5).dtype == D
        assert (arr / 2.0).dtype == D
        assert (arr + np.float32(1)).dtype == np.float32
        assert (arr + np.float64(1)).dtype == np.float64
        assert (arr + np.float16(1)).dtype == dt(mf, R.common_type(name, "float16"))
        assert (arr < 1.5).dtype == np.bool_
        # 4 may overflow; the 2 itself is a value of the format first (as in
        # float16), which binary8p7sf does not have: NaN
        two = R.decode_float(name, R.encode(name, 2)[0])
        doubled = [R.decode_float(name, R.encode(name, float(arr[i]) * two)[0]) for i in range(3)]
        np.testing.assert_array_equal((arr * 2).astype(np.float64), doubled)
        exp = [R.decode_float(name, R.encode(name, v + 1)[0]) for v in (0.5, 1.0, 2.0)]
        np.testing.assert_array_equal((arr + 1.0).astype(np.float64), exp)
        np.testing.assert_array_equal(arr < 1.5, [True, True, False])


@pytest.mark.parametrize("a", NAMES)
def test_mixed_format_arithmetic_promotes(mf, a):
    A = getattr(mf, a)
    rng = np.random.default_rng(len(a))
    ca = R.all_codes(a)[rng.integers(0, R.FORMATS[a].ncodes, 200)]
    fa = R.decode_array(a, ca)
    for b in NAMES:
        if b == a:
            continue
        B = getattr(mf, b)
        cb = R.all_codes(b)[rng.integers(0, R.FORMATS[b].ncodes, 200)]
        fb = R.decode_array(b, cb)
        res = dt(mf, R.common_type(a, b))
        with np.errstate(all="ignore"):
            got = ca.view(A) + cb.view(B)
            # both operands are exact in float64 and float64 has more than
            # 2p+2 bits of every result type here, so this is the correctly
            # rounded sum in the result type
            exp = (fa + fb).astype(res)
        assert got.dtype == res, (a, b, got.dtype, res)
        ok = (got.astype(np.float64) == exp.astype(np.float64)) | (np.isnan(got.astype(np.float64)) & np.isnan(exp.astype(np.float64)))
        assert ok.all(), (a, b)


# --------------------------------------------------------------------------
# array creation, printing, pickling
# --------------------------------------------------------------------------


@ALL
def test_array_creation_from_python_values(mf, name):
    T = getattr(mf, name)
    vals = [0.1, 1.0, -2.5, 464.0, 2**70, 1 + 2**-4 + 2**-40, 3]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        arr = np.array(vals, dtype=T)
        arr2 = np.asarray(vals, dtype=name)
    exp = [R.encode(name, v)[0] for v in vals]
    np.testing.assert_array_equal(R.codes_of(arr), exp)
    np.testing.assert_array_equal(R.codes_of(arr2), exp)
    # scalar discovery
    s = np.array([T(1), T(2)])
    assert s.dtype == np.dtype(T)
    assert np.array(T(1)).dtype == np.dtype(T)


@ALL
def test_repr_and_str_of_arrays(mf, name):
    T = getattr(mf, name)
    arr = np.array([1.0, 2.0, 0.5], dtype=T)
    r = repr(arr)
    assert name in r
    s = str(arr)
    # the printed numbers are the array's values (2 overflows binary8p7s*)
    values = [R.decode_float(name, R.encode(name, v)[0]) for v in (1.0, 2.0, 0.5)]
    np.testing.assert_array_equal([float(t) for t in s.strip("[]").split()], values, s)
    assert name in repr(np.zeros((0,), dtype=T))
    assert name in repr(np.zeros((2, 2), dtype=T))
    str(np.zeros((2, 2), dtype=T)), repr(np.array(1.0, dtype=T))
    codes = R.all_codes(name)
    str(codes.view(T)), repr(codes.view(T))  # specials print too


@ALL
def test_pickle_arrays_and_dtypes(mf, name):
    T = getattr(mf, name)
    D = np.dtype(T)
    codes = R.all_codes(name)
    arr = codes.view(T)
    for proto in (2, 4, pickle.HIGHEST_PROTOCOL):
        d2 = pickle.loads(pickle.dumps(D, protocol=proto))
        assert d2 == D and d2.type is T
        a2 = pickle.loads(pickle.dumps(arr, protocol=proto))
        assert a2.dtype == D
        np.testing.assert_array_equal(R.codes_of(a2), codes)  # NaN codes too
        a3 = pickle.loads(pickle.dumps(arr[::-3], protocol=proto))
        np.testing.assert_array_equal(R.codes_of(a3), codes[::-3])
        a4 = pickle.loads(pickle.dumps(arr.reshape(-1, 4).T, protocol=proto))
        np.testing.assert_array_equal(R.codes_of(a4), codes.reshape(-1, 4).T)


def test_dtype_by_name_and_dtype_equality(mf):
    for name in NAMES:
        T = getattr(mf, name)
        assert np.dtype(name) == np.dtype(T)
        assert np.dtype(T) != np.dtype(np.float32)
        for other in NAMES:
            assert (np.dtype(other) == np.dtype(T)) == (other == name)


# --------------------------------------------------------------------------
# junk never crashes
# --------------------------------------------------------------------------


def _obj_array(*items):
    a = np.empty(len(items), dtype=object)
    for i, it in enumerate(items):
        a[i] = it
    return a


@ALL
def test_object_array_junk_raises(mf, name):
    T = getattr(mf, name)
    junk = [None, "abc", [1], object(), {}, b"xyz", (1, 2), "1.5.5"]
    for j in junk:
        a = _obj_array(1.5, j)
        with pytest.raises((TypeError, ValueError)):
            a.astype(T)
    with pytest.raises((TypeError, ValueError)):
        np.array(["abc"]).astype(T)
    with pytest.raises((TypeError, ValueError)):
        np.array([b"abc"]).astype(T)
    with pytest.raises((TypeError, ValueError)):
        np.array(["1.5", "x"], dtype=object).astype(T)


@ALL
def test_junk_into_arrays_raises(mf, name):
    T = getattr(mf, name)
    arr = np.zeros(3, dtype=T)
    for j in ("abc", object(), [1, 2]):
        with pytest.raises((TypeError, ValueError)):
            arr[0] = j
    with pytest.raises((TypeError, ValueError)):
        np.array(["abc"], dtype=T)
    with pytest.raises((TypeError, ValueError)):
        np.array([object()], dtype=T)


def test_dtype_names_after_ml_dtypes(mf):
    """ml_dtypes registers the same names on import: the last import owns
    them, and claim_dtype_names() takes them back. In a fresh interpreter
    with MINIFLOAT_NO_ML_DTYPES=1, so that ml_dtypes is really imported after
    minifloat (otherwise minifloat imports it first, and keeps the names)."""
    pytest.importorskip("ml_dtypes")
    import os
    import subprocess
    import sys

    script = (
        "import numpy as np, minifloat as mf, ml_dtypes as md\n"
        "assert np.dtype('float8_e4m3fn').type is md.float8_e4m3fn\n"
        "mf.claim_dtype_names()\n"
        "for name in mf.FORMAT_NAMES:\n"
        "    assert np.dtype(name) == np.dtype(getattr(mf, name)), name\n"
        "    assert np.array([1.5], dtype=name).dtype == np.dtype(getattr(mf, name)), name\n"
    )
    env = dict(os.environ, MINIFLOAT_NO_ML_DTYPES="1")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
