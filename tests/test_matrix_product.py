"""matmul's own float32 matrix product (csrc/kernels/matrix_product.h): every
sum starts from +0 and takes its products in the order of k, one fused
multiply-add each, whatever the kernel set, the tile edges, the blocking,
the operand layout and the thread count.

The reference is that order written out in float64: each step a * b + c is
exact in float64 for the operands used here (checked by `assert_exact`),
so rounding it to float32 is the fused multiply-add."""

import os
import warnings

import numpy as np
import pytest

import ufunc_reference as U
from kernel_sets import KERNEL_SETS, kernels

# shapes (n, k, m): tile edges of every kernel set (8 x 48, 4 x 24, 4 x 16),
# several slices of k (512 and 256 deep), blocks of C (96 x 528), and the
# narrow products that run turned (m of 1 to 3)
SHAPES = [(1, 1, 1), (3, 5, 2), (8, 64, 48), (9, 700, 49), (17, 1100, 25), (97, 40, 530), (200, 3, 1),
          (5, 300, 3), (1, 600, 100), (2, 0, 3)]
FORMATS = ["float8_e4m3fn", "float8_e5m2", "float6_e2m3fn", "bfloat16", "binary8p3se"]


@pytest.fixture(params=list(KERNEL_SETS))
def kernel_set(request, mf):
    if request.param != "portable" and request.param not in mf._core._cpu_kernel_sets():
        pytest.skip(f"this CPU has no {request.param}")
    with kernels(mf, request.param):
        yield request.param


@pytest.fixture(params=[1, 2])
def threads(request, mf):
    """1 thread, or 2 with small chunks so that even these products split."""
    before, chunk = mf.get_num_threads(), mf._core._thread_min_chunk_override()
    mf.set_num_threads(request.param)
    if request.param > 1:
        mf._core._set_thread_min_chunk(64)
    try:
        yield request.param
    finally:
        mf._core._set_thread_min_chunk(chunk)
        mf.set_num_threads(before)


def pool(name):
    """Finite codes with |v| in [2**-6, 2**6] and zero: products are
    multiples of a small power of two and sums stay far below 2**53 of it."""
    codes = U.unary_codes(name)
    v = U.decode(name, codes)
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(v) & (((np.abs(v) >= 2.0**-6) & (np.abs(v) <= 2.0**6)) | (v == 0))
    return codes[ok]


def lsb_exponent(values):
    """The exponent of the lowest set bit over the nonzero float64 values."""
    v = np.abs(values[values != 0])
    if v.size == 0:
        return 0
    m, e = np.frexp(v)
    mant = (m * 2.0**53).astype(np.int64)
    trailing = np.array([(int(x) & -int(x)).bit_length() - 1 for x in mant])
    return int((e - 53 + trailing).min())


def assert_exact(va, vb, k):
    """Every a * b + c of the reference is exact in float64: all values are
    multiples of 2**lsb and bounded by k * max|a| * max|b|."""
    lsb = lsb_exponent(va.ravel()) + lsb_exponent(vb.ravel())
    bound = max(k, 1) * float(np.abs(va).max(initial=0)) * float(np.abs(vb).max(initial=0))
    assert bound < 2.0 ** (lsb + 52), (lsb, bound)


def fma_in_order(va, vb):
    """float32 sums from +0, one fused multiply-add per product, k in order."""
    n, k = va.shape
    c = np.zeros((n, vb.shape[1]), np.float32)
    for kk in range(k):
        c = (np.multiply.outer(va[:, kk], vb[kk, :]) + c.astype(np.float64)).astype(np.float32)
    return c


def check(name, got, va, vb, ctx):
    assert_exact(va, vb, va.shape[1])
    exp = U.encode_codes(name, fma_in_order(va, vb).astype(np.float64).reshape(-1))
    ok = U.compare_codes(name, U.codes_of(got).reshape(-1).astype(np.int64), exp)
    assert ok.all(), (ctx, name, np.nonzero(~ok)[0][:5])


@pytest.mark.parametrize("name", FORMATS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_sums_in_the_order_of_k(mf, name, shape, kernel_set, threads):
    n, k, m = shape
    T = getattr(mf, name)
    rng = np.random.default_rng(n * 1000 + k * 10 + m)
    p = pool(name)
    ca, cb = rng.choice(p, (n, k)), rng.choice(p, (k, m))
    a, b = ca.view(T), cb.view(T)
    va, vb = U.decode(name, ca.reshape(-1)).reshape(n, k), U.decode(name, cb.reshape(-1)).reshape(k, m)
    with np.errstate(all="ignore"):
        check(name, a @ b, va, vb, "contiguous")
        # every layout: transposed (column-major) operands, strided views, a strided output
        check(name, np.asfortranarray(a) @ np.asfortranarray(b), va, vb, "fortran")
        wide_a, wide_b = np.repeat(a, 2, axis=1)[:, ::2], np.repeat(b, 3, axis=0)[::3]
        check(name, wide_a @ wide_b, va, vb, "strided")
        out = np.zeros((n, 2 * m), T)[:, ::2]
        np.matmul(a, b, out=out)
        check(name, out, va, vb, "strided out")


# (format, big, tiny): 2 * tiny is below half an ulp of big / 2 in float32,
# so in k's order every tiny product is absorbed by the running sum
ABSORBING = [("bfloat16", 2.0**8, 2.0**-20), ("float8_e5m2", 2.0**12, 2.0**-16)]


@pytest.mark.parametrize("name, big, tiny", ABSORBING, ids=[a[0] for a in ABSORBING])
@pytest.mark.parametrize("shape", [(9, 700, 49), (5, 1100, 2), (13, 40, 1), (1, 520, 30)],
                         ids=lambda s: "x".join(map(str, s)))
def test_absorbed_products_show_the_order(mf, name, big, tiny, shape, kernel_set, threads):
    """Rows [big, tiny, ..., tiny, -big, tiny, ...]: in k's order the running
    sum absorbs the tiny products before -big and keeps those after it;
    any other order (reversed, pairwise, partial sums per slice of k or per
    thread) ends elsewhere."""
    n, k, m = shape
    T = getattr(mf, name)
    rng = np.random.default_rng(k + m)
    va = tiny * rng.choice([-1.0, 1.0], (n, k))
    sign = rng.choice([-1.0, 1.0], n)
    cancel = k - 1 - k // 3
    va[:, 0], va[:, cancel] = big * sign, -big * sign
    vb = rng.choice([1.0, -1.0, 2.0, 0.5], (k, m))
    vb[cancel] = vb[0]  # big * b - big * b
    tail = va[:, cancel + 1:] @ vb[cancel + 1:]  # exact: small multiples of tiny / 2
    np.testing.assert_array_equal(fma_in_order(va, vb), tail.astype(np.float32))
    a, b = va.astype(np.float32).astype(T), vb.astype(np.float32).astype(T)
    check(name, a @ b, va, vb, "absorbed")
    check(name, np.asfortranarray(a) @ b, va, vb, "fortran")


@pytest.mark.parametrize("name", ["float8_e4m3fn", "bfloat16"])
def test_stacked_products_each_in_order(mf, name, kernel_set, threads):
    T = getattr(mf, name)
    rng = np.random.default_rng(7)
    p = pool(name)
    ca, cb = rng.choice(p, (3, 2, 13, 70)), rng.choice(p, (2, 70, 50))
    with np.errstate(over="ignore"):  # (sums past float8_e4m3fn's largest value round to NaN)
        got = ca.view(T) @ cb.view(T)  # (3, 2, 13, 50), b broadcast over the first axis
    for i in range(3):
        for j in range(2):
            va = U.decode(name, ca[i, j].reshape(-1)).reshape(13, 70)
            vb = U.decode(name, cb[j].reshape(-1)).reshape(70, 50)
            check(name, got[i, j], va, vb, f"stack {i},{j}")


def test_large_product_same_bits_for_every_thread_count_and_kernel_set(mf):
    """A product big enough for the real blocking (several blocks of C, two
    slices of k), random float8 values: the bits do not depend on how the
    work is split or which tiles ran."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((300, 1100)).astype(np.float32).astype(mf.float8_e4m3fn)
    b = rng.standard_normal((1100, 700)).astype(np.float32).astype(mf.float8_e4m3fn)
    before = mf.get_num_threads()
    results = {}
    try:
        for kernel_set in KERNEL_SETS:
            if kernel_set != "portable" and kernel_set not in mf._core._cpu_kernel_sets():
                continue
            with kernels(mf, kernel_set):
                for t in (1, 2, 3):
                    mf.set_num_threads(t)
                    results[(kernel_set, t)] = (a @ b).tobytes()
    finally:
        mf.set_num_threads(before)
    assert len(set(results.values())) == 1, sorted(results)
    va, vb = a.astype(np.float64), b.astype(np.float64)
    check("float8_e4m3fn", np.frombuffer(results[("portable", 1)], mf.float8_e4m3fn).reshape(300, 700), va, vb,
          "large")


def specials_case(mf, name, n, m, where):
    """A product whose only inf sits where a tile's padding meets it: row 0
    of A (`where` "a") or column 0 of B ("b"); every other value is 1."""
    T = getattr(mf, name)
    a = np.ones((n, 4), np.float32)
    b = np.ones((4, m), np.float32)
    if where == "a":
        a[0, 1] = np.inf
    else:
        b[2, 0] = np.inf
    return a.astype(T), b.astype(T)


@pytest.mark.parametrize("n, m", [(9, 49), (3, 2), (2, 3), (1, 50), (50, 1), (13, 5)])
@pytest.mark.parametrize("where", ["a", "b"])
def test_padding_raises_no_flag_beside_an_inf(mf, n, m, where, kernel_set):
    """0 x inf in a tile's padding lanes would raise "invalid"; the real sums
    (inf + 3) raise nothing, and neither may the product."""
    a, b = specials_case(mf, "float8_e5m2", n, m, where)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = (a @ b).astype(np.float32)
    exp = np.full((n, m), 4.0, np.float32)
    if where == "a":
        exp[0, :] = np.inf
    else:
        exp[:, 0] = np.inf
    np.testing.assert_array_equal(got, exp)


@pytest.mark.parametrize("n, m", [(9, 49), (2, 3), (50, 1)])
def test_inf_times_zero_in_the_sums_is_invalid(mf, n, m, kernel_set):
    a, b = specials_case(mf, "float8_e5m2", n, m, "a")
    b = b.copy()
    b[1, :] = np.zeros(m, np.float32).astype(mf.float8_e5m2)  # meets A's inf at k = 1
    with pytest.warns(RuntimeWarning, match="invalid"):
        got = (a @ b).astype(np.float32)
    assert np.isnan(got[0]).all()
    np.testing.assert_array_equal(got[1:], np.full((n - 1, m), 3.0, np.float32))


def test_failed_allocation_is_a_memory_error(mf):
    """The packed operands of a (4, 2**36) @ (2**36, 4) product would take 4
    TiB: MemoryError, not a crash (the loop runs without the GIL)."""
    if "libasan" in os.environ.get("LD_PRELOAD", ""):
        pytest.skip("under AddressSanitizer a failed operator new ends the process (as bad_inputs.ASAN_SKIP)")
    x = np.broadcast_to(np.ones(1, mf.float8_e4m3fn), (4, 2**36))
    with pytest.raises(MemoryError):
        np.matmul(x, x.T)
    assert float((np.ones((2, 3), mf.float8_e4m3fn) @ np.ones((3, 2), mf.float8_e4m3fn))[0, 0]) == 3.0


@pytest.mark.parametrize("shape", [(0, 5, 3), (4, 5, 0), (0, 0, 0)])
def test_empty_products(mf, shape):
    n, k, m = shape
    got = np.ones((n, k), mf.float8_e4m3fn) @ np.ones((k, m), mf.float8_e4m3fn)
    assert got.shape == (n, m)


def test_products_run_without_the_gil(mf):
    """Another Python thread runs while a product is being computed: it
    starts well before the product ends (with the GIL held, it could only
    start when the product returned). The decoding and rounding around
    NumPy's BLAS product held the GIL before; now nothing does."""
    import threading
    import time

    a = np.zeros((1024, 2048), mf.float8_e4m3fn)
    b = np.zeros((2048, 1024), mf.float8_e4m3fn)
    before = mf.get_num_threads()
    mf.set_num_threads(1)
    try:
        a @ b  # warm up
        start = time.perf_counter()
        a @ b
        alone = time.perf_counter() - start
        entered, times = threading.Event(), {}

        def product():
            entered.set()
            a @ b
            times["end"] = time.perf_counter()

        worker = threading.Thread(target=product)
        worker.start()
        entered.wait()
        times["main"] = time.perf_counter()  # needs the GIL
        worker.join()
    finally:
        mf.set_num_threads(before)
    assert times["end"] - times["main"] > alone / 4, (times, alone)
