"""Thread safety: the same ufuncs, casts and reductions run from 8 threads at
once give the same bits as one thread -- in this process (loops warmed up)
and in a fresh interpreter where the threads are the first users of every
format and op (lazily built tables, loop registration, caches)."""

import concurrent.futures as cf
import json
import os
import subprocess
import sys
import textwrap

import numpy as np

import reference as R

NAMES = list(R.FORMAT_NAMES)
N = 1 << 17
THREADS = 8


def _work(mf, name, seed):
    """A list of (label, bytes) results for one format."""
    f = R.FORMATS[name]
    T = getattr(mf, name)
    rng = np.random.default_rng(seed)
    ca = rng.integers(0, f.ncodes, N).astype(f.code_dtype)
    cb = rng.integers(0, f.ncodes, N).astype(f.code_dtype)
    a, b = ca.view(T), cb.view(T)
    x32 = (rng.standard_normal(N) * 4).astype(np.float32)
    out = []
    with np.errstate(all="ignore"):
        for op in ("add", "multiply", "divide", "power", "maximum", "nextafter", "arctan2",
                   "floor_divide", "hypot"):
            out.append((op, getattr(np, op)(a, b).tobytes()))
        for op in ("exp", "sin", "sqrt", "log1p", "spacing", "rint", "tanh"):
            out.append((op, getattr(np, op)(a).tobytes()))
        out.append(("less", np.less(a, b).tobytes()))
        out.append(("cast_in", x32.astype(T).tobytes()))
        out.append(("cast_out", a.astype(np.float32).tobytes()))
        out.append(("cast_f64_in", x32.astype(np.float64).astype(T).tobytes()))
        fin = np.isfinite(a.astype(np.float32))
        out.append(("sum", np.asarray(a[fin][:4096].sum()).tobytes()))
        out.append(("cumsum", np.cumsum(a[fin][:2048]).tobytes()))
        mm = a[:64 * 32].reshape(64, 32) @ b[:32 * 16].reshape(32, 16)
        out.append(("matmul", mm.tobytes()))
        out.append(("sort", np.sort(a[:8192], kind="stable").tobytes()))
    return out


def test_threads_match_single_thread(mf):
    tasks = [(NAMES[i % len(NAMES)], i % 3) for i in range(3 * len(NAMES))]
    single = {t: _work(mf, *t) for t in set(tasks)}
    with cf.ThreadPoolExecutor(THREADS) as ex:
        futs = {ex.submit(_work, mf, *t): t for t in tasks}
        for fu in cf.as_completed(futs):
            t = futs[fu]
            got = fu.result()
            for (label, g), (_, e) in zip(got, single[t]):
                assert g == e, (t, label)


def test_same_op_same_array_from_many_threads(mf):
    """8 threads on the very same input arrays (and separate outputs)."""
    for name in ("float8_e4m3fn", "bfloat16", "float4_e2m1fn"):
        f = R.FORMATS[name]
        T = getattr(mf, name)
        rng = np.random.default_rng(1)
        a = rng.integers(0, f.ncodes, 1 << 18).astype(f.code_dtype).view(T)
        b = rng.integers(0, f.ncodes, 1 << 18).astype(f.code_dtype).view(T)

        def run(_):
            with np.errstate(all="ignore"):
                return [np.add(a, b).tobytes(), np.exp(a).tobytes(),
                        a.astype(np.float32).astype(T).tobytes()]

        ref = run(0)
        with cf.ThreadPoolExecutor(THREADS) as ex:
            for res in ex.map(run, range(2 * THREADS)):
                assert res == ref, name


def test_fp_status_is_per_thread(mf):
    """np.errstate and the FP flags stay with their thread."""
    T = mf.float8_e4m3fn
    mx = np.full(1 << 16, 448.0).astype(T)
    ok = np.ones(1 << 16, T)

    def overflowing(_):
        with np.errstate(over="raise", invalid="ignore"):
            try:
                np.add(mx, mx)
            except FloatingPointError:
                return "raised"
        return "silent"

    def clean(_):
        with np.errstate(all="raise", under="ignore"):
            for _ in range(20):
                np.add(ok, ok)
        return "clean"

    with cf.ThreadPoolExecutor(THREADS) as ex:
        f1 = [ex.submit(overflowing, i) for i in range(THREADS)]
        f2 = [ex.submit(clean, i) for i in range(THREADS)]
        assert [f.result() for f in f1] == ["raised"] * THREADS
        assert [f.result() for f in f2] == ["clean"] * THREADS


FRESH = textwrap.dedent(
    """
    import concurrent.futures as cf, hashlib, json, sys
    sys.path.insert(0, {tests!r})
    import numpy as np
    import minifloat as mf
    from test_threads import _work, NAMES
    tasks = [(NAMES[i % len(NAMES)], 0) for i in range(2 * len(NAMES))]
    # first use of every format and op happens concurrently
    with cf.ThreadPoolExecutor({threads}) as ex:
        conc = list(ex.map(lambda t: _work(mf, *t), tasks))
    single = {{t: _work(mf, *t) for t in set(tasks)}}
    bad = []
    for t, got in zip(tasks, conc):
        for (label, g), (_, e) in zip(got, single[t]):
            if g != e:
                bad.append([t[0], label])
    print(json.dumps(bad))
    """
)


def test_first_use_from_threads_in_fresh_interpreter():
    tests = os.path.dirname(os.path.abspath(__file__))
    code = FRESH.format(tests=tests, threads=THREADS)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    bad = json.loads(r.stdout.strip().splitlines()[-1])
    assert bad == [], bad


# ---------------------------------------------------------------------------
# The worker pool (csrc/kernels/thread_pool.h, python/minifloat/_threads.py):
# every split operation gives the bits of one thread for any thread count.
# The measured minimum chunk is lowered to 256 values so that arrays of a
# few thousand values are split into many chunks; _last_parallel_threads
# says that a call did run on more than one thread.

import contextlib
import multiprocessing
import threading
import time
import warnings

import pytest

POOL_SIZES = (1, 2, 3, 4)
SMALL_CHUNK = 256


@pytest.fixture
def split(mf):
    """Small chunks for the test; the thread count and chunks restored after."""
    before = mf.get_num_threads()
    chunk = mf._core._thread_min_chunk_override()  # MINIFLOAT_THREAD_MIN_CHUNK (sanitize.sh)
    mf._core._set_thread_min_chunk(SMALL_CHUNK)
    try:
        with np.errstate(all="ignore"):
            yield mf
    finally:
        mf._core._set_thread_min_chunk(chunk)
        mf.set_num_threads(before)


def _values(n, seed=0, wide=False):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n) * np.exp2(rng.integers(-30, 30 if wide else 12, n))
    x[:: 97] = np.inf
    x[1:: 101] = np.nan
    x[2:: 103] = 0.0
    return x


def _ops(mf):
    """(label, callable returning bytes) for every kind of split work."""
    n = 40_000
    x64 = _values(n)
    x32 = x64.astype(np.float32)
    e4 = mf.float8_e4m3fn
    a = np.random.default_rng(1).integers(0, 256, n).astype(np.uint8).view(e4)
    b = np.random.default_rng(2).integers(0, 256, n).astype(np.uint8).view(e4)
    bf = np.random.default_rng(3).integers(0, 1 << 16, n).astype(np.uint16).view(mf.bfloat16)
    f4 = np.random.default_rng(4).integers(0, 16, n).astype(np.uint8).view(mf.float4_e2m1fn)
    f6 = np.random.default_rng(5).integers(0, 64, n).astype(np.uint8).view(mf.float6_e3m2fn)
    m = x32[: 64 * 256].reshape(64, 256)
    ma = a[: 96 * 80].reshape(96, 80)
    mb = b[: 80 * 72].reshape(80, 72)
    v = b[:80]
    ops = {
        "astype f32": lambda: x32.astype(e4).tobytes(),
        "astype f64": lambda: x64.astype(mf.float8_e5m2).tobytes(),
        "astype f64 bfloat16": lambda: x64.astype(mf.bfloat16).tobytes(),
        "astype decode": lambda: a.astype(np.float32).tobytes(),
        "astype decode f64": lambda: bf.astype(np.float64).tobytes(),
        "astype format": lambda: a.astype(mf.float8_e5m2).tobytes(),
        "astype e8m0": lambda: x64.astype(mf.float8_e8m0fnu).tobytes(),
        "add": lambda: np.add(a, b).tobytes(),
        "multiply bf16": lambda: np.multiply(bf, bf).tobytes(),
        "scalar add": lambda: np.add(a, e4(1.5)).tobytes(),
        "exp": lambda: np.exp(a).tobytes(),
        "sin bf16": lambda: np.sin(bf).tobytes(),
        "power": lambda: np.power(a, b).tobytes(),
        "maximum": lambda: np.maximum(a, b).tobytes(),
        "less": lambda: np.less(a, b).tobytes(),
        "isnan": lambda: np.isnan(a).tobytes(),
        "divmod": lambda: b"".join(r.tobytes() for r in np.divmod(a, b)),
        "frexp": lambda: b"".join(r.tobytes() for r in np.frexp(bf)),
        "clip": lambda: np.clip(a, e4(-2), e4(3)).tobytes(),
        "in place": lambda: (lambda c: (np.add(c, b, out=c), c.tobytes())[1])(a.copy()),
        "strided": lambda: x32[::3].astype(e4).tobytes(),
    }
    for mode in ("nearest_even", "nearest_away", "toward_zero", "up", "down"):
        ops[f"cast {mode}"] = lambda mode=mode: mf.cast(x32, e4, rounding=mode).tobytes()
        ops[f"cast f64 {mode}"] = lambda mode=mode: mf.cast(x64, mf.float6_e2m3fn, rounding=mode).tobytes()
    for fmt in ("float8_e4m3fn", "float8_e8m0fnu", "float4_e2m1fn", "bfloat16"):
        T = getattr(mf, fmt)
        ops[f"stochastic f32 {fmt}"] = lambda T=T: mf.cast(x32, T, rounding="stochastic", rng=7).tobytes()
        ops[f"stochastic f64 {fmt}"] = lambda T=T: mf.cast(x64, T, rounding="stochastic", rng=8).tobytes()
    ops["stochastic int64"] = lambda: mf.cast(np.arange(-n, n, 2, dtype=np.int64) << 40, e4,
                                              rounding="stochastic", rng=9).tobytes()
    ops["cast saturate"] = lambda: mf.cast(x32, e4, saturate=True).tobytes()
    # (packed casts split at multiples of 131072 values: cast_extras.cpp)
    xp = np.resize(x32, 3 * 131072 + 40)
    ops["cast packed fp4"] = lambda: mf.cast(xp, mf.float4_e2m1fn, packed=True).tobytes()
    ops["cast packed stochastic fp6"] = lambda: mf.cast(xp, mf.float6_e3m2fn, packed=True, rounding="stochastic",
                                                        rng=3).tobytes()
    ops["pack fp4"] = lambda: mf.pack(f4).tobytes()
    ops["pack fp6"] = lambda: mf.pack(f6).tobytes()
    ops["unpack fp6"] = lambda: mf.unpack(mf.pack(f6), mf.float6_e3m2fn, f6.shape).tobytes()
    for scheme in ("mxfp8_e4m3", "mxfp4_e2m1", "mxint8", "nvfp4"):
        def mx_op(scheme=scheme):
            q = mf.mx.quantize(m, scheme) if scheme != "nvfp4" else mf.mx.quantize(m, "nvfp4")
            return q.data.tobytes() + q.scales.tobytes() + q.dequantize().tobytes()
        ops[f"mx {scheme}"] = mx_op
        ops[f"mx {scheme} axis 0"] = lambda scheme=scheme: mf.mx.quantize(m, scheme, axis=0).dequantize().tobytes()
    # mf.quant's two passes: the maxima pass splits by rows, mid row block
    # or (per channel along axis 1) mid row too; a few groups hold inf or NaN
    wq = np.nan_to_num(x32[: 120 * 300].reshape(120, 300), nan=0.5, posinf=3.0, neginf=-3.0)
    wq[5, 7], wq[70, 200], wq[119, 299] = np.inf, np.nan, -np.inf
    for label, kw in (("tensor", {"granularity": "tensor"}), ("channel 0", {"granularity": "channel", "axis": 0}),
                      ("channel 1", {"granularity": "channel", "axis": 1}),
                      ("block (20, 32)", {"granularity": "block", "block_size": (20, 32)}),
                      ("block (1, 32)", {"granularity": "block", "block_size": (1, 32)})):
        def quant_op(kw=kw):
            q = mf.quant.quantize(wq, e4, **kw)
            return q.data.tobytes() + q.scales.tobytes()
        ops[f"quant {label}"] = quant_op
    qa = mf.mx.quantize(ma.astype(np.float32), "mxfp8_e4m3")
    qb = mf.mx.quantize(mb.astype(np.float32), "mxfp8_e4m3", axis=0)
    ops["mx matmul"] = lambda: mf.mx.matmul(qa, qb).tobytes()
    # finite operands with one NaN row of A and one NaN column of B: every
    # thread's rows meet the shared B, its NaN column included
    fa = np.nan_to_num(ma.astype(np.float32), nan=1.0, posinf=2.0, neginf=-2.0)
    fb = np.nan_to_num(mb.astype(np.float32), nan=1.0, posinf=2.0, neginf=-2.0)
    fa[61, 7], fb[40, 50] = np.nan, np.nan
    qfa, qfb = mf.mx.quantize(fa, "mxfp4_e2m1"), mf.mx.quantize(fb, "mxfp6_e3m2", axis=0)
    ops["mx matmul finite"] = lambda: mf.mx.matmul(qfa, qfb).tobytes()
    ops["matmul"] = lambda: np.matmul(ma, mb).tobytes()
    ops["matvec"] = lambda: np.matmul(ma[:, :80], v).tobytes()
    # (vecmat splits blocks of 512 columns; vecdot its outer loop)
    wide = np.resize(b, 80 * 1500).reshape(80, 1500)
    ops["vecmat"] = lambda: np.vecmat(v, wide).tobytes()
    ops["vecmat strided"] = lambda: np.vecmat(v, wide[:, ::2]).tobytes()
    ops["vecdot"] = lambda: np.vecdot(ma, ma[::-1]).tobytes()
    return ops


def test_pool_bits_match_one_thread_for_every_op_kind(split):
    mf = split
    ops = _ops(mf)
    with np.errstate(all="ignore"):
        mf.set_num_threads(1)
        single = {label: op() for label, op in ops.items()}
        for threads in POOL_SIZES[1:]:
            mf.set_num_threads(threads)
            for label, op in ops.items():
                assert op() == single[label], (threads, label)
                # (the last split call of the operation)
                assert mf._core._last_parallel_threads() > 1, (threads, label)


def test_pool_split_calls_use_threads(split):
    mf = split
    x = np.linspace(-100, 100, 1 << 15, dtype=np.float32)
    mf.set_num_threads(3)
    x.astype(mf.float8_e4m3fn)
    assert mf._core._last_parallel_threads() > 1
    mf.set_num_threads(1)
    x.astype(mf.float8_e4m3fn)
    assert mf._core._last_parallel_threads() == 1


@pytest.mark.parametrize("where", ["cast", "ufunc", "mf.cast"])
def test_pool_fp_flags_from_every_worker(split, where):
    """Overflow in any one chunk, whichever thread takes it, reaches np.errstate."""
    mf = split
    mf.set_num_threads(4)
    n = 64 * SMALL_CHUNK
    rng = np.random.default_rng(5)
    for trial in range(12):
        at = int(rng.integers(0, n))  # in one chunk only
        if where == "ufunc":
            a = np.ones(n, mf.float8_e5m2)
            a[at] = mf.float8_e5m2(57344.0)
            run = lambda a=a: np.add(a, a)  # noqa: E731
        else:
            x = np.ones(n, np.float32)
            x[at] = 1e30
            run = (lambda x=x: x.astype(mf.float8_e5m2)) if where == "cast" else \
                  (lambda x=x: mf.cast(x, mf.float8_e5m2, rounding="nearest_even"))
        with np.errstate(over="raise"):
            with pytest.raises(FloatingPointError, match="overflow"):
                run()
        assert mf._core._last_parallel_threads() > 1
        with np.errstate(over="warn"), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run()
        assert any("overflow" in str(w.message) for w in caught), (trial, at)
        with np.errstate(over="ignore"), warnings.catch_warnings():
            warnings.simplefilter("error")
            run()


def test_pool_exact_math_flags_collected(split):
    """Loops whose exact evaluation raises hardware flags (np.exp overflow) on a worker."""
    mf = split
    mf.set_num_threads(4)
    a = np.zeros(1 << 14, mf.bfloat16)
    a[-5] = mf.bfloat16(1000.0)
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            np.exp(a)
    b = np.zeros(1 << 14, mf.bfloat16)
    with np.errstate(all="raise", under="ignore"):
        np.exp(b)


def test_pool_api(mf):
    before = mf.get_num_threads()
    try:
        mf.set_num_threads(3)
        assert mf.get_num_threads() == 3
        with mf.num_threads(1) as n:
            assert n == 1 and mf.get_num_threads() == 1
        assert mf.get_num_threads() == 3
        with pytest.raises(ValueError, match="at least 1"):
            mf.set_num_threads(0)
        for many in (1025, 2**31, 10**12):  # (2**31 once failed in pybind11's int conversion)
            with pytest.raises(ValueError, match="at most 1024"):
                mf.set_num_threads(many)
            with pytest.raises(ValueError, match="at most 1024"):
                with mf.num_threads(many):
                    pass
        with pytest.raises(ValueError, match="1 to 1024"):
            mf._core._set_num_threads(1025)
        mf.set_num_threads(1024)
        assert mf.get_num_threads() == 1024
        mf.set_num_threads(3)
        with pytest.raises(TypeError, match="integer"):
            mf.set_num_threads("2")
        with pytest.raises(TypeError, match="integer"):
            mf.set_num_threads(2.0)
        for flag in (True, np.True_):  # bools have __index__, but are no thread count
            with pytest.raises(TypeError, match="integer"):
                mf.set_num_threads(flag)
        mf.set_num_threads(np.int64(2))
        assert mf.get_num_threads() == 2
    finally:
        mf.set_num_threads(before)


def _task_count():
    return len(os.listdir("/proc/self/task"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs /proc")
def test_pool_threads_do_not_multiply_with_callers(split):
    """8 user threads calling at once: the pool keeps num_threads - 1 workers,
    and every result is one thread's."""
    mf = split
    mf.set_num_threads(3)
    x = _values(1 << 15).astype(np.float32)
    ref = x.astype(mf.float8_e4m3fn).tobytes()
    stoch = mf.cast(x, mf.float8_e4m3fn, rounding="stochastic", rng=1).tobytes()
    baseline = _task_count()  # the pool's workers are started by now

    def run(_):
        out = []
        with np.errstate(all="ignore"):
            for _ in range(20):
                out.append(x.astype(mf.float8_e4m3fn).tobytes() == ref)
                out.append(mf.cast(x, mf.float8_e4m3fn, rounding="stochastic", rng=1).tobytes() == stoch)
        return all(out), _task_count()

    with cf.ThreadPoolExecutor(8) as ex:
        results = list(ex.map(run, range(8)))
    assert all(ok for ok, _ in results)
    # only the executor's own 8 threads were added
    assert max(count for _, count in results) <= baseline + 8


def _pool_worker_states():
    """The scheduler states (R running, S sleeping, ...) of the pool's workers."""
    states = []
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                if f.read().strip() != "minifloat-pool":
                    continue
            with open(f"/proc/self/task/{tid}/stat") as f:
                states.append(f.read().rpartition(")")[2].split()[0])
        except FileNotFoundError:  # (a thread of another library ended)
            continue
    return states


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the threads' states in /proc")
def test_pool_workers_sleep_after_a_loop_of_calls(split):
    """A worker polls for the next job after each call, longer while calls
    come close together (up to a few milliseconds), then sleeps: once a
    loop of calls has stopped, no core is left to a polling worker. The
    workers are named minifloat-pool."""
    mf = split
    mf.set_num_threads(3)
    x = np.linspace(-100, 100, 1 << 15, dtype=np.float32)
    for _ in range(100):
        x.astype(mf.float8_e4m3fn)
        time.sleep(0.001)  # gaps between the calls: the polls grow
    assert mf._core._last_parallel_threads() > 1
    assert len(_pool_worker_states()) >= 2
    deadline = time.monotonic() + 10  # (a loaded machine may run a worker late)
    while True:
        time.sleep(0.05)
        states = _pool_worker_states()
        if all(state in "SD" for state in states):
            break
        assert time.monotonic() < deadline, f"workers still running 10 s after the last call: {states}"


def test_pool_nested_call_from_worker_runs_serially(split):
    """A chunk that calls minifloat again (a nested split) gets one thread and the same bits."""
    mf = split
    mf.set_num_threads(2)
    x = _values(1 << 14).astype(np.float32)
    ref = x.astype(mf.float8_e4m3fn)
    # np.frompyfunc objects run Python, so the nesting is staged through a
    # Python thread pool calling minifloat while the pool is busy
    barrier = threading.Barrier(2)

    def caller(_):
        barrier.wait()
        with np.errstate(all="ignore"):
            return [x.astype(mf.float8_e4m3fn).tobytes() for _ in range(50)]

    with cf.ThreadPoolExecutor(2) as ex:
        for got in ex.map(caller, range(2)):
            assert all(g == ref.tobytes() for g in got)


FORK_CHILD = """
import numpy as np
def child(q):
    import minifloat as mf
    mf._core._set_thread_min_chunk(256)
    x = np.linspace(-500, 500, 1 << 15, dtype=np.float32)
    q.put((x.astype(mf.float8_e4m3fn).tobytes(), mf.cast(x, mf.float8_e4m3fn, rounding="stochastic", rng=3).tobytes(),
           mf._core._last_parallel_threads()))
"""


@pytest.mark.skipif(sys.platform == "win32" or "fork" not in multiprocessing.get_all_start_methods(),
                    reason="needs fork")
def test_pool_survives_fork(split):
    mf = split
    mf.set_num_threads(3)
    x = np.linspace(-500, 500, 1 << 15, dtype=np.float32)
    ref = (x.astype(mf.float8_e4m3fn).tobytes(), mf.cast(x, mf.float8_e4m3fn, rounding="stochastic", rng=3).tobytes())
    assert mf._core._last_parallel_threads() > 1  # the parent's workers exist now
    ctx = multiprocessing.get_context("fork")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads (Python 3.12+)
        with ctx.Pool(2) as pool:
            results = pool.map(_fork_work, range(4))
    for casted, stochastic, used in results:
        assert (casted, stochastic) == ref
        assert used > 1  # the child made its own pool
    # and the parent's pool still works
    assert x.astype(mf.float8_e4m3fn).tobytes() == ref[0]


def _fork_work(_):
    import minifloat as mf
    x = np.linspace(-500, 500, 1 << 15, dtype=np.float32)
    return (x.astype(mf.float8_e4m3fn).tobytes(),
            mf.cast(x, mf.float8_e4m3fn, rounding="stochastic", rng=3).tobytes(),
            mf._core._last_parallel_threads())


def _python(code, env=None, timeout=120):
    full = dict(os.environ)
    full.pop("MINIFLOAT_NUM_THREADS", None)
    full.update(env or {})
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, env=full)


def test_pool_environment_variable():
    r = _python("import minifloat as mf; print(mf.get_num_threads())", {"MINIFLOAT_NUM_THREADS": "3"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["3"]
    r = _python("""
        import warnings
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            import minifloat as mf
        print(mf.get_num_threads() == mf._threads.usable_cpu_count(), any("MINIFLOAT_NUM_THREADS" in str(x.message) for x in w))
        """, {"MINIFLOAT_NUM_THREADS": "zero"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "True"]
    for value in ("2147483648", "999999999999", "1025"):  # (an import error once)
        r = _python("""
            import warnings
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                import minifloat as mf
            print(mf.get_num_threads() == mf._threads.usable_cpu_count(), any("1 to 1024" in str(x.message) for x in w))
            """, {"MINIFLOAT_NUM_THREADS": value})
        assert r.returncode == 0, r.stderr
        assert r.stdout.split() == ["True", "True"], value


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs sched_setaffinity")
def test_pool_default_follows_affinity():
    r = _python("""
        import os
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
        import minifloat as mf
        print(mf.get_num_threads())
        """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["1"]
    r = _python("import os, minifloat as mf; print(mf.get_num_threads(), len(os.sched_getaffinity(0)))")
    got, cpus = map(int, r.stdout.split())
    assert 1 <= got <= cpus


def test_pool_cgroup_quota(tmp_path, monkeypatch, mf):
    """cpu.max of cgroup v2 caps the default (read from the process's own cgroup folder)."""
    from minifloat import _threads
    (tmp_path / "cpu.max").write_text("150000 100000\n")
    # the parser itself, on a folder outside /sys/fs/cgroup (no parents read)
    assert _threads._cgroup_v2_limit(str(tmp_path)) == 2
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert _threads._cgroup_v2_limit(str(tmp_path)) is None


def test_pool_shutdown_with_a_running_pool():
    """The interpreter exits cleanly while a daemon thread keeps the pool busy."""
    r = _python("""
        import threading, numpy as np, minifloat as mf
        mf.set_num_threads(3)
        mf._core._set_thread_min_chunk(256)
        x = np.linspace(-9, 9, 1 << 18, dtype=np.float32)
        y = x.astype(mf.bfloat16)
        q = mf.mx.quantize(x.reshape(-1, 64), "mxfp4_e2m1")
        # NumPy's loops, and minifloat's own functions that release the GIL
        # (csrc/numpy/gil_release.h: pybind11's gil_scoped_release ended such a
        # thread in std::terminate, pybind/pybind11#2215, and on Python 3.13 a
        # thread ended while waiting for the GIL segfaulted in a destructor)
        def spin():
            while True:
                x.astype(mf.float8_e4m3fn)
                np.add(y, y)
                mf.cast(x, mf.float8_e4m3fn, rounding="stochastic", rng=1)
                mf.cast(x, mf.float8_e4m3fn, rounding="up")
                mf.mx.quantize(x.reshape(-1, 64), "nvfp4")
                q.dequantize()
                mf.pack(y.astype(mf.float4_e2m1fn))
                mf.quant.quantize(x.reshape(-1, 64), mf.float8_e4m3fn, granularity="channel")
        for _ in range(3):
            threading.Thread(target=spin, daemon=True).start()
        x.astype(mf.float8_e4m3fn)
        print("bye")
        """, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["bye"]
    # a daemon thread calling a small mf.cast in a loop (the trial's case:
    # most of its time is spent taking the GIL back)
    r = _python("""
        import threading, time, numpy as np, minifloat as mf
        x = np.ones(64, np.float32)
        threading.Thread(target=lambda: [mf.cast(x, mf.float8_e4m3fn, saturate=True) for _ in iter(int, 1)],
                         daemon=True).start()
        time.sleep(0.2)
        print("bye")
        """, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["bye"]
    # every release of the GIL in the extension goes through GilReleased
    csrc = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "csrc")
    if os.path.isdir(csrc):
        for folder, _, names in os.walk(csrc):
            for name in names:
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                    text = f.read()
                own = name in ("gil_release.h", "gil_release.cpp")
                assert "gil_scoped_release" not in text or own, name
                assert "PyEval_SaveThread" not in text or own, name
    # after shutdown the calls still work (serially)
    r = _python("""
        import numpy as np, minifloat as mf
        mf._core._set_thread_min_chunk(256)
        x = np.linspace(-9, 9, 1 << 15, dtype=np.float32)
        ref = x.astype(mf.float8_e4m3fn).tobytes()
        mf._core._shutdown_threads()
        print(x.astype(mf.float8_e4m3fn).tobytes() == ref, mf._core._last_parallel_threads())
        """)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["True", "1"]


@pytest.mark.parametrize("name", ["float8_e4m3fn", "bfloat16", "float4_e2m1fn"])
def test_casts_between_overlapping_buffers_run_front_to_back(split, name):
    """NumPy hands a cast loop 1-d operands that share memory (np.copyto into
    the start of the source's own buffer, or from codes kept at its end)
    and relies on the elements going front to back: such a cast runs on one
    thread. Split, a later chunk's writes overtook an earlier chunk's reads
    (with 16 threads in small chunks, 10-20% of these copies went wrong);
    disjoint operands are still split."""
    mf = split
    mf.set_num_threads(16)
    dtype = np.dtype(getattr(mf, name))
    n = 1 << 16
    x = _values(n).astype(np.float32)
    want = x.astype(dtype)
    for _ in range(20):
        buffer = x.copy()  # narrowing: codes written over the float32 values they come from
        codes = buffer.view(np.uint8)[:n * dtype.itemsize].view(dtype)
        np.copyto(codes, buffer, casting="unsafe")
        assert codes.tobytes() == want.tobytes()
        wide = np.zeros(4 * n, np.uint8)  # widening: codes at the end of the float32 buffer
        source = wide[4 * n - n * dtype.itemsize:].view(dtype)
        source[...] = want
        np.copyto(wide.view(np.float32), source)
        assert wide.view(np.float32).tobytes() == want.astype(np.float32).tobytes()
    np.copyto(np.empty(n, dtype), x, casting="unsafe")  # disjoint: split
    assert mf._core._last_parallel_threads() > 1


def test_an_exit_hook_after_minifloats_may_use_threads():
    """Hooks registered before `import minifloat` run after its own (atexit
    is last in, first out): a worker such a hook starts and joins finishes
    its minifloat calls (a non-daemon thread is never parked); a daemon
    thread that begins a call then is parked, so a join with a timeout
    moves on and the process still exits 0."""
    r = _python("""
        import atexit, threading
        def flush_at_exit():
            import numpy as np, minifloat as mf
            x = np.linspace(-9, 9, 1000, dtype=np.float32)
            done = []
            calls = [lambda: mf.cast(x, mf.float8_e4m3fn), lambda: mf.pack(x.astype(mf.float4_e2m1fn)),
                     lambda: mf.mx.quantize(x, "mxfp8_e4m3"),
                     lambda: mf.cast(x, mf.float8_e4m3fn, rounding="stochastic", rng=2)]
            for call in calls:
                worker = threading.Thread(target=lambda: done.append(call() is not None))
                worker.start()
                worker.join()
            print("joined", len(done), all(done))
            daemon = threading.Thread(target=lambda: done.append(mf.cast(x, mf.float8_e4m3fn)), daemon=True)
            daemon.start()
            daemon.join(0.5)
            print("daemon parked", daemon.is_alive(), len(done))
        atexit.register(flush_at_exit)
        import numpy as np, minifloat as mf
        print("main", mf.cast(np.ones(2), mf.float8_e4m3fn).tolist())
        """, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split("\n")[:3] == ["main [1.0, 1.0]", "joined 4 True", "daemon parked True 4"]


def test_pool_threadpoolctl(split):
    threadpoolctl = pytest.importorskip("threadpoolctl")
    if not hasattr(threadpoolctl, "register"):
        pytest.skip("threadpoolctl < 3.5 has no custom controllers")
    mf = split
    mf.set_num_threads(3)
    info = [lib for lib in threadpoolctl.threadpool_info() if lib["user_api"] == "minifloat"]
    assert len(info) == 1 and info[0]["num_threads"] == 3 and info[0]["version"] == mf.__version__
    x = _values(1 << 14).astype(np.float32)
    with threadpoolctl.threadpool_limits(1):
        assert mf.get_num_threads() == 1
        x.astype(mf.float8_e4m3fn)
        assert mf._core._last_parallel_threads() == 1
    assert mf.get_num_threads() == 3
    with threadpoolctl.threadpool_limits(limits=2, user_api="minifloat"):
        assert mf.get_num_threads() == 2
    with threadpoolctl.threadpool_limits(limits=2**31, user_api="minifloat"):  # (was 1: a C int wrapped)
        assert mf.get_num_threads() == 1024


def test_pool_threadpoolctl_imported_after_minifloat():
    pytest.importorskip("threadpoolctl")
    r = _python("""
        import minifloat as mf
        from threadpoolctl import threadpool_limits
        mf.set_num_threads(2)
        with threadpool_limits(1):
            print(mf.get_num_threads())
        print(mf.get_num_threads())
        """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["1", "2"]
