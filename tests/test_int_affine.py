"""mf.quantize_affine (issue 19): per-group affine integer quantization as
GPTQ/AWQ store weights, checked exactly against a reference in Fractions:

    scale = float32((hi - lo) / (qmax - qmin))       (float64 arithmetic)
    zero_point = clamp(qmin - round_half_even(lo / scale), qmin, qmax)
    q = clamp(round_half_even(x / scale) + zero_point, qmin, qmax)

with lo = min(group, 0), hi = max(group, 0); symmetric (zero_point=False):
scale = float32(max|group| / qmax), zero point 0."""
from fractions import Fraction

import numpy as np
import pytest

import minifloat as mf

RANGES = {"int1": (-1, 0), "int2": (-2, 1), "int4": (-8, 7), "uint1": (0, 1), "uint2": (0, 3),
          "uint4": (0, 15), "int8": (-128, 127), "uint8": (0, 255)}


def dtype_of(name):
    return getattr(mf, name) if hasattr(mf, name) and name in mf.INT_FORMAT_NAMES else getattr(np, name)


def clamp(v, lo, hi):
    return max(lo, min(hi, v))


def ref_group(values, name, zero_point):
    """(codes, scale, zero point) of one group; values are Python floats."""
    qmin, qmax = RANGES[name]
    if zero_point:
        lo, hi = min(min(values), 0.0), max(max(values), 0.0)
        span, steps = hi - lo, qmax - qmin  # Python floats: float64, rounded to nearest even
    else:
        lo, span, steps = 0.0, max(abs(v) for v in values), qmax
    scale = float(np.float32(span / steps))
    if span == 0:
        scale = 1.0
    scale = max(scale, float(np.finfo(np.float32).smallest_subnormal))
    s = Fraction(scale)
    zp = clamp(qmin - round(Fraction(lo) / s), qmin, qmax) if zero_point else 0
    codes = [clamp(round(Fraction(v) / s) + zp, qmin, qmax) for v in values]  # round(): ties to even
    return codes, scale, zp


def check(x, name, block_size, axis, zero_point):
    q = mf.quantize_affine(x, dtype_of(name), block_size=block_size, axis=axis, zero_point=zero_point)
    x64 = np.asarray(x).astype(np.float64)
    moved = np.moveaxis(x64, axis, -1)
    length = moved.shape[-1]
    g = length if block_size is None else block_size
    codes = np.moveaxis(q.data.astype(np.int64), axis, -1)
    scales = np.moveaxis(q.scales, axis, -1)
    zps = None if q.zero_points is None else np.moveaxis(q.zero_points.astype(np.int64), axis, -1)
    assert q.data.dtype == np.dtype(dtype_of(name)) and q.data.shape == np.shape(x)
    assert q.scales.dtype == np.float32
    assert (q.zero_points is None) == (not zero_point)
    for index in np.ndindex(moved.shape[:-1]):
        for k in range(-(-length // g)):  # the last group may be shorter
            values = moved[index][k * g:(k + 1) * g].tolist()
            want_codes, want_scale, want_zp = ref_group(values, name, zero_point)
            assert codes[index][k * g:(k + 1) * g].tolist() == want_codes
            assert float(scales[index][k]) == want_scale
            if zero_point:
                assert int(zps[index][k]) == want_zp
            # dequantize: the exact (q - zp) * scale, rounded once
            deq = np.moveaxis(q.dequantize(np.float32), axis, -1)[index][k * g:(k + 1) * g]
            exact = [Fraction(c - want_zp) * Fraction(want_scale) for c in want_codes]
            assert deq.tolist() == [float(np.float32(float(e))) for e in exact]
            deq64 = np.moveaxis(q.dequantize(np.float64), axis, -1)[index][k * g:(k + 1) * g]
            assert [Fraction(v) for v in deq64.tolist()] == exact
    return q


@pytest.mark.parametrize("name", list(RANGES))
@pytest.mark.parametrize("zero_point", [True, False])
def test_random_weights_exact(name, zero_point):
    if not zero_point and name == "int1":
        pytest.skip("int1 has no positive value (tested below)")
    rng = np.random.default_rng(19)
    w = (rng.standard_normal((4, 64)) * rng.choice([1e-3, 1.0, 30.0], (4, 1))).astype(np.float32)
    check(w, name, 16, -1, zero_point)
    check(w, name, 2, 0, zero_point)
    check(w, name, None, 1, zero_point)


@pytest.mark.parametrize("zero_point", [True, False])
def test_a_shorter_last_group(zero_point):
    # an axis that block_size does not divide (the default 128 against a
    # 1000-wide row): the last group is what is left, quantized on its own
    rng = np.random.default_rng(23)
    w = (rng.standard_normal((3, 1000)) * 4).astype(np.float32)
    q = check(w, "int4", 128, -1, zero_point)
    assert q.scales.shape == (3, 8) and q.dequantize().shape == w.shape
    check(w[:, :7], "uint4", 4, 1, zero_point)
    check(w[:, :21].T, "int2", 8, 0, zero_point)
    check(w[0, :5], "uint4", 128, 0, zero_point)  # one group, shorter than block_size


@pytest.mark.parametrize("name", ["int4", "uint4", "int2", "uint2"])
def test_ties_round_half_to_even(name):
    qmin, qmax = RANGES[name]
    # a group whose scale is exactly 1/2**k: every x = (m + 1/2) * scale is a tie
    steps = qmax - qmin
    lo, hi = float(qmin) / 4, float(qmax) / 4  # span = steps / 4, scale = 1/4
    halves = [(m + 0.5) / 4 for m in range(qmin, qmax)]
    group = [lo, hi] + halves
    group += [0.0] * (-len(group) % 8)
    x = np.array([group], dtype=np.float32)
    q = check(x, name, len(group), -1, True)
    assert float(q.scales[0, 0]) == 0.25 and steps / 4 == hi - lo
    codes = q.data.astype(np.int64)[0].tolist()
    zp = int(q.zero_points[0, 0])
    for v, c in zip(group[2:2 + len(halves)], codes[2:]):
        m = v * 4 - 0.5  # x / scale = m + 1/2
        want = m if m % 2 == 0 else m + 1
        assert c == clamp(int(want) + zp, qmin, qmax)


def test_float64_input_next_to_a_tie():
    """float64 values one ulp either side of a tie: the float64 quotient
    rounds onto the tie, the exact rule does not."""
    scale = np.float32(0.1)  # not a power of two: quotients are rounded
    s = float(scale)
    xs = []
    for m in range(-7, 7):
        tie = (m + 0.5) * s
        xs += [np.nextafter(tie, -np.inf), tie, np.nextafter(tie, np.inf)]
    group = [-7 * s, 7 * s] + xs  # max|x| / 7 fixes scale = float32(0.1)
    group += [0.0] * (-len(group) % 4)
    x = np.array(group, dtype=np.float64)
    q = mf.quantize_affine(x, mf.int4, block_size=len(group), zero_point=False)
    codes, want_scale, _ = ref_group(group, "int4", False)
    assert float(q.scales[0]) == want_scale
    assert q.data.astype(np.int64).tolist() == codes
    check(x, "int4", len(group), 0, True)
    check(x, "uint4", len(group), 0, True)


@pytest.mark.parametrize("source", ["float16", "bfloat16", "float8_e4m3fn", "int16"])
def test_other_input_types(source):
    rng = np.random.default_rng(7)
    raw = rng.standard_normal((3, 32)) * 4
    t = getattr(mf, source, None) or getattr(np, source)
    x = raw.astype(t)
    check(x, "int4", 8, -1, True)
    check(x, "uint4", 32, 1, False)


def test_zeros_and_tiny_groups():
    x = np.zeros((2, 8), np.float32)
    x[1, :] = np.float32(1e-45)  # the span rounds to a float32 scale of 0
    q = check(x, "uint4", 8, -1, True)
    assert q.scales[0, 0] == 1.0 and q.scales[1, 0] > 0
    assert not q.dequantize()[0].any()


def test_pack_matches_the_nibble_layout():
    x = np.random.default_rng(3).standard_normal((4, 32)).astype(np.float32)
    q = mf.quantize_affine(x, mf.uint4, block_size=32)
    codes = q.data.astype(np.int64).reshape(-1).tolist()
    want = bytes(codes[i] | (codes[i + 1] << 4) for i in range(0, len(codes), 2))
    assert bytes(q.pack()) == want
    q = mf.quantize_affine(x, mf.int4, block_size=32)
    codes = q.data.astype(np.int64).reshape(-1).tolist()
    assert bytes(q.pack()) == bytes((codes[i] & 15) | ((codes[i + 1] & 15) << 4) for i in range(0, len(codes), 2))
    q = mf.quantize_affine(x, np.int8, block_size=8)
    assert bytes(q.pack()) == bytes(v & 255 for v in q.data.astype(np.int64).reshape(-1).tolist())
    assert "block_size=8" in repr(q)


def test_bad_arguments_raise_clearly():
    x = np.ones((2, 10), np.float32)
    with pytest.raises(ValueError, match="no values along axis 1"):
        mf.quantize_affine(np.ones((2, 0)), mf.int4, block_size=4)
    with pytest.raises(ValueError, match="block_size"):
        mf.quantize_affine(x, mf.int4, block_size=0)
    with pytest.raises(TypeError, match="integer dtype|needs one of"):
        mf.quantize_affine(x, mf.float8_e4m3fn, block_size=5)
    with pytest.raises(TypeError, match="needs one of"):
        mf.quantize_affine(x, np.int32, block_size=5)
    with pytest.raises(ValueError, match="finite"):
        mf.quantize_affine(np.array([[np.nan, 1.0]]), mf.int4, block_size=2)
    with pytest.raises(ValueError, match="zero_point=True"):
        mf.quantize_affine(x, mf.int1, block_size=5, zero_point=False)
    with pytest.raises(ValueError, match="axis"):
        mf.quantize_affine(x, mf.int4, block_size=5, axis=2)
    with pytest.raises(ValueError, match="float32 scale"):
        mf.quantize_affine(np.array([1e300, -1e300]), mf.int4, block_size=2)
    with pytest.raises(TypeError, match="real numbers"):
        mf.quantize_affine(np.array(["a", "b"]), mf.int4, block_size=2)
    with pytest.raises(ValueError, match="at least one dimension"):
        mf.quantize_affine(np.float32(1), mf.int4)
