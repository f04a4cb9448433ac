// The Python scalar types (minifloat.float8_e4m3fn, ...), subclasses of
// np.floating through the abstract minifloat.floating.
#pragma once

#include "numpy_api.h"

namespace minifloat {

// Readies the abstract scalar type and one scalar type per built-in format.
int init_scalar_types();
// Readies the scalar type of format `index` (made at run time).
int init_format_scalar_type(int index);

// A new scalar of format `index` holding `code`. New reference.
PyObject* new_scalar(int index, uint32_t code);

// The code a minifloat scalar holds (format_index_of_scalar(scalar) >= 0).
uint32_t scalar_code(PyObject* scalar);

// Reports FpFlag bits as NumPy's scalar-operation warnings/errors
// ("overflow encountered in scalar add"); -1 if that raised.
int report_scalar_fp_flags(const char* operation, uint32_t flags);

// pickle support: rebuilds a scalar from its format (name, or dtype for a
// format made at run time) and code.
PyObject* scalar_from_code(PyObject* module, PyObject* const* args, Py_ssize_t nargs);
extern PyObject* g_scalar_from_code_function;

}  // namespace minifloat
