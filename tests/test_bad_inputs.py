"""Bad input to every public entry point ends in a clear exception or a checked
result, never a crash or a hang (the catalogue is tests/bad_inputs.py).

The whole catalogue runs once per session in child processes, many cases per
child; a child that dies is replaced and the run carries on after the case
that killed it. MINIFLOAT_BAD_INPUTS=<fnmatch pattern>[,...] runs a part of it.
"""
import fnmatch
import os

import pytest

import bad_inputs

pytest.importorskip("minifloat._core")


def _selected():
    cases = bad_inputs.load()
    patterns = [p for p in os.environ.get("MINIFLOAT_BAD_INPUTS", "").split(",") if p]
    return [n for n in cases if not patterns or any(fnmatch.fnmatchcase(n, p) for p in patterns)]


@pytest.fixture(scope="module")
def outcomes():
    return bad_inputs.run_catalogue(_selected())


def _report(outcomes, names):
    lines = []
    for name in names:
        lines.append(bad_inputs.describe(name, outcomes[name]))
        stderr = outcomes[name].get("stderr")
        if stderr and outcomes[name]["kind"] in ("crash", "hang"):
            lines.append("    | " + stderr.replace("\n", "\n    | "))
    return "\n".join(lines)


def test_catalogue_covers_every_public_entry_point():
    import minifloat as mf

    names = bad_inputs.load()
    prefixes = {name.split("/")[0] for name in names}
    assert {"scalar", "dtype", "array", "numpy", "ufunc", "cast", "pack", "mx", "dlpack", "_core", "state"} <= prefixes
    # every function _core exports is called with wrong arguments somewhere
    sources = open(bad_inputs.__file__).read()
    functions = [n for n in dir(mf._core) if callable(getattr(mf._core, n)) and not isinstance(getattr(mf._core, n), type)]
    missing = [n for n in functions if f"core.{n}(" not in sources and f"core.{n}," not in sources]
    assert missing == []


def test_no_crash_and_no_hang(outcomes):
    cases = bad_inputs.load()
    dead = [n for n, o in outcomes.items() if o["kind"] in ("crash", "hang") and not cases[n].known]
    assert not dead, "crashes or hangs:\n" + _report(outcomes, dead)


def test_every_outcome_is_expected(outcomes):
    cases = bad_inputs.load()
    wrong = [n for n, o in outcomes.items() if not o["ok"] and not cases[n].known]
    assert not wrong, f"{len(wrong)} of {len(outcomes)} cases outside their expected set:\n" + _report(outcomes, wrong)


_KNOWN = [n for n, c in bad_inputs.load().items() if c.known]


@pytest.mark.parametrize("name", _KNOWN)
def test_known_failure(outcomes, name):
    """Cases that fail for a known reason: xfail while they do, pass once fixed
    (then remove their tag: see bad_inputs.HARDENING_MERGED and OPEN_FINDINGS)."""
    if name not in outcomes:
        pytest.skip("not selected")
    if not outcomes[name]["ok"]:
        pytest.xfail(f"{bad_inputs.load()[name].known}: {bad_inputs.describe(name, outcomes[name])}")
