"""The hand-written kernels (AVX-512, and AVX2 for CPUs without AVX-512)
and the portable (compiler-vectorized) kernels give the same bits and the
same warnings.

The exact-reference tests check whichever kernels this CPU runs; these tests
pin each other set it can run to the portable one. A set the CPU lacks is
skipped (its kernels would fall through to the portable ones anyway).
"""
import warnings

import numpy as np
import pytest

import reference as R
from kernel_sets import kernels

NAMES = list(R.FORMATS)
MODES = ["nearest_even", "nearest_away", "toward_zero", "up", "down"]


@pytest.fixture(autouse=True, params=["avx512", "avx2"])
def hand_kernels(request, mf):
    """The hand-written set each test compares with the portable kernels."""
    if request.param not in mf._core._cpu_kernel_sets():
        pytest.skip(f"this CPU has no {request.param}")
    return request.param


_hand = {}


@pytest.fixture(autouse=True)
def _remember_hand_set(hand_kernels):
    _hand["set"] = hand_kernels


def run_both(mf, fn):
    """fn() with the hand-written kernels under test and with the portable
    ones: (codes, warnings) each."""
    results = []
    for kernel_set in (_hand["set"], "portable"):
        with kernels(mf, kernel_set), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with np.errstate(all="warn"):
                out = fn()
        results.append((np.atleast_1d(np.asarray(out)).view(np.uint8), sorted({str(w.message) for w in caught})))
    return results


def float32_sample(seed=0):
    """Every float32 whose low 16 bits are zero (all exponents, signs and
    leading fraction bits: every rounding boundary of the 8-bit formats sits
    among them or next to them), their neighbours, and random patterns."""
    upper = np.arange(1 << 16, dtype=np.uint32) << 16
    rng = np.random.default_rng(seed)
    bits = np.concatenate([upper, upper + 1, upper - 1, upper + (1 << 15),
                           rng.integers(0, 1 << 32, 1 << 16, dtype=np.uint64).astype(np.uint32)])
    return bits.view(np.float32)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("saturate", [False, True])
def test_float32_sources_every_mode(mf, name, mode, saturate):
    T = getattr(mf, name)
    x = float32_sample()
    (a, wa), (b, wb) = run_both(mf, lambda: mf.cast(x, T, rounding=mode, saturate=saturate))
    bad = np.nonzero(a != b)[0]
    assert bad.size == 0, [(hex(int(x.view(np.uint32)[i])), hex(a[i]), hex(b[i])) for i in bad[:5]]
    assert wa == wb


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("mode", MODES)
def test_float64_sources_every_mode(mf, name, mode):
    T = getattr(mf, name)
    rng = np.random.default_rng(1)
    with np.errstate(all="ignore"):  # signaling NaNs among the patterns
        between = float32_sample().astype(np.float64) * (1 + 2.0**-40)  # between float32 values
    x = np.concatenate([
        between,
        2.0 ** (60 * rng.standard_normal(1 << 14)) * rng.choice([-1, 1], 1 << 14),
        [1e39, -1e39, 3.5e38, 1e300, 1e-300, -1e-300, 5e-324, np.inf, -np.inf, np.nan, 0.0, -0.0],
    ])
    (a, wa), (b, wb) = run_both(mf, lambda: mf.cast(x, T, rounding=mode))
    bad = np.nonzero(a != b)[0]
    assert bad.size == 0, [(float(x[i]), hex(a[i]), hex(b[i])) for i in bad[:5]]
    assert wa == wb


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("source", [np.float32, np.float64])
def test_finite_blocks_that_overflow(mf, name, source):
    """Blocks whose lanes are all finite, some past the largest value (a
    narrow format's usual data): the AVX2 encoder takes those codes from the
    clamped magnitude, without its inf/NaN fix-up. Then the same blocks with
    an inf or NaN among them, which it must not clamp."""
    T = getattr(mf, name)
    largest = float(R.finite_values(name)[-1][0])
    z = np.random.default_rng(3).standard_normal(1 << 14)
    if not R.FORMATS[name].signed:
        z = np.abs(z)
    finite = np.concatenate([z * largest * scale for scale in (0.25, 1.0, 1.5, 8.0)]).astype(source)
    special = finite.copy()
    special[::997], special[5::1999] = np.inf, np.nan
    for x in (finite, special):
        for mode in ("nearest_even", "nearest_away"):
            for saturate in (False, True):
                (a, wa), (b, wb) = run_both(mf, lambda: mf.cast(x, T, rounding=mode, saturate=saturate))
                bad = np.nonzero(a != b)[0]
                assert bad.size == 0, [(float(x[i]), hex(a[i]), hex(b[i])) for i in bad[:5]]
                assert wa == wb


def float64_boundaries(name):
    """Every finite value of the format and every midpoint between neighbours
    (and past the largest), both signs, each exact and nudged by one float64
    ulp, by bits of the lower half alone (2^-30, 2^-21 relative) and by the
    upper half's last bit (2^-20): the rounding boundaries of float64 sources,
    seen through float64's upper halves with a sticky bit."""
    values = np.array([float(v) for v, _ in R.finite_values(name)], dtype=np.float64)
    values = values[values >= 0]
    midpoints = (values[:-1] + values[1:]) / 2  # exact: neighbours differ by few bits
    beyond = values[-1] + (values[-1] - values[-2]) / 2
    base = np.unique(np.concatenate([values, midpoints, [beyond]]))
    nudged = [base, np.nextafter(base, np.inf), np.nextafter(base, 0)]
    for relative in (2.0**-30, 2.0**-21, 2.0**-20):
        nudged += [base * (1 + relative), base * (1 - relative)]
    magnitudes = np.sort(np.concatenate(nudged))
    return np.concatenate([magnitudes, -magnitudes])


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("mode", MODES)
def test_float64_rounding_boundaries_every_mode(mf, name, mode):
    T = getattr(mf, name)
    x = float64_boundaries(name)
    for saturate in (False, True):
        (a, wa), (b, wb) = run_both(mf, lambda: mf.cast(x, T, rounding=mode, saturate=saturate))
        bad = np.nonzero(a != b)[0]
        assert bad.size == 0, [(float(x[i]), hex(a[i]), hex(b[i])) for i in bad[:5]]
        assert wa == wb
    if mode == "nearest_even":  # and against the exact reference
        with np.errstate(all="ignore"), kernels(mf, _hand["set"]):
            got = np.asarray(x.astype(T)).view(R.encode_array(name, x[:1])[0].dtype)
        expected, _ = R.encode_array(name, x)
        assert (got == expected).all()


@pytest.mark.parametrize("name", NAMES)
def test_astype_paths(mf, name):
    """Plain casts in and out, and from bfloat16 (read directly by the
    AVX-512 encoder)."""
    T = getattr(mf, name)
    x = float32_sample(2)
    (a, wa), (b, wb) = run_both(mf, lambda: x.astype(T))
    assert (a == b).all() and wa == wb
    with np.errstate(all="ignore"):
        y = x.astype(mf.bfloat16)
    (a, wa), (b, wb) = run_both(mf, lambda: y.astype(T))
    assert (a == b).all() and wa == wb
    codes = R.all_codes(name).view(T)
    (a, _), (b, _) = run_both(mf, lambda: codes.astype(np.float32))
    assert (a == b).all()


@pytest.mark.parametrize("name", [n for n in NAMES if R.FORMATS[n].bits <= 8])
def test_ufunc_paths(mf, name):
    """Comparisons, selections and arithmetic over every code pair."""
    T = getattr(mf, name)
    f = R.FORMATS[name]
    a = np.repeat(R.all_codes(name), f.ncodes).view(T)
    b = np.tile(R.all_codes(name), f.ncodes).view(T)
    for op in (np.less, np.less_equal, np.equal, np.not_equal, np.greater, np.greater_equal, np.maximum,
               np.minimum, np.fmax, np.fmin, np.add, np.subtract, np.multiply, np.divide, np.copysign):
        (x, wx), (y, wy) = run_both(mf, lambda: op(a, b))
        assert (x == y).all() and wx == wy, op.__name__
    (x, _), (y, _) = run_both(mf, lambda: np.asarray(a.sum(dtype=np.float32)))
    assert (x == y).all()


@pytest.mark.parametrize("name", [n for n in NAMES if R.FORMATS[n].bits <= 8])
def test_fused_arithmetic_broadcast_and_tails(mf, name):
    """The fused 8-bit + - * / with a broadcast operand on either side (every
    code as the scalar) and lengths that leave a partial 64-value step."""
    T = getattr(mf, name)
    codes = R.all_codes(name).view(T)
    for op in (np.add, np.subtract, np.multiply, np.divide):
        for j in range(len(codes)):
            scalar = codes[j]
            (x, wx), (y, wy) = run_both(mf, lambda: op(codes, scalar))
            assert (x == y).all() and wx == wy, (op.__name__, j)
            (x, wx), (y, wy) = run_both(mf, lambda: op(scalar, codes))
            assert (x == y).all() and wx == wy, (op.__name__, j)
        for start, length in ((0, 1), (3, 63), (5, 65), (1, 130)):
            a, b = codes[start:start + length], codes[::-1][start:start + length]
            (x, wx), (y, wy) = run_both(mf, lambda: op(a, b))
            assert (x == y).all() and wx == wy, (op.__name__, start, length)


@pytest.mark.parametrize("fmt", ["mxfp8_e4m3", "mxfp4_e2m1", "mxint8", "nvfp4"])
def test_mx_paths(mf, fmt):
    x = np.random.default_rng(3).standard_normal(1 << 14).astype(np.float32)
    x[100:132] = 0
    x[200] = np.inf
    (a, _), (b, _) = run_both(mf, lambda: mf.mx.quantize(x, fmt).data)
    assert (a == b).all()


@pytest.mark.parametrize("name", NAMES)
def test_ragged_lengths(mf, name):
    """Lengths that leave partial vector steps in every kernel: casts in and
    out (float32, float64, bfloat16 sources), casts to another format,
    table-driven unary ops, comparisons and selections."""
    T = getattr(mf, name)
    other = mf.float8_e5m2 if name == "float8_e4m3fn" else mf.float8_e4m3fn
    x = float32_sample(4)
    for length in (1, 7, 17, 33, 1000, 4099):
        part = x[:length]
        for source in (part, part.astype(np.float64)):
            (a, wa), (b, wb) = run_both(mf, lambda: source.astype(T))
            assert (a == b).all() and wa == wb, (length, source.dtype)
        with np.errstate(all="ignore"):
            codes = part.astype(T)
            halves = part.astype(mf.bfloat16)
        (a, wa), (b, wb) = run_both(mf, lambda: halves.astype(T))
        assert (a == b).all() and wa == wb, length
        reversed_codes = codes[::-1].copy()
        for fn in (lambda: codes.astype(np.float32), lambda: codes.astype(other), lambda: np.negative(codes),
                   lambda: np.floor(codes), lambda: np.sqrt(np.abs(codes)),
                   lambda: np.less(codes, reversed_codes), lambda: np.equal(codes, reversed_codes),
                   lambda: np.greater_equal(codes, reversed_codes), lambda: np.maximum(codes, reversed_codes),
                   lambda: np.fmin(codes, reversed_codes)):
            (a, wa), (b, wb) = run_both(mf, fn)
            assert (a == b).all() and wa == wb, length


@pytest.mark.parametrize("name", [n for n in NAMES if R.FORMATS[n].bits <= 8])
def test_every_byte_format_has_an_order_rule(mf, name):
    """Comparisons and maximum/minimum of contiguous codes compute order keys
    by byte arithmetic; a format that the rule cannot describe would fall
    back to a scalar loop (correct, 10x slower)."""
    assert mf._core._has_order_rule(name)


@pytest.mark.parametrize("tensor_scale", [None, 0.75])
def test_nvfp4_ragged_blocks(mf, tensor_scale):
    """NVFP4 over an odd number of blocks and a partial last block, with and
    without a tensor scale (float32 or double boundaries)."""
    rng = np.random.default_rng(5)
    for length in (16 * 7 + 5, 16 * 64 + 16, 16 * 65):
        x = rng.standard_normal(length).astype(np.float32) * 100
        x[:16] = 0  # an all-zero block
        (a, _), (b, _) = run_both(mf, lambda: mf.mx.quantize(x, "nvfp4", tensor_scale=tensor_scale).data)
        assert (a == b).all(), length
        (a, _), (b, _) = run_both(mf, lambda: mf.mx.quantize(x, "nvfp4", tensor_scale=tensor_scale).scales)
        assert (a == b).all(), length


@pytest.mark.parametrize("name", [n for n in NAMES if R.FORMATS[n].bits <= 8])
def test_sum_and_prod_decode_every_code(mf, name):
    """Sums and products of contiguous 8-bit codes (decoded in registers and
    folded into 64 float32 lanes by the hand-written kernels): each row holds
    one code among identities (-0 for sums, 1 for products) at positions that
    reach every lane, a whole group and the tail, so each result is that
    code's exact value, and the rows reduce to the same bits as with the
    portable kernels."""
    T = getattr(mf, name)
    f = R.FORMATS[name]
    codes = R.all_codes(name)
    one = R.encode_code(name, 1)
    zero = R.encode_code(name, -0.0) if f.has_zero else None
    for length in (64, 130, 4099):
        for position in (0, 17, 63, length - 1):
            for identity, reduce in ((zero, np.add.reduce), (one, np.multiply.reduce)):
                if identity is None:  # float8_e8m0fnu has no zero
                    continue
                rows = np.full((len(codes), length), identity, dtype=np.uint8)
                rows[:, position] = codes
                x = rows.view(T)
                (got, wa), (portable, wb) = run_both(mf, lambda: reduce(x, axis=1))
                assert (got == portable).all() and wa == wb, (length, position, reduce)
                for c, g in zip(codes.tolist(), got.tolist()):
                    v = R.decode_float(name, c)
                    if np.isnan(v):
                        assert np.isnan(R.decode_float(name, g)), (hex(c), hex(g))
                    else:  # -0 + x is x bit for bit (+0 + -0 would be +0); 1 * x too
                        assert g == c, (hex(c), hex(g), length, position, reduce)


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2fnuz"])
def test_long_arithmetic_runs(mf, name):
    """Contiguous + - * / on runs of a million codes and more, where the
    kernel serving them may be the fused one or the pair-table gathers
    (whichever measured faster on this CPU, pair_kernel_choice.h): every
    code pair, 16 times over and a tail, against the portable kernels."""
    T = getattr(mf, name)
    pairs = np.arange(65536, dtype=np.uint16)
    a = np.resize((pairs >> 8).astype(np.uint8), (1 << 20) + 37).view(T)
    b = np.resize((pairs & 0xFF).astype(np.uint8), (1 << 20) + 37).view(T)
    for op in (np.add, np.subtract, np.multiply, np.divide):
        (x, wx), (y, wy) = run_both(mf, lambda: op(a, b))
        assert (x == y).all() and wx == wy, op.__name__


def test_e8m0_sums_with_and_without_edge_codes(mf):
    """float8_e8m0fnu sums and products: a 64-code group without code 0
    (2^-127, a float32 subnormal) or 255 (NaN) may be decoded by a shift
    alone, a group with one may not. Rows mixing both kinds of group reduce
    to the portable kernels' bits and warnings, and a row of 2^k repeated
    2^m times (edge codes around it in other groups) sums to 2^(k+m) exactly."""
    T = mf.float8_e8m0fnu
    rng = np.random.default_rng(8)
    length = 64 * 5 + 29
    rows = rng.integers(100, 150, size=(64, length), dtype=np.uint8)
    for r in range(64):  # an edge code in some group of most rows, at every lane
        if r % 4 != 3:
            rows[r, (64 * (r % 5) + r) % length] = 0 if r % 2 else 255
    x = rows.view(T)
    for reduce in (np.add.reduce, np.multiply.reduce):
        (got, wa), (portable, wb) = run_both(mf, lambda: reduce(x, axis=1))
        assert (got == portable).all() and wa == wb, reduce
    exact = np.full((3, 1024), 120, dtype=np.uint8)
    exact[1, 700] = 0    # 2^-127 changes nothing that rounds to 2^3
    exact[2, 5] = 255    # NaN
    (got, wa), (portable, wb) = run_both(mf, lambda: np.add.reduce(exact.view(T), axis=1))
    assert (got == portable).all() and wa == wb
    assert got[0] == got[1] == 130 and got[2] == 255


@pytest.mark.parametrize("name", ["float8_e5m2", "float8_e5m2fnuz"])
def test_sum_keeps_the_lane_order(mf, name):
    """Which float32 lane each code is folded into decides the rounding
    here: 32768 + 4096 sits on a rounding tie of the format, and two halves
    of a float32 ulp there (2^-9 each) tip it up only if they meet each
    other in the pairwise combination of the lanes before they meet it.
    Every pair of lanes for them, with one in the partial last group
    where it can be: the hand-written kernels must fold into the portable
    kernels' lanes."""
    T = getattr(mf, name)
    big, ulp_half = R.encode_code(name, 32768), R.encode_code(name, 2.0 ** -9)
    rows = []
    for p in range(1, 64):
        for q in range(p + 1, 64):
            row = np.full(64 * 2 + 37, R.encode_code(name, 0), dtype=np.uint8)
            row[0], row[64] = big, R.encode_code(name, 4096)
            row[p] = ulp_half
            row[128 + q if q < 37 else 64 + q] = ulp_half
            rows.append(row)
    x = np.stack(rows).view(T)
    (got, wa), (portable, wb) = run_both(mf, lambda: np.add.reduce(x, axis=1))
    assert (got == portable).all() and wa == wb
    # both outcomes occur, so the lane order is what is being compared
    assert {R.decode_float(name, c) for c in got.tolist()} == {32768.0, 40960.0}


@pytest.mark.parametrize("name", [n for n in NAMES if R.FORMATS[n].bits <= 8])
def test_byte_tables_every_code(mf, name):
    """The 256-entry byte lookups (AVX-512 byte permutes, AVX2 shuffles and
    blends) over every code, several times over so the vector steps run:
    casts to every other 8-bit format and table-driven unary ops."""
    T = getattr(mf, name)
    x = np.tile(R.all_codes(name), 5).view(T)
    for other in [n for n in NAMES if R.FORMATS[n].bits <= 8 and n != name]:
        (a, wa), (b, wb) = run_both(mf, lambda: x.astype(getattr(mf, other)))
        assert (a == b).all() and wa == wb, other
    for op in (np.negative, np.absolute, np.floor, np.sqrt, np.exp, np.reciprocal):
        (a, wa), (b, wb) = run_both(mf, lambda: op(x))
        assert (a == b).all() and wa == wb, op.__name__


# Formats made by mf.float_format in layouts the sign-magnitude kernels do
# not model, which the AVX-512 encoder serves too (csrc/kernels/avx512/
# codec_avx512_vectors.h, Layout), and whose comparisons no byte-arithmetic
# order rule describes (key lookups by byte permutes instead).
USER_LAYOUTS = {
    "unsigned with zero": dict(exponent_bits=5, mantissa_bits=3, signed=False, infinities="max", nan="all_ones",
                               negative_zero=False),
    "unsigned, first binade at 2^-127": dict(exponent_bits=8, mantissa_bits=0, bias=128, signed=False,
                                             infinities=False, nan="all_ones", negative_zero=False),
    "unsigned, no mantissa bit, normals from 2^-126 (2^-127 ties to zero)": dict(
        exponent_bits=8, mantissa_bits=0, bias=127, signed=False, infinities=False, nan="all_ones",
        negative_zero=False),
    "signed, no mantissa bit": dict(exponent_bits=7, mantissa_bits=0, infinities=False, nan="negative_zero",
                                    negative_zero=False),
    "NaN list": dict(exponent_bits=4, mantissa_bits=3, infinities=False, nan=(0x7E, 0x7F, 0x80, 0xFE, 0xFF),
                     negative_zero=False),
    "signed without zero": dict(exponent_bits=4, mantissa_bits=3, infinities=False, nan="all_ones",
                                subnormals=False, negative_zero=False),
    "unsigned without zero": dict(exponent_bits=5, mantissa_bits=3, bias=20, signed=False, infinities=True,
                                  nan=True, subnormals=False, negative_zero=False, overflow="saturate"),
    "unsigned without zero, first binade at 2^-127": dict(exponent_bits=8, mantissa_bits=0, signed=False,
                                                          infinities="max", nan="all_ones", subnormals=False,
                                                          negative_zero=False),
    "largest value subnormal": dict(exponent_bits=1, mantissa_bits=6, infinities=True, nan=True),
    "normals from 2^-139 (in float32's subnormals)": dict(exponent_bits=8, mantissa_bits=0, bias=140, signed=False,
                                                         infinities=False, nan="all_ones", negative_zero=False),
    "normals from 2^-135, steps of 2^-136": dict(exponent_bits=7, mantissa_bits=1, bias=136, signed=False,
                                                infinities=True, nan=True, negative_zero=False),
    "signed, normals from 2^-129, no zero": dict(exponent_bits=7, mantissa_bits=0, bias=129, infinities=False,
                                                nan="all_ones", subnormals=False, negative_zero=False),
    "steps of 2^-149 (float64 sources: portable)": dict(exponent_bits=8, mantissa_bits=0, bias=150, signed=False,
                                                       infinities=False, nan="all_ones", negative_zero=False),
    "unsigned, largest value subnormal": dict(exponent_bits=1, mantissa_bits=7, signed=False, infinities=True,
                                              nan=True, negative_zero=False),
}


@pytest.mark.parametrize("layout", list(USER_LAYOUTS))
@pytest.mark.parametrize("mode", MODES)
def test_user_layouts_from_float32_and_float64(mf, layout, mode):
    dt = mf.float_format(**USER_LAYOUTS[layout])
    x = float32_sample(4)
    for saturate in (False, True):
        (a, wa), (b, wb) = run_both(mf, lambda: mf.cast(x, dt, rounding=mode, saturate=saturate))
        bad = np.nonzero(a != b)[0]
        assert bad.size == 0, [(hex(int(x.view(np.uint32)[i])), hex(a[i]), hex(b[i])) for i in bad[:5]]
        assert wa == wb
    with np.errstate(all="ignore"):
        between = x.astype(np.float64) * (1 + 2.0**-40)
    (a, wa), (b, wb) = run_both(mf, lambda: mf.cast(between, dt, rounding=mode))
    bad = np.nonzero(a != b)[0]
    assert bad.size == 0, [(float(between[i]), hex(a[i]), hex(b[i])) for i in bad[:5]]
    assert wa == wb


@pytest.mark.parametrize("layout", list(USER_LAYOUTS))
def test_user_layouts_comparisons_and_selections(mf, layout):
    dt = mf.float_format(**USER_LAYOUTS[layout])
    codes = np.arange(256, dtype=np.uint8)
    a, b = np.repeat(codes, 256).view(dt), np.tile(codes, 256).view(dt)
    for op in (np.less, np.less_equal, np.equal, np.not_equal, np.greater, np.greater_equal, np.maximum,
               np.minimum, np.fmax, np.fmin):
        for start, stop in ((0, a.size), (3, 3 + 63), (5, 5 + 130)):  # partial 64-code vectors too
            (x, wx), (y, wy) = run_both(mf, lambda: op(a[start:stop], b[start:stop]))
            assert (x == y).all() and wx == wy, (op.__name__, start)
    # decoding casts and sums (formats with values below float32's normals
    # decode through four byte tables)
    codes_view = codes.view(dt)
    (x, _), (y, _) = run_both(mf, lambda: codes_view.astype(np.float32))
    assert (x == y).all()
    for reduce in (np.add, np.multiply):
        for length in (256, 1000, 4099):
            c = np.resize(codes, length).view(dt)
            (x, wx), (y, wy) = run_both(mf, lambda: np.asarray(reduce.reduce(c, dtype=np.float32)))
            assert (x == y).all() and wx == wy, (reduce.__name__, length)
            (x, wx), (y, wy) = run_both(mf, lambda: np.asarray(reduce.reduce(c)))
            assert (x == y).all() and wx == wy, (reduce.__name__, length)


@pytest.mark.parametrize("layout", list(USER_LAYOUTS))
def test_user_layouts_ragged_lengths_and_offsets(mf, layout):
    """Lengths and starts that leave partial vectors (masked-off lanes read
    as +0, which a format without zero must not report as invalid)."""
    dt = mf.float_format(**USER_LAYOUTS[layout])
    info = np.finfo(dt)
    x = np.abs(float32_sample(6)[:4096].astype(np.float64))
    x = np.clip(x, float(info.smallest_normal), float(info.max)).astype(np.float32)
    for start, length in ((0, 1), (1, 15), (3, 17), (5, 63), (7, 130), (0, 1000)):
        part = x[start:start + length]
        for source in (part, part.astype(np.float64)):
            (a, wa), (b, wb) = run_both(mf, lambda: source.astype(dt))
            assert (a == b).all() and wa == wb, (start, length, wa, wb)
            assert wa == [], (start, length, wa)


NO_ZERO_FORMATS = [
    dict(exponent_bits=4, mantissa_bits=3, infinities=False, nan="all_ones", subnormals=False, negative_zero=False),
    dict(exponent_bits=3, mantissa_bits=2, infinities=False, nan="all_ones", subnormals=False, negative_zero=False),
    dict(exponent_bits=4, mantissa_bits=3, infinities=False, nan=(0x7E, 0x7F, 0xFE, 0xFF), subnormals=False,
         negative_zero=False),
]


@pytest.mark.parametrize("spec", NO_ZERO_FORMATS, ids=["e4m3", "e3m2", "e4m3-nan-list"])
def test_order_of_formats_without_zero_every_pair(mf, spec):
    """Without zero, codes 0x00 and 0x80 are +-min normal and must not tie:
    the byte-arithmetic keys are +-(magnitude + 1) there. Every code pair,
    against the float64 comparison of the decoded values."""
    F = mf.float_format(**spec)
    n = 1 << (1 + spec["exponent_bits"] + spec["mantissa_bits"])
    codes = np.arange(n, dtype=np.uint8)
    a, b = np.repeat(codes, n).view(F), np.tile(codes, n).view(F)
    fa, fb = a.astype(np.float64), b.astype(np.float64)
    for op in (np.less, np.less_equal, np.equal, np.not_equal, np.greater, np.greater_equal):
        for got, _ in run_both(mf, lambda: op(a, b)):
            assert got.tolist() == op(fa, fb).astype(np.uint8).tolist(), op
    for op in (np.maximum, np.minimum, np.fmax, np.fmin):
        for got, _ in run_both(mf, lambda: op(a, b)):
            assert np.array_equal(got.view(F).astype(np.float64), op(fa, fb), equal_nan=True), op
