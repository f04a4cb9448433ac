"""The documentation site builds with warnings as errors (marker ``docs``).

Needs the docs extra (``pip install ".[docs]"``: sphinx, myst-parser) and
skips without it; ``python -m pytest -m docs`` runs it alone. The site is
built from the imported package's docstrings and the Markdown pages, as the
README's command builds it.
"""
import os
import pathlib
import subprocess
import sys

import pytest

pytestmark = pytest.mark.docs

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_sphinx_build_has_no_warnings(tmp_path):
    pytest.importorskip("sphinx", reason="the docs extra is not installed")
    pytest.importorskip("myst_parser", reason="the docs extra is not installed")
    pytest.importorskip("minifloat")
    if not (ROOT / "docs" / "conf.py").is_file() or not (ROOT / "benchmarks" / "results" / "latest.md").is_file():
        pytest.skip("not a whole checkout (the site includes docs/ and benchmarks/results/latest.md)")
    # the minifloat the tests import (installed, or the source tree through PYTHONPATH)
    import minifloat

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(pathlib.Path(minifloat.__file__).parent.parent)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-c", "docs", "-b", "html",
         "-d", str(tmp_path / "doctrees"), ".", str(tmp_path / "html")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "html" / "docs" / "api" / "minifloat.html").is_file()
    page = (tmp_path / "html" / "docs" / "api" / "mx.html").read_text(encoding="utf-8")
    assert "minifloat.mx.quantize" in page and "Parameters" in page and "Raises" in page
