"""Casts into the formats and operations on them round by the library's own
rules (nearest even for astype, the named mode for mf.cast, the exact
result rounded once for arithmetic), whatever rounding direction the
program set on the FPU with fesetround, and with x86's flush-to-zero and
denormals-are-zero bits set (torch.set_flush_denormal): the kernels that
lean on FPU arithmetic set the default modes for their own duration and put
the caller's back.

Each setting runs in a fresh interpreter, so the lazily made operation
tables are made under it too, and its digests must equal those made under
the default modes.
"""
import ctypes
import ctypes.util
import subprocess
import sys
import textwrap

import pytest

# <fenv.h> values on x86-64 and AArch64 glibc
DIRECTIONS = {
    "x86_64": {"nearest": 0x000, "down": 0x400, "up": 0x800, "toward_zero": 0xC00},
    "aarch64": {"nearest": 0x000000, "up": 0x400000, "down": 0x800000, "toward_zero": 0xC00000},
}

SCRIPT = textwrap.dedent(
    """
    import ctypes, ctypes.util, hashlib, sys, warnings
    import numpy as np
    import minifloat as mf

    warnings.simplefilter("ignore")
    np.seterr(all="ignore")

    def digest(*arrays):
        h = hashlib.sha256()
        for a in arrays:
            h.update(np.ascontiguousarray(a).view(np.uint8).tobytes())
        return h.hexdigest()[:16]

    rng = np.random.default_rng(7)
    upper = np.arange(1 << 16, dtype=np.uint32) << 16
    x32 = np.concatenate([upper, upper + (1 << 15), upper - 1]).view(np.float32)
    x64 = x32.astype(np.float64) * (1 + 2.0**-40)
    w = rng.standard_normal((64, 256)).astype(np.float32)
    normals = rng.standard_normal((2, 1 << 14)).astype(np.float32)
    # the inputs above are made under the default modes; the rest under the ones asked for
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    assert libm.fesetround(int(sys.argv[1])) == 0
    if sys.argv[3] == "flush":
        assert mf._core._set_flush_to_zero(True) is False
    out = []
    for name in sys.argv[2].split(","):
        T = getattr(mf, name)
        out.append((name, "astype", digest(x32.astype(T), x64.astype(T))))
        for mode in ("nearest_even", "nearest_away", "toward_zero", "up", "down"):
            out.append((name, mode, digest(mf.cast(x32, T, rounding=mode), mf.cast(x64, T, rounding=mode))))
        if np.dtype(T).itemsize == 1:
            codes = np.arange(256, dtype=np.uint8).view(T)
            a, b = np.repeat(codes, 256), np.tile(codes, 256)
            out.append((name, "pairs", digest(a + b, a - b, a * b, a / b, np.power(a, b), np.hypot(a, b))))
            out.append((name, "rows", digest(codes * 3.0, 1.0 / codes, codes ** 2, np.sqrt(codes))))
        else:
            v, u = normals[0].astype(T), normals[1].astype(T)
            out.append((name, "arith", digest(v + u, v - u, v * u, v / u, np.sqrt(np.abs(v)))))
        s = T(1.5)
        out.append((name, "scalars", repr((s / T(3.0), s * T(0.1), s + T(1e-3)))))
        everything = np.arange(1 << (8 * np.dtype(T).itemsize), dtype=np.uint16 if np.dtype(T).itemsize == 2 else np.uint8)
        out.append((name, "widen", digest(everything.view(T).astype(np.float64), everything.view(T).astype(np.float32))))
        other = mf.float8_e5m2 if name == "float8_e4m3fn" else mf.float8_e4m3fn
        out.append((name, "between", digest(x32.astype(T).astype(other))))
    out.append(("mx", "quantize", digest(mf.mx.quantize(w, "mxfp8_e4m3").data, mf.mx.quantize(w, "nvfp4").data)))
    for row in out:
        print(*row)
    """
)

FORMATS = ["float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e4m3", "float8_e3m4",
           "float8_e4m3b11fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn", "bfloat16"]


def _directions():
    import platform

    machine = platform.machine().lower()
    if machine in ("amd64", "x64"):
        machine = "x86_64"
    if machine == "arm64":
        machine = "aarch64"
    if machine not in DIRECTIONS or ctypes.util.find_library("m") is None:
        pytest.skip("needs glibc's fesetround on x86-64 or AArch64")
    return DIRECTIONS[machine]


def _run(direction_value, flush=False):
    result = subprocess.run([sys.executable, "-c", SCRIPT, str(direction_value), ",".join(FORMATS),
                             "flush" if flush else "keep"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.splitlines()


@pytest.fixture(scope="module")
def under_nearest():
    return _run(_directions()["nearest"])


def _same(got, expected):
    assert len(got) == len(expected)
    differing = [(a, b) for a, b in zip(got, expected) if a != b]
    assert not differing, differing[:5]


@pytest.mark.parametrize("direction", ["toward_zero", "up", "down"])
def test_same_bits_under_every_rounding_direction(direction, under_nearest):
    _same(_run(_directions()[direction]), under_nearest)


def test_same_bits_with_flush_to_zero(mf, under_nearest):
    if mf._core._set_flush_to_zero(False) is None:
        pytest.skip("no MXCSR on this CPU")
    _same(_run(_directions()["toward_zero"], flush=True), under_nearest)
