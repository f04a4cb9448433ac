"""Long contiguous casts whose data lie beyond the last-level cache visit
four parts of the array in turn (memory streams, csrc/memory_streams.h).
The order must not change a bit or a warning: the tests move the cache's
edge down to 256 KiB, so these arrays stream (with lengths that leave partial
rounds and partial steps), and each result is checked against the exact
reference, against the one-stream order and against the in-cache path, on
every hand-written kernel set the CPU has and on the portable kernels."""
import warnings
from contextlib import contextmanager

import numpy as np
import pytest

import reference as R

NAMES = list(R.FORMATS)
# > 1 MiB of float32 (and of float64); odd, so every loop has a remainder
LENGTH = (1 << 18) + 4099
KERNEL_SETS = {"avx512": (True, True), "avx2": (False, True), "portable": (False, False)}


@pytest.fixture(params=list(KERNEL_SETS))
def kernel_set(request, mf):
    if request.param != "portable" and request.param not in mf._core._cpu_kernel_sets():
        pytest.skip(f"this CPU has no {request.param}")
    avx512, avx2 = KERNEL_SETS[request.param]
    previous = mf._core._set_avx512_kernels(avx512), mf._core._set_avx2_kernels(avx2)
    yield request.param
    mf._core._set_avx512_kernels(previous[0])
    mf._core._set_avx2_kernels(previous[1])


@contextmanager
def setting(setter, value):
    """A _core setter (which returns the previous value) set for the block."""
    previous = setter(value)
    try:
        yield
    finally:
        setter(previous)


def streams(mf, count):
    return setting(mf._core._set_memory_streams, count)


def cache_edge(mf, nbytes):
    return setting(mf._core._set_beyond_cache_bytes, nbytes)


IN_CACHE = 1 << 62  # nothing is beyond a cache this large: plain order, plain stores
# The cache's edge for the tests: below the thread pool's chunks of these
# arrays too (LENGTH values split over 2 threads: 0.5 MiB of float32 each)
EDGE = 1 << 18


def both_orders(mf, fn):
    """fn() with four streams and with one, beyond the cache (from EDGE),
    and within it: (codes, warnings) each of the first two, and the third
    compared with them here."""
    results = []
    for count, edge in ((4, EDGE), (1, EDGE), (4, IN_CACHE)):
        with streams(mf, count), cache_edge(mf, edge), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with np.errstate(all="warn"):
                out = fn()
        out = np.asarray(out)
        results.append((out.view({1: np.uint8, 2: np.uint16, 4: np.uint32}[out.dtype.itemsize]),
                        sorted({str(w.message) for w in caught})))
    in_cache = results.pop()
    assert (in_cache[0] == results[0][0]).all() and in_cache[1] == results[0][1]
    return results


def float32_source(name, seed=0):
    """Values around the format's range (ties and near-ties weighted), with
    zeros, infinities and NaNs spread through the array."""
    rng = np.random.default_rng(seed)
    bits = R.targeted_float32_bits(name, LENGTH, rng)
    x = bits.view(np.float32)
    x[rng.integers(0, LENGTH, 64)] = np.inf
    x[rng.integers(0, LENGTH, 64)] = -np.nan
    x[rng.integers(0, LENGTH, 64)] = 0.0
    return x


def test_streams_setting_round_trips(mf):
    previous = mf._core._set_memory_streams(1)
    assert mf._core._set_memory_streams(8) == 1
    assert mf._core._set_memory_streams(3) == 8  # rounds down to 2
    assert mf._core._set_memory_streams(previous) == 2


def test_cache_edge_setting_round_trips(mf):
    assert mf._core._last_level_cache_bytes() >= 1 << 16
    previous = mf._core._set_beyond_cache_bytes(12345)
    assert mf._core._set_beyond_cache_bytes(previous) == 12345


@pytest.mark.parametrize("offset", [0, 1, 2, 3])
def test_decoding_to_an_unaligned_output(mf, kernel_set, offset):
    """A streamed decode into a float32 output at any address (NumPy allows a
    misaligned one; the kernels align their steps to the output's cache
    lines) gets the same bits."""
    codes = np.resize(R.all_codes("float8_e4m3fn"), LENGTH).astype(np.uint8).view(mf.float8_e4m3fn)
    raw = np.zeros(LENGTH * 4 + 8, np.uint8)
    out = raw[offset:offset + LENGTH * 4].view(np.float32)
    expected = R.decode_array("float8_e4m3fn", codes.view(np.uint8)).astype(np.float32).view(np.uint32)
    with cache_edge(mf, EDGE):
        np.copyto(out, codes, casting="unsafe")
    assert (out.view(np.uint32)[~np.isnan(out)] == expected[~np.isnan(out)]).all()
    assert np.isnan(out).sum() == np.isnan(expected.view(np.float32)).sum()


@pytest.mark.parametrize("name", NAMES)
def test_float32_and_float64_sources(mf, kernel_set, name):
    T = getattr(mf, name)
    x32 = float32_source(name)
    # float64 values between float32 neighbours: the rounding sees the lower half
    x64 = x32.astype(np.float64) * (1 + 2.0 ** -40)
    for x in (x32, x64):
        (a, wa), (b, wb) = both_orders(mf, lambda: x.astype(T))
        assert (a == b).all() and wa == wb, x.dtype
        expected, _ = R.encode_array(name, x)
        assert (a == expected.view(a.dtype)).all(), x.dtype


@pytest.mark.parametrize("name", NAMES)
def test_decoding(mf, kernel_set, name):
    T = getattr(mf, name)
    f = R.FORMATS[name]
    codes = np.resize(R.all_codes(name), LENGTH)
    codes = codes.astype(np.uint16 if f.bits > 8 else np.uint8).view(T)
    (a, _), (b, _) = both_orders(mf, lambda: codes.astype(np.float32))
    assert (a == b).all()
    expected = R.decode_array(name, codes.view(np.uint16 if f.bits > 8 else np.uint8))
    with np.errstate(invalid="ignore"):  # bfloat16 signaling NaNs widen with "invalid"
        got = codes.astype(np.float32).astype(np.float64)
    assert ((got == expected) | (np.isnan(got) & np.isnan(expected))).all()


@pytest.mark.parametrize("mode", ["nearest_away", "toward_zero", "up", "down"])
@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "float4_e2m1fn"])
def test_rounding_modes(mf, kernel_set, name, mode):
    T = getattr(mf, name)
    x = float32_source(name, seed=1)
    for source in (x, x.astype(np.float64)):
        (a, wa), (b, wb) = both_orders(mf, lambda: mf.cast(source, T, rounding=mode))
        assert (a == b).all() and wa == wb, (source.dtype, mode)


@pytest.mark.parametrize("where", ["start", "middle", "end", "none"])
def test_e8m0_values_the_fast_kernel_declines(mf, kernel_set, where):
    """float8_e8m0fnu's hand-written kernels stop at the first value they do
    not handle (zero here) and the whole cast is redone in chunks: same codes
    and the same invalid warning wherever that value sits."""
    rng = np.random.default_rng(2)
    x = (2.0 ** rng.uniform(-100, 100, LENGTH)).astype(np.float32)
    position = {"start": 0, "middle": LENGTH // 2 + 17, "end": LENGTH - 1, "none": None}[where]
    if position is not None:
        x[position] = 0.0
    for source in (x, x.astype(np.float64)):
        (a, wa), (b, wb) = both_orders(mf, lambda: source.astype(mf.float8_e8m0fnu))
        assert (a == b).all() and wa == wb
        expected, flags = R.encode_array("float8_e8m0fnu", source)
        assert (a == expected).all()
        assert any("invalid" in w for w in wa) == (position is not None)


def test_bfloat16_both_ways(mf, kernel_set):
    x = float32_source("bfloat16", seed=3)
    (a, wa), (b, wb) = both_orders(mf, lambda: x.astype(mf.bfloat16))
    assert (a == b).all() and wa == wb
    expected, _ = R.encode_array("bfloat16", x)
    assert (a == expected).all()
    halves = a.view(mf.bfloat16)
    (c, _), (d, _) = both_orders(mf, lambda: halves.astype(np.float32))
    assert (c == d).all()
    assert (c.view(np.uint32) == a.astype(np.uint32) << 16).all()
