"""Interop with ml_dtypes, and through it JAX and ONNX, without .view detours.

* astype between ml_dtypes' and minifloat's dtypes, both ways: a bit copy
  for the same format (every code), one correct rounding between formats
  (every code of every pair, against the exact reference, flags included);
  NumPy's can_cast / result_type from exact representability;
* mf.to_ml_dtypes / mf.from_ml_dtypes: views of the same memory, scalars;
* mf.cast on ml_dtypes arrays: their codes read as the same format, every
  rounding mode against the exact reference (cast_mode_reference);
* JAX (CPU) and ONNX round trips through to_ml_dtypes;
* fresh interpreters: MINIFLOAT_NO_ML_DTYPES=1, ml_dtypes imported before or
  after minifloat, ml_dtypes missing.

Expected codes come from tests/reference.py (exact decode, single rounding),
never from ml_dtypes.
"""

import os
import subprocess
import sys
import warnings
import zlib

import numpy as np
import pytest

import cast_mode_reference as I
import reference as R

md = pytest.importorskip("ml_dtypes")

# Every minifloat format ml_dtypes has (all twelve of its formats in
# ml_dtypes 0.6; minifloat's P3109 formats are not among them).
SHARED = [n for n in R.FORMAT_NAMES if getattr(md, n, None) is not None]
EACH = pytest.mark.parametrize("name", SHARED)
# ordered pairs of two different formats
EACH_PAIR = pytest.mark.parametrize("src,dst", [(a, b) for a in SHARED for b in SHARED if a != b])
STD = {"float16": np.float16, "float32": np.float32, "float64": np.float64}


def ml(name):
    return getattr(md, name)


def codes(a):
    return R.codes_of(np.asarray(a)).reshape(-1)


def assert_codes(got, exp, label):
    got, exp = codes(got), np.asarray(exp).reshape(-1)
    assert got.shape == exp.shape, (label, got.shape, exp.shape)
    bad = np.nonzero(got != exp)[0]
    assert bad.size == 0, (
        f"{label}: {bad.size} of {exp.size} differ; (index, expected, got): "
        + str([(int(i), hex(int(exp[i])), hex(int(got[i]))) for i in bad[:8]])
    )


def quietly(fn, *args, **kwargs):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def dtype_of(mf, name):
    return np.dtype(getattr(mf, name)) if name in R.FORMATS else np.dtype(STD[name])


def test_ml_dtypes_has_every_format():
    # ml_dtypes 0.6 has all twelve; an older one may lack some, which the
    # rest of this file skips
    if tuple(int(part) for part in md.__version__.split(".")[:2]) >= (0, 6):
        assert SHARED == [n for n in R.FORMAT_NAMES if not n.startswith("binary8p")]


@EACH
def test_same_bits_are_the_same_value(name):
    """The premise of the bit copies: ml_dtypes reads every code as the
    reference does (values, NaN-ness and signs)."""
    c = R.all_codes(name)
    with np.errstate(all="ignore"):
        got = c.view(ml(name)).astype(np.float64)
    exp = R.decode_array(name, c)
    nan = np.isnan(exp)
    assert (np.isnan(got) == nan).all()
    assert (got[~nan] == exp[~nan]).all()
    assert (np.signbit(got[~nan]) == np.signbit(exp[~nan])).all()


# --------------------------------------------------------------------------
# astype, same format: a copy of the bits, both ways
# --------------------------------------------------------------------------


@EACH
def test_same_format_every_code_both_directions(mf, name):
    T, M = getattr(mf, name), ml(name)
    c = R.all_codes(name)
    a = c.view(T)
    with np.errstate(all="raise"):  # a copy raises no floating-point flag
        to_ml = a.astype(M)
        assert to_ml.dtype == np.dtype(M)
        assert not np.shares_memory(to_ml, a)  # astype copies
        assert_codes(to_ml, c, f"mf.{name} -> ml_dtypes.{name}")
        back = c.view(M).astype(T)
        assert back.dtype == np.dtype(T)
        assert_codes(back, c, f"ml_dtypes.{name} -> mf.{name}")
        # strided and reversed
        assert_codes(a[::-3].astype(M), c[::-3], f"{name} strided")
        assert_codes(c.view(M)[::-3].astype(T), c[::-3], f"{name} strided back")
        # np.array / np.asarray / copyto with a dtype of the other library
        assert_codes(np.array(c.view(M), dtype=T), c, f"{name} np.array")
        assert_codes(np.asarray(a, dtype=M), c, f"{name} np.asarray")
        out = np.empty(c.shape, dtype=M)
        np.copyto(out, a, casting="equiv")
        assert_codes(out, c, f"{name} copyto")


@EACH
def test_same_format_can_cast_is_equiv_both_ways(mf, name):
    T, M = np.dtype(getattr(mf, name)), np.dtype(ml(name))
    for a, b in ((T, M), (M, T)):
        assert np.can_cast(a, b, "equiv")
        assert np.can_cast(a, b, "safe")
        assert not np.can_cast(a, b, "no")  # two dtypes, as for byte orders
    assert np.result_type(T, M) == T and np.result_type(M, T) == T
    # astype(copy=False) between the two copies: they are different dtypes
    a = np.zeros(3, T)
    assert a.astype(M, copy=False).dtype == M


def test_default_descriptors(mf):
    """A cast with no output descriptor given makes ml_dtypes' own one, and
    a given byte-swapped ml_dtypes bfloat16 is read and written right."""
    for name in SHARED:
        T, M = getattr(mf, name), ml(name)
        assert np.zeros(2, T).astype(M).dtype is np.dtype(M)
        assert np.zeros(2, M).astype(T).dtype is np.dtype(T)
    c = R.all_codes("bfloat16")
    swapped = np.dtype(md.bfloat16).newbyteorder(">")
    a = c.byteswap().view(np.uint8).view(swapped)  # big-endian codes
    got = a.astype(mf.bfloat16)
    assert_codes(got, c, "big-endian ml_dtypes.bfloat16 -> mf.bfloat16")
    out = c.view(mf.bfloat16).astype(swapped)
    assert out.dtype == swapped
    assert_codes(out.view(np.uint8).view(">u2").astype(np.uint16), c, "mf.bfloat16 -> big-endian")


@pytest.mark.parametrize("name", [n for n in SHARED if R.FORMATS[n].bits == 16])
def test_unaligned_sixteen_bit(mf, name):
    c = R.all_codes(name)
    raw = np.zeros(2 * c.size + 1, dtype=np.uint8)
    src = raw[1:].view(ml(name))
    assert not src.flags.aligned
    src.view(np.uint16)[...] = c  # via the uint16 view: writes the codes
    assert_codes(src.astype(getattr(mf, name)), c, f"unaligned {name}")
    raw2 = np.zeros(2 * c.size + 1, dtype=np.uint8)
    dst = raw2[1:].view(getattr(mf, name))
    dst[...] = c.view(ml(name))
    assert_codes(dst, c, f"unaligned {name} destination")


# --------------------------------------------------------------------------
# astype between formats: one rounding from the exact value
# --------------------------------------------------------------------------


def expected_conversion(src, dst):
    """(codes, overflow, invalid) of every src code into dst, from the
    reference (decode exactly, round once; NaN keeps the code's sign)."""
    values = R.decode_array(src, R.all_codes(src))
    got, flags = R.encode_array(dst, values)
    return got, bool(flags["overflow"].any()), bool(flags["invalid"].any())


def fp_flags_of(cast):
    """(overflow, invalid) that `cast()` raises as NumPy floating-point errors."""
    raised = {}
    for flag in ("over", "invalid"):
        with np.errstate(all="ignore", **{flag: "raise"}):
            try:
                cast()
                raised[flag] = False
            except FloatingPointError:
                raised[flag] = True
    with np.errstate(all="ignore", under="raise"):
        cast()  # underflow is never reported for these results
    return raised["over"], raised["invalid"]


@EACH_PAIR
def test_cross_format_every_code_both_directions(mf, src, dst):
    c = R.all_codes(src)
    exp, overflow, invalid = expected_conversion(src, dst)
    if R.FORMATS[src].bits <= 8:  # cross-check the vectorized reference with the Fraction path
        assert all(R.convert(src, dst, int(k))[0] == exp[k] for k in c)
    from_ml = c.view(ml(src))
    got = quietly(from_ml.astype, getattr(mf, dst))
    assert got.dtype == np.dtype(getattr(mf, dst))
    assert_codes(got, exp, f"ml_dtypes.{src} -> mf.{dst}")
    assert_codes(quietly(from_ml[::-2].astype, getattr(mf, dst)), exp[::-2], f"ml_dtypes.{src} -> mf.{dst} strided")
    assert fp_flags_of(lambda: from_ml.astype(getattr(mf, dst))) == (overflow, invalid)

    from_mf = c.view(getattr(mf, src))
    got = quietly(from_mf.astype, ml(dst))
    assert got.dtype == np.dtype(ml(dst))
    assert_codes(got, exp, f"mf.{src} -> ml_dtypes.{dst}")
    assert fp_flags_of(lambda: from_mf.astype(ml(dst))) == (overflow, invalid)


@EACH
def test_pack_takes_ml_dtypes_arrays(mf, name):
    """mf.pack of an ml_dtypes array packs the same codes as minifloat's
    (every code), as mf.cast reads them."""
    codes = np.arange(256 if np.dtype(getattr(md, name)).itemsize == 1 else 65536, dtype=np.uint64)
    bits = mf.format_info(name)["bits"]
    codes = (codes & ((1 << bits) - 1)).astype(np.uint8 if bits <= 8 else np.uint16)
    theirs = codes.view(getattr(md, name))
    assert np.array_equal(mf.pack(theirs), mf.pack(codes.view(getattr(mf, name))))


@pytest.mark.parametrize("name", [n for n in ("int1", "int2", "int4", "uint1", "uint2", "uint4") if hasattr(md, n)])
def test_pack_takes_ml_dtypes_integer_arrays(mf, name):
    """ml_dtypes keeps a signed type's low bits; mf.pack of its array packs
    the same values as minifloat's array of them."""
    values = list(range(int(md.iinfo(getattr(md, name)).min), int(md.iinfo(getattr(md, name)).max) + 1))
    theirs = np.array(values, dtype=getattr(md, name))
    assert np.array_equal(mf.pack(theirs), mf.pack(np.array(values, dtype=getattr(mf, name))))


def test_float64_source_rounds_once_unlike_ml_dtypes(mf):
    """The design's example: float64 1 + 2^-4 + 2^-40 is just above the tie
    between 1 and 1.125 in float8_e4m3fn. Through minifloat it becomes 1.125,
    also when the result is wanted as an ml_dtypes array."""
    x = np.array([1 + 2**-4 + 2**-40])
    exp = R.encode("float8_e4m3fn", x[0])[0]
    assert R.decode("float8_e4m3fn", exp) == 1.125
    assert_codes(x.astype(mf.float8_e4m3fn).astype(md.float8_e4m3fn), [exp], "via minifloat")
    assert_codes(mf.to_ml_dtypes(x.astype(mf.float8_e4m3fn)), [exp], "via to_ml_dtypes")


@EACH_PAIR
def test_can_cast_follows_exact_representability(mf, src, dst):
    safe = R.safe_cast(src, dst)
    for a, b in ((ml(src), getattr(mf, dst)), (getattr(mf, src), ml(dst))):
        assert np.can_cast(a, b, "safe") == safe, (a, b)
        assert np.can_cast(a, b, "same_kind")
        assert not np.can_cast(a, b, "equiv")
        # the same answer as between minifloat's own dtypes
        assert np.can_cast(getattr(mf, src), getattr(mf, dst), "safe") == safe


@pytest.mark.parametrize("src", SHARED)
@pytest.mark.parametrize("dst", SHARED)
def test_result_type_is_minifloat_common_type(mf, src, dst):
    exp = dtype_of(mf, R.common_type(src, dst))
    assert np.result_type(ml(src), getattr(mf, dst)) == exp
    assert np.result_type(getattr(mf, dst), ml(src)) == exp
    # a minifloat dtype (or NumPy's), never ml_dtypes' own
    assert not isinstance(np.result_type(ml(src), getattr(mf, dst)), type(np.dtype(ml(src))))


def test_mixed_ufunc_uses_the_common_type(mf):
    rng = np.random.default_rng(7)
    for src, dst in (("bfloat16", "float8_e4m3fn"), ("float8_e5m2", "float8_e4m3fn"),
                     ("float8_e4m3fn", "float8_e4m3fn"), ("float4_e2m1fn", "float6_e2m3fn")):
        a = rng.integers(0, R.FORMATS[src].ncodes, 300).astype(R.FORMATS[src].code_dtype)
        b = rng.integers(0, R.FORMATS[dst].ncodes, 300).astype(R.FORMATS[dst].code_dtype)
        got = quietly(np.add, a.view(ml(src)), b.view(getattr(mf, dst)))
        assert got.dtype == dtype_of(mf, R.common_type(src, dst))
        # the same as with minifloat's dtype of the ml_dtypes operand's format
        same = quietly(np.add, a.view(getattr(mf, src)), b.view(getattr(mf, dst)))
        assert same.dtype == got.dtype
        assert (got.view(f"u{got.itemsize}") == same.view(f"u{got.itemsize}")).all()


# --------------------------------------------------------------------------
# mf.to_ml_dtypes / mf.from_ml_dtypes: views
# --------------------------------------------------------------------------


@EACH
def test_to_and_from_ml_dtypes_share_memory(mf, name):
    T, M = getattr(mf, name), ml(name)
    c = R.all_codes(name).copy()
    a = c.view(T)
    m = mf.to_ml_dtypes(a)
    assert type(m) is np.ndarray and m.dtype == np.dtype(M)
    assert np.shares_memory(m, a)
    assert_codes(m, c, f"to_ml_dtypes {name}")
    back = mf.from_ml_dtypes(m)
    assert back.dtype == np.dtype(T) and np.shares_memory(back, a)
    assert_codes(back, c, f"from_ml_dtypes {name}")
    # writes through one are seen by the other
    m[0] = m[3]
    assert codes(a)[0] == c[3]
    # any layout: strided, 2-d, 0-d
    v = a[::-5]
    assert np.shares_memory(mf.to_ml_dtypes(v), a)
    assert_codes(mf.to_ml_dtypes(v), c[::-5], "strided")
    grid = a[: (a.size // 4) * 4].reshape(4, -1).T
    assert mf.to_ml_dtypes(grid).shape == grid.shape
    assert_codes(mf.from_ml_dtypes(mf.to_ml_dtypes(grid)), codes(grid), "2-d")
    zero_d = a[5:6].reshape(())
    assert mf.to_ml_dtypes(zero_d).shape == ()
    assert np.shares_memory(mf.to_ml_dtypes(zero_d), a)


@EACH
def test_scalars_both_ways(mf, name):
    T, M = getattr(mf, name), ml(name)
    for k in R.all_codes(name)[:: max(1, R.FORMATS[name].ncodes // 64)]:
        s = np.asarray(k).view(T)[()]
        t = mf.to_ml_dtypes(s)
        assert type(t) is M
        assert codes(np.asarray(t)) == k
        u = mf.from_ml_dtypes(t)
        assert type(u) is T
        assert codes(np.asarray(u)) == k


def test_interop_type_errors(mf, monkeypatch):
    with pytest.raises(TypeError, match="minifloat array"):
        mf.to_ml_dtypes(np.zeros(3, md.float8_e4m3fn))
    with pytest.raises(TypeError, match="minifloat array"):
        mf.to_ml_dtypes([1.0, 2.0])
    with pytest.raises(TypeError, match="already minifloat"):
        mf.from_ml_dtypes(np.zeros(3, mf.float8_e4m3fn))
    with pytest.raises(TypeError, match="ml_dtypes"):
        mf.from_ml_dtypes("abc")
    # the list of what it takes names only types this ml_dtypes has
    with pytest.raises(TypeError, match="a type minifloat has") as raised:
        mf.from_ml_dtypes(np.zeros(3, [("a", np.float32)]))
    assert "bfloat16" in str(raised.value) and "binary8p3se" not in str(raised.value)
    if hasattr(md, "int4"):  # ml_dtypes' integer types map to minifloat's (tests/test_int_ml_dtypes.py)
        assert mf.from_ml_dtypes(np.zeros(3, md.int4)).dtype == np.dtype(mf.int4)
    # a format this ml_dtypes lacks
    monkeypatch.delattr(md, "float8_e3m4")
    with pytest.raises(TypeError, match="has no float8_e3m4"):
        mf.to_ml_dtypes(np.zeros(3, mf.float8_e3m4))


def test_numpy_types_pass_through_both_ways(mf):
    """NumPy's own types are the same in both libraries: a tree of mixed
    arrays (a JAX model's parameters) maps in one call."""
    leaves = [np.arange(3, dtype=np.float32), np.ones((2, 2), md.bfloat16), np.int8(5), np.arange(2)]
    mapped = [mf.from_ml_dtypes(leaf) for leaf in leaves]
    assert mapped[0] is leaves[0] and mapped[2] is leaves[2] and mapped[3] is leaves[3]
    assert mapped[1].dtype == np.dtype(mf.bfloat16) and np.shares_memory(mapped[1], leaves[1])
    back = [mf.to_ml_dtypes(leaf) for leaf in mapped]
    assert back[0] is leaves[0] and back[2] is leaves[2]
    assert back[1].dtype == np.dtype(md.bfloat16) and np.shares_memory(back[1], leaves[1])


def test_quantizers_take_ml_dtypes_arrays_and_dtypes(mf):
    """bfloat16 weights from JAX/ml_dtypes quantize as minifloat's of the
    same format; a dequantize into ml_dtypes' type rounds once (minifloat)
    and comes back as ml_dtypes'."""
    rng = np.random.default_rng(5)
    w32 = rng.standard_normal((8, 64)).astype(np.float32)
    w = w32.astype(mf.bfloat16)
    w_ml = mf.to_ml_dtypes(w)
    for quantize in (lambda a: mf.mx.quantize(a, "mxfp8_e4m3"), lambda a: mf.mx.quantize(a, "nvfp4"),
                     lambda a: mf.quant.quantize(a, mf.float8_e4m3fn, granularity="channel")):
        ours, theirs = quantize(w), quantize(w_ml)
        assert ours.data.tobytes() == theirs.data.tobytes()
        assert ours.scales.tobytes() == theirs.scales.tobytes()
        out = theirs.dequantize(md.bfloat16)
        assert out.dtype == np.dtype(md.bfloat16)
        assert out.tobytes() == ours.dequantize(mf.bfloat16).tobytes()
        # one rounding from the exact values, not through float32
        assert out.view(np.uint16).tolist() == ours.dequantize(np.float64).astype(mf.bfloat16).view(
            np.uint16).tolist()
    assert mf.finfo(md.bfloat16).max == mf.finfo(mf.bfloat16).max
    assert mf.finfo(np.dtype(md.float8_e4m3fn)).max == 448
    if hasattr(md, "int4"):
        assert (mf.iinfo(md.int4).min, mf.iinfo(md.int4).bits) == (-8, 4)


def test_savers_store_ml_dtypes_arrays_as_the_same_format(mf, tmp_path):
    """mf.save, mf.savez and mf.save_safetensors write an ml_dtypes array
    as minifloat's of the same format (never void bytes); mf.load(dtype=)
    reads the void array np.save writes for one."""
    codes = np.arange(256, dtype=np.uint8)
    m = codes.view(md.float8_e4m3fn)
    mf.save(tmp_path / "a.npy", m)
    loaded = mf.load(tmp_path / "a.npy")
    assert loaded.dtype == np.dtype(mf.float8_e4m3fn) and loaded.view(np.uint8).tolist() == codes.tolist()
    mf.savez(tmp_path / "b.npz", b=np.ones(3, md.bfloat16))
    with mf.load(tmp_path / "b.npz") as archive:
        assert archive["b"].dtype == np.dtype(mf.bfloat16)
    mf.save_safetensors(tmp_path / "c.safetensors", {"x": m})
    assert mf.load_safetensors(tmp_path / "c.safetensors")["x"].view(np.uint8).tolist() == codes.tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's: custom dtypes are saved as python objects
        np.save(tmp_path / "d.npy", m)
    assert np.load(tmp_path / "d.npy", allow_pickle=False).dtype.str == "|V1"  # NumPy wrote void bytes
    again = mf.load(tmp_path / "d.npy", dtype=mf.float8_e4m3fn)
    assert again.dtype == np.dtype(mf.float8_e4m3fn) and again.view(np.uint8).tolist() == codes.tolist()
    # a pickled minifloat array (np.save of one): mf.load says how to read it
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.save(tmp_path / "e.npy", np.ones(2, mf.float8_e4m3fn))
    with pytest.raises(ValueError, match=r"allow_pickle=True\) reads it, and mf.save"):
        mf.load(tmp_path / "e.npy")


# --------------------------------------------------------------------------
# mf.cast reads ml_dtypes codes as the same format
# --------------------------------------------------------------------------


@pytest.mark.parametrize("src", SHARED)
def test_cast_of_ml_dtypes_arrays_every_mode(mf, src):
    c = R.all_codes(src)
    values = R.decode_array(src, c)  # exact; NaN sign = the code's sign bit
    source = c.view(ml(src))
    for dst in SHARED:
        T = getattr(mf, dst)
        for mode in I.MODES:
            for saturate in (False, True):
                seed = zlib.crc32(f"ml/{src}/{dst}/{mode}/{saturate}".encode())
                kw = dict(rounding=mode, saturate=saturate)
                draws = None
                if mode == "stochastic":
                    kw["rng"] = seed
                    draws = I.draws_for(seed, c.size)  # the counter rule mf.cast documents
                got = quietly(mf.cast, source, T, **kw)
                assert got.dtype == np.dtype(T)
                exp = I.cast_array(dst, values, mode, saturate, draws)[0]
                assert_codes(got, exp, f"mf.cast(ml_dtypes.{src}) -> {dst} {mode} saturate={saturate}")


def test_cast_into_an_ml_dtypes_dtype_says_what_to_pass(mf):
    with pytest.raises(TypeError, match="pass mf.float8_e4m3fn"):
        mf.cast(np.zeros(2), md.float8_e4m3fn)


def test_cast_of_ml_dtypes_scalar(mf):
    s = md.float8_e5m2(3.5)  # exactly 3.5: its code is exact in e5m2
    got = mf.cast(s, mf.float8_e4m3fn, rounding="down")
    assert type(got) is mf.float8_e4m3fn
    assert codes(np.asarray(got)) == R.encode("float8_e4m3fn", 3.5)[0]


# --------------------------------------------------------------------------
# JAX (CPU) and ONNX through ml_dtypes
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def jnp():
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    pytest.importorskip("jax")
    import jax.numpy

    return jax.numpy


@EACH
def test_jax_round_trip(mf, jnp, name):
    import jax

    c = R.all_codes(name)
    x = c.view(getattr(mf, name))
    try:
        j = jnp.asarray(mf.to_ml_dtypes(x))
        j.block_until_ready()
    except Exception as error:  # noqa: BLE001 - JAX's own error types vary by version
        if "PrimitiveType" in str(error) or "dtype" in str(error).lower():
            pytest.skip(f"JAX {jax.__version__} has no {name} arrays: {str(error)[:80]}")
        raise
    assert j.dtype == np.dtype(ml(name))
    assert_codes(mf.from_ml_dtypes(np.asarray(j)), c, f"JAX {name}")
    assert_codes(mf.from_ml_dtypes(j), c, f"JAX {name}, array given directly")
    # JAX computes on the same values: its float32 of every code is exact
    with np.errstate(all="ignore"):
        f = np.asarray(j.astype(jnp.float32)).astype(np.float64)
    exp = R.decode_array(name, c)
    nan = np.isnan(exp)
    assert (np.isnan(f) == nan).all() and (f[~nan] == exp[~nan]).all()


# ONNX TensorProto element types of the formats (ONNX 1.15 float8, 1.16+ the rest).
ONNX_TYPES = {
    "float8_e4m3fn": "FLOAT8E4M3FN",
    "float8_e4m3fnuz": "FLOAT8E4M3FNUZ",
    "float8_e5m2": "FLOAT8E5M2",
    "float8_e5m2fnuz": "FLOAT8E5M2FNUZ",
    "float8_e8m0fnu": "FLOAT8E8M0",
    "float6_e2m3fn": "FLOAT6E2M3",
    "float6_e3m2fn": "FLOAT6E3M2",
    "float4_e2m1fn": "FLOAT4E2M1",
    "bfloat16": "BFLOAT16",
}


@pytest.mark.parametrize("name", [n for n in ONNX_TYPES if n in SHARED])
def test_onnx_round_trip(mf, name):
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper

    element_type = getattr(onnx.TensorProto, ONNX_TYPES[name], None)
    if element_type is None:
        pytest.skip(f"onnx {onnx.__version__} has no {ONNX_TYPES[name]}")
    c = R.all_codes(name)
    x = c.view(getattr(mf, name))
    tensor = numpy_helper.from_array(mf.to_ml_dtypes(x), name="x")
    assert tensor.data_type == element_type
    # ONNX stores FP4/FP6 packed: the same bytes as mf.pack
    if tensor.raw_data:
        assert tensor.raw_data == (mf.pack(x).tobytes() if R.FORMATS[name].bits < 8 else x.tobytes())
    back = numpy_helper.to_array(tensor)
    assert_codes(mf.from_ml_dtypes(back), c, f"ONNX {name}")


# --------------------------------------------------------------------------
# Fresh interpreters: how ml_dtypes is (or is not) imported
# --------------------------------------------------------------------------

_CHECK_WORKS = """
import sys
import numpy as np, minifloat as mf
# a bare name is ml_dtypes' where ml_dtypes registered it, else minifloat's
for name in mf.FORMAT_NAMES:
    held = np.dtype(name).type
    assert held is getattr(mf, name) or held is getattr(sys.modules.get("ml_dtypes"), name, None), name
x = np.array([0.1, 1.5, 448.0], dtype=mf.float8_e4m3fn)
assert x.astype(np.float32).tolist() == [0.1015625, 1.5, 448.0]
assert (x + 1.0).dtype == mf.float8_e4m3fn
"""

_CHECK_LINKED = """
import ml_dtypes as md
m = np.array([1.0, 3.5, 448.0], dtype=md.float8_e5m2)
a = m.astype(mf.float8_e4m3fn)
assert a.dtype == mf.float8_e4m3fn and float(a[1]) == 3.5, a
assert a.astype(md.float8_e4m3fn).dtype == np.dtype(md.float8_e4m3fn)
assert np.can_cast(md.bfloat16, mf.bfloat16, "equiv")
assert np.shares_memory(mf.to_ml_dtypes(a), a)
"""


def run_fresh(script, **env):
    environment = dict(os.environ)
    environment.pop("MINIFLOAT_NO_ML_DTYPES", None)
    environment.update(env)
    done = subprocess.run([sys.executable, "-W", "error", "-c", script], capture_output=True,
                          text=True, env=environment, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_fresh_minifloat_imports_ml_dtypes(mf):
    out = run_fresh("import sys\n" + _CHECK_WORKS + _CHECK_LINKED
                    + "print(sorted(k for k in sys.modules if k == 'ml_dtypes'))\n")
    assert "['ml_dtypes']" in out


def test_fresh_ml_dtypes_imported_first(mf):
    run_fresh("import ml_dtypes\n" + _CHECK_WORKS + _CHECK_LINKED)


def test_fresh_ml_dtypes_imported_after(mf):
    run_fresh(_CHECK_WORKS + "import ml_dtypes\n" + _CHECK_WORKS + _CHECK_LINKED)


def test_fresh_without_ml_dtypes(mf):
    """MINIFLOAT_NO_ML_DTYPES=1: minifloat does not import ml_dtypes and works;
    the views still work (they import ml_dtypes when called, which takes the
    format names, and minifloat does not take them back); astype between the
    libraries does not."""
    run_fresh(_CHECK_WORKS + """
import sys
assert 'ml_dtypes' not in sys.modules
m = mf.to_ml_dtypes(x)
assert 'ml_dtypes' in sys.modules and np.shares_memory(m, x)
assert np.dtype('float8_e4m3fn').type is sys.modules['ml_dtypes'].float8_e4m3fn
assert mf.from_ml_dtypes(m).dtype == mf.float8_e4m3fn
try:
    m.astype(mf.float8_e4m3fn)
except TypeError:
    pass
else:
    raise AssertionError("casts were registered although MINIFLOAT_NO_ML_DTYPES=1")
""", MINIFLOAT_NO_ML_DTYPES="1")


def test_fresh_ml_dtypes_missing(mf):
    """As if ml_dtypes were not installed: a quiet import (-W error), and a
    clear TypeError from the views."""
    run_fresh("import sys\nsys.modules['ml_dtypes'] = None\n" + _CHECK_WORKS + """
try:
    mf.to_ml_dtypes(x)
except TypeError as error:
    assert "not installed" in str(error), error
else:
    raise AssertionError("no TypeError")
""")


def fake_ml_dtypes(tmp_path, source):
    """PYTHONPATH putting a package named ml_dtypes with `source` first."""
    package = tmp_path / "ml_dtypes"
    package.mkdir()
    (package / "__init__.py").write_text(source)
    return os.pathsep.join([str(tmp_path)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])


_IMPORT_RECORDING_WARNINGS = """
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import minifloat
messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
"""


def test_fresh_broken_ml_dtypes_warns_and_works(mf, tmp_path):
    """An ml_dtypes that fails on import: minifloat says so and works without it."""
    path = fake_ml_dtypes(tmp_path, "raise RuntimeError('a broken build')\n")
    run_fresh(_IMPORT_RECORDING_WARNINGS + """
assert len(messages) == 1 and "importing ml_dtypes failed" in messages[0] and "a broken build" in messages[0], messages
""" + _CHECK_WORKS, PYTHONPATH=path)


def test_fresh_ml_dtypes_with_wrong_types_is_not_linked(mf, tmp_path):
    """Names that are not ml_dtypes' own DTypes of the format are left alone:
    NumPy's types (whose casts minifloat has already), and junk (a warning)."""
    path = fake_ml_dtypes(tmp_path, "import numpy as np\n"
                                    "float8_e4m3fn = 3\nfloat8_e5m2 = np.uint8\nbfloat16 = np.float16\n")
    run_fresh(_IMPORT_RECORDING_WARNINGS + """
assert len(messages) == 1 and "reading an ml_dtypes type failed" in messages[0], messages
""" + _CHECK_WORKS + """
assert np.arange(4, dtype=np.uint8).astype(mf.float8_e5m2).tolist() == [0, 1, 2, 3]
assert np.can_cast(np.float16, mf.bfloat16, "same_kind") and not np.can_cast(np.float16, mf.bfloat16, "safe")
""", PYTHONPATH=path)
