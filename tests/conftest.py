import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

try:  # hypothesis is optional; keep its runs short and deterministic
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "minifloat",
        deadline=None,
        max_examples=200,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    settings.load_profile("minifloat")
except ImportError:  # pragma: no cover
    pass


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "exhaustive: sweeps all 2**32 float32 bit patterns per format "
        "(very slow; run with -m exhaustive)",
    )
    config.addinivalue_line(
        "markers",
        "every_format: per-format tests of the P3109 formats outside the default run "
        "(run with -m every_format)",
    )


# The IEEE P3109 binary8 formats share their code paths with one another,
# so the default run keeps the suite's time by taking the per-format tests
# of four of them, one of each kind and between them every path: signed
# extended and finite at P = 3 (the report's example), unsigned extended at
# P = 1 (no mantissa bit: powers of two only) and unsigned finite at P = 7
# (values below 4). The other 24 have every code, midpoint and rounding mode
# checked exactly against the reference in test_user_formats.py and
# test_formats.py; `pytest -m every_format` runs their per-format tests too.
# Any other format, a new row included, is in the default run.
P3109_IN_THE_DEFAULT_RUN = {"binary8p3se", "binary8p3sf", "binary8p1ue", "binary8p7uf"}


def _only_with_every_format(item):
    """A per-format test of a P3109 format outside the default run."""
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return False
    return any(isinstance(v, str) and v.startswith("binary8p") and v not in P3109_IN_THE_DEFAULT_RUN
               for v in callspec.params.values())


def pytest_collection_modifyitems(config, items):
    markexpr = config.getoption("-m") or ""
    every_format = pytest.mark.every_format
    for item in items:
        if _only_with_every_format(item):
            item.add_marker(every_format)
    if "every_format" not in markexpr:
        kept = [item for item in items if "every_format" not in item.keywords]
        if len(kept) < len(items):
            config.hook.pytest_deselected(items=[item for item in items if "every_format" in item.keywords])
            items[:] = kept
    # The project config deselects these with -m "not exhaustive"; if pytest
    # runs without that config, skip them unless explicitly selected.
    if "exhaustive" in markexpr:
        return
    skip = pytest.mark.skip(reason="exhaustive sweep: select with -m exhaustive")
    for item in items:
        if "exhaustive" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def mf():
    """The package under test (imported lazily so the reference self-checks
    run even when the extension is not built)."""
    import minifloat

    return minifloat


@pytest.fixture(autouse=True)
def minifloat_owns_format_names():
    """Tests that name formats as strings mean minifloat's: ml_dtypes, when
    a test imports it after minifloat, takes the same names (see
    minifloat.claim_dtype_names)."""
    package = sys.modules.get("minifloat")
    if package is not None:
        package.claim_dtype_names()


def pytest_sessionstart(session):
    """ndarray.mean/var/std/sum/prod fetch NumPy's implementation once, at
    their first call in the process, and keep it. The suite makes that first
    call with mf.patch_numpy() in place, as a user who opts in at start does,
    so the methods follow the patch in every test whatever the order (dask
    and pandas call them with dtype= instances). What a plain import does is
    tested in fresh interpreters (test_good_neighbour.py, the NumPy battery's
    plain run)."""
    import numpy as np

    try:
        import minifloat
    except ImportError:  # the reference self-checks run without the extension
        return
    minifloat.patch_numpy()
    probe = np.zeros(2)
    probe.mean(), probe.var(), probe.std(), probe.sum(), probe.prod()
    minifloat.unpatch_numpy()


@pytest.fixture
def patched_numpy():
    """The test exercises mf.patch_numpy()'s wrappers: patched for the test,
    unpatched after it."""
    import minifloat

    minifloat.patch_numpy()
    try:
        yield
    finally:
        minifloat.unpatch_numpy()
