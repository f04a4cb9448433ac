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


def pytest_collection_modifyitems(config, items):
    # The project config deselects these with -m "not exhaustive"; if pytest
    # runs without that config, skip them unless explicitly selected.
    markexpr = config.getoption("-m") or ""
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
