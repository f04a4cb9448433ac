"""Issue 30, item 5: strict, consistent arguments across mf.cast, mf.mx,
mf.quant, pack/unpack, float_format, DLPack and finfo/format_info.

Flags are True or False (a NumPy bool too); sizes and axes go through
operator.index (no floats, strings or bools); choices are one of their
strings; None is no dtype; a format's fixed block size (NVFP4's 16) cannot be
changed; a 0-d input keeps its shape or is refused clearly; every error names
the argument and the value passed; one name per concept (block_size), old
spellings working with a DeprecationWarning that names the new one. Each
valid spelling keeps giving the result it gave before."""
import re
import warnings
from fractions import Fraction

import numpy as np
import pytest

X = np.linspace(-3, 3, 64, dtype=np.float32)
W = X.reshape(8, 8)


def raises_naming(exception, *words):
    """pytest.raises(exception) whose message holds every one of `words`."""
    return pytest.raises(exception, match="(?s)" + "".join(f"(?=.*{re.escape(w)})" for w in words))


def same_mx(a, b):
    return (a.format, a.block_size, a.axis, a.shape) == (b.format, b.block_size, b.axis, b.shape) and \
        np.array_equal(np.asarray(a.data).view(np.uint8), np.asarray(b.data).view(np.uint8)) and \
        np.array_equal(np.asarray(a.scales).view(np.uint8), np.asarray(b.scales).view(np.uint8))


# --------------------------------------------------------------------------
# the shared helpers
# --------------------------------------------------------------------------


def test_flag_helper(mf):
    A = mf._arguments
    assert A.flag(True, "f") is True and A.flag(np.False_, "f") is False
    for bad in (1, 0, "False", "no", None, 1.0, np.array([True])):
        with raises_naming(TypeError, "f must be True or False", repr(bad)[:20]):
            A.flag(bad, "f")
    assert A.optional_flag(None, "f") is None and A.optional_flag(np.True_, "f") is True


def test_integer_helpers(mf):
    A = mf._arguments
    assert A.integer(np.int8(-3), "n") == -3 and A.integer(np.array(5), "n") == 5
    assert type(A.integer(np.uint64(7), "n")) is int
    for bad in (1.0, 16.5, "32", True, np.True_, None, [1], np.array([2])):
        with raises_naming(TypeError, "n must be an integer"):
            A.integer(bad, "n")
    assert A.positive_integer(np.int64(16), "n") == 16
    with raises_naming(ValueError, "n must be a positive integer", "0"):
        A.positive_integer(0, "n")
    assert A.axis(-1, 3) == 2
    with pytest.raises(np.exceptions.AxisError):
        A.axis(3, 3)
    with pytest.raises(np.exceptions.AxisError):
        A.axis(2**70, 3)
    assert A.shape(3) == (3,) and A.shape(np.array([2, 3])) == (2, 3) and A.shape([]) == ()
    for bad in (1.5, "3", True, None, (2, 1.0), [[1]]):
        with raises_naming(TypeError, "shape must be an integer or a sequence of integers"):
            A.shape(bad)
    with raises_naming(ValueError, "negative"):
        A.shape((2, -1))
    assert A.positive_integers(4, "b") == (4,) and A.positive_integers((1, np.int32(2)), "b") == (1, 2)
    for bad in ((), (0, 4), -1):
        with raises_naming(ValueError, "b must be a positive integer or a tuple"):
            A.positive_integers(bad, "b")


def test_choice_and_dtype_helpers(mf):
    A = mf._arguments
    assert A.choice(np.str_("up"), ("up", "down"), "c") == "up"
    with raises_naming(ValueError, "c must be one of 'up', 'down'", "'UP'"):
        A.choice("UP", ("up", "down"), "c")
    for bad in (None, 1, ["up"], np.array(["up"])):
        with raises_naming(TypeError, "c must be one of"):
            A.choice(bad, ("up", "down"), "c")
    assert A.dtype("f4", "d") == np.float32
    for bad in (None, "nope"):
        with raises_naming(TypeError, "d must be a dtype", repr(bad)):
            A.dtype(bad, "d")
    assert A.float_dtype(mf.bfloat16) == np.dtype(mf.bfloat16)
    with raises_naming(TypeError, "dtype must be a floating-point dtype", "int32"):
        A.float_dtype(np.int32)


def test_renamed_helper(mf):
    A = mf._arguments
    keywords = {}
    assert A.renamed(keywords, "old", "new", 5, None, "f") == (5, "new")
    keywords = {"old": 7}
    with pytest.warns(DeprecationWarning, match=r"f\(\): old= is deprecated, use new="):
        assert A.renamed(keywords, "old", "new", None, None, "f") == (7, "old")
    assert keywords == {}
    with raises_naming(TypeError, "new=", "old="):
        A.renamed({"old": 7}, "old", "new", 5, None, "f")
    with raises_naming(TypeError, "unexpected keyword argument 'x'", "did you mean y=?"):
        A.no_other_keywords({"x": 1}, "f", {"x": "y"})


# --------------------------------------------------------------------------
# mf.mx
# --------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [16.5, 16.0, True, np.True_, "32", "x", [16], float("nan")],
                         ids=["16.5", "16.0", "True", "np.True_", "'32'", "'x'", "list", "nan"])
def test_mx_block_size_must_be_an_integer(mf, bad):
    """16.5 was 16, True was 1, "32" was 32."""
    with raises_naming(TypeError, "block_size", "must be a positive integer", repr(bad)[:10]):
        mf.mx.quantize(X, "mxfp4_e2m1", block_size=bad)


def test_mx_block_size_values(mf):
    for bad in (0, -32):
        with raises_naming(ValueError, "block_size must be a positive integer", str(bad)):
            mf.mx.quantize(X, "mxfp4_e2m1", block_size=bad)
    # NumPy integers (and anything with __index__) are integers: the same result as int
    assert same_mx(mf.mx.quantize(X, "mxfp4_e2m1", block_size=np.int64(16)),
                   mf.mx.quantize(X, "mxfp4_e2m1", block_size=16))
    assert type(mf.mx.quantize(X, "mxfp4_e2m1", block_size=np.int64(16)).block_size) is int


def test_nvfp4_block_size_is_fixed(mf):
    """NVFP4 is 16 values per float8_e4m3fn scale; 32 was accepted. MX
    formats (OCP MX: block size k, 32 in its concrete formats) take any."""
    for bad in (32, 8, 1, 2**29):
        with raises_naming(ValueError, "block_size", "nvfp4", "16", str(bad)):
            mf.mx.quantize(X, "nvfp4", block_size=bad)
        with raises_naming(ValueError, "block_size", "nvfp4", "16", str(bad)):
            mf.mx.MXArray.from_parts(np.zeros(64, np.uint8), np.zeros(64 // bad + 1, np.uint8), "nvfp4",
                                     block_size=bad)
    default = mf.mx.quantize(X, "nvfp4")
    assert default.block_size == 16 and same_mx(mf.mx.quantize(X, "nvfp4", block_size=16), default)
    assert same_mx(mf.mx.quantize(X, "nvfp4", block_size=np.int32(16)), default)
    assert mf.mx.MXArray.from_parts(default.data, default.scales, "nvfp4", block_size=16).block_size == 16
    for fmt in ("mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4_e2m1", "mxint8", mf.float8_e4m3fn):
        for size in (1, 7, 16, 32, 64):
            assert mf.mx.quantize(X, fmt, block_size=size).block_size == size


def test_mx_zero_d_input_is_refused(mf):
    """A 0-d input came back with shape (1,): blocks run along an axis."""
    for x in (np.float32(2.0), np.array(2.0), 2.0):
        for fmt in ("mxfp8_e5m2", "nvfp4"):
            with raises_naming(ValueError, "x must have at least one dimension", "0-d", "np.atleast_1d"):
                mf.mx.quantize(x, fmt)
    q = mf.mx.quantize(np.atleast_1d(np.float32(2.0)), "mxfp8_e5m2")
    assert q.shape == (1,) and q.dequantize().tolist() == [2.0]


def test_mx_axis(mf):
    x = X.reshape(2, 32)
    for bad in (True, 1.0, 1.5, None, "1"):
        with raises_naming(TypeError, "axis must be an integer", repr(bad)):
            mf.mx.quantize(x, "mxfp8_e4m3", axis=bad)
        with raises_naming(TypeError, "axis must be an integer", repr(bad)):
            mf.mx.MXArray.from_parts(np.zeros((2, 32), np.uint8), np.zeros((2, 1), np.uint8), "mxfp8_e4m3", axis=bad)
    with pytest.raises(np.exceptions.AxisError, match="axis 2"):
        mf.mx.quantize(x, "mxfp8_e4m3", axis=2)
    assert same_mx(mf.mx.quantize(x, "mxfp8_e4m3", axis=np.int8(0)), mf.mx.quantize(x, "mxfp8_e4m3", axis=0))


def test_mx_choices_and_tensor_scale(mf):
    for bad in (None, ["floor"], 1):
        with raises_naming(TypeError, "scale_mode must be one of", "'floor'", repr(bad)):
            mf.mx.quantize(X, "mxfp8_e4m3", scale_mode=bad)
    with raises_naming(ValueError, "scale_mode must be one of", "'FLOOR'"):
        mf.mx.quantize(X, "mxfp8_e4m3", scale_mode="FLOOR")
    for bad in (True, np.False_, "2", 1j, np.array(["1"])):
        with pytest.raises((TypeError, ValueError), match="tensor_scale"):
            mf.mx.quantize(X, "nvfp4", tensor_scale=bad)
    with raises_naming(TypeError, "tensor_scale", "True"):
        mf.mx.quantize(X, "nvfp4", tensor_scale=True)
    with raises_naming(ValueError, "tensor_scale must be positive and finite", "1e-50"):
        mf.mx.quantize(X, "nvfp4", tensor_scale=1e-50)  # 0 in float32
    # real numbers of every kind give the float32 they round to
    reference = mf.mx.quantize(X, "nvfp4", tensor_scale=0.5)
    for good in (Fraction(1, 2), np.float16(0.5), np.array([0.5]), np.float64(0.5)):
        q = mf.mx.quantize(X, "nvfp4", tensor_scale=good)
        assert same_mx(q, reference) and q.tensor_scale == np.float32(0.5) and type(q.tensor_scale) is np.float32
    assert mf.mx.quantize(X, "nvfp4", tensor_scale=10**400 // 10**399).tensor_scale == 10


def test_mx_wrong_block_keyword_names_the_right_one(mf):
    for wrong in ("block_shape", "group_size"):
        with raises_naming(TypeError, repr(wrong), "block_size"):
            mf.mx.quantize(X, "mxfp4_e2m1", **{wrong: 16})
    with raises_naming(TypeError, "'blocksize'"):
        mf.mx.quantize(X, "mxfp4_e2m1", blocksize=16)


def test_from_parts_flags_shapes_and_dequantize(mf):
    d, s = np.zeros((2, 16), np.uint8), np.zeros((2, 1), np.uint8)
    assert mf.mx.MXArray.from_parts(d, s, "mxfp4_e2m1", packed=np.True_).shape == (2, 32)
    for bad in ("yes", 1, None):
        with raises_naming(TypeError, "packed must be True or False", repr(bad)):
            mf.mx.MXArray.from_parts(d, s, "mxfp4_e2m1", packed=bad)
    flat = np.zeros(16, np.uint8)
    assert mf.mx.MXArray.from_parts(flat, np.zeros(1, np.uint8), "mxfp4_e2m1", packed=True,
                                    shape=np.int64(32)).shape == (32,)
    for bad in (32.5, 32.0, "32", (32.0,)):
        with raises_naming(TypeError, "shape must be an integer or a sequence of integers"):
            mf.mx.MXArray.from_parts(flat, np.zeros(1, np.uint8), "mxfp4_e2m1", packed=True, shape=bad)
    for bad in (2.5, True):
        with raises_naming(TypeError, "block_size", repr(bad)):
            mf.mx.MXArray.from_parts(d, s, "mxfp8_e4m3", block_size=bad)
    q = mf.mx.quantize(X, "mxfp8_e4m3")
    assert q.dequantize(np.float64).dtype == np.float64 and q.dequantize(mf.bfloat16).dtype == mf.bfloat16
    for bad in (None, np.int32, "i1", np.bool_):
        with raises_naming(TypeError, "dtype must be a floating-point dtype"):
            q.dequantize(bad)
    with raises_naming(TypeError, "dtype must be a floating-point dtype", "'nope'"):
        q.dequantize("nope")


def test_from_parts_names_its_format(mf):
    """A format given as a dtype is stored by name, as quantize stores it
    (so save() can write it)."""
    q = mf.mx.quantize(X, mf.float8_e4m3fn)
    r = mf.mx.MXArray.from_parts(q.data, q.scales, np.dtype(mf.float8_e4m3fn))
    assert r.format == q.format == "float8_e4m3fn"


# --------------------------------------------------------------------------
# mf.cast
# --------------------------------------------------------------------------


@pytest.mark.parametrize("keyword", ["saturate", "packed"])
@pytest.mark.parametrize("bad", ["False", "no", 1, 0, None, 1.0, np.array([True])],
                         ids=["'False'", "'no'", "1", "0", "None", "1.0", "array"])
def test_cast_flags_must_be_bool(mf, keyword, bad):
    """saturate="False" saturated, packed="no" packed."""
    with raises_naming(TypeError, f"{keyword} must be True or False", repr(bad)[:12]):
        mf.cast(X, mf.float8_e4m3fn, **{keyword: bad})


def test_cast_flags_keep_their_results(mf):
    big = np.array([0.3, -1.5, 1000.0, np.inf], np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        check_flags(mf, big)


def check_flags(mf, big):
    for flag in (True, np.True_):
        got = mf.cast(big, mf.float8_e4m3fn, saturate=flag)
        assert got.astype(np.float64).tolist() == [0.3125, -1.5, 448.0, 448.0]
        assert np.array_equal(mf.cast(big, mf.float4_e2m1fn, packed=flag),
                              mf.pack(mf.cast(big, mf.float4_e2m1fn)))
    for flag in (False, np.False_):
        assert np.isnan(mf.cast(big, mf.float8_e4m3fn, saturate=flag).astype(np.float32)[2:]).all()
        assert mf.cast(big, mf.float4_e2m1fn, packed=flag).dtype == mf.float4_e2m1fn


def test_cast_dtype_rounding_and_rng(mf):
    """mf.cast(x, None) said "needs a minifloat dtype, not float64"."""
    with raises_naming(TypeError, "mf.cast needs a minifloat dtype", "not None"):
        mf.cast(np.ones(3), None)
    with raises_naming(TypeError, "mf.cast needs a minifloat dtype", "float64"):
        mf.cast(np.ones(3), np.float64)
    # minifloat's own integer and complex types are named as such, with what to use
    with raises_naming(TypeError, "needs a minifloat float format", "integer type int4", "x.astype(mf.int4)"):
        mf.cast(np.ones(3), mf.int4)
    with raises_naming(TypeError, "needs a minifloat float format", "integer type uint2", "quantize_affine"):
        mf.quant.quantize(np.ones((2, 2)), mf.uint2)
    with raises_naming(TypeError, "needs a minifloat float format", "complex type complex32"):
        mf.cast(np.ones(3), mf.complex32)
    for bad in (None, 1, ["up"], np.array(["up"])):
        with raises_naming(TypeError, "rounding must be one of", "'nearest_even'"):
            mf.cast(X, mf.float8_e4m3fn, rounding=bad)
    with raises_naming(ValueError, "rounding must be one of", "'UP'"):
        mf.cast(X, mf.float8_e4m3fn, rounding="UP")
    assert np.array_equal(mf.cast(X, mf.float8_e4m3fn, rounding=np.str_("up")).view(np.uint8),
                          mf.cast(X, mf.float8_e4m3fn, rounding="up").view(np.uint8))
    for bad in (True, np.False_):
        with raises_naming(TypeError, "rng", repr(bad)):
            mf.cast(X, mf.float8_e4m3fn, rounding="stochastic", rng=bad)
    a = mf.cast(X, mf.float8_e4m3fn, rounding="stochastic", rng=np.int64(3))
    assert np.array_equal(a.view(np.uint8), mf.cast(X, mf.float8_e4m3fn, rounding="stochastic", rng=3).view(np.uint8))


def test_cast_zero_d(mf):
    """0-d inputs keep their shape; Python scalars give a scalar."""
    r = mf.cast(np.array(1.5), mf.float8_e4m3fn)
    assert isinstance(r, np.ndarray) and r.shape == () and float(r) == 1.5
    assert type(mf.cast(1.5, mf.float8_e4m3fn)) is mf.float8_e4m3fn
    assert type(mf.cast(np.float32(1.5), mf.float8_e4m3fn)) is mf.float8_e4m3fn
    assert mf.cast(np.array(1.5), mf.float4_e2m1fn, packed=True).tolist() == [3]  # packed bytes are 1-D


# --------------------------------------------------------------------------
# mf.quant.quantize and quantize_affine
# --------------------------------------------------------------------------


def test_quant_channel_axis(mf):
    """axis=None said "'NoneType' object cannot be interpreted as an integer"."""
    for bad in (None, True, 1.0, "0"):
        with raises_naming(TypeError, "axis must be an integer", repr(bad)):
            mf.quant.quantize(W, mf.float8_e4m3fn, granularity="channel", axis=bad)
    with pytest.raises(np.exceptions.AxisError):
        mf.quant.quantize(W, mf.float8_e4m3fn, granularity="channel", axis=-3)
    a = mf.quant.quantize(W, mf.float8_e4m3fn, granularity="channel", axis=np.int16(1))
    b = mf.quant.quantize(W, mf.float8_e4m3fn, granularity="channel", axis=1)
    assert a.axis == b.axis == 1 and np.array_equal(a.scales, b.scales)
    # where no axis is used, None is allowed (and stored), anything else still must be an integer
    assert mf.quant.quantize(W, mf.float8_e4m3fn, axis=None).axis is None
    with raises_naming(TypeError, "axis must be an integer", "'0'"):
        mf.quant.quantize(W, mf.float8_e4m3fn, axis="0")


def test_quant_block_size_is_block_shape_renamed(mf):
    new = mf.quant.quantize(W, mf.float8_e4m3fn, granularity="block", block_size=(4, 2))
    assert new.block_size == (4, 2) and new.scales.shape == (2, 4) and "block_size=(4, 2)" in repr(new)
    with pytest.warns(DeprecationWarning, match=r"block_shape= is deprecated, use block_size="):
        old = mf.quant.quantize(W, mf.float8_e4m3fn, granularity="block", block_shape=(4, 2))
    assert old.block_size == (4, 2) and np.array_equal(old.scales, new.scales)
    assert np.array_equal(old.data.view(np.uint8), new.data.view(np.uint8))
    with pytest.warns(DeprecationWarning, match=r"QuantizedArray.block_shape is deprecated, use .*block_size"):
        assert old.block_shape == (4, 2)
    with pytest.warns(DeprecationWarning, match=r"Groups.block_shape is deprecated"):
        assert old.groups.block_shape == (4, 2)
    with raises_naming(TypeError, "block_size=", "block_shape="):
        mf.quant.quantize(W, mf.float8_e4m3fn, granularity="block", block_size=(2, 2), block_shape=(4, 2))
    # errors name the spelling passed
    with pytest.warns(DeprecationWarning), raises_naming(ValueError, "block_shape", "(0, 4)"):
        mf.quant.quantize(W, mf.float8_e4m3fn, granularity="block", block_shape=(0, 4))
    with raises_naming(ValueError, "block_size", "(0, 4)"):
        mf.quant.quantize(W, mf.float8_e4m3fn, granularity="block", block_size=(0, 4))
    # constructors take both spellings too
    with pytest.warns(DeprecationWarning):
        g = mf.quant.Groups((8, 8), "block", block_shape=(4, 4))
    assert g.block_size == (4, 4) and g.shape == (2, 2)
    with pytest.warns(DeprecationWarning):
        r = mf.quant.QuantizedArray(new.data, new.scales, "block", block_shape=(4, 2))
    assert r.block_size == (4, 2)
    with raises_naming(TypeError, "unexpected keyword argument 'junk'"):
        mf.quant.QuantizedArray(new.data, new.scales, "block", junk=1)


@pytest.mark.parametrize("bad", [(4.0, 2), 4.5, True, (True, 2), "42", None, [[4]]],
                         ids=["(4.0, 2)", "4.5", "True", "(True, 2)", "'42'", "None", "nested"])
def test_quant_block_size_must_be_integers(mf, bad):
    with raises_naming(TypeError, "block_size must be a positive integer or a tuple of positive integers"):
        mf.quant.quantize(W, mf.float8_e4m3fn, granularity="block", block_size=bad)


def test_quant_wrong_block_keyword_names_the_right_one(mf):
    with raises_naming(TypeError, "group_size", "block_size"):
        mf.quant.quantize(W, mf.float8_e4m3fn, granularity="block", group_size=4)


def test_quant_options_and_dtype(mf):
    for bad in (0.5, True, "1", None):
        with raises_naming(TypeError, "margin must be an integer", repr(bad)):
            mf.quant.quantize(W, mf.float8_e4m3fn, margin=bad)
    with raises_naming(ValueError, "margin must be an integer in [-128, 128]", "129"):
        mf.quant.quantize(W, mf.float8_e4m3fn, margin=129)
    assert mf.quant.quantize(W, mf.float8_e4m3fn, margin=np.int8(2)).options == {"margin": 2, "pow2_scales": False}
    for bad in ("no", 1, None):
        with raises_naming(TypeError, "pow2_scales must be True or False", repr(bad)):
            mf.quant.quantize(W, mf.float8_e4m3fn, pow2_scales=bad)
    assert mf.quant.quantize(W, mf.float8_e4m3fn, pow2_scales=np.True_).options["pow2_scales"] is True
    for bad in (None, ["tensor"], 0):
        with raises_naming(TypeError, "granularity must be one of", repr(bad)):
            mf.quant.quantize(W, mf.float8_e4m3fn, granularity=bad)
    with raises_naming(TypeError, "needs a minifloat dtype", "None"):
        mf.quant.quantize(W, None)
    q = mf.quant.quantize(W, mf.float8_e4m3fn)
    for bad in (None, np.int8):
        with raises_naming(TypeError, "dtype must be a floating-point dtype"):
            q.dequantize(bad)


def test_quant_zero_d(mf):
    q = mf.quant.quantize(np.float32(3.0), mf.float8_e4m3fn)
    assert q.data.shape == () and q.scales.shape == () and q.dequantize().shape == ()
    with raises_naming(ValueError, "at least one dimension"):
        mf.quant.quantize(np.float32(3.0), mf.float8_e4m3fn, granularity="channel")
    with raises_naming(ValueError, "block_size", "(128, 128)", "0 dimensions"):
        mf.quant.quantize(np.float32(3.0), mf.float8_e4m3fn, granularity="block")


def test_affine_block_size_is_group_size_renamed(mf):
    new = mf.quantize_affine(W, mf.int4, block_size=4)
    assert new.block_size == 4 and new.scales.shape == (8, 2) and "block_size=4" in repr(new)
    with pytest.warns(DeprecationWarning, match=r"quantize_affine\(\): group_size= is deprecated, use block_size="):
        old = mf.quant.quantize_affine(W, mf.int4, group_size=4)
    assert old.block_size == 4 and np.array_equal(old.scales, new.scales)
    assert np.array_equal(old.data.view(np.uint8), new.data.view(np.uint8))
    with pytest.warns(DeprecationWarning, match=r"AffineQuantizedArray.group_size is deprecated"):
        assert old.group_size == 4
    with raises_naming(TypeError, "block_size=", "group_size="):
        mf.quantize_affine(W, mf.int4, block_size=4, group_size=8)
    with pytest.warns(DeprecationWarning), raises_naming(ValueError, "group_size must be a positive integer"):
        mf.quantize_affine(W, mf.int4, group_size=0)
    with raises_naming(TypeError, "'block_shape'", "block_size"):
        mf.quantize_affine(W, mf.int4, block_shape=4)
    with pytest.warns(DeprecationWarning):
        r = mf.quant.AffineQuantizedArray(new.data, new.scales, new.zero_points, group_size=4, axis=1)
    assert r.block_size == 4 and np.array_equal(r.dequantize(), new.dequantize())


def test_affine_arguments(mf):
    for bad in (8.0, True, "8"):
        with raises_naming(TypeError, "block_size must be a positive integer", repr(bad)):
            mf.quantize_affine(W, mf.int4, block_size=bad)
    for bad in ("no", 0, None):
        with raises_naming(TypeError, "zero_point must be True or False", repr(bad)):
            mf.quantize_affine(W, mf.int4, block_size=8, zero_point=bad)
    for bad in (True, 0.0, None):
        with raises_naming(TypeError, "axis must be an integer", repr(bad)):
            mf.quantize_affine(W, mf.int4, block_size=8, axis=bad)
    with raises_naming(TypeError, "not None"):
        mf.quantize_affine(W, None)
    a = mf.quantize_affine(W, mf.int4, block_size=np.int64(8), axis=np.int8(0), zero_point=np.False_)
    b = mf.quantize_affine(W, mf.int4, block_size=8, axis=0, zero_point=False)
    assert a.block_size == 8 and a.axis == 0 and a.zero_points is None and np.array_equal(a.scales, b.scales)
    with raises_naming(TypeError, "dtype must be a floating-point dtype"):
        a.dequantize(None)


# --------------------------------------------------------------------------
# pack / unpack, float_format, DLPack, finfo / format_info
# --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype_name", ["float4_e2m1fn", "float8_e4m3fn", "int4"])
def test_unpack_shape(mf, dtype_name):
    T = getattr(mf, dtype_name)
    buf = mf.pack(np.zeros(6, T))
    assert mf.unpack(buf, T, (2, 3)).shape == (2, 3)
    assert mf.unpack(buf, T, np.array([3, 2])).shape == (3, 2)
    assert mf.unpack(buf, T, np.int64(6)).shape == (6,)
    for bad in (6.0, "6", True, (2.0, 3), None, [[6]]):
        with raises_naming(TypeError, "shape must be an integer or a sequence of integers"):
            mf.unpack(buf, T, bad)
    with raises_naming(TypeError, "needs a minifloat dtype", "None"):
        mf.unpack(buf, None, 6)


def test_float_format_uses_the_same_rules(mf):
    with raises_naming(TypeError, "exponent_bits must be an integer", "4.0"):
        mf.float_format(exponent_bits=4.0, mantissa_bits=3)
    with raises_naming(TypeError, "signed must be True or False", "1"):
        mf.float_format(exponent_bits=4, mantissa_bits=3, signed=1)
    with raises_naming(TypeError, "name must be a string", "3"):
        mf.float_format(exponent_bits=4, mantissa_bits=3, name=3)
    assert mf.float_format(exponent_bits=np.int8(4), mantissa_bits=np.int64(3), bias=np.int16(7),
                           signed=np.True_) == np.dtype(mf.float8_e4m3)


def test_dlpack_export_arguments(mf):
    e = mf.to_dlpack(np.array([1.0, 2.0], mf.float8_e4m3fn))
    for bad in ("no", 0, 1):
        with raises_naming(TypeError, "copy must be True or False", repr(bad)):
            e.__dlpack__(copy=bad)
    for bad in ("x", (1.0, 1), (1,)):
        with raises_naming(TypeError, "max_version must be a (major, minor) tuple of integers"):
            e.__dlpack__(max_version=bad)
    with raises_naming(TypeError, "dl_device"):
        e.__dlpack__(dl_device=(1.5, 0))
    e.__dlpack__(max_version=(np.int64(1), 0), copy=np.True_, dl_device=(1, 0))


def test_finfo_and_format_info(mf):
    """mf.finfo("nope") said "data type <class 'numpy.str_'> not inexact"."""
    for function in (mf.finfo, mf.format_info):
        for bad in ("nope", None):
            with raises_naming(TypeError, "must be", repr(bad)):
                function(bad)
    assert float(mf.finfo("float8_e4m3fn").max) == 448 and mf.finfo("float32").bits == 32
    assert mf.finfo(np.ones(2, mf.bfloat16)).bits == 16 and mf.finfo(1.0).dtype == np.float64
    assert mf.format_info("float8_e4m3fn")["bits"] == 8
    with pytest.raises(ValueError):
        mf.finfo("int8")
    with pytest.raises(ValueError):
        mf.format_info(np.float32)


def test_no_deprecation_warning_on_the_new_spellings(mf):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        q = mf.quant.quantize(W, mf.float8_e4m3fn, granularity="block", block_size=(4, 4))
        q.dequantize(), repr(q), q.groups.shape, q.scale_per_element()
        a = mf.quantize_affine(W, mf.uint4, block_size=4)
        a.dequantize(), repr(a), a.pack()
        mf.mx.quantize(X, "nvfp4").dequantize()
