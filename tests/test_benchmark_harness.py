"""The benchmark harness (benchmarks/run.py) runs end to end on a tiny size and
reports what it should: the verdict first, one ratio direction everywhere,
the right baseline for every case, misses at the memory floor told apart from
failures, the README block and the chart. No timing is asserted: speed lives
in the benchmark's own report, never in the tests."""
import importlib.util
import os
import struct

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _benchmark_module(name, filename):
    """Loads benchmarks/<filename> as `name`, yields it, then restores the
    environment (run.py pins BLAS/OpenMP threads to 1 on import)."""
    saved = dict(os.environ)
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "benchmarks", filename))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    os.environ.clear()
    os.environ.update(saved)


@pytest.fixture(scope="module")
def bench():
    yield from _benchmark_module("minifloat_bench", "run.py")


def tiny(*extra, out):
    return ["--n", "2048", "--repeat", "1", "--no-torch", "--no-floor", "--out", str(out), "--chart", "",
            *extra]


def test_the_run_leaves_warning_state_alone(bench, tmp_path):
    import warnings

    import numpy as np

    before = np.geterr()
    with warnings.catch_warnings(record=True):
        filters = list(warnings.filters)
        bench.main(tiny("--only", "[2] f64 -> float4", out=tmp_path / "r.md"))
        assert list(warnings.filters) == filters
    assert np.geterr() == before


def test_small_run_prints_the_verdict_first_and_writes_every_case(bench, tmp_path, capsys):
    out = tmp_path / "report.md"
    code = bench.main(tiny("--only", "float8_e8m0fnu", out=out))
    assert code == 0  # without --check a miss does not change the exit status
    printed = capsys.readouterr().out
    verdict, groups = printed.index("VERDICT:"), printed.index("ml_dtypes/minifloat: min")
    assert verdict < groups
    assert "other target" not in printed  # the per-case table is in the file
    assert "baseline time / minifloat time" in printed
    text = out.read_text()
    for label in ("[1] f32 -> float8_e8m0fnu", "[2] f64 -> float8_e8m0fnu", "[6] float8_e8m0fnu a == b",
                  "[6] float8_e8m0fnu a / b", "[9] mf.cast f32 -> float8_e8m0fnu up"):
        assert label in text
    assert text.index("Verdict") < text.index("Groups") < text.index("Every case")
    assert "np f64->u8" in text and "np u8 a // b" in text and "(report)" in text
    assert "BLAS" in text  # the float32 product's library and kernels (groups 7 and 16)


def test_the_report_names_numpys_blas_and_its_kernels(bench, monkeypatch):
    """OpenBLAS runs AVX-512 kernels whatever minifloat's kernel set: the
    header says which, and OPENBLAS_CORETYPE when it was forced (the
    AVX2-only emulation sets it, benchmarks/README.md)."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    import numpy as np

    np.ones((2, 2), np.float32) @ np.ones((2, 2), np.float32)  # (NumPy's BLAS is loaded)
    monkeypatch.delenv("OPENBLAS_CORETYPE", raising=False)
    note = bench.blas_note()
    blas = [info for info in threadpoolctl.threadpool_info() if info.get("user_api") == "blas"]
    if not blas:
        assert note == "none loaded"
        return
    assert blas[0]["internal_api"] in note and str(blas[0]["version"]) in note
    if blas[0].get("architecture"):
        assert f"{blas[0]['architecture']} kernels" in note
    assert "OPENBLAS_CORETYPE" not in note
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Haswell")
    assert bench.blas_note().endswith("(OPENBLAS_CORETYPE=Haswell)")


def test_full_prints_every_case(bench, tmp_path, capsys):
    bench.main(tiny("--full", "--only", "[6] float8_e5m2 a", out=tmp_path / "r.md"))
    printed = capsys.readouterr().out
    assert "other target" in printed and "[6] float8_e5m2 a.sum()" in printed


def test_unknown_filter_is_an_error(bench, capsys):
    assert bench.main(["--n", "64", "--only", "no-such-case", "--chart", "", "--no-torch"]) == 2
    assert "no case matches" in capsys.readouterr().err


def test_every_baseline_does_what_its_label_says(bench):
    """The audit, kept: a baseline is the case's own operation on plain bytes
    (or a named stand-in), never a different one."""
    cases = bench.build_cases(bench.Data(64), torch=None)
    by_label = {c.label: c for c in cases}
    for f in bench.EIGHT_BIT:
        for op in ("a + b", "a - b", "a * b", "a < b", "a == b", "np.maximum(a, b)", "a.sum()"):
            assert by_label[f"[6] {f} {op}"].ref("ref").label == f"np u8 {op}"
        assert by_label[f"[6] {f} a / b"].ref("ref").label == "np u8 a // b"
        # division and the sum compute: they are no floor for the memory
        assert not by_label[f"[6] {f} a / b"].ref("ref").floor
        assert not by_label[f"[6] {f} a.sum()"].ref("ref").floor
        assert by_label[f"[6] {f} a == b"].ref("ref").floor
    for f in bench.NON_BF16:
        assert not by_label[f"[2] f64 -> {f}"].ref("ref").floor  # NumPy's cast converts
        assert by_label[f"[2] f64 -> {f}"].traffic == "f64_byte"
        assert by_label[f"[1] {f} -> f32"].traffic == "widen"


def test_the_baselines_compute_the_same_thing_on_the_same_bytes(bench):
    import numpy as np

    cases = {c.label: c for c in bench.build_cases(bench.Data(512), torch=None)}
    with np.errstate(all="ignore"):
        s = cases["[6] float8_e4m3fn a.sum()"]
        codes = bench.Data(512).codes("float8_e4m3fn")
        assert s.ref("ref").factory()() == codes.sum()  # NumPy's sum of the same bytes
        d = cases["[6] float8_e4m3fn a / b"]
        quotient = d.ref("ref").factory()()
        assert quotient.dtype == np.uint8 and quotient.shape == (512,)


def _case(bench, mf_ms, ml_ms, floor_ms, target=20.0, memory_floor_ms=None):
    case = bench.Case(6, "float8_e8m0fnu a == b", lambda: None)
    case.refs = [bench.Ref("ml", "ml_dtypes", lambda: None, target, ms=ml_ms),
                 bench.Ref("ref", "np u8 a == b", lambda: None, None, ms=floor_ms, floor=True)]
    case.mf_ms = mf_ms
    case.memory_floor_ms = memory_floor_ms
    return case


def test_a_miss_beyond_the_memory_floor_is_reported_not_failed(bench):
    # ml_dtypes 3 ms, NumPy's uint8 op 0.3 ms: at most 10x is possible, 20x is asked
    case = _case(bench, mf_ms=0.25, ml_ms=3.0, floor_ms=0.3)
    (chk,) = bench.evaluate(case)
    assert chk.state == "floor" and chk.ref.key == "ml"
    assert chk.ratio == pytest.approx(12.0) and chk.reach == pytest.approx(10.0)
    assert "12.00x < 20x" in chk.text and "no kernel can pass 10.0x" in chk.text
    assert bench.failures([case]) == []
    assert "at memory floor" in bench.status_text(case)


def test_memory_floor_c_lowers_the_floor(bench):
    # NumPy's op alone would allow only 10x; memory_floor.c's 0.1 ms allows 30x: a real miss
    case = _case(bench, mf_ms=0.25, ml_ms=3.0, floor_ms=0.3, memory_floor_ms=0.1)
    (chk,) = bench.evaluate(case)
    assert chk.state == "miss" and chk.reach == pytest.approx(30.0)
    assert "allows up to 30.0x" in chk.text
    assert bench.floor_source(case) == "memory_floor.c"
    assert len(bench.failures([case])) == 1


def test_an_ordinary_miss_fails(bench):
    # the floor allows 100x; missing 20x is minifloat's own doing
    case = _case(bench, mf_ms=1.0, ml_ms=10.0, floor_ms=0.1)
    (chk,) = bench.evaluate(case)
    assert chk.state == "miss" and "at the memory floor" not in chk.text
    assert bench.status_text(case) == "MISS (ml_dtypes)"


def test_a_close_miss_gets_a_second_look_that_keeps_every_rounds_best(bench):
    """A reachable miss within RECHECK_MARGIN of its target is timed again
    (and only such a miss); each callable then keeps the best of all its
    rounds, so a second look can lower a time, never raise it."""
    calls = {"mf": 0, "ml": 0}

    def counted(key):
        def factory():
            def call():
                calls[key] += 1
            return call
        return factory

    def made(mf_ms, ml_ms, target):
        case = bench.Case(6, f"case {target}", counted("mf"))
        case.refs = [bench.Ref("ml", "ml_dtypes", counted("ml"), target, ms=ml_ms)]
        case.mf_ms = mf_ms
        return case

    close = made(1.0, 19.0, 20.0)   # 19x against 20x: within 10%
    far = made(1.0, 10.0, 20.0)     # 10x: minifloat's own doing, no second look
    met = made(1.0, 30.0, 20.0)
    assert bench.close_misses([close, far, met]) == [close]
    looked = bench.second_look([close, far, met], bench.Data(16), repeat=2)
    assert looked == [close.label]
    assert calls["mf"] > 0 and calls["ml"] > 0  # both sides timed again
    # the new rounds are faster than 1 ms: the best of all rounds is kept
    assert close.mf_ms < 1.0 and close.refs[0].ms < 19.0
    assert far.mf_ms == 1.0 and far.refs[0].ms == 10.0
    before = close.mf_ms
    close.mf_factory = lambda: (lambda: sum(range(20000)))  # slower rounds do not raise it
    bench.run_case(close, 2)
    assert close.mf_ms == before


def test_met_targets_and_report_only_baselines(bench):
    checks = bench.evaluate(_case(bench, mf_ms=0.1, ml_ms=10.0, floor_ms=0.1))
    assert [(c.ref.key, c.state) for c in checks] == [("ml", "ok")]  # the floor has no target
    cases = [_case(bench, 0.1, 10.0, 0.1), _case(bench, 1.0, 10.0, 0.1), _case(bench, 0.25, 3.0, 0.3)]
    counts, missed = bench.summarize(cases)
    assert counts == {"ok": 1, "miss": 1, "floor": 1, "unchecked": 0} and len(missed) == 2
    assert "1 of 3 targets met" in bench.verdict_line(cases)
    (row,) = bench.verdict_rows(cases)
    assert row[1] == "1 of 3" and row[3] == "10.00x" and row[6] == "MISSED"  # the slowest, 10x < 20x


def test_check_fails_only_on_reachable_misses(bench, tmp_path, monkeypatch):
    def fake_run_case(case, repeat):
        case.mf_ms = 1.0
        for r in case.refs:
            r.ms = {"ml": 5.0}.get(r.key, 0.9)  # ml 5x < 20x; NumPy's byte op 0.9 ms allows 5.6x

    monkeypatch.setattr(bench, "run_case", fake_run_case)
    args = tiny("--check", "--only", "[6] float8_e4m3fn a == b", out=tmp_path / "r.md")
    assert bench.main(args) == 0  # a miss at the floor
    monkeypatch.setattr(bench, "run_case", lambda case, repeat: (fake_run_case(case, repeat),
                                                                 setattr(case.refs[1], "ms", 0.1)))
    assert bench.main(args) == 1  # NumPy moves the bytes in 0.1 ms: 50x was possible


def test_group_table_uses_the_per_case_direction(bench):
    case = _case(bench, mf_ms=0.5, ml_ms=10.0, floor_ms=1.0)
    (row,) = bench.group_rows([case])
    # per case: ml_dtypes 20x, NumPy 2x (baseline ms / minifloat ms); the group row says the same
    assert row[3] == "20.00x" and row[4] == "np u8 a == b: 2.00x"


def test_groups_are_one_extensible_list(bench):
    def extra_cases(add, data, torch):
        add("identity", lambda: (lambda: None), bench.Ref("ref", "itself", lambda: (lambda: None), 0.5))

    groups = bench.GROUPS + [bench.Group(12, "extra", "itself >= 0.5x", extra_cases)]
    cases = bench.build_cases(bench.Data(64), None, groups)
    assert cases[-1].label == "[12] identity" and cases[-1].ref("ref").target == 0.5
    # every group has cases (torch's need torch)
    assert [g.number for g in bench.GROUPS if g.number != 8] == sorted({c.group for c in cases[:-1]})


def test_readme_block_is_replaced_between_the_markers(bench, tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n## Speed\n\nintro\n\n{bench.README_BEGIN}\nold numbers\n"
                      f"{bench.README_END}\n\n## Layout\n\nrest\n")
    assert bench.main(tiny("--readme", str(readme), "--only", "[3] float8_e5m2 ->", out=tmp_path / "r.md")) == 0
    text = readme.read_text()
    assert "old numbers" not in text
    assert text.startswith("# x\n\n## Speed\n\nintro\n\n" + bench.README_BEGIN)
    assert text.endswith(bench.README_END + "\n\n## Layout\n\nrest\n")
    # README gets the verdict and a link to the full report; the report has every case
    assert "targets met" in text and "[r.md](r.md)" in text
    assert "Every case" not in text and "[3] float8_e5m2 -> float8_e4m3fn" not in text
    report = (tmp_path / "r.md").read_text()
    assert "## Verdict" in report and "[3] float8_e5m2 -> float8_e4m3fn" in report
    readme.write_text("# no markers\n")
    assert bench.main(tiny("--readme", str(readme), "--only", "[3] float8_e5m2 ->", out=tmp_path / "r.md")) == 2
    assert "no benchmark block" in capsys.readouterr().err


def test_the_readme_has_the_headline_cases_and_the_report(bench, tmp_path):
    cases = bench.build_cases(bench.Data(64), None)
    for c in cases:
        c.mf_ms = 1.0
        for r in c.refs:
            r.ms = 2.0
    facts = [("date", "d"), ("CPU", "c"), ("numpy", "n"), ("ml_dtypes", "m"), ("torch", "t"),
             ("N", "64 elements per vector case; matmul 512x512"), ("load avg", "0")]
    text = bench.readme_markdown(cases, facts, "benchmarks/results/latest.md", "benchmarks/results/latest.png")
    assert "[benchmarks/results/latest.md](benchmarks/results/latest.md)" in text
    assert "[benchmarks/results/latest.png](benchmarks/results/latest.png)" in text
    assert all(label in text for label in bench.HEADLINE)


def test_the_readme_has_the_markers(bench):
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as fh:
        text = fh.read()
    assert text.index("## Speed") < text.index(bench.README_BEGIN) < text.index(bench.README_END)


def png_size(path):
    with open(path, "rb") as fh:
        head = fh.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_chart_of_every_case_has_a_panel_per_group_under_2000_pixels(bench, tmp_path):
    pytest.importorskip("matplotlib")
    cases = bench.build_cases(bench.Data(64), None)
    for i, case in enumerate(cases):  # made-up times: every state shows
        case.mf_ms = 1.0
        for r in case.refs:
            r.ms = 0.9 if r.floor else (r.target or 1.0) * (0.5 + (i % 7) / 4)
    chart = tmp_path / "chart.png"
    assert bench.write_chart(str(chart), cases)
    width, height = png_size(chart)
    assert height < 2000 and width < 2000
    titles = [title for title, _, _ in bench.chart_panels(cases)]
    numbers = [int(t.split(".")[0]) for t in titles]
    assert sorted(set(numbers)) == [g.number for g in bench.GROUPS if g.number not in (8, 11)]
    assert titles[0].startswith("1. float32 <-> F: ml_dtypes") and titles[1].startswith("1. float32 <-> F: np")


def test_a_run_writes_the_chart(bench, tmp_path):
    pytest.importorskip("matplotlib")
    chart = tmp_path / "chart.png"
    args = tiny("--only", "[1] f32 -> float8_e4m3fn", out=tmp_path / "r.md")
    args[args.index("--chart") + 1] = str(chart)
    assert bench.main(args) == 0 and png_size(chart)[1] < 2000


def test_split_columns_balances_contiguous_panels(bench):
    sizes = [25, 25, 15, 15, 11, 6, 67, 5, 13, 33, 13]
    runs = bench.split_columns(sizes, 3)
    assert [i for run in runs for i in run] == list(range(len(sizes))) and len(runs) == 3
    # no contiguous split into three has a shorter tallest column
    best = min(max(sum(sizes[:a]), sum(sizes[a:b]), sum(sizes[b:]))
               for a in range(1, len(sizes)) for b in range(a + 1, len(sizes)))
    assert max(sum(sizes[i] for i in run) for run in runs) == best


@pytest.fixture(scope="module")
def scaling():
    yield from _benchmark_module("minifloat_scaling", "scaling.py")  # (it imports run.py)


def test_scaling_thread_counts_are_powers_of_two_and_the_usable_cores(scaling):
    assert scaling.thread_counts(16) == [1, 2, 4, 8, 16]
    assert scaling.thread_counts(12) == [1, 2, 4, 8, 12]
    assert scaling.thread_counts(1) == [1]
    assert scaling.thread_counts(2, [2, 8]) == [1, 2]  # never above the usable cores; 1 is the base


def test_scaling_verdicts(scaling):
    assert scaling.verdict(1, 1.0, 10.0, 5.0) == ""
    assert scaling.verdict(4, 2.8, 2.0, None) == "met"            # 0.7 per thread
    assert scaling.verdict(4, 2.7, 2.0, 1.8) == "at floor"        # within 1.2x of the floor
    assert scaling.verdict(4, 2.7, 2.0, 1.5) == "MISS"
    # on a machine whose 4 threads do 2.8 cores' arithmetic, 0.7 x 2.8 is the goal
    assert scaling.verdict(4, 2.0, 2.0, 1.5, 2.8) == "at ceiling"
    assert scaling.verdict(4, 1.9, 2.0, 1.5, 2.8) == "MISS"
    assert scaling.verdict(4, 2.8, 2.0, 1.5, 2.8) == "met"
    # the floor at t is the least time NumPy needed with at most t threads
    rows = scaling.rows_of("case", {1: {"mf": 8.0, "floor": 5.0}, 2: {"mf": 6.5, "floor": 7.0, "torch": 13.0}}, [1, 2])
    assert [r["floor"] for r in rows] == [5.0, 5.0]
    assert rows[1]["scaling"] == pytest.approx(8 / 6.5) and rows[1]["vs_torch"] == pytest.approx(2.0)
    assert rows[1]["verdict"] == "MISS"  # 1.23x on 2 threads, 6.5 ms against a 5 ms floor (> 1.2x)
    rows = scaling.rows_of("case", {1: {"mf": 8.0}, 2: {"mf": 6.5}}, [1, 2], {1: 1.0, 2: 1.7})
    assert rows[1]["verdict"] == "at ceiling"  # 1.23x >= 0.7 x 1.7


def test_compute_ceiling_runs_the_probe_at_each_thread_count(scaling):
    """compute_scaling.c's arithmetic on 1 and 2 threads: one scaling per
    count, 1 thread exactly 1x, 2 threads between a core and two (within
    timing noise)."""
    ceiling, note = scaling.compute_ceiling([1, 2])
    if not ceiling:
        pytest.skip(note)
    assert sorted(ceiling) == [1, 2] and ceiling[1] == pytest.approx(1.0)
    assert 0.8 <= ceiling[2] <= 2.3, ceiling
    assert "compute_scaling.c" in note


def test_a_call_on_several_foreign_threads_settles_untimed(bench, monkeypatch):
    """After a BLAS or torch call on more than one thread the timer waits
    (their idle threads poll for work, taking cores from the call timed
    next), after the warm-up too, and that wait is not in the call's time.
    A fake clock: each call takes 1 ms, each wait 1000 s."""
    import thread_cases  # (run.py put benchmarks/ on the path)

    clock, events = [0.0], []

    def call(tag):
        def run():
            events.append(tag)
            clock[0] += 1e-3
        return run

    def sleep(seconds):
        events.append(f"wait {seconds}")
        clock[0] += 1000.0

    monkeypatch.setattr(bench.time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(thread_cases.time, "sleep", sleep)
    factories = [lambda: thread_cases.settling(call("blas"), "blas", 2),
                 lambda: thread_cases.settling(call("serial"), "blas", 1),
                 lambda: thread_cases.settling(call("torch"), "torch", 4)]
    times = bench.time_interleaved(factories, 3)
    waits = {"blas": f"wait {thread_cases.SETTLE_S['blas']}", "torch": f"wait {thread_cases.SETTLE_S['torch']}"}
    round_of_calls = ["blas", waits["blas"], "serial", "torch", waits["torch"]]
    assert events[:10] == round_of_calls * 2  # warm-ups, then the first round
    assert [ms for ms, _err in times] == [pytest.approx(1.0)] * 3


def test_scaling_report_has_every_case_at_every_thread_count(scaling, tmp_path, capsys):
    out = tmp_path / "scaling.md"
    assert scaling.main(["--threads", "1,2", "--sizes", "8192", "--matmul-size", "48", "--repeat", "1",
                         "--no-torch", "--out", str(out)]) == 0
    text = out.read_text()
    assert text.index("## Verdict") < text.index("## Scaling") < text.index("## Every cell")
    assert "multi-thread cells at >= 0.7 x threads" in text
    for fact in ("**CPU**", "**cores**", "**caches**", "**versions**", "**threads**: 1, 2", "**compute ceiling**"):
        assert fact in text
    cells = [line for line in text.splitlines() if line.startswith("| ") and (" | 1 | " in line or " | 2 | " in line)]
    names = ["f32 -> float8_e4m3fn, 8,192", "stochastic f32 -> float8_e4m3fn, 8,192", "mx.quantize nvfp4, 8,192",
             "mx dequantize mxfp4_e2m1, 8,192", "48x48 mx.matmul mxfp8_e4m3", "48x48 float8_e4m3fn matmul"]
    for name in names:
        assert sum(line.startswith(f"| {name} |") for line in cells) == 2, name
