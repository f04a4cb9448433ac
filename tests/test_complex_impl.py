"""Smoke tests of complex32/bcomplex32 (issue 27) beside the exact-reference
tests (tests/test_complex*.py): each checks one path of the implementation
against NumPy's complex128 result rounded once per part, computed here with
NumPy's own float16 rounding (float64 -> float16 rounds once, to nearest
even) and, for bfloat16, with integer arithmetic on the float64 bits."""
import pickle
import warnings

import numpy as np
import pytest

import minifloat as mf

NUMPY_HAS_PART_LOOPS = np.lib.NumpyVersion(np.__version__) >= "2.5.0"


def bf16_round(x):
    """float64 -> bfloat16 bits, round to nearest even, once (exact: the
    float64 is split into its float32 neighbours only where it is exact)."""
    x = np.asarray(x, np.float64)
    out = np.empty(x.shape, np.uint16)
    for i, v in np.ndenumerate(x):
        if np.isnan(v):
            out[i] = 0x7FC0 | (0x8000 if np.signbit(v) else 0)
            continue
        # the exact rounding of v to 8 significant bits with Python floats
        import math
        if v == 0 or math.isinf(v):
            out[i] = np.array(v, np.float32).view(np.uint32) >> 16
            continue
        m, e = math.frexp(abs(v))  # v = m * 2**e, 0.5 <= m < 1
        e_min = -125  # smallest normal exponent of bfloat16 in frexp terms (2^-126 = 0.5 * 2^-125)
        bits = 8 if e >= e_min else max(0, 8 - (e_min - e))
        scaled = m * 2.0 ** bits  # exact
        r = math.floor(scaled)
        frac = scaled - r
        if frac > 0.5 or (frac == 0.5 and r % 2 == 1):
            r += 1
        value = math.copysign(math.ldexp(r, e - bits), v)
        out[i] = np.array(value, np.float32).view(np.uint32) >> 16 if abs(value) < 2.0 ** 128 else \
            (0xFF80 if value < 0 else 0x7F80)
    return out


def reference(values, name):
    """complex128 values rounded once per part into complex32/bcomplex32 codes."""
    z = np.asarray(values, np.complex128)
    if name == "complex32":
        with np.errstate(all="ignore"):
            re = z.real.astype(np.float16).view(np.uint16)
            im = z.imag.astype(np.float16).view(np.uint16)
    else:
        re, im = bf16_round(z.real), bf16_round(z.imag)
    return np.stack([re, im], axis=-1)


def codes(arr):
    return arr[..., np.newaxis].view(np.uint16)


def same(got, want, name="complex32"):
    """Equal codes, NaN parts compared as NaN (their payloads are NumPy's business)."""
    got, want = np.asarray(got).reshape(-1), np.asarray(want).reshape(-1)
    assert got.shape == want.shape
    nan_from = 0x7C00 if name == "complex32" else 0x7F80
    is_nan = lambda c: (c & 0x7FFF) > nan_from  # noqa: E731
    bad = [(hex(g), hex(w)) for g, w in zip(got.tolist(), want.tolist()) if g != w and not (is_nan(g) and is_nan(w))]
    assert not bad, bad[:10]


NAMES = ["complex32", "bcomplex32"]
SPECIALS = [0.0, -0.0, 1.0, -2.5, 0.1, 65504.0, 1e-7, np.inf, -np.inf, np.nan, 3.0e38]


def sample(name, n=400, seed=0):
    rng = np.random.default_rng(seed)
    scale = 30 if name == "complex32" else 1e6
    z = (rng.standard_normal(n) + 1j * rng.standard_normal(n)) * scale
    s = np.array([complex(a, b) for a in SPECIALS for b in SPECIALS])
    return np.concatenate([z, s]).astype(np.complex128).astype(getattr(mf, name))


@pytest.mark.parametrize("name", NAMES)
def test_dtype_facts(name):
    t = getattr(mf, name)
    d = np.dtype(t)
    assert (d.kind, d.itemsize, d.alignment, d.name) == ("c", 4, 2, name)
    assert issubclass(t, np.complexfloating) and t.dtype == d
    assert np.dtype(d.str) == d
    assert np.iscomplexobj(np.zeros(2, t))


@pytest.mark.parametrize("name", NAMES)
def test_cast_from_complex128_rounds_each_part_once(name):
    z = np.array([complex(a, b) for a in SPECIALS for b in SPECIALS] + [1 + 2 ** -11 + 2 ** -40, 0.1 + 0.3j])
    with np.errstate(all="ignore"):
        got = codes(z.astype(getattr(mf, name)))
    same(got, reference(z, name), name)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "true_divide", "power", "maximum", "minimum"])
def test_binary_ufuncs_against_complex128(name, op):
    a, b = sample(name, seed=1), sample(name, seed=2)[::-1].copy()
    with np.errstate(all="ignore"):
        got = codes(getattr(np, op)(a, b))
        want = reference(getattr(np, op)(a.astype(np.complex128), b.astype(np.complex128)), name)
    same(got, want, name)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("op", ["sqrt", "exp", "log", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh",
                                "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "reciprocal", "square", "sign",
                                "negative", "positive", "conjugate"])
def test_unary_ufuncs_against_complex128(name, op):
    a = sample(name, seed=3)
    with np.errstate(all="ignore"):
        got = codes(getattr(np, op)(a))
        want = reference(getattr(np, op)(a.astype(np.complex128)), name)
    same(got, want, name)


@pytest.mark.parametrize("name", NAMES)
def test_absolute_and_predicates(name):
    a = sample(name, seed=4)
    part = np.float16 if name == "complex32" else mf.bfloat16
    with np.errstate(all="ignore"):
        r = np.abs(a)
        assert r.dtype == np.dtype(part)
        want = np.abs(a.astype(np.complex128))
        if name == "complex32":
            np.testing.assert_array_equal(r.view(np.uint16), want.astype(np.float16).view(np.uint16))
        else:
            same(r.view(np.uint16), bf16_round(want), name)
    for f in (np.isnan, np.isinf, np.isfinite):
        np.testing.assert_array_equal(f(a), f(a.astype(np.complex128)))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("op", ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"])
def test_comparisons_lexicographic(name, op):
    a, b = sample(name, seed=5), sample(name, seed=5)[::-1].copy()
    np.testing.assert_array_equal(getattr(np, op)(a, b), getattr(np, op)(a.astype(np.complex128),
                                                                         b.astype(np.complex128)))


@pytest.mark.parametrize("name", NAMES)
def test_sort_argsort_argmax_as_complex64(name):
    a = sample(name, seed=6)
    wide = a.astype(np.complex64)
    np.testing.assert_array_equal(np.sort(a).astype(np.complex64), np.sort(wide))
    np.testing.assert_array_equal(a[np.argsort(a, kind="stable")].astype(np.complex64), np.sort(wide))
    assert np.argmax(a) == np.argmax(wide) and np.argmin(a) == np.argmin(wide)


@pytest.mark.parametrize("name", NAMES)
def test_sum_accumulates_in_complex64(name):
    t = getattr(mf, name)
    ones = np.ones(3000, t)
    # rounded per step it would stop at 2048 (float16) / 256 (bfloat16)
    assert complex(ones.sum()) == complex(np.complex128(3000).astype(t))
    x = np.array([1 + 1j] * 10, t)
    assert complex(x.prod()) == complex(np.prod(x.astype(np.complex64)))
    assert np.cumsum(x)[-1] == 10 + 10j


@pytest.mark.parametrize("name", NAMES)
def test_promotion(name):
    t = getattr(mf, name)
    assert np.result_type(t, np.float32) == np.complex64
    assert np.result_type(t, mf.bfloat16) == (np.dtype(t) if name == "bcomplex32" else np.complex64)
    assert np.result_type(t, np.float16) == (np.dtype(t) if name == "complex32" else np.complex64)
    assert np.result_type(t, np.int8) == np.dtype(t) and np.result_type(t, np.int16) == np.complex64
    assert np.result_type(mf.complex32, mf.bcomplex32) == np.complex64
    assert np.result_type(t, np.complex128) == np.complex128
    assert np.can_cast(t, np.complex64) and not np.can_cast(np.complex64, t)


@pytest.mark.parametrize("name", NAMES)
def test_scalars(name):
    t = getattr(mf, name)
    x = t(1 + 2j)
    assert complex(x * 2) == 2 + 4j and type(x * 2) is t
    assert x == 1 + 2j and x != 1 - 2j
    assert complex(x) == 1 + 2j and float(x.real) == 1 and float(x.imag) == 2
    with pytest.warns(np.exceptions.ComplexWarning):
        assert float(x) == 1.0
    assert pickle.loads(pickle.dumps(x)) == x
    assert str(t(2j)) == "2j" and str(t(1 - 2j)) == "(1-2j)"


@pytest.mark.parametrize("name", NAMES)
def test_complex_to_real_warns_and_keeps_real_part(name):
    a = np.array([1.5 + 2j], getattr(mf, name))
    with pytest.warns(np.exceptions.ComplexWarning):
        assert a.astype(np.float32)[0] == 1.5


@pytest.mark.parametrize("name", NAMES)
def test_mf_real_imag_views(name):
    a = sample(name, n=10)
    r, i = mf.real(a), mf.imag(a)
    assert np.shares_memory(r, a) and np.shares_memory(i, a)
    np.testing.assert_array_equal(codes(a)[..., 0], r.view(np.uint16))
    np.testing.assert_array_equal(codes(a)[..., 1], i.view(np.uint16))


@pytest.mark.xfail(strict=True,
                   reason="ndarray.real/.imag and np.finfo know only NumPy's own complex types: NumPy 2.4 has "
                          "no hook; numpy/numpy#30984 (NumPy 2.5) adds the real/imag ufuncs this package "
                          "registers loops on, but NumPy 2.5.5's attribute does not use a new-style DType's "
                          "loops (gh-1740); mf.real/mf.imag are the views")
def test_real_attribute_is_the_real_part():
    a = np.array([1 + 2j], mf.complex32)
    assert a.real.dtype == np.float16 and float(a.real[0]) == 1.0
    assert np.finfo(mf.complex32).dtype == np.float16


def test_einsum_and_matmul_in_complex64():
    a = np.array([[1 + 1j, 2 - 1j], [0.5j, 3]], mf.complex32)
    want = (a.astype(np.complex64) @ a.astype(np.complex64)).astype(mf.complex32)
    np.testing.assert_array_equal(codes(a @ a), codes(want))
    np.testing.assert_array_equal(codes(np.einsum("ij,jk->ik", a, a)), codes(want))


def test_fft_takes_complex32_as_complex64():
    a = np.array([1 + 1j, 2, 3j, -1], mf.complex32)
    np.testing.assert_array_equal(np.fft.fft(a), np.fft.fft(a.astype(np.complex64)))


def test_ml_dtypes_views_and_casts():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    a = sample("complex32", n=20)
    theirs = a.view(ml_dtypes.complex32)
    np.testing.assert_array_equal(codes(theirs.view(mf.complex32)), codes(a))
    np.testing.assert_array_equal(codes(theirs.astype(mf.complex32)), codes(a))
    np.testing.assert_array_equal(a.astype(ml_dtypes.complex32).view(np.uint32), a.view(np.uint32))


@pytest.mark.parametrize("name", NAMES)
def test_text_and_pickle_round_trip(name):
    a = sample(name, n=20)
    back = a.astype(str).astype(getattr(mf, name))
    ok = ~np.isnan(a.astype(np.complex64))
    np.testing.assert_array_equal(codes(back)[ok], codes(a)[ok])
    np.testing.assert_array_equal(codes(pickle.loads(pickle.dumps(a))), codes(a))


# --------------------------------------------------------------------------
# mf.patch_numpy() for the complex types (real/imag/angle/iscomplex/isreal/
# real_if_close, vdot, printing), and what stays NumPy's without it
# --------------------------------------------------------------------------

NUMPY_2_5 = np.lib.NumpyVersion(np.__version__) >= "2.5.0"
COMPLEX_TYPES = [pytest.param(mf.complex32, np.float16, id="complex32"),
                 pytest.param(mf.bcomplex32, mf.bfloat16, id="bcomplex32")]


@pytest.fixture
def patched():
    mf.patch_numpy()
    try:
        yield
    finally:
        mf.unpatch_numpy()


def _parts(values, T):
    a = np.array(values, np.complex128).astype(T)
    codes = a[..., None].view(np.uint16)
    return a, codes[..., 0], codes[..., 1]


@pytest.mark.parametrize("T, part", COMPLEX_TYPES)
def test_patched_real_imag_angle_iscomplex_isreal(patched, T, part):
    a, re_codes, im_codes = _parts([1 + 2j, 3.5 - 4j, 0.25j, 2, complex(np.nan, 1), -0.0], T)
    re, im = np.real(a), np.imag(a)
    assert re.dtype == part and im.dtype == part
    assert np.shares_memory(re, a) and np.shares_memory(im, a)
    assert re.view(np.uint16).tolist() == re_codes.tolist()
    assert im.view(np.uint16).tolist() == im_codes.tolist()
    s = np.real(a[1])
    assert type(s) is np.dtype(part).type and float(s) == 3.5 and float(np.imag(a[1])) == -4
    # angle: arctan2 of the parts in the part type (what NumPy's angle of complex64 is in float32)
    with np.errstate(invalid="ignore"):
        want = np.arctan2(im, re)
        got = np.angle(a)
    assert got.dtype == part
    assert got.view(np.uint16).tolist() == want.view(np.uint16).tolist()
    assert np.angle(a, deg=True).dtype == part
    assert np.iscomplex(a).tolist() == [True, True, True, False, True, False]
    assert np.isreal(a).tolist() == [False, False, False, True, False, True]
    assert np.iscomplex(a[0]) is np.True_ and np.isreal(a[3]) is np.True_
    close = np.real_if_close(a[3:4])
    assert close.dtype == part and float(close[0]) == 2
    assert np.real_if_close(a).dtype == np.dtype(T)
    # NumPy's own types keep NumPy's answers
    z = np.array([1 + 2j, 3], np.complex64)
    assert np.real(z).dtype == np.float32 and np.iscomplex(z).tolist() == [True, False]
    assert np.real_if_close(np.array([1 + 1e-15j])).dtype == np.float64


@pytest.mark.parametrize("T, part", COMPLEX_TYPES)
def test_patched_printing_is_complex64s_layout(patched, T, part):
    values = [1 + 2j, 3.5 - 4j, 0.25j, complex(np.nan, np.inf), -0.0 - 1e-3j]
    a = np.array(values).astype(T)
    # every value here is exact in both part types but -1e-3 (bfloat16 and
    # float16 both print it as -1e-03): the layout is complex64's
    want = np.array(values, np.complex64)
    assert str(a) == str(want)
    assert repr(a) == repr(want).replace("complex64", np.dtype(T).name)
    assert str(np.array([[1 + 1j, 2], [3, 4j]]).astype(T)) == "[[1.+1.j 2.+0.j]\n [3.+0.j 0.+4.j]]"
    # a user's complex formatter wins
    assert np.array2string(a[:2], formatter={"complexfloat": lambda x: "z"}) == "[z z]"


def test_unpatched_printing_on_numpy_2_4_raises_2_5_prints_str():
    a = np.array([1 + 2j, 0.25j]).astype(mf.complex32)
    if NUMPY_2_5:
        assert str(a) == "[(1+2j) 0.25j]"
    else:
        with pytest.raises(KeyError):
            str(a)


@pytest.mark.parametrize("T, part", COMPLEX_TYPES)
def test_patched_vdot_conjugates(patched, T, part):
    a = np.array([1j, 2 + 1j]).astype(T)
    b = np.array([1j, 1 - 1j]).astype(T)
    r = np.vdot(a, b)
    assert np.asarray(r).dtype == np.dtype(T)
    assert complex(r) == complex(np.vdot(np.array([1j, 2 + 1j]), np.array([1j, 1 - 1j])))
    assert complex(np.dot(a, b)) == complex(np.dot(np.array([1j, 2 + 1j]), np.array([1j, 1 - 1j])))
    assert complex(np.inner(a, b)) == complex(np.dot(a, b))


@pytest.mark.skipif(not NUMPY_2_5, reason="NumPy 2.4's np.vdot refuses new-style DTypes (TypeError)")
@pytest.mark.xfail(strict=True, reason="numpy/numpy#31574: NumPy 2.5's np.vdot conjugates only NumPy's own complex "
                                       "types and hands other DTypes to their dot slot, shared with np.dot, so it "
                                       "cannot conjugate; mf.patch_numpy() makes vdot right")
def test_unpatched_vdot_conjugates_on_numpy_2_5():
    a = np.array([1j]).astype(mf.complex32)
    assert complex(np.vdot(a, a)) == 1


@pytest.mark.parametrize("T, part", COMPLEX_TYPES)
def test_patched_inverse_fft(patched, T, part):
    z = np.array([1 + 2j, 3 - 1j, 0.5j, 2])
    a = z.astype(T)
    got = np.fft.ifft(a)
    assert got.dtype == np.dtype(T)
    want = np.fft.ifft(a.astype(np.complex64)).astype(T)
    assert got[..., None].view(np.uint16).tolist() == want[..., None].view(np.uint16).tolist()


def test_dlpack_bcomplex32_says_why():
    with pytest.raises(BufferError, match="no DLPack type"):
        mf.to_dlpack(np.zeros(3, mf.bcomplex32)).__dlpack__(max_version=(1, 1))
    back = mf.from_dlpack(mf.to_dlpack(np.array([1 + 2j]).astype(mf.complex32)))
    assert back.dtype == np.dtype(mf.complex32) and complex(back[0]) == 1 + 2j


@pytest.mark.parametrize("T, part", COMPLEX_TYPES)
def test_save_load_fortran_order_and_np_load(T, part, tmp_path):
    a = np.asfortranarray((np.arange(12).reshape(3, 4) * (1 - 0.5j)).astype(T))
    mf.save(tmp_path / "f.npy", a)
    back = mf.load(tmp_path / "f.npy")
    assert back.dtype == a.dtype and back.shape == a.shape
    assert (back[..., None].view(np.uint16) == a[..., None].view(np.uint16)).all()
    codes = np.load(tmp_path / "f.npy", allow_pickle=False)  # the (real, imag) part codes
    assert codes.dtype == np.uint16 and codes.shape == (3, 4, 2)
    assert (codes == np.ascontiguousarray(a)[..., None].view(np.uint16)).all()
    mapped = mf.load(tmp_path / "f.npy", mmap_mode="r")
    assert complex(mapped[2, 3]) == complex(a[2, 3])


# --------------------------------------------------------------------------
# casts with minifloat's sub-byte integers and with mf.float_format formats
# --------------------------------------------------------------------------

@pytest.mark.parametrize("T, part", COMPLEX_TYPES)
@pytest.mark.parametrize("name", ["int1", "int2", "int4", "uint1", "uint2", "uint4"])
def test_sub_byte_integers_into_and_out_of_complex(T, part, name):
    I = getattr(mf, name)
    info = mf.iinfo(I)
    values = np.arange(info.min, info.max + 1)
    ints = values.astype(I)
    z = ints.astype(T)
    assert np.can_cast(I, T) and np.result_type(I, T) == np.dtype(T)
    codes = z[..., None].view(np.uint16)
    assert codes[:, 0].tolist() == values.astype(part).view(np.uint16).tolist()  # exact in the part
    assert (codes[:, 1] & 0x7FFF).tolist() == [0] * len(values)
    with pytest.warns(np.exceptions.ComplexWarning):
        back = (z + np.array(0.5j).astype(T)).astype(I)
    assert back.astype(np.int64).tolist() == values.tolist()
    # truncation toward zero; out of range and NaN give 0 with "invalid", as float -> these types
    parts = np.array([info.max + 0.75, info.min - 0.5, np.nan]).astype(part)
    src = (parts.astype(np.complex128)).astype(T)
    with pytest.warns(np.exceptions.ComplexWarning), np.errstate(invalid="raise"):
        with pytest.raises(FloatingPointError):
            src.astype(I)
    with pytest.warns(np.exceptions.ComplexWarning), np.errstate(invalid="ignore"):
        got = src.astype(I).astype(np.int64).tolist()
    want = [int(v) if info.min - 1 < v < info.max + 1 else 0 for v in parts.astype(np.float64)[:2]] + [0]
    assert got == want


@pytest.mark.parametrize("T, part", COMPLEX_TYPES)
def test_run_time_formats_into_and_out_of_complex(T, part):
    f = mf.float_format(exponent_bits=3, mantissa_bits=2, name="complex_test_e3m2")
    values = np.arange(64, dtype=np.uint8).view(f)  # every code of the 6-bit format
    z = values.astype(T)
    exact = values.astype(np.float64)
    got = z[..., None].view(np.uint16)
    finite = ~np.isnan(exact)
    assert got[finite, 0].tolist() == exact[finite].astype(part).view(np.uint16).tolist()
    assert np.isnan(z[~finite].astype(np.complex128).real).all()
    assert np.can_cast(f, T) and np.result_type(f, T) == np.dtype(T)
    wide = mf.float_format(exponent_bits=6, mantissa_bits=3, name="complex_test_e6m3")
    assert np.can_cast(wide, T) == (T is mf.bcomplex32)
    with pytest.warns(np.exceptions.ComplexWarning):
        back = np.array([1.5 + 1j, 0.3]).astype(T).astype(f)
    # 0.3 as the part type, then rounded once into e3m2 (spacing 1/16 there: 0.3125)
    assert back.astype(np.float64).tolist() == [1.5, 0.3125]
