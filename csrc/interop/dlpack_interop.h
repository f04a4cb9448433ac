// DLPack import/export of minifloat arrays (mf.from_dlpack, mf.to_dlpack).
#pragma once

#include <pybind11/pybind11.h>

namespace minifloat {

void register_dlpack_bindings(pybind11::module_& m);

}  // namespace minifloat
