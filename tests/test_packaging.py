"""Packaging: the build rebuilds when its flags change and announces each file
(on a one-file extension built with setup.py's own build_ext); the metadata
is what PyPI and pip read; and, under `pytest -m packaging` (slow, needs PyPI),
the sdist and a repaired Linux wheel install in fresh virtual environments and
pass the tests there (tests/tools/check_sdist.sh, check_wheel.sh)."""
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(ROOT, "tests", "tools")

TINY_SOURCE = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
int tiny_flag(void);
static struct PyModuleDef tiny_module = {PyModuleDef_HEAD_INIT, "tiny", NULL, -1, NULL};
PyMODINIT_FUNC PyInit_tiny(void) {
    PyObject* m = PyModule_Create(&tiny_module);
    if (m != NULL && PyModule_AddIntConstant(m, "flag", tiny_flag()) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
"""
TINY_FLAG_SOURCE = r"""
#ifndef TINY_FLAG
#define TINY_FLAG 0
#endif
int tiny_flag(void) { return TINY_FLAG; }
"""

# Builds tiny.c and tiny_flag.c in the current directory with setup.py's BuildExt, the way
# `python setup.py build_ext` does, and prints tiny.flag.
TINY_BUILD = textwrap.dedent("""
    import importlib.util, sys
    spec = importlib.util.spec_from_file_location("minifloat_setup", sys.argv[1])
    project = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(project)  # not __main__: defines, does not build
    from setuptools import Extension, setup
    setup(name="tiny", ext_modules=[Extension("tiny", ["tiny.c", "tiny_flag.c"])],
          cmdclass={"build_ext": project.BuildExt},
          script_args=["build_ext", "--inplace", "--build-temp", "tmp"])
    sys.path.insert(0, ".")
    import tiny
    print("tiny.flag =", tiny.flag)
""")


def _has_c_compiler():
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(os.environ.get("CC", cc).split()[0]) is not None


@pytest.fixture
def tiny_project(tmp_path):
    for module in ("setuptools", "pybind11", "numpy"):  # what setup.py imports
        pytest.importorskip(module)
    if not _has_c_compiler() or sys.platform == "win32":
        pytest.skip("needs a Unix C compiler")
    (tmp_path / "tiny.c").write_text(TINY_SOURCE)
    (tmp_path / "tiny_flag.c").write_text(TINY_FLAG_SOURCE)
    (tmp_path / "build_tiny.py").write_text(TINY_BUILD)

    def build(**flags):
        env = {k: v for k, v in os.environ.items() if k not in ("CFLAGS", "CPPFLAGS", "CXXFLAGS")}
        env.update(flags)
        done = subprocess.run([sys.executable, "build_tiny.py", os.path.join(ROOT, "setup.py")],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    return build


def test_each_file_is_announced_and_new_flags_rebuild(tiny_project):
    first = tiny_project()
    assert "[1/2] compiling tiny.c" in first and "[2/2] compiling tiny_flag.c" in first
    assert "tiny.flag = 0" in first
    again = tiny_project()
    assert "compiling" not in again and "tiny.flag = 0" in again  # nothing changed
    # the sources are older than the module: only the flags' hash can tell
    for variable, value in (("CFLAGS", 7), ("CPPFLAGS", 8)):
        changed = tiny_project(**{variable: f"-DTINY_FLAG={value}"})
        assert "flags changed" in changed and "[2/2] compiling" in changed
        assert f"tiny.flag = {value}" in changed
    assert "compiling" not in tiny_project(CPPFLAGS="-DTINY_FLAG=8")
    assert "tiny.flag = 0" in tiny_project()  # and back


def test_only_stale_objects_are_compiled(tiny_project, tmp_path):
    tiny_project()
    source = tmp_path / "tiny_flag.c"
    source.write_text(source.read_text().replace("#define TINY_FLAG 0", "#define TINY_FLAG 3"))
    later = time.time() + 60  # unmistakably newer than its object and the module
    os.utime(source, (later, later))
    out = tiny_project()
    assert "[1/1] compiling tiny_flag.c" in out and "1 up to date" in out and "tiny.flag = 3" in out


def test_objects_of_an_interrupted_build_with_other_flags_are_not_kept(tiny_project, tmp_path):
    tiny_project(CFLAGS="-DTINY_FLAG=5")  # as if a build with new flags stopped after compiling
    stamp = next((tmp_path / "tmp").glob("*.flags-sha256"))
    stamp.write_text("a build with other flags began here\n")  # ... and the flags changed again
    out = tiny_project(CFLAGS="-DTINY_FLAG=5")
    assert "[2/2] compiling" in out and "tiny.flag = 5" in out


def test_metadata():
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        project = tomllib.load(fh)
    meta = project["project"]
    assert meta["requires-python"] == ">=3.11" and meta["license"] == "Apache-2.0"
    assert meta["license-files"] == ["LICENSE"]
    with open(os.path.join(ROOT, "LICENSE")) as fh:
        assert "Apache License" in fh.read(200)
    versions = [c.rsplit(" :: ", 1)[1] for c in meta["classifiers"]
                if c.startswith("Programming Language :: Python :: 3.")]
    assert versions == ["3.11", "3.12", "3.13", "3.14"]
    assert not any(c.startswith("License ::") for c in meta["classifiers"])  # SPDX instead
    cibw = project["tool"]["cibuildwheel"]
    assert cibw["build"] == [f"cp3{v}-*" for v in (11, 12, 13, 14)]
    assert "{project}/tests" in cibw["test-command"] and cibw["test-extras"] == ["test"]
    assert "packaging" in project["tool"]["pytest"]["ini_options"]["addopts"]


def _run_tool(script, tmp_path):
    if sys.platform == "win32" or shutil.which("bash") is None:
        pytest.skip("a bash script")
    env = dict(os.environ, PYTHON=sys.executable)
    done = subprocess.run(["bash", os.path.join(TOOLS, script), str(tmp_path / "work")], env=env,
                          capture_output=True, text=True, timeout=3 * 3600)
    print(done.stdout[-6000:], done.stderr[-3000:])
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    return done.stdout


@pytest.mark.packaging
def test_sdist_installs_and_passes_its_own_tests(tmp_path):
    out = _run_tool("check_sdist.sh", tmp_path)
    assert "sdist check passed" in out and "VERDICT" in out


@pytest.mark.packaging
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="auditwheel repairs Linux wheels")
def test_repaired_wheel_passes_the_tests_without_a_compiler(tmp_path):
    out = _run_tool("check_wheel.sh", tmp_path)
    assert "wheel check passed (manylinux_" in out
