"""Quantization error of every mf.mx format on a standard-normal sample.

Prints a markdown table (the one in docs/quantization.md): for each format and scale
mode, the mean relative error mean(|q - x| / |x|) and the relative RMS error
||q - x|| / ||x||, q = dequantize(quantize(x)), x = 2^20 standard-normal
float32 values (seed 0), default block sizes.

    python benchmarks/mx_error.py [--n N] [--seed S]
"""
import argparse

import numpy as np

import minifloat as mf


def errors(x, fmt, scale_mode):
    kwargs = {} if fmt == "nvfp4" else {"scale_mode": scale_mode}
    q = mf.mx.quantize(x, fmt, **kwargs)
    d = q.dequantize(np.float64)
    x64 = x.astype(np.float64)
    nonzero = x64 != 0
    mean_relative = float(np.mean(np.abs(d - x64)[nonzero] / np.abs(x64[nonzero])))
    rms_relative = float(np.sqrt(np.sum((d - x64) ** 2) / np.sum(x64**2)))
    return q, mean_relative, rms_relative


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1 << 20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    x = np.random.default_rng(args.seed).standard_normal(args.n).astype(np.float32)
    print("| format | elements | block | floor | ceil | even | rceil |")
    print("|---|---|---|---|---|---|---|")
    for fmt in mf.mx.FORMATS:
        cells = []
        q = None
        for mode in mf.mx.SCALE_MODES:
            if fmt == "nvfp4" and mode != "floor":
                cells.append("—")
                continue
            q, mean_relative, rms_relative = errors(x, fmt, mode)
            cells.append(f"{100 * mean_relative:.2f}% / {100 * rms_relative:.2f}%")
        print(f"| {fmt} | {q.data.dtype} | {q.block_size} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
