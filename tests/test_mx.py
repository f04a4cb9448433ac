"""mf.mx.quantize: OCP Microscaling (MX v1.0 section 6.3) block formats and
NVFP4, checked against hand-computed blocks and against the exact reference
in cast_mode_reference.py on Gaussian samples."""

import io
import math
import zlib
from fractions import Fraction

import numpy as np
import pytest

import cast_mode_reference as I
import reference as R
from kernel_sets import KERNEL_SETS, kernels

MX = tuple(I.MX_FORMATS)
ALL_FMTS = I.ALL_FMTS
MODES = I.SCALE_MODES
NAN = math.nan
F32MAX = float(np.finfo(np.float32).max)

ELEM_DTYPE = {
    "mxfp8_e4m3": "float8_e4m3fn",
    "mxfp8_e5m2": "float8_e5m2",
    "mxfp6_e3m2": "float6_e3m2fn",
    "mxfp6_e2m3": "float6_e2m3fn",
    "mxfp4_e2m1": "float4_e2m1fn",
    "mxint8": None,
    "nvfp4": "float4_e2m1fn",
}


def elem_dtype(mf, fmt):
    n = ELEM_DTYPE[fmt]
    return np.dtype(np.int8) if n is None else np.dtype(getattr(mf, n))


def scale_dtype(mf, fmt):
    return np.dtype(mf.float8_e4m3fn if fmt == "nvfp4" else mf.float8_e8m0fnu)


def data_codes(q, fmt):
    d = np.asarray(q.data)
    if fmt == "mxint8":
        assert d.dtype == np.int8
        return d.astype(np.int64)
    return R.codes_of(d).astype(np.int64)


def scale_codes(q):
    return R.codes_of(np.asarray(q.scales)).astype(np.int64)


def same_values(got, exp):
    got = np.asarray(got, dtype=np.float64)
    exp = np.asarray(exp, dtype=np.float64)
    return np.where(np.isnan(exp), np.isnan(got), got == exp)


def check_against(q, ref, fmt, label=""):
    """Compare an MXArray with a reference dict (cast_mode_reference.mx_quantize)."""
    dc = data_codes(q, fmt)
    assert dc.shape == ref["data"].shape, (label, dc.shape, ref["data"].shape)
    exp = ref["data"]
    any_zero = exp == I.ANY_ZERO  # nvfp4 block with scale 0: +0 or -0
    ok = np.where(any_zero, (dc == 0) | (dc == 8), dc == exp)
    if not ok.all():
        bad = np.argwhere(~ok)[:6]
        raise AssertionError(
            f"{label} data: {int((~ok).sum())} differ; (index, expected, got): "
            + str([(tuple(b), hex(int(exp[tuple(b)])), hex(int(dc[tuple(b)]))) for b in bad])
        )
    sc = scale_codes(q)
    assert sc.shape == ref["scales"].shape, (label, sc.shape, ref["scales"].shape)
    bad = np.argwhere(sc != ref["scales"])[:6]
    assert bad.size == 0, (
        f"{label} scales differ; (index, expected, got): "
        + str([(tuple(b), hex(int(ref["scales"][tuple(b)])), hex(int(sc[tuple(b)])))
               for b in bad])
    )
    d64 = q.dequantize(np.float64)
    assert d64.dtype == np.float64 and d64.shape == ref["deq"].shape
    ok = same_values(d64, ref["deq"])
    assert ok.all(), (label, "dequantize(float64)", np.asarray(d64)[~ok][:6],
                      ref["deq"][~ok][:6])
    with np.errstate(over="ignore"):  # 6 * 2^127 is past float32: inf, with a warning
        d32 = q.dequantize()
        e32 = ref["deq"].astype(np.float32)
    assert d32.dtype == np.float32
    ok = same_values(d32, e32)
    assert ok.all(), (label, "dequantize()", np.asarray(d32)[~ok][:6], e32[~ok][:6])


def quantize(mf, x, fmt, **kw):
    if fmt == "nvfp4" and kw.get("block_size", 16) != 16:
        # NVFP4's blocks are 16 values (mf.mx.quantize takes no other size);
        # the kernel takes any, checked here on small and odd blocks
        return mf.mx._quantize(x, fmt, any_block_size=True, **kw)
    return mf.mx.quantize(x, fmt, **kw)


# --------------------------------------------------------------------------
# Hand-computed blocks
# --------------------------------------------------------------------------
# (fmt, x, kwargs, data codes / int8 values, scale codes, dequantized values)
# e8m0 scale code = E + 127.  None in data: "a zero" (+0 or -0 accepted).
HAND = [
    # mxfp8_e4m3: amax 4 -> E = 2 - 8 = -6; P = 64 x
    ("mxfp8_e4m3", [0.5, 1, 2, 4], dict(block_size=4), [0x60, 0x68, 0x70, 0x78], [121],
     [0.5, 1, 2, 4]),
    # 1.875: floor E=-8, P=480 saturates to 448; ceil/rceil E=-7, P=240
    ("mxfp8_e4m3", [1.875], dict(block_size=1), [0x7E], [119], [1.75]),
    ("mxfp8_e4m3", [1.875], dict(block_size=1, scale_mode="ceil"), [0x77], [120], [1.875]),
    ("mxfp8_e4m3", [1.875], dict(block_size=1, scale_mode="even"), [0x7E], [119], [1.75]),
    ("mxfp8_e4m3", [1.875], dict(block_size=1, scale_mode="rceil"), [0x77], [120], [1.875]),
    # 1.9375 = 1.1111b rounds to 2.0 with 4 bits: "even" takes the next exponent
    ("mxfp8_e4m3", [1.9375], dict(block_size=1), [0x7E], [119], [1.75]),
    ("mxfp8_e4m3", [1.9375], dict(block_size=1, scale_mode="even"), [0x78], [120], [2.0]),
    ("mxfp8_e4m3", [1.9375], dict(block_size=1, scale_mode="ceil"), [0x78], [120], [2.0]),
    ("mxfp8_e4m3", [1.9375], dict(block_size=1, scale_mode="rceil"), [0x78], [120], [2.0]),
    # 1.75 / 448 = 2^-8 exactly: rceil keeps E = -8 (448 fits)
    ("mxfp8_e4m3", [1.75], dict(block_size=1, scale_mode="rceil"), [0x7E], [119], [1.75]),
    ("mxfp8_e4m3", [1.75], dict(block_size=1, scale_mode="ceil"), [0x76], [120], [1.75]),
    # all-zero block keeps the sign of zero
    ("mxfp8_e4m3", [0.0, -0.0, 0.0, 0.0], dict(block_size=4), [0x00, 0x80, 0x00, 0x00], [0],
     [0, 0, 0, 0]),
    # NaN / inf blocks
    ("mxfp8_e4m3", [1, NAN, 2, 3], dict(block_size=4), [0x7F] * 4, [0xFF], [NAN] * 4),
    ("mxfp8_e4m3", [-math.inf, 1], dict(block_size=2), [0x7F] * 2, [0xFF], [NAN] * 2),
    # partial last block
    ("mxfp8_e4m3", [1, 2, 3, 4, 5, 6], dict(block_size=4),
     [0x68, 0x70, 0x74, 0x78, 0x7A, 0x7C], [121, 121], [1, 2, 3, 4, 5, 6]),
    # E clamped to -127
    ("mxfp8_e4m3", [2.0**-130], dict(block_size=1), [0x20], [0], [2.0**-130]),
    ("mxfp8_e4m3", [2.0**-149], dict(block_size=1), [0x00], [0], [0.0]),
    # signs, a nearest-even tie (400 -> 384), a small value
    ("mxfp8_e4m3", [-3, 0.1, 100], dict(block_size=3), [0xD4, 0x2D, 0x7C], [125],
     [-3, 0.1015625, 96]),
    ("mxfp8_e4m3", [3e38], dict(block_size=1), [0x7E], [246], [448 * 2.0**119]),
    # mxfp8_e5m2
    ("mxfp8_e5m2", [114688, 1], dict(block_size=2), [0x7B, 0x38], [128], [114688, 1]),
    ("mxfp8_e5m2", [1.75, 1e-9], dict(block_size=2), [0x7B, 0x02], [112], [1.75, 2.0**-30]),
    ("mxfp8_e5m2", [NAN], dict(block_size=1), [0x7E], [0xFF], [NAN]),
    # mxfp6_e3m2: amax 30 -> E = 0; 30 saturates to 28
    ("mxfp6_e3m2", [28, 30, 1, -0.3], dict(block_size=4), [0x1F, 0x1F, 0x0C, 0x25], [127],
     [28, 28, 1, -0.3125]),
    ("mxfp6_e3m2", [math.inf, 1], dict(block_size=2), [0, 0], [0xFF], [NAN, NAN]),
    # mxfp6_e2m3: amax 8 -> E = 3 - 2 = 1
    ("mxfp6_e2m3", [7.5, 8, -1], dict(block_size=3), [0x17, 0x18, 0x24], [128], [7.5, 8, -1]),
    ("mxfp6_e2m3", [-0.0, 0.0], dict(block_size=2), [0x20, 0x00], [0], [0, 0]),
    # mxfp4_e2m1: ties to even 5 -> 4, -2.5 -> -2, 0.25 -> 0
    ("mxfp4_e2m1", [6, 5, -2.5, 0.25], dict(block_size=4), [0x7, 0x6, 0xC, 0x0], [127],
     [6, 4, -2, 0]),
    ("mxfp4_e2m1", [-0.25, 12], dict(block_size=2), [0x8, 0x7], [128], [0, 12]),
    ("mxfp4_e2m1", [-0.25, 12], dict(block_size=2, scale_mode="ceil"), [0x8, 0x5], [129],
     [0, 12]),
    ("mxfp4_e2m1", [-0.25, 12], dict(block_size=2, scale_mode="rceil"), [0x8, 0x7], [128],
     [0, 12]),
    ("mxfp4_e2m1", [-0.25, 12], dict(block_size=2, scale_mode="even"), [0x8, 0x7], [128],
     [0, 12]),
    ("mxfp4_e2m1", [7], dict(block_size=1), [0x7], [127], [6]),
    ("mxfp4_e2m1", [7], dict(block_size=1, scale_mode="even"), [0x6], [128], [8]),
    ("mxfp4_e2m1", [7], dict(block_size=1, scale_mode="rceil"), [0x6], [128], [8]),
    ("mxfp4_e2m1", [7], dict(block_size=1, scale_mode="ceil"), [0x6], [128], [8]),
    ("mxfp4_e2m1", [NAN, 1, 2], dict(block_size=3), [0, 0, 0], [0xFF], [NAN] * 3),
    ("mxfp4_e2m1", [-0.0, 0.0], dict(block_size=2), [0x8, 0x0], [0], [0, 0]),
    # mxint8: P = round_half_even(V / X * 64), clamped to [-127, 127]
    ("mxint8", [1, -0.5, 0.3, 1.5], dict(block_size=4), [64, -32, 19, 96], [127],
     [1, -0.5, 0.296875, 1.5]),
    ("mxint8", [1 + 1 / 128, 1 + 3 / 128], dict(block_size=2), [64, 66], [127],
     [1, 1.03125]),
    ("mxint8", [1.999], dict(block_size=1), [127], [127], [1.984375]),
    ("mxint8", [-1.999], dict(block_size=1), [-127], [127], [-1.984375]),
    ("mxint8", [1.999], dict(block_size=1, scale_mode="even"), [64], [128], [2.0]),
    ("mxint8", [1.999], dict(block_size=1, scale_mode="ceil"), [64], [128], [2.0]),
    ("mxint8", [1.999], dict(block_size=1, scale_mode="rceil"), [64], [128], [2.0]),
    ("mxint8", [-1.984375], dict(block_size=1, scale_mode="rceil"), [-127], [127],
     [-1.984375]),
    ("mxint8", [F32MAX], dict(block_size=1, scale_mode="rceil"), [127], [254],
     [127 * 2.0**121]),
    ("mxint8", [F32MAX], dict(block_size=1), [127], [254], [127 * 2.0**121]),
    ("mxint8", [0.0, -0.0], dict(block_size=2), [0, 0], [0], [0, 0]),
    # E clamped to 127: ceil(log2(1.5 * 2^127)) = 128; float32 max rounds to 2^128
    ("mxint8", [1.5 * 2.0**127], dict(block_size=1, scale_mode="ceil"), [96], [254],
     [1.5 * 2.0**127]),
    ("mxint8", [F32MAX], dict(block_size=1, scale_mode="even"), [127], [254],
     [127 * 2.0**121]),
    ("mxfp8_e4m3", [2.0**-140], dict(block_size=1, scale_mode="rceil"), [0x00], [0], [0.0]),
    ("mxfp8_e4m3", [-(2.0**-133)], dict(block_size=1, scale_mode="ceil"), [0x88], [0],
     [-(2.0**-133)]),
    ("mxfp8_e4m3", [-(2.0**-136)], dict(block_size=1), [0x81], [0], [-(2.0**-136)]),
    ("mxfp8_e4m3", [-(2.0**-137)], dict(block_size=1), [0x80], [0], [0.0]),  # a tie -> -0
    ("mxint8", [NAN, 1], dict(block_size=2), [0, 0], [0xFF], [NAN, NAN]),
    # nvfp4 (scales are float8_e4m3fn codes)
    ("nvfp4", [1.5, -0.75, 3, 0.1], dict(block_size=4), [0x5, 0xB, 0x7, 0x0], [0x30],
     [1.5, -0.75, 3, 0]),
    ("nvfp4", [1, 2, 7], dict(block_size=3), [0x2, 0x4, 0x7], [0x39], [1.125, 2.25, 6.75]),
    ("nvfp4", [1.5, -0.75, 3, 0.1], dict(block_size=4, tensor_scale=0.5),
     [0x5, 0xB, 0x7, 0x0], [0x38], [1.5, -0.75, 3, 0]),
    ("nvfp4", [6000], dict(block_size=1), [0x7], [0x7E], [2688]),
    ("nvfp4", [1e-6, -1e-6], dict(block_size=2), [None, None], [0x00], [0, 0]),
    ("nvfp4", [NAN, 1], dict(block_size=2), [0, 0], [0x7F], [NAN, NAN]),
    ("nvfp4", [1, -math.inf], dict(block_size=2), [0, 0], [0x7F], [NAN, NAN]),
    ("nvfp4", [0.0, 0.0, 0.0], dict(block_size=2, tensor_scale="auto"), [None] * 3, [0, 0],
     [0, 0, 0]),
]
HAND_IDS = [f"{c[0]}-{i}" for i, c in enumerate(HAND)]


def _ref_hand(fmt, x, kw):
    return I.mx_quantize(np.array(x, dtype=np.float64), fmt, **kw)


@pytest.mark.parametrize("fmt,x,kw,data,scales,deq", HAND, ids=HAND_IDS)
def test_reference_hand_blocks(fmt, x, kw, data, scales, deq):
    r = _ref_hand(fmt, x, kw)
    exp = [I.ANY_ZERO if d is None else d for d in data]
    assert r["data"].tolist() == exp
    assert r["scales"].tolist() == scales
    assert same_values(r["deq"], deq).all(), (r["deq"], deq)


@pytest.mark.parametrize("fmt,x,kw,data,scales,deq", HAND, ids=HAND_IDS)
def test_hand_blocks(mf, fmt, x, kw, data, scales, deq):
    xs = np.array(x, dtype=np.float32)
    q = quantize(mf, xs, fmt, **kw)
    assert q.format == fmt
    assert q.block_size == kw["block_size"]
    assert q.axis == 0
    assert np.asarray(q.data).dtype == elem_dtype(mf, fmt)
    assert np.asarray(q.scales).dtype == scale_dtype(mf, fmt)
    dc = data_codes(q, fmt)
    assert dc.shape == xs.shape
    for i, (g, e) in enumerate(zip(dc.tolist(), data)):
        if e is None:
            assert g in (0, 8), (i, hex(g))
        else:
            assert g == e, (i, hex(e), hex(g))
    assert scale_codes(q).tolist() == scales
    d = q.dequantize(np.float64)
    assert same_values(d, deq).all(), (d, deq)
    assert same_values(q.dequantize(), np.array(deq, np.float32)).all()
    check_against(q, _ref_hand(fmt, x, kw), fmt, f"{fmt} {x} {kw}")


def test_nvfp4_auto_tensor_scale(mf):
    x = np.array([1.5, -0.75, 3, 0.1], np.float32)
    q = quantize(mf, x, "nvfp4", tensor_scale="auto")
    t = I.round_to_float32(Fraction(3) / 2688)
    assert Fraction(float(q.tensor_scale)) == t
    assert float(np.float32(q.tensor_scale)) == float(t)
    assert scale_codes(q).tolist() == [0x7E]  # 3 / (6 t) is 448 to within 2^-24
    assert data_codes(q, "nvfp4").tolist() == [0x5, 0xB, 0x7, 0x0]
    exp = [float(p * 448 * t) for p in (3, Fraction(-3, 2), 6, 0)]
    assert same_values(q.dequantize(np.float64), exp).all()
    check_against(q, I.mx_quantize(x, "nvfp4", tensor_scale="auto"), "nvfp4", "auto")


def test_nvfp4_block_scales_out_of_range_follow_errstate(mf):
    """Without a tensor scale a block's scale amax / 6 must fit
    float8_e4m3fn: beyond 448 the block clips (overflow), a nonzero block
    whose scale rounds to 0 reads as zeros (underflow); both are NumPy's
    floating-point errors, as np.errstate sets them. At exactly 448, inf/NaN
    blocks and zero blocks nothing is raised."""
    import warnings
    def raised(x, **errstate):
        with warnings.catch_warnings(record=True) as caught, np.errstate(**errstate):
            warnings.simplefilter("always")
            mf.mx.quantize(np.asarray(x, np.float32).reshape(1, -1), "nvfp4")
        return [str(w.message).split(" encountered")[0] for w in caught]
    assert raised([2688.0] * 16) == []  # scale exactly 448
    assert raised([2784.0] * 16) == []  # 464: rounds to 448, as an astype would
    assert raised([2785.0] * 16) == ["overflow"]
    assert raised([1e-4] * 16) == []  # underflow: ignored by default, as NumPy does
    assert raised([1e-4] * 16, under="warn") == ["underflow"]
    assert raised([0.0] * 16, under="warn") == []
    assert raised([np.inf, np.nan] + [1.0] * 14, under="warn") == []
    with pytest.raises(FloatingPointError, match="nvfp4 block scales"):
        raised([3e3] * 16, over="raise")
    assert raised([3e3] * 16, over="ignore") == []
    # the tensor scale fits the blocks to the data: nothing to report
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            for scale in (1e-4, 1e4):
                mf.mx.quantize(np.full((2, 32), scale, np.float32), "nvfp4", tensor_scale="auto")


def test_nvfp4_tensor_scale_attribute(mf):
    x = np.linspace(-3, 5, 40, dtype=np.float32)
    assert quantize(mf, x, "nvfp4").tensor_scale is None
    q = quantize(mf, x, "nvfp4", tensor_scale=0.1)
    assert float(q.tensor_scale) == float(np.float32(0.1))
    check_against(q, I.mx_quantize(x, "nvfp4", tensor_scale=0.1), "nvfp4", "t=0.1")
    z = quantize(mf, np.zeros(20, np.float32), "nvfp4", tensor_scale="auto")
    assert float(z.tensor_scale) == 1.0
    for fmt in MX:
        assert quantize(mf, x, fmt).tensor_scale is None


# --------------------------------------------------------------------------
# Conversion to float32 first, defaults, shapes, axes
# --------------------------------------------------------------------------


def test_input_is_rounded_to_float32_first(mf):
    # float64 1 + 2^-4 + 2^-40 is float32 1.0625: a tie at P = 272 -> 256
    x = np.array([1 + 2.0**-4 + 2.0**-40, 1.0])
    q = quantize(mf, x, "mxfp8_e4m3", block_size=2)
    assert scale_codes(q).tolist() == [119]
    assert data_codes(q, "mxfp8_e4m3").tolist() == [0x78, 0x78]
    # amax from the float32 values: 2 - 2^-30 is 2.0 in float32
    y = np.array([2 - 2.0**-30])
    assert scale_codes(quantize(mf, y, "mxfp4_e2m1", block_size=1)).tolist() == [127 + 1 - 2]
    # beyond float32 range: inf after conversion -> a NaN block
    z = np.array([1e39, 1.0])
    with np.errstate(over="ignore"):
        qz = quantize(mf, z, "mxfp8_e5m2", block_size=2)
    assert scale_codes(qz).tolist() == [0xFF]
    assert np.isnan(qz.dequantize()).all()


@pytest.mark.parametrize("src", ["list", "int32", "float16", "float64", "bfloat16"])
def test_input_kinds(mf, src):
    v = [0.5, -3.0, 7.0, 1.25, 0.0, 100.0, -0.125, 2.0]
    if src == "list":
        x = v
    elif src == "int32":
        x = np.array([1, -3, 7, 2, 0, 100, -5, 2], np.int32)
    elif src == "bfloat16":
        x = np.array(v).astype(mf.bfloat16)
    else:
        x = np.array(v, dtype=src)
    x32 = np.asarray(x).astype(np.float32)
    for fmt in ALL_FMTS:
        q = quantize(mf, x, fmt, block_size=4)
        check_against(q, I.mx_quantize(x32, fmt, block_size=4), fmt, src)


def test_default_block_sizes_and_partial_blocks(mf):
    x = np.random.default_rng(0).standard_normal(70).astype(np.float32)
    for fmt in MX:
        q = quantize(mf, x, fmt)
        assert q.block_size == 32
        assert np.asarray(q.scales).shape == (3,)
        check_against(q, I.mx_quantize(x, fmt), fmt, "default block size")
    q = quantize(mf, x, "nvfp4")
    assert q.block_size == 16
    assert np.asarray(q.scales).shape == (5,)
    check_against(q, I.mx_quantize(x, "nvfp4"), "nvfp4", "default block size")


@pytest.mark.parametrize("fmt", ALL_FMTS)
def test_axis_2d_and_3d(mf, fmt):
    rng = np.random.default_rng(zlib.crc32(fmt.encode()))
    x2 = (rng.standard_normal((5, 3)) * [[1], [10], [0.01], [3], [100]]).astype(np.float32)
    q = quantize(mf, x2, fmt, axis=0, block_size=2)
    assert q.axis == 0
    assert np.asarray(q.data).shape == (5, 3)
    assert np.asarray(q.scales).shape == (3, 3)
    check_against(q, I.mx_quantize(x2, fmt, axis=0, block_size=2), fmt, "2-D axis 0")
    # the same thing as the transposed problem along the last axis
    qt = quantize(mf, np.ascontiguousarray(x2.T), fmt, axis=-1, block_size=2)
    assert qt.axis == 1
    assert (data_codes(qt, fmt).T == data_codes(q, fmt)).all()
    assert (scale_codes(qt).T == scale_codes(q)).all()

    x3 = (rng.standard_normal((2, 5, 3)) * 7).astype(np.float32)
    x3[1, :, 2] = 0.0
    x3[0, 4, 1] = np.nan
    for axis, sshape in ((1, (2, 2, 3)), (-2, (2, 2, 3)), (0, (1, 5, 3)), (2, (2, 5, 1)),
                         (-1, (2, 5, 1))):
        q = quantize(mf, x3, fmt, axis=axis, block_size=4)
        assert q.axis == axis % 3
        assert np.asarray(q.data).shape == x3.shape
        assert np.asarray(q.scales).shape == sshape, (axis, np.asarray(q.scales).shape)
        check_against(q, I.mx_quantize(x3, fmt, axis=axis, block_size=4), fmt,
                      f"3-D axis {axis}")


def test_non_contiguous_input(mf):
    x = np.random.default_rng(1).standard_normal((8, 12)).astype(np.float32)
    for view in (x.T, x[::2, ::-1], x[:, 3:9]):
        for fmt in ("mxfp8_e4m3", "mxint8", "nvfp4"):
            q = quantize(mf, view, fmt, block_size=4)
            check_against(q, I.mx_quantize(np.ascontiguousarray(view), fmt, block_size=4),
                          fmt, "view")


# --------------------------------------------------------------------------
# Every scale mode on Gaussian samples against the exact reference
# --------------------------------------------------------------------------


def gaussian(seed, shape):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    # a different magnitude per row, from tiny to huge
    mags = 2.0 ** rng.integers(-140, 120, size=shape[:-1] + (1,))
    x = x * mags
    x[..., 0] *= 4  # an outlier per row
    return x.astype(np.float32)


@pytest.mark.parametrize("fmt", MX)
@pytest.mark.parametrize("mode", MODES)
def test_gaussian_against_reference(mf, fmt, mode):
    x = gaussian(zlib.crc32(f"{fmt}{mode}".encode()), (6, 70))
    x[2, 5:9] = 0.0
    x[3, 40] = np.inf
    x[4, 65] = np.nan
    x[5, 10:20] = np.ldexp(np.float32(1.5), np.arange(-10, 0))  # powers of two and ties
    for axis, bs in ((-1, 32), (-1, 7), (0, 4)):
        q = quantize(mf, x, fmt, axis=axis, block_size=bs, scale_mode=mode)
        check_against(q, I.mx_quantize(x, fmt, axis=axis, block_size=bs, scale_mode=mode),
                      fmt, f"{fmt} {mode} axis={axis} bs={bs}")


@pytest.mark.parametrize("tensor_scale", [None, 0.37, "auto", 2.0**-20])
def test_nvfp4_gaussian_against_reference(mf, tensor_scale):
    seed = zlib.crc32(f"nv{tensor_scale}".encode())
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((5, 48)) * 2.0 ** rng.integers(-8, 10, (5, 1))).astype(np.float32)
    if tensor_scale != "auto":  # ("auto" with a NaN in x is not specified)
        x[1, 3] = np.nan
    x[2, :16] = 0.0
    for axis, bs in ((-1, 16), (-1, 5), (0, 2)):
        q = quantize(mf, x, "nvfp4", axis=axis, block_size=bs, tensor_scale=tensor_scale)
        check_against(q, I.mx_quantize(x, "nvfp4", axis=axis, block_size=bs,
                                       tensor_scale=tensor_scale),
                      "nvfp4", f"t={tensor_scale} axis={axis} bs={bs}")


def test_nvfp4_auto_without_nan(mf):
    rng = np.random.default_rng(8)
    x = (rng.standard_normal((4, 64)) * 1000).astype(np.float32)
    q = quantize(mf, x, "nvfp4", tensor_scale="auto")
    ref = I.mx_quantize(x, "nvfp4", tensor_scale="auto")
    assert float(q.tensor_scale) == ref["tensor_scale"]
    check_against(q, ref, "nvfp4", "auto")


@pytest.mark.parametrize("special", [np.inf, -np.inf, np.nan])
@pytest.mark.parametrize("magnitude", [1e6, 1e-6])
def test_nvfp4_auto_ignores_nan_and_inf(mf, special, magnitude):
    # a NaN or inf block gets the NaN scale; the other blocks keep the
    # tensor scale of the finite values (once they were clipped to 2688 or
    # zeroed, t having fallen back to 1)
    x = np.full((2, 16), magnitude, np.float32)
    x[1, 0] = special
    q = quantize(mf, x, "nvfp4", tensor_scale="auto")
    ref = I.mx_quantize(x, "nvfp4", tensor_scale="auto")
    assert float(q.tensor_scale) == ref["tensor_scale"] == float(np.float32(magnitude / 2688))
    check_against(q, ref, "nvfp4", f"auto {special}")
    assert (q.dequantize()[0] == np.float32(magnitude)).all() and np.isnan(q.dequantize()[1]).all()
    assert float(quantize(mf, np.full(16, special, np.float32), "nvfp4", tensor_scale="auto").tensor_scale) == 1.0


def test_nvfp4_auto_underflow_says_why(mf):
    # "auto" never clips, but a block below ~2^-19 of the largest value still
    # rounds its scale to 0; the message says so rather than suggest "auto"
    x = np.ones((2, 16), np.float32)
    x[0] *= 1000
    x[1] *= 1e-4
    with np.errstate(under="raise"), pytest.raises(FloatingPointError, match=r"2\*\*-19"):
        mf.mx.quantize(x, "nvfp4", tensor_scale="auto")
    with np.errstate(under="raise"), pytest.raises(FloatingPointError, match="'auto' fits them"):
        mf.mx.quantize(x, "nvfp4")


@pytest.mark.parametrize("fmt", MX)
def test_scale_modes_properties(mf, fmt):
    """floor <= even <= ceil (as exponents); rceil never saturates: every
    |P| <= max element, and the max of each block is within a binade."""
    elem, emax, max_elem, p = I.MX_FORMATS[fmt]
    x = gaussian(zlib.crc32(f"prop{fmt}".encode()), (4, 64))
    x = x[np.all(np.abs(x) > 2.0**-100, axis=1) & np.all(np.abs(x) < 2.0**100, axis=1)]
    if x.size == 0:
        x = np.random.default_rng(0).standard_normal((4, 64)).astype(np.float32)
    e = {m: scale_codes(quantize(mf, x, fmt, block_size=16, scale_mode=m)) for m in MODES}
    assert (e["floor"] <= e["even"]).all() and (e["even"] <= e["ceil"]).all()
    assert ((e["ceil"] - e["floor"]) <= 1).all()
    assert ((e["rceil"] - e["floor"]) >= 0).all() and ((e["rceil"] - e["floor"]) <= 1).all()


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["mxfp8", "MXFP8_E4M3", "fp4", "", "nvfp8"])
def test_bad_format_is_value_error(mf, bad):
    with pytest.raises(ValueError):
        quantize(mf, np.ones(4, np.float32), bad)


@pytest.mark.parametrize("bad", ["round", "nearest", "FLOOR", ""])
def test_bad_scale_mode_is_value_error(mf, bad):
    with pytest.raises(ValueError):
        quantize(mf, np.ones(4, np.float32), "mxfp8_e4m3", scale_mode=bad)


@pytest.mark.parametrize("bad", [np.ones(4, np.complex64), np.array(["1", "2"]),
                                 np.array([1.0, 2.0], dtype=object)],
                         ids=["complex", "str", "object"])
def test_non_real_input_is_type_error(mf, bad):
    with pytest.raises(TypeError):
        quantize(mf, bad, "mxfp8_e4m3")


@pytest.mark.parametrize("fmt", ["mxfp8_e4m3", "nvfp4"])
def test_axis_out_of_range(mf, fmt):
    x = np.ones((3, 4), np.float32)
    for axis in (2, -3, 10):
        with pytest.raises(np.exceptions.AxisError):
            quantize(mf, x, fmt, axis=axis)
    with pytest.raises(ValueError):  # AxisError is a ValueError
        quantize(mf, x, fmt, axis=5)


def test_dequantize_dtypes(mf):
    x = np.array([1.5, -0.75, 3, 0.1, 100.0, 1e-3], np.float32)
    for fmt in ALL_FMTS:
        q = quantize(mf, x, fmt, block_size=3)
        ref = I.mx_quantize(x, fmt, block_size=3)["deq"]
        d = q.dequantize()
        assert isinstance(d, np.ndarray) and d.dtype == np.float32 and d.shape == x.shape
        assert q.dequantize(np.float64).dtype == np.float64
        d16 = q.dequantize(np.float16)
        assert d16.dtype == np.float16
        assert same_values(d16, ref.astype(np.float16)).all()


def nvfp4_boundary_values(mf, code, t):
    """The float8_e4m3fn scale s of `code`, and every FP4 rounding boundary
    b * s * t as float32 with its float32 neighbours on both sides (21 values)."""
    s = float(np.array([code], np.uint8).view(mf.float8_e4m3fn).astype(np.float64)[0])
    centre = (np.array([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0]) * s * t).astype(np.float32)
    return s, np.concatenate([centre, np.nextafter(centre, np.float32(np.inf)), np.nextafter(centre, np.float32(0))])


@pytest.mark.parametrize("tensor_scale", [None, 0.37])
def test_nvfp4_elements_at_every_rounding_boundary(mf, tensor_scale):
    """For every positive float8_e4m3fn scale s: a block whose amax makes the
    scale s, holding every FP4 rounding boundary b * s (ties) and its float32
    neighbours on both sides, both signs: each rounds once."""
    t = 1.0 if tensor_scale is None else float(np.float32(tensor_scale))
    rows = []
    for code in range(1, 0x7F):
        s, values = nvfp4_boundary_values(mf, code, t)
        block = np.zeros(48, np.float32)
        block[0] = np.float32(6 * s * t)
        block[1:22] = values
        block[22:43] = -values
        rows.append(block)
    x = np.stack(rows)
    q = quantize(mf, x, "nvfp4", block_size=48, tensor_scale=tensor_scale)
    check_against(q, I.mx_quantize(x, "nvfp4", block_size=48, tensor_scale=tensor_scale),
                  "nvfp4", f"boundaries t={tensor_scale}")


@pytest.mark.parametrize("tensor_scale", [None, 0.37])
def test_nvfp4_rounding_boundaries_in_blocks_of_16(mf, tensor_scale):
    """The same boundaries in NVFP4's own blocks of 16, 16 blocks and more in
    a row (the kernel's groups of 16 blocks): each block its amax and 15
    values at, above and below the boundaries of its scale."""
    t = 1.0 if tensor_scale is None else float(np.float32(tensor_scale))
    blocks = []
    for code in range(1, 0x7F):
        s, values = nvfp4_boundary_values(mf, code, t)
        values = np.concatenate([values, -values])  # 42 values: three blocks of amax + 14
        for part in range(3):
            block = np.zeros(16, np.float32)
            block[0] = np.float32(6 * s * t)
            block[1:15] = values[14 * part:14 * part + 14]
            blocks.append(block)
    x = np.concatenate(blocks).reshape(-1, 16 * 42)  # 9 rows of 42 blocks
    q = quantize(mf, x, "nvfp4", block_size=16, tensor_scale=tensor_scale)
    check_against(q, I.mx_quantize(x, "nvfp4", block_size=16, tensor_scale=tensor_scale),
                  "nvfp4", f"blocks of 16, t={tensor_scale}")


@pytest.mark.parametrize("fmt", MX)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("block_size", [32, 16])
def test_many_blocks_against_reference(mf, fmt, mode, block_size):
    """Rows of 40 blocks (the vectorized path takes 16 blocks at a time),
    with zero, subnormal, huge, inf and NaN blocks among them."""
    rng = np.random.default_rng(zlib.crc32(f"many{fmt}{mode}{block_size}".encode()))
    x = gaussian(zlib.crc32(f"{fmt}{mode}{block_size}".encode()), (3, 40 * block_size))
    with np.errstate(over="ignore"):  # an overflow to inf is one more inf block
        x *= (2.0 ** rng.integers(-20, 20, (3, 40))).repeat(block_size, axis=1).astype(np.float32)
    b = block_size
    x[0, 3 * b:4 * b] = 0.0                                   # all-zero block
    x[0, 5 * b:6 * b] = rng.standard_normal(b) * 1e-39        # subnormal maxima
    x[1, 7 * b + 3] = np.inf                                  # inf block
    x[1, 17 * b + 9] = np.nan                                 # NaN block
    x[2, 20 * b:21 * b] = 3e38                                # largest scales
    x[2, 30 * b:31 * b] = np.float32(2.0 ** -149)             # smallest subnormal
    q = quantize(mf, x, fmt, block_size=b, scale_mode=mode)
    check_against(q, I.mx_quantize(x, fmt, block_size=b, scale_mode=mode), fmt, f"{fmt} {mode} bs={b}")


# --------------------------------------------------------------------------
# dequantize: both kernel sets, every layout
# --------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ALL_FMTS)
@pytest.mark.parametrize("avx512", [True, False])
def test_dequantize_layouts_and_kernels(mf, fmt, avx512):
    """Blocks along the last, middle and first axes, whole and partial, block
    sizes 32, 16 and 7, with zero, NaN and inf blocks; the hand-written
    (AVX-512) and portable scaling loops: element * scale rounded once."""
    rng = np.random.default_rng(zlib.crc32(f"deq{fmt}".encode()))
    x = gaussian(zlib.crc32(f"deqx{fmt}".encode()), (3, 70, 37))
    x[0, 5, :] = 0.0
    x[1, 9, 3] = np.nan
    x[2, 40, 30] = -np.inf
    previous = mf._core._set_avx512_kernels(avx512)
    try:
        for axis in (-1, 1, 0):
            for block_size in (32, 16, 7):
                q = quantize(mf, x, fmt, axis=axis, block_size=block_size)
                check_against(q, I.mx_quantize(x, fmt, axis=axis, block_size=block_size), fmt,
                              f"axis {axis} block {block_size}")
        whole = rng.standard_normal((4, 256)).astype(np.float32)  # rows of whole blocks: one flat pass
        q = quantize(mf, whole, fmt, block_size=16, tensor_scale=0.75 if fmt == "nvfp4" else None)
        check_against(q, I.mx_quantize(whole, fmt, block_size=16, tensor_scale=0.75 if fmt == "nvfp4" else None),
                      fmt, "whole blocks")
    finally:
        mf._core._set_avx512_kernels(previous)


@pytest.mark.parametrize("fmt", ["nvfp4", "mxfp4_e2m1", "mxfp8_e4m3", "mxint8"])
def test_quantize_rows_longer_than_a_pass(mf, fmt):
    """A row is scaled and encoded in passes: 16384 values when the
    operation fits the last-level cache, 1024 beyond it (mx_kernels.cpp).
    Rows across several passes of either size, with a NaN, an inf and a zero
    block beside the pass boundaries and a partial last block, match the
    reference in both regimes."""
    n = 2 * 16384 + 3 * 32 + 5
    x = gaussian(zlib.crc32(f"passes{fmt}".encode()), (n,))
    x[16383] = np.nan
    x[16384:16384 + 32] = 0.0
    x[1024 * 3 + 1] = -np.inf
    x[1024 * 5: 1024 * 5 + 32] *= np.float32(2.0 ** -100)
    tensor_scale = 0.75 if fmt == "nvfp4" else None
    expected = I.mx_quantize(x, fmt, tensor_scale=tensor_scale)
    for beyond, label in ((0, "within the cache"), (1, "beyond the cache")):
        previous = mf._core._set_beyond_cache_bytes(beyond)
        try:
            with np.errstate(invalid="ignore", over="ignore"):
                q = quantize(mf, x, fmt, tensor_scale=tensor_scale)
                rows = quantize(mf, np.stack([x, x[::-1].copy()]), fmt, tensor_scale=tensor_scale)
        finally:
            mf._core._set_beyond_cache_bytes(previous)
        check_against(q, expected, fmt, label)
        assert rows.data[0].tobytes() == q.data.tobytes() and rows.scales[0].tobytes() == q.scales.tobytes(), label


@pytest.mark.parametrize("fmt", ALL_FMTS)
@pytest.mark.parametrize("block_size", [16, 32, 64])
def test_dequantize_one_pass_steps_and_tails(mf, fmt, block_size):
    """Whole blocks along the last axis are decoded and scaled in one pass,
    64 values a step (byte_lookup_avx512.h): lengths that leave 1-3 vectors
    of 16 in the last step, with NaN and zero scales, on every kernel set."""
    for blocks in (1, 2, 3, 5, 7, 9):
        if blocks * block_size % 64 == 0 and blocks > 1:
            continue
        x = gaussian(zlib.crc32(f"tail{fmt}{block_size}{blocks}".encode()), (blocks * block_size,))
        x[:block_size] *= np.float32(2.0 ** -140)  # a block scaled near the bottom
        if blocks > 2:
            x[block_size + 1] = np.nan              # a NaN scale
            x[2 * block_size:3 * block_size] = 0.0  # a zero block
        tensor_scale = 0.75 if fmt == "nvfp4" else None
        expected = I.mx_quantize(x, fmt, block_size=block_size, tensor_scale=tensor_scale)
        for kernel_set in KERNEL_SETS:
            with kernels(mf, kernel_set):
                q = quantize(mf, x, fmt, block_size=block_size, tensor_scale=tensor_scale)
                check_against(q, expected, fmt, f"{blocks} blocks of {block_size}, {kernel_set}")


def test_dequantize_mxint8_smallest_scale_is_exact(mf):
    """MXINT8 at the scale 2^-127: 2^-127 * k / 64 lies in float32's
    subnormal range, rounded once (k = 1: 2^-133, exact)."""
    x = np.array([2.0**-133, -(2.0**-127)], np.float32)
    q = quantize(mf, x, "mxint8", block_size=2)
    assert scale_codes(q).tolist() == [0]
    assert q.dequantize().tolist() == [2.0**-133, -(2.0**-127)]


# --------------------------------------------------------------------------
# MXArray.from_parts, pack, nbytes, save / load
# --------------------------------------------------------------------------


def fp4_value(code):
    return float(R.decode("float4_e2m1fn", code))


def test_from_parts_modelopt_nvfp4_layout(mf):
    """An NVFP4 weight as NVIDIA ModelOpt stores it: uint8 (M, K/2), two
    FP4 codes per byte with the first in the low nibble; float8_e4m3fn
    scales (M, K/16) as uint8 codes; a float32 weight_scale_2. The value of
    element (m, k) is fp4 * scale * weight_scale_2, rounded once."""
    rng = np.random.default_rng(7)
    m, k = 3, 64
    codes = rng.integers(0, 16, (m, k))
    packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8)
    scale_codes_ = rng.integers(0x08, 0x70, (m, k // 16)).astype(np.uint8)
    t = np.array(0.00390625 * 3, np.float32)
    q = mf.mx.MXArray.from_parts(packed, scale_codes_, "nvfp4", axis=-1, tensor_scale=t, packed=True)
    assert q.shape == (m, k) and q.block_size == 16 and q.tensor_scale == t
    assert (R.codes_of(q.data) == codes).all()
    exp = np.array([[fp4_value(codes[i, j]) * float(R.decode("float8_e4m3fn", scale_codes_[i, j // 16])) * float(t)
                     for j in range(k)] for i in range(m)])
    assert (q.dequantize(np.float64) == exp).all()
    assert (q.dequantize() == exp.astype(np.float32)).all()
    # the packed bytes come back from pack()
    data_bytes, scale_bytes = q.pack()
    assert bytes(data_bytes) == packed.tobytes() and bytes(scale_bytes) == scale_codes_.tobytes()
    assert q.nbytes == packed.size + scale_codes_.size + 4


@pytest.mark.parametrize("fmt", ALL_FMTS)
def test_from_parts_round_trips(mf, fmt):
    x = gaussian(zlib.crc32(f"parts{fmt}".encode()), (6, 48))
    kw = {"tensor_scale": "auto"} if fmt == "nvfp4" else {}
    q = quantize(mf, x, fmt, block_size=16, **kw)
    same = lambda a, b: np.array_equal(a.view(np.uint32), b.view(np.uint32))  # noqa: E731
    for data, scales in ((q.data, q.scales), (np.asarray(q.data).view(np.uint8), np.asarray(q.scales).view(np.uint8))):
        r = mf.mx.MXArray.from_parts(data, scales, fmt, axis=1, block_size=16, tensor_scale=q.tensor_scale)
        assert same(r.dequantize(), q.dequantize()) and r.data.dtype == q.data.dtype
        assert r.scales.dtype == q.scales.dtype
    data_bytes, scale_bytes = q.pack()
    bits = {"mxfp8_e4m3": 8, "mxfp8_e5m2": 8, "mxfp6_e3m2": 6, "mxfp6_e2m3": 6, "mxfp4_e2m1": 4,
            "mxint8": 8, "nvfp4": 4}[fmt]
    assert bytes(data_bytes) == I.pack_codes(np.asarray(q.data).view(np.uint8), bits)
    assert bytes(scale_bytes) == np.asarray(q.scales).view(np.uint8).tobytes()
    assert q.nbytes == data_bytes.size + scale_bytes.size + (4 if q.tensor_scale is not None else 0)
    assert data_bytes.size == -(-x.size * bits // 8)
    r = mf.mx.MXArray.from_parts(data_bytes, scale_bytes.reshape(q.scales.shape), fmt, axis=1, block_size=16,
                                 tensor_scale=q.tensor_scale, packed=True, shape=x.shape)
    assert same(r.dequantize(), q.dequantize())
    # blocks along the first axis
    block = 16 if fmt == "nvfp4" else 4  # (NVFP4's blocks are 16 values)
    q0 = quantize(mf, x, fmt, axis=0, block_size=block, **kw)
    r0 = mf.mx.MXArray.from_parts(q0.data, q0.scales, fmt, axis=0, block_size=block, tensor_scale=q0.tensor_scale)
    assert same(r0.dequantize(), q0.dequantize())


@pytest.mark.parametrize("fmt", ALL_FMTS)
def test_save_and_load(mf, fmt, tmp_path):
    x = gaussian(zlib.crc32(f"save{fmt}".encode()), (5, 40))
    x[2, 3] = np.nan
    kw = {"tensor_scale": 0.1} if fmt == "nvfp4" else {}
    block = 16 if fmt == "nvfp4" else 2  # (NVFP4's blocks are 16 values)
    q = quantize(mf, x, fmt, axis=0, block_size=block, **kw)
    buffer = io.BytesIO()
    q.save(buffer)
    buffer.seek(0)
    with np.load(buffer, allow_pickle=False) as archive:  # pickle-free
        assert sorted(archive.files) == ["data", "meta", "scales"]
        assert archive["data"].dtype == np.uint8 and archive["scales"].dtype == np.uint8
        assert archive["meta"].dtype.kind == "U"
    buffer.seek(0)
    r = mf.mx.MXArray.load(buffer)
    path = tmp_path / "w.npz"
    q.save(path)
    r2 = mf.mx.MXArray.load(path)
    for loaded in (r, r2):
        assert loaded.format == fmt and loaded.shape == q.shape and loaded.axis == 0 and loaded.block_size == block
        assert (np.asarray(loaded.data).view(np.uint8) == np.asarray(q.data).view(np.uint8)).all()
        assert (np.asarray(loaded.scales).view(np.uint8) == np.asarray(q.scales).view(np.uint8)).all()
        assert loaded.tensor_scale == q.tensor_scale
        if q.tensor_scale is not None:
            assert type(loaded.tensor_scale) is np.float32


def test_load_rejects_other_files(mf, tmp_path):
    np.savez(tmp_path / "a.npz", data=np.zeros(2, np.uint8))
    with pytest.raises(ValueError, match="not an MXArray file"):
        mf.mx.MXArray.load(tmp_path / "a.npz")
    np.savez(tmp_path / "b.npz", data=np.zeros(2, np.uint8), scales=np.zeros(1, np.uint8),
             meta=np.array("{not json"))
    with pytest.raises(ValueError, match="bad metadata"):
        mf.mx.MXArray.load(tmp_path / "b.npz")
    meta = '{"minifloat_mxarray": 99, "format": "mxint8", "shape": [2], "axis": 0, "block_size": 2, ' \
           '"tensor_scale": null}'
    np.savez(tmp_path / "c.npz", data=np.zeros(2, np.uint8), scales=np.zeros(1, np.uint8), meta=np.array(meta))
    with pytest.raises(ValueError, match="version"):
        mf.mx.MXArray.load(tmp_path / "c.npz")
    meta = meta.replace("99", "1")
    np.savez(tmp_path / "d.npz", data=np.zeros(3, np.uint8), scales=np.zeros(1, np.uint8), meta=np.array(meta))
    with pytest.raises(ValueError, match="int8 elements"):
        mf.mx.MXArray.load(tmp_path / "d.npz")
    np.savez(tmp_path / "e.npz", data=np.zeros(2, np.uint8), scales=np.zeros(1, object), meta=np.array(meta))
    with pytest.raises(ValueError):  # an object array needs pickles: refused
        mf.mx.MXArray.load(tmp_path / "e.npz")


def test_from_parts_errors(mf):
    d = np.zeros((4, 64), np.uint8)
    s = np.zeros((4, 2), np.uint8)
    P = mf.mx.MXArray.from_parts
    assert P(d, s, "mxfp8_e4m3").shape == (4, 64)
    with pytest.raises(ValueError, match=r"scales must have shape \(4, 2\)"):
        P(d, np.zeros((4, 3), np.uint8), "mxfp8_e4m3")
    with pytest.raises(ValueError, match=r"shape \(4, 4\)"):
        P(d, s, "mxfp8_e4m3", block_size=16)
    with pytest.raises(ValueError, match=r"shape \(1, 64\)"):
        P(d, s, "mxfp8_e4m3", axis=0, block_size=32)
    with pytest.raises(TypeError, match="float8_e4m3fn values or uint8 codes"):
        P(d.astype(np.float32), s, "mxfp8_e4m3")
    with pytest.raises(TypeError, match="float8_e5m2 values or uint8 codes"):
        P(d.view(mf.float8_e4m3fn), s, "mxfp8_e5m2")
    with pytest.raises(TypeError, match="float8_e8m0fnu values or uint8 codes"):
        P(d, s.astype(np.float32), "mxfp8_e4m3")
    with pytest.raises(TypeError, match="float8_e4m3fn values or uint8 codes"):
        P(d, s.view(mf.float8_e8m0fnu), "nvfp4")
    with pytest.raises(ValueError, match="4 bits"):
        P(np.full((4, 64), 17, np.uint8), s, "mxfp4_e2m1")
    with pytest.raises(ValueError, match="fmt must be one of"):
        P(d, s, "mxfp9")
    with pytest.raises(ValueError, match="block_size"):
        P(d, s, "mxfp8_e4m3", block_size=0)
    with pytest.raises(TypeError, match="block_size"):  # (a float is no integer: issue 30)
        P(d, s, "mxfp8_e4m3", block_size=2.5)
    with pytest.raises(ValueError, match="'nvfp4' only"):
        P(d, s, "mxfp8_e4m3", tensor_scale=1.0)
    for bad in (0.0, -1.0, np.nan, np.inf, [1.0, 2.0]):
        with pytest.raises(ValueError, match="tensor_scale"):
            P(d, np.zeros((4, 4), np.uint8), "nvfp4", tensor_scale=bad)
    with pytest.raises(TypeError, match="uint8 bytes"):
        P(d.view(mf.float8_e4m3fn), s, "mxfp4_e2m1", packed=True)
    with pytest.raises(ValueError, match="whole 6-bit codes"):
        P(np.zeros((4, 5), np.uint8), s, "mxfp6_e3m2", packed=True)
    with pytest.raises(ValueError, match="bytes packed"):
        P(np.zeros(10, np.uint8), np.zeros(1, np.uint8), "mxfp4_e2m1", packed=True, shape=(30,))
    with pytest.raises(ValueError, match="only for packed"):
        P(d, s, "mxfp8_e4m3", shape=(4, 64))
    with pytest.raises(ValueError, match="at least one dimension"):
        P(np.uint8(3), np.zeros(1, np.uint8), "mxfp8_e4m3")
    with pytest.raises(np.exceptions.AxisError):
        P(d, s, "mxfp8_e4m3", axis=2)
    # packed FP4 rows: (4, 32) bytes hold (4, 64) codes
    assert P(np.zeros((4, 32), np.uint8), s, "mxfp4_e2m1", packed=True).shape == (4, 64)
    assert P(np.zeros((4, 48), np.uint8), s, "mxfp6_e2m3", packed=True).shape == (4, 64)


# --------------------------------------------------------------------------
# mf.mx.matmul / mf.mx.dot (OCP MX v1.0 section 6.2) in the documented order
# --------------------------------------------------------------------------


def f32_of(q):
    """Fraction q rounded once to float32 (subnormals; overflow to inf) as a Fraction or inf."""
    if q == 0:
        return Fraction(0)
    neg, a = q < 0, abs(q)
    k = max(R.floor_log2(a), -126)
    unit = Fraction(2) ** (k - 23)
    r = R.round_half_even(a / unit) * unit
    if r >= Fraction(2) ** 128:
        return -math.inf if neg else math.inf
    return -r if neg else r


def element_values(q):
    if q.format == "mxint8":
        return [[Fraction(int(v), 64) for v in row] for row in np.atleast_2d(np.asarray(q.data))]
    name = ELEM_DTYPE[q.format]
    # "-0" is zero; NaN elements only occur in NaN blocks, whose results are NaN
    value = lambda c: Fraction(0) if isinstance(R.decode(name, c), str) else R.decode(name, c)  # noqa: E731
    return [[value(int(c)) for c in row] for row in np.atleast_2d(R.codes_of(np.asarray(q.data)))]


def matmul_reference(qa, qb):
    """The order mf.mx.matmul documents, in exact arithmetic with one float32
    rounding per step."""
    a, b = element_values(qa), element_values(qb)
    ea = np.atleast_2d(scale_codes(qa))
    eb = scale_codes(qb).reshape(-1, np.asarray(qb.data).reshape(len(b), -1).shape[1])
    m, k, n = len(a), len(b), len(b[0])
    bs = qa.block_size
    out = np.zeros((m, n), np.float32)
    for i in range(m):
        for j in range(n):
            if (ea[i] == 0xFF).any() or (eb[:, j] == 0xFF).any():
                out[i, j] = np.nan
                continue
            acc = Fraction(0)
            for kb in range(-(-k // bs)):
                t = Fraction(0)
                for kk in range(kb * bs, min(k, (kb + 1) * bs)):
                    t = f32_of(t + a[i][kk] * b[kk][j])  # the block sums stay finite here
                scaled = f32_of(t * Fraction(2) ** (int(ea[i, kb]) + int(eb[kb, j]) - 254))
                if isinstance(acc, float) or isinstance(scaled, float):  # an infinity: IEEE addition
                    acc = float(acc) + float(scaled)
                else:
                    acc = f32_of(acc + scaled)
            out[i, j] = float(acc)
    return out


MATMUL_PAIRS = [("mxfp8_e4m3", "mxfp8_e4m3"), ("mxfp8_e5m2", "mxfp8_e5m2"), ("mxfp4_e2m1", "mxfp6_e2m3"),
                ("mxint8", "mxfp6_e3m2"), ("mxfp8_e5m2", "mxint8")]


@pytest.mark.parametrize("fa,fb", MATMUL_PAIRS)
@pytest.mark.parametrize("kernel_set", ["avx512", "avx2", "portable"])
def test_matmul_against_reference(mf, fa, fb, kernel_set):
    """Exact: element products, block sums (one FMA rounding per step),
    2^(Ea + Eb) scaling and float32 accumulation in the stated order. Rows of
    very different magnitudes (sums and scaled sums that round, scales
    whose product under- or overflows float32), partial blocks, row tails
    (not a multiple of 6) and column tails (not a multiple of 32)."""
    rng = np.random.default_rng(zlib.crc32(f"mm{fa}{fb}".encode()))
    m, k, n = 7, 45, 35
    a = (rng.standard_normal((m, k)) * 2.0 ** rng.integers(-60, 60, (m, 1))).astype(np.float32)
    b = (rng.standard_normal((k, n)) * 2.0 ** rng.integers(-60, 60, (1, n))).astype(np.float32)
    a[0, :16] = 3e38  # scale 2^127 in a's first block of row 0 ...
    b[:16, 0] = 3e38  # ... and of b's column 0: a product past float32 (inf)
    a[1, :] = 1e-38
    b[:, 1] = 1e-38   # tiny scales: their product underflows
    qa = quantize(mf, a, fa, axis=-1, block_size=16)
    qb = quantize(mf, b, fb, axis=0, block_size=16)
    avx512, avx2 = {"avx512": (True, True), "avx2": (False, True), "portable": (False, False)}[kernel_set]
    previous = mf._core._set_avx512_kernels(avx512), mf._core._set_avx2_kernels(avx2)
    try:
        with np.errstate(over="ignore"):
            got = mf.mx.matmul(qa, qb)
    finally:
        mf._core._set_avx512_kernels(previous[0])
        mf._core._set_avx2_kernels(previous[1])
    exp = matmul_reference(qa, qb)
    assert got.dtype == np.float32 and got.shape == (m, n)
    ok = (got.view(np.uint32) == exp.view(np.uint32)) | (np.isnan(got) & np.isnan(exp))
    assert ok.all(), (np.argwhere(~ok)[:5], got[~ok][:5], exp[~ok][:5])


def test_matmul_long_k_and_several_runs(mf):
    """Long K (19 blocks of 32, the last partial) and rows over two runs of
    48, on the AVX-512 and AVX2 kernels: exact against the reference; and
    bit for bit the portable kernel's on a larger product with several
    runs, panels and a column tail. (A variant that took K in slices,
    keeping the accumulators between them, was measured and left out.)"""
    rng = np.random.default_rng(11)
    a = (rng.standard_normal((50, 600)) * 2.0 ** rng.integers(-30, 30, (50, 1))).astype(np.float32)
    b = (rng.standard_normal((600, 9)) * 2.0 ** rng.integers(-30, 30, (1, 9))).astype(np.float32)
    qa, qb = quantize(mf, a, "mxfp8_e4m3"), quantize(mf, b, "mxfp6_e2m3", axis=0)
    big_a = quantize(mf, rng.standard_normal((101, 1000)).astype(np.float32), "mxfp4_e2m1")
    big_b = quantize(mf, rng.standard_normal((1000, 70)).astype(np.float32), "mxfp8_e5m2", axis=0)
    exact = matmul_reference(qa, qb).view(np.uint32)
    with kernels(mf, "portable"):
        portable = mf.mx.matmul(big_a, big_b)
    for kernel_set in ("avx512", "avx2"):
        with kernels(mf, kernel_set):
            got, got_big = mf.mx.matmul(qa, qb), mf.mx.matmul(big_a, big_b)
        assert (got.view(np.uint32) == exact).all(), kernel_set
        assert (got_big.view(np.uint32) == portable.view(np.uint32)).all(), kernel_set


def test_matmul_nan_scales_and_block_sizes(mf):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 20)).astype(np.float32)
    b = rng.standard_normal((20, 3)).astype(np.float32)
    a[2, 5] = np.nan
    b[11, 1] = np.inf
    for bs in (8, 32, 1):
        qa = quantize(mf, a, "mxfp8_e4m3", block_size=bs)
        qb = quantize(mf, b, "mxfp8_e4m3", axis=0, block_size=bs)
        got = mf.mx.matmul(qa, qb)
        assert np.isnan(got[2]).all() and np.isnan(got[:, 1]).all()
        exp = matmul_reference(qa, qb)
        assert ((got == exp) | (np.isnan(got) & np.isnan(exp))).all(), bs


def test_matmul_close_to_float64_product(mf):
    """Sanity: for 512 x 512 operands the result is the float64 product of
    the dequantized operands up to float32 accumulation error."""
    rng = np.random.default_rng(4)
    a = rng.standard_normal((64, 512)).astype(np.float32)
    b = rng.standard_normal((512, 48)).astype(np.float32)
    qa, qb = quantize(mf, a, "mxfp8_e4m3"), quantize(mf, b, "mxfp8_e4m3", axis=0)
    exact = qa.dequantize(np.float64) @ qb.dequantize(np.float64)
    bound = 512 * 2.0**-24 * (np.abs(qa.dequantize(np.float64)) @ np.abs(qb.dequantize(np.float64))) * 1.01
    assert (np.abs(mf.mx.matmul(qa, qb) - exact) <= bound).all()


def test_dot(mf):
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal(100).astype(np.float32), rng.standard_normal(100).astype(np.float32)
    qx, qy = quantize(mf, x, "mxfp8_e4m3"), quantize(mf, y, "mxfp4_e2m1")
    d = mf.mx.dot(qx, qy)
    assert isinstance(d, np.float32)
    qa = mf.mx.MXArray.from_parts(qx.data.reshape(1, 100), qx.scales.reshape(1, 4), "mxfp8_e4m3")
    qb = mf.mx.MXArray.from_parts(qy.data.reshape(100, 1), qy.scales.reshape(4, 1), "mxfp4_e2m1", axis=0)
    assert d == mf.mx.matmul(qa, qb)[0, 0] == matmul_reference(qa, qb)[0, 0]


def test_matmul_errors(mf):
    a = quantize(mf, np.ones((2, 64), np.float32), "mxfp8_e4m3")
    b = quantize(mf, np.ones((64, 3), np.float32), "mxfp8_e4m3", axis=0)
    assert mf.mx.matmul(a, b).tolist() == [[64.0] * 3] * 2
    with pytest.raises(TypeError, match="MXArray"):
        mf.mx.matmul(np.ones((2, 64)), b)
    with pytest.raises(ValueError, match="nvfp4"):
        mf.mx.matmul(quantize(mf, np.ones((2, 64), np.float32), "nvfp4"), b)
    with pytest.raises(ValueError, match="last axis"):
        mf.mx.matmul(quantize(mf, np.ones((64, 64), np.float32), "mxfp8_e4m3", axis=0), b)
    with pytest.raises(ValueError, match="last axis"):
        mf.mx.matmul(a, quantize(mf, np.ones((64, 3), np.float32), "mxfp8_e4m3"))
    with pytest.raises(ValueError, match="block size"):
        mf.mx.matmul(a, quantize(mf, np.ones((64, 3), np.float32), "mxfp8_e4m3", axis=0, block_size=16))
    with pytest.raises(ValueError, match="inner sizes"):
        mf.mx.matmul(a, quantize(mf, np.ones((32, 3), np.float32), "mxfp8_e4m3", axis=0))
    with pytest.raises(ValueError, match="2-D"):
        mf.mx.matmul(quantize(mf, np.ones(64, np.float32), "mxfp8_e4m3"), b)
    with pytest.raises(ValueError, match="1-D"):
        mf.mx.dot(a, b)
    with pytest.raises(ValueError, match="lengths"):
        mf.mx.dot(quantize(mf, np.ones(64, np.float32), "mxint8"), quantize(mf, np.ones(32, np.float32), "mxint8"))


def test_blocks_longer_than_the_axis_and_edited_attributes(mf):
    """A block longer than the axis is one block of it (dequantize, matmul,
    dot hand the kernels the axis's length); an MXArray whose block_size or
    scales were edited into disagreement raises ValueError, never reads past
    its scales."""
    rng = np.random.default_rng(6)
    a = rng.standard_normal((3, 40)).astype(np.float32)
    b = rng.standard_normal((40, 2)).astype(np.float32)
    huge = 2**62
    qa, qb = quantize(mf, a, "mxfp8_e4m3", block_size=huge), quantize(mf, b, "mxint8", axis=0, block_size=huge)
    same_a, same_b = quantize(mf, a, "mxfp8_e4m3", block_size=40), quantize(mf, b, "mxint8", axis=0, block_size=40)
    assert qa.scales.shape == (3, 1) and (R.codes_of(qa.scales) == R.codes_of(same_a.scales)).all()
    assert (qa.dequantize() == same_a.dequantize()).all() and (qb.dequantize() == same_b.dequantize()).all()
    got = mf.mx.matmul(qa, qb)
    assert (got == mf.mx.matmul(same_a, same_b)).all() and (got == matmul_reference(same_a, same_b)).all()
    assert mf.mx.dot(quantize(mf, a[0], "mxfp4_e2m1", block_size=huge),
                     quantize(mf, b[:, 0], "mxfp4_e2m1", block_size=huge)) == \
        mf.mx.dot(quantize(mf, a[0], "mxfp4_e2m1", block_size=40), quantize(mf, b[:, 0], "mxfp4_e2m1", block_size=40))
    edited = quantize(mf, a, "mxfp8_e4m3", block_size=8)
    edited.block_size = 4
    with pytest.raises(ValueError, match="5 scales along axis 1 for 10 blocks"):
        edited.dequantize()
    for bad in (0, -3, 2.5, True):
        edited.block_size = bad
        with pytest.raises(ValueError, match="positive integer"):
            edited.dequantize()


def test_nvfp4_refuses_scale_mode_and_signed_scales(mf):
    # NVFP4's block scale rounds amax / (6 t) to nearest even: a scale_mode
    # would be ignored, so it is refused, as tensor_scale is for MX formats
    x = np.ones((2, 16), np.float32)
    for mode in ("ceil", "even", "rceil"):
        with pytest.raises(ValueError, match="scale_mode applies to the MX formats"):
            mf.mx.quantize(x, "nvfp4", scale_mode=mode)
    assert scale_codes(mf.mx.quantize(x, "nvfp4", scale_mode="floor")).tolist() == [[0x23], [0x23]]  # 1/6 -> 0.171875
    # its scales are UE4M3: no sign bit (a negative scale flipped the block)
    data = np.full((1, 16), 0x2, np.uint8)
    with pytest.raises(ValueError, match="unsigned .*0xb8"):
        mf.mx.MXArray.from_parts(data, np.array([[0xB8]], np.uint8), "nvfp4")
    with pytest.raises(ValueError, match="unsigned"):
        mf.mx.MXArray.from_parts(data, np.array([[-1.0]], mf.float8_e4m3fn), "nvfp4")
    assert mf.mx.MXArray.from_parts(data, np.array([[0x38]], np.uint8), "nvfp4").dequantize().tolist() == [[1.0] * 16]


def test_load_names_a_bad_tensor_scale(mf, tmp_path):
    meta = '{"minifloat_mxarray": 1, "format": "nvfp4", "shape": [16], "axis": 0, "block_size": 16, ' \
           '"tensor_scale": %s}'
    for value, message in (("0.5", "not a hexadecimal float string"), ('"half"', "tensor_scale")):
        np.savez(tmp_path / "t.npz", data=np.zeros(8, np.uint8), scales=np.zeros(1, np.uint8),
                 meta=np.array(meta % value))
        with pytest.raises(ValueError, match=message):
            mf.mx.MXArray.load(tmp_path / "t.npz")
