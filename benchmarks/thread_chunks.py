"""The smallest array worth splitting, per kind of work (csrc/kernels/thread_pool.cpp's
min_chunk): for sizes n, the best of many alternating rounds of one call on
one thread against the same call split in two (forced with
minifloat._core._set_thread_min_chunk(n // 2), which also makes the caller
wait until its helper has joined: the slow case). Prints the ratio
(1 thread / 2 threads) per size; a kind's minimum chunk is about half the
smallest n from which the ratio stays above 1.

    python benchmarks/thread_chunks.py [--rounds 15]
"""
import argparse
import time

import numpy as np

import minifloat as mf


def cases():
    rng = np.random.default_rng(0)

    def make(n):
        x = rng.standard_normal(n).astype(np.float32)
        a = rng.integers(0, 256, n).astype(np.uint8).view(mf.float8_e4m3fn)
        bf = rng.integers(0, 1 << 16, n).astype(np.uint16).view(mf.bfloat16)
        f4 = rng.integers(0, 16, n).astype(np.uint8).view(mf.float4_e2m1fn)
        m = x[: n // 256 * 256].reshape(-1, 256)
        return {
            "cast": lambda: x.astype(mf.float8_e4m3fn),
            "stochastic": lambda: mf.cast(x, mf.float8_e4m3fn, rounding="stochastic", rng=1),
            "elementwise": lambda: np.add(a, a),
            "exact_math": lambda: np.exp(bf),
            "blocks": lambda: mf.mx.quantize(m, "mxfp4_e2m1"),
            "packing": lambda: mf.pack(f4),
        }
    return make


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    make = cases()
    sizes = [1 << k for k in range(12, 21)]
    before = mf.get_num_threads()
    with np.errstate(all="ignore"):
        for kind in make(4096):
            line = []
            for n in sizes:
                op = make(n)[kind]
                one, two = [], []
                for _ in range(args.rounds):
                    mf.set_num_threads(1)
                    t = time.perf_counter(); op(); one.append(time.perf_counter() - t)
                    mf.set_num_threads(2)
                    mf._core._set_thread_min_chunk(n // 2)
                    t = time.perf_counter(); op(); two.append(time.perf_counter() - t)
                    mf._core._set_thread_min_chunk(0)
                line.append(f"{n}:{min(one) / min(two):.2f}")
            print(f"{kind:12s}", " ".join(line), flush=True)
    mf.set_num_threads(before)


if __name__ == "__main__":
    main()
