#!/usr/bin/env python
"""Benchmark minifloat against ml_dtypes (and torch when importable), side by side.

    python benchmarks/run.py [--check] [--full] [--readme [README.md]] [--out PATH.md]
                             [--chart PATH.png] [--n N] [--repeat R] [--only SUBSTRING]

Prints a verdict first (targets met and missed, per group its slowest ratio
against its target and what this machine's memory floor allows), then a table
of groups; the per-case table goes to the markdown file (--full prints it too).

Every ratio, in every table and the chart, is ``baseline time / minifloat
time``: a speedup, above 1 when minifloat is faster; every target is
"ratio >= X". See benchmarks/README.md for the columns and the targets.
"""
import os

# Single-threaded, before numpy (and its BLAS) is imported.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse
import datetime
import functools
import gc
import importlib
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable, List, Optional

import numpy as np

import minifloat as mf

try:
    import ml_dtypes as md
except Exception:  # pragma: no cover - the harness still runs, baselines are n/a
    md = None

HERE = os.path.dirname(os.path.abspath(__file__))
README = os.path.join(os.path.dirname(HERE), "README.md")
README_BEGIN = "<!-- benchmark results: begin (written by `python benchmarks/run.py --readme`; do not edit) -->"
README_END = "<!-- benchmark results: end -->"
DEFAULT_N = 4_194_304
DEFAULT_REPEAT = 7
MATMUL_SIZE = 512
# Stop repeating a callable once it has used this much time (after >= MIN_REPEAT runs).
TIME_CAP_S = 1.5
MIN_REPEAT = 3
# Fast callables: keep repeating (up to EXTEND x --repeat runs) until this much time
# was spent, so sub-millisecond timings are not at the mercy of one noisy run.
MIN_TIME_S = 0.2
EXTEND = 10
# A reachable miss by less than this fraction of its target is timed once
# more with RECHECK_FACTOR x the rounds (both sides, alternating): on these
# shared VMs one spell of load moves a case by more than that, and the best
# of more rounds is the better estimate of an undisturbed call. The report
# names the cases looked at again.
RECHECK_MARGIN = 0.10
RECHECK_FACTOR = 3

ALL = list(mf.FORMAT_NAMES)
NON_BF16 = [f for f in ALL if f != "bfloat16"]
EIGHT_BIT = [f for f in NON_BF16 if f.startswith("float8_")]
STRIDED = ["float8_e4m3fn", "float8_e5m2", "float6_e2m3fn", "float4_e2m1fn"]
MATMUL_FORMATS = ["float8_e4m3fn", "float8_e5m2"]
TORCH_FP8 = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
             "float8_e8m0fnu"]
CAST_FORMATS = ["float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "float6_e2m3fn", "float4_e2m1fn"]
CAST_MODES = ["nearest_even", "nearest_away", "toward_zero", "up", "down"]

# The byte movements benchmarks/memory_floor.c times with no conversion at
# all (its N is 4,194,304): the least time any kernel needs for a case that
# moves the same bytes. Keys are Case.traffic values.
MEMORY_FLOOR_C = os.path.join(HERE, "memory_floor.c")
MEMORY_FLOOR_N = 4_194_304
TRAFFIC = {
    "widen": "bytes -> float32 (4 MB in, 16 MB out)",
    "byte_pair": "two byte arrays in, one out (the byte maximum)",
    "f64_byte": "float64 -> one byte each (32 MB in)",
}


# --------------------------------------------------------------------------
# inputs
# --------------------------------------------------------------------------
def mf_dtype(name):
    return np.dtype(getattr(mf, name))


def md_dtype(name):
    if md is None:
        raise ImportError("ml_dtypes is not installed")
    if not hasattr(md, name):
        raise AttributeError(f"ml_dtypes has no {name}")
    return np.dtype(getattr(md, name))


def scale_of(name):
    """Per-format scale of the standard-normal input."""
    if name == "bfloat16":
        return 1.0
    return float(np.finfo(mf_dtype(name)).max) / 4.0


def _seed(name, salt):
    return (sum(name.encode()) * 1009 + salt) % (2**32)


def make_f32(name, n, salt=0):
    """float32 input covering format `name` sensibly.

    Signed formats: standard normal * finfo.max / 4 (so ~0.006% saturate).
    float8_e8m0fnu (unsigned, powers of two): 2 ** (16 * standard normal),
    i.e. exponents spread over the format's range.  bfloat16: standard normal.
    The other unsigned formats (P3109's u formats): |standard normal| *
    finfo.max / 4 (negative values would be invalid inputs, NaN).
    """
    rng = np.random.default_rng(_seed(name, salt))
    z = rng.standard_normal(n, dtype=np.float32)
    if name == "float8_e8m0fnu":
        return np.exp2(z * np.float32(16.0))
    if name in mf.FORMAT_NAMES and not mf.format_info(name)["is_signed"]:
        z = np.abs(z)
    return z * np.float32(scale_of(name))


def _code_bytes(codes):
    """A minifloat array's codes as NumPy's unsigned integers of its width."""
    return codes.view(np.uint16 if codes.dtype.itemsize == 2 else np.uint8)


class Data:
    """Lazily built, lightly cached inputs (one format at a time stays in memory)."""

    def __init__(self, n):
        self.n = n

    @functools.lru_cache(maxsize=4)
    def x32(self, name, salt=0):
        return make_f32(name, self.n, salt)

    @functools.lru_cache(maxsize=2)
    def x64(self, name):
        return self.x32(name).astype(np.float64)

    @functools.lru_cache(maxsize=2)
    def x32_base2(self, name):
        """2N-element float32 base; [::2] is the N-element strided view."""
        return make_f32(name, 2 * self.n, salt=7)

    @functools.lru_cache(maxsize=6)
    def codes(self, name, salt=0, source=None):
        """Format `name`'s codes (uint8; bfloat16: uint16) of x32(source or
        name, salt), made by minifloat. Every library's array is a view of
        these same bytes, so each reads the same memory (where an input lies
        moves memory-bound timings by tens of %)."""
        return _code_bytes(self.x32(source or name, salt).astype(mf_dtype(name)))

    @functools.lru_cache(maxsize=2)
    def codes_base2(self, name):
        """codes() of the 2N-element strided base."""
        return _code_bytes(self.x32_base2(name).astype(mf_dtype(name)))

    def clear(self):
        for m in (Data.x32, Data.x64, Data.x32_base2, Data.codes, Data.codes_base2):
            m.cache_clear()


# --------------------------------------------------------------------------
# cases
# --------------------------------------------------------------------------
@dataclass
class Ref:
    key: str                      # "ml" (ml_dtypes) or "ref" (the other baseline)
    label: str                    # e.g. "ml_dtypes", "np f32->u8", "torch"
    factory: Callable[[], Callable[[], object]]
    target: Optional[float]       # required baseline/minifloat ratio, None = report only
    # NumPy's own plain byte operation moving the same bytes as the minifloat
    # call with nothing to convert (a copy, a widening, a byte max): a
    # measurement of the memory floor under any kernel for the case
    floor: bool = False
    ms: Optional[float] = None
    error: Optional[str] = None


@dataclass
class Case:
    group: int
    name: str
    mf_factory: Callable[[], Callable[[], object]]
    refs: List[Ref] = field(default_factory=list)
    # which byte movement of benchmarks/memory_floor.c this case performs
    # at least (a key of TRAFFIC), if any
    traffic: Optional[str] = None
    memory_floor_ms: Optional[float] = None  # memory_floor.c's time for that movement
    mf_ms: Optional[float] = None
    mf_error: Optional[str] = None

    @property
    def label(self):
        return f"[{self.group}] {self.name}"

    def ref(self, key):
        for r in self.refs:
            if r.key == key:
                return r
        return None


@dataclass
class Group:
    """A numbered group of cases: `build(add, data, torch)` calls
    `add(name, mf_factory, *refs, traffic=None)` once per case."""
    number: int
    title: str
    targets: str
    build: Callable


def first_line(exc):
    text = f"{type(exc).__name__}: {exc}".strip()
    return text.splitlines()[0] if text else type(exc).__name__


def float32_cases(add, data, torch):
    """float32 <-> F, with NumPy's uint8 casts of the same bytes."""
    for f in NON_BF16:
        def mf_f32_to(f=f):
            x, dt = data.x32(f), mf_dtype(f)
            return lambda: x.astype(dt)

        def md_f32_to(f=f):
            x, dt = data.x32(f), md_dtype(f)
            return lambda: x.astype(dt)

        def np_f32_to_u8(f=f):
            x = data.x32(f)
            return lambda: x.astype(np.uint8)

        add(f"f32 -> {f}", mf_f32_to,
            Ref("ml", "ml_dtypes", md_f32_to, 20.0),
            Ref("ref", "np f32->u8", np_f32_to_u8, 0.5, floor=True))

        def mf_to_f32(f=f):
            a = data.codes(f).view(mf_dtype(f))
            return lambda: a.astype(np.float32)

        def md_to_f32(f=f):
            a = data.codes(f).view(md_dtype(f))
            return lambda: a.astype(np.float32)

        def np_u8_to_f32(f=f):
            u = data.codes(f)
            return lambda: u.astype(np.float32)

        add(f"{f} -> f32", mf_to_f32,
            Ref("ml", "ml_dtypes", md_to_f32, 20.0),
            Ref("ref", "np u8->f32", np_u8_to_f32, 0.5, floor=True), traffic="widen")


def float64_cases(add, data, torch):
    """float64 -> F. NumPy's float64 -> uint8 is a conversion (slower than the
    bytes it moves), so it is reported, not a floor: memory_floor.c's is."""
    for f in NON_BF16:
        def mf_f64(f=f):
            x, dt = data.x64(f), mf_dtype(f)
            return lambda: x.astype(dt)

        def md_f64(f=f):
            x, dt = data.x64(f), md_dtype(f)
            return lambda: x.astype(dt)

        def np_f64_to_u8(f=f):
            x = data.x64(f)
            return lambda: x.astype(np.uint8)

        add(f"f64 -> {f}", mf_f64, Ref("ml", "ml_dtypes", md_f64, 15.0),
            Ref("ref", "np f64->u8", np_f64_to_u8, None), traffic="f64_byte")


def cross_format_cases(add, data, torch):
    for f in ALL:
        g = "float8_e5m2" if f == "float8_e4m3fn" else "float8_e4m3fn"

        def mf_cross(f=f, g=g):
            a, dt = data.codes(f).view(mf_dtype(f)), mf_dtype(g)
            return lambda: a.astype(dt)

        def md_cross(f=f, g=g):
            a, dt = data.codes(f).view(md_dtype(f)), md_dtype(g)
            return lambda: a.astype(dt)

        add(f"{f} -> {g}", mf_cross, Ref("ml", "ml_dtypes", md_cross, 30.0))


def strided_cases(add, data, torch):
    """Step-2 views of 2N-element bases; N elements converted."""
    for f in STRIDED:
        def mf_s_to(f=f):
            x, dt = data.x32_base2(f)[::2], mf_dtype(f)
            return lambda: x.astype(dt)

        def md_s_to(f=f):
            x, dt = data.x32_base2(f)[::2], md_dtype(f)
            return lambda: x.astype(dt)

        add(f"f32[::2] -> {f}", mf_s_to, Ref("ml", "ml_dtypes", md_s_to, 10.0))

        def mf_s_from(f=f):
            a = data.codes_base2(f).view(mf_dtype(f))[::2]
            return lambda: a.astype(np.float32)

        def md_s_from(f=f):
            a = data.codes_base2(f).view(md_dtype(f))[::2]
            return lambda: a.astype(np.float32)

        add(f"{f}[::2] -> f32", mf_s_from, Ref("ml", "ml_dtypes", md_s_from, 10.0))


def bfloat16_cases(add, data, torch):
    bf = "bfloat16"

    def mf_bf_to():
        x, dt = data.x32(bf), mf_dtype(bf)
        return lambda: x.astype(dt)

    def md_bf_to():
        x, dt = data.x32(bf), md_dtype(bf)
        return lambda: x.astype(dt)

    def mf_bf_from():
        a = data.codes(bf).view(mf_dtype(bf))
        return lambda: a.astype(np.float32)

    def md_bf_from():
        a = data.codes(bf).view(md_dtype(bf))
        return lambda: a.astype(np.float32)

    def bf_add(dtype_of):
        def factory():
            a = data.codes(bf).view(dtype_of(bf))
            b = data.codes(bf, 1).view(dtype_of(bf))
            return lambda: a + b
        return factory

    # NumPy's own casts between float32 and uint16 move the same bytes as the
    # bfloat16 casts (which are shifts): the floor both libraries sit near
    def np_f32_to_u16():
        x = data.x32(bf)
        return lambda: x.astype(np.uint16)

    def np_u16_to_f32():
        a = data.codes(bf)
        return lambda: a.astype(np.float32)

    add("f32 -> bfloat16", mf_bf_to, Ref("ml", "ml_dtypes", md_bf_to, 1.0),
        Ref("ref", "np f32->u16", np_f32_to_u16, None, floor=True))
    add("bfloat16 -> f32", mf_bf_from, Ref("ml", "ml_dtypes", md_bf_from, 1.0),
        Ref("ref", "np u16->f32", np_u16_to_f32, None, floor=True))
    add("bfloat16 a + b", bf_add(mf_dtype), Ref("ml", "ml_dtypes", bf_add(md_dtype), 1.0))

    # what a new-user trial found slow: a Python-float scalar operand (ReLU),
    # a reduction along the leading axis, a running sum, a strided copy
    everyday = [
        ("np.maximum(x, 0.0)", lambda a: (lambda: np.maximum(a, 0.0))),
        ("x > 0.0", lambda a: (lambda: a > 0.0)),
        ("x.reshape(2048, -1).sum(axis=0)", lambda a: (lambda: a.reshape(2048, -1).sum(axis=0))),
        ("np.cumsum(x)", lambda a: (lambda: np.cumsum(a))),
        ("x[::2].copy()", lambda a: (lambda: a[::2].copy())),
    ]
    for opname, op in everyday:
        def bf_everyday(dtype_of, op=op):
            def make():
                return op(data.codes(bf).view(dtype_of(bf)))
            return make

        add(f"bfloat16 {opname}", bf_everyday(mf_dtype), Ref("ml", "ml_dtypes", bf_everyday(md_dtype), 1.0))


# Group 6: (label, operation, NumPy's uint8 operation on the same bytes, whether
# that one moves the bytes at memory speed with nothing to compute (a floor)).
# Division is paired with NumPy's uint8 floor division (a division of the same
# bytes, compute-bound: reported, not a floor), a.sum() with NumPy's own sum of
# the same bytes (which widens each to a 64-bit integer: not a floor either).
EIGHT_BIT_OPS = [
    ("a + b", lambda a, b: (lambda: a + b), "a + b", lambda a, b: (lambda: a + b), True),
    ("a - b", lambda a, b: (lambda: a - b), "a - b", lambda a, b: (lambda: a - b), True),
    ("a * b", lambda a, b: (lambda: a * b), "a * b", lambda a, b: (lambda: a * b), True),
    ("a / b", lambda a, b: (lambda: a / b), "a // b", lambda a, b: (lambda: a // b), False),
    ("a < b", lambda a, b: (lambda: a < b), "a < b", lambda a, b: (lambda: a < b), True),
    ("a == b", lambda a, b: (lambda: a == b), "a == b", lambda a, b: (lambda: a == b), True),
    ("np.maximum(a, b)", lambda a, b: (lambda: np.maximum(a, b)),
     "np.maximum(a, b)", lambda a, b: (lambda: np.maximum(a, b)), True),
    ("a.sum()", lambda a, b: (lambda: a.sum()), "a.sum()", lambda a, b: (lambda: a.sum()), False),
]


def eight_bit_op_cases(add, data, torch):
    for f in EIGHT_BIT:
        for opname, op, u8_name, u8_op, u8_is_floor in EIGHT_BIT_OPS:
            def factory(dtype_of, f=f, op=op):
                def make():
                    dt = dtype_of(f)
                    a = data.codes(f).view(dt)
                    b = data.codes(f, 1).view(dt)
                    return op(a, b)
                return make

            def np_u8(f=f, op=u8_op):
                return op(data.codes(f), data.codes(f, 1))

            add(f"{f} {opname}", factory(mf_dtype),
                Ref("ml", "ml_dtypes", factory(md_dtype), 20.0),
                Ref("ref", f"np u8 {u8_name}", np_u8, None, floor=u8_is_floor),
                traffic="byte_pair" if opname != "a.sum()" else None)


def matmul_cases(add, data, torch):
    for f in MATMUL_FORMATS:
        def mm(dtype_of, f=f):
            def make():
                rng = np.random.default_rng(_seed(f, 99))
                A32 = rng.standard_normal((MATMUL_SIZE, MATMUL_SIZE), dtype=np.float32)
                B32 = rng.standard_normal((MATMUL_SIZE, MATMUL_SIZE), dtype=np.float32)
                if dtype_of is None:   # float32 matmul of the same (rounded) values
                    dt = mf_dtype(f)
                    A = A32.astype(dt).astype(np.float32)
                    B = B32.astype(dt).astype(np.float32)
                else:
                    dt = dtype_of(f)
                    A, B = A32.astype(dt), B32.astype(dt)
                return lambda: A @ B
            return make

        add(f"{f} A @ B", mm(mf_dtype),
            Ref("ml", "ml_dtypes", mm(md_dtype), None),
            Ref("ref", "np f32 A@B", mm(None), 1 / 1.5))


def torch_cases(add, data, torch):
    if torch is None:
        return
    for f in TORCH_FP8:
        if not hasattr(torch, f):
            continue
        tdt = getattr(torch, f)

        def mf_to(f=f):
            x, dt = data.x32(f), mf_dtype(f)
            return lambda: x.astype(dt)

        def t_to(f=f, tdt=tdt):
            t32 = torch.from_numpy(data.x32(f))
            return lambda: t32.to(tdt)

        def mf_from(f=f):
            a = data.codes(f).view(mf_dtype(f))
            return lambda: a.astype(np.float32)

        def t_from(f=f, tdt=tdt):
            t8 = torch.from_numpy(data.codes(f)).view(tdt)
            return lambda: t8.to(torch.float32)

        add(f"torch f32 -> {f}", mf_to, Ref("ref", "torch", t_to, 1.0))
        add(f"torch {f} -> f32", mf_from, Ref("ref", "torch", t_from, 1.0))


def rounding_mode_cases(add, data, torch):
    """mf.cast with an explicit rounding mode / saturation vs the same astype."""
    def astype_of(f, source):
        def make():
            x, dt = source(f), mf_dtype(f)
            return lambda: x.astype(dt)
        return make

    for f in CAST_FORMATS:
        for mode in CAST_MODES:
            def mf_cast(f=f, mode=mode):
                x, dt = data.x32(f), mf_dtype(f)
                return lambda: mf.cast(x, dt, rounding=mode)

            add(f"mf.cast f32 -> {f} {mode}", mf_cast,
                Ref("ref", "mf astype", astype_of(f, data.x32), 0.5))
    for mode in CAST_MODES:
        def mf_cast64(mode=mode):
            x, dt = data.x64("float8_e4m3fn"), mf_dtype("float8_e4m3fn")
            return lambda: mf.cast(x, dt, rounding=mode, saturate=True)

        add(f"mf.cast f64 -> float8_e4m3fn {mode} saturate", mf_cast64,
            Ref("ref", "mf astype", astype_of("float8_e4m3fn", data.x64), 0.5))


def mx_quantize_cases(add, data, torch):
    """Block quantization of N float32 values. One standard-normal input is
    shared by each quantize and its baseline, so both read the same memory
    (page placement moves timings by tens of %)."""
    def f32_to_e4m3fn():
        x = data.x32("bfloat16")
        return lambda: x.astype(mf.float8_e4m3fn)

    quantize_cases = [(fmt, "floor") for fmt in mf.mx.FORMATS]
    quantize_cases += [("mxfp8_e4m3", mode) for mode in ("ceil", "even", "rceil")]
    for fmt, mode in quantize_cases:
        def mf_quantize(fmt=fmt, mode=mode):
            x = data.x32("bfloat16")
            kwargs = {} if fmt == "nvfp4" else {"scale_mode": mode}
            return lambda: mf.mx.quantize(x, fmt, **kwargs)

        label = f"mx.quantize {fmt}" + ("" if mode == "floor" else f" scale_mode={mode}")
        add(label, mf_quantize, Ref("ref", "f32->e4m3fn", f32_to_e4m3fn, 1 / 3))


def everyday_cases(add, data, torch):
    """Everyday operations on float8_e4m3fn: a scalar operand, reductions to
    one element, positions, sorting (reported, not targets); standard normal
    input, so no NaN (which would end a max or argmax at once)."""
    everyday = [
        ("x > 0", lambda x: (lambda: x > 0)),
        ("np.maximum(x, 0)", lambda x: (lambda: np.maximum(x, 0))),
        ("x * 2.0", lambda x: (lambda: x * 2.0)),
        ("np.clip(x, -1, 1)", lambda x: (lambda: np.clip(x, -1, 1))),
        ("x.max()", lambda x: (lambda: x.max())),
        ("np.argmax(x)", lambda x: (lambda: np.argmax(x))),
        ("x.mean()", lambda x: (lambda: x.mean())),
        ("np.sort(x)", lambda x: (lambda: np.sort(x))),
        ("x.astype(np.float16)", lambda x: (lambda: x.astype(np.float16))),
        ("x.astype(np.int8)", lambda x: (lambda: x.astype(np.int8))),
        ("x.astype(np.int32)", lambda x: (lambda: x.astype(np.int32))),
    ]
    for opname, op in everyday:
        def everyday_factory(dtype_of, op=op):
            def make():
                codes = data.codes("float8_e4m3fn", source="bfloat16")
                return op(codes.view(dtype_of("float8_e4m3fn")))
            return make

        add(opname, everyday_factory(mf_dtype),
            Ref("ml", "ml_dtypes", everyday_factory(md_dtype), None))


# Every group of the benchmark, in order. A new group is one more entry (its
# builder may live in another module of benchmarks/); numbers are labels.
GROUPS = [
    Group(1, "float32 <-> F", "vs ml_dtypes >= 20x; NumPy's uint8 cast / minifloat >= 0.5x "
          "(minifloat at most 2x NumPy)", float32_cases),
    Group(2, "float64 -> F", "vs ml_dtypes >= 15x; NumPy float64 -> uint8 reported", float64_cases),
    Group(3, "F -> another minifloat format", "vs ml_dtypes >= 30x", cross_format_cases),
    Group(4, "strided casts, step-2 views", "vs ml_dtypes >= 10x", strided_cases),
    Group(5, "bfloat16", "vs ml_dtypes >= 1x; NumPy's uint16 casts reported", bfloat16_cases),
    Group(6, "8-bit arithmetic, comparisons, reductions",
          "vs ml_dtypes >= 20x; NumPy's uint8 op on the same bytes reported", eight_bit_op_cases),
    Group(7, f"{MATMUL_SIZE}x{MATMUL_SIZE} matmul",
          "float32 matmul / minifloat >= 0.67x (minifloat at most 1.5x); ml_dtypes reported",
          matmul_cases),
    Group(8, "torch float8 conversions", "torch / minifloat >= 1x", torch_cases),
    Group(9, "mf.cast rounding modes", "same-format astype / mf.cast >= 0.5x (at most 2x)",
          rounding_mode_cases),
    Group(10, "MX/NVFP4 quantize", "float32 -> float8_e4m3fn astype / quantize >= 0.33x "
          "(at most 3x)", mx_quantize_cases),
    Group(11, "everyday float8_e4m3fn operations", "reported: ml_dtypes, no target", everyday_cases),
    Group(12, "sub-byte integers", "NumPy's int8/uint8 on the same bytes / minifloat >= 0.67x "
          "(minifloat at most 1.5x)",
          lambda add, data, torch: _cases("int_cases").add_int_cases(add, Ref, mf_dtype, data.n)),
]


def _cases(module):
    """The module benchmarks/<module>.py (another group's cases: quant_cases
    issue 17, int_cases 19, user_format_cases 16, thread_cases 28,
    complex_cases 27), importable however run.py was loaded."""
    sys.path.insert(0, HERE) if HERE not in sys.path else None
    return importlib.import_module(module)


GROUPS += _cases("quant_cases").groups(Group, Ref)
GROUPS.append(Group(17, "a format made by mf.float_format", "the built-in of the same shape / minifloat >= 0.67x "
                    "(at most 1.5x)",
                    lambda add, data, torch: _cases("user_format_cases").user_format_cases(add, Ref, data)))
GROUPS += _cases("thread_cases").groups(Group, Ref, None)
GROUPS += _cases("complex_cases").groups(Group, Ref)


def build_cases(data, torch, groups=None):
    """The cases of `groups` (default: GROUPS), in order."""
    cases = []
    for group in GROUPS if groups is None else groups:
        def add(name, mf_factory, *refs, traffic=None, number=group.number):
            cases.append(Case(number, name, mf_factory, list(refs), traffic=traffic))

        group.build(add, data, torch)
    return cases


def group_of(number, groups=None):
    for group in GROUPS if groups is None else groups:
        if group.number == number:
            return group
    return Group(number, f"group {number}", "", lambda add, data, torch: None)


# --------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------
class _Timer:
    """Best wall time of one callable over the rounds it takes part in."""

    def __init__(self, fn, repeat):
        self.fn, self.repeat = fn, repeat
        self.best, self.spent, self.done = float("inf"), 0.0, 0

    @property
    def finished(self):
        if self.done >= EXTEND * self.repeat:
            return True
        if self.done >= MIN_REPEAT and self.spent > TIME_CAP_S:
            return True
        return self.done >= self.repeat and self.spent >= MIN_TIME_S

    def step(self):
        t0 = time.perf_counter()
        self.fn()
        dt = time.perf_counter() - t0
        settle = getattr(self.fn, "settle", None)
        if settle is not None:
            settle()  # untimed: see thread_cases.settling
        self.best = min(self.best, dt)
        self.spent += dt
        self.done += 1


def time_interleaved(factories, repeat):
    """Best-of-`repeat` wall times in ms of several callables (None where a
    factory or its warm-up call raised: the exception instead), timed in
    alternating rounds so that a slow spell of a shared machine hits the
    minifloat call and its baselines alike."""
    timers, results = [], []
    for factory in factories:
        try:
            fn = factory()
            fn()  # warm-up (also surfaces errors before timing)
            getattr(fn, "settle", lambda: None)()
            timers.append(_Timer(fn, repeat))
            results.append(None)
        except Exception as exc:
            timers.append(None)
            results.append(exc)
    gc_was = gc.isenabled()
    gc.disable()
    try:
        while True:
            active = [t for t in timers if t is not None and not t.finished]
            if not active:
                break
            for t in active:
                try:
                    t.step()
                except Exception as exc:
                    results[timers.index(t)] = exc
                    timers[timers.index(t)] = None
    finally:
        if gc_was:
            gc.enable()
    return [(t.best * 1e3 if t is not None else None, err) for t, err in zip(timers, results)]


def run_case(case, repeat):
    """Times the case's callables; a callable timed before keeps the best of
    all its rounds (a second look adds rounds, it does not replace them)."""
    timed = time_interleaved([case.mf_factory] + [r.factory for r in case.refs], repeat)
    best = lambda before, now: now if before is None else min(before, now)
    ms, err = timed[0]
    if err is not None:
        case.mf_error = first_line(err)
    else:
        case.mf_ms = best(case.mf_ms, ms)
    for r, (ms, err) in zip(case.refs, timed[1:]):
        if err is not None:
            r.error = first_line(err)
        else:
            r.ms = best(r.ms, ms)


def close_misses(cases):
    """Cases with a reachable miss within RECHECK_MARGIN of its target."""
    return [c for c in cases
            if any(chk.state == "miss" and chk.ratio is not None
                   and chk.ratio >= (1 - RECHECK_MARGIN) * chk.ref.target for chk in evaluate(c))]


def second_look(cases, data, repeat):
    """Times each close miss again with RECHECK_FACTOR x the rounds, minifloat
    and its baselines alternating as before, each keeping the best of all its
    rounds; returns the labels looked at again (for the report)."""
    again = close_misses(cases)
    for i, c in enumerate(again, 1):
        print(f"  second look [{i}/{len(again)}] {c.label} ...", end="", file=sys.stderr, flush=True)
        run_case(c, RECHECK_FACTOR * repeat)
        data.clear()
        print(f"  mf {fmt_ms(c.mf_ms) if c.mf_error is None else 'n/a'} ms", file=sys.stderr, flush=True)
    return [c.label for c in again]


# --------------------------------------------------------------------------
# the memory floor
# --------------------------------------------------------------------------
def c_compiler():
    """The C compiler the machine probes (memory_floor.c, compute_scaling.c)
    are built with: $CC, else cc, gcc or clang on PATH; None without one."""
    compilers = [os.environ.get("CC"), "cc", "gcc", "clang"]
    return next((shutil.which(c) for c in compilers if c and shutil.which(c)), None)


def run_memory_floor(n):
    """Times of benchmarks/memory_floor.c's byte movements, {TRAFFIC key: ms}
    (the better of plain order and four streams), and a note on where they
    came from. Empty when it cannot run here: it needs x86-64 with AVX2, a C
    compiler taking GCC's options, and this run's N to be its N."""
    if n != MEMORY_FLOOR_N:
        return {}, f"memory_floor.c not run (it moves {MEMORY_FLOOR_N:,} elements, this run {n:,})"
    if sys.platform == "win32" or platform.machine().lower() not in ("x86_64", "amd64"):
        return {}, "memory_floor.c not run (x86-64 Linux/macOS only)"
    cc = c_compiler()
    if cc is None:
        return {}, "memory_floor.c not run (no C compiler on PATH)"
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "memory_floor")
        try:
            subprocess.run([cc, "-O2", "-mavx2", MEMORY_FLOOR_C, "-o", exe], check=True,
                           capture_output=True, timeout=120)
            out = subprocess.run([exe], check=True, capture_output=True, text=True,
                                 timeout=120).stdout
        except (OSError, subprocess.SubprocessError) as exc:
            return {}, f"memory_floor.c did not run ({first_line(exc)})"
    times = [min(float(a), float(b)) for a, b in re.findall(r"([\d.]+) ms, four streams ([\d.]+) ms", out)]
    if len(times) != len(TRAFFIC):
        return {}, "memory_floor.c printed something unexpected"
    return dict(zip(TRAFFIC, times)), f"benchmarks/memory_floor.c ({os.path.basename(cc)} -O2 -mavx2)"


def merge_floors(*floors):
    """The least time of each byte movement over several measurements."""
    merged = {}
    for floor in floors:
        for key, ms in floor.items():
            merged[key] = min(ms, merged.get(key, ms))
    return merged


# --------------------------------------------------------------------------
# evaluation
# --------------------------------------------------------------------------
@dataclass
class Check:
    """One baseline of one case, against its target (if any)."""
    ref: Ref
    state: str                  # ok, miss, floor (missed at the memory floor), unchecked, report
    ratio: Optional[float]      # baseline ms / minifloat ms
    reach: Optional[float]      # the largest ratio the memory floor allows, if measured
    text: str


def ratio(case, r):
    if r is None or r.ms is None or case.mf_ms is None or case.mf_ms <= 0:
        return None
    return r.ms / case.mf_ms


def floor_ms(case):
    """The least time measured to move this case's bytes with nothing to
    convert: NumPy's plain byte operation on them, or memory_floor.c's
    (None if neither was measured)."""
    times = [r.ms for r in case.refs if r.floor and r.ms]
    if case.memory_floor_ms:
        times.append(case.memory_floor_ms)
    return min(times) if times else None


def floor_source(case):
    best = floor_ms(case)
    if best is None:
        return ""
    if case.memory_floor_ms == best:
        return "memory_floor.c"
    return next(r.label for r in case.refs if r.floor and r.ms == best)


def check(case, r):
    """How the case fares against baseline `r`. A miss whose target lies
    beyond the memory floor (the baseline itself takes less than target x the
    least time moving the bytes needs) is "floor": no kernel can meet it on
    this machine, so it is reported, not counted as a failure."""
    q = ratio(case, r)
    best = floor_ms(case)
    # (a baseline that is itself a floor measurement has no reach of its own)
    reach = r.ms / best if best and r.ms and not r.floor else None
    if r.target is None:
        return Check(r, "report", q, reach, f"{r.label} reported")
    t = fmt_target(r.target)
    if r.ms is None:
        return Check(r, "unchecked", q, reach, f"{r.label} n/a: not checked")
    if case.mf_ms is None:
        return Check(r, "miss", q, reach, f"minifloat failed ({case.mf_error})")
    if q >= r.target:
        return Check(r, "ok", q, reach, f"{r.label}/minifloat {fmt_ratio(q)} >= {t}")
    text = f"{r.label}/minifloat {fmt_ratio(q)} < {t}"
    if reach is not None and reach < r.target:
        return Check(r, "floor", q, reach, text + (
            f": at the memory floor, not a failure. Moving these bytes takes at least "
            f"{fmt_ms(best)} ms here ({floor_source(case)}), {r.label} {fmt_ms(r.ms)} ms: no kernel "
            f"can pass {reach:.1f}x; minifloat takes {case.mf_ms / best:.2f}x the floor's time"))
    if reach is not None:
        text += f" (the memory floor allows up to {reach:.1f}x)"
    return Check(r, "miss", q, reach, text)


def evaluate(case):
    """Checks of the case's baselines that have a target."""
    return [c for c in (check(case, r) for r in case.refs) if c.state != "report"]


def summarize(cases):
    """Counts of target states and the (case, check) of every miss, floor miss included."""
    counts = {"ok": 0, "miss": 0, "floor": 0, "unchecked": 0}
    missed = []
    for c in cases:
        for chk in evaluate(c):
            counts[chk.state] += 1
            if chk.state in ("miss", "floor"):
                missed.append((c, chk))
    return counts, missed


def failures(cases):
    """Missed targets this machine can reach: what --check fails on."""
    return [(c, chk) for c, chk in summarize(cases)[1] if chk.state == "miss"]


# --------------------------------------------------------------------------
# formatting
# --------------------------------------------------------------------------
def fmt_target(t):
    if abs(t - round(t)) < 1e-9:
        return f"{int(round(t))}x"
    return f"{t:.2f}x"


def fmt_ms(ms):
    if ms is None:
        return "n/a"
    if ms >= 100:
        return f"{ms:.1f}"
    if ms >= 1:
        return f"{ms:.2f}"
    return f"{ms:.3f}"


def fmt_ratio(q):
    if q is None:
        return "—"
    if q >= 100:
        return f"{q:.0f}x"
    return f"{q:.2f}x"


def target_text(r):
    if r is None:
        return ""
    if r.target is None:
        return "(report)"
    if r.target < 1:
        return f">= {fmt_target(r.target)} (mf <= {1 / r.target:.3g}x)"
    return f">= {fmt_target(r.target)}"


def status_text(case):
    checks = evaluate(case)
    states = [c.state for c in checks]
    name = lambda chk: "ml_dtypes" if chk.ref.key == "ml" else chk.ref.label
    if not checks:
        return "report only"
    parts = []
    if "miss" in states:
        parts.append("MISS (" + ", ".join(name(c) for c in checks if c.state == "miss") + ")")
    if "floor" in states:
        parts.append("at memory floor (" + ", ".join(name(c) for c in checks if c.state == "floor") + ")")
    if "unchecked" in states:
        parts.append("not checked (" + ", ".join(name(c) for c in checks if c.state == "unchecked")
                     + " n/a)")
    return "; ".join(parts) or "ok"


CASE_COLUMNS = ["case", "minifloat ms", "ml_dtypes ms", "ml_dtypes/mf", "ml target", "other",
                "other ms", "other/mf", "other target", "floor ms", "status"]


def case_rows(cases, notes):
    """Rows of strings; error messages go into `notes` (footnotes) and cells say n/a [eK]."""
    def na(err):
        notes.append(err)
        return f"n/a [e{len(notes)}]"

    def ms_cell(r):
        if r is None:
            return "—"
        return fmt_ms(r.ms) if r.error is None else na(r.error)

    rows = []
    for c in cases:
        ml, other = c.ref("ml"), c.ref("ref")
        best = floor_ms(c)
        rows.append([
            c.label, fmt_ms(c.mf_ms) if c.mf_error is None else na(c.mf_error),
            ms_cell(ml), fmt_ratio(ratio(c, ml)), target_text(ml),
            other.label if other else "—", ms_cell(other), fmt_ratio(ratio(c, other)),
            target_text(other), fmt_ms(best) if best else "—", status_text(c),
        ])
    return rows


def spread_text(values, fmt):
    """min · median · max of the values (one value: itself)."""
    if not values:
        return "—"
    values = sorted(values)
    middle = values[len(values) // 2] if len(values) % 2 else (
        values[len(values) // 2 - 1] + values[len(values) // 2]) / 2
    if len(values) == 1:
        return fmt(values[0])
    return " · ".join(fmt(v) for v in (values[0], middle, values[-1]))


def groups_in(cases):
    return [group_of(g) for g in sorted({c.group for c in cases})]


GROUP_COLUMNS = ["group", "cases", "targets met", "ml_dtypes/minifloat: min · median · max",
                 "other baseline/minifloat: min · median · max", "targets"]


def group_rows(cases):
    """One row per group: targets met, and the spread of each baseline's
    ratio (baseline ms / minifloat ms, as in the per-case table)."""
    rows = []
    for group in groups_in(cases):
        members = [c for c in cases if c.group == group.number]
        checks = [chk for c in members for chk in evaluate(c)]
        met = sum(chk.state == "ok" for chk in checks)
        ml = [q for c in members if (q := ratio(c, c.ref("ml"))) is not None]
        others = [(c.ref("ref").label, q) for c in members
                  if c.ref("ref") is not None and (q := ratio(c, c.ref("ref"))) is not None]
        if others:
            labels = sorted({label for label, _ in others}, key=[x for x, _ in others].index)
            if len(labels) > 2:
                name = "NumPy, same bytes" if all(x.startswith("np ") for x in labels) else "baseline"
            else:
                name = " / ".join(labels)
            other = f"{name}: {spread_text([q for _, q in others], fmt_ratio)}"
        else:
            other = "—"
        rows.append([f"{group.number}. {group.title}", str(len(members)),
                     f"{met} of {len(checks)}" if checks else "report only",
                     spread_text(ml, fmt_ratio), other, group.targets])
    return rows


VERDICT_COLUMNS = ["group", "targets met", "slowest against its target", "ratio", "target",
                   "floor allows", "state"]
STATE_WORDS = {"ok": "met", "miss": "MISSED", "floor": "at memory floor", "unchecked": "not checked"}


def verdict_rows(cases):
    """Per group: targets met, and the check closest to (or furthest below)
    its target, with the ratio the memory floor allows there."""
    rows = []
    for group in groups_in(cases):
        members = [c for c in cases if c.group == group.number]
        checks = [(c, chk) for c in members for chk in evaluate(c)]
        rated = [(c, chk) for c, chk in checks if chk.ratio is not None]
        title = f"{group.number}. {group.title}"
        if not checks:
            rows.append([title, "report only", "", "", "", "", ""])
            continue
        met = sum(chk.state == "ok" for _, chk in checks)
        if not rated:
            rows.append([title, f"{met} of {len(checks)}", "", "", "", "", "not checked"])
            continue
        c, chk = min(rated, key=lambda item: item[1].ratio / item[1].ref.target)
        versus = "ml_dtypes" if chk.ref.key == "ml" else chk.ref.label
        rows.append([title, f"{met} of {len(checks)}", f"{c.name} (vs {versus})", fmt_ratio(chk.ratio),
                     f">= {fmt_target(chk.ref.target)}",
                     f"{chk.reach:.1f}x" if chk.reach is not None else "—", STATE_WORDS[chk.state]])
    return rows


def verdict_line(cases):
    counts, _ = summarize(cases)
    total = sum(counts.values())
    parts = [f"{counts['ok']} of {total} targets met"]
    if counts["floor"]:
        parts.append(f"{counts['floor']} missed at this machine's memory floor (beyond any kernel "
                     "here: reported, not failures)")
    parts.append(f"{counts['miss']} missed that this machine can reach (failures)")
    if counts["unchecked"]:
        parts.append(f"{counts['unchecked']} not checked (baseline n/a)")
    return "; ".join(parts)


DIRECTION = ("every ratio is baseline time / minifloat time (a speedup: above 1 when minifloat "
             "is faster); every target is ratio >= X")


def misses_text(cases):
    return [f"{'MISS' if chk.state == 'miss' else 'FLOOR'} {c.label}: {chk.text}"
            for c, chk in summarize(cases)[1]]


HEADLINE = ["[1] f32 -> float8_e4m3fn", "[1] float8_e4m3fn -> f32", "[2] f64 -> float8_e4m3fn",
            "[3] float8_e4m3fn -> float8_e5m2", "[1] f32 -> float4_e2m1fn",
            "[6] float8_e4m3fn a + b", "[6] float8_e4m3fn a < b", "[6] float8_e4m3fn a.sum()",
            "[11] x * 2.0", "[11] x.astype(np.int8)", "[5] f32 -> bfloat16", "[5] bfloat16 -> f32",
            "[7] float8_e4m3fn A @ B", "[10] mx.quantize mxfp8_e4m3", "[10] mx.quantize nvfp4"]
HEADLINE_COLUMNS = ["case", "minifloat ms", "ml_dtypes ms", "ml_dtypes/minifloat", "other baseline",
                    "other/minifloat"]


def headline_rows(cases):
    by_label = {c.label: c for c in cases}
    rows = []
    for label in HEADLINE:
        c = by_label.get(label)
        if c is None:
            continue
        ml, other = c.ref("ml"), c.ref("ref")
        rows.append([label, fmt_ms(c.mf_ms), fmt_ms(ml.ms) if ml else "—", fmt_ratio(ratio(c, ml)),
                     f"{other.label} {fmt_ms(other.ms)} ms" if other else "—",
                     fmt_ratio(ratio(c, other))])
    return rows


FLOOR_COLUMNS = ["case", "minifloat ms", "ml_dtypes ms", "floor ms", "floor measured by",
                 "ml_dtypes/floor: the most any kernel reaches", "ml_dtypes/minifloat", "target",
                 "state"]


def floor_rows(cases):
    """The cases whose ml_dtypes target lies near or beyond the memory floor
    (it allows less than 1.5x the target)."""
    rows = []
    for c in cases:
        for chk in evaluate(c):
            if chk.ref.key == "ml" and chk.reach is not None and chk.reach < 1.5 * chk.ref.target:
                rows.append([c.label, fmt_ms(c.mf_ms), fmt_ms(chk.ref.ms), fmt_ms(floor_ms(c)),
                             floor_source(c), f"{chk.reach:.1f}x", fmt_ratio(chk.ratio),
                             f">= {fmt_target(chk.ref.target)}", STATE_WORDS[chk.state]])
    return rows


def load_avg():
    """1-minute load average (other processes competing for the cores skew timings)."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except (OSError, AttributeError):
        return "?"


def cpu_name():
    """The CPU's model name as lscpu (or /proc/cpuinfo) gives it."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
        fields = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
        fields = {k.strip(): v.strip() for k, v in fields.items()}
        if "Model name" in fields:
            details = [f"{k.lower()} {fields[k]}" for k in ("CPU family", "Model") if k in fields]
            if "Hypervisor vendor" in fields:
                details.append(f"{fields['Hypervisor vendor']} VM")
            return fields["Model name"] + (f" ({', '.join(details)})" if details else "")
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def simd_flags():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("flags"):
                    have = set(line.split(":", 1)[1].split())
                    return [f for f in ("sse4_2", "avx", "avx2", "f16c", "fma", "avx512f",
                                        "avx512bw", "avx512vl", "avx512vbmi", "avx512_bf16",
                                        "avx512_fp16", "amx_bf16") if f in have]
    except OSError:
        pass
    return []


def pair_kernel_note():
    """Which kernel served group 6's long 8-bit + - * / (measured per process)."""
    choice = mf._core._pair_kernel()
    if not choice:
        return "8-bit + - * /: no long run measured the pair kernel"
    how = "set by MINIFLOAT_PAIR_KERNEL" if os.environ.get("MINIFLOAT_PAIR_KERNEL") else "measured"
    kernel = "pair-table gathers" if choice == "gathers" else "computed in registers"
    return f"8-bit + - * / on long runs: {kernel} ({how})"


def blas_note():
    """NumPy's BLAS (the float32 products groups 7 and 16 compare with) and
    the CPU kernels it picked. OpenBLAS picks AVX-512 ones wherever the CPU
    has them, MINIFLOAT_DISABLE_AVX512 or not: an AVX2-only emulation sets
    OPENBLAS_CORETYPE=Haswell too, so that both sides run what that CPU
    would (benchmarks/README.md)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "not known (threadpoolctl is not installed)"
    libraries = [info for info in threadpool_info() if info.get("user_api") == "blas"]
    if not libraries:
        return "none loaded"
    notes = []
    for info in libraries:
        note = f"{info.get('internal_api')} {info.get('version')}"
        if info.get("architecture"):
            note += f", {info['architecture']} kernels"
        notes.append(note)
    forced = os.environ.get("OPENBLAS_CORETYPE")
    return "; ".join(notes) + (f" (OPENBLAS_CORETYPE={forced})" if forced else "")


def machine_facts(n, repeat, torch, load_start, floor_note):
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    threads = _cases("thread_cases")
    return [
        ("date", datetime.datetime.now().strftime("%Y-%m-%d %H:%M")),
        ("CPU", cpu_name()),
        ("cores", f"{os.cpu_count()} logical ({usable} usable, {threads.usable_cores()} after the cgroup "
                  "quota); minifloat on 1 thread except group 18 (1 thread and every usable core)"),
        ("caches", threads.cache_sizes()),
        ("SIMD flags", " ".join(simd_flags()) or "—"),
        ("Python", platform.python_version()),
        ("numpy", np.__version__),
        ("ml_dtypes", md.__version__ if md is not None else "not installed"),
        ("minifloat", getattr(mf, "__version__", "?")),
        ("kernels", f"{mf._core._active_kernels()} (hand-written set in use; "
                    "MINIFLOAT_DISABLE_AVX512=1 / MINIFLOAT_DISABLE_AVX2=1 step down)"),
        ("pair kernel", pair_kernel_note()),
        ("BLAS", blas_note()),
        # (main() sets torch to one thread; group 18 sets each of its calls' count)
        ("torch", (torch.__version__ + " (threads=1; group 18: 1 and every usable core)")
         if torch is not None else "not installed (group 8 skipped)"),
        ("N", f"{n:,} elements per vector case; matmul {MATMUL_SIZE}x{MATMUL_SIZE}"),
        ("timing", f"time.perf_counter, 1 warm-up, each case's calls in alternating rounds, best "
                   f"of {repeat} runs (fewer, min {MIN_REPEAT}, once a callable used {TIME_CAP_S}s; "
                   f"more, up to {EXTEND * repeat}, until it used {MIN_TIME_S}s), ms"),
        ("memory floor", floor_note),
        ("load avg", f"{load_start} at start, {load_avg()} at end (1-min; {os.cpu_count()} cores; "
                     "> ~1 means other processes competed)"),
    ]


def render_text_table(header, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda r: "  ".join(str(x).ljust(w) for x, w in zip(r, widths)).rstrip()
    out = [line(header), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    return "\n".join(out)


def md_escape(s):
    return str(s).replace("|", "\\|")


def render_md_table(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(md_escape(x) for x in r) + " |" for r in rows]
    return "\n".join(out)


def results_markdown(cases, facts, notes, rows, heading="###"):
    """The results as markdown: how measured, the verdict, the groups, the
    headline cases, the cases at the memory floor and (folded) every case.
    This is the results file (`--out`); README's Speed section gets
    readme_markdown's verdict and headline cases, with a link to it."""
    fact = dict(facts)
    lines = [
        f"Measured by `python benchmarks/run.py` on {fact['date']}: {fact['CPU']}, "
        f"{os.cpu_count()} logical cores (SIMD: {fact['SIMD flags']}), one thread (group 18: one and every usable core); minifloat "
        f"{fact['minifloat']} with its `{mf._core._active_kernels()}` kernels ({fact['pair kernel']}), "
        f"Python {fact['Python']}, "
        f"NumPy {fact['numpy']} (BLAS: {fact['BLAS']}), ml_dtypes {fact['ml_dtypes']}, torch {fact['torch']}; "
        f"{fact['N']}; {fact['timing']}. Load average {fact['load avg']}. "
        f"Memory floor: {fact['memory floor']}.",
        "",
        f"Direction: {DIRECTION}.",
        "",
        f"{heading} Verdict",
        "",
        f"**{verdict_line(cases)}.**",
        "",
        render_md_table(VERDICT_COLUMNS, verdict_rows(cases)),
        "",
        f"{heading} Groups",
        "",
        render_md_table(GROUP_COLUMNS, group_rows(cases)),
        "",
    ]
    headline = headline_rows(cases)
    if headline:
        lines += [f"{heading} Headline cases", "",
                  f"Milliseconds for {fact['N'].split(' elements')[0]} elements (matmul: "
                  f"{MATMUL_SIZE}x{MATMUL_SIZE}).", "",
                  render_md_table(HEADLINE_COLUMNS, headline), ""]
    floors = floor_rows(cases)
    if floors:
        lines += [f"{heading} Targets at the memory floor", "",
                  "Cases whose ml_dtypes target is within 1.5x of what moving their bytes allows: "
                  "ml_dtypes' time over the least time measured to move the same bytes with "
                  "nothing to convert is the largest ratio any kernel can reach here.", "",
                  render_md_table(FLOOR_COLUMNS, floors), ""]
    missed = misses_text(cases)
    if missed:
        lines += ["Missed targets:", ""] + [f"- {md_escape(m)}" for m in missed] + [""]
    lines += [f"<details><summary>Every case ({len(cases)})</summary>", "",
              render_md_table(CASE_COLUMNS, rows), ""]
    if notes:
        lines += [f"[e{i}] `{n}`" for i, n in enumerate(notes, 1)] + [""]
    lines += ["</details>", ""]
    return "\n".join(lines)


def readme_markdown(cases, facts, link, chart_link=None):
    """README's part of the results: one line on the run, the verdict and the
    headline cases, with a link to the full report (`link`, relative to README)
    and to the chart (`chart_link`, if one was written)."""
    fact = dict(facts)
    lines = [
        f"Measured on {fact['date']}: {fact['CPU']}, one thread (group 18: one and every usable core), minifloat's "
        f"`{mf._core._active_kernels()}` kernels, NumPy {fact['numpy']}, ml_dtypes {fact['ml_dtypes']}, "
        f"torch {fact['torch']}; {fact['N']}. Load average {fact['load avg']}.",
        "",
        f"**{verdict_line(cases)}.**",
        "",
    ]
    headline = headline_rows(cases)
    if headline:
        lines += ["Headline cases (times in milliseconds):", "", render_md_table(HEADLINE_COLUMNS, headline), ""]
    chart = f"; the chart: [{chart_link}]({chart_link})" if chart_link else ""
    lines += [f"The verdict per group, every group's ratios, the cases at the memory floor, every case "
              f"and the machine, from the same run: [{link}]({link}){chart}.", ""]
    return "\n".join(lines)


def write_readme(path, block):
    """Replaces the text between README_BEGIN and README_END in `path`."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    begin, end = text.find(README_BEGIN), text.find(README_END)
    if begin < 0 or end < begin:
        raise ValueError(f"{path} has no benchmark block: put the lines\n{README_BEGIN}\n"
                         f"{README_END}\nwhere the results go")
    begin += len(README_BEGIN)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text[:begin] + "\n" + block.rstrip("\n") + "\n" + text[end:])


# --------------------------------------------------------------------------
# chart
# --------------------------------------------------------------------------
CHART_MAX_HEIGHT_IN = 19.5  # at CHART_DPI: under 2000 pixels
CHART_DPI = 100
CHART_COLORS = {"ok": "#2e9d4d", "miss": "#d62728", "floor": "#ff9f1c", "unchecked": "#bbbbbb"}


def chart_label(name):
    """A case name short enough for a chart row."""
    for long, short in (("float8_", ""), ("float6_", "fp6 "), ("float4_", "fp4 "), ("mf.cast ", ""),
                        ("mx.quantize ", ""), ("scale_mode=", ""), (" saturate", " sat"),
                        ("torch ", ""), ("nearest_", "n_"), ("toward_zero", "to_zero")):
        name = name.replace(long, short)
    return name


def chart_panels(cases):
    """(title, target, rows) per group and baseline with targets; rows are
    (label, ratio, reach, state)."""
    panels = []
    for group in groups_in(cases):
        members = [c for c in cases if c.group == group.number]
        for key in ("ml", "ref"):
            rows, labels, targets = [], [], set()
            for c in members:
                r = c.ref(key)
                if r is None or r.target is None:
                    continue
                chk = check(c, r)
                rows.append((chart_label(c.name), chk.ratio, chk.reach, chk.state))
                targets.add(r.target)
                if r.label not in labels:
                    labels.append(r.label)
            if rows:
                versus = "ml_dtypes" if key == "ml" else " / ".join(labels)
                target = min(targets)  # one target per group and baseline
                panels.append((f"{group.number}. {group.title}: {versus} / minifloat "
                               f"(target >= {fmt_target(target)})", target, rows))
    return panels


def split_columns(sizes, columns):
    """Contiguous runs of `sizes` in `columns` columns, the tallest as short as possible."""
    best = None

    def walk(start, left, runs):
        nonlocal best
        if left == 1:
            runs = runs + [list(range(start, len(sizes)))]
            tallest = max(sum(sizes[i] for i in run) for run in runs)
            if best is None or tallest < best[0]:
                best = (tallest, runs)
            return
        for stop in range(start + 1, len(sizes) - left + 2):
            walk(stop, left - 1, runs + [list(range(start, stop))])

    walk(0, min(columns, len(sizes)), [])
    return best[1]


def write_chart(path, cases):
    """One panel per group and baseline: bars of the ratio on a log axis,
    the target as a black line, the memory floor (the largest ratio moving
    the bytes allows) as a blue dashed mark, bars coloured met / missed /
    missed at the floor. False when matplotlib is missing or nothing has a target."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch
        from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    except Exception:
        return False
    panels = chart_panels(cases)
    if not panels:
        return False
    header_rows = 3.5  # a panel's title and axis take about as much as this many bars
    sizes = [len(rows) + header_rows for _, _, rows in panels]
    columns = split_columns(sizes, 3 if len(panels) >= 3 else len(panels))
    tallest = max(sum(sizes[i] for i in run) for run in columns)
    height = min(CHART_MAX_HEIGHT_IN, 1.3 + 0.16 * tallest)
    fig = plt.figure(figsize=(6.2 * len(columns), height), dpi=CHART_DPI, layout="constrained")
    subfigures = np.atleast_1d(fig.subfigures(1, len(columns)))
    for subfigure, run in zip(subfigures, columns):
        filler = tallest - sum(sizes[i] for i in run)
        ratios = [sizes[i] for i in run] + ([filler] if filler > 0 else [])
        axes = np.atleast_1d(subfigure.subplots(len(ratios), 1, gridspec_kw={"height_ratios": ratios}))
        if filler > 0:
            axes[-1].set_axis_off()
        for ax, i in zip(axes, run):
            title, target, rows = panels[i]
            values = [q for _, q, _, _ in rows if q]
            reaches = [x for _, _, x, _ in rows if x]
            lo = min(values + reaches + [target]) / 1.8
            hi = max(values + reaches + [target]) * 2.5
            ys = np.arange(len(rows))[::-1]
            shown = [(y, q, state) for y, (_, q, _, state) in zip(ys, rows) if q is not None]
            if shown:
                bar_y, bar_q, bar_state = zip(*shown)
                ax.barh(bar_y, np.array(bar_q) - lo, left=lo, height=0.72,
                        color=[CHART_COLORS.get(state, "grey") for state in bar_state])
            for y, (_, q, reach, _) in zip(ys, rows):
                if q is None:
                    ax.text(lo * 1.1, y, "n/a", va="center", fontsize=7, color="grey")
                else:
                    ax.text(q * 1.06, y, fmt_ratio(q), va="center", fontsize=6.5)
            marks = [(y, reach) for y, (_, _, reach, _) in zip(ys, rows) if reach is not None]
            if marks:
                ax.vlines([x for _, x in marks], [y - 0.5 for y, _ in marks], [y + 0.5 for y, _ in marks],
                          color="#1f4e9c", lw=1.6, linestyles=(0, (2, 1)))
            ax.axvline(target, color="black", lw=1.3)
            ax.set_xscale("log")
            ax.set_xlim(lo, hi)
            ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
            ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}x"))
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_ylim(-0.6, len(rows) - 0.4)
            ax.set_yticks(ys)
            ax.set_yticklabels([label for label, _, _, _ in rows], fontsize=7)
            ax.tick_params(axis="x", labelsize=7)
            ax.set_title(title, fontsize=8, loc="left")
            ax.grid(axis="x", which="major", alpha=0.3)
    legend = [Patch(color=CHART_COLORS["ok"], label="target met"),
              Patch(color=CHART_COLORS["miss"], label="missed"),
              Patch(color=CHART_COLORS["floor"], label="missed at the memory floor (beyond any kernel here)"),
              Line2D([], [], color="black", lw=1.3, label="target"),
              Line2D([], [], color="#1f4e9c", lw=1.6, ls=(0, (2, 1)),
                     label="memory floor: the largest ratio moving the bytes allows")]
    fig.suptitle("minifloat: baseline time / minifloat time (log scale; higher is better)", fontsize=11)
    fig.legend(handles=legend, loc="outside lower center", ncol=5, fontsize=8, frameon=False)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=CHART_DPI)
    plt.close(fig)
    return True


# --------------------------------------------------------------------------
def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true",
                   help="exit 1 when a target this machine can reach is missed (misses at the "
                        "memory floor are reported, not failures)")
    p.add_argument("--full", action="store_true", help="also print the table of every case")
    p.add_argument("--readme", nargs="?", const=README, default=None, metavar="README.md",
                   help="write the verdict and the headline cases, with a link to the --out "
                        "file, into README.md's Speed section (between its benchmark markers)")
    p.add_argument("--out", default=os.path.join(HERE, "results", "latest.md"),
                   help="markdown output (default: benchmarks/results/latest.md)")
    p.add_argument("--chart", default=os.path.join(HERE, "results", "latest.png"),
                   help="chart image, written when matplotlib is importable "
                        "(default: benchmarks/results/latest.png; '' for none)")
    p.add_argument("--n", type=int, default=DEFAULT_N,
                   help=f"elements per vector case (default {DEFAULT_N:,})")
    p.add_argument("--repeat", type=int, default=DEFAULT_REPEAT,
                   help=f"timed repeats per callable, best is kept (default {DEFAULT_REPEAT})")
    p.add_argument("--only", default=None,
                   help="run only cases whose label contains SUBSTRING (case-insensitive), "
                        "e.g. 'e4m3fn', '[6]', 'matmul', 'torch'")
    p.add_argument("--no-torch", action="store_true", help="skip torch even if importable")
    p.add_argument("--no-large", action="store_true",
                   help=f"skip the threads group's large size ({_cases('thread_cases').LARGE_N:,} values, "
                        "about 1.5 GB of arrays)")
    p.add_argument("--no-floor", action="store_true",
                   help="do not compile and run benchmarks/memory_floor.c")
    args = p.parse_args(argv)
    if args.n < 1 or args.repeat < 1:
        p.error("--n and --repeat must be >= 1")

    torch = None
    if not args.no_torch:
        try:
            import torch  # noqa: F811
            torch.set_num_threads(1)
        except Exception:
            torch = None

    # overflow and NaN warnings of the timed casts are expected; silence them
    # for this run only (main() may be called from a test process)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run(args, torch)


def run(args, torch):
    # every group but the threads group (18) times minifloat on one thread,
    # as its baselines run; group 18 sets the count per call
    threads_before = mf.get_num_threads()
    mf.set_num_threads(1)
    try:
        return _run(args, torch)
    finally:
        mf.set_num_threads(threads_before)


def _run(args, torch):
    _cases("thread_cases").LARGE = not getattr(args, "no_large", False)
    data = Data(args.n)
    cases = build_cases(data, torch)
    if args.only:
        needle = args.only.lower()
        cases = [c for c in cases
                 if needle in c.label.lower() or (needle == "matmul" and c.group == 7)]
        if not cases:
            print(f"no case matches --only {args.only!r}", file=sys.stderr)
            return 2

    load_start = load_avg()
    wants_floor = not args.no_floor and any(c.traffic for c in cases)
    floors, floor_note = run_memory_floor(args.n) if wants_floor else ({}, "not run")
    t_start = time.perf_counter()
    group = None
    for i, c in enumerate(cases, 1):
        if c.group != group:
            data.clear()
            group = c.group
        print(f"  [{i:3d}/{len(cases)}] {c.label} ...", end="", file=sys.stderr, flush=True)
        run_case(c, args.repeat)
        bits = [f"mf {fmt_ms(c.mf_ms) if c.mf_error is None else 'n/a'}"]
        bits += [f"{r.label} {fmt_ms(r.ms) if r.error is None else 'n/a'}" for r in c.refs]
        print("  " + ", ".join(bits) + " ms", file=sys.stderr, flush=True)
    data.clear()
    elapsed = time.perf_counter() - t_start
    if floors:  # measured before and after the cases: the least of both
        floors = merge_floors(floors, run_memory_floor(args.n)[0])
    for c in cases:
        c.memory_floor_ms = floors.get(c.traffic)
    looked_again = second_look(cases, data, args.repeat)
    elapsed = time.perf_counter() - t_start

    facts = machine_facts(args.n, args.repeat, torch, load_start, floor_note)
    facts.append(("second look", (f"{len(looked_again)} case(s) that missed by less than "
                                  f"{RECHECK_MARGIN:.0%} timed again with {RECHECK_FACTOR}x the rounds, each "
                                  f"callable keeping the best of all its rounds: " + "; ".join(looked_again))
                                 if looked_again else f"none (no miss within {RECHECK_MARGIN:.0%} of its target)"))
    if any(c.group == 19 for c in cases):
        facts += _cases("thread_cases").first_call_facts()
    notes = []
    rows = case_rows(cases, notes)
    fails = failures(cases)

    # ---- console: the verdict first, then the groups
    print(f"minifloat benchmark: {len(cases)} cases in {elapsed:.0f} s on {dict(facts)['CPU']} "
          f"({mf._core._active_kernels()} kernels; load {load_start} -> {load_avg()})")
    print(f"  {DIRECTION}")
    print()
    print(f"VERDICT: {verdict_line(cases)}")
    print()
    print(render_text_table(VERDICT_COLUMNS, verdict_rows(cases)))
    print()
    print(render_text_table(GROUP_COLUMNS, group_rows(cases)))
    for m in misses_text(cases):
        print(f"  {m}")
    if args.full:
        print()
        print(render_text_table(CASE_COLUMNS, rows))
        for i, n in enumerate(notes, 1):
            print(f"  [e{i}] {n}")
    print()
    for k, v in facts:
        print(f"  {k:<12} {v}")

    # ---- files
    out = os.path.abspath(args.out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    chart_written = False
    if args.chart:
        chart_written = write_chart(args.chart, cases)
    chart_line = ""
    if chart_written:
        chart_rel = os.path.relpath(os.path.abspath(args.chart), os.path.dirname(out)).replace(os.sep, "/")
        chart_line = f"\n## Chart\n\n![every target: baseline time / minifloat time per case]({chart_rel})\n"
    with open(out, "w", encoding="utf-8") as fh:
        fh.write("# minifloat benchmark\n\n" + results_markdown(cases, facts, notes, rows, "##") + chart_line)
    print(f"\nwrote {out} (every case)")
    if args.chart:
        if chart_written:
            print(f"wrote {os.path.abspath(args.chart)}")
        else:
            print("no chart written (matplotlib not importable, or no case has a target)")
    if args.readme:
        here = os.path.dirname(os.path.abspath(args.readme))
        rel = lambda path: os.path.relpath(os.path.abspath(path), here).replace(os.sep, "/")
        try:
            write_readme(args.readme, readme_markdown(cases, facts, rel(out),
                                                      rel(args.chart) if chart_written else None))
        except (OSError, ValueError) as exc:
            print(f"--readme: {exc}", file=sys.stderr)
            return 2
        print(f"wrote the results into {os.path.abspath(args.readme)}")

    if args.check and fails:
        print(f"\n--check: {len(fails)} target(s) missed that this machine can reach", file=sys.stderr)
        for c, chk in fails:
            print(f"  MISS {c.label}: {chk.text}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
