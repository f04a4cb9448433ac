"""Benchmark groups of quantization (13-16 of benchmarks/run.py, issue 17),
each case timed side by side with its baseline:

13. MXArray.dequantize() of every MX/NVFP4 format against decoding the same
    element codes with astype(float32) (target: at most 1.5x).
14. mf.cast(rounding="stochastic") of every format from float32 and float64
    against the same format's astype (target: at most 2x).
15. mf.pack / mf.unpack against NumPy copying the unpacked codes, and
    mf.cast(packed=True) against astype (targets: at most 1.5x).
16. mf.mx.matmul of 512 x 512 MX operands against dequantizing both and a
    float32 matmul (target: at most 2x).

run.py appends groups(Group, Ref) to its GROUPS.
"""
import numpy as np

import minifloat as mf

MATMUL_SIZE = 512
PACK_FORMATS = ["float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e4m3fn", "bfloat16"]
WITHIN_1_5X = 1 / 1.5  # baseline ms / minifloat ms
WITHIN_2X = 1 / 2


def _dtype(name):
    return np.dtype(getattr(mf, name))


def dequantize_cases(add, data, Ref):
    """MXArray.dequantize() of one standard-normal input quantized once per
    format, against astype(float32) of the same element codes."""
    for fmt in mf.mx.FORMATS:
        def quantized(fmt=fmt):
            return mf.mx.quantize(data.x32("bfloat16"), fmt)

        def mf_dequantize(fmt=fmt):
            return quantized(fmt).dequantize

        def astype_codes(fmt=fmt):
            codes = quantized(fmt).data
            return lambda: codes.astype(np.float32)

        add(f"dequantize {fmt}", mf_dequantize, Ref("ref", "codes astype f32", astype_codes, WITHIN_1_5X))


def stochastic_cases(add, data, Ref):
    """mf.cast(rounding="stochastic") from float32 and float64 against the
    same format's astype (round to nearest even) of the same input."""
    for name in mf.FORMAT_NAMES:
        for source, label in ((data.x32, "f32"), (data.x64, "f64")):
            def stochastic(name=name, source=source):
                x, dt = source(name), _dtype(name)
                rng = np.random.default_rng(0)
                return lambda: mf.cast(x, dt, rounding="stochastic", rng=rng)

            def astype(name=name, source=source):
                x, dt = source(name), _dtype(name)
                return lambda: x.astype(dt)

            add(f"stochastic {label} -> {name}", stochastic, Ref("ref", "mf astype", astype, WITHIN_2X))


def packing_cases(add, data, Ref):
    """mf.pack / mf.unpack of x32(name)'s codes against NumPy copying those
    codes; mf.cast(packed=True) against astype."""
    for name in PACK_FORMATS:
        def pack(name=name):
            a = data.codes(name).view(_dtype(name))
            return lambda: mf.pack(a)

        def unpack(name=name):
            a = data.codes(name).view(_dtype(name))
            packed, dt, n = mf.pack(a), _dtype(name), a.size
            return lambda: mf.unpack(packed, dt, n)

        def copy_codes(name=name):
            codes = data.codes(name)
            return lambda: codes.copy()

        def cast_packed(name=name):
            x, dt = data.x32(name), _dtype(name)
            return lambda: mf.cast(x, dt, packed=True)

        def astype(name=name):
            x, dt = data.x32(name), _dtype(name)
            return lambda: x.astype(dt)

        add(f"mf.pack {name}", pack, Ref("ref", "np codes copy", copy_codes, WITHIN_1_5X))
        add(f"mf.unpack {name}", unpack, Ref("ref", "np codes copy", copy_codes, WITHIN_1_5X))
        add(f"mf.cast packed=True f32 -> {name}", cast_packed, Ref("ref", "mf astype", astype, WITHIN_1_5X))


def matmul_cases(add, data, Ref):
    """mf.mx.matmul of two 512 x 512 operands against dequantizing both and
    a float32 matmul (the float32 matmul alone reported)."""
    for fmt in ("mxfp8_e4m3", "mxfp4_e2m1", "mxint8"):
        def operands(fmt=fmt):
            rng = np.random.default_rng(99)
            a = rng.standard_normal((MATMUL_SIZE, MATMUL_SIZE), dtype=np.float32)
            b = rng.standard_normal((MATMUL_SIZE, MATMUL_SIZE), dtype=np.float32)
            return mf.mx.quantize(a, fmt, axis=-1), mf.mx.quantize(b, fmt, axis=0)

        def mx_matmul(fmt=fmt):
            qa, qb = operands(fmt)
            return lambda: mf.mx.matmul(qa, qb)

        def dequantize_matmul(fmt=fmt):
            qa, qb = operands(fmt)
            return lambda: qa.dequantize() @ qb.dequantize()

        add(f"mx.matmul {fmt}", mx_matmul, Ref("ref", "deq + f32 A@B", dequantize_matmul, WITHIN_2X))


def groups(Group, Ref):
    """The quantization groups, for run.py's GROUPS (Group and Ref are
    run.py's, passed in: run.py may be loaded as __main__)."""
    def build(cases):
        return lambda add, data, torch: cases(add, data, Ref)

    return [
        Group(13, "MX/NVFP4 dequantize", "astype(float32) of the element codes / dequantize >= 0.67x "
              "(minifloat at most 1.5x)", build(dequantize_cases)),
        Group(14, "stochastic rounding", "same-format astype / mf.cast(rounding='stochastic') >= 0.5x "
              "(at most 2x)", build(stochastic_cases)),
        Group(15, "packing", "NumPy copying the codes / mf.pack, mf.unpack >= 0.67x; astype / "
              "mf.cast(packed=True) >= 0.67x (at most 1.5x)", build(packing_cases)),
        Group(16, f"{MATMUL_SIZE}x{MATMUL_SIZE} MX matmul", "dequantize both + float32 matmul / "
              "mf.mx.matmul >= 0.5x (at most 2x)", build(matmul_cases)),
    ]
