// mf.cast's C++ side: rounding a contiguous array into a format with any
// rounding mode and overflow policy.
#pragma once

#include <string>

#include <pybind11/pybind11.h>

#include "numpy_api.h"
#include "rounding.h"

namespace minifloat {

// The rounding mode named by mf.cast's `rounding=` (ValueError otherwise).
Rounding parse_rounding(const std::string& name);

// `obj` as a C-contiguous, aligned, native NumPy array (TypeError/ValueError
// naming `what` otherwise).
PyArrayObject* require_contiguous(pybind11::handle obj, const char* what);

void register_cast_bindings(pybind11::module_& m);

}  // namespace minifloat
