"""The benchmark harness (benchmarks/run.py) runs end to end on a tiny size and
reports what it should. No timing is asserted: speed lives in the benchmark's
own report, never in the tests."""
import importlib.util
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def bench():
    saved = dict(os.environ)  # the module pins BLAS/OpenMP threads to 1 on import
    spec = importlib.util.spec_from_file_location("minifloat_bench", os.path.join(ROOT, "benchmarks", "run.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    os.environ.clear()
    os.environ.update(saved)


def test_the_run_leaves_warning_state_alone(bench, tmp_path):
    import warnings

    import numpy as np

    before = np.geterr()
    with warnings.catch_warnings(record=True):
        filters = list(warnings.filters)
        bench.main(["--n", "256", "--repeat", "1", "--only", "[2] f64 -> float4", "--no-torch",
                    "--out", str(tmp_path / "r.md"), "--chart", ""])
        assert list(warnings.filters) == filters
    assert np.geterr() == before


def test_small_run_writes_the_table(bench, tmp_path, capsys):
    out = tmp_path / "report.md"
    code = bench.main(["--n", "2048", "--repeat", "1", "--only", "float8_e8m0fnu", "--no-torch",
                       "--out", str(out), "--chart", ""])
    assert code == 0  # without --check a miss does not change the exit status
    text = out.read_text()
    for label in ("[1] f32 -> float8_e8m0fnu", "[2] f64 -> float8_e8m0fnu", "[6] float8_e8m0fnu a == b",
                  "[6] float8_e8m0fnu a / b", "[9] mf.cast f32 -> float8_e8m0fnu up"):
        assert label in text
    # the same-traffic NumPy baselines are there and report-only outside group 1
    assert "np f64->u8" in text and "np u8 a + b" in text and "(report)" in text
    assert "targets:" in capsys.readouterr().out


def test_unknown_filter_is_an_error(bench, capsys):
    assert bench.main(["--n", "64", "--only", "no-such-case", "--chart", ""]) == 2
    assert "no case matches" in capsys.readouterr().err


def _case(bench, mf_ms, ml_ms, floor_ms, target=20.0):
    case = bench.Case(6, "float8_e8m0fnu a == b", lambda: None)
    case.refs = [bench.Ref("ml", "ml_dtypes", lambda: None, target, ms=ml_ms),
                 bench.Ref("ref", "np u8 a == b", lambda: None, None, ms=floor_ms, same_traffic=True)]
    case.mf_ms = mf_ms
    return case


def test_a_miss_above_the_memory_floor_says_so(bench):
    # ml_dtypes 3 ms, NumPy's uint8 op 0.3 ms: at most 10x is available, 20x is asked
    (ref, state, text), = bench.evaluate(_case(bench, mf_ms=0.25, ml_ms=3.0, floor_ms=0.3))
    assert state == "miss" and ref.key == "ml"
    assert "12.00x < 20x" in text
    assert "10.0x the time of NumPy's own u8 a == b" in text and "minifloat 0.83x" in text


def test_an_ordinary_miss_gets_no_floor_note(bench):
    # the floor allows 100x; missing 20x is minifloat's own doing
    (_, state, text), = bench.evaluate(_case(bench, mf_ms=1.0, ml_ms=10.0, floor_ms=0.1))
    assert state == "miss" and "beyond this machine" not in text


def test_met_targets_and_report_only_baselines(bench):
    evaluated = bench.evaluate(_case(bench, mf_ms=0.1, ml_ms=10.0, floor_ms=0.1))
    assert [(r.key, s) for r, s, _ in evaluated] == [("ml", "ok")]  # the floor has no target
    met, missed, unchecked, misses = bench.summarize([_case(bench, 0.1, 10.0, 0.1), _case(bench, 1.0, 10.0, 0.1)])
    assert (met, missed, unchecked) == (1, 1, 0) and len(misses) == 1
