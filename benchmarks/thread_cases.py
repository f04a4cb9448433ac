"""The threads dimension and the large size (issue 28), and mf.quant's
scaling recipes against the NumPy one-liner (issue 28 item 5), for run.py.

Group 18: each headline case at one thread and at every usable core
(``mf.set_num_threads``), at run.py's N and, unless ``--no-large``, at
LARGE_N values (beyond any cache); the scaling (1-thread time / all-cores
time) is the ratio, with the issue's targets where this machine has at
least two usable cores: >= 1.7 for compute-bound work (stochastic rounding,
MX/NVFP4 quantize, matmul), >= 1.3 for the memory-bound casts at the large
size. Where torch is importable, the conversions torch has are timed
beside it at the same thread count (torch.set_num_threads), target >= 1.

Group 19: every mf.quant recipe on a 4096x4096 float32 matrix against
``(W / s).astype(float8_e4m3fn)`` with s the matching per-channel scales
(the one-liner rounds twice); target one-liner / recipe >= 0.67 (the recipe
at most 1.5x). first_call_facts() times the first call in a fresh process.

run.py runs every other group with minifloat on one thread (its targets
are against single-threaded NumPy and ml_dtypes).
"""
import functools
import os
import subprocess
import sys
import textwrap
import time

import numpy as np

import minifloat as mf

LARGE_N = 67_108_864
LARGE = True  # run.py sets it from --no-large
QUANT_SHAPE = (4096, 4096)


def usable_cores():
    return mf._threads.usable_cpu_count()


@functools.lru_cache(maxsize=2)
def _normal(n):
    return np.random.default_rng(28).standard_normal(n).astype(np.float32)


@functools.lru_cache(maxsize=2)
def _codes(n):
    return _normal(n).astype(mf.float8_e4m3fn)


# After a call, a library's idle worker threads poll for more work before
# they sleep: OpenBLAS's for 2^28 CPU cycles (about 0.1 s), torch's OpenMP
# ones for some milliseconds. In alternating rounds they would take cores
# from the call timed next (on a 16-core Xeon, minifloat's float8 matmul on
# 16 threads right after NumPy's float32 product on 8 ran at its 8-thread
# speed). A call that ran on several of them waits this long before the
# next, untimed; minifloat's own workers poll for 100 microseconds.
SETTLE_S = {"blas": 0.2, "torch": 0.05}


def settling(run, library, threads):
    """`run`, marked for run.py's timer to wait SETTLE_S[library] after
    each call when it ran on more than one thread."""
    if threads > 1:
        run.settle = lambda: time.sleep(SETTLE_S[library])
    return run


def _with_threads(set_num_threads, threads, make, library=None):
    """A factory whose callable runs after ``set_num_threads(threads)``
    (minifloat's or torch's)."""
    def factory():
        fn = make()

        def run():
            set_num_threads(threads)
            return fn()
        return settling(run, library, threads) if library else run
    return factory


def _at(threads, make):
    """A factory whose callable runs with `threads` minifloat threads."""
    return _with_threads(mf.set_num_threads, threads, make)


def _torch_at(torch, threads, make):
    return _with_threads(torch.set_num_threads, threads, make, library="torch")


def _with_blas_at(threads, make, blas_call=False):
    """`_at`, with NumPy's BLAS also held to `threads` (through threadpoolctl
    when importable): the float32 product that is the float8 product's
    floor runs on BLAS threads, which minifloat does not set (blas_call:
    `make`'s callable is that product, which then settles)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return _at(threads, make)
    blas = ThreadpoolController().select(user_api="blas")

    def factory():
        fn = make()

        def run():
            mf.set_num_threads(threads)
            limiter = blas.limit(limits=threads)
            try:
                return fn()
            finally:
                limiter.restore_original_limits()
        return settling(run, "blas", threads) if blas_call else run
    return factory


def _numpy_split(threads, source, out_dtype):
    """A factory: NumPy's own cast of `source()`'s bytes into a new array of
    `out_dtype`, its halves (thirds, ...) cast by `threads` Python threads at
    once (NumPy releases the GIL). It moves what a minifloat cast of the same
    size moves, page faults of the new array included, with nothing to
    convert: with every core, the least time the machine needs, a floor
    under any kernel's time."""
    import threading

    def factory():
        src = source()

        def run():
            out = np.empty(src.shape, out_dtype)
            bounds = [len(src) * i // threads for i in range(threads + 1)]
            parts = [threading.Thread(target=np.copyto, args=(out[lo:hi], src[lo:hi]),
                                      kwargs={"casting": "unsafe"})
                     for lo, hi in zip(bounds[1:-1], bounds[2:])]
            for t in parts:
                t.start()
            np.copyto(out[:bounds[1]], src[:bounds[1]], casting="unsafe")
            for t in parts:
                t.join()
            return out
        return run
    return factory


def _headline(n, torch):
    """(name, kind, minifloat maker, torch maker or None, the bytes a floor
    reference moves: (source maker, output dtype) or None); kind: compute or
    memory."""
    def x():
        return _normal(n)

    def mx_input():
        v = _normal(n)
        return v.reshape(-1, 4096) if n % 4096 == 0 else v.reshape(1, -1)

    cases = [
        # (the floors: uint32 -> uint8 reads 4 bytes and writes 1 per value,
        # uint8 -> float32 the other way; they are timed at the large size)
        ("f32 -> float8_e4m3fn", "memory", lambda: (lambda v=x(): v.astype(mf.float8_e4m3fn)),
         (lambda: (lambda t=torch.from_numpy(x()): t.to(torch.float8_e4m3fn))) if torch is not None else None,
         (lambda: x().view(np.uint32), np.uint8)),
        ("float8_e4m3fn -> f32", "memory", lambda: (lambda a=_codes(n): a.astype(np.float32)),
         (lambda: (lambda t=torch.from_numpy(_codes(n).view(np.uint8)).view(torch.float8_e4m3fn):
                   t.to(torch.float32))) if torch is not None else None,
         (lambda: _codes(n).view(np.uint8), np.float32)),
        # (the compute-bound ones move the same bytes: once one thread is
        # fast enough, the machine's memory is their limit too)
        ("stochastic f32 -> float8_e4m3fn", "compute",
         lambda: (lambda v=x(): mf.cast(v, mf.float8_e4m3fn, rounding="stochastic", rng=1)), None,
         (lambda: x().view(np.uint32), np.uint8)),
        ("mx.quantize mxfp4_e2m1", "compute", lambda: (lambda v=mx_input(): mf.mx.quantize(v, "mxfp4_e2m1")),
         None, (lambda: x().view(np.uint32), np.uint8)),
        ("mx.quantize nvfp4", "compute", lambda: (lambda v=mx_input(): mf.mx.quantize(v, "nvfp4")), None,
         (lambda: x().view(np.uint32), np.uint8)),
        ("mx dequantize mxfp4_e2m1", "memory",
         lambda: (lambda q=mf.mx.quantize(mx_input(), "mxfp4_e2m1"): q.dequantize()), None,
         (lambda: _codes(n).view(np.uint8), np.float32)),
    ]
    return cases


def _matmul_cases(size=1024):
    """(name, kind, maker, floor maker or None): the float8 product's floor
    is NumPy's float32 product (BLAS) at the same thread count, which does
    the same multiply-adds."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((size, size)).astype(np.float32)
    b = rng.standard_normal((size, size)).astype(np.float32)
    return [
        (f"{size}x{size} mx.matmul mxfp8_e4m3", "compute",
         lambda: (lambda qa=mf.mx.quantize(a, "mxfp8_e4m3"), qb=mf.mx.quantize(b, "mxfp8_e4m3", axis=0):
                  mf.mx.matmul(qa, qb)), None),
        (f"{size}x{size} float8_e4m3fn matmul", "compute",
         lambda: (lambda x=a.astype(mf.float8_e4m3fn), y=b.astype(mf.float8_e4m3fn): x @ y),
         lambda: (lambda: a @ b)),
    ]


def thread_cases(add, data, Ref, torch):
    cores = usable_cores()
    sizes = [data.n] + ([LARGE_N] if LARGE and LARGE_N != data.n else [])
    for n in sizes:
        size = f"{n:,}"
        large = n >= LARGE_N
        for name, kind, make, torch_make, floor in _headline(n, torch):
            target = None
            if cores >= 2 and (kind == "compute" or large):
                target = 1.7 if kind == "compute" else 1.3
            refs = [Ref("ref", "mf 1 thread", _at(1, make), target)]
            if floor is not None and target is not None:
                # if minifloat's 1-thread time is within 1.3x of this, the
                # machine's memory cannot give 1.3x to any kernel
                refs.append(Ref("floor", f"np {np.dtype(floor[1]).name} cast, {cores} threads",
                                _numpy_split(cores, *floor), None, floor=True))
            add(f"{name}, {size}: {cores} threads vs 1", _at(cores, make), *refs)
            if torch_make is not None:
                for threads in sorted({1, cores}):
                    add(f"{name}, {size}: {threads} thread(s) vs torch", _at(threads, make),
                        Ref("ref", f"torch {threads}t", _torch_at(torch, threads, torch_make), 1.0))
    for name, kind, make, _floor in _matmul_cases():
        add(f"{name}: {cores} threads vs 1", _with_blas_at(cores, make),
            Ref("ref", "mf 1 thread", _with_blas_at(1, make), 1.7 if cores >= 2 else None))


@functools.lru_cache(maxsize=1)
def _weights():
    return np.random.default_rng(5).standard_normal(QUANT_SHAPE).astype(np.float32)


def _one_liner(axis):
    """(W / s).astype(float8_e4m3fn) with the recipe's scales (axis None: per tensor)."""
    def factory():
        w = _weights()
        amax = np.abs(w).max() if axis is None else np.abs(w).max(axis=1 - axis, keepdims=True)
        s = (amax / np.float32(448)).astype(np.float32)
        return lambda: (w / s).astype(mf.float8_e4m3fn)
    return factory


def quant_cases(add, data, Ref):
    recipes = [
        ("channel, axis=0", {"granularity": "channel", "axis": 0}, 0),
        ("channel, axis=1", {"granularity": "channel", "axis": 1}, 1),
        ("tensor", {"granularity": "tensor"}, None),
        ("block (128, 128)", {"granularity": "block"}, None),
        ("block (1, 128)", {"granularity": "block", "block_size": (1, 128)}, 0),
    ]
    for name, kwargs, axis in recipes:
        def make(kwargs=kwargs):
            w = _weights()
            return lambda: mf.quant.quantize(w, mf.float8_e4m3fn, **kwargs)
        add(f"mf.quant {name} 4096x4096 -> float8_e4m3fn", _at(1, make),
            Ref("ref", "(W / s).astype", _at(1, _one_liner(axis)), 0.67))


FIRST_CALL = textwrap.dedent("""
    import time, numpy as np
    import minifloat as mf
    w = np.random.default_rng(5).standard_normal((4096, 4096)).astype(np.float32)
    mf.set_num_threads(1)
    which = {which!r}
    t = time.perf_counter()
    if which == "one-liner":
        s = (np.abs(w).max(axis=1, keepdims=True) / np.float32(448)).astype(np.float32)
        (w / s).astype(mf.float8_e4m3fn)
    else:
        mf.quant.quantize(w, mf.float8_e4m3fn, granularity="channel", axis={axis})
    print((time.perf_counter() - t) * 1e3)
""")


def first_call_facts(rounds=3):
    """First calls in fresh processes (after import; the best of `rounds`)."""
    def first(which, axis=0):
        best = None
        for _ in range(rounds):
            r = subprocess.run([sys.executable, "-c", FIRST_CALL.format(which=which, axis=axis)],
                               capture_output=True, text=True, timeout=300, env=dict(os.environ))
            if r.returncode != 0:
                return None
            ms = float(r.stdout.split()[-1])
            best = ms if best is None else min(best, ms)
        return best

    one = first("one-liner")
    q0, q1 = first("quant", 0), first("quant", 1)
    if None in (one, q0, q1):
        return [("mf.quant first call", "could not be measured")]
    return [("mf.quant first call", f"4096x4096 channel axis=0 {q0:.1f} ms, axis=1 {q1:.1f} ms, the one-liner "
             f"(max, divide, astype) {one:.1f} ms: {one / q0:.2f}x / {one / q1:.2f}x (fresh process, after import; "
             f"best of {rounds})")]


def cache_sizes():
    """The CPU's caches from sysfs (cpu0), e.g. 'L1d 48K, L2 1024K, L3 32768K'."""
    base = "/sys/devices/system/cpu/cpu0/cache"
    found = []
    try:
        for entry in sorted(os.listdir(base)):
            if not entry.startswith("index"):
                continue
            folder = os.path.join(base, entry)
            level = open(os.path.join(folder, "level")).read().strip()
            kind = open(os.path.join(folder, "type")).read().strip()
            size = open(os.path.join(folder, "size")).read().strip()
            shared = open(os.path.join(folder, "shared_cpu_list")).read().strip()
            label = f"L{level}" + {"Data": "d", "Instruction": "i"}.get(kind, "")
            found.append(f"{label} {size} (shared by CPUs {shared})")
    except OSError:
        return "unknown"
    return ", ".join(found) or "unknown"


def groups(Group, Ref, torch_of):
    """Groups 18 and 19 for run.py's GROUPS (Group and Ref are run.py's)."""
    return [
        Group(18, "threads: all usable cores vs 1 (and vs torch at equal threads)",
              "scaling >= 1.7x compute-bound, >= 1.3x memory-bound casts at the large size (2+ cores); "
              "torch / minifloat >= 1x", lambda add, data, torch: thread_cases(add, data, Ref, torch)),
        Group(19, "mf.quant recipes, 4096x4096", "(W / s).astype / recipe >= 0.67x (recipe at most 1.5x)",
              lambda add, data, torch: quant_cases(add, data, Ref)),
    ]
