// Formats made at run time (mf.float_format) and the description of any
// format as Python sees it (minifloat.format_info): the same fields as a
// built-in row, and every piece a built-in format has (runtime, scalar
// type, DType class with its casts, ufunc loops).
#pragma once

#include <pybind11/pybind11.h>

namespace minifloat {

void register_user_format_bindings(pybind11::module_& m);

}  // namespace minifloat
