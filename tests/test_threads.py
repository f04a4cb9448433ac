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
