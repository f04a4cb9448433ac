"""Calls every public entry point of minifloat in a loop, error paths included,
for leak hunting.

    python tests/tools/leak_driver.py [--iterations N] [--growth] [PATTERN...]
        Runs the valid workloads below and every case of the bad-input
        catalogue (tests/bad_inputs.py; those that crash or change process
        state are left out) N times. Under LeakSanitizer (tests/tools/sanitize.sh)
        the report at exit holds what these calls leaked. --growth also measures,
        per workload, the Python memory (tracemalloc) further calls keep (a screen of
        2 x 20 calls, confirmed by 3 x 50 calls that must each keep >= 16 bytes a call):
        an object a call leaks by its reference count shows here even when the
        object was allocated by NumPy or Python, which LeakSanitizer cannot tell
        apart from Python's own allocations. Exit status 1 if any workload grows.

    python tests/tools/leak_driver.py --filter LOG...
        Prints the leaks of LeakSanitizer logs whose allocation stack passes
        through minifloat's code (Python and NumPy never free some of their own
        memory at exit; those leaks are not ours), and any other
        AddressSanitizer report. Exit status 1 if there is one.
"""
import fnmatch
import gc
import os
import re
import sys
import time
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/, for bad_inputs

OUR_FRAMES = re.compile(r"minifloat::|_core\.cpython|/csrc/")


def valid_workloads():
    """name -> callable: the entry points used as intended."""
    import pickle

    import numpy as np

    import minifloat as mf

    work = {}
    values = np.linspace(-500, 500, 1000, dtype=np.float32)
    for name in mf.FORMAT_NAMES:
        t = getattr(mf, name)
        x = values.astype(t)
        y = np.flip(x)
        w = f"valid/{name}"
        work[f"{w}/from_float32"] = lambda t=t: values.astype(t)
        work[f"{w}/from_float64"] = lambda t=t: values.astype(np.float64).astype(t)
        work[f"{w}/from_int"] = lambda t=t: np.arange(-50, 50).astype(t)
        work[f"{w}/from_objects"] = lambda t=t: np.array([1, 2.5, np.float16(3)], dtype=object).astype(t)
        work[f"{w}/from_str"] = lambda t=t: np.array(["1.5", "nan", "-2"]).astype(t)
        work[f"{w}/to_types"] = lambda x=x: [x.astype(d) for d in (np.float32, np.float64, np.int8, np.int64, bool,
                                                                   "U12", object, np.float16, mf.bfloat16)]
        work[f"{w}/to_formats"] = lambda x=x: [x.astype(getattr(mf, n)) for n in mf.FORMAT_NAMES]
        work[f"{w}/scalar"] = lambda t=t: (t(1.5), str(t(0.1)), repr(t(3)), hash(t(2)), float(t(7)), int(t(2)),
                                           t("2.5"), t(np.float64(1e-3)), t(10**30))
        work[f"{w}/pickle"] = lambda x=x: (pickle.loads(pickle.dumps(x)), pickle.loads(pickle.dumps(x[3])))
        work[f"{w}/binary"] = lambda x=x, y=y: [f(x, y) for f in (np.add, np.subtract, np.multiply, np.divide,
                                                                  np.power, np.arctan2, np.maximum, np.fmin,
                                                                  np.less, np.equal, np.copysign, np.nextafter,
                                                                  np.floor_divide, np.remainder, np.hypot)]
        work[f"{w}/scalar_operand"] = lambda x=x: (x * 2.0, x + 1, x < 0.5, np.maximum(x, 0), np.clip(x, -1, 1))
        work[f"{w}/unary"] = lambda x=x: [f(x) for f in (np.negative, np.absolute, np.sqrt, np.exp, np.log,
                                                         np.sin, np.floor, np.rint, np.isnan, np.signbit,
                                                         np.spacing, np.sign, np.reciprocal)]
        work[f"{w}/two_outputs"] = lambda x=x, y=y: (np.frexp(x), np.modf(x), np.divmod(x, y))
        work[f"{w}/ldexp"] = lambda x=x: np.ldexp(x, np.arange(x.size, dtype=np.int32) % 7 - 3)
        work[f"{w}/reductions"] = lambda x=x: (x.sum(), x.prod(), x.max(), x.min(), x.argmax(), x.argmin(),
                                               x.mean(), x.std(), np.cumsum(x), np.add.accumulate(x),
                                               x.reshape(10, 100).sum(axis=0), x.reshape(10, 100).max(axis=1),
                                               x.sum(dtype=np.float32), np.nansum(x), np.nanmax(x))
        work[f"{w}/ufunc_methods"] = lambda x=x: (np.add.reduceat(x, [0, 10, 500]), np.add.at(x.copy(), [0, 1, 1], 1),
                                                  np.maximum.reduce(x, where=x > 0, initial=x[0]))
        work[f"{w}/linalg"] = lambda x=x: (x[:32].reshape(4, 8) @ x[:32].reshape(8, 4), np.dot(x[:8], x[:8]),
                                           np.einsum("ij,jk->ik", x[:16].reshape(4, 4), x[:16].reshape(4, 4)),
                                           np.vecdot(x[:8], x[:8]), np.inner(x[:5], x[:5]))
        work[f"{w}/ordering"] = lambda x=x: (np.sort(x), np.argsort(x[::3]), np.unique(x), np.nonzero(x),
                                             np.searchsorted(np.sort(x), x[:10]), np.where(x > 0, x, y))
        work[f"{w}/strided"] = lambda x=x: (x[::-3].astype(np.float32), x[1::2] + x[::2], x[::7].sum())
        work[f"{w}/printing"] = lambda x=x: (repr(x), str(x[:5]), np.array2string(x[:20]), x.tolist()[:3])
        work[f"{w}/finfo"] = lambda t=t: (mf.finfo(t), mf.format_info(t), np.finfo(t).max)
        work[f"{w}/cast_modes"] = lambda t=t: [mf.cast(values, t, rounding=r, saturate=s, rng=1)
                                               for r in ("nearest_even", "nearest_away", "toward_zero", "up", "down",
                                                         "stochastic") for s in (False, True)]
        work[f"{w}/cast_objects"] = lambda t=t: mf.cast(np.array([2**70, -3, 0.5, np.float16(2)], dtype=object), t,
                                                        rounding="up")
        work[f"{w}/pack"] = lambda x=x, t=t: mf.unpack(mf.pack(x), t, x.shape)
        if np.dtype(t).itemsize == 1 and not name.startswith("float6"):
            work[f"{w}/dlpack"] = lambda x=x: (mf.from_dlpack(mf.to_dlpack(x)),
                                               mf.to_dlpack(x).__dlpack__(), mf.to_dlpack(x).__dlpack__(max_version=(0, 8)))
    work["valid/bfloat16/dlpack"] = lambda: mf.from_dlpack(mf.to_dlpack(values.astype(mf.bfloat16)))
    rows = values.reshape(10, 100)
    for fmt in mf.mx.FORMATS:
        for mode in mf.mx.SCALE_MODES if fmt != "nvfp4" else ("floor",):
            work[f"valid/mx/{fmt}/{mode}"] = lambda fmt=fmt, mode=mode: mf.mx.quantize(
                rows, fmt, scale_mode=mode, axis=0).dequantize()
    work["valid/mx/nvfp4/auto"] = lambda: mf.mx.quantize(rows, "nvfp4", tensor_scale="auto").dequantize()
    return work


def catalogue_workloads():
    """name -> callable: the bad-input cases that end in an exception or a result."""
    import bad_inputs

    cases = bad_inputs.load()
    return {name: c.fn for name, c in cases.items() if not c.known and not c.isolate}


def _call(fn):
    try:
        fn()
    except Exception:  # noqa: BLE001 - the error paths are what is being exercised
        pass


def _growth(fn, rounds, calls):
    """Python memory kept by each of `rounds` rounds of `calls` calls."""
    sizes = []
    for round_ in range(rounds + 1):
        gc.collect()
        sizes.append(tracemalloc.get_traced_memory()[0])
        if round_ < rounds:
            for _ in range(calls):
                _call(fn)
    return [b - a for a, b in zip(sizes, sizes[1:])]


def run(patterns, iterations, growth):
    import warnings

    import bad_inputs

    warnings.simplefilter("ignore")
    work = valid_workloads()
    work.update(catalogue_workloads())
    names = [n for n in work if not patterns or any(fnmatch.fnmatchcase(n, p) for p in patterns)]
    start = time.monotonic()
    for _ in range(iterations):
        for name in names:
            _call(work[name])
    print(f"leak_driver: {len(names)} workloads x {iterations} in {time.monotonic() - start:.1f} s")
    if not growth:
        return 0
    grown = []
    tracemalloc.start()
    for name in names:
        kept = len(bad_inputs._KEEP_ALIVE)
        for _ in range(3):
            _call(work[name])
        if len(bad_inputs._KEEP_ALIVE) != kept:
            continue  # hand-made DLPack capsules keep their ctypes memory on purpose
        # A quick screen (2 rounds of 20 calls), then a confirmation of what it
        # flags: 3 more rounds of 50 calls that must each keep >= 16 bytes a
        # call (caches that fill up grow in steps, not by every call).
        if min(_growth(work[name], rounds=2, calls=20)) <= 512:
            continue
        rounds = _growth(work[name], rounds=3, calls=50)
        if min(rounds) >= 16 * 50:
            grown.append((name, sum(rounds) / 150))
    tracemalloc.stop()
    for name, per_call in grown:
        print(f"leak_driver: GROWTH {name}: {per_call:.0f} bytes per call")
    print(f"leak_driver: growth check of {len(names)} workloads: {len(grown)} grow")
    return 1 if grown else 0


def filter_reports(paths):
    """Print LeakSanitizer leaks through minifloat's frames and other ASAN errors."""
    found = 0
    for path in paths:
        if not os.path.exists(path):
            continue
        text = open(path, errors="replace").read()
        if "ERROR: AddressSanitizer" in text:
            found += 1
            print(f"== {path}: AddressSanitizer error\n" + "\n".join(text.splitlines()[:40]))
        blocks = re.split(r"\n(?=(?:Direct|Indirect) leak of )", text)
        for block in blocks:
            if not block.startswith(("Direct leak", "Indirect leak")):
                continue
            block = block.split("\n\n")[0]
            if OUR_FRAMES.search(block):
                found += 1
                print(f"== {path}:\n{block}\n")
    print(f"leak_driver: {found} leak(s) or error(s) through minifloat in {len(paths)} report file(s)")
    return 1 if found else 0


def main(argv):
    if argv and argv[0] == "--filter":
        return filter_reports(argv[1:])
    iterations = 1
    growth = False
    patterns = []
    args = iter(argv)
    for arg in args:
        if arg == "--iterations":
            iterations = int(next(args))
        elif arg == "--growth":
            growth = True
        else:
            patterns.append(arg)
    return run(patterns, iterations, growth)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
