// NumPy C API includes shared by every translation unit. numpy_api.cpp
// defines MINIFLOAT_IMPORT_NUMPY before including this to own the API tables.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define PY_ARRAY_UNIQUE_SYMBOL MINIFLOAT_ARRAY_API
#define PY_UFUNC_UNIQUE_SYMBOL MINIFLOAT_UFUNC_API
#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
// The DType API features used here first appear in NumPy 2.4.
#define NPY_TARGET_VERSION NPY_2_4_API_VERSION
#ifndef MINIFLOAT_IMPORT_NUMPY
#define NO_IMPORT_ARRAY
#define NO_IMPORT_UFUNC
#endif

#include <numpy/arrayobject.h>
#include <numpy/arrayscalars.h>
#include <numpy/ufuncobject.h>
#include <numpy/dtype_api.h>

// The ArrayMethod object is opaque in the public API.
using PyArrayMethodObject = struct PyArrayMethodObject_tag;

namespace minifloat {
// Imports NumPy's array and ufunc C APIs (once, at module import); -1 with
// a Python error set.
int import_numpy_api();
}  // namespace minifloat
