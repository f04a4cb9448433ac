"""Build script for the minifloat C++ extension (setuptools + pybind11)."""
import os
import shlex
import sys
from glob import glob

import numpy
from pybind11.setup_helpers import ParallelCompile, Pybind11Extension
from setuptools import setup

# Compile the C++ files in parallel (NPY_NUM_BUILD_JOBS overrides the count).
ParallelCompile("NPY_NUM_BUILD_JOBS", default=0).install()

ext = Pybind11Extension(
    "minifloat._core",
    sorted(glob("csrc/*.cpp")),
    depends=sorted(glob("csrc/*.h")),  # a header change rebuilds everything
    include_dirs=[numpy.get_include(), "csrc"],
    cxx_std=17,
    # No -ffast-math: the loops rely on IEEE semantics and FP status flags.
    # MINIFLOAT_EXTRA_COMPILE_ARGS come last, so they can override -O3 (tests/tools/sanitize.sh).
    extra_compile_args=(["/O2"] if sys.platform == "win32" else ["-O3", "-fno-math-errno"])
    + shlex.split(os.environ.get("MINIFLOAT_EXTRA_COMPILE_ARGS", "")),
    define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION")],
)

setup(ext_modules=[ext])
