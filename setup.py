"""Build script for the minifloat C++ extension (setuptools + pybind11)."""
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
    extra_compile_args=["/O2"] if sys.platform == "win32" else ["-O3", "-fno-math-errno"],
    define_macros=[("NPY_NO_DEPRECATED_API", "NPY_2_0_API_VERSION")],
)

setup(ext_modules=[ext])
