"""What importing minifloat costs code that never touches a minifloat array.

    python benchmarks/neighbour.py [--rounds R] [--out PATH.md]

Two measurements, each in fresh interpreters, side by side with ml_dtypes:

1. Import time: `import numpy` then `import minifloat` (or `import ml_dtypes`),
   the second import timed alone with time.perf_counter in the child; the
   best of R alternating rounds.
2. float64 overhead: NumPy calls on small float64 arrays (where a Python-level
   wrapper would show most), timed in one child per setting: NumPy alone, with
   minifloat imported, with minifloat and mf.patch_numpy(), with ml_dtypes
   imported. Settings alternate round by round; each call's best time is kept.
   The ratio is (time with the import) / (time without): 1.00 is no cost.

Writes a markdown report (default benchmarks/results/neighbour.md).
"""
import argparse
import json
import os
import platform
import subprocess
import sys

IMPORT_CHILD = """
import time, numpy
t = time.perf_counter()
import {module}
print(time.perf_counter() - t)
"""

CALLS = {
    "np.dot 4x4": "np.dot(m, m)",
    "ndarray.dot 4x4": "m.dot(m)",
    "np.inner": "np.inner(v, v)",
    "np.einsum('i,i->')": "np.einsum('i,i->', v, v)",
    "np.einsum('ij,jk->ik')": "np.einsum('ij,jk->ik', m, m)",
    "np.convolve": "np.convolve(v, v)",
    "np.sum": "np.sum(v)",
    "np.mean": "np.mean(v)",
    "np.std": "np.std(v)",
    "np.nansum": "np.nansum(v)",
    "np.nanmean": "np.nanmean(v)",
    "np.cumsum": "np.cumsum(v)",
    "np.average": "np.average(v)",
    "np.linalg.norm": "np.linalg.norm(v)",
    "np.iinfo(np.int16)": "np.iinfo(np.int16)",
    "np.histogram": "np.histogram(v, 4)",
    "repr(array)": "repr(v)",
}

SETTINGS = {
    "numpy": "",
    "minifloat": "import minifloat",
    "minifloat + patch_numpy()": "import minifloat; minifloat.patch_numpy()",
    "ml_dtypes": "import ml_dtypes",
}

CALL_CHILD = """
import json, sys, time
import numpy as np
{prelude}
m = np.arange(16.0).reshape(4, 4)
v = np.linspace(0.0, 1.0, 16)
calls = json.loads(sys.argv[1])
best = {{}}
for name, code in calls.items():
    f = eval("lambda: " + code)
    f()
    times = []
    for _ in range(7):
        n = 200
        t = time.perf_counter()
        for _ in range(n):
            f()
        times.append((time.perf_counter() - t) / n)
    best[name] = min(times)
print(json.dumps(best))
"""


def available(module):
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True)
    return done.returncode == 0


def import_times(rounds):
    modules = [m for m in ("minifloat", "ml_dtypes") if available(m)]
    best = {m: float("inf") for m in modules}
    for _ in range(rounds):
        for module in modules:
            out = subprocess.run([sys.executable, "-c", IMPORT_CHILD.format(module=module)],
                                 capture_output=True, text=True, check=True).stdout
            best[module] = min(best[module], float(out))
    return best


def call_times(rounds):
    settings = {k: v for k, v in SETTINGS.items() if "ml_dtypes" not in v or available("ml_dtypes")}
    best = {s: {c: float("inf") for c in CALLS} for s in settings}
    for _ in range(rounds):
        for setting, prelude in settings.items():
            out = subprocess.run([sys.executable, "-c", CALL_CHILD.format(prelude=prelude), json.dumps(CALLS)],
                                 capture_output=True, text=True, check=True).stdout
            for call, seconds in json.loads(out).items():
                best[setting][call] = min(best[setting][call], seconds)
    return best


def report(imports, calls):
    import numpy

    from run import cpu_name  # benchmarks/run.py's description of the CPU (this folder is on sys.path)

    lines = ["# What importing minifloat costs other code", "",
             f"CPU: {cpu_name()}; Python {platform.python_version()}; NumPy {numpy.__version__}; "
             f"one thread; best of alternating rounds.", "",
             "## Import time (after `import numpy`)", "", "| module | ms |", "|---|---|"]
    lines += [f"| {m} | {t * 1e3:.1f} |" for m, t in imports.items()]
    settings = [s for s in calls if s != "numpy"]
    lines += ["", "## float64 calls: time with the import / time without (1.00 = no cost)", "",
              "| call | NumPy alone (µs) | " + " | ".join(settings) + " |",
              "|---|---|" + "---|" * len(settings)]
    for call in CALLS:
        base = calls["numpy"][call]
        ratios = " | ".join(f"{calls[s][call] / base:.2f}" for s in settings)
        lines.append(f"| {call} | {base * 1e6:.2f} | {ratios} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results", "neighbour.md"))
    args = parser.parse_args()
    text = report(import_times(args.rounds * 3), call_times(args.rounds))
    print(text)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
