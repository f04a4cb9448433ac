// The Python side of stochastic rounding with C++ draws, packed output of
// mf.cast, and mf.pack / mf.unpack.
#pragma once

#include <pybind11/pybind11.h>

namespace minifloat {

void register_cast_extra_bindings(pybind11::module_& m);

}  // namespace minifloat
