// mf.quant's "scaled" recipe in two passes over the data: the largest
// finite magnitude of each group, then every value divided by its group's
// float32 scale and rounded once into the format (python/minifloat/quant.py
// states the rules; the scales themselves are computed in Python from the
// maxima, a few values per group).
#pragma once

#include <pybind11/pybind11.h>

namespace minifloat {

void register_scaled_quantize_bindings(pybind11::module_& m);

}  // namespace minifloat
