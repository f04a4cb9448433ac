"""Quantizing an array on disk chunk by chunk: time and the memory it takes.

    python benchmarks/out_of_core.py [--gib 4] [--chunk-mib 64] [--dir DIR] [--out PATH.md]
                                     [--only CASE,...] [--keep-going]

Makes a float32 .npy of --gib GiB (rows of 4096 values, standard normal
times powers of ten, in a temporary directory under --dir; deleted at the
end), then runs each case in a fresh interpreter:

  numpy   np.load + astype(mf.float8_e4m3fn) + mf.save (the in-memory baseline; mf.save
          is np.save of the codes: np.save of a minifloat array pickles every element)
  fp8     mf.zarr.to_zarr(npy, store, mf.float8_e4m3fn, chunks=...)
  mxfp8   mf.zarr.mx_to_zarr(npy, store, "mxfp8_e4m3", axis=-1, chunks=...)
  bf16    mf.zarr.to_zarr(npy, store, mf.bfloat16, chunks=...)

The zarr cases run on dask's threaded scheduler (one thread per core) with
zarr's default codecs (zstd), chunks of --chunk-mib MiB of input (whole rows).
For each: the wall time of the call (timed in the child, imports excluded),
the throughput in GB/s of input (10^9 bytes), and the peak resident memory of
the child's whole process tree: the parent reads VmRSS, RssAnon and RssFile
from /proc/<pid>/status of the child and every descendant every 50 ms and
keeps the largest sum (RssFile: file pages mapped into the process, such as
those of a memory map it read; RssAnon: its own memory), with the child's
ru_maxrss (from wait4: the largest single process) beside it. The input is
in the page cache (it was just written): the times are those of a warm cache.
Each store is checked against the in-memory result on its first and last
rows, then deleted.

Writes the report as markdown to stdout and to --out (default
benchmarks/results/out_of_core.md).
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
COLUMNS = 4096
GIB = 1 << 30
MIB = 1 << 20
TARGET = GIB  # the out-of-core cases' goal: under 1 GiB for a 4 GiB input

CASES = {
    "numpy": "np.load + astype(float8_e4m3fn) + mf.save (in memory)",
    "fp8": "to_zarr(npy, float8_e4m3fn)",
    "mxfp8": 'mx_to_zarr(npy, "mxfp8_e4m3")',
    "bf16": "to_zarr(npy, bfloat16)",
}

CHILD = """
import json, resource, sys, time
import numpy as np
import minifloat as mf
case, npy, out, rows = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
chunks = (rows, {columns})
if case != "numpy":
    import dask, zarr
    mf.zarr  # (registers the zarr data types)
start = time.perf_counter()
if case == "numpy":
    mf.save(out, np.load(npy).astype(mf.float8_e4m3fn))
elif case == "fp8":
    mf.zarr.to_zarr(npy, out, mf.float8_e4m3fn, chunks=chunks)
elif case == "mxfp8":
    mf.zarr.mx_to_zarr(npy, out, "mxfp8_e4m3", axis=-1, chunks=chunks)
elif case == "bf16":
    mf.zarr.to_zarr(npy, out, mf.bfloat16, chunks=chunks)
seconds = time.perf_counter() - start
print(json.dumps({{"seconds": seconds}}))
"""


# --------------------------------------------------------------------------
# The process tree's resident memory
# --------------------------------------------------------------------------

def _children(pid):
    """The child processes of `pid` (all its threads')."""
    found = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                found.extend(int(p) for p in fh.read().split())
        except OSError:
            pass
    return found


def _children_by_scan(pid):
    """The same, scanning /proc (kernels without the children files)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(name))
    return found


CHILDREN = _children if os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children") else _children_by_scan


def tree(pid):
    pids, todo = [], [pid]
    while todo:
        p = todo.pop()
        pids.append(p)
        todo.extend(CHILDREN(p))
    return pids


def memory(pid):
    """(VmRSS, RssAnon, RssFile) of one process in bytes, or None once it
    is gone (a zombie has no VmRSS)."""
    values = {}
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "RssAnon", "RssFile", "RssShmem"):
                    values[key] = int(rest.split()[0]) * 1024
    except OSError:
        return None
    if "VmRSS" not in values:
        return None
    return values["VmRSS"], values.get("RssAnon", 0), values.get("RssFile", 0) + values.get("RssShmem", 0)


def run_measured(argv, interval, env=None):
    """Run `argv`, sampling its process tree's memory every `interval`
    seconds. Returns (stdout, peaks, ru_maxrss in bytes, wall seconds)."""
    out = tempfile.TemporaryFile()
    err = tempfile.TemporaryFile()
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=out, stderr=err, env=env)
    peak = {"rss": 0, "anon_at_peak": 0, "file_at_peak": 0, "anon": 0, "file": 0, "processes": 1, "samples": 0}
    status = rusage = None
    while True:
        pid, status, rusage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        rss = anon = file = 0
        pids = tree(child.pid)
        for p in pids:
            values = memory(p)
            if values:
                rss, anon, file = rss + values[0], anon + values[1], file + values[2]
        peak["samples"] += 1
        peak["processes"] = max(peak["processes"], len(pids))
        if rss > peak["rss"]:
            peak.update(rss=rss, anon_at_peak=anon, file_at_peak=file)
        peak["anon"] = max(peak["anon"], anon)
        peak["file"] = max(peak["file"], file)
        time.sleep(interval)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    out.seek(0)
    err.seek(0)
    stdout, stderr = out.read().decode(), err.read().decode()
    if child.returncode != 0:
        raise RuntimeError(f"{argv[3]} failed ({child.returncode}):\n{stderr[-3000:]}")
    return stdout, peak, rusage.ru_maxrss * 1024, wall


# --------------------------------------------------------------------------
# The input and the checks
# --------------------------------------------------------------------------

def make_input(path, gib, seed=0):
    import numpy as np

    rows = max(1, int(round(gib * GIB / (4 * COLUMNS))))
    rng = np.random.default_rng(seed)
    slab = max(1, (64 * MIB) // (4 * COLUMNS))
    with open(path, "wb") as fh:
        np.lib.format.write_array_header_2_0(fh, {"descr": "<f4", "fortran_order": False, "shape": (rows, COLUMNS)})
        for start in range(0, rows, slab):
            n = min(slab, rows - start)
            x = rng.standard_normal((n, COLUMNS), dtype=np.float32)
            x *= (10.0 ** rng.integers(-3, 4, size=(n, 1))).astype(np.float32)  # rows of many magnitudes
            fh.write(x.tobytes())
    return rows


def check(case, npy, out, rows):
    """The store's first and last rows equal the in-memory result."""
    import numpy as np

    import minifloat as mf

    mf.zarr  # zarr-python loads no data-type entry points: this registers minifloat's
    x = np.load(npy, mmap_mode="r")
    picks = [slice(0, min(64, rows)), slice(max(0, rows - 64), rows)]
    with np.errstate(all="ignore"):
        for pick in picks:
            part = np.array(x[pick])
            if case == "numpy":
                got = mf.load(out, mmap_mode="r")[pick]
                want = part.astype(mf.float8_e4m3fn)
            elif case == "mxfp8":
                import zarr

                group = zarr.open_group(out, mode="r")
                want_q = mf.mx.quantize(part, "mxfp8_e4m3", axis=-1)
                if not (group.attrs["minifloat_mx"]["format"] == "mxfp8_e4m3"
                        and np.array_equal(group["elements"][pick].view(np.uint8), want_q.data.view(np.uint8))
                        and np.array_equal(group["scales"][pick].view(np.uint8), want_q.scales.view(np.uint8))):
                    return False
                continue
            else:
                import zarr

                got = zarr.open_array(out, mode="r")[pick]
                want = part.astype(mf.float8_e4m3fn if case == "fp8" else mf.bfloat16)
            if not np.array_equal(np.asarray(got).view(np.uint8), want.view(np.uint8)):
                return False
    return True


def du(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    total = 0
    for root, _, names in os.walk(path):
        total += sum(os.path.getsize(os.path.join(root, name)) for name in names)
    return total


# --------------------------------------------------------------------------
# The report
# --------------------------------------------------------------------------

def cpu_name():
    from run import cpu_name as describe  # benchmarks/run.py's (this folder is on sys.path)

    return describe()


def memory_total():
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def versions():
    import dask
    import numpy as np
    import zarr

    return f"Python {platform.python_version()}, NumPy {np.__version__}, dask {dask.__version__}, zarr {zarr.__version__}"


def mib(n):
    return f"{n / MIB:,.0f}"


def report(args, rows, input_bytes, results):
    chunk_rows = chunk_rows_of(args)
    total = memory_total()
    lines = [
        "# Out-of-core quantization: time and peak memory",
        "",
        f"Input: float32 .npy of {input_bytes / GIB:.2f} GiB ({rows:,} x {COLUMNS}); zarr chunks of "
        f"{chunk_rows:,} x {COLUMNS} ({chunk_rows * COLUMNS * 4 / MIB:.0f} MiB of input each, "
        f"{-(-rows // chunk_rows)} chunks), dask's threaded scheduler, zarr's default codecs (zstd).",
        f"Machine: {cpu_name()}, {os.cpu_count()} cores"
        + (f", {total / GIB:.0f} GiB RAM" if total else "") + f"; {versions()}.",
        f"Load average (1 min) at start and end: {args.load[0]:.2f}, {os.getloadavg()[0]:.2f} "
        "(on a shared machine the times are noisy).",
        "Peak RSS: the largest sum over the process tree of VmRSS, sampled every "
        f"{args.interval * 1000:.0f} ms from the parent, with RssAnon and RssFile at that moment; max anon/file: "
        "each one's own largest sum; ru_maxrss: the largest single process. Warm page cache.",
        "",
        "| case | what | time (s) | GB/s of input | peak RSS (MiB) | anon at peak | file at peak | max anon | max file "
        "| ru_maxrss | output (MiB) | check |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for case, r in results.items():
        if "error" in r:
            lines.append(f"| {case} | {CASES[case]} | failed: {r['error']} | | | | | | | | | |")
            continue
        p = r["peak"]
        lines.append(
            f"| {case} | {CASES[case]} | {r['seconds']:.2f} | {input_bytes / r['seconds'] / 1e9:.2f} | {mib(p['rss'])} "
            f"| {mib(p['anon_at_peak'])} | {mib(p['file_at_peak'])} | {mib(p['anon'])} | {mib(p['file'])} "
            f"| {mib(r['maxrss'])} | {mib(r['output'])} | {'ok' if r['ok'] else 'MISMATCH'} |")
    lines.append("")
    out_of_core = {case: r for case, r in results.items() if case != "numpy" and "error" not in r}
    if out_of_core:
        def peak_of(r):  # the sampled tree's peak, or the one process's exact high-water mark if larger
            return max(r["peak"]["rss"], r["maxrss"])

        worst = max(out_of_core, key=lambda case: peak_of(out_of_core[case]))
        peak = peak_of(out_of_core[worst])
        verdict = "met" if peak < TARGET else "MISSED"
        lines.append(f"Target, out-of-core peak under 1 GiB (for a 4 GiB input; it does not grow with the input): "
                     f"{verdict}; the largest is {worst}'s, {mib(peak)} MiB.")
        lines.append("")
    return "\n".join(lines)


def chunk_rows_of(args):
    return max(1, int(args.chunk_mib * MIB // (4 * COLUMNS)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gib", type=float, default=4.0, help="input size in GiB (default 4)")
    parser.add_argument("--chunk-mib", type=float, default=64.0, help="MiB of input per chunk (default 64)")
    parser.add_argument("--dir", default=None, help="where the temporary directory goes (default: the system's)")
    parser.add_argument("--out", default=os.path.join(HERE, "results", "out_of_core.md"))
    parser.add_argument("--only", default=",".join(CASES), help=f"cases, comma-separated ({', '.join(CASES)})")
    parser.add_argument("--interval", type=float, default=0.05, help="memory sampling interval in seconds")
    parser.add_argument("--keep-going", action="store_true", help="report a failing case and go on")
    args = parser.parse_args()
    cases = [case.strip() for case in args.only.split(",") if case.strip()]
    unknown = [case for case in cases if case not in CASES]
    if unknown:
        parser.error(f"unknown cases {unknown}: choose from {', '.join(CASES)}")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python") + os.pathsep + env.get("PYTHONPATH", "")
    sys.path.insert(0, os.path.join(ROOT, "python"))
    args.load = os.getloadavg()
    workdir = tempfile.mkdtemp(prefix="minifloat-out-of-core-", dir=args.dir)
    results = {}
    try:
        npy = os.path.join(workdir, "x.npy")
        print(f"writing {args.gib:g} GiB of float32 to {npy} ...", file=sys.stderr)
        rows = make_input(npy, args.gib)
        input_bytes = rows * COLUMNS * 4
        child = CHILD.format(columns=COLUMNS)
        for case in cases:
            out = os.path.join(workdir, "out.npy" if case == "numpy" else f"{case}.zarr")
            print(f"{case}: {CASES[case]} ...", file=sys.stderr)
            try:
                stdout, peak, maxrss, wall = run_measured(
                    [sys.executable, "-c", child, case, npy, out, str(chunk_rows_of(args))], args.interval, env)
                seconds = json.loads(stdout.strip().splitlines()[-1])["seconds"]
                results[case] = {"seconds": seconds, "peak": peak, "maxrss": maxrss, "wall": wall,
                                 "output": du(out), "ok": check(case, npy, out, rows)}
                print(f"  {seconds:.2f} s, peak RSS {mib(peak['rss'])} MiB (anon {mib(peak['anon_at_peak'])}, "
                      f"file {mib(peak['file_at_peak'])})", file=sys.stderr)
            except Exception as error:  # noqa: BLE001 (reported)
                if not args.keep_going:
                    raise
                results[case] = {"error": str(error).splitlines()[0]}
            finally:
                if os.path.isdir(out):
                    shutil.rmtree(out, ignore_errors=True)
                elif os.path.exists(out):
                    os.remove(out)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    text = report(args, rows, input_bytes, results)
    print(text)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as fh:
        fh.write(text + "\n")


if __name__ == "__main__":
    main()
