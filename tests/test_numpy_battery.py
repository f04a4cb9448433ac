"""The NumPy battery (tests/numpy_battery.py) on every format: nothing
crashes or hangs, and every call that works on float16 works on each format
except the known failures listed below, each with its reason.

The table is exact: a failure that is not listed fails the test, and so does
a listed one that starts working (take it out: the table only shrinks).
After a change, regenerate it (reasons already in the table are kept; new
entries say "minifloat: to fix" and need a real reason):

    python tests/numpy_battery.py --print-known-failures

Reasons start with "NumPy:" (NumPy must change; the upstream issue where
there is one), "minifloat: to fix", or "format:" (the format cannot do what
the call asks, e.g. float8_e8m0fnu has no zero).
"""
import importlib.util
import re
import time

import numpy as np
import pytest

import numpy_battery as battery

minifloat = pytest.importorskip("minifloat")

ALL = "ALL"  # every minifloat format (not float16)
FORMATS = list(minifloat.FORMAT_NAMES)
# every format stored in one byte (the same reasons hold for each)
ONE_BYTE = tuple(name for name in FORMATS if minifloat.format_info(name)["itemsize"] == 1)
# formats whose values stop below 6, the samples' largest quotient: their
# samples are halved until they fit (numpy_battery.sample_values)
SCALED_SAMPLES = tuple(name for name in FORMATS
                       if battery.sample_values(np.dtype(getattr(minifloat, name)))[0]
                       not in (battery.A_VALUES, battery.A_VALUES_POW2))
# every signed one-byte format in which assert_array_almost_equal's bound
# 1.5e-6 (a weak Python float) rounds to 0 (unsigned formats compare with
# Python numbers in float64), and float8_e8m0fnu (no zero: a - a is NaN)
BOUND_ROUNDS_TO_ZERO = tuple(name for name in ONE_BYTE
                             if not minifloat.format_info(name)["has_zero"]
                             or (minifloat.format_info(name)["is_signed"]
                                 and float(np.float64(1.5e-6).astype(getattr(minifloat, name))) == 0))
# "float16" in an entry's formats: a float16 call that importing minifloat breaks
REASON_PREFIXES = ("NumPy:", "minifloat: to fix", "format:")

NUMPY_2_5 = tuple(int(p) for p in np.__version__.split(".")[:2]) >= (2, 5)

# (case name, kind: "error" / "crash" / "hang", formats, reason), grouped by cause
KNOWN_FAILURES = [
    # ValueError: Object arrays cannot be loaded when allow_pickle=False
    ('np.lib.format.open_memmap', 'error', ALL,
     'NumPy: numpy/numpy#24110: .npy has no descr for new-style DTypes; since '
      'numpy/numpy#24142 np.save pickles them as an object array, so np.load needs '
      'allow_pickle=True and cannot memory-map'),
    ('np.save / np.load', 'error', ALL,
     'NumPy: numpy/numpy#24110: .npy has no descr for new-style DTypes; since '
      'numpy/numpy#24142 np.save pickles them as an object array, so np.load needs '
      'allow_pickle=True and cannot memory-map'),
    ('np.save / np.load of m.T', 'error', ALL,
     'NumPy: numpy/numpy#24110: .npy has no descr for new-style DTypes; since '
      'numpy/numpy#24142 np.save pickles them as an object array, so np.load needs '
      'allow_pickle=True and cannot memory-map'),
    ('np.save to BytesIO', 'error', ALL,
     'NumPy: numpy/numpy#24110: .npy has no descr for new-style DTypes; since '
      'numpy/numpy#24142 np.save pickles them as an object array, so np.load needs '
      'allow_pickle=True and cannot memory-map'),
    ('np.savez', 'error', ALL,
     'NumPy: numpy/numpy#24110: .npy has no descr for new-style DTypes; since '
      'numpy/numpy#24142 np.save pickles them as an object array, so np.load needs '
      'allow_pickle=True and cannot memory-map'),
    ('np.savez_compressed', 'error', ALL,
     'NumPy: numpy/numpy#24110: .npy has no descr for new-style DTypes; since '
      'numpy/numpy#24142 np.save pickles them as an object array, so np.load needs '
      'allow_pickle=True and cannot memory-map'),
    # TypeError: Cannot pass a new user DType instance to the `dtype` or `signature` arguments of ufuncs. Pass the DType class instead.
    ('np.add(a, b, dtype=dt)', 'error', ALL,
     'NumPy: numpy/numpy#22540 made ufuncs refuse new-style DType instances in '
      'dtype=/signature= (they take the class, mf.<Name>DType)'),
    ('np.add(a, b, signature=(dt, dt, dt))', 'error', ALL,
     'NumPy: numpy/numpy#22540 made ufuncs refuse new-style DType instances in '
      'dtype=/signature= (they take the class, mf.<Name>DType)'),
    # TypeError: dtype argument must be a NumPy dtype, but it is a <class 'minifloat.<DType>'>.
    ("np.isdtype(dt, 'numeric')", 'error', ALL,
     "NumPy: numpy/numpy#27545 (np.isdtype accepts only NumPy's own dtypes)"),
    ("np.isdtype(dt, 'real floating')", 'error', ALL,
     "NumPy: numpy/numpy#27545 (np.isdtype accepts only NumPy's own dtypes)"),
    # ValueError: cannot include dtype 'minifloat.<DType>' in a buffer
    ('a.data.nbytes', 'error', ALL,
     'NumPy: numpy/numpy#23500 (the buffer protocol has no format for new-style DTypes)'),
    ('memoryview(a)', 'error', ALL,
     'NumPy: numpy/numpy#23500 (the buffer protocol has no format for new-style DTypes)'),
    # ValueError: Unsupported dtype <fmt>
    ('np.testing.assert_array_almost_equal_nulp(a, a)', 'error', ('float8_e8m0fnu',),
     'format: float8_e8m0fnu has no zero, so a - a is NaN, the check fails and its error '
      'path reaches np.common_type'),
    ('np.testing.assert_array_max_ulp(a, a)', 'error', ALL,
     'NumPy: assert_array_max_ulp/nulp_diff go through np.common_type, a fixed table of '
      "NumPy's own float types (no upstream issue found)"),
    # BufferError: DLPack only supports signed/unsigned integers, float and complex dtypes.
    ('np.from_dlpack(a)', 'error', ALL,
     "NumPy: ndarray.__dlpack__ exports only NumPy's own dtypes in 2.4 (mf.to_dlpack "
      'works); numpy/numpy#31256 (after 2.4) lets a library register its DLPack codes'),
    # TypeError: NumPy scalar 2.0 can only exported as a buffer without format.
    ('s.data', 'error', ALL,
     'NumPy: numpy/numpy#23500 (the buffer protocol has no format for new-style DTypes)'),
    # ValueError: Array can't be memory-mapped: Python objects in dtype.
    ("np.load(mmap_mode='r')", 'error', ALL,
     'NumPy: numpy/numpy#24110: .npy has no descr for new-style DTypes; since '
      'numpy/numpy#24142 np.save pickles them as an object array, so np.load needs '
      'allow_pickle=True and cannot memory-map'),
    # AssertionError: Arrays are not almost equal to 6 decimals
    ('np.testing.assert_array_almost_equal(a, a)', 'error', BOUND_ROUNDS_TO_ZERO,
     "format: Python floats are weak (NEP 50, as for float16, a README decision), so the"
      " test's abs(x - y) < 1.5e-6 rounds 1.5e-6 to 0 in a signed 8-bit format whose "
      "values stop above it, and 0 < 0 is False (float8_e8m0fnu: a - a is NaN); compare "
      '.astype(np.float32) values'),
    # TypeError: data type '<f1' not understood
    ('__array_struct__ round trip', 'error', ONE_BYTE,
     "NumPy: __array_struct__ describes a dtype by kind and size only: kind 'f' of 1 byte "
      "is '<f1' (not understood), of 2 bytes is float16 (bfloat16 silently becomes float16)"
      ' (no upstream issue found)'),
    # ValueError: reduction operation 'add' does not have an identity, so to use a where mask one has to specify 'initial'
    ('a.sum(where=mask)', 'error', ('float8_e8m0fnu',),
     'format: float8_e8m0fnu has no zero, so add has no identity: a masked sum needs '
      'initial='),
    ('np.add.reduce(a, where=mask)', 'error', ('float8_e8m0fnu',),
     'format: float8_e8m0fnu has no zero, so add has no identity: a masked sum needs '
      'initial='),
    ('np.sum(a, where=mask)', 'error', ('float8_e8m0fnu',),
     'format: float8_e8m0fnu has no zero, so add has no identity: a masked sum needs '
      'initial='),
    # TypeError: <fmt> exists in native byte order only; to swap the bytes of the codes use arr.byteswap() (or arr.view(np.uint16).byteswap())
    ('a.view(a.dtype.newbyteorder())', 'error', ('bfloat16',),
     'NumPy: dtype.newbyteorder has no hook for new-style DTypes; the 8-bit formats return'
      ' themselves, bfloat16 (two bytes) says it exists in native byte order only (no '
      'upstream issue found)'),
    ('dt.newbyteorder()', 'error', ('bfloat16',),
     'NumPy: dtype.newbyteorder has no hook for new-style DTypes; the 8-bit formats return'
      ' themselves, bfloat16 (two bytes) says it exists in native byte order only (no '
      'upstream issue found)'),
    # AssertionError: assert r.dtype == dt
    ('__array_struct__ round trip', 'error', ('bfloat16',),
     "NumPy: __array_struct__ describes a dtype by kind and size only: kind 'f' of 1 byte "
      "is '<f1' (not understood), of 2 bytes is float16 (bfloat16 silently becomes float16)"
      ' (no upstream issue found)'),
    # AssertionError / FloatingPointError: overflow encountered in divide
    ('np.testing.assert_almost_equal(s, 2.0)', 'error', SCALED_SAMPLES,
     'format: its values stop below 6, so the samples are halved until they fit: s is not 2.0, and a / b (up to 6) overflows'),
    ('np.testing.assert_approx_equal(s, 2.0)', 'error', SCALED_SAMPLES,
     'format: its values stop below 6, so the samples are halved until they fit: s is not 2.0, and a / b (up to 6) overflows'),
    ("np.errstate(all='raise') a / b", 'error', SCALED_SAMPLES,
     'format: its values stop below 6, so the samples are halved until they fit: s is not 2.0, and a / b (up to 6) overflows'),
]
if not NUMPY_2_5:
    # TypeError: This function currently only supports native NumPy dtypes and old-style user dtypes, but the dtype was <fmt>.
    KNOWN_FAILURES += [
        (case, 'error', ALL,
         'NumPy: ndarray.dot calls PyArray_MatrixProduct2, legacy dtypes only, with no hook '
         '(np.dot is patched by mf.patch_numpy()); fixed by numpy/numpy#30931 in 2.5')
        for case in ('a.dot(b)', 'm.dot(a[:4])', 'm.dot(m)')]


def expected_failures(fmt):
    """{(case name, kind)} listed for `fmt`."""
    return {(name, kind) for name, kind, formats, _ in KNOWN_FAILURES
            if fmt in (FORMATS if formats == ALL else formats)}


@pytest.fixture(scope="module")
def runs():
    """The battery on float16 and every format, two subprocesses at a time,
    with mf.patch_numpy() (the table below is that run's)."""
    started = time.monotonic()
    results = battery.run_battery(jobs=2, patched=True)
    return results, battery.load_cases(), time.monotonic() - started


# A plain import (no patch_numpy): fewer calls work (NumPy's own rules for a
# non-float16 float, TypeErrors where NumPy's C code takes legacy dtypes
# only), but none may crash or hang, and float16 keeps every call.
PLAIN_FORMATS = ["float8_e4m3fn", "float8_e8m0fnu", "float4_e2m1fn", "bfloat16", "float8_e5m2fnuz"]


@pytest.fixture(scope="module")
def plain_runs():
    started = time.monotonic()
    results = battery.run_battery(PLAIN_FORMATS, jobs=2, patched=False)
    return results, battery.load_cases(), time.monotonic() - started


@pytest.mark.parametrize("fmt", [battery.BASELINE] + PLAIN_FORMATS)
def test_plain_import_no_crash(plain_runs, fmt, capsys):
    results, cases, elapsed = plain_runs
    failing = battery.failures(results, cases, fmt)
    stops = {name: why for name, (kind, why) in failing.items() if kind in (battery.CRASH, battery.HANG)}
    if fmt == battery.BASELINE:
        errors = {name: why for name, (kind, why) in failing.items() if kind == battery.ERROR}
        assert not errors, f"float16 calls that a plain import of minifloat breaks: {errors}"
    else:
        with capsys.disabled():
            print(f"\n[numpy battery, plain import, {elapsed:.0f} s] " + battery.score_line(results, cases, fmt),
                  end="")
    assert not stops, f"crashes or hangs on {fmt} with a plain import: {stops}"


def test_catalogue_covers_this_numpy():
    cases = battery.load_cases()
    assert len(cases) >= 500
    # a NumPy release that adds an ndarray method or a ufunc shows up here
    assert battery.coverage_gaps(cases) == []


def test_known_failures_table_is_well_formed():
    names = {c.name for c in battery.load_cases()}
    seen = set()
    for entry in KNOWN_FAILURES:
        name, kind, formats, reason = entry
        assert name in names, f"no case named {name!r}"
        assert kind in (battery.ERROR, battery.CRASH, battery.HANG), entry
        assert formats == ALL or (formats and set(formats) <= set(FORMATS) | {"float16"}), entry
        assert reason.startswith(REASON_PREFIXES), entry
        for fmt in (FORMATS if formats == ALL else formats):
            assert (name, fmt) not in seen, f"{name!r} listed twice for {fmt}"
            seen.add((name, fmt))


def test_runner_records_crash_and_hang_and_goes_on(tmp_path):
    """A case that kills the interpreter or never returns is recorded, and
    the cases after it still run (in a new subprocess)."""
    source = open(battery.__file__).read()
    catalogue = ('_CATALOGUE = r"""\n## runner self-test\n1 + 1\n'
                 "segfault => ctypes.string_at(0)\n2 + 2\n"
                 "sleep => import time; time.sleep(60)\n3 + 3\n"
                 "exit => os._exit(3)\n"
                 'raise => raise ValueError("clear message")\n"""')
    source = re.sub(r'_CATALOGUE = r""".*?"""', lambda _: catalogue, source, count=1,
                    flags=re.S)
    path = tmp_path / "battery_copy.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("battery_copy", path)
    copy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(copy)
    outcomes = copy.run_format("float16", timeout=3)
    statuses = [outcomes[i]["status"] for i in range(7)]
    assert statuses == ["ok", "crash", "ok", "hang", "ok", "crash", "error"]
    assert "Segmentation fault" in outcomes[1]["message"]
    assert outcomes[5]["message"].startswith("exit status 3")
    assert outcomes[6]["message"] == "clear message"


@pytest.mark.parametrize("fmt", [battery.BASELINE, battery.BASELINE_ALONE] + FORMATS)
def test_no_crash(runs, fmt):
    results, cases, _ = runs
    failing = battery.failures(results, cases, fmt)
    observed = {(name, kind) for name, (kind, _) in failing.items()
                if kind in (battery.CRASH, battery.HANG)}
    listed = {(name, kind) for name, kind in expected_failures(fmt)
              if kind in (battery.CRASH, battery.HANG)}
    details = {name: failing[name][1] for name, _ in observed}
    assert observed <= listed, f"new crashes or hangs on {fmt}: {details}"
    assert observed == listed, (f"listed crashes that no longer happen on {fmt} "
                                f"(take them out of KNOWN_FAILURES): {listed - observed}")
    if observed:  # known, listed with a reason: still not fine
        pytest.xfail(f"{len(observed)} known crashes/hangs on {fmt}: {sorted(observed)}")


def test_importing_minifloat_keeps_float16_working(runs):
    """minifloat wraps a few NumPy functions at import: every call that works
    on float16 without minifloat must still work once it is imported."""
    results, cases, _ = runs
    broken = {(name, kind): why for name, (kind, why)
              in battery.failures(results, cases, battery.BASELINE).items()
              if kind == battery.ERROR}
    listed = {(name, kind) for name, kind in expected_failures(battery.BASELINE)
              if kind == battery.ERROR}
    assert set(broken) <= listed, f"float16 calls that importing minifloat breaks: {broken}"
    assert set(broken) == listed, (f"listed float16 breakages that are fixed (take them out "
                                   f"of KNOWN_FAILURES): {listed - set(broken)}")


@pytest.mark.parametrize("fmt", FORMATS)
def test_float16_working_calls_work(runs, fmt, capsys):
    results, cases, elapsed = runs
    works, n, crashes, hangs = battery.score(results, cases, fmt)
    with capsys.disabled():
        print(f"\n[numpy battery, {elapsed:.0f} s] " + battery.score_line(results, cases, fmt),
              end="")
    failing = battery.failures(results, cases, fmt)
    observed = {(name, kind) for name, (kind, _) in failing.items()}
    listed = expected_failures(fmt)
    new = {name: why for name, (kind, why) in failing.items() if (name, kind) not in listed}
    assert not new, f"calls that work on float16 and fail on {fmt}: {new}"
    fixed = listed - observed
    assert not fixed, (f"listed failures that now work on {fmt} (take them out of "
                       f"KNOWN_FAILURES): {sorted(fixed)}")
    # the score follows from the table: every float16-working call but the listed ones
    listed_errors = sum(1 for name, kind in listed if kind == battery.ERROR)
    listed_stops = sum(1 for name, kind in listed if kind != battery.ERROR
                       and name in battery.float16_working(results, cases))
    assert works == n - listed_errors - listed_stops
    assert works / n >= 0.9, battery.score_line(results, cases, fmt)
