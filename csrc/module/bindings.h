// Python-facing helper functions of minifloat._core (pybind11).
#pragma once

#include <pybind11/pybind11.h>

namespace minifloat {

void register_bindings(pybind11::module_& m);

}  // namespace minifloat
