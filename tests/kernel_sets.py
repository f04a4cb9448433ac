"""The kernel sets a test can switch minifloat to (the hand-written AVX-512
and AVX2 kernels, the portable ones), shared by the tests that compare them."""
from contextlib import contextmanager

# kernel set -> (AVX-512 kernels enabled, AVX2 kernels enabled)
KERNEL_SETS = {"avx512": (True, True), "avx2": (False, True), "portable": (False, False)}


@contextmanager
def kernels(mf, kernel_set):
    """Run the block with minifloat's kernels of `kernel_set` (one of
    KERNEL_SETS), then restore the ones before."""
    avx512, avx2 = KERNEL_SETS[kernel_set]
    previous = mf._core._set_avx512_kernels(avx512), mf._core._set_avx2_kernels(avx2)
    try:
        yield
    finally:
        mf._core._set_avx512_kernels(previous[0])
        mf._core._set_avx2_kernels(previous[1])
