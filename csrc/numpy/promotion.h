// Cast safety and type promotion, derived from exact representability of
// each format's values (computed from the formats' values on first use).
#pragma once

#include "numpy_api.h"

namespace minifloat {

// True when every finite value of format `a` is a value of format `b` and
// `b` keeps a's specials (inf, NaN, -0).
bool format_is_subset(int a, int b);

// What a common_dtype slot returns (every family's): `d` as a new
// reference, or Py_NotImplemented (new reference) where there is none.
PyArray_DTypeMeta* new_ref(PyArray_DTypeMeta* d);
PyArray_DTypeMeta* not_implemented();

// NumPy's common_dtype slot for format `index`: a new reference, or
// Py_NotImplemented (new reference).
PyArray_DTypeMeta* common_dtype_with(int index, PyArray_DTypeMeta* other);

// Safety of casting from a builtin NumPy DType into format `index`, and
// from the format into it.
NPY_CASTING builtin_to_format_casting(int index, PyArray_DTypeMeta* builtin);
NPY_CASTING format_to_builtin_casting(int index, PyArray_DTypeMeta* builtin);
NPY_CASTING format_to_format_casting(int from, int to);

// Another library's DType class that holds a format's own codes (ml_dtypes'
// float8_e4m3fn): it promotes as minifloat's DType of that format. Set once
// at import by the layer that knows the library (interop/casts_ml_dtypes);
// returns the format's index, or -1 for any other class.
using ForeignFormatLookup = int (*)(const PyArray_DTypeMeta* cls);
void set_foreign_format_lookup(ForeignFormatLookup lookup);

}  // namespace minifloat
