// mf.cast's C++ side: rounding a contiguous array into a format with any
// rounding mode and overflow policy.
#pragma once

#include <pybind11/pybind11.h>

namespace minifloat {

void register_cast_bindings(pybind11::module_& m);

}  // namespace minifloat
