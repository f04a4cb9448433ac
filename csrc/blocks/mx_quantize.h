// Block quantization (OCP MX, NVFP4) for mf.mx.
#pragma once

#include <pybind11/pybind11.h>

namespace minifloat {

void register_mx_bindings(pybind11::module_& m);

}  // namespace minifloat
