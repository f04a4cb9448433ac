"""mf.quant.quantize: per-tensor, per-channel and 2-D block scaling with
float32 scales and saturating casts, checked bit for bit against an exact
reference written here (Fractions): the scale amax / max(dtype) * 2**margin
rounded once to float32 (or the power of two above it), the elements
x / scale rounded once with saturation, the dequantized element * scale
rounded once to float32."""

import io
import math
import zlib
from fractions import Fraction

import numpy as np
import pytest

import reference as R

TWO = Fraction(2)
F32_MAX = Fraction(*np.finfo(np.float32).max.as_integer_ratio())
# signed formats hold data (unsigned ones, float8_e8m0fnu and the P3109 u formats, are refused)
DATA_FORMATS = [n for n in R.FORMAT_NAMES if R.FORMATS[n].signed]
GRANULARITY_CASES = [
    ("tensor", {}),
    ("channel", {"axis": 0}),
    ("channel", {"axis": 1}),
    ("channel", {"axis": -1}),
    ("block", {}),
    ("block", {"block_size": (1, 32)}),
    ("block", {"block_size": (3, 5)}),
    ("block", {"block_size": 7}),
]


def seed_of(*parts):
    return zlib.crc32("/".join(map(str, parts)).encode())


def frac(v):
    return Fraction(*v.as_integer_ratio())


def f32_round(q):
    """q rounded once to nearest even float32 (subnormals, overflow to inf)."""
    if q == 0:
        return 0.0
    neg, a = q < 0, abs(q)
    k = max(R.floor_log2(a), -126)
    unit = TWO ** (k - 23)
    r = R.round_half_even(a / unit) * unit
    if r > F32_MAX:
        return -math.inf if neg else math.inf
    return float(-r if neg else r)


def ceil_log2(q):
    k = R.floor_log2(q)
    return k if q == TWO**k else k + 1


def groups(shape, granularity, axis=0, block_size=(128, 128)):
    """{scale index: tuple of element index arrays}."""
    ndim = len(shape)
    if granularity == "tensor":
        return {(): tuple(np.indices(shape).reshape(ndim, -1))}
    if granularity == "channel":
        axis = axis % ndim
        idx = np.indices(shape).reshape(ndim, -1)
        return {(c,): tuple(idx[:, idx[axis] == c]) for c in range(shape[axis])}
    if isinstance(block_size, int):
        block_size = (block_size,)
    blocks = (1,) * (ndim - len(block_size)) + tuple(block_size)
    counts = [-(-s // b) for s, b in zip(shape, blocks)]
    idx = np.indices(shape).reshape(ndim, -1)
    tile = tuple(idx[a] // blocks[a] for a in range(ndim))
    out = {}
    for t in np.ndindex(*counts):
        sel = np.ones(idx.shape[1], bool)
        for a in range(ndim):
            sel &= tile[a] == t[a]
        out[t] = tuple(idx[:, sel])
    return out


def reference(x, name, granularity, axis=0, block_size=(128, 128), margin=0, pow2_scales=False):
    """(data codes, scales, dequantized float32) exactly."""
    fmt = R.FORMATS[name]
    x32 = np.asarray(x, dtype=np.float32)
    max_value = frac(np.float64(R.finfo_expected(name)["max"]))
    g = groups(x32.shape, granularity, axis, block_size)
    if granularity == "tensor":
        scale_shape = ()
    elif granularity == "channel":
        scale_shape = (x32.shape[axis % x32.ndim],)
    else:
        bs = (block_size,) if isinstance(block_size, int) else tuple(block_size)
        bs = (1,) * (x32.ndim - len(bs)) + bs
        scale_shape = tuple(-(-n // b) for n, b in zip(x32.shape, bs))
    scales = np.ones(scale_shape, np.float32)
    codes = np.zeros(x32.shape, np.int64)
    deq = np.zeros(x32.shape, np.float32)
    nan_code = fmt.nan_code() if fmt.has_nan else 0
    for key, index in g.items():
        vals = x32[index]
        if not np.isfinite(vals).all():
            scales[key] = np.nan
            codes[index] = nan_code
            deq[index] = np.nan
            continue
        amax = max((abs(frac(v)) for v in vals), default=Fraction(0))
        if amax == 0:
            s = Fraction(1)
        elif pow2_scales:
            s = TWO ** min(max(ceil_log2(amax / max_value) + margin, -149), 127)
        else:
            s32 = f32_round(amax / max_value * TWO**margin)
            s32 = min(max(s32, 2.0**-149), float(F32_MAX))
            s = frac(s32)
        scales[key] = float(s)
        for i, v in zip(zip(*index), vals):
            code = R.encode_code(fmt, v if v == 0 else frac(v) / s, saturate=True)
            codes[i] = code
            value = R.decode(fmt, code)
            deq[i] = float(value) if isinstance(value, str) else f32_round(value * s)  # "-0"
    return codes, scales, deq


def decode_value(name, code):
    return R.decode(R.FORMATS[name], code)


def check(mf, x, name, granularity, label="", **kw):
    q = mf.quant.quantize(x, getattr(mf, name), granularity=granularity, **kw)
    codes, scales, deq = reference(x, name, granularity, **kw)
    assert q.data.dtype == np.dtype(getattr(mf, name)) and q.data.shape == np.shape(x)
    assert q.scales.dtype == np.float32 and q.scales.shape == scales.shape, (q.scales.shape, scales.shape)
    same_scales = (q.scales.view(np.uint32) == scales.view(np.uint32)) | (np.isnan(q.scales) & np.isnan(scales))
    assert same_scales.all(), (label, q.scales[~same_scales][:5], scales[~same_scales][:5])
    got = R.codes_of(q.data).astype(np.int64)
    bad = np.argwhere(got != codes)
    assert bad.size == 0, (label, [(tuple(b), np.asarray(x, np.float32)[tuple(b)], hex(codes[tuple(b)]),
                                    hex(got[tuple(b)])) for b in bad[:5]])
    d = q.dequantize()
    assert d.dtype == np.float32
    ok = (d.view(np.uint32) == deq.view(np.uint32)) | (np.isnan(d) & np.isnan(deq))
    assert ok.all(), (label, d[~ok][:5], deq[~ok][:5])
    d64 = q.dequantize(np.float64)
    values = [R.decode(R.FORMATS[name], c) for c in codes.reshape(-1)]
    exact = np.array([np.nan if np.isnan(s) else float(v) if isinstance(v, str) else float(v * frac(np.float64(s)))
                      for v, s in zip(values, q.scale_per_element().reshape(-1))]).reshape(d64.shape)
    assert ((d64 == exact) | (np.isnan(d64) & np.isnan(exact))).all(), label
    return q


def sample(seed, shape, spread=8):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * np.exp2(rng.integers(-spread, spread, shape))
    return x.astype(np.float32)


# --------------------------------------------------------------------------
# hand-computed cases
# --------------------------------------------------------------------------


def test_hand_tensor_scale(mf):
    """amax 896 into float8_e4m3fn (max 448): scale 2, elements x / 2."""
    x = np.array([896.0, -1.0, 3.0, 0.0], np.float32)
    q = mf.quant.quantize(x, mf.float8_e4m3fn)
    assert q.scales.shape == () and float(q.scales) == 2.0
    assert R.codes_of(q.data).tolist() == [0x7E, 0xB0, 0x3C, 0x00]  # 448, -0.5, 1.5, 0
    assert q.dequantize().tolist() == [896.0, -1.0, 3.0, 0.0]


def test_hand_scale_rounds_once_and_saturates(mf):
    """amax 1 into float4_e2m1fn: scale fl32(1/6) = 0x3E2AAAAB, a little
    above 1/6, so 1 / scale < 6 rounds to 6 (code 7); with margin=1 the
    scale doubles: 1 / scale ~ 3 (code 5), -0.25 / scale = -0.74999998 ->
    -0.5 (code 9)."""
    x = np.array([1.0, -0.25], np.float32)
    q = mf.quant.quantize(x, mf.float4_e2m1fn)
    assert q.scales.view(np.uint32) == 0x3E2AAAAB
    assert R.codes_of(q.data).tolist() == [0x7, 0xB]  # 6, -1.5 (-0.25 / scale = -1.49999996)
    q1 = mf.quant.quantize(x, mf.float4_e2m1fn, margin=1)
    assert q1.scales.view(np.uint32) == 0x3EAAAAAB
    assert R.codes_of(q1.data).tolist() == [0x5, 0x9]


def test_hand_pow2_scales(mf):
    """amax 5 into float8_e4m3fn: 5/448 lies in (2^-7, 2^-6]: scale 2^-6; an
    amax of exactly 448 * 2^-3 gives 2^-3 (no rounding up)."""
    q = mf.quant.quantize(np.array([5.0, -2.0], np.float32), mf.float8_e4m3fn, pow2_scales=True)
    assert float(q.scales) == 2.0**-6
    assert q.dequantize().tolist() == [5.0, -2.0]
    q = mf.quant.quantize(np.array([56.0], np.float32), mf.float8_e4m3fn, pow2_scales=True)
    assert float(q.scales) == 2.0**-3
    q = mf.quant.quantize(np.array([56.0], np.float32), mf.float8_e4m3fn, pow2_scales=True, margin=2)
    assert float(q.scales) == 2.0**-1


def test_hand_zero_nan_inf_groups(mf):
    x = np.array([[0.0, -0.0, 0.0], [1.0, np.nan, 2.0], [np.inf, 1.0, 1.0], [3.0, -6.0, 1.5]], np.float32)
    q = mf.quant.quantize(x, mf.float8_e4m3fn, granularity="channel", axis=0)
    assert q.scales[0] == 1.0 and np.isnan(q.scales[1]) and np.isnan(q.scales[2])
    assert q.scales[3] == np.float32(6.0 / 448.0)
    codes = R.codes_of(q.data)
    assert codes[0].tolist() == [0x00, 0x80, 0x00]
    assert (codes[1] == 0x7F).all() and (codes[2] == 0x7F).all()
    d = q.dequantize()
    assert np.isnan(d[1:3]).all() and d[0].tolist() == [0.0, 0.0, 0.0] and np.signbit(d[0, 1])
    # no NaN in float4_e2m1fn: +0 elements, NaN scale
    q4 = mf.quant.quantize(x, mf.float4_e2m1fn, granularity="channel")
    assert (R.codes_of(q4.data)[1:3] == 0).all() and np.isnan(q4.dequantize()[1:3]).all()


@pytest.mark.parametrize("axis", [0, 1])
def test_channel_maxima_skip_inf_and_nan_in_long_rows(mf, axis):
    """Channels of 70 values (the vectorized maxima), some holding an inf or a
    NaN beside larger finite values: those get NaN scales, every other
    channel amax / 448 of its finite values."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((70, 70)).astype(np.float32)
    x = x if axis == 0 else np.ascontiguousarray(x.T).T  # same values, channels along the other axis
    take = (lambda c: x[c, :]) if axis == 0 else (lambda c: x[:, c])
    bad = {5: np.nan, 7: np.inf, 9: -np.inf}
    for c, v in bad.items():
        idx = (c, 3) if axis == 0 else (3, c)
        x[idx] = v
        idx2 = (c, 60) if axis == 0 else (60, c)
        x[idx2] = 1e30  # a larger finite value in the same channel
    q = mf.quant.quantize(x, mf.float8_e4m3fn, granularity="channel", axis=axis)
    for c in range(70):
        if c in bad:
            assert np.isnan(q.scales[c]), c
        else:
            amax = np.abs(take(c)).max()
            assert q.scales[c] == np.float32(float(amax) / 448.0), c


@pytest.mark.parametrize("granularity,kw", [("channel", {"axis": 1}), ("block", {"block_size": (12, 8)}),
                                             ("block", {"block_size": (20, 16)})])
def test_maxima_of_many_rows_at_once_against_reference(mf, granularity, kw):
    """Groups the same along the next rows (per channel along axis 1, the row
    blocks of tiles) take their maxima eight rows at a time, then one by one:
    an inf or NaN in a batch of eight, in a row after the last batch and in
    the last row, each in a group with larger finite values, against the
    reference."""
    x = sample(seed_of("many rows", granularity, kw), (45, 40))
    x[3, 5], x[10, 6] = np.nan, np.float32(3e30)
    x[21, 22], x[23, 23] = np.inf, np.float32(-2e30)
    x[44, 39], x[40, 38] = -np.inf, np.float32(1e30)
    x[30, :] = 0.0
    check(mf, x, "float8_e4m3fn", granularity, f"{granularity} {kw}", **kw)
    check(mf, np.nan_to_num(x, nan=7.0, posinf=9.0, neginf=-9.0), "float4_e2m1fn", granularity,
          f"finite {granularity} {kw}", **kw)


def test_hand_deepseek_block(mf):
    """(128, 128) blocks of a 130 x 200 weight: a 2 x 2 grid of scales,
    partial tiles at the edges; each block amax / 448."""
    x = np.zeros((130, 200), np.float32)
    x[0, 0], x[5, 130], x[129, 3], x[128, 199] = 448.0, -896.0, 4.0, 0.5
    q = mf.quant.quantize(x, mf.float8_e4m3fn, granularity="block")
    assert q.scales.shape == (2, 2)
    assert q.scales.tolist() == [[1.0, 2.0], [np.float32(4 / 448), np.float32(0.5 / 448)]]
    assert q.dequantize()[0, 0] == 448.0 and q.dequantize()[5, 130] == -896.0


def test_dequantize_rounds_once_to_float32(mf):
    """bfloat16 element 1 + 2^-7 times the scale 1 + 2^-23 (amax chosen so)
    is 1 + 2^-7 + 2^-23 + 2^-30: float32 rounds it once to 1 + 2^-7 + 2^-23;
    float64 keeps it."""
    scale = 1 + 2.0**-23
    amax = np.float32(float(np.finfo(mf.bfloat16).max) * scale)
    x = np.array([amax, (1 + 2.0**-7) * scale], np.float32)
    q = mf.quant.quantize(x, mf.bfloat16)
    assert float(q.scales) == scale
    assert q.dequantize(np.float64)[1] == (1 + 2.0**-7) * scale
    assert q.dequantize()[1] == np.float32((1 + 2.0**-7) * scale)


# --------------------------------------------------------------------------
# against the reference
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", DATA_FORMATS)
@pytest.mark.parametrize("granularity,kw", GRANULARITY_CASES,
                         ids=[f"{g}-{'-'.join(f'{k}{v}' for k, v in kw.items())}" for g, kw in GRANULARITY_CASES])
def test_against_reference(mf, name, granularity, kw):
    x = sample(seed_of(name, granularity, kw), (21, 40))
    x[3, :] = 0.0
    x[:, 33] = 0.0
    check(mf, x, name, granularity, f"{name} {granularity} {kw}", **kw)


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "bfloat16", "float6_e3m2fn"])
@pytest.mark.parametrize("margin", [-3, 0, 2])
@pytest.mark.parametrize("pow2", [False, True])
def test_margin_and_pow2_against_reference(mf, name, margin, pow2):
    x = sample(seed_of("m", name, margin, pow2), (12, 33), spread=20)
    for granularity, kw in (("tensor", {}), ("channel", {"axis": 1}), ("block", {"block_size": (4, 8)})):
        check(mf, x, name, granularity, f"{name} {granularity} margin={margin} pow2={pow2}",
              margin=margin, pow2_scales=pow2, **kw)


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "float6_e2m3fn", "bfloat16"])
@pytest.mark.parametrize("axis", [0, 1])
def test_quotients_at_format_midpoints(mf, name, axis):
    """Elements whose quotient by their channel's scale lies at a midpoint of
    the format or within a float32 rounding of one: x = m * s rounded to
    float32 (and its float32 neighbours), for every midpoint m below the
    largest value and random scales s. Rounding x / s to float32 first lands
    on m for many of them, where the exact quotient lies beside it: the
    kernels must round the exact quotient once. Rows whose values are below
    2^-100, or whose scale is subnormal, take the float64 division."""
    rng = np.random.default_rng(seed_of("midpoints", name, axis))
    finite = [v for v, _ in R.finite_values(name) if v >= 0]
    midpoints = [(a + b) / 2 for a, b in zip(finite, finite[1:])]
    if len(midpoints) > 96:
        midpoints = [midpoints[i] for i in sorted(rng.choice(len(midpoints), 96, replace=False))]
    fmax = float(finite[-1])
    amax = np.concatenate([rng.uniform(1, 1000, 14), [2.0**-95, 2.0**-112, 2.0**-128]]).astype(np.float32)
    rows = []
    for a in amax:
        scale = np.float32(float(a) / fmax)  # (amax / max rounded once: the quotient of short significands)
        near = np.array([float(m) * float(scale) for m in midpoints] + [-float(m) * float(scale) for m in midpoints])
        x32 = near.astype(np.float32)
        with np.errstate(under="ignore"):
            row = np.concatenate([[a], x32, np.nextafter(x32, np.float32(np.inf)),
                                  np.nextafter(x32, np.float32(-np.inf))]).astype(np.float32)
        rows.append(np.minimum(np.abs(row), a) * np.sign(row))  # amax stays the row's largest magnitude
    # (apart: a stage with a row that needs float64 divides all of it so)
    for x in (np.array(rows[:-3], np.float32), np.array(rows[-3:], np.float32)):
        check(mf, x if axis == 0 else np.ascontiguousarray(x.T), name, "channel", f"{name} midpoints axis={axis}",
              axis=axis)


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "float6_e3m2fn", "bfloat16"])
def test_quotients_at_values_and_midpoints_in_blocks(mf, name):
    """Blocks of (1, 128) along rows, each with its own scale, holding
    elements whose quotient is a value or a midpoint of the format, or a
    float32 rounding away from one: the block recipe's element pass (one
    division loop over a stage's blocks) rounds the exact quotient once. A
    quotient on a value in the format's normal range is left as it is (its
    rounding is the value whichever side the exact quotient lies), one on a
    midpoint is moved toward the exact quotient, one below the normal range
    is checked either way."""
    rng = np.random.default_rng(seed_of("values-midpoints", name))
    finite = [v for v, _ in R.finite_values(name) if v >= 0]
    fmax = float(finite[-1])
    points = [float(v) for v in finite[1:]] + [float(a + b) / 2 for a, b in zip(finite, finite[1:])]
    blocks = []
    for _ in range(32):
        a = np.float32(rng.uniform(1, 1000))
        scale = float(np.float32(float(a) / fmax))
        chosen = rng.choice(points, 21, replace=len(points) < 21)
        near = np.concatenate([chosen, -chosen]) * scale
        x32 = near.astype(np.float32)
        with np.errstate(under="ignore"):
            block = np.concatenate([[a], x32, np.nextafter(x32, np.float32(np.inf)),
                                    np.nextafter(x32, np.float32(-np.inf)), [0.0]]).astype(np.float32)
        blocks.append(np.minimum(np.abs(block), a) * np.sign(block))  # a stays the block's largest magnitude
    x = np.array(blocks, np.float32).reshape(4, 8 * 128)
    check(mf, x, name, "block", f"{name} values and midpoints in blocks", block_size=(1, 128))


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float4_e2m1fn", "float8_e5m2"])
def test_special_groups_against_reference(mf, name):
    x = sample(seed_of("special", name), (16, 24))
    x[0, 5] = np.nan
    x[9, 17] = -np.inf
    x[4:8, 8:16] = 0.0
    x[12, :] = np.float32(2.0**-149)          # scale underflows to 2^-149
    x[13, :] = np.finfo(np.float32).max       # largest scales
    x[14, :4] = -0.0
    for granularity, kw in (("tensor", {}), ("channel", {"axis": 0}), ("block", {"block_size": (4, 8)})):
        with np.errstate(over="ignore"):  # max * the largest scales is past float32: inf, as NumPy warns
            check(mf, x, name, granularity, f"{name} {granularity}", **kw)
            check(mf, x, name, granularity, f"{name} {granularity} pow2", pow2_scales=True, **kw)


def test_three_dimensional_and_inputs(mf):
    x = sample(seed_of("3d"), (3, 10, 12))
    check(mf, x, "float8_e4m3fn", "channel", "3d channel", axis=1)
    check(mf, x, "float8_e4m3fn", "block", "3d block", block_size=(4, 5))
    check(mf, x, "float8_e4m3fn", "block", "3d block3", block_size=(2, 4, 5))
    # float64 and minifloat inputs are rounded to float32 first
    x64 = np.array([1 + 2.0**-30, 448.0, -3.0])
    q = mf.quant.quantize(x64, mf.float8_e4m3fn)
    assert (R.codes_of(q.data) == R.codes_of(mf.quant.quantize(x64.astype(np.float32), mf.float8_e4m3fn).data)).all()
    q = mf.quant.quantize(np.array([1.5, 2], dtype=mf.float8_e5m2), mf.float4_e2m1fn, pow2_scales=True)
    assert float(q.scales) == 0.5 and q.dequantize().tolist() == [1.5, 2.0]
    q = mf.quant.quantize([[1, 2], [3, 4]], mf.float8_e4m3fn, granularity="channel", axis=1)
    assert q.scales.tolist() == [np.float32(3 / 448), np.float32(4 / 448)]


def test_empty_and_scalar_inputs(mf):
    q = mf.quant.quantize(np.zeros((0, 5), np.float32), mf.float8_e4m3fn)
    assert q.scales == 1.0 and q.data.shape == (0, 5) and q.dequantize().shape == (0, 5)
    q = mf.quant.quantize(np.zeros((0, 5), np.float32), mf.float8_e4m3fn, granularity="channel", axis=1)
    assert q.scales.tolist() == [1.0] * 5
    q = mf.quant.quantize(np.float32(3.0), mf.float8_e4m3fn)
    assert q.data.shape == () and q.dequantize() == 3.0


def test_repr_and_nbytes(mf):
    q = mf.quant.quantize(np.ones((256, 256), np.float32), mf.float8_e4m3fn, granularity="block")
    assert q.nbytes == 256 * 256 + 4 * 4
    assert "block_size=(128, 128)" in repr(q) and "float8_e4m3fn" in repr(q) and "scheme='scaled'" in repr(q)
    assert q.scheme == "scaled" and q.zero_points is None and q.options == {"margin": 0, "pow2_scales": False}
    assert q.dtype == np.dtype(mf.float8_e4m3fn) and q.shape == (256, 256)


# --------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------


def test_errors(mf):
    x = np.ones((4, 4), np.float32)
    with pytest.raises(ValueError, match="granularity"):
        mf.quant.quantize(x, mf.float8_e4m3fn, granularity="row")
    with pytest.raises(TypeError, match="minifloat dtype"):
        mf.quant.quantize(x, np.float16)
    with pytest.raises(ValueError, match="no zero or sign .*scales"):
        mf.quant.quantize(x, mf.float8_e8m0fnu)
    with pytest.raises(ValueError, match="has no sign .*signed format"):
        mf.quant.quantize(x, mf.binary8p3uf)
    with pytest.raises(np.exceptions.AxisError):
        mf.quant.quantize(x, mf.float8_e4m3fn, granularity="channel", axis=2)
    for granularity in ("tensor", "block"):  # the axis is not used there, but out of range is a mistake
        with pytest.raises(np.exceptions.AxisError):
            mf.quant.quantize(x, mf.float8_e4m3fn, granularity=granularity, axis=7)
        assert mf.quant.quantize(x, mf.float8_e4m3fn, granularity=granularity, axis=-2).shape == x.shape
    assert float(mf.quant.quantize(np.float32(3), mf.float8_e4m3fn).dequantize()) == 3.0  # 0-d, axis=0
    with pytest.raises(ValueError, match="block_size"):
        mf.quant.quantize(x, mf.float8_e4m3fn, granularity="block", block_size=(0, 4))
    with pytest.raises(ValueError, match="dimension"):
        mf.quant.quantize(np.ones(8, np.float32), mf.float8_e4m3fn, granularity="block")
    with pytest.raises(TypeError, match="block_size"):
        mf.quant.quantize(x, mf.float8_e4m3fn, granularity="block", block_size=None)
    with pytest.raises(TypeError, match="margin"):  # (a float is no integer: issue 30)
        mf.quant.quantize(x, mf.float8_e4m3fn, margin=0.5)
    with pytest.raises(ValueError, match="margin"):
        mf.quant.quantize(x, mf.float8_e4m3fn, margin=1000)
    with pytest.raises(TypeError, match="real numbers"):
        mf.quant.quantize(np.ones(3, np.complex64), mf.float8_e4m3fn)
    with pytest.raises(TypeError, match="real numbers"):
        mf.quant.quantize(np.array(["a"]), mf.float8_e4m3fn)
    with pytest.raises(ValueError, match="at least one dimension"):
        mf.quant.quantize(np.float32(1), mf.float8_e4m3fn, granularity="channel")
    with pytest.raises(TypeError):
        mf.quant.quantize(x, mf.float8_e4m3fn, "tensor")  # keyword-only
    with pytest.raises(TypeError, match="margin and pow2_scales, not zero_point"):
        mf.quant.quantize(x, mf.float8_e4m3fn, zero_point=True)
    with pytest.raises(TypeError, match="minifloat dtype"):
        mf.quant.quantize(x, "not a dtype")


# --------------------------------------------------------------------------
# groupings and schemes: one more recipe is one register_scheme call
# --------------------------------------------------------------------------


@pytest.mark.parametrize("granularity,kw", GRANULARITY_CASES,
                         ids=[f"{g}-{'-'.join(map(str, k.values()))}" for g, k in GRANULARITY_CASES])
def test_groups_reduce_and_expand_follow_the_groups(mf, granularity, kw):
    x = sample(seed_of("groups", granularity, kw), (9, 14))
    axis = kw.get("axis", 0) % 2 if granularity == "channel" else None
    blocks = kw.get("block_size", (128, 128)) if granularity == "block" else None
    blocks = (blocks,) if isinstance(blocks, int) else blocks
    g = mf.quant.Groups(x.shape, granularity, axis, blocks)
    expected = groups(x.shape, granularity, kw.get("axis", 0), kw.get("block_size", (128, 128)))
    low = g.reduce(x, np.minimum, np.float32(np.inf))
    assert low.shape == g.shape and len(expected) == low.size
    for key, index in expected.items():
        assert low[key] == x[index].min()
    ids = np.zeros(g.shape, np.int64)
    for n, key in enumerate(expected):
        ids[key] = n
    spread = g.expand(ids)
    for n, (key, index) in enumerate(expected.items()):
        assert (spread[index] == n).all() and (spread == n).sum() == len(index[0])


class HalfSteps:
    """A test scheme: int8 steps from a per-group zero point, the group's
    midpoint rounded to float32, of a power-of-two scale, the smallest at
    least (max - min) / 128 (so every operation below is exact)."""

    name = "test-affine-int8"

    def accepts(self, dtype):
        return dtype == np.int8

    def quantize(self, x32, dtype, groups, *, offset=0):
        high = groups.reduce(x32, np.maximum, np.float32(-np.inf)).astype(np.float64)
        low = groups.reduce(x32, np.minimum, np.float32(np.inf)).astype(np.float64)
        zero = ((high + low) / 2).astype(np.float32)
        m, e = np.frexp(np.where(high > low, high - low, 1.0))
        scales = np.ldexp(1.0, np.where(m == 0.5, e - 1, e) - 7).astype(np.float32)
        steps = (x32 - groups.expand(zero).astype(np.float64)) / groups.expand(scales)
        return np.rint(steps).astype(np.int8) + np.int8(offset), scales, zero, {"offset": offset}

    def dequantize(self, q, dtype):
        zero = q.groups.expand(q.zero_points).astype(np.float64)
        steps = q.data.astype(np.float64) - q.options["offset"]
        return (steps * q.scale_per_element() + zero).astype(dtype)


def test_a_registered_scheme_quantizes_its_dtypes_with_every_grouping(mf, monkeypatch):
    monkeypatch.setattr(mf.quant, "_SCHEMES", list(mf.quant._SCHEMES))
    assert mf.quant.register_scheme(HalfSteps()).name == "test-affine-int8"
    assert mf.quant.schemes() == ["test-affine-int8", "scaled"]
    x = sample(seed_of("affine"), (6, 10), spread=2)
    for granularity, kw in GRANULARITY_CASES:
        q = mf.quant.quantize(x, np.int8, granularity=granularity, offset=1, **kw)
        assert q.scheme == "test-affine-int8" and q.data.dtype == np.int8 and q.options == {"offset": 1}
        assert q.zero_points.shape == q.scales.shape == q.groups.shape
        for key, index in groups(x.shape, granularity, **kw).items():
            lo, hi = min(map(frac, x[index])), max(map(frac, x[index]))
            zero, scale = frac(q.zero_points[key]), frac(q.scales[key])
            assert zero == frac(f32_round((lo + hi) / 2)) and scale == TWO ** ceil_log2((hi - lo) / 128)
            steps = [R.round_half_even((frac(v) - zero) / scale) + 1 for v in x[index]]
            assert q.data[index].tolist() == steps
            d = q.dequantize(np.float64)[index]
            assert [frac(v) for v in d] == [(s - 1) * scale + zero for s in steps]
    # minifloat formats still take the built-in scheme
    assert mf.quant.quantize(x, mf.float8_e4m3fn).scheme == "scaled"
    with pytest.raises(TypeError, match="a 'dequantize' attribute"):
        mf.quant.register_scheme(type("Broken", (), {"name": "b", "accepts": 0, "quantize": 0})())


def test_quantized_array_save_and_load_keep_everything(mf, tmp_path):
    """QuantizedArray.save / load: a pickle-free .npz (np.load opens it
    with allow_pickle=False) that gives back the same codes, scales,
    grouping, scheme and options; a format made by mf.float_format too."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((8, 12)).astype(np.float32)
    user = mf.float_format(exponent_bits=3, mantissa_bits=2, bias=3, name="e3m2_for_saving")
    cases = [mf.quant.quantize(x, mf.float8_e4m3fn),
             mf.quant.quantize(x, mf.float8_e5m2, granularity="channel", axis=1, margin=1),
             mf.quant.quantize(x, mf.bfloat16, granularity="block", block_size=(4, 6), pow2_scales=True),
             mf.quant.quantize(x, user, granularity="channel")]
    for k, q in enumerate(cases):
        path = tmp_path / f"q{k}.npz"
        q.save(path)
        assert sorted(np.load(path, allow_pickle=False).files) == ["data", "meta", "scales"]
        back = mf.quant.QuantizedArray.load(path)
        assert repr(back) == repr(q)
        assert back.data.dtype == q.data.dtype and back.data.tobytes() == q.data.tobytes()
        assert back.scales.dtype == np.float32 and back.scales.tobytes() == q.scales.tobytes()
        assert back.dequantize().tobytes() == q.dequantize().tobytes()
    with pytest.raises(ValueError, match="not a QuantizedArray file"):
        np.savez(tmp_path / "other.npz", data=np.zeros(3))
        mf.quant.QuantizedArray.load(tmp_path / "other.npz")
    bad = mf.quant.QuantizedArray(cases[1].data, cases[1].scales[:3], "channel", axis=1)
    bad.save(tmp_path / "bad.npz")
    with pytest.raises(ValueError, match="do not fit"):
        mf.quant.QuantizedArray.load(tmp_path / "bad.npz")
    odd = mf.quant.QuantizedArray(cases[0].data, cases[0].scales, "tensor", options={"f": object()})
    with pytest.raises(TypeError, match="not JSON"):
        odd.save(tmp_path / "odd.npz")
