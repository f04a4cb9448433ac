"""Build script for the minifloat C++ extension (setuptools + pybind11).

Three things beyond a plain setuptools build:

- the C++ files compile in parallel (NPY_NUM_BUILD_JOBS, else `build_ext -j N`,
  else one job per CPU), each announced as "[3/53] compiling csrc/numpy/x.cpp"
  (shown by `pip install -v`; the whole build takes 2-3 minutes on 2 cores);
  an object newer than its source and every header is kept, so an
  interrupted build resumes;
- a change of compiler or flags rebuilds every file: the flags' hash is kept
  in the build directory next to the objects, rewritten when it changes, and
  everything older than it is rebuilt (setuptools' timestamp check alone
  would keep objects and the module built with the old flags); NumPy's and
  pybind11's headers count by version, not by the path of pip's temporary
  build environment, so a second `pip install .` reuses the first's objects;
- the compiler options live in the functions below, one place to extend.
"""
import hashlib
import json
import os
import shlex
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from glob import glob

import numpy
import pybind11
from pybind11.setup_helpers import Pybind11Extension
from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.modified import newer_group

# Environment variables that change what the compiler or linker does.
FLAG_VARIABLES = ("CC", "CXX", "CFLAGS", "CPPFLAGS", "CXXFLAGS", "LDFLAGS", "LDSHARED",
                  "LDCXXSHARED", "ARCHFLAGS", "MACOSX_DEPLOYMENT_TARGET", "_PYTHON_HOST_PLATFORM")
# The compiler object's command lines (Unix-style and MSVC spellings).
COMPILER_COMMANDS = ("compiler_so", "compiler_so_cxx", "compiler_cxx", "linker_so", "linker_so_cxx",
                     "compile_options", "compile_options_debug", "ldflags_shared", "cc", "linker")


def compile_args():
    """Optimization and language flags for every C++ file.

    MINIFLOAT_EXTRA_COMPILE_ARGS come last, so they can override -O3 (the
    sanitizer build of tests/tools/sanitize.sh); they count in the flags hash.
    """
    extra = shlex.split(os.environ.get("MINIFLOAT_EXTRA_COMPILE_ARGS", ""))
    # A switch over an enum of the format description (or any other) that
    # misses a case does not build: the description's fields are read by
    # exhaustive switches without default (format.h).
    if sys.platform == "win32":
        # /permissive-: the standard-conforming mode GCC and Clang compile in;
        # C4062: an enumerator not handled in a switch without default
        return ["/O2", "/permissive-", "/we4062"] + extra
    # No -ffast-math: the loops rely on IEEE semantics and FP status flags.
    return ["-O3", "-fno-math-errno", "-Werror=switch"] + extra


def define_macros():
    macros = [("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION")]
    if sys.platform == "win32":
        macros.append(("_USE_MATH_DEFINES", None))  # M_PI from <cmath> on MSVC
    return macros


def build_jobs(requested):
    """Parallel compile jobs: NPY_NUM_BUILD_JOBS, else `build_ext -j`, else the CPU count."""
    value = os.environ.get("NPY_NUM_BUILD_JOBS", "").strip()
    if value:
        return max(1, int(value))
    if isinstance(requested, int) and requested > 0:
        return requested
    return os.cpu_count() or 1


def flags_digest(compiler, ext, command):
    """SHA-256 of everything that decides how the objects are compiled and linked."""
    facts = {
        "environment": {name: os.environ.get(name) for name in FLAG_VARIABLES},
        "compiler": {name: getattr(compiler, name, None) for name in COMPILER_COMMANDS},
        "extension": {name: getattr(ext, name, None) for name in (
            "extra_compile_args", "extra_link_args", "define_macros", "undef_macros",
            "include_dirs", "libraries", "library_dirs", "language")},
        "command": {name: getattr(command, name, None) for name in ("define", "undef", "debug",
                                                                    "include_dirs")},
        "python": sys.version,
        "numpy": numpy.__version__,
        "pybind11": pybind11.__version__,
    }
    text = json.dumps(facts, sort_keys=True, default=repr)
    # pip builds in a new temporary environment each time: NumPy's and
    # pybind11's header folders move, their versions (in the facts) do not,
    # so the path alone must not rebuild everything
    for folder, name in ((numpy.get_include(), "numpy"), (pybind11.get_include(), "pybind11")):
        text = text.replace(json.dumps(folder)[1:-1], f"<{name} headers>")
    return hashlib.sha256(text.encode()).hexdigest()


class BuildExt(build_ext):
    """build_ext with per-file progress, parallel compiles and a rebuild on new flags."""

    def build_extension(self, ext):
        stamp = os.path.join(self.build_temp, ext.name + ".flags-sha256")
        digest = flags_digest(self.compiler, ext, self)
        try:
            with open(stamp) as fh:
                previous = fh.read().strip()
        except OSError:
            previous = None  # first build here
        if previous != digest:
            if previous is not None:
                print("minifloat: compiler or flags changed since the last build: rebuilding "
                      "every file", flush=True)
            # Written now, its time marks the change: every object and the
            # module older than it are rebuilt, even if this build is cut short.
            os.makedirs(self.build_temp, exist_ok=True)
            with open(stamp, "w") as fh:
                fh.write(digest + "\n")
        depends, original = ext.depends, self.compiler.compile
        ext.depends = [*depends, stamp]
        self.compiler.compile = self._progress_compile(original)
        try:
            super().build_extension(ext)
        finally:
            ext.depends, self.compiler.compile = depends, original

    def _progress_compile(self, compile_files):
        """compile() one source at a time on a thread pool, announcing each file."""
        jobs = build_jobs(self.parallel)

        def compile_each(sources, output_dir=None, **kwargs):
            if getattr(self.compiler, "initialized", True) is False:
                self.compiler.initialize()  # MSVC: find the tools once, not in every thread
            objects = self.compiler.object_filenames(sources, output_dir=output_dir or "")
            for obj in objects:
                os.makedirs(os.path.dirname(obj) or ".", exist_ok=True)
            # An object newer than its source, every header and the flags'
            # stamp is kept: an interrupted build resumes where it stopped.
            depends = list(kwargs.get("depends") or [])
            todo = [source for source, obj in zip(sources, objects)
                    if self.force or newer_group([source, *depends], obj, missing="newer")]
            total, done, lock = len(todo), [0], threading.Lock()
            kept = f"; {len(sources) - total} up to date" if total < len(sources) else ""
            print(f"minifloat: compiling {total} files with {jobs} parallel jobs "
                  f"(2-3 minutes for all on 2 cores){kept}", flush=True)

            def one(source):
                with lock:
                    done[0] += 1
                    print(f"[{done[0]}/{total}] compiling {source}", flush=True)
                compile_files([source], output_dir=output_dir, **kwargs)

            with ThreadPoolExecutor(max_workers=jobs) as pool:
                list(pool.map(one, todo))
            return objects

        return compile_each


# csrc/ is organized by layer (csrc/README.md); every folder is on the include
# path, so a file names the headers it uses by their file names alone.
sources = sorted(glob("csrc/**/*.cpp", recursive=True))
headers = sorted(glob("csrc/**/*.h", recursive=True))
header_folders = sorted({os.path.dirname(h) for h in headers})

ext = Pybind11Extension(
    "minifloat._core",
    sources,
    depends=headers,  # a header change rebuilds everything
    include_dirs=[numpy.get_include(), *header_folders],
    cxx_std=17,
    extra_compile_args=compile_args(),
    define_macros=define_macros(),
)

if __name__ == "__main__":  # also under pip: setuptools.build_meta runs this file as __main__
    setup(ext_modules=[ext], cmdclass={"build_ext": BuildExt})
