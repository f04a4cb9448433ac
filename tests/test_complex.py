"""complex32 (two float16) and bcomplex32 (two bfloat16), issue 27 item 1.

Every expected result comes from tests/complex_reference.py (exact decode,
NumPy's complex128 operation, each part rounded once by integer code written
there) or tests/reference.py (the minifloat formats), never from minifloat
or ml_dtypes. NaN results are compared as NaN (any payload; casts also keep
the sign), everything else bit for bit.

Samples: every one of the 65536 codes of a part, as real part with a sample
of imaginary parts and the other way round (casts); all 90000 pairs of 300
codes per part, every special (+-0, +-inf, NaN, max, min normal, min
subnormal, ...) in either part among them (unary ufuncs); all pairs of 800
complex operands, the 169 special x special values among them (binary ufuncs
and comparisons).
"""

import functools
import math
import operator
import pickle
import warnings
import zlib
from fractions import Fraction

import numpy as np
import pytest

import complex_reference as C
from kernel_sets import kernels
import reference as R

KINDS = C.COMPLEX_NAMES
EACH = pytest.mark.parametrize("kind", KINDS)
NUMPY_2_5 = np.lib.NumpyVersion(np.__version__) >= "2.5.0"
ComplexWarning = np.exceptions.ComplexWarning

# NumPy 2.4 hard-codes ndarray.real/.imag to its three complex types: for
# any other dtype .real returns the array itself and .imag zeros, and
# np.real/np.imag/np.angle/np.iscomplex inherit that. numpy/numpy#30984
# (closing numpy/numpy#1740) adds real/imag ufuncs in NumPy 2.5, but 2.5.5's
# attribute does not reach a new-style DType's loops (the implementer's
# finding, documented in mf.complex32's docstring): mf.real/mf.imag are the
# views on every version.
NEEDS_REAL_HOOK = pytest.mark.xfail(
    strict=True,
    reason="numpy/numpy#1740: ndarray.real/.imag only know NumPy's own complex types (NumPy 2.4 has no "
           "hook; numpy/numpy#30984's NumPy 2.5 ufuncs do not reach a new-style DType in 2.5.5); "
           "use mf.real/mf.imag")
# np.finfo of a complex type: a table of NumPy's own types (NumPy 2.4), or
# arr.imag's dtype (NumPy 2.5, numpy/numpy#31563), which needs the above.
NEEDS_FINFO_HOOK = pytest.mark.xfail(
    strict=True,
    reason="numpy/numpy#27231: np.finfo knows only NumPy's own complex types (NumPy 2.5's numpy/numpy#31563 "
           "goes through arr.imag, numpy/numpy#1740); use mf.finfo")


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def ctype(mf, kind):
    return getattr(mf, kind)


def cdtype(mf, kind):
    return np.dtype(getattr(mf, kind))


def part_dtype(mf, kind):
    return np.dtype(np.float16) if kind == "complex32" else np.dtype(mf.bfloat16)


def make(mf, kind, pairs):
    """(..., 2) uint16 code pairs -> a complex32/bcomplex32 array (a view)."""
    pairs = np.ascontiguousarray(pairs, dtype=np.uint16)
    return pairs.view(cdtype(mf, kind))[..., 0]


def codes(arr):
    """complex32/bcomplex32 array -> (..., 2) uint16 code pairs."""
    a = np.asarray(arr)
    flat = np.ascontiguousarray(a.reshape(-1))
    return flat.view(np.uint16).reshape(a.shape + (2,))


def part_codes(arr):
    a = np.asarray(arr)
    return np.ascontiguousarray(a.reshape(-1)).view(np.uint16).reshape(a.shape)


def quietly(fn, *args, **kwargs):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def describe(kind, pairs):
    z = C.decode(kind, pairs)
    return [complex(v) for v in np.atleast_1d(z)]


def assert_pairs(kind, got, exp, label, operands=(), nan_sign=False):
    """got/exp: (..., 2) code pairs; NaN parts compared as NaN."""
    got, exp = np.asarray(got, np.uint16), np.asarray(exp, np.uint16)
    assert got.shape == exp.shape, (label, got.shape, exp.shape)
    ok = C.same_codes(kind, got, exp, nan_sign=nan_sign).all(axis=-1)
    bad = np.flatnonzero(~ok.reshape(-1))
    if bad.size:
        g, e = got.reshape(-1, 2), exp.reshape(-1, 2)
        rows = []
        for i in bad[:6]:
            ops = [describe(kind, o.reshape(-1, 2)[i]) for o in operands]
            rows.append(f"operands {ops}: expected {describe(kind, e[i])} {[hex(c) for c in e[i]]}, "
                        f"got {describe(kind, g[i])} {[hex(c) for c in g[i]]}")
        pytest.fail(f"{kind} {label}: {bad.size} of {ok.size} differ:\n" + "\n".join(rows))


def assert_part_codes(kind, got, exp, label, nan_sign=False):
    got, exp = np.asarray(got, np.uint16).reshape(-1), np.asarray(exp, np.uint16).reshape(-1)
    assert got.shape == exp.shape, (label, got.shape, exp.shape)
    ok = C.same_codes(kind, got, exp, nan_sign=nan_sign)
    bad = np.flatnonzero(~ok)
    assert bad.size == 0, (f"{kind} {label}: {bad.size} of {ok.size} differ; (index, expected, got): "
                           + str([(int(i), hex(int(exp[i])), hex(int(got[i]))) for i in bad[:8]]))


@functools.lru_cache(maxsize=None)
def unary_sample(kind):
    """All 90000 pairs of 300 codes (every special among them)."""
    c = C.sample_codes(kind, 300, seed=27)
    re, im = np.meshgrid(c, c, indexing="ij")
    return C.pair_codes(re.reshape(-1), im.reshape(-1))


def _core_specials(kind):
    p = C.part_of(kind)
    mags = [0, p.inf_code, p.quiet_nan_code, p.max_code, p.min_normal_code, 1, (1 - p.emin) << p.mbits]
    out = sorted({m | s for m in mags for s in (0, C.SIGN)} - {p.quiet_nan_code | C.SIGN})
    return np.array(out, np.uint16)  # 13 codes: +-0, +-inf, NaN, +-max, +-min normal, +-min subnormal, +-1


@functools.lru_cache(maxsize=None)
def binary_sample(kind):
    """(x, y): all ordered pairs of 800 complex values: the 169 special x
    special values (13 specials per part) and 631 random values whose parts
    come from the 300-code sample (640000 pairs)."""
    sp = _core_specials(kind)
    re, im = np.meshgrid(sp, sp, indexing="ij")
    special_values = C.pair_codes(re.reshape(-1), im.reshape(-1))
    rng = np.random.default_rng(2027)
    c = C.sample_codes(kind, 300, seed=27)
    n_random = 800 - len(special_values)
    rand_values = C.pair_codes(rng.choice(c, n_random), rng.choice(c, n_random))
    values = np.concatenate([special_values, rand_values])
    i, j = np.meshgrid(np.arange(len(values)), np.arange(len(values)), indexing="ij")
    return values[i.reshape(-1)], values[j.reshape(-1)]


# --------------------------------------------------------------------------
# The reference itself (runs without the extension)
# --------------------------------------------------------------------------


@EACH
def test_reference_decodes_every_code(kind):
    C.check_decode(kind)


@EACH
def test_reference_encodes_every_code_and_midpoint(kind):
    C.check_encode_every_code_and_midpoint(kind)


def test_reference_float16_encoder_matches_numpys_single_rounding():
    C.check_against_numpy()


def test_reference_bfloat16_agrees_with_the_format_reference():
    """Two independent bfloat16 references agree: complex_reference's
    integer encoder and reference.py's (Fraction-checked) on float64 values
    around every bfloat16 value and midpoint."""
    codes = np.arange(0x7F80, dtype=np.uint16)
    v = C.decode_part("bcomplex32", codes)
    assert np.array_equal(v, R.decode_array("bfloat16", codes))
    mids = (v[:-1] + v[1:]) / 2
    x = np.concatenate([v, mids, np.nextafter(mids, 0), np.nextafter(mids, np.inf), -mids, [1e39, -1e39]])
    assert np.array_equal(C.encode_part("bcomplex32", x), R.encode_array("bfloat16", x)[0])


# --------------------------------------------------------------------------
# dtype properties and bit layout
# --------------------------------------------------------------------------


@EACH
def test_dtype_properties(mf, kind):
    T = ctype(mf, kind)
    dt = np.dtype(T)
    assert dt.kind == "c"
    assert dt.itemsize == 4
    assert dt.type is T
    assert dt.name == kind
    assert issubclass(T, np.complexfloating)
    assert issubclass(T, np.inexact) and issubclass(T, np.number)
    assert np.issubdtype(dt, np.complexfloating)
    assert T.dtype == dt and np.dtype(T.dtype) == dt  # mf.complex32.dtype
    assert np.dtype(T) == np.dtype(dt)
    arr = np.zeros(3, dt)
    assert np.iscomplexobj(arr) and not np.isrealobj(arr)
    assert np.iscomplexobj(T(1 + 2j))
    assert isinstance(T(1 + 2j), np.complexfloating)
    assert pickle.loads(pickle.dumps(dt)) == dt


def _check_part_finfo(kind, fi, part):
    assert fi.dtype == part
    p = C.part_of(kind)
    assert Fraction(float(fi.eps)) == Fraction(2) ** (1 - p.p)
    assert Fraction(float(fi.max)) == p.max
    assert Fraction(float(fi.smallest_normal)) == Fraction(2) ** p.emin
    assert Fraction(float(fi.smallest_subnormal)) == p.smallest_subnormal
    assert fi.bits == 16


@EACH
def test_mf_finfo_is_the_part_format(mf, kind):
    """mf.finfo of a complex type describes its float part, as np.finfo does
    for complex64."""
    part = part_dtype(mf, kind)
    for arg in (ctype(mf, kind), cdtype(mf, kind), np.zeros(2, cdtype(mf, kind)), ctype(mf, kind)(1j)):
        _check_part_finfo(kind, mf.finfo(arg), part)


@EACH
@NEEDS_FINFO_HOOK
def test_np_finfo_is_the_part_format(mf, kind):
    part = part_dtype(mf, kind)
    _check_part_finfo(kind, np.finfo(ctype(mf, kind)), part)
    _check_part_finfo(kind, np.finfo(np.zeros(2, cdtype(mf, kind))), part)


@EACH
def test_bit_layout_real_part_first(mf, kind):
    one, two, mone = {"complex32": (0x3C00, 0x4000, 0xBC00), "bcomplex32": (0x3F80, 0x4000, 0xBF80)}[kind]
    arr = np.array([1 + 2j, -1 + 0j, 2j], dtype=cdtype(mf, kind))
    assert arr.view(np.uint16).tolist() == [one, two, mone, 0, 0, two]
    # native byte order: the bytes are the two uint16 codes as the machine stores them
    assert arr.tobytes() == np.array([one, two, mone, 0, 0, two], np.uint16).tobytes()
    # and codes viewed as the type read back as their values
    back = make(mf, kind, C.pair_codes([one, mone], [two, one]))
    assert back.tolist() == [1 + 2j, -1 + 1j]


@EACH
def test_items_are_python_complex_and_indexing_gives_scalars(mf, kind):
    """As NumPy's complex64: tolist(), item() and astype(object) give Python
    complex numbers (each part exact), indexing and iteration the type's
    scalars."""
    T = ctype(mf, kind)
    values = [1.5 - 2.25j, -0.0 + 0j, complex(np.inf, -1), 3e-5 + 4j]
    arr = np.array(values, dtype=cdtype(mf, kind))
    exact = [complex(T(v)) for v in values]
    assert arr.tolist() == exact and all(type(v) is complex for v in arr.tolist())
    assert type(arr.item(0)) is complex and arr.item(3) == exact[3]
    assert type(arr.astype(object)[0]) is complex and arr.astype(object).tolist() == exact
    assert [type(x) for x in arr] == [T] * 4 and [complex(x) for x in arr] == exact
    assert type(arr[1]) is T and type(T(1j).item()) is complex


@EACH
def test_scalar_parts(mf, kind):
    T = ctype(mf, kind)
    z = T(1.5 - 2.25j)
    assert complex(z) == 1.5 - 2.25j
    assert type(z.real) is part_dtype(mf, kind).type and type(z.imag) is part_dtype(mf, kind).type
    assert float(z.real) == 1.5 and float(z.imag) == -2.25
    assert np.array(z).dtype == np.dtype(T)
    assert complex(T(3)) == 3 + 0j
    assert complex(T("1+2j")) == 1 + 2j


# --------------------------------------------------------------------------
# Casts into complex32/bcomplex32
# --------------------------------------------------------------------------


def _every_code_with_imag_sample(kind, swap=False):
    """All 65536 codes as real parts, each with an imaginary part from the
    specials (cycled), and (swap) the other way round."""
    allc = C.all_codes()
    sp = np.array(C.special_codes(kind), np.uint16)
    other = sp[np.arange(allc.size) % sp.size]
    return C.pair_codes(other, allc) if swap else C.pair_codes(allc, other)


@EACH
@pytest.mark.parametrize("swap", [False, True], ids=["all-real", "all-imag"])
@pytest.mark.parametrize("src", ["complex64", "complex128", "clongdouble"])
def test_cast_from_numpy_complex_every_code(mf, kind, swap, src):
    """A complex64/complex128/clongdouble holding a code's value comes back
    as that code (NaN: NaN of the same sign), every code in either part."""
    pairs = _every_code_with_imag_sample(kind, swap)
    z = C.decode(kind, pairs).astype(src)  # exact: every part value is a float32
    got = codes(quietly(z.astype, cdtype(mf, kind)))
    assert_pairs(kind, got, pairs, f"{src} -> {kind}", nan_sign=True)


@EACH
@pytest.mark.parametrize("src", ["float16", "bfloat16"])
def test_cast_from_part_formats_every_code(mf, kind, src):
    """float16 / bfloat16 (every code) -> real part rounded once, imag +0."""
    allc = C.all_codes()
    skind = "complex32" if src == "float16" else "bcomplex32"
    x = allc.view(np.float16) if src == "float16" else allc.view(mf.bfloat16)
    got = codes(quietly(x.astype, cdtype(mf, kind)))
    exp = C.pair_codes(C.encode_part(kind, C.decode_part(skind, allc)), 0)
    assert_pairs(kind, got, exp, f"{src} -> {kind}", nan_sign=True)
    if skind == kind:  # the same format: the bits (non-NaN) move unchanged
        nan = C.is_nan_code(kind, allc)
        assert np.array_equal(got[~nan, 0], allc[~nan])


@EACH
def test_cast_between_complex32_and_bcomplex32(mf, kind):
    other = "bcomplex32" if kind == "complex32" else "complex32"
    for swap in (False, True):
        pairs = _every_code_with_imag_sample(other, swap)
        src = make(mf, other, pairs)
        got = codes(quietly(src.astype, cdtype(mf, kind)))
        exp = C.encode(kind, C.decode(other, pairs))
        assert_pairs(kind, got, exp, f"{other} -> {kind}", operands=(pairs,), nan_sign=True)


def _float64_sources(rng, n=100_000):
    """float64 values around both part formats: every float16 / bfloat16
    value's midpoint with its neighbour and the float64 / float32 values next
    to it, random values over every exponent that matters, specials."""
    out = []
    for kind in KINDS:
        p = C.part_of(kind)
        pos = np.arange(p.inf_code, dtype=np.uint16)
        v = C.decode_part(kind, pos)
        mids = (v[:-1] + v[1:]) / 2
        top = float(p.max + Fraction(2) ** (p.emax - p.p))  # first value that overflows
        out += [mids, np.nextafter(mids, 0), np.nextafter(mids, np.inf),
                mids.astype(np.float32).astype(np.float64),
                np.nextafter(mids.astype(np.float32), np.float32(0)).astype(np.float64),
                np.nextafter(mids.astype(np.float32), np.float32(np.inf)).astype(np.float64),
                [top, np.nextafter(top, 0), np.nextafter(top, np.inf)]]
    e = rng.integers(-140, 130, n)
    out.append(np.ldexp(rng.random(n) + 0.5, e))
    x = np.concatenate(out)
    x = np.concatenate([x, -x, [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e300, -1e-300, 5e-324]])
    return x


@EACH
@pytest.mark.parametrize("src", ["float32", "float64", "complex64", "complex128"])
def test_cast_from_wide_floats_rounds_once(mf, kind, src):
    """float32/float64 (real part) and complex64/complex128 (both parts)
    sources near every midpoint of the part format round once to nearest
    even, from the exact source."""
    rng = np.random.default_rng(5)
    x = _float64_sources(rng)
    if src in ("float32", "complex64"):
        x = quietly(x.astype, np.float32)
    if src.startswith("complex"):
        y = rng.permutation(x)
        z = np.empty(x.size, src)
        z.real, z.imag = x, y
        exp = C.pair_codes(C.encode_part(kind, x.astype(np.float64)), C.encode_part(kind, y.astype(np.float64)))
        got = codes(quietly(z.astype, cdtype(mf, kind)))
    else:
        exp = C.pair_codes(C.encode_part(kind, x.astype(np.float64)), 0)
        got = codes(quietly(x.astype, cdtype(mf, kind)))
    assert_pairs(kind, got, exp, f"{src} -> {kind}", nan_sign=True)


@EACH
def test_complex128_does_not_pass_through_complex64(mf, kind):
    """The double-rounding trap: x = (a midpoint of the part format) + a bit
    far below float32's precision. complex64 rounds x to the midpoint, which
    then ties to even (down); the exact x is above the midpoint (up)."""
    p = C.part_of(kind)
    half_ulp = 2.0 ** (-p.p)  # half an ulp of the part at 1
    x = 1.0 + half_ulp + 2.0 ** -40  # exact in float64
    assert np.float32(x) == np.float32(1.0 + half_ulp)  # complex64 would lose the 2**-40
    up = (1 - p.emin) << p.mbits | 1  # the code after 1.0
    down_first = 0x3C00 if kind == "complex32" else 0x3F80
    for z in (complex(x, -x), complex(-x, x)):
        src = np.array([z], np.complex128)
        got = codes(src.astype(cdtype(mf, kind)))[0]
        exp = [up | (C.SIGN if z.real < 0 else 0), up | (C.SIGN if z.imag < 0 else 0)]
        assert got.tolist() == exp, (kind, z, [hex(c) for c in got])
        assert (codes(src.astype(np.complex64).astype(cdtype(mf, kind)))[0] & 0x7FFF).tolist() == [down_first] * 2
        # the scalar constructors, np.array from Python numbers and item assignment too
        assert codes(np.array(ctype(mf, kind)(z)))[()].tolist() == exp
        assert codes(np.array(ctype(mf, kind)(np.complex128(z))))[()].tolist() == exp
        assert codes(np.array([z, z], dtype=cdtype(mf, kind)))[1].tolist() == exp
        target = np.zeros(3, cdtype(mf, kind))
        target[1] = z
        target[2] = np.complex128(z)
        assert codes(target)[1:].tolist() == [exp, exp]
    # float64 -> real part likewise
    got = codes(np.array([x, -x]).astype(cdtype(mf, kind)))
    assert got[:, 0].tolist() == [up, up | C.SIGN] and got[:, 1].tolist() == [0, 0]
    # and longdouble / clongdouble, whose values float64 can't hold
    if np.finfo(np.longdouble).nmant > 52:
        xl = np.longdouble(1) + np.longdouble(half_ulp) + np.longdouble(2.0) ** -60
        assert codes(np.array([xl]).astype(cdtype(mf, kind)))[0].tolist() == [up, 0]
        zl = np.array([xl], np.clongdouble) * (1 + 1j)
        assert codes(zl.astype(cdtype(mf, kind)))[0].tolist() == [up, up]


@EACH
def test_cast_from_longdouble_exact(mf, kind):
    """longdouble sources (where wider than float64): ties and near ties
    that float64 can't hold, against the Fraction reference."""
    if np.finfo(np.longdouble).nmant <= 52:
        pytest.skip("longdouble is float64 here")
    p = C.part_of(kind)
    rng = np.random.default_rng(11)
    codes_ = rng.integers(0, p.max_code, 400).astype(np.uint16)
    lo = C.decode_part(kind, codes_).astype(np.longdouble)
    hi = C.decode_part(kind, codes_ + 1).astype(np.longdouble)
    mid = (lo + hi) / 2
    tiny = (hi - lo) * np.longdouble(2.0) ** -58
    x = np.concatenate([mid, mid + tiny, mid - tiny, -(mid + tiny)])
    exp = np.array([C.encode_exact_float(kind, v) for v in x], np.uint16)
    got = codes(x.astype(cdtype(mf, kind)))
    assert_part_codes(kind, got[:, 0], exp, "longdouble")
    assert (got[:, 1] == 0).all()
    z = x.astype(np.clongdouble) * 1j
    got = codes(z.astype(cdtype(mf, kind)))
    assert_part_codes(kind, got[:, 1], exp, "clongdouble imag")


INT_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def _int_sources(dtype):
    info = np.iinfo(dtype)
    if info.bits <= 16:
        return np.arange(info.min, info.max + 1, dtype=np.int64).astype(dtype)
    vals = set()
    for k in range(info.bits):
        for d in range(-3, 4):
            for base in (1 << k, (1 << k) + (1 << max(k - 8, 0)), (1 << k) + (1 << max(k - 11, 0)),
                         (1 << k) + (1 << max(k - 9, 0)), (1 << k) + 3 * (1 << max(k - 12, 0))):
                for v in (base + d, -(base + d)):
                    if info.min <= v <= info.max:
                        vals.add(v)
    for v in (65504, 65519, 65520, 65535, 65536, 2**53 + 1, 2**62 + 2**54 + 1, 2**63 - 1,
              2**62 + 2**54, 2**62 + 2**51 + 1, info.min, info.max):
        for s in (v, -v):
            if info.min <= s <= info.max:
                vals.add(s)
    rng = np.random.default_rng(info.bits)
    vals.update(int(v) for v in rng.integers(info.min, info.max, 2000, dtype=dtype, endpoint=True))
    return np.array(sorted(vals), dtype=dtype)


@EACH
@pytest.mark.parametrize("src", INT_TYPES + [np.bool_], ids=lambda t: np.dtype(t).name)
def test_cast_from_integers_rounds_once(mf, kind, src):
    """Every 8/16-bit integer, and boundary/tie/random values of the 32/64-bit
    ones (int64 2**62 + 2**54 + 1: float64 would round it to a tie), round
    once from the exact integer; imag +0."""
    if src is np.bool_:
        x = np.array([False, True])
        exp = np.array([0, (1 - C.part_of(kind).emin) << C.part_of(kind).mbits], np.uint16)
    else:
        x = _int_sources(src)
        exp = np.array([C.encode_int(kind, int(v)) for v in x.tolist()], np.uint16) if x.size <= 20000 else \
            C.encode_part(kind, x.astype(np.float64))  # <= 16-bit ints: float64 holds them exactly
    got = codes(quietly(x.astype, cdtype(mf, kind)))
    assert_part_codes(kind, got[:, 0], exp, f"{np.dtype(src).name} -> {kind}")
    assert (got[:, 1] == 0).all()


@EACH
def test_cast_from_every_minifloat_format(mf, kind):
    """Every code of every minifloat float format (P3109 included) -> the real
    part, rounded once; imag +0."""
    for name in R.FORMAT_NAMES:
        allc = R.all_codes(name)
        x = allc.view(getattr(mf, name))
        with np.errstate(all="ignore"):
            vals = R.decode_array(name, allc)
            exp = C.pair_codes(C.encode_part(kind, vals), 0)
            got = codes(x.astype(cdtype(mf, kind)))
        assert_pairs(kind, got, exp, f"{name} -> {kind}", nan_sign=name not in ("float8_e8m0fnu",))


# --------------------------------------------------------------------------
# Casts out of complex32/bcomplex32
# --------------------------------------------------------------------------


@EACH
@pytest.mark.parametrize("dst", ["complex64", "complex128", "clongdouble"])
def test_cast_to_numpy_complex_exact(mf, kind, dst):
    """Exact widening, every code in either part; no warning, signalling
    NaNs included (NumPy's float16 -> float64 and minifloat's bfloat16 ->
    float64 widen them silently too)."""
    for swap in (False, True):
        pairs = _every_code_with_imag_sample(kind, swap)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = make(mf, kind, pairs).astype(dst)
        exp = C.decode(kind, pairs)
        assert got.dtype == np.dtype(dst)
        for part in ("real", "imag"):
            g, e = quietly(getattr(got, part).astype, np.float64), getattr(exp, part)
            assert np.array_equal(g, e, equal_nan=True)
            assert np.array_equal(np.signbit(g), np.signbit(e))


@EACH
@pytest.mark.parametrize("dst", ["float16", "float32", "float64", "longdouble"])
def test_cast_to_numpy_float_takes_real_part_with_complexwarning(mf, kind, dst):
    pairs = _every_code_with_imag_sample(kind, swap=True)[::7]  # every 7th code as imag, specials as real
    pairs = np.concatenate([pairs, _every_code_with_imag_sample(kind)])
    arr = make(mf, kind, pairs)
    with pytest.warns(ComplexWarning), np.errstate(all="ignore"):
        got = arr.astype(dst)
    assert got.dtype == np.dtype(dst)
    re = C.decode_part(kind, pairs[:, 0])
    if dst == "float16":
        exp = C.encode_part("complex32", re)
        assert_part_codes("complex32", got.view(np.uint16), exp, f"{kind} -> float16", nan_sign=True)
    else:
        g = quietly(got.astype, np.float64)  # exact: float16/bfloat16 values are float32 values
        assert np.array_equal(g, re, equal_nan=True) and np.array_equal(np.signbit(g), np.signbit(re))
    # complex64 does the same (the rule being followed)
    with pytest.warns(ComplexWarning):
        np.zeros(1, np.complex64).astype(dst)


@EACH
def test_cast_to_every_minifloat_format(mf, kind):
    """The real part, rounded once into each format (ComplexWarning); NaN
    real parts give what the part's own cast gives."""
    pairs = np.concatenate([_every_code_with_imag_sample(kind)[::3], _every_code_with_imag_sample(kind, True)[::11]])
    arr = make(mf, kind, pairs)
    part = pairs[:, 0].copy().view(part_dtype(mf, kind))
    re = C.decode_part(kind, pairs[:, 0])
    nan = np.isnan(re)
    for name in R.FORMAT_NAMES:
        F = np.dtype(getattr(mf, name))
        with np.errstate(all="ignore"), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = R.codes_of(arr.astype(F))
            via_part = R.codes_of(part.astype(F))
            exp = R.encode_array(name, re[~nan])[0]
        assert any(issubclass(w.category, ComplexWarning) for w in caught), name
        np.testing.assert_array_equal(got[~nan], exp, err_msg=f"{kind} -> {name}")
        # NaN real parts: a NaN of the format where it has one (any payload),
        # else the code the part's own cast gives
        fmt_nan = np.isnan(R.decode_array(name, via_part[nan]))
        assert np.isnan(R.decode_array(name, got[nan][fmt_nan])).all(), f"{kind} -> {name} (NaN)"
        np.testing.assert_array_equal(got[nan][~fmt_nan], via_part[nan][~fmt_nan], err_msg=f"{kind} -> {name} (NaN)")


@EACH
@pytest.mark.parametrize("dst", INT_TYPES, ids=lambda t: np.dtype(t).name)
def test_cast_to_integers_truncates_real_part(mf, kind, dst):
    info = np.iinfo(dst)
    pairs = unary_sample(kind)
    z = C.decode(kind, pairs)
    re = z.real
    keep = np.isfinite(re) & (re > info.min - 1) & (re < float(info.max) + 1) & np.isfinite(z.imag)
    if info.min == 0:
        keep &= re >= 0
    keep &= np.trunc(re) <= float(info.max)
    pairs, re = pairs[keep], re[keep]
    with pytest.warns(ComplexWarning):
        got = make(mf, kind, pairs).astype(dst)
    exp = np.array([int(math.trunc(v)) for v in re.tolist()], dtype=dst)
    np.testing.assert_array_equal(got, exp)


@EACH
def test_cast_to_bool(mf, kind):
    pairs = unary_sample(kind)
    z = C.decode(kind, pairs)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ComplexWarning)  # complex64 -> bool does not warn either
        got = make(mf, kind, pairs).astype(bool)
    np.testing.assert_array_equal(got, (z.real != 0) | (z.imag != 0))


# --------------------------------------------------------------------------
# str and object
# --------------------------------------------------------------------------


@EACH
def test_cast_from_strings(mf, kind):
    texts = ["1+2j", "(0.1-3j)", "-0.5", "2j", "nan+infj", "-inf-0j", "1e10+1e-10j", "(65504.5+0.33333j)",
             "3.4e38-1e-45j"]
    got = codes(quietly(np.array(texts).astype, cdtype(mf, kind)))
    exp = C.encode(kind, np.array([complex(t) for t in texts]))
    assert_pairs(kind, got, exp, "str -> " + kind, nan_sign=True)
    with pytest.raises((ValueError, TypeError)):
        np.array(["not a number"]).astype(cdtype(mf, kind))
    # bytes too, both ways
    got = codes(quietly(np.array([t.encode() for t in texts]).astype, cdtype(mf, kind)))
    assert_pairs(kind, got, exp, "bytes -> " + kind, nan_sign=True)
    arr = make(mf, kind, exp)
    assert arr.astype("S").tolist() == [str(v).encode() for v in arr]
    # writing NaN and inf as text is no invalid operation (complex64 does not warn)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        arr.astype(str), arr.astype("S")
        np.array([complex(np.nan, np.inf)], np.complex64).astype(str)


@EACH
def test_str_cast_round_trips(mf, kind):
    """astype(str) gives each element's str(), and reading that back gives
    the same bits (NaN: NaN), for every pair of the 300-code sample."""
    pairs = unary_sample(kind)[::7]
    arr = make(mf, kind, pairs)
    text = arr.astype(str)
    assert text.dtype.kind == "U"
    step = max(1, len(arr) // 500)
    for i in range(0, len(arr), step):
        assert text[i] == str(arr[i]), (text[i], str(arr[i]))
    back = codes(quietly(text.astype, cdtype(mf, kind)))
    assert_pairs(kind, back, pairs, "str round trip")


@EACH
def test_object_casts(mf, kind):
    objs = [1 + 2j, 3, 2.5, -0.0, np.complex64(1 - 1j), np.float16(0.1), np.complex128(0.1 + 0.2j), True,
            complex(float("nan"), -1.0), complex(1e300, 0.0)]
    arr = quietly(np.array(objs, dtype=object).astype, cdtype(mf, kind))
    exp = C.encode(kind, np.array([complex(o) for o in objs], np.complex128))
    assert_pairs(kind, codes(arr), exp, "object -> " + kind, nan_sign=True)
    # and back: objects whose complex value is the element's, reading back to the same bits
    pairs = unary_sample(kind)[::97]
    a = make(mf, kind, pairs)
    o = a.astype(object)
    assert o.dtype == object
    z = C.decode(kind, pairs)
    for obj, v in zip(o.tolist(), z.tolist()):
        c = complex(obj)
        for got, want in ((c.real, v.real), (c.imag, v.imag)):
            assert (math.isnan(got) and math.isnan(want)) or (got == want and math.copysign(1, got) == math.copysign(1, want))
    back = codes(quietly(o.astype, cdtype(mf, kind)))
    assert_pairs(kind, back, pairs, "object round trip")
    # np.array of a list of complex32 scalars keeps the type
    assert np.array([ctype(mf, kind)(1 + 1j), ctype(mf, kind)(2)]).dtype == cdtype(mf, kind)


# --------------------------------------------------------------------------
# Warnings in casts, as complex64 / float16 give them
# --------------------------------------------------------------------------


@EACH
def test_overflowing_cast_warns_like_complex64(mf, kind):
    big = 1e300
    with pytest.warns(RuntimeWarning, match="overflow"):
        np.array([big + 1j]).astype(np.complex64)  # the rule: NumPy warns here
    with pytest.warns(RuntimeWarning, match="overflow"):
        got = np.array([big + 1j]).astype(cdtype(mf, kind))
    p = C.part_of(kind)
    assert codes(got)[0].tolist() == [p.inf_code, (1 - p.emin) << p.mbits]
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        np.array([1j * big]).astype(cdtype(mf, kind))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        np.array([big]).astype(cdtype(mf, kind))
    # nothing to warn about: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.array([1 + 2j, np.inf, np.nan]).astype(cdtype(mf, kind))


# --------------------------------------------------------------------------
# can_cast / result_type
# --------------------------------------------------------------------------


def _real_name(mf, t):
    """The float name reference.py knows for a real dtype, or None."""
    dt = np.dtype(t)
    if dt.name in R.FORMATS or dt.name in ("float16", "float32", "float64", "longdouble"):
        return dt.name
    return None


@EACH
def test_can_cast_from_exact_representability(mf, kind):
    T = cdtype(mf, kind)
    part = C.PART_NAME[kind]
    # complex types
    assert np.can_cast(T, np.complex64) and np.can_cast(T, np.complex128) and np.can_cast(T, np.clongdouble)
    assert not np.can_cast(np.complex64, T) and np.can_cast(np.complex64, T, "same_kind")
    assert np.can_cast(T, T) and np.can_cast(T, T, "no") and np.can_cast(T, T, "equiv")
    other = cdtype(mf, "bcomplex32" if kind == "complex32" else "complex32")
    assert not np.can_cast(T, other) and not np.can_cast(other, T)
    assert np.can_cast(T, other, "same_kind")
    # complex -> real is never safe nor same_kind (as complex64 -> float32); unsafe works
    for real in (np.float16, np.float32, np.float64, mf.bfloat16, mf.float8_e4m3fn, np.int8, np.bool_):
        assert not np.can_cast(T, real) and not np.can_cast(T, real, "same_kind")
        assert np.can_cast(T, real, "unsafe")
    # integers and bool: safe when every value fits the part
    p = C.part_of(kind)
    for t in INT_TYPES + [np.bool_]:
        # every integer of magnitude <= 2**p is a value of the part, 2**p + 1 is not
        info = np.iinfo(t) if t is not np.bool_ else None
        fits = info is None or max(-info.min, info.max) <= 2 ** p.p
        assert np.can_cast(t, T) == fits, np.dtype(t).name
        assert np.can_cast(t, T, "same_kind")
    # NumPy floats
    assert np.can_cast(np.float16, T) == (kind == "complex32")
    assert not np.can_cast(np.float32, T) and not np.can_cast(np.float64, T)
    # minifloat formats: safe exactly when the format's values and specials fit the part
    for name in R.FORMAT_NAMES:
        assert np.can_cast(getattr(mf, name), T) == R.safe_cast(name, part), name
        assert np.can_cast(getattr(mf, name), T, "same_kind"), name


@EACH
def test_result_type(mf, kind):
    T = cdtype(mf, kind)
    other = cdtype(mf, "bcomplex32" if kind == "complex32" else "complex32")
    rt = np.result_type
    assert rt(T, T) == T
    assert rt(T, other) == np.complex64  # complex32 + bcomplex32
    assert rt(T, np.float32) == np.complex64  # complex32 + float32
    assert rt(T, np.complex64) == np.complex64
    assert rt(T, np.float64) == np.complex128 and rt(T, np.complex128) == np.complex128
    assert rt(T, np.clongdouble) == np.clongdouble
    assert rt(T, mf.bfloat16) == (T if kind == "bcomplex32" else np.complex64)  # bfloat16 + complex32
    assert rt(T, np.float16) == (T if kind == "complex32" else np.complex64)  # float16 + complex32
    assert rt(T, np.bool_) == T and rt(T, np.int8) == T and rt(T, np.uint8) == T
    assert rt(T, np.int16) == np.complex64 and rt(T, np.uint16) == np.complex64
    assert rt(T, np.int32) == np.complex128 and rt(T, np.int64) == np.complex128
    assert rt(T, np.uint64) == np.complex128
    # minifloat formats: the complex type of the common real type
    complex_of = {"float16": np.dtype(ctype(mf, "complex32")), "bfloat16": np.dtype(ctype(mf, "bcomplex32")),
                  "float32": np.dtype(np.complex64), "float64": np.dtype(np.complex128),
                  "longdouble": np.dtype(np.clongdouble)}
    for name in R.FORMAT_NAMES:
        common = R.common_type(name, C.PART_NAME[kind])
        assert rt(T, getattr(mf, name)) == complex_of.get(common, None), (name, common)
        assert rt(getattr(mf, name), T) == complex_of.get(common, None), (name, common)
    # Python scalars are weak (NEP 50)
    a = np.zeros(2, T)
    assert (a + 1).dtype == T and (a + 1.5).dtype == T and (a + 1j).dtype == T
    assert (a * 2.5j).dtype == T
    assert rt(T, 1j) == T and rt(T, 1.0) == T
    # and with NumPy scalars they are strong
    assert (a + np.complex64(1)).dtype == np.complex64
    assert (a + np.float64(1)).dtype == np.complex128


# --------------------------------------------------------------------------
# Ufuncs on the dense samples
# --------------------------------------------------------------------------

BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide, "power": np.power,
}
COMPARE = {
    "equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
    "greater": np.greater, "greater_equal": np.greater_equal,
}
UNARY = {
    name: getattr(np, name) for name in (
        "negative", "positive", "conjugate", "reciprocal", "square", "sqrt", "exp", "log", "sin", "cos", "tan",
        "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "sign",
        "exp2", "log2", "log10", "expm1", "log1p")
}


@EACH
@pytest.mark.parametrize("op", list(BINARY))
def test_binary_ufunc_every_pair(mf, kind, op):
    fn = BINARY[op]
    x, y = binary_sample(kind)
    a, b = make(mf, kind, x), make(mf, kind, y)
    got = quietly(fn, a, b)
    assert got.dtype == cdtype(mf, kind)
    exp = C.complex_op(kind, fn, x, y)
    assert_pairs(kind, codes(got), exp, op, operands=(x, y))


@EACH
@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv", "pow"])
def test_python_operators_and_scalars(mf, kind, op):
    """a OP b with arrays, with a scalar of the type, and scalar OP scalar."""
    fn = getattr(operator, op)
    x, y = binary_sample(kind)
    x, y = x[::53], y[::53]
    a, b = make(mf, kind, x), make(mf, kind, y)
    exp = C.complex_op(kind, fn, x, y)
    assert_pairs(kind, codes(quietly(fn, a, b)), exp, op, operands=(x, y))
    sa, sb = a[5], b[5]
    s = quietly(fn, sa, sb)
    assert type(s) is ctype(mf, kind)
    assert_pairs(kind, codes(np.array(s))[None], exp[5:6], op + " scalars")
    col = quietly(fn, a, sb)
    assert_pairs(kind, codes(col), C.complex_op(kind, fn, x, np.broadcast_to(y[5], x.shape)), op + " array-scalar")


def _warnings_of(fn, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(*args)
    return result, sorted(str(w.message) for w in caught)


@EACH
@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv"])
def test_scalar_op_scalar_every_sampled_pair(mf, kind, op):
    """scalar OP scalar (+ - * have their own path: the ufunc's kernel on one
    element) gives the exact result's bits and, for + - *, the warnings the
    same operation on one-element arrays gives, for 1,725 pairs with the
    specials. (Division goes through NumPy's scalar path, which does not
    say "invalid" for a signaling NaN part where the array loop's hardware
    conversion does: left as NumPy's own float16 scalars and arrays differ.)"""
    fn = getattr(operator, op)
    x, y = binary_sample(kind)
    x, y = x[::371], y[::371]
    exp = C.complex_op(kind, fn, x, y)
    a, b = make(mf, kind, x), make(mf, kind, y)
    T = ctype(mf, kind)
    for i in range(len(x)):
        got, said = _warnings_of(fn, a[i], b[i])
        assert type(got) is T
        assert_pairs(kind, codes(np.array(got))[None], exp[i:i + 1], op + " scalars", operands=(x[i:i + 1], y[i:i + 1]))
        if op != "truediv":
            _, array_said = _warnings_of(fn, a[i:i + 1], b[i:i + 1])
            assert said == array_said, (describe(kind, x[i]), describe(kind, y[i]), said, array_said)


@EACH
@pytest.mark.parametrize("op", list(COMPARE))
def test_comparisons_lexicographic_every_pair(mf, kind, op):
    """NumPy's complex order: by real part, then imaginary part; any NaN
    compares unequal (as complex128 compares the exact values)."""
    fn = COMPARE[op]
    x, y = binary_sample(kind)
    got = quietly(fn, make(mf, kind, x), make(mf, kind, y))
    exp = quietly(fn, C.decode(kind, x), C.decode(kind, y))
    assert got.dtype == np.bool_
    bad = np.flatnonzero(got != exp)
    assert bad.size == 0, [(describe(kind, x[i]), describe(kind, y[i]), bool(exp[i])) for i in bad[:6]]


@EACH
@pytest.mark.parametrize("op", list(UNARY))
def test_unary_ufunc_every_value(mf, kind, op):
    fn = UNARY[op]
    pairs = unary_sample(kind)
    got = quietly(fn, make(mf, kind, pairs))
    assert got.dtype == cdtype(mf, kind)
    assert_pairs(kind, codes(got), C.complex_op(kind, fn, pairs), op, operands=(pairs,))


@EACH
def test_absolute_every_value(mf, kind):
    """np.abs gives the part type (as complex64 gives float32): the
    complex128 magnitude rounded once."""
    pairs = unary_sample(kind)
    got = quietly(np.abs, make(mf, kind, pairs))
    assert got.dtype == part_dtype(mf, kind)
    exp = C.real_op(kind, np.abs, pairs)
    assert_part_codes(kind, part_codes(got), exp, "absolute")
    assert_part_codes(kind, part_codes(quietly(abs, make(mf, kind, pairs))), exp, "abs()")
    s = abs(make(mf, kind, pairs[:1])[0])
    assert type(s) is part_dtype(mf, kind).type


@EACH
@pytest.mark.parametrize("op", ["isnan", "isinf", "isfinite"])
def test_classification_every_value(mf, kind, op):
    pairs = unary_sample(kind)
    got = getattr(np, op)(make(mf, kind, pairs))
    exp = getattr(np, op)(C.decode(kind, pairs))
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, exp)


@EACH
def test_ufuncs_on_strided_and_broadcast_operands(mf, kind):
    """The loops see non-contiguous, reversed and broadcast operands."""
    x, y = binary_sample(kind)
    x, y = x[:3999], y[:3999]
    a, b = make(mf, kind, x), make(mf, kind, y)
    for fn in (np.add, np.multiply, np.divide):
        got = quietly(fn, a[::-3], b[1::3][::-1][: len(a[::-3])])
        exp = C.complex_op(kind, fn, x[::-3], y[1::3][::-1][: len(x[::-3])])
        assert_pairs(kind, codes(got), exp, fn.__name__ + " strided")
    m = a[:60].reshape(6, 10)
    got = quietly(np.multiply, m, b[:10])
    exp = C.complex_op(kind, np.multiply, x[:60].reshape(6, 10, 2), y[:10])
    assert_pairs(kind, codes(got), exp, "multiply broadcast")
    out = np.empty(len(a), cdtype(mf, kind))
    r = quietly(np.add, a, b, out=out)
    assert r is out
    assert_pairs(kind, codes(out), C.complex_op(kind, np.add, x, y), "add out=")


@EACH
@pytest.mark.parametrize("kernel_set", ["avx512", "avx2", "portable"])
def test_multiply_every_kernel_set(mf, kind, kernel_set):
    """a * b by the hand-written AVX-512 and AVX2 kernels (blocks without a
    NaN result) and by the portable loop: the same bits and the same
    overflow flag (on a CPU without a set, the next one runs)."""
    x, y = binary_sample(kind)
    x, y = x[::7], y[::7]
    previous = mf._core._set_avx512_kernels(kernel_set == "avx512"), mf._core._set_avx2_kernels(kernel_set != "portable")
    try:
        a, b = make(mf, kind, x), make(mf, kind, y)
        assert_pairs(kind, codes(quietly(np.multiply, a, b)), C.complex_op(kind, np.multiply, x, y), kernel_set,
                     operands=(x, y))
        p = C.part_of(kind)
        big = C.pair_codes(np.full(64, p.max_code, np.uint16), np.zeros(64, np.uint16))
        one = C.pair_codes(np.full(64, C.encode_int(kind, 1), np.uint16), np.zeros(64, np.uint16))
        with np.errstate(over="raise"):
            np.multiply(make(mf, kind, big), make(mf, kind, one))  # max * 1: exact, no flag
            with pytest.raises(FloatingPointError, match="overflow"):
                np.multiply(make(mf, kind, big), make(mf, kind, big))
    finally:
        mf._core._set_avx512_kernels(previous[0])
        mf._core._set_avx2_kernels(previous[1])


@EACH
@pytest.mark.parametrize("kernel_set", ["avx512", "avx2", "portable"])
def test_add_and_subtract_every_kernel_set(mf, kind, kernel_set):
    """a + b and a - b by the hand-written kernels, which test one bound for
    both NaN and overflow and sort the rare block out after: the same bits
    as complex128's, and the overflow flag exactly where a finite pair's
    result rounds to inf (not for inf + finite, not for NaN), wherever in a
    long array the lane is."""
    x, y = binary_sample(kind)
    previous = mf._core._set_avx512_kernels(kernel_set == "avx512"), mf._core._set_avx2_kernels(kernel_set != "portable")
    try:
        a, b = make(mf, kind, x), make(mf, kind, y)
        for fn in (np.add, np.subtract):
            assert_pairs(kind, codes(quietly(fn, a, b)), C.complex_op(kind, fn, x, y), f"{kernel_set} {fn.__name__}",
                         operands=(x, y))
        p = C.part_of(kind)
        zero = np.zeros(100, np.uint16)
        big = np.full(100, p.max_code, np.uint16)
        inf = np.full(100, C.encode(kind, np.array([complex(np.inf, 0)]))[0, 0], np.uint16)
        for lane in (0, 37, 99):
            over = zero.copy()
            over[lane] = p.max_code
            with np.errstate(over="raise"), pytest.raises(FloatingPointError, match="overflow"):
                np.add(make(mf, kind, C.pair_codes(over, zero)), make(mf, kind, C.pair_codes(big, zero)))
            with np.errstate(over="raise"), pytest.raises(FloatingPointError, match="overflow"):
                np.subtract(make(mf, kind, C.pair_codes(zero, over)), make(mf, kind, C.pair_codes(zero, big ^ 0x8000)))
        with np.errstate(over="raise", invalid="ignore"):
            # inf + max and max + inf (either side), -max - inf: no flag
            np.add(make(mf, kind, C.pair_codes(inf, big)), make(mf, kind, C.pair_codes(big, zero)))
            np.add(make(mf, kind, C.pair_codes(big, big)), make(mf, kind, C.pair_codes(inf, zero)))
            np.subtract(make(mf, kind, C.pair_codes(big ^ 0x8000, zero)), make(mf, kind, C.pair_codes(inf, zero)))
            np.add(make(mf, kind, C.pair_codes(big, zero)), make(mf, kind, C.pair_codes(big ^ 0x8000, zero)))
            nan = np.full(100, 0x7E00 if kind == "complex32" else 0x7FC0, np.uint16)
            r = np.add(make(mf, kind, C.pair_codes(nan, zero)), make(mf, kind, C.pair_codes(big, big)))
        assert np.isnan(r.astype(np.complex64).real).all()
    finally:
        mf._core._set_avx512_kernels(previous[0])
        mf._core._set_avx2_kernels(previous[1])


@EACH
@pytest.mark.parametrize("kernel_set", ["avx512", "avx2", "portable"])
def test_multiply_overflow_bound_every_kernel_set(mf, kind, kernel_set):
    """a * b whose part lands exactly on the first value that rounds to inf
    (the largest plus half its ulp), either sign, at lanes 0, 37 and 99 of
    100, and in a long array on two threads: the flag; a quarter ulp less:
    the largest, no flag. complex32's fast paths leave the flag to the
    float16 conversion (vcvtps2ph raises it), bcomplex32's track it."""
    p = C.part_of(kind)
    half_ulp = Fraction(2) ** (p.emax - p.p)
    one = C.encode_int(kind, 1)
    with kernels(mf, kernel_set):
        for lane in (0, 37, 99):
            for sign in (0, 0x8000):
                for extra, overflows in ((half_ulp, True), (half_ulp / 2, False)):
                    # (max, -extra) * (1, 1): real max + extra, imaginary max - extra
                    real = np.full(100, one, np.uint16)
                    imag = np.zeros(100, np.uint16)
                    real[lane] = p.max_code | sign
                    imag[lane] = C.encode_fraction(kind, -extra) ^ sign
                    x = C.pair_codes(real, imag)
                    y = C.pair_codes(np.full(100, one, np.uint16), np.full(100, one, np.uint16))
                    with np.errstate(over="raise"):
                        if overflows:
                            with pytest.raises(FloatingPointError, match="overflow"):
                                np.multiply(make(mf, kind, x), make(mf, kind, y))
                        else:
                            got = np.multiply(make(mf, kind, x), make(mf, kind, y))
                            assert_pairs(kind, codes(got), C.complex_op(kind, np.multiply, x, y),
                                         f"{kernel_set} lane {lane}", operands=(x, y))
        # a long array on two threads, the lane in the second thread's share
        n = 1 << 21
        real, imag = np.full(n, one, np.uint16), np.zeros(n, np.uint16)
        real[n - 3], imag[n - 3] = p.max_code, C.encode_fraction(kind, -half_ulp)
        ones = C.pair_codes(np.full(n, one, np.uint16), np.full(n, one, np.uint16))
        with mf.num_threads(2), np.errstate(over="raise"), pytest.raises(FloatingPointError, match="overflow"):
            np.multiply(make(mf, kind, C.pair_codes(real, imag)), make(mf, kind, ones))


@pytest.mark.parametrize("kernel_set", ["avx512", "avx2", "portable"])
def test_multiply_rounds_twice_as_complex128_does(mf, kernel_set):
    """complex128 rounds ar*br - ai*bi to binary64 before the part's
    rounding; where binary64's result is a float16 midpoint and the exact
    value is not, that gives another float16 than one rounding would. The
    kernels that compute float16 products in binary32 must give complex128's
    result there, and must not round twice where binary32's sum is a
    midpoint but binary64's is not. Here ar*br is a midpoint m
    (64 * (1 + 3 * 2**-11), ties up; 64 * (1 + 2**-11), ties down) and ai*bi
    = +-2**-48 (under half of binary64's ulp at m: complex128 rounds twice)
    or +-2**-30 (between half of binary64's and half of binary32's ulp)."""
    tiny, small = 2.0 ** -24, 2.0 ** -15
    rows = [(14.0, tiny, 4.578125, tiny), (14.0, -tiny, 4.578125, tiny),
            (1.5, tiny, 42.6875, -tiny), (1.5, tiny, 42.6875, tiny),
            (14.0, small, 4.578125, small), (1.5, small, 42.6875, -small)]
    x = np.array([complex(ar, ai) for ar, ai, _, _ in rows] * 16)
    y = np.array([complex(br, bi) for _, _, br, bi in rows] * 16)
    exact = [Fraction(ar) * Fraction(br) - Fraction(ai) * Fraction(bi) for ar, ai, br, bi in rows]
    previous = mf._core._set_avx512_kernels(kernel_set == "avx512"), mf._core._set_avx2_kernels(kernel_set != "portable")
    try:
        got = x.astype(mf.complex32) * y.astype(mf.complex32)
    finally:
        mf._core._set_avx512_kernels(previous[0])
        mf._core._set_avx2_kernels(previous[1])
    expected = C.complex_op("complex32", np.multiply, C.encode("complex32", x), C.encode("complex32", y))
    assert_pairs("complex32", codes(got), expected, kernel_set)
    assert [float(v) for v in got.astype(np.complex64).real[:6]] == [64.125, 64.125, 64.0, 64.0, 64.0625, 64.0625]
    once = [C.encode_fraction("complex32", v) for v in exact]  # one rounding: other codes in rows 0 and 2
    assert [int(c) == int(g) for c, g in zip(once, codes(got)[:6, 0])] == [False, True, False, True, True, True]


@pytest.mark.parametrize("kernel_set", ["avx512", "avx2", "portable"])
def test_absolute_at_float16_midpoints(mf, kernel_set):
    """|a + bi| exactly a float16 midpoint (a, b, m integers with a^2 + b^2 =
    m^2, m odd with 12 bits: a tie, to even) and just off one: the kernels
    that take the root in binary32 or binary64 hand such values to NumPy's
    loop, whose result rounded once is the reference here too."""
    triples = []
    for m in range(2049, 4096, 2):
        for a in range(1, 2048):
            b = math.isqrt(m * m - a * a)
            if b * b == m * m - a * a and a <= b < 2048:
                triples.append((a, b, m))
    assert len(triples) > 100
    rows = []
    for a, b, m in triples:
        rows += [(a, b), (b, -a), (a, b + 1), (a - 1, b)]  # on a tie, and beside it
    x = np.array([complex(re, im) for re, im in rows] * 2)
    pairs = C.encode("complex32", x)
    previous = mf._core._set_avx512_kernels(kernel_set == "avx512"), mf._core._set_avx2_kernels(kernel_set != "portable")
    try:
        got = part_codes(quietly(np.abs, make(mf, "complex32", pairs)))
    finally:
        mf._core._set_avx512_kernels(previous[0])
        mf._core._set_avx2_kernels(previous[1])
    # (the reference is NumPy's complex128 absolute, which need not be exact
    # even here: it gives 2306.9999999999995 for |1443 + 1800j| = 2307)
    assert_part_codes("complex32", got, C.real_op("complex32", np.abs, pairs), "absolute " + kernel_set)


@EACH
@pytest.mark.parametrize("kernel_set", ["avx512", "avx2", "portable"])
def test_absolute_with_a_zero_part_every_code(mf, kind, kernel_set):
    """|x + 0j| and |0 + xj| for every code x: the kernels give |x| there
    without asking hypot, which must agree (C's hypot(x, 0) is fabs(x))."""
    allc = C.all_codes()
    zeros = np.zeros_like(allc)
    with kernels(mf, kernel_set):
        for pairs in (C.pair_codes(allc, zeros), C.pair_codes(zeros, allc)):
            got = part_codes(quietly(np.abs, make(mf, kind, pairs)))
            assert_part_codes(kind, got, C.real_op(kind, np.abs, pairs), f"absolute, a zero part, {kernel_set}")


@pytest.mark.parametrize("kernel_set", ["avx512", "avx2", "portable"])
def test_absolute_random_codes(mf, kernel_set):
    """|z| of random part codes (every binade, subnormals, parts whose root
    overflows, inf and NaN among them) against NumPy's complex128 absolute
    rounded once, whichever kernels run."""
    rng = np.random.default_rng(29)
    parts = rng.integers(0, 1 << 16, (2, 1 << 16), dtype=np.uint64).astype(np.uint16)
    near = rng.integers(0x3C00, 0x7C00, (2, 1 << 14), dtype=np.uint64).astype(np.uint16)  # finite, 1 and up
    pairs = np.concatenate([C.pair_codes(parts[0], parts[1]), C.pair_codes(near[0], near[1])])
    with kernels(mf, kernel_set):
        got = part_codes(quietly(np.abs, make(mf, "complex32", pairs)))
    assert_part_codes("complex32", got, C.real_op("complex32", np.abs, pairs), "absolute " + kernel_set)


@EACH
def test_misaligned_operands(mf, kind):
    """Data at byte offsets 1 and 2 (the items' 4 bytes then straddle their
    natural alignment): casts and ufuncs read and write them right."""
    x, y = binary_sample(kind)
    x, y = x[:2001], y[:2001]
    for offset in (1, 2):
        bufs = []
        for pairs in (x, y):
            raw = np.zeros(pairs.nbytes + 8, np.uint8)
            raw[offset:offset + pairs.nbytes] = np.ascontiguousarray(pairs).view(np.uint8).reshape(-1)
            bufs.append(raw[offset:offset + pairs.nbytes].view(cdtype(mf, kind)))
        a, b = bufs
        assert np.array_equal(codes(a), x)
        assert_pairs(kind, codes(quietly(np.multiply, a, b)), C.complex_op(kind, np.multiply, x, y), f"multiply @{offset}")
        assert_pairs(kind, codes(quietly(np.sqrt, a)), C.complex_op(kind, np.sqrt, x), f"sqrt @{offset}")
        z = a.astype(np.complex128)
        np.testing.assert_array_equal(z.view(np.float64), C.decode(kind, x).view(np.float64))
        out = np.zeros(len(x) * 4 + 8, np.uint8)[offset:offset + len(x) * 4].view(cdtype(mf, kind))
        out[...] = quietly(C.decode(kind, y).astype, np.complex64)
        assert_pairs(kind, codes(out), y, f"cast into @{offset}", nan_sign=True)


@EACH
def test_mixed_operands_promote(mf, kind):
    """complex32 with complex64/float32/float16: the promoted type computes
    (exact inputs, so the result is NumPy's own complex64/... result)."""
    pairs = unary_sample(kind)[::101]
    a = make(mf, kind, pairs)
    z = C.decode(kind, pairs)
    r = quietly(np.multiply, a, z.astype(np.complex64))
    assert r.dtype == np.complex64
    np.testing.assert_array_equal(r, quietly(np.multiply, z.astype(np.complex64), z.astype(np.complex64)))
    r = quietly(np.add, a, np.float32(0.1))
    assert r.dtype == np.complex64
    # complex32 with bcomplex32: complex64 computes
    other = "bcomplex32" if kind == "complex32" else "complex32"
    opairs = unary_sample(other)[::101]
    b = make(mf, other, opairs)
    zb = C.decode(other, opairs)
    for fn in (np.add, np.multiply, np.divide):
        r = quietly(fn, a, b)
        assert r.dtype == np.complex64
        np.testing.assert_array_equal(r, quietly(fn, z.astype(np.complex64), zb.astype(np.complex64)))


# --------------------------------------------------------------------------
# Warnings and np.errstate, as complex64
# --------------------------------------------------------------------------


def _warning_messages(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with np.errstate(all="warn"):
            fn()
    return sorted({str(w.message).split(" encountered")[0] for w in caught if issubclass(w.category, RuntimeWarning)})


@EACH
def test_ufunc_warnings_follow_complex64(mf, kind):
    T = cdtype(mf, kind)
    for a, b, fn in [([1 + 0j], [0j], np.divide), ([0j], [0j], np.divide), ([1 + 1j], [2 + 0j], np.divide)]:
        ours = _warning_messages(lambda: fn(np.array(a, T), np.array(b, T)))
        theirs = _warning_messages(lambda: fn(np.array(a, np.complex64), np.array(b, np.complex64)))
        assert ours == theirs, (a, b, fn.__name__, ours, theirs)
    # a finite result too large for the part overflows, as float16's multiply does
    big = float(C.part_of(kind).max)
    with pytest.warns(RuntimeWarning, match="overflow"):
        r = np.multiply(np.array([big + 0j], T), np.array([2 + 0j], T))
    assert np.isinf(r.astype(np.complex64).real[0])
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        np.multiply(np.array([big + 0j], T), np.array([2 + 0j], T))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        np.multiply(np.array([big + 0j], T), np.array([2 + 0j], T))
        np.divide(np.array([1 + 0j], T), np.array([0j], T))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.add(np.array([1 + 2j], T), np.array([3 - 1j], T))
        np.isnan(np.array([complex(np.nan, 0)], T))
    # ordered comparisons with a NaN warn "invalid" as complex64's do
    for fn in COMPARE.values():
        for x in ([complex(np.nan, 0)], [complex(1, np.nan)], [1 + 1j]):
            ours = _warning_messages(lambda: fn(np.array(x, T), np.array([1j], T)))
            theirs = _warning_messages(lambda: fn(np.array(x, np.complex64), np.array([1j], np.complex64)))
            assert ours == theirs, (fn.__name__, x, ours, theirs)


# --------------------------------------------------------------------------
# Sorting (NumPy's complex order, NaNs last)
# --------------------------------------------------------------------------


@EACH
def test_argsort_stable_matches_complex128(mf, kind):
    """kind='stable' argsort is fully determined: it must equal complex128's
    on the exact values (NumPy's order: R+Rj, R+nanj, nan+Rj, nan+nanj)."""
    rng = np.random.default_rng(3)
    pairs = unary_sample(kind)
    pairs = np.concatenate([pairs, pairs[rng.integers(0, len(pairs), 5000)]])[rng.permutation(len(pairs) + 5000)]
    arr = make(mf, kind, pairs)
    z = C.decode(kind, pairs)
    got = np.argsort(arr, kind="stable")
    exp = np.argsort(z, kind="stable")
    np.testing.assert_array_equal(got, exp)
    s = np.sort(arr, kind="stable")
    np.testing.assert_array_equal(codes(s), pairs[exp])


@EACH
def test_sort_default_kind(mf, kind):
    rng = np.random.default_rng(4)
    pairs = unary_sample(kind)[rng.permutation(90000)]
    arr = make(mf, kind, pairs)
    z = np.sort(C.decode(kind, pairs))
    s = C.decode(kind, codes(np.sort(arr)))
    for part in ("real", "imag"):  # NaNs by position; +0 and -0 equal
        np.testing.assert_array_equal(getattr(s, part), getattr(z, part))
    idx = np.argsort(arr)
    np.testing.assert_array_equal(np.sort(idx), np.arange(len(arr)))
    s2 = C.decode(kind, pairs[idx])
    for part in ("real", "imag"):
        np.testing.assert_array_equal(getattr(s2, part), getattr(z, part))
    m = arr.copy()
    m.sort()
    np.testing.assert_array_equal(C.decode(kind, codes(m)).real, z.real)
    # 2-d along either axis
    a2 = arr[:600].reshape(20, 30)
    z2 = C.decode(kind, pairs[:600].reshape(20, 30, 2))
    for axis in (0, 1):
        got = C.decode(kind, codes(np.sort(a2, axis=axis)))
        np.testing.assert_array_equal(got.real, np.sort(z2, axis=axis).real)
        np.testing.assert_array_equal(got.imag, np.sort(z2, axis=axis).imag)


@EACH
def test_argmax_argmin_match_complex128(mf, kind):
    """NumPy's complex argmax/argmin (lexicographic; the first NaN wins) on
    rows of the sample, with and without NaNs."""
    rng = np.random.default_rng(6)
    pairs = unary_sample(kind)[rng.permutation(90000)].reshape(900, 100, 2)
    z = C.decode(kind, pairs)
    finite_rows = np.isfinite(z).all(axis=1)
    assert finite_rows.any() and (~finite_rows).any()
    arr = make(mf, kind, pairs)
    for fn in (np.argmax, np.argmin):
        np.testing.assert_array_equal(fn(arr, axis=1), fn(z, axis=1), err_msg=fn.__name__)
        np.testing.assert_array_equal(fn(arr[finite_rows], axis=1), fn(z[finite_rows], axis=1), err_msg=fn.__name__)
        assert fn(arr[3]) == fn(z[3])


# --------------------------------------------------------------------------
# Reductions: accumulate in complex64, round once
# --------------------------------------------------------------------------


def _arr(mf, kind, values):
    return np.array(values, dtype=np.complex128).astype(cdtype(mf, kind))


def _ulp_codes_apart(kind, got, exp):
    """Per part, how many codes apart (same-sign finite values)."""
    g = np.asarray(got, np.int64) & 0x7FFF
    e = np.asarray(exp, np.int64) & 0x7FFF
    return np.abs(g - e)


@EACH
def test_sum_accumulates_in_complex64_and_rounds_once(mf, kind):
    p = C.part_of(kind)
    half = 2.0 ** -p.p  # half an ulp of the part at 1
    # a part-format accumulator would stall at 2**p; complex64 does not
    ones = _arr(mf, kind, [1 + 1j] * 4096)
    r = ones.sum()
    assert type(r) is ctype(mf, kind) and complex(r) == 4096 + 4096j
    assert complex(np.sum(ones)) == 4096 + 4096j
    # the exact sum 1 + 2 half-ulps is rounded once (stepwise rounding ties to 1 twice)
    a = _arr(mf, kind, [1 - 1j, half - half * 1j, half - half * 1j])
    assert complex(a.sum()) == complex(1 + 2 * half, -(1 + 2 * half))
    # intermediate values beyond the part's range (complex32: 65536) do not overflow
    if kind == "complex32":
        # exact sum 50000 - 50000j: a tie between 49984 and 50016, to even
        assert complex(_arr(mf, kind, [60000, 60000, -60000, -50000j, -10000]).sum()) == complex(49984, -49984)
    # along axes, keepdims, dtype=complex64 (unrounded), out
    m = _arr(mf, kind, (np.arange(24).reshape(4, 6) * (1 + 0.5j)))
    exact = np.arange(24).reshape(4, 6) * (1 + 0.5j)
    for axis in (None, 0, 1, (0, 1)):
        got = m.sum(axis=axis)
        exp = exact.sum(axis=axis)
        assert np.asarray(got).dtype == cdtype(mf, kind)
        np.testing.assert_array_equal(np.asarray(got).astype(np.complex128), exp)
    assert m.sum(axis=1, keepdims=True).shape == (4, 1)
    s64 = a.sum(dtype=np.complex64)
    assert s64.dtype == np.complex64 and complex(s64) == complex(1 + 2 * half, -(1 + 2 * half))
    out = np.empty(6, cdtype(mf, kind))
    assert m.sum(axis=0, out=out) is out
    np.testing.assert_array_equal(out.astype(np.complex128), exact.sum(axis=0))
    # empty sum
    assert complex(np.zeros(0, cdtype(mf, kind)).sum()) == 0


@EACH
def test_sum_random_within_one_code_of_complex64(mf, kind):
    """Random data: the complex64 sum of the exact values (any order of
    accumulation) rounded once; orders differ in float32's last bits, so
    up to one code apart and mostly equal."""
    rng = np.random.default_rng(8)
    z = (rng.standard_normal(5000) + 1j * rng.standard_normal(5000))
    a = quietly(z.astype, cdtype(mf, kind))
    pairs = codes(a)
    exact = C.decode(kind, pairs)
    for axis_len in (5000, 17, 1000):
        rows = 5000 // axis_len
        zz = exact[: rows * axis_len].reshape(rows, axis_len)
        aa = a[: rows * axis_len].reshape(rows, axis_len)
        got = codes(aa.sum(axis=1))
        exp = C.encode(kind, zz.astype(np.complex64).sum(axis=1).astype(np.complex128))
        d = _ulp_codes_apart(kind, got, exp)
        assert d.max() <= 1 and (d == 0).mean() >= 0.9, (axis_len, d.max(), (d == 0).mean())


@EACH
def test_prod_accumulates_in_complex64(mf, kind):
    assert complex(_arr(mf, kind, [1 + 1j] * 8).prod()) == 16 + 0j
    g = [1 + 1j, 2 - 1j, -1 + 2j, 1j, 3, -1 - 1j]
    exact = complex(np.prod(np.array(g)))
    assert complex(_arr(mf, kind, g).prod()) == exact
    # intermediate magnitude beyond the part's range, final in range
    if kind == "complex32":
        assert complex(_arr(mf, kind, [256, 256, 1 / 256, 1 / 256j]).prod()) == -1j
    # the product rounded once where rounding after each step differs
    # (complex32: 0x4141 once, 0x4142 stepwise; bcomplex32: 0x4029 / 0x402a):
    # three factors whose exact product float32 holds (p + 2 + 3 <= 24 bits)
    p = C.part_of(kind)
    f1 = 1 + 2.0 ** -p.mbits
    exact = Fraction(f1) * Fraction(3, 2) * Fraction(7, 4)
    once = C.encode_fraction(kind, exact)
    step = C.encode_fraction(kind, Fraction(float(C.decode_part(kind, [C.encode_fraction(kind, Fraction(f1) * Fraction(3, 2))])[0])) * Fraction(7, 4))
    assert once != step
    for factors, want in (([f1, 1.5, 1.75], [once, 0]), ([1.75j, f1, 1.5j], [once | C.SIGN, 0]),
                          ([1.5, 1.75, f1 * 1j], [0, once])):
        got = codes(np.asarray(_arr(mf, kind, factors).prod()))
        assert got.tolist() == want, (factors, [hex(c) for c in got], [hex(w) for w in want])
    m = _arr(mf, kind, np.arange(1, 13).reshape(3, 4) * 1j)
    np.testing.assert_array_equal(m.prod(axis=0).astype(np.complex128), (np.arange(1, 13).reshape(3, 4) * 1j).prod(axis=0))


@EACH
def test_mean(mf, kind):
    p = C.part_of(kind)
    half = 2.0 ** -p.p
    ones = _arr(mf, kind, [1 - 2j] * 4096)
    m = ones.mean()
    assert np.asarray(m).dtype == cdtype(mf, kind) and complex(m) == 1 - 2j
    assert complex(np.mean(ones)) == 1 - 2j
    a = _arr(mf, kind, [1, half, half, 0])  # exact sum 1 + 2 half-ulps, / 4 exactly
    assert complex(a.mean()) == (1 + 2 * half) / 4
    m2 = _arr(mf, kind, np.arange(12).reshape(3, 4) + 1j)
    np.testing.assert_array_equal(np.asarray(m2.mean(axis=0)).astype(np.complex128),
                                  (np.arange(12).reshape(3, 4) + 1j).mean(axis=0))


@EACH
def test_cumsum_rounds_each_complex64_partial_sum_once(mf, kind):
    p = C.part_of(kind)
    n = 2 ** p.p + 300
    a = _arr(mf, kind, [1 + 2j] * n)
    got = codes(np.cumsum(a))
    k = np.arange(1, n + 1, dtype=np.float64)
    exp = C.pair_codes(C.encode_part(kind, k), C.encode_part(kind, 2 * k))
    assert_pairs(kind, got, exp, "cumsum")
    # partial sums the part holds: unambiguous under any accumulator
    m = _arr(mf, kind, np.arange(12).reshape(3, 4) * (1 - 1j))
    exact = np.arange(12).reshape(3, 4) * (1 - 1j)
    for axis in (0, 1):
        r = np.cumsum(m, axis=axis)
        assert r.dtype == cdtype(mf, kind)
        np.testing.assert_array_equal(r.astype(np.complex128), np.cumsum(exact, axis=axis))
    np.testing.assert_array_equal(np.cumprod(_arr(mf, kind, [1j, 2, 1 + 1j])).astype(np.complex128),
                                  np.cumprod([1j, 2, 1 + 1j]))


# --------------------------------------------------------------------------
# dot / matmul / vdot / einsum: complex64 accumulation, rounded once
# --------------------------------------------------------------------------


@pytest.mark.usefixtures("patched_numpy")  # np.dot/inner/vdot before NumPy 2.5: mf.patch_numpy()'s wrappers
@EACH
def test_dot_family_exact_cases(mf, kind):
    p = C.part_of(kind)
    half = 2.0 ** -p.p
    T = cdtype(mf, kind)
    a = _arr(mf, kind, [1j, half * 1j, half * 1j])
    b = _arr(mf, kind, [-1j, -1j, -1j])
    want = 1 + 2 * half  # rounded once: the code after 1
    for name, fn in (("dot", np.dot), ("@", operator.matmul), ("matmul", np.matmul),
                     ("einsum", lambda x, y: np.einsum("i,i->", x, y)), ("inner", np.inner)):
        r = fn(a, b)
        assert np.asarray(r).dtype == T and complex(r) == want, (name, r)
    # vdot and vecdot conjugate their first argument
    c = _arr(mf, kind, [1j, 1j, 1j])
    for name, fn in (("vdot", np.vdot), ("vecdot", np.vecdot)):
        r = fn(a, c)
        assert np.asarray(r).dtype == T and complex(r) == want, (name, r)
    # intermediate beyond the part's range
    if kind == "complex32":
        assert complex(np.dot(_arr(mf, kind, [256, 256]), _arr(mf, kind, [256, -256]))) == 0
    # small Gaussian-integer matrices: exact
    rng = np.random.default_rng(12)
    A = rng.integers(-8, 9, (5, 7)) + 1j * rng.integers(-8, 9, (5, 7))
    B = rng.integers(-8, 9, (7, 3)) + 1j * rng.integers(-8, 9, (7, 3))
    a, b = _arr(mf, kind, A), _arr(mf, kind, B)
    for r in (a @ b, np.dot(a, b), np.einsum("ij,jk->ik", a, b), np.matmul(a[None], b)[0]):
        assert r.dtype == T
        np.testing.assert_array_equal(r.astype(np.complex128), A @ B)
    np.testing.assert_array_equal(np.einsum("ij->j", a).astype(np.complex128), A.sum(axis=0))
    np.testing.assert_array_equal(np.einsum("ij,ij->i", a, a).astype(np.complex128), (A * A).sum(axis=1))


@EACH
@pytest.mark.xfail(NUMPY_2_5, strict=True,
                   reason="numpy/numpy#31574: NumPy 2.5's np.vdot reaches a user DType's dotfunc, which cannot "
                          "conjugate; mf.patch_numpy()'s vdot does")
def test_vdot_unpatched_is_right_or_refuses(mf, kind):
    """Without mf.patch_numpy(): NumPy 2.4 refuses the type (TypeError);
    a result, where NumPy gives one, is the conjugating one."""
    a = _arr(mf, kind, [1j, 2 - 1j])
    if not NUMPY_2_5:
        with pytest.raises(TypeError):
            np.vdot(a, a)
        return
    assert complex(np.vdot(a, a)) == 6


@pytest.mark.usefixtures("patched_numpy")
@EACH
def test_matmul_random_within_one_code_of_complex64(mf, kind):
    rng = np.random.default_rng(13)
    A = quietly((rng.standard_normal((16, 40)) + 1j * rng.standard_normal((16, 40))).astype, cdtype(mf, kind))
    B = quietly((rng.standard_normal((40, 9)) + 1j * rng.standard_normal((40, 9))).astype, cdtype(mf, kind))
    A64 = C.decode(kind, codes(A)).astype(np.complex64)
    B64 = C.decode(kind, codes(B)).astype(np.complex64)
    exp = C.encode(kind, (A64 @ B64).astype(np.complex128))
    for r in (A @ B, np.dot(A, B), np.einsum("ij,jk->ik", A, B)):
        d = _ulp_codes_apart(kind, codes(r), exp)
        assert d.max() <= 1 and (d == 0).mean() >= 0.9, (d.max(), (d == 0).mean())
    v = np.vdot(A[0], A[1])
    ve = C.encode(kind, np.vdot(A64[0], A64[1]).astype(np.complex128))
    assert _ulp_codes_apart(kind, codes(np.asarray(v)[None])[0], ve).max() <= 1


# --------------------------------------------------------------------------
# np.fft: computed in complex64, rounded once
# --------------------------------------------------------------------------


@pytest.mark.usefixtures("patched_numpy")  # the project's fft support for its dtypes is opt-in
@EACH
@pytest.mark.parametrize("fn", ["fft", "ifft"])
def test_fft(mf, kind, fn):
    rng = np.random.default_rng(14)
    z = rng.standard_normal((3, 32)) + 1j * rng.standard_normal((3, 32))
    a = quietly(z.astype, cdtype(mf, kind))
    got = getattr(np.fft, fn)(a)
    assert got.dtype == cdtype(mf, kind)
    z64 = C.decode(kind, codes(a)).astype(np.complex64)
    exp = C.encode(kind, getattr(np.fft, fn)(z64).astype(np.complex128))
    assert_pairs(kind, codes(got), exp, "np.fft." + fn)


# --------------------------------------------------------------------------
# real / imag / conj / angle / abs
# --------------------------------------------------------------------------


@EACH
def test_mf_real_imag(mf, kind):
    pairs = unary_sample(kind)
    arr = make(mf, kind, pairs)
    for fn, i in ((mf.real, 0), (mf.imag, 1)):
        r = fn(arr)
        assert r.dtype == part_dtype(mf, kind)
        np.testing.assert_array_equal(part_codes(r), pairs[:, i])
    # views: writes through them reach the complex array
    w = make(mf, kind, pairs[:4].copy())
    re_view, im_view = mf.real(w), mf.imag(w)
    assert np.shares_memory(re_view, w) and np.shares_memory(im_view, w)
    re_view[...] = np.array([1.5, 2, 3, 4], dtype=part_dtype(mf, kind))
    im_view[0] = -1
    assert codes(w)[:, 0].tolist() == C.encode_part(kind, np.array([1.5, 2, 3, 4])).tolist()
    assert codes(w)[0, 1] == C.encode_part(kind, np.array([-1.0]))[0]
    # 2-d and strided
    a2 = arr[:600].reshape(20, 30)[:, ::3]
    np.testing.assert_array_equal(part_codes(mf.imag(a2)), pairs[:600].reshape(20, 30, 2)[:, ::3, 1])
    # scalars
    s = arr[7]
    assert part_codes(np.asarray(mf.real(s))).reshape(-1).tolist() == [pairs[7, 0]]
    assert part_codes(np.asarray(mf.imag(s))).reshape(-1).tolist() == [pairs[7, 1]]


@EACH
def test_mf_real_imag_take_ml_dtypes_arrays(mf, kind):
    md = pytest.importorskip("ml_dtypes")
    if not hasattr(md, kind):
        pytest.skip(f"ml_dtypes {md.__version__} has no {kind}")
    pairs = unary_sample(kind)[::31]
    m = np.ascontiguousarray(pairs).view(getattr(md, kind))[..., 0]
    for fn, i in ((mf.real, 0), (mf.imag, 1)):
        r = fn(m)
        assert r.dtype.itemsize == 2 and r.dtype.name == C.PART_NAME[kind]
        np.testing.assert_array_equal(np.ascontiguousarray(r).view(np.uint16), pairs[:, i])


@EACH
@NEEDS_REAL_HOOK
def test_real_imag_attributes(mf, kind):
    pairs = unary_sample(kind)[::13]
    arr = make(mf, kind, pairs)
    r, i = arr.real, arr.imag
    assert r.dtype == part_dtype(mf, kind) and i.dtype == part_dtype(mf, kind)
    np.testing.assert_array_equal(part_codes(r), pairs[:, 0])
    np.testing.assert_array_equal(part_codes(i), pairs[:, 1])
    np.testing.assert_array_equal(part_codes(np.real(arr)), pairs[:, 0])
    np.testing.assert_array_equal(part_codes(np.imag(arr)), pairs[:, 1])
    im = C.decode(kind, pairs).imag
    np.testing.assert_array_equal(np.iscomplex(arr), im != 0)
    np.testing.assert_array_equal(np.isreal(arr), im == 0)


def _check_np_part_functions(mf, kind):
    pairs = unary_sample(kind)[::13]
    arr = make(mf, kind, pairs)
    for fn, i in ((np.real, 0), (np.imag, 1)):
        r = fn(arr)
        assert r.dtype == part_dtype(mf, kind)
        np.testing.assert_array_equal(part_codes(r), pairs[:, i])
    im = C.decode(kind, pairs).imag
    np.testing.assert_array_equal(np.iscomplex(arr), im != 0)
    np.testing.assert_array_equal(np.isreal(arr), im == 0)
    got = quietly(np.angle, arr)
    assert got.dtype == part_dtype(mf, kind)
    re_part = pairs[:, 0].copy().view(part_dtype(mf, kind))
    im_part = pairs[:, 1].copy().view(part_dtype(mf, kind))
    np.testing.assert_array_equal(part_codes(got), part_codes(quietly(np.arctan2, im_part, re_part)))
    # scalars
    s = arr[5]
    assert part_codes(np.asarray(np.real(s))).reshape(-1).tolist() == [pairs[5, 0]]
    assert part_codes(np.asarray(np.imag(s))).reshape(-1).tolist() == [pairs[5, 1]]


@pytest.mark.usefixtures("patched_numpy")
@EACH
def test_np_real_imag_angle_iscomplex_patched(mf, kind):
    """mf.patch_numpy() makes np.real/np.imag/np.angle/np.iscomplex/np.isreal
    take the parts on every NumPy version (the attributes stay NumPy's)."""
    _check_np_part_functions(mf, kind)


@EACH
@NEEDS_REAL_HOOK
def test_np_real_imag_angle_iscomplex_unpatched(mf, kind):
    _check_np_part_functions(mf, kind)


@EACH
@NEEDS_REAL_HOOK
def test_real_imag_are_views_and_settable(mf, kind):
    arr = _arr(mf, kind, [1 + 2j, 3 - 4j])
    assert np.shares_memory(arr.real, arr) and np.shares_memory(arr.imag, arr)
    arr.real[0] = 5
    arr.imag = np.array([7, 8], part_dtype(mf, kind))
    assert arr.tolist() == [5 + 7j, 3 + 8j]


@EACH
@NEEDS_REAL_HOOK
def test_angle(mf, kind):
    """np.angle is arctan2(imag, real) of the parts, in the part type."""
    pairs = unary_sample(kind)[::7]
    arr = make(mf, kind, pairs)
    got = quietly(np.angle, arr)
    assert got.dtype == part_dtype(mf, kind)
    re = pairs[:, 0].copy().view(part_dtype(mf, kind))
    im = pairs[:, 1].copy().view(part_dtype(mf, kind))
    np.testing.assert_array_equal(part_codes(got), part_codes(quietly(np.arctan2, im, re)))


@EACH
def test_conj(mf, kind):
    pairs = unary_sample(kind)
    arr = make(mf, kind, pairs)
    exp = pairs.copy()
    exp[:, 1] ^= C.SIGN  # conjugation flips the sign bit only (NaN too)
    for got in (np.conj(arr), np.conjugate(arr)):
        assert got.dtype == cdtype(mf, kind)
        assert_pairs(kind, codes(got), exp, "conj")


@EACH
@pytest.mark.xfail(NUMPY_2_5, strict=True,
                   reason="numpy/numpy#31264: NumPy 2.5 makes ndarray.conjugate() a no-op for a numeric new-style "
                          "DType without NumPy's imag slot (numpy/numpy#1740); np.conj is right")
def test_conj_method(mf, kind):
    pairs = unary_sample(kind)[::9]
    arr = make(mf, kind, pairs)
    exp = pairs.copy()
    exp[:, 1] ^= C.SIGN
    for got in (arr.conj(), arr.conjugate()):
        assert got.dtype == cdtype(mf, kind)
        assert_pairs(kind, codes(got), exp, "conj method")


# --------------------------------------------------------------------------
# Printing
# --------------------------------------------------------------------------


def _complex_scalar_text(re_text, im_text, re_value, im_value):
    """NumPy's layout of a complex scalar's str from its parts' texts (the
    parts' own scalar str with a trailing '.0' dropped): 'IMj' when the real
    part is +0, else '(RE+IMj)'. Checked against complex64 in
    test_complex_scalar_layout_rule."""
    def trim(t):
        return t[:-2] if t.endswith(".0") else t
    im = trim(im_text)
    if not math.isnan(im_value) and not im.startswith("-"):
        im = "+" + im
    elif math.isnan(im_value):
        im = "+nan"
    if re_value == 0 and math.copysign(1, re_value) > 0:
        return im.lstrip("+") + "j"
    re = trim(re_text) if not math.isnan(re_value) else "nan"
    return f"({re}{im}j)"


def test_complex_scalar_layout_rule():
    """The rule above reproduces str(np.complex64) from str(np.float32) of
    the parts, on pairs of float32 values of every kind."""
    vals = np.array([0.0, -0.0, 1.0, -2.5, 0.1, 1e-5, 123456.0, 1e20, -3.4e38, 1e-45, np.inf, -np.inf, np.nan,
                     1e16, 1e15, 1e-4, 9.999e-5], np.float32)
    for re in vals:
        for im in vals:
            z = np.complex64(complex(re, im))
            if np.isnan(im) and np.signbit(im):
                continue
            exp = _complex_scalar_text(str(re), str(im), float(re), float(im))
            assert str(z) == exp, (re, im, str(z), exp)


def _part_texts(mf, kind, code):
    """Every acceptable text of a part (bfloat16: two where two shortest
    decimals are equally close)."""
    if kind == "complex32":
        return [str(np.uint16(code).view(np.float16))]
    import printing_reference as P
    return P.expected_texts("bfloat16", int(code))


@EACH
def test_scalar_str_shortest_per_part(mf, kind):
    """str(scalar) lays out the parts' shortest round-trip texts as complex64
    does (float16: NumPy's float16 str; bfloat16: reference.shortest_reprs)."""
    pairs = unary_sample(kind)[::45]
    arr = make(mf, kind, pairs)
    z = C.decode(kind, pairs)
    for i in range(len(arr)):
        re_c, im_c = pairs[i]
        if C.is_nan_code(kind, im_c) and im_c & C.SIGN:
            continue
        exp = {_complex_scalar_text(rt, it, z[i].real, z[i].imag)
               for rt in _part_texts(mf, kind, re_c) for it in _part_texts(mf, kind, im_c)}
        assert str(arr[i]) in exp, (hex(re_c), hex(im_c), str(arr[i]), exp)


def _check_array_str_like_complex64(mf, kind):
    """Arrays whose values have the same shortest text in the part format and
    in float32 print exactly as the complex64 array does."""
    vals = [1 + 2j, 3.5 - 4j, 0.25j, -0.5 + 0.1j, complex(np.nan, 1), complex(1, np.inf)]
    if kind == "complex32":  # (bfloat16 writes 100 as 1e+02: precision 2)
        vals += [0.1 + 0.2j, 12.5 - 0.3j, 100 + 0j]
    a = np.array(vals).astype(cdtype(mf, kind))
    b = np.array(vals).astype(np.complex64)
    assert str(a) == str(b)
    assert repr(a) == repr(b).replace("complex64", kind)
    assert np.array2string(a) == np.array2string(b)
    assert repr(a[:0]) == f"array([], dtype={kind})"


@EACH
@pytest.mark.xfail(strict=True,
                   reason="numpy/numpy#27231 and numpy/numpy#1740: NumPy's complex array formatter takes "
                          "np.finfo and .real of the dtype (NumPy 2.4 raises KeyError, 2.5.5 prints each "
                          "element's scalar str); mf.patch_numpy() prints complex64's layout")
def test_array_str_like_complex64(mf, kind):
    _check_array_str_like_complex64(mf, kind)


@pytest.mark.usefixtures("patched_numpy")
@EACH
def test_array_str_like_complex64_patched(mf, kind):
    _check_array_str_like_complex64(mf, kind)


def _namespace(mf):
    ns = {name: getattr(mf, name) for name in R.FORMAT_NAMES + KINDS}
    # NumPy writes complex infinities and NaNs as "1.+infj" / "nan+nanj"
    # (complex64's repr too): these names make such text evaluate
    ns.update(array=np.array, nan=np.nan, inf=np.inf, np=np, numpy=np,
              infj=complex(0, np.inf), nanj=complex(0, np.nan))
    return ns


def _forgive_unwritten_zero(got, want):
    """Signs of zero that no complex text carries: Python reads "-2j" as
    complex(-0.0, -2.0), "(4.77-0j)" as 4.77 - 0j (imaginary 0.0 - 0.0 = +0.0)
    and "(-0+2j)" as -0.0 + 2j (real -0.0 + 0.0 = +0.0); complex64's and
    Python's own reprs read back the same way. A zero part read back with
    the other sign is the text's doing, not the type's."""
    got = got.copy()
    both_zero = ((got & 0x7FFF) == 0) & ((want & 0x7FFF) == 0)
    got[both_zero] = want[both_zero]
    return got


@EACH
@pytest.mark.xfail(not NUMPY_2_5, strict=True,
                   reason="numpy/numpy#27231: NumPy 2.4's complex array formatter calls np.finfo on the dtype "
                          "(KeyError)")
def test_array_repr_round_trips_every_sampled_pair(mf, kind):
    """eval(repr(arr)) gives the same bits (NaN: NaN), for the 90000-pair
    sample as one array."""
    _check_array_repr_round_trip(mf, kind)


@pytest.mark.usefixtures("patched_numpy")
@EACH
def test_array_repr_round_trips_patched(mf, kind):
    _check_array_repr_round_trip(mf, kind)


def _check_array_repr_round_trip(mf, kind):
    pairs = unary_sample(kind)
    arr = make(mf, kind, pairs)
    with np.printoptions(threshold=1 << 20):
        text = repr(arr)
    back = quietly(eval, text, _namespace(mf))
    assert back.dtype == cdtype(mf, kind)
    assert_pairs(kind, _forgive_unwritten_zero(codes(back), pairs), pairs, "array repr")


@EACH
def test_scalar_repr_round_trips(mf, kind):
    """eval(repr(scalar)) and eval(str(scalar)) give the same bits, except
    the sign of a zero real part that the text leaves out: "-2j" is Python's
    complex(-0.0, -2.0) whatever was printed (np.complex64(complex(0, -1))
    prints as np.complex64(-1j) too)."""
    pairs = unary_sample(kind)
    arr = make(mf, kind, pairs)
    T = ctype(mf, kind)
    for i in range(0, len(arr), 89):
        s = arr[i]
        want = pairs[i:i + 1].copy()
        for text in (repr(s), str(s)):
            again = _forgive_unwritten_zero(codes(np.array(T(quietly(eval, text, _namespace(mf)))))[None], want)
            assert_pairs(kind, again, want, f"scalar text {text!r}")


# --------------------------------------------------------------------------
# Pickling, files
# --------------------------------------------------------------------------


@EACH
def test_pickle(mf, kind):
    pairs = unary_sample(kind)[::17]
    arr = make(mf, kind, pairs).reshape(-1)
    for proto in range(2, pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(arr, protocol=proto))
        assert back.dtype == arr.dtype
        np.testing.assert_array_equal(codes(back), pairs)
        s = pickle.loads(pickle.dumps(arr[3], protocol=proto))
        assert type(s) is ctype(mf, kind)
        np.testing.assert_array_equal(codes(np.array(s)), pairs[3])
    f = np.asfortranarray(arr[:600].reshape(20, 30))
    back = pickle.loads(pickle.dumps(f))
    np.testing.assert_array_equal(codes(back), pairs[:600].reshape(20, 30, 2))


@EACH
def test_mf_save_load(mf, kind, tmp_path):
    pairs = unary_sample(kind)[::5]
    arr = make(mf, kind, pairs).reshape(-1, 9)
    mf.save(tmp_path / "c.npy", arr)
    back = mf.load(tmp_path / "c.npy")
    assert back.dtype == arr.dtype and back.shape == arr.shape
    np.testing.assert_array_equal(codes(back), codes(arr))
    mf.savez(tmp_path / "c.npz", a=arr, b=np.arange(3))
    with mf.load(tmp_path / "c.npz") as z:
        np.testing.assert_array_equal(codes(z["a"]), codes(arr))


@EACH
def test_np_save_structured(mf, kind, tmp_path):
    dt = np.dtype([("z", cdtype(mf, kind)), ("x", np.float32)])
    s = np.zeros(5, dt)
    s["z"] = _arr(mf, kind, [1 + 2j, -3j, np.nan, 4, 0.5 - 0.25j])
    s["x"] = np.arange(5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a new-style dtype is stored by pickle
        np.save(tmp_path / "s.npy", s)
    back = np.load(tmp_path / "s.npy", allow_pickle=True)
    assert back.dtype == dt
    np.testing.assert_array_equal(codes(back["z"]), codes(s["z"]))
    np.testing.assert_array_equal(back["x"], s["x"])


# --------------------------------------------------------------------------
# ml_dtypes interop
# --------------------------------------------------------------------------


@EACH
def test_ml_dtypes_astype_and_views(mf, kind):
    md = pytest.importorskip("ml_dtypes")
    if not hasattr(md, kind):
        pytest.skip(f"ml_dtypes {md.__version__} has no {kind}")
    M = getattr(md, kind)
    pairs = unary_sample(kind)
    ours = make(mf, kind, pairs)
    theirs = np.ascontiguousarray(pairs).view(M)[..., 0]
    # astype both ways: the bits
    np.testing.assert_array_equal(codes(theirs.astype(cdtype(mf, kind))), pairs)
    np.testing.assert_array_equal(np.ascontiguousarray(ours.astype(M)).view(np.uint16).reshape(-1, 2), pairs)
    # zero-copy views
    v = mf.to_ml_dtypes(ours)
    assert v.dtype == np.dtype(M) and np.shares_memory(v, ours)
    w = mf.from_ml_dtypes(theirs)
    assert w.dtype == cdtype(mf, kind) and np.shares_memory(w, theirs)
    np.testing.assert_array_equal(codes(w), pairs)
    s = mf.from_ml_dtypes(theirs[3])
    assert type(s) is ctype(mf, kind)
    # the other ml_dtypes complex type: rounded once per part
    other = "bcomplex32" if kind == "complex32" else "complex32"
    if hasattr(md, other):
        got = codes(quietly(theirs.astype, cdtype(mf, other)))
        assert_pairs(other, got, C.encode(other, C.decode(kind, pairs)), f"ml_dtypes {kind} -> {other}",
                     operands=())


# --------------------------------------------------------------------------
# DLPack
# --------------------------------------------------------------------------


def test_dlpack_round_trip_complex32(mf):
    pairs = unary_sample("complex32")[::11][:8180]
    arr = make(mf, "complex32", pairs).reshape(-1, 10)
    back = mf.from_dlpack(mf.to_dlpack(arr))
    assert back.dtype == arr.dtype and back.shape == arr.shape
    assert np.shares_memory(back, arr)
    np.testing.assert_array_equal(codes(back), codes(arr))


def test_dlpack_torch_complex32(mf):
    torch = pytest.importorskip("torch")
    pairs = unary_sample("complex32")[::101]
    arr = make(mf, "complex32", pairs)
    t = torch.from_dlpack(mf.to_dlpack(arr))
    assert t.dtype == torch.complex32
    assert np.array_equal(t.view(torch.int16).numpy().view(np.uint16).reshape(-1, 2), pairs)
    back = mf.from_dlpack(t)
    assert back.dtype == arr.dtype
    np.testing.assert_array_equal(codes(back), pairs)


def test_dlpack_type_code_is_complex32(mf):
    """complex32 travels as DLPack's kDLComplex (5) with 32 bits, the code
    torch.complex32 uses; bcomplex32 has no DLPack type and says so."""
    from test_dlpack import capsule_info

    arr = _arr(mf, "complex32", [1 + 2j, 3 - 4j])
    info = capsule_info(mf.to_dlpack(arr).__dlpack__(max_version=(1, 1)))
    assert (info["code"], info["bits"], info["lanes"]) == (5, 32, 1)
    assert info["shape"] == (2,)
    with pytest.raises(BufferError):
        mf.to_dlpack(_arr(mf, "bcomplex32", [1 + 2j])).__dlpack__(max_version=(1, 1))


def test_names_import_from_minifloat():
    from minifloat import bcomplex32, complex32  # noqa: F401
    import minifloat

    # the scalar types are listed in minifloat.dtypes.__all__ (as every format's), the functions in minifloat's
    assert "complex32" in minifloat.dtypes.__all__ and "bcomplex32" in minifloat.dtypes.__all__
    assert "real" in minifloat.__all__ and "imag" in minifloat.__all__


@EACH
def test_scalar_arithmetic_with_python_and_numpy_scalars(mf, kind):
    T = ctype(mf, kind)
    z = T(1.5 + 2j)
    for other, fn in ((2, operator.mul), (0.1, operator.add), (1j, operator.sub), (3 + 1j, operator.truediv)):
        r = quietly(fn, z, other)
        assert type(r) is T, (other, type(r))  # Python scalars are weak
        # the Python operand is first converted to the type (rounded once), then the op rounds once
        o = C.encode(kind, np.array([complex(other)]))
        exp = C.complex_op(kind, fn, C.encode(kind, np.array([complex(z)])), o)
        assert_pairs(kind, codes(np.array(r))[None], exp, f"{fn.__name__} {other!r}")
    assert type(z * np.complex64(2)) is np.complex64
    assert type(z + np.float64(2)) is np.complex128
    assert type(-z) is T and complex(-z) == -(1.5 + 2j)
    assert z == T(1.5 + 2j) and z != T(1.5 - 2j) and z == 1.5 + 2j
    assert bool(T(0)) is False and bool(T(1j)) is True
    assert hash(T(1.5)) == hash(1.5)


# --------------------------------------------------------------------------
# The exhaustive sweep (run with -m exhaustive): every code in either part
# --------------------------------------------------------------------------


@pytest.mark.exhaustive
@EACH
@pytest.mark.parametrize("op", list(UNARY) + ["absolute"])
def test_unary_every_code_in_either_part(mf, kind, op):
    """All 65536 codes as real part with 64 sampled imaginary parts, and the
    other way round (8.4M values per op)."""
    allc = C.all_codes()
    sample = C.sample_codes(kind, 64, seed=99)
    for swap in (False, True):
        for chunk in np.array_split(sample, 8):
            re, im = np.meshgrid(allc, chunk, indexing="ij")
            pairs = C.pair_codes(im.reshape(-1), re.reshape(-1)) if swap else C.pair_codes(re.reshape(-1), im.reshape(-1))
            arr = make(mf, kind, pairs)
            if op == "absolute":
                assert_part_codes(kind, part_codes(quietly(np.abs, arr)), C.real_op(kind, np.abs, pairs), op)
            else:
                fn = UNARY[op]
                assert_pairs(kind, codes(quietly(fn, arr)), C.complex_op(kind, fn, pairs), op, operands=(pairs,))


@pytest.mark.exhaustive
@EACH
@pytest.mark.parametrize("op", list(BINARY) + list(COMPARE))
def test_binary_random_codes(mf, kind, op):
    """16M random operand pairs (uniform over all codes in all four parts)."""
    rng = np.random.default_rng(zlib.crc32(f"{kind} {op}".encode()))
    for _ in range(16):
        x = rng.integers(0, 1 << 16, (1 << 20, 2)).astype(np.uint16)
        y = rng.integers(0, 1 << 16, (1 << 20, 2)).astype(np.uint16)
        a, b = make(mf, kind, x), make(mf, kind, y)
        if op in COMPARE:
            fn = COMPARE[op]
            np.testing.assert_array_equal(quietly(fn, a, b), quietly(fn, C.decode(kind, x), C.decode(kind, y)))
        else:
            fn = BINARY[op]
            assert_pairs(kind, codes(quietly(fn, a, b)), C.complex_op(kind, fn, x, y), op, operands=(x, y))


@pytest.mark.exhaustive
@EACH
@pytest.mark.parametrize("src", ["float64", "complex128", "float32", "complex64"])
def test_casts_from_random_bit_patterns(mf, kind, src):
    """16M random binary64/binary32 bit patterns (half over every exponent,
    half with exponents around the part's range, low bits kept so that ties
    and near-ties of every kind occur) cast to the type, rounded once."""
    rng = np.random.default_rng(zlib.crc32(f"{kind} {src}".encode()))
    wide = src in ("float64", "complex128")
    p = C.part_of(kind)
    for _ in range(16):
        if wide:
            bits = rng.integers(0, 2**64, 1 << 20, dtype=np.uint64)
            near = rng.integers(1023 + p.emin - p.p - 3, 1023 + p.emax + 2, 1 << 19).astype(np.uint64)
            bits[: 1 << 19] = (bits[: 1 << 19] & np.uint64(0x800FFFFFFFFFFFFF)) | (near << np.uint64(52))
            # ties: clear the bits below the part's rounding position on a quarter of them
            x = bits.view(np.float64)
        else:
            bits = rng.integers(0, 2**32, 1 << 20, dtype=np.uint64).astype(np.uint32)
            near = rng.integers(127 + p.emin - p.p - 3, 127 + p.emax + 2, 1 << 19).astype(np.uint32)
            bits[: 1 << 19] = (bits[: 1 << 19] & np.uint32(0x807FFFFF)) | (near << np.uint32(23))
            x = bits.view(np.float32)
        tie_mask = ~np.uint64((1 << (52 - p.mbits - 1)) - 1) if wide else ~np.uint32((1 << (23 - p.mbits - 1)) - 1)
        bits[::4] &= tie_mask  # exact midpoints and values on the grid
        x64 = quietly(x.astype, np.float64)  # (signalling NaNs widen with an invalid flag)
        if src.startswith("complex"):
            z = np.empty(len(x) // 2, src)
            z.real, z.imag = x[0::2], x[1::2]
            got = codes(quietly(z.astype, cdtype(mf, kind)))
            exp = C.pair_codes(C.encode_part(kind, x64[0::2]), C.encode_part(kind, x64[1::2]))
        else:
            got = codes(quietly(x.astype, cdtype(mf, kind)))
            exp = C.pair_codes(C.encode_part(kind, x64), 0)
        assert_pairs(kind, got, exp, f"{src} -> {kind}", nan_sign=True)


# --------------------------------------------------------------------------
# Casts with the sub-byte integers and with formats made at run time
# --------------------------------------------------------------------------

SUB_BYTE_INTS = {"int1": (-1, 0), "int2": (-2, 1), "int4": (-8, 7), "uint1": (0, 1), "uint2": (0, 3), "uint4": (0, 15)}


@EACH
@pytest.mark.parametrize("name", list(SUB_BYTE_INTS))
def test_sub_byte_integers_both_ways(mf, kind, name):
    """Every value in (exact: a safe cast), and back the real part truncated
    as from a float, with ComplexWarning."""
    lo, hi = SUB_BYTE_INTS[name]
    I = getattr(mf, name)
    vals = np.arange(lo, hi + 1)
    x = vals.astype(I)
    got = codes(x.astype(cdtype(mf, kind)))
    assert_pairs(kind, got, C.pair_codes(C.encode_part(kind, vals.astype(np.float64)), 0), f"{name} -> {kind}")
    assert np.can_cast(I, cdtype(mf, kind))
    z = np.array([complex(v + 0.75 * (1 if v >= 0 else -1), 3) for v in vals])
    z = z[(np.trunc(z.real) >= lo) & (np.trunc(z.real) <= hi)]
    with pytest.warns(ComplexWarning):
        back = z.astype(cdtype(mf, kind)).astype(I)
    np.testing.assert_array_equal(back.astype(np.int64), np.trunc(C.decode(kind, C.encode(kind, z)).real).astype(np.int64))


@EACH
def test_formats_made_at_run_time(mf, kind):
    """A format of mf.float_format casts both ways like a built-in one: every
    code in, rounded once; the real part out, rounded once (ComplexWarning)."""
    params = dict(exponent_bits=5, mantissa_bits=4, infinities=False, nan=True)
    f = R.describe(**params)
    F = np.dtype(mf.float_format(**params))
    allc = np.arange(f.ncodes).astype(f.code_dtype)
    vals = quietly(R.decode_array, f, allc)
    got = codes(quietly(allc.view(F).astype, cdtype(mf, kind)))
    assert_pairs(kind, got, C.pair_codes(C.encode_part(kind, vals), 0), "user format -> " + kind, nan_sign=True)
    pairs = unary_sample(kind)[::7]
    re = C.decode_part(kind, pairs[:, 0])
    fin = ~np.isnan(re)
    with pytest.warns(ComplexWarning), np.errstate(all="ignore"):
        out = make(mf, kind, pairs).astype(F)
    exp = quietly(R.encode_array, f, re[fin])[0]
    np.testing.assert_array_equal(np.ascontiguousarray(out).view(f.code_dtype)[fin], exp)
