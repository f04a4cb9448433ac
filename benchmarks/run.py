#!/usr/bin/env python
"""Benchmark minifloat against ml_dtypes (and torch when importable), side by side.

    python benchmarks/run.py [--check] [--out PATH.md] [--chart PATH.png]
                             [--n N] [--repeat R] [--only SUBSTRING]

Every ratio in the table is ``baseline time / minifloat time`` (a speedup:
higher is better for minifloat); every target is "ratio >= X".  See
benchmarks/README.md for the columns and the targets.
"""
import os

# Single-threaded, before numpy (and its BLAS) is imported.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse
import datetime
import functools
import gc
import platform
import sys
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

ALL = list(mf.FORMAT_NAMES)
NON_BF16 = [f for f in ALL if f != "bfloat16"]
EIGHT_BIT = [f for f in NON_BF16 if f.startswith("float8_")]
STRIDED = ["float8_e4m3fn", "float8_e5m2", "float6_e2m3fn", "float4_e2m1fn"]
MATMUL_FORMATS = ["float8_e4m3fn", "float8_e5m2"]
TORCH_FP8 = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
             "float8_e8m0fnu"]
GROUP_TITLES = {
    1: "float32 <-> F (vs ml_dtypes >= 20x; vs NumPy uint8 cast: mf <= 2x)",
    2: "float64 -> F (vs ml_dtypes >= 15x; NumPy float64 -> uint8 reported)",
    3: "F -> another minifloat format (vs ml_dtypes >= 30x)",
    4: "strided casts, step-2 views (vs ml_dtypes >= 10x)",
    5: "bfloat16 (vs ml_dtypes >= 1x)",
    6: "8-bit arithmetic, comparisons, reductions (vs ml_dtypes >= 20x; "
       "NumPy's uint8 op on the same bytes reported)",
    7: f"{MATMUL_SIZE}x{MATMUL_SIZE} matmul (mf <= 1.5x float32 matmul; ml_dtypes reported)",
    8: "torch float8 conversions (torch/mf >= 1x)",
    9: "mf.cast rounding modes (mf.cast <= 2x the same format's astype)",
    10: "MX/NVFP4 quantize (<= 3x the float32 -> float8_e4m3fn astype)",
    11: "everyday float8_e4m3fn operations beyond the targets (ml_dtypes reported)",
}
CAST_FORMATS = ["float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "float6_e2m3fn", "float4_e2m1fn"]
CAST_MODES = ["nearest_even", "nearest_away", "toward_zero", "up", "down"]


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
    """
    rng = np.random.default_rng(_seed(name, salt))
    z = rng.standard_normal(n, dtype=np.float32)
    if name == "float8_e8m0fnu":
        return np.exp2(z * np.float32(16.0))
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
    key: str                      # "ml" (ml_dtypes) or "ref" (other baseline)
    label: str                    # e.g. "ml_dtypes", "np u8 cast", "torch"
    factory: Callable[[], Callable[[], object]]
    target: Optional[float]       # required baseline/minifloat ratio, None = report only
    # NumPy's own uint8 (bfloat16: uint16) operation moving the same bytes:
    # a floor no kernel gets far below, so ml_dtypes ms / its ms bounds the
    # ml/mf ratio this machine allows
    same_traffic: bool = False
    ms: Optional[float] = None
    error: Optional[str] = None

    @property
    def ratio_needed(self):
        return self.target


@dataclass
class Case:
    group: int
    name: str
    mf_factory: Callable[[], Callable[[], object]]
    refs: List[Ref] = field(default_factory=list)
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


def first_line(exc):
    text = f"{type(exc).__name__}: {exc}".strip()
    return text.splitlines()[0] if text else type(exc).__name__


def build_cases(data, torch):
    cases = []

    def add(group, name, mf_factory, *refs):
        cases.append(Case(group, name, mf_factory, list(refs)))

    # 1. float32 <-> F, plus NumPy's uint8 casts of the same length
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

        add(1, f"f32 -> {f}", mf_f32_to,
            Ref("ml", "ml_dtypes", md_f32_to, 20.0),
            Ref("ref", "np f32->u8", np_f32_to_u8, 0.5, same_traffic=True))

        def mf_to_f32(f=f):
            a = data.codes(f).view(mf_dtype(f))
            return lambda: a.astype(np.float32)

        def md_to_f32(f=f):
            a = data.codes(f).view(md_dtype(f))
            return lambda: a.astype(np.float32)

        def np_u8_to_f32(f=f):
            u = data.codes(f)
            return lambda: u.astype(np.float32)

        add(1, f"{f} -> f32", mf_to_f32,
            Ref("ml", "ml_dtypes", md_to_f32, 20.0),
            Ref("ref", "np u8->f32", np_u8_to_f32, 0.5, same_traffic=True))

    # 2. float64 -> F
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

        add(2, f"f64 -> {f}", mf_f64, Ref("ml", "ml_dtypes", md_f64, 15.0),
            Ref("ref", "np f64->u8", np_f64_to_u8, None, same_traffic=True))

    # 3. F -> another minifloat format
    for f in ALL:
        g = "float8_e5m2" if f == "float8_e4m3fn" else "float8_e4m3fn"

        def mf_cross(f=f, g=g):
            a, dt = data.codes(f).view(mf_dtype(f)), mf_dtype(g)
            return lambda: a.astype(dt)

        def md_cross(f=f, g=g):
            a, dt = data.codes(f).view(md_dtype(f)), md_dtype(g)
            return lambda: a.astype(dt)

        add(3, f"{f} -> {g}", mf_cross, Ref("ml", "ml_dtypes", md_cross, 30.0))

    # 4. strided (step-2 views of 2N-element bases; N elements converted)
    for f in STRIDED:
        def mf_s_to(f=f):
            x, dt = data.x32_base2(f)[::2], mf_dtype(f)
            return lambda: x.astype(dt)

        def md_s_to(f=f):
            x, dt = data.x32_base2(f)[::2], md_dtype(f)
            return lambda: x.astype(dt)

        add(4, f"f32[::2] -> {f}", mf_s_to, Ref("ml", "ml_dtypes", md_s_to, 10.0))

        def mf_s_from(f=f):
            a = data.codes_base2(f).view(mf_dtype(f))[::2]
            return lambda: a.astype(np.float32)

        def md_s_from(f=f):
            a = data.codes_base2(f).view(md_dtype(f))[::2]
            return lambda: a.astype(np.float32)

        add(4, f"{f}[::2] -> f32", mf_s_from, Ref("ml", "ml_dtypes", md_s_from, 10.0))

    # 5. bfloat16
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

    add(5, "f32 -> bfloat16", mf_bf_to, Ref("ml", "ml_dtypes", md_bf_to, 1.0),
        Ref("ref", "np f32->u16", np_f32_to_u16, None, same_traffic=True))
    add(5, "bfloat16 -> f32", mf_bf_from, Ref("ml", "ml_dtypes", md_bf_from, 1.0),
        Ref("ref", "np u16->f32", np_u16_to_f32, None, same_traffic=True))
    add(5, "bfloat16 a + b", bf_add(mf_dtype), Ref("ml", "ml_dtypes", bf_add(md_dtype), 1.0))

    # 6. 8-bit arithmetic / comparisons / reductions
    # (label, operation, NumPy uint8 operation with the same bytes in and out
    # when not the same one: uint8 division is compute-bound in NumPy, so
    # a / b is paired with a + b; NumPy's uint8 sum widens every byte to a
    # 64-bit integer, so a.sum() is paired with the byte reduction a.max())
    ops = [
        ("a + b", lambda a, b: (lambda: a + b), None),
        ("a - b", lambda a, b: (lambda: a - b), None),
        ("a * b", lambda a, b: (lambda: a * b), None),
        ("a / b", lambda a, b: (lambda: a / b), ("a + b", lambda a, b: (lambda: a + b))),
        ("a < b", lambda a, b: (lambda: a < b), None),
        ("a == b", lambda a, b: (lambda: a == b), None),
        ("np.maximum(a, b)", lambda a, b: (lambda: np.maximum(a, b)), None),
        ("a.sum()", lambda a, b: (lambda: a.sum()), ("a.max()", lambda a, b: (lambda: a.max()))),
    ]
    for f in EIGHT_BIT:
        for opname, op, u8_op in ops:
            def factory(dtype_of, f=f, op=op):
                def make():
                    dt = dtype_of(f)
                    a = data.codes(f).view(dt)
                    b = data.codes(f, 1).view(dt)
                    return op(a, b)
                return make

            def np_u8(f=f, op=u8_op[1] if u8_op else op):
                return op(data.codes(f), data.codes(f, 1))

            u8_label = "np u8 " + (u8_op[0] if u8_op else opname)
            add(6, f"{f} {opname}", factory(mf_dtype),
                Ref("ml", "ml_dtypes", factory(md_dtype), 20.0),
                Ref("ref", u8_label, np_u8, None, same_traffic=True))

    # 7. matmul
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

        add(7, f"{f} A @ B", mm(mf_dtype),
            Ref("ml", "ml_dtypes", mm(md_dtype), None),
            Ref("ref", "np f32 A@B", mm(None), 1 / 1.5))

    # 8. torch
    if torch is not None:
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

            add(8, f"torch f32 -> {f}", mf_to, Ref("ref", "torch", t_to, 1.0))
            add(8, f"torch {f} -> f32", mf_from, Ref("ref", "torch", t_from, 1.0))

    # 9. mf.cast with an explicit rounding mode / saturation vs plain astype
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

            add(9, f"mf.cast f32 -> {f} {mode}", mf_cast,
                Ref("ref", "mf astype", astype_of(f, data.x32), 0.5))
    for mode in CAST_MODES:
        def mf_cast64(mode=mode):
            x, dt = data.x64("float8_e4m3fn"), mf_dtype("float8_e4m3fn")
            return lambda: mf.cast(x, dt, rounding=mode, saturate=True)

        add(9, f"mf.cast f64 -> float8_e4m3fn {mode} saturate", mf_cast64,
            Ref("ref", "mf astype", astype_of("float8_e4m3fn", data.x64), 0.5))

    # 10. block quantization of N float32 values
    # one standard-normal input shared by each quantize and its baseline, so
    # both read the same memory (page placement moves timings by tens of %)
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
        add(10, label, mf_quantize, Ref("ref", "f32->e4m3fn", f32_to_e4m3fn, 1 / 3))

    # 11. everyday operations on float8_e4m3fn: a scalar operand, reductions
    # to one element, positions, sorting (reported, not targets); standard
    # normal input, so no NaN (which would end a max or argmax at once)
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
                return op(data.codes("float8_e4m3fn", source="bfloat16").view(dtype_of("float8_e4m3fn")))
            return make

        add(11, opname, everyday_factory(mf_dtype), Ref("ml", "ml_dtypes", everyday_factory(md_dtype), None))
    sys.path.insert(0, HERE) if HERE not in sys.path else None
    import int_cases  # 12. sub-byte integers (issue 19)
    int_cases.add_int_cases(add, Ref, mf_dtype, data.n)
    return cases


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
    timed = time_interleaved([case.mf_factory] + [r.factory for r in case.refs], repeat)
    ms, err = timed[0]
    if err is not None:
        case.mf_error = first_line(err)
    else:
        case.mf_ms = ms
    for r, (ms, err) in zip(case.refs, timed[1:]):
        if err is not None:
            r.error = first_line(err)
        else:
            r.ms = ms


# --------------------------------------------------------------------------
# evaluation and reporting
# --------------------------------------------------------------------------
def ratio(case, r):
    if r is None or r.ms is None or case.mf_ms is None or case.mf_ms <= 0:
        return None
    return r.ms / case.mf_ms


def evaluate(case):
    """List of (ref, state, text) for refs with a target; state in ok/miss/unchecked."""
    out = []
    for r in case.refs:
        if r.target is None:
            continue
        if r.ms is None:
            out.append((r, "unchecked", f"{r.label} n/a: not checked"))
        elif case.mf_ms is None:
            out.append((r, "miss", f"minifloat failed ({case.mf_error})"))
        else:
            q = ratio(case, r)
            if q >= r.target:
                out.append((r, "ok", f"{r.label} {q:.2f}x >= {fmt_target(r.target)}"))
            else:
                out.append((r, "miss", f"{r.label}/mf {q:.2f}x < {fmt_target(r.target)}"
                            + ceiling_note(case, r)))
    return out


def ceiling_note(case, r):
    """For a missed ml_dtypes target: how far ml_dtypes itself is from NumPy's
    own uint8 operation on the same bytes, when that is below the target (then
    the target asks minifloat to beat NumPy's plain byte loop)."""
    floor = next((f for f in case.refs if f.same_traffic and f.ms), None)
    if r.key != "ml" or floor is None or r.ms is None:
        return ""
    ceiling = r.ms / floor.ms
    if ceiling >= r.target:
        return ""
    return (f" (beyond this machine: ml_dtypes takes only {ceiling:.1f}x the time of NumPy's "
            f"own {floor.label[3:]} on the same bytes, minifloat {case.mf_ms / floor.ms:.2f}x)")


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
    if r.key == "ref" and r.target < 1:
        return f">= {fmt_target(r.target)} (mf <= {1 / r.target:.3g}x {r.label.split()[0]})"
    return f">= {fmt_target(r.target)}"


COLUMNS = ["case", "minifloat ms", "ml_dtypes ms", "ml/mf", "ml target",
           "other", "other ms", "other/mf", "other target", "status"]


def table_rows(cases, notes):
    """Rows of strings; error messages go into `notes` (footnotes) and cells say n/a [eK]."""
    def na(err):
        notes.append(err)
        return f"n/a [e{len(notes)}]"

    rows = []
    for c in cases:
        ml, other = c.ref("ml"), c.ref("ref")
        mf_cell = fmt_ms(c.mf_ms) if c.mf_error is None else na(c.mf_error)

        def ms_cell(r):
            if r is None:
                return "—"
            return fmt_ms(r.ms) if r.error is None else na(r.error)

        ev = evaluate(c)
        states = [s for _, s, _ in ev]
        if "miss" in states:
            status = "MISS (" + ", ".join(
                ("ml" if r.key == "ml" else r.label) for r, s, _ in ev if s == "miss") + ")"
        elif states and all(s == "ok" for s in states):
            status = "ok"
        elif "ok" in states:
            status = "ok; " + ", ".join(
                f"{r.label} n/a: not checked" for r, s, _ in ev if s == "unchecked")
        elif states:
            status = "not checked (baseline n/a)"
        else:
            status = "report only"
        rows.append([
            c.label, mf_cell, ms_cell(ml), fmt_ratio(ratio(c, ml)), target_text(ml),
            other.label if other else "—", ms_cell(other) if other else "—",
            fmt_ratio(ratio(c, other)), target_text(other) if other else "",
            status,
        ])
    return rows


def load_avg():
    """1-minute load average (other processes competing for the cores skew timings)."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except (OSError, AttributeError):
        return "?"


def machine_facts(n, repeat, torch, load_start):
    cpu = "unknown"
    flags = []
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name") and cpu == "unknown":
                    cpu = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    have = set(line.split(":", 1)[1].split())
                    flags = [f for f in ("sse4_2", "avx", "avx2", "f16c", "fma", "avx512f",
                                         "avx512bw", "avx512vl", "avx512_bf16", "avx512_fp16",
                                         "amx_bf16") if f in have]
    except OSError:
        cpu = platform.processor() or "unknown"
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    facts = [
        ("date", datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")),
        ("CPU", cpu),
        ("cores", f"{os.cpu_count()} logical ({usable} usable); benchmark is single-threaded"),
        ("SIMD flags", " ".join(flags) or "—"),
        ("Python", platform.python_version()),
        ("numpy", np.__version__),
        ("ml_dtypes", md.__version__ if md is not None else "not installed"),
        ("minifloat", getattr(mf, "__version__", "?")),
        ("kernels", f"{mf._core._active_kernels()} (hand-written set in use; "
                    "MINIFLOAT_DISABLE_AVX512=1 / MINIFLOAT_DISABLE_AVX2=1 step down)"),
        ("torch", (torch.__version__ + f" (threads={torch.get_num_threads()})")
         if torch is not None else "not installed (group 8 skipped)"),
        ("N", f"{n:,} elements per vector case; matmul {MATMUL_SIZE}x{MATMUL_SIZE}"),
        ("timing", f"time.perf_counter, 1 warm-up, best of {repeat} runs (fewer, min "
                   f"{MIN_REPEAT}, once a callable used {TIME_CAP_S}s; more, up to "
                   f"{EXTEND * repeat}, until it used {MIN_TIME_S}s), ms"),
        ("load avg", f"{load_start} at start, {load_avg()} at end (1-min; "
                     f"{os.cpu_count()} cores; > ~1 means other processes competed)"),
    ]
    return facts


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


def summarize(cases):
    met = missed = unchecked = 0
    misses = []
    for c in cases:
        for r, s, text in evaluate(c):
            if s == "ok":
                met += 1
            elif s == "miss":
                missed += 1
                misses.append(f"{c.label}: {text}")
            else:
                unchecked += 1
    return met, missed, unchecked, misses


GROUP_COLUMNS = ["group", "cases", "missed", "ml_dtypes / minifloat: min · median · max",
                 "minifloat / other baseline", "targets"]


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


def group_rows(cases):
    """One row per group: how many cases missed a target, the spread of the
    ml_dtypes ratios, and minifloat's time over the other baseline's (a
    cost, lower is better) as a range."""
    rows = []
    for g in sorted({c.group for c in cases}):
        members = [c for c in cases if c.group == g]
        missed = sum(any(s == "miss" for _, s, _ in evaluate(c)) for c in members)
        ml = [q for c in members if (q := ratio(c, c.ref("ml"))) is not None]
        others = [(c.ref("ref").label, q) for c in members
                  if c.ref("ref") is not None and (q := ratio(c, c.ref("ref"))) is not None]
        if others:
            costs = sorted(1 / q for _, q in others)
            labels = sorted({label for label, _ in others})
            if len(labels) > 2:
                name = "NumPy, same bytes" if all(x.startswith("np ") for x in labels) else "baseline"
            else:
                name = " / ".join(labels)
            other = f"{name}: {costs[0]:.2f}x – {costs[-1]:.2f}x"
        else:
            other = "—"
        title = GROUP_TITLES[g]
        targets = title[title.find("(") + 1:title.rfind(")")] if "(" in title else ""
        rows.append([f"{g}. {title.split(' (')[0]}", str(len(members)), str(missed),
                     spread_text(ml, fmt_ratio), other, targets])
    return rows


def write_chart(path, cases):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:
        return False
    bars = []  # (label, ratio or None, target, state)
    for c in cases:
        ev = {id(r): s for r, s, _ in evaluate(c)}
        for r in c.refs:
            if r.target is None:
                continue
            bars.append((f"{c.label}  vs {r.label}", ratio(c, r), r.target, ev.get(id(r))))
    if not bars:
        return False
    h = max(3.0, 0.2 * len(bars) + 1.2)
    fig, ax = plt.subplots(figsize=(11, h))
    ys = list(range(len(bars)))[::-1]
    vals = [b[1] if b[1] is not None else np.nan for b in bars]
    finite = [v for v in vals if v == v and v > 0] + [b[2] for b in bars]
    lo = min(finite) / 2
    colors = {"ok": "tab:green", "miss": "tab:red"}
    ax.barh(ys, [v if v == v else 0 for v in vals], left=0, height=0.7,
            color=[colors.get(b[3], "lightgrey") for b in bars])
    for y, b in zip(ys, bars):
        ax.plot([b[2], b[2]], [y - 0.45, y + 0.45], color="black", lw=1.5)
        if b[1] is None:
            ax.text(lo * 1.05, y, "n/a", va="center", fontsize=6)
    ax.set_xscale("log")
    ax.set_xlim(left=lo)
    ax.axvline(1.0, color="grey", lw=0.6, ls=":")
    ax.set_yticks(ys)
    ax.set_yticklabels([b[0] for b in bars], fontsize=6)
    ax.set_ylim(-1, len(bars))
    ax.set_xlabel("speedup = baseline time / minifloat time (log); black tick = target")
    ax.set_title("minifloat vs baselines (green: target met, red: missed, grey: n/a)")
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# --------------------------------------------------------------------------
def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true",
                   help="exit non-zero and list every missed target")
    p.add_argument("--out", default=os.path.join(HERE, "results", "latest.md"),
                   help="markdown output (default: benchmarks/results/latest.md)")
    p.add_argument("--chart", default=os.path.join(HERE, "results", "latest.png"),
                   help="chart image, written when matplotlib is importable "
                        "(default: benchmarks/results/latest.png)")
    p.add_argument("--n", type=int, default=DEFAULT_N,
                   help=f"elements per vector case (default {DEFAULT_N:,})")
    p.add_argument("--repeat", type=int, default=DEFAULT_REPEAT,
                   help=f"timed repeats per callable, best is kept (default {DEFAULT_REPEAT})")
    p.add_argument("--only", default=None,
                   help="run only cases whose label contains SUBSTRING (case-insensitive), "
                        "e.g. 'e4m3fn', '[6]', 'matmul', 'torch'")
    p.add_argument("--no-torch", action="store_true", help="skip torch even if importable")
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

    facts = machine_facts(args.n, args.repeat, torch, load_start)
    notes = []
    rows = table_rows(cases, notes)
    groups = group_rows(cases)
    met, missed, unchecked, misses = summarize(cases)
    groups_present = sorted({c.group for c in cases})
    summary = (f"targets: {met} met, {missed} missed, {unchecked} not checked "
               f"(baseline n/a); {len(cases)} cases in {elapsed:.1f} s")

    # ---- console
    print("minifloat benchmark")
    for k, v in facts:
        print(f"  {k:<10} {v}")
    print("  ratios = baseline ms / minifloat ms (higher is better); targets are ratio >= X")
    print()
    print(render_text_table(COLUMNS, rows))
    if notes:
        print()
        for i, n in enumerate(notes, 1):
            print(f"  [e{i}] {n}")
    print()
    print(render_text_table(GROUP_COLUMNS, groups))
    print()
    print(summary)
    if misses:
        print("missed targets:")
        for m in misses:
            print(f"  - {m}")

    # ---- markdown
    md_lines = ["# minifloat benchmark", ""]
    md_lines += [f"- **{k}**: {v}" for k, v in facts]
    md_lines += ["", "Ratios are `baseline ms / minifloat ms` (a speedup, higher is better "
                 "for minifloat); every target is `ratio >= X`. `ml` = ml_dtypes, "
                 "`other` = NumPy's own uint8 operation moving the same bytes (groups 1, 2, "
                 "6; checked in group 1 only; uint16 in group 5), float32 matmul (group 7), "
                 "torch (group 8), minifloat's own astype (group 9) or the float32 -> "
                 "float8_e4m3fn astype (group 10).", "", "Groups:", ""]
    md_lines += [f"{g}. {GROUP_TITLES[g]}" for g in groups_present]
    md_lines += ["", render_md_table(GROUP_COLUMNS, groups), ""]
    md_lines += ["", render_md_table(COLUMNS, rows), ""]
    if notes:
        md_lines += ["Errors:", ""]
        md_lines += [f"- [e{i}] `{n}`" for i, n in enumerate(notes, 1)]
        md_lines += [""]
    md_lines += [f"**{summary}**", ""]
    if misses:
        md_lines += ["Missed targets:", ""] + [f"- {md_escape(m)}" for m in misses] + [""]
    out = os.path.abspath(args.out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as fh:
        fh.write("\n".join(md_lines))
    print(f"\nwrote {out}")
    if args.chart:
        if write_chart(args.chart, cases):
            print(f"wrote {os.path.abspath(args.chart)}")
        else:
            print("matplotlib not importable: no chart written")

    if args.check and missed:
        print(f"\n--check: {missed} target(s) missed", file=sys.stderr)
        for m in misses:
            print(f"  MISS {m}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
