#!/usr/bin/env python
"""The many-core scaling curve (issue 28 item 6): each headline case of
run.py's threads group at 1, 2, 4, 8, 16, ... threads (up to the usable
cores), beside torch at the same thread counts and beside the machine's
memory floor at that count.

    python benchmarks/scaling.py [--threads 1,2,4,8,16] [--sizes 67108864]
                                 [--matmul-size 2048] [--repeat R] [--no-torch]
                                 [--out PATH.md]

Per case and thread count t it reports minifloat's time, its scaling
(1-thread time / t-thread time) and that scaling per thread (goal >= 0.7),
the floor at t and torch's conversion at t threads where torch has one
(goal: torch / minifloat >= 1). The floor is what the machine shows it
can do without minifloat: the best of NumPy's own cast of the same bytes
split over 1..t Python threads (moving the bytes); for the float8 matrix
product, NumPy's float32 product at t BLAS threads, which does its
multiply-adds. A cell short of 0.7 per thread whose time is within
FLOOR_SLACK of the floor, or below it, is "at floor": minifloat does the
work about as fast as, or faster than, NumPy alone moves those bytes (or
multiplies) at that thread count. Beyond the cache that is the memory;
within it (arrays of a few MB over many threads) NumPy's split pays for
its threads as well, and so a cell there can be "at floor" while far
faster than the floor.

The compute ceiling is what the machine's cores give arithmetic:
benchmarks/compute_scaling.c runs the same register-only fused
multiply-adds on each of t threads, and its scaling is t * time(1) /
time(t). On t real cores that is t; on a VM whose virtual CPUs share
physical cores, or whose cores slow as more of them run, it is less, and
no kernel's compute-bound work scales further. A cell short of 0.7 per
thread but at >= 0.7 x that ceiling is "at ceiling": the goal, on the
cores the machine really gives.

All calls of one case (every thread count, minifloat, floor and torch) are
timed in alternating rounds, best of `--repeat` (run.py's rule).
"""
import argparse
import datetime
import os
import platform
import re
import subprocess
import sys
import tempfile

# NumPy first, with its BLAS free to use every core: importing run.py sets
# OMP/OPENBLAS_NUM_THREADS=1 for its own single-threaded groups, which must
# not hold back the matrix product here (each call sets its BLAS threads).
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE) if HERE not in sys.path else None

import run  # noqa: E402  (run.py: its timing rule and machine facts)
import thread_cases  # noqa: E402

import minifloat as mf  # noqa: E402

PER_THREAD_GOAL = 0.7
# minifloat within this factor of the floor's time is at the floor
FLOOR_SLACK = 1.2


def thread_counts(usable, requested=None):
    counts = requested or [1 << k for k in range(usable.bit_length()) if 1 << k <= usable]
    if usable not in counts and requested is None:
        counts.append(usable)
    return sorted({t for t in counts if 1 <= t <= usable} | {1})


def cases(n, torch):
    """(name, minifloat maker at t threads, torch maker at t threads or
    None, floor maker at t threads or None) for every headline case."""
    out = []
    for name, _kind, make, torch_make, floor in thread_cases._headline(n, torch):
        out.append((f"{name}, {n:,}",
                    lambda t, make=make: thread_cases._at(t, make),
                    (lambda t, tm=torch_make: thread_cases._torch_at(torch, t, tm)) if torch_make else None,
                    (lambda t, floor=floor: thread_cases._numpy_split(t, *floor)) if floor else None))
    return out


def matmul_cases(size):
    """The matrix products; the float8 one's floor is NumPy's float32 product
    at the same BLAS threads (its multiply-adds)."""
    return [(name, lambda t, make=make: thread_cases._with_blas_at(t, make), None,
             (lambda t, floor=floor: thread_cases._with_blas_at(t, floor, blas_call=True)) if floor else None)
            for name, _kind, make, floor in thread_cases._matmul_cases(size)]


def measure(case, counts, repeat):
    """{t: {"mf": ms, "floor": ms, "torch": ms}} for one case."""
    name, mf_at, torch_at, floor_at = case
    slots, factories = [], []
    for t in counts:
        for kind, maker in (("mf", mf_at), ("floor", floor_at), ("torch", torch_at)):
            if maker is not None:
                slots.append((t, kind))
                factories.append(maker(t))
    timed = run.time_interleaved(factories, repeat)
    result = {t: {} for t in counts}
    for (t, kind), (ms, err) in zip(slots, timed):
        result[t][kind] = ms
        if err is not None:
            print(f"  {name}: {kind} at {t} threads failed: {run.first_line(err)}", flush=True)
    return result


COMPUTE_SCALING_C = os.path.join(HERE, "compute_scaling.c")


def compute_ceiling(counts):
    """({t: the scaling of compute_scaling.c's arithmetic on t threads}, a
    note on where it came from); empty where it cannot run (it needs
    x86-64 with AVX2 and FMA, POSIX threads and a C compiler taking GCC's
    options)."""
    if sys.platform == "win32" or platform.machine().lower() not in ("x86_64", "amd64"):
        return {}, "compute_scaling.c not run (x86-64 Linux/macOS only)"
    cc = run.c_compiler()
    if cc is None:
        return {}, "compute_scaling.c not run (no C compiler on PATH)"
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "compute_scaling")
        try:
            subprocess.run([cc, "-O2", "-mavx2", "-mfma", "-pthread", COMPUTE_SCALING_C, "-o", exe], check=True,
                           capture_output=True, timeout=120)
            out = subprocess.run([exe, *map(str, counts)], check=True, capture_output=True, text=True,
                                 timeout=600).stdout
        except (OSError, subprocess.SubprocessError) as exc:
            return {}, f"compute_scaling.c did not run ({run.first_line(exc)})"
    found = {int(t): float(x) for t, x in re.findall(r"(\d+) threads: [\d.]+ ms, scaling ([\d.]+)", out)}
    if set(found) != set(counts):
        return {}, "compute_scaling.c printed something unexpected"
    return found, f"benchmarks/compute_scaling.c ({os.path.basename(cc)} -O2 -mavx2 -mfma)"


def verdict(t, scaling, ms, floor_ms, ceiling=None):
    if t == 1 or scaling is None:
        return ""
    if scaling >= PER_THREAD_GOAL * t:
        return "met"
    if floor_ms is not None and ms <= FLOOR_SLACK * floor_ms:
        return "at floor"
    if ceiling is not None and scaling >= PER_THREAD_GOAL * ceiling:
        return "at ceiling"
    return "MISS"


def rows_of(name, result, counts, ceiling=None):
    one = result[1].get("mf")
    rows, floor_ms = [], None
    for t in counts:
        r = result[t]
        ms, torch_ms = r.get("mf"), r.get("torch")
        # the floor at t: the least time NumPy needed with at most t threads
        # (splitting a small array over many Python threads costs more than
        # it saves, and no kernel is held to that)
        if r.get("floor") is not None:
            floor_ms = r["floor"] if floor_ms is None else min(floor_ms, r["floor"])
        scaling = one / ms if one and ms else None
        rows.append({
            "case": name, "threads": t, "ms": ms, "scaling": scaling,
            "per_thread": scaling / t if scaling else None, "floor": floor_ms,
            "torch": torch_ms, "vs_torch": torch_ms / ms if torch_ms and ms else None,
            "verdict": verdict(t, scaling, ms, floor_ms, (ceiling or {}).get(t)),
        })
    return rows


def machine_facts(counts, torch, load_start, ceiling, ceiling_note):
    usable = thread_cases.usable_cores()
    try:
        siblings = open("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list").read().strip()
    except OSError:
        siblings = "unknown"
    try:
        nodes = len([d for d in os.listdir("/sys/devices/system/node") if d.startswith("node")])
    except OSError:
        nodes = "unknown"
    try:
        memory = f"{os.sysconf('SC_PHYS_PAGES') * os.sysconf('SC_PAGE_SIZE') / 2**30:.0f} GiB"
    except (ValueError, OSError):
        memory = "unknown"
    return [
        ("date", datetime.datetime.now().strftime("%Y-%m-%d %H:%M")),
        ("CPU", run.cpu_name()),
        ("cores", f"{os.cpu_count()} logical, {usable} usable (affinity mask and cgroup quota); "
                  f"cpu0's hardware-thread siblings: {siblings}; NUMA nodes: {nodes}; memory {memory}"),
        ("caches", thread_cases.cache_sizes()),
        ("SIMD flags", " ".join(run.simd_flags()) or "—"),
        ("versions", f"Python {platform.python_version()}, NumPy {np.__version__}, minifloat "
                     f"{getattr(mf, '__version__', '?')} (kernels: {mf._core._active_kernels()}), torch "
                     f"{torch.__version__ if torch is not None else 'not used'}"),
        ("BLAS", run.blas_note()),
        ("threads", ", ".join(map(str, counts))),
        ("compute ceiling", (", ".join(f"{t}t {ceiling[t]:.2f}x" for t in counts) + f" ({ceiling_note})")
         if ceiling else ceiling_note),
        ("timing", f"run.py's rule: every call of a case in alternating rounds, best of the runs, ms"),
        ("load avg", f"{load_start} at start, {run.load_avg()} at end (1-min)"),
    ]


def fmt(q, suffix="x"):
    return "—" if q is None else f"{q:.2f}{suffix}"


def report(rows, facts, counts):
    checked = [r for r in rows if r["threads"] > 1 and r["verdict"]]
    met = sum(r["verdict"] == "met" for r in checked)
    floor = sum(r["verdict"] == "at floor" for r in checked)
    ceiling = sum(r["verdict"] == "at ceiling" for r in checked)
    vs_torch = [r for r in rows if r["vs_torch"] is not None]
    ahead = sum(r["vs_torch"] >= 1 for r in vs_torch)
    lines = ["# minifloat: the scaling curve", "",
             "Written by `python benchmarks/scaling.py` (issue 28 item 6). Scaling is minifloat's "
             "1-thread time / its t-thread time; per thread is that over t (goal >= "
             f"{PER_THREAD_GOAL}); floor is the best of NumPy's own cast of the same bytes split over 1 to t threads "
             "(for the float8 matrix product: NumPy's float32 product at t BLAS threads); \"at floor\": "
             f"minifloat within {FLOOR_SLACK}x of it or faster (beyond the cache, the memory stops the scaling; "
             "within it, the cost of starting threads on a few MB); "
             "\"at ceiling\": short of it but at >= "
             f"{PER_THREAD_GOAL} x the compute ceiling, the scaling benchmarks/compute_scaling.c's "
             "register-only arithmetic gets from t threads on this machine (t on t real cores; less where "
             "virtual CPUs share cores or slow down together); "
             "torch / mf is torch's time over minifloat's at the same thread count (goal >= 1).", ""]
    lines += [f"- **{k}**: {v}" for k, v in facts]
    lines += ["", "## Verdict", "",
              f"**{met} of {len(checked)} multi-thread cells at >= {PER_THREAD_GOAL} x threads; "
              f"{floor} short of it at the floor (memory or BLAS); {ceiling} at the compute ceiling; "
              f"{len(checked) - met - floor - ceiling} missed. "
              f"Ahead of torch in {ahead} of {len(vs_torch)} comparisons.**", ""]
    names = list(dict.fromkeys(r["case"] for r in rows))
    lines += ["## Scaling (1-thread time / t-thread time)", ""]
    grid = []
    for name in names:
        cells = {r["threads"]: r for r in rows if r["case"] == name}
        grid.append([name, run.fmt_ms(cells[1]["ms"])] +
                    [fmt(cells[t]["scaling"]) + ("" if cells[t]["verdict"] in ("", "met") else
                                                 f" ({cells[t]['verdict']})") for t in counts[1:]])
    lines += [run.render_md_table(["case", "1 thread ms"] + [f"{t} threads" for t in counts[1:]], grid), ""]
    lines += ["## Every cell", ""]
    table = [[r["case"], r["threads"], run.fmt_ms(r["ms"]), fmt(r["scaling"]), fmt(r["per_thread"], ""),
              run.fmt_ms(r["floor"]) if r["floor"] else "—",
              fmt(r["floor"] / r["ms"]) if r["floor"] and r["ms"] else "—",
              run.fmt_ms(r["torch"]) if r["torch"] else "—", fmt(r["vs_torch"]), r["verdict"]]
             for r in rows]
    lines += [run.render_md_table(["case", "threads", "minifloat ms", "scaling", "per thread", "floor ms",
                                   "floor / mf", "torch ms", "torch / mf", "verdict"], table), ""]
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", help="comma-separated thread counts (default: powers of two up to the usable "
                                     "cores, and the usable cores)")
    p.add_argument("--sizes", default=str(thread_cases.LARGE_N),
                   help="comma-separated element counts of the vector cases (default %(default)s)")
    p.add_argument("--repeat", type=int, default=run.DEFAULT_REPEAT,
                   help="best of this many alternating rounds (run.py's rule; default %(default)s)")
    p.add_argument("--no-torch", action="store_true", help="leave torch out even where it is importable")
    p.add_argument("--matmul-size", type=int, default=2048,
                   help="side of the square matrix products (default %(default)s; 0 skips them)")
    p.add_argument("--out", help="markdown report path (default: print only)")
    args = p.parse_args(argv)
    torch = None
    if not args.no_torch:
        try:
            import torch
        except ImportError:
            pass
    usable = thread_cases.usable_cores()
    requested = [int(t) for t in args.threads.split(",")] if args.threads else None
    counts = thread_counts(usable, requested)
    load_start = run.load_avg()
    # the ceiling at the start and again at the end, the higher kept: a VM's
    # cores give more at one time than another, and a low reading would
    # excuse cells the machine could have run faster
    ceiling, ceiling_note = compute_ceiling(counts)
    if ceiling:
        print("  compute ceiling: " + ", ".join(f"{t}t {ceiling[t]:.2f}x" for t in counts), flush=True)
    threads_before = mf.get_num_threads()
    rows = []
    try:
        all_cases = [c for n in map(int, args.sizes.split(",")) for c in cases(n, torch)]
        all_cases += matmul_cases(args.matmul_size) if args.matmul_size > 0 else []
        for case in all_cases:
            result = measure(case, counts, args.repeat)
            rows += rows_of(case[0], result, counts, ceiling)
            print("  " + case[0] + ": " + ", ".join(
                f"{r['threads']}t {run.fmt_ms(r['ms'])} ms ({fmt(r['scaling'])}"
                + (f", torch {fmt(r['vs_torch'])}" if r["vs_torch"] else "") + ")"
                for r in rows if r["case"] == case[0]), flush=True)
    finally:
        mf.set_num_threads(threads_before)
    if ceiling:
        again, _note = compute_ceiling(counts)
        if again:
            readings = {t: (ceiling[t], again[t]) for t in counts}
            ceiling = {t: max(r) for t, r in readings.items()}
            ceiling_note += "; the higher of its readings at the start and the end: " + ", ".join(
                f"{t}t {a:.2f}/{b:.2f}" for t, (a, b) in readings.items() if t > 1)
    text = report(rows, machine_facts(counts, torch, load_start, ceiling, ceiling_note), counts)
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
