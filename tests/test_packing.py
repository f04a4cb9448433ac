"""mf.pack(arr) -> 1-D uint8 and mf.unpack(buf, dtype, shape): exact byte
layouts (FP4: first value in the low nibble; FP6: 24-bit little-endian words
of four values; 8/16-bit: raw little-endian bytes) and round trips."""

import warnings
import zlib

import numpy as np
import pytest

import cast_mode_reference as I
import reference as R

NAMES = R.FORMAT_NAMES
ALL = pytest.mark.parametrize("name", NAMES)
SHAPES = [(), (0,), (1,), (2,), (3,), (4,), (5,), (7,), (8,), (9,), (3, 5), (2, 3, 4), (4, 0),
          (1, 1, 1), (31,), (33,), (2, 7)]


def arr_from_codes(mf, name, codes, shape=None):
    fmt = R.FORMATS[name]
    a = np.asarray(codes, dtype=np.int64).astype(fmt.code_dtype).view(getattr(mf, name))
    return a.reshape(shape) if shape is not None else a


def as_bytes(p):
    assert isinstance(p, np.ndarray), type(p)
    assert p.dtype == np.uint8 and p.ndim == 1, (p.dtype, p.shape)
    return bytes(p)


def rand_codes(name, n, seed=0):
    fmt = R.FORMATS[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()) + seed)
    return rng.integers(0, fmt.ncodes, n)


# --------------------------------------------------------------------------
# Hand-written layouts
# --------------------------------------------------------------------------

FP4_CASES = [
    ([], b""),
    ([0x1], b"\x01"),
    ([0x1, 0x2], b"\x21"),
    ([0x1, 0x2, 0x3], b"\x21\x03"),
    ([0xF, 0x0, 0x8, 0x7], b"\x0f\x78"),
    ([0xA, 0xB, 0xC, 0xD, 0xE], b"\xba\xdc\x0e"),
]
# w = v0 | v1<<6 | v2<<12 | v3<<18, stored (w & 0xFF, (w >> 8) & 0xFF, w >> 16)
FP6_CASES = [
    ([], b""),
    ([0x3F], b"\x3f"),  # 6 bits -> 1 byte
    ([0x3F, 0x3F], b"\xff\x0f"),  # 12 bits -> 2 bytes
    ([0x01, 0x02, 0x03], b"\x81\x30\x00"),  # 18 bits -> 3 bytes
    ([0x01, 0x02, 0x03, 0x04], b"\x81\x30\x10"),  # w = 0x103081
    ([0x3F, 0, 0, 0], b"\x3f\x00\x00"),
    ([0, 0, 0, 0x3F], b"\x00\x00\xfc"),
    ([0x2A, 0x15, 0x2A, 0x15], b"\x6a\xa5\x56"),  # w = 0x56A56A
    ([0x01, 0x02, 0x03, 0x04, 0x05], b"\x81\x30\x10\x05"),
    ([0x01, 0x02, 0x03, 0x04, 0x05, 0x3F], b"\x81\x30\x10\xc5\x0f"),
    ([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07], b"\x81\x30\x10\x85\x71\x00"),
]


@pytest.mark.parametrize("codes,packed", FP4_CASES)
def test_reference_fp4_layout(codes, packed):
    assert I.pack_codes(codes, 4) == packed
    assert I.unpack_codes(packed, 4, len(codes)) == codes


@pytest.mark.parametrize("codes,packed", FP6_CASES)
def test_reference_fp6_layout(codes, packed):
    assert I.pack_codes(codes, 6) == packed
    assert I.unpack_codes(packed, 6, len(codes)) == codes


@pytest.mark.parametrize("codes,packed", FP4_CASES)
def test_fp4_layout(mf, codes, packed):
    a = arr_from_codes(mf, "float4_e2m1fn", codes)
    assert as_bytes(mf.pack(a)) == packed
    u = mf.unpack(packed, mf.float4_e2m1fn, len(codes))
    assert u.dtype == np.dtype(mf.float4_e2m1fn) and u.shape == (len(codes),)
    assert R.codes_of(u).tolist() == codes


@pytest.mark.parametrize("name", ["float6_e2m3fn", "float6_e3m2fn"])
@pytest.mark.parametrize("codes,packed", FP6_CASES)
def test_fp6_layout(mf, name, codes, packed):
    a = arr_from_codes(mf, name, codes)
    assert as_bytes(mf.pack(a)) == packed
    u = mf.unpack(packed, getattr(mf, name), len(codes))
    assert u.dtype == np.dtype(getattr(mf, name)) and u.shape == (len(codes),)
    assert R.codes_of(u).tolist() == codes


def test_8_and_16_bit_layouts(mf):
    a = arr_from_codes(mf, "float8_e4m3fn", [0x38, 0x00, 0xFF, 0x7E])
    assert as_bytes(mf.pack(a)) == b"\x38\x00\xff\x7e"
    b = arr_from_codes(mf, "bfloat16", [0x3F80, 0x0001, 0xFF80, 0x1234])
    assert as_bytes(mf.pack(b)) == b"\x80\x3f\x01\x00\x80\xff\x34\x12"  # little-endian
    u = mf.unpack(b"\x80\x3f\x34\x12", mf.bfloat16, 2)
    assert R.codes_of(u).tolist() == [0x3F80, 0x1234]
    e = arr_from_codes(mf, "float8_e8m0fnu", [0, 127, 254, 255])
    assert as_bytes(mf.pack(e)) == b"\x00\x7f\xfe\xff"


def test_values_not_just_codes(mf):
    """pack works on arrays made by ordinary casts (values, not hand codes)."""
    a = np.array([0.5, -6.0, 1.5, 0.0, -0.0]).astype(mf.float4_e2m1fn)
    # codes 0x1, 0xF, 0x3, 0x0, 0x8
    assert as_bytes(mf.pack(a)) == b"\xf1\x03\x08"
    b = np.array([1.0, -28.0, 0.0625, 3.0]).astype(mf.float6_e3m2fn)
    # codes 0x0C, 0x3F, 0x01, 0x12 -> w = 0x0C | 0x3F<<6 | 0x01<<12 | 0x12<<18
    w = 0x0C | 0x3F << 6 | 0x01 << 12 | 0x12 << 18
    assert as_bytes(mf.pack(b)) == bytes([w & 0xFF, (w >> 8) & 0xFF, w >> 16])


# --------------------------------------------------------------------------
# Round trips and sizes
# --------------------------------------------------------------------------


@ALL
@pytest.mark.parametrize("shape", SHAPES, ids=[str(s) for s in SHAPES])
def test_round_trip_every_shape(mf, name, shape):
    fmt = R.FORMATS[name]
    T = getattr(mf, name)
    n = int(np.prod(shape, dtype=np.int64))
    c = rand_codes(name, n, seed=len(shape) * 100 + n)
    a = arr_from_codes(mf, name, c, shape)
    p = mf.pack(a)
    assert isinstance(p, np.ndarray) and p.dtype == np.uint8 and p.ndim == 1
    assert p.size == I.packed_size(fmt.bits, n)
    assert bytes(p) == I.pack_codes(c, fmt.bits)
    u = mf.unpack(p, T, shape)
    assert u.dtype == np.dtype(T) and u.shape == shape
    assert (R.codes_of(u).reshape(-1) == c).all()
    assert u.flags.c_contiguous


@ALL
def test_every_code_round_trips(mf, name):
    fmt = R.FORMATS[name]
    c = R.all_codes(name)
    for k in range(4):  # rotate so every code meets every position in a group
        cc = np.roll(c, k)
        a = arr_from_codes(mf, name, cc)
        p = mf.pack(a)
        assert bytes(p) == I.pack_codes(cc, fmt.bits)
        u = mf.unpack(p, getattr(mf, name), cc.size)
        assert (R.codes_of(u) == cc).all()


@ALL
def test_packed_sizes(mf, name):
    fmt = R.FORMATS[name]
    for n in range(0, 20):
        a = arr_from_codes(mf, name, np.zeros(n, np.int64))
        assert mf.pack(a).size == -(-fmt.bits * n // 8)


@ALL
def test_c_order_of_non_contiguous_input(mf, name):
    fmt = R.FORMATS[name]
    c = rand_codes(name, 6 * 7, seed=7).reshape(6, 7)
    a = arr_from_codes(mf, name, c)
    for view in (a.T, a[::2, ::-3], a[:, 3], a[1:, 1:].T):
        exp = I.pack_codes(np.ascontiguousarray(R.codes_of(view)), fmt.bits)
        assert bytes(mf.pack(view)) == exp
        u = mf.unpack(mf.pack(view), getattr(mf, name), view.shape)
        assert (R.codes_of(u) == R.codes_of(view)).all()


@pytest.mark.parametrize("name", ["float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn"])
def test_high_bits_ignored_by_pack(mf, name):
    """Bits above the format width in the storage byte are ignored."""
    fmt = R.FORMATS[name]
    c = rand_codes(name, 13, seed=3)
    junk = np.random.default_rng(1).integers(0, 256, 13) & ~fmt.mask
    dirty = np.asarray(c | junk, np.uint8).view(getattr(mf, name))
    assert bytes(mf.pack(dirty)) == I.pack_codes(c, fmt.bits)


@pytest.mark.parametrize("name", ["float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn"])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 6, 7, 9, 11])
def test_padding_bits_ignored_by_unpack_and_zero_in_pack(mf, name, n):
    fmt = R.FORMATS[name]
    c = rand_codes(name, n, seed=n)
    buf = bytearray(I.pack_codes(c, fmt.bits))
    used = fmt.bits * n
    if used % 8:
        assert buf[-1] >> (used % 8) == 0  # pack leaves the padding zero
        buf[-1] |= (0xFF << (used % 8)) & 0xFF  # set every padding bit
    u = mf.unpack(bytes(buf), getattr(mf, name), n)
    assert R.codes_of(u).tolist() == c.tolist()  # and the unpacked bytes are clean
    a = arr_from_codes(mf, name, c)
    p = bytes(mf.pack(a))
    if used % 8:
        assert p[-1] >> (used % 8) == 0


# --------------------------------------------------------------------------
# unpack arguments
# --------------------------------------------------------------------------


def test_unpack_buffer_kinds(mf):
    c = [0x1, 0x2, 0x3, 0xF, 0x8]
    raw = I.pack_codes(c, 4)
    T = mf.float4_e2m1fn
    for buf in (raw, bytearray(raw), memoryview(raw), np.frombuffer(raw, np.uint8),
                np.frombuffer(raw, np.uint8).copy()):
        u = mf.unpack(buf, T, 5)
        assert R.codes_of(u).tolist() == c, type(buf)
    # a strided uint8 array
    big = np.zeros(2 * len(raw), np.uint8)
    big[::2] = np.frombuffer(raw, np.uint8)
    assert R.codes_of(mf.unpack(big[::2], T, 5)).tolist() == c


def test_unpack_shape_forms(mf):
    raw = bytes(range(24))
    T = mf.float8_e5m2
    assert mf.unpack(raw, T, 24).shape == (24,)
    assert mf.unpack(raw, T, (24,)).shape == (24,)
    assert mf.unpack(raw, T, (2, 3, 4)).shape == (2, 3, 4)
    assert mf.unpack(raw, T, np.int64(24)).shape == (24,)
    assert mf.unpack(raw[:1], T, ()).shape == ()
    assert mf.unpack(b"", T, (0, 5)).shape == (0, 5)
    assert mf.unpack(b"", T, 0).shape == (0,)


@ALL
def test_unpack_dtype_forms(mf, name):
    fmt = R.FORMATS[name]
    c = rand_codes(name, 9, seed=9)
    raw = I.pack_codes(c, fmt.bits)
    T = getattr(mf, name)
    for spec in (T, np.dtype(T), name):
        u = mf.unpack(raw, spec, 9)
        assert u.dtype == np.dtype(T)
        assert (R.codes_of(u) == c).all()


def test_unpack_returns_a_new_writeable_array(mf):
    raw = bytearray(I.pack_codes([1, 2, 3, 4], 8))
    u = mf.unpack(raw, mf.float8_e4m3fn, 4)
    raw[0] = 0x7E
    assert R.codes_of(u).tolist() == [1, 2, 3, 4]
    u[0] = 1.0
    assert R.codes_of(u)[0] == 0x38
    a = np.frombuffer(bytes(4), np.uint8).copy()
    v = mf.unpack(a, mf.float8_e4m3fn, 4)
    assert not np.shares_memory(v, a)


@ALL
def test_unpack_wrong_length_is_value_error(mf, name):
    fmt = R.FORMATS[name]
    T = getattr(mf, name)
    for n in (0, 1, 3, 4, 5, 8):
        size = I.packed_size(fmt.bits, n)
        for bad in (size - 1, size + 1, size + 3):
            if bad < 0:
                continue
            with pytest.raises(ValueError):
                mf.unpack(bytes(bad), T, n)
    with pytest.raises(ValueError):
        mf.unpack(bytes(I.packed_size(fmt.bits, 6) + 1), T, (2, 3))


@pytest.mark.parametrize("bad", [np.uint8, np.float32, "float32", np.dtype(np.int8), None,
                                 "float9_e4m4", 8])
def test_unpack_bad_dtype_is_type_error(mf, bad):
    with pytest.raises(TypeError):
        mf.unpack(b"\x00\x00", bad, 2)


@pytest.mark.parametrize(
    "bad",
    [np.zeros(3, np.float32), np.zeros(3, np.uint8), np.zeros(3, np.int64), np.zeros(3, bool),
     np.zeros(2, np.float16), np.zeros(2, np.complex64), np.zeros(2, object)],
    ids=["float32", "uint8", "int64", "bool", "float16", "complex64", "object"],
)
def test_pack_needs_a_minifloat_array(mf, bad):
    with pytest.raises(TypeError):
        mf.pack(bad)


def test_pack_of_zero_d_and_empty(mf):
    for name in NAMES:
        fmt = R.FORMATS[name]
        T = getattr(mf, name)
        z = arr_from_codes(mf, name, [fmt.mask & 0x35]).reshape(())
        p = mf.pack(z)
        assert p.shape == (I.packed_size(fmt.bits, 1),)
        assert bytes(p) == I.pack_codes([fmt.mask & 0x35], fmt.bits)
        e = mf.pack(np.zeros((3, 0), T))
        assert e.shape == (0,) and e.dtype == np.uint8


# --------------------------------------------------------------------------
# The C++ kernels at vector lengths, hand-written and portable
# --------------------------------------------------------------------------
LONG = [63, 64, 65, 127, 128, 129, 1000, 4096, 4099, 20001]


@ALL
@pytest.mark.parametrize("n", LONG)
def test_long_arrays_against_reference(mf, name, n):
    """Lengths around the 64-code vector steps (FP6 with AVX-512 VBMI),
    codes with junk above the format's width, both kernel sets."""
    fmt = R.FORMATS[name]
    codes = rand_codes(name, n, seed=n)
    exp = I.pack_codes(codes, fmt.bits)
    arr = arr_from_codes(mf, name, codes)
    if fmt.bits < 8:  # set the unused high bits: pack must ignore them
        junk = np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8) & np.uint8(~fmt.mask & 0xFF)
        arr = (arr.view(np.uint8) | junk).view(arr.dtype)
    previous = mf._core._set_avx512_kernels(True)
    try:
        for enabled in (True, False):
            mf._core._set_avx512_kernels(enabled)
            packed = mf.pack(arr)
            assert as_bytes(packed) == exp, (name, n, enabled)
            back = mf.unpack(packed, getattr(mf, name), n)
            assert (R.codes_of(back) == codes).all(), (name, n, enabled)
    finally:
        mf._core._set_avx512_kernels(previous)


@ALL
@pytest.mark.parametrize("source", [np.float32, np.float64])
def test_cast_packed_is_pack_of_cast(mf, name, source):
    """mf.cast(..., packed=True) (rounded and packed chunk by chunk) gives
    the bytes mf.pack gives for mf.cast's result: every mode, saturation,
    lengths across the 131072-value chunks."""
    T = getattr(mf, name)
    rng = np.random.default_rng(zlib.crc32(f"packed{name}".encode()))
    scale = float(R.finfo_expected(name)["max"]) / 4
    for n in (0, 1, 7, 4097, 131071, 131072, 131073, 262245):
        with np.errstate(over="ignore"):  # float8_e8m0fnu's max / 4 is past float32: a few inf
            x = (rng.standard_normal(n) * scale).astype(source)
        if n > 10:
            x[:4] = [np.nan, np.inf, -np.inf, -0.0]
        for mode in ("nearest_even", "toward_zero", "up", "stochastic"):
            for sat in (False, True):
                with np.errstate(all="ignore"):
                    got = mf.cast(x, T, rounding=mode, saturate=sat, rng=5, packed=True)
                    exp = mf.pack(mf.cast(x, T, rounding=mode, saturate=sat, rng=5))
                assert got.dtype == np.uint8 and got.ndim == 1
                assert as_bytes(got) == as_bytes(exp), (name, n, mode, sat)


def _packed_one_pass_formats(mf):
    """The 4- and 6-bit formats: built-in, and made by mf.float_format in
    each code layout (with zero or not, signed or not; normals below
    float32's, whose float32 sources go the two-step way)."""
    no_infinities = {"infinities": False, "nan": "all_ones", "negative_zero": False}
    made = [mf.float_format(exponent_bits=3, mantissa_bits=2, name="packed_e3m2_ieee"),
            mf.float_format(exponent_bits=3, mantissa_bits=3, signed=False, name="packed_ue3m3", **no_infinities),
            mf.float_format(exponent_bits=2, mantissa_bits=1, subnormals=False, name="packed_e2m1_no_zero",
                            **no_infinities),
            mf.float_format(exponent_bits=3, mantissa_bits=1, signed=False, overflow="saturate", name="packed_ue3m1",
                            **no_infinities),
            mf.float_format(exponent_bits=3, mantissa_bits=2, bias=130, name="packed_e3m2_deep")]
    return [np.dtype(getattr(mf, n)) for n in NAMES if R.FORMATS[n].bits in (4, 6)] + made


def test_cast_packed_one_pass_every_start(mf):
    """float32 rounded to nearest and packed in one pass (AVX-512: the values
    before the source's first cache line packed on their own, then 64 a
    step, then the rest) gives mf.pack of the codes, and the same warnings,
    as rounding and packing in two steps: sources starting at each of the
    16 float32 positions of a cache line (FP6 from 4 or 8 bytes in, FP4
    from 4, cannot start on a byte: they take two steps), every length
    class, inf, NaN, -0, overflow and subnormal values in every part."""
    rng = np.random.default_rng(2808)
    previous = mf._core._set_avx512_kernels(True)
    try:
        for dt in _packed_one_pass_formats(mf):
            scale = float(mf.finfo(dt).max) / 4
            pool = (rng.standard_normal(2048 + 64) * scale).astype(np.float32)
            pool[rng.integers(0, pool.size, 120)] = np.float32(scale * 40)  # overflow
            pool[rng.integers(0, pool.size, 60)] = np.float32(float(mf.finfo(dt).smallest_subnormal) * 0.75)
            for value in (np.nan, np.inf, -np.inf, -0.0):
                pool[rng.integers(0, pool.size, 12)] = value
            line = (-pool.ctypes.data % 64) // 4  # (NumPy's buffers are 16-byte aligned)
            for start in range(16):
                for n in (0, 1, 3, 12, 16, 17, 63, 64, 65, 130, 2000):
                    x = pool[line + start: line + start + n]
                    results = []
                    for enabled in (True, False):
                        mf._core._set_avx512_kernels(enabled)
                        with warnings.catch_warnings(record=True) as caught:
                            warnings.simplefilter("always")
                            got = as_bytes(mf.cast(x, dt, packed=True))
                        results.append((got, sorted(str(w.message) for w in caught)))
                    mf._core._set_avx512_kernels(True)
                    with np.errstate(all="ignore"):
                        expected = as_bytes(mf.pack(x.astype(dt)))
                    assert results[0][0] == expected, (dt.name, start, n)
                    assert results[0] == results[1], (dt.name, start, n)
    finally:
        mf._core._set_avx512_kernels(previous)


def test_cast_packed_other_sources_and_shapes(mf):
    """Integer, object and 2-D sources: packed in C order."""
    x = np.array([[1, 2, 3], [-4, 5, 6]], np.int64)
    got = mf.cast(x, mf.float4_e2m1fn, packed=True)
    assert as_bytes(got) == as_bytes(mf.pack(mf.cast(x, mf.float4_e2m1fn)))
    assert as_bytes(mf.cast([0.5, 1.0, 1.5], mf.float4_e2m1fn, packed=True)) == b"\x21\x03"
    assert as_bytes(mf.cast(np.float64(1.0), mf.float8_e4m3fn, packed=True)) == b"\x38"
    big = np.array([2**70, -(2**70)], dtype=object)
    assert as_bytes(mf.cast(big, mf.float8_e5m2, saturate=True, packed=True)) == b"\x7b\xfb"


@pytest.mark.parametrize("kernel_set", ["avx512", "avx2", "portable"])
def test_fp6_every_length_on_every_kernel_set(mf, kernel_set):
    """The AVX-512 VBMI and AVX2 FP6 loops (32 or 64 codes per step, the
    scalar loop for the rest) against the reference layout, at every length
    around their steps, with high bits set in the input codes."""
    if kernel_set != "portable" and kernel_set not in mf._core._cpu_kernel_sets():
        pytest.skip(f"this CPU has no {kernel_set}")
    avx512, avx2 = {"avx512": (True, True), "avx2": (False, True), "portable": (False, False)}[kernel_set]
    previous = mf._core._set_avx512_kernels(avx512), mf._core._set_avx2_kernels(avx2)
    try:
        rng = np.random.default_rng(6)
        for n in list(range(0, 200)) + [1000, 4099]:
            raw = rng.integers(0, 256, n).astype(np.uint8)
            six = (raw & 0x3F).tolist()
            packed = mf.pack(raw.view(mf.float6_e2m3fn))
            assert as_bytes(packed) == I.pack_codes(six, 6), n
            assert R.codes_of(mf.unpack(packed, mf.float6_e2m3fn, n)).tolist() == six, n
    finally:
        mf._core._set_avx512_kernels(previous[0])
        mf._core._set_avx2_kernels(previous[1])
