// Ufuncs without a minifloat loop (np.fft's, np.linalg's gufuncs, ufuncs of
// other libraries, np.frompyfunc's): minifloat inputs are widened exactly,
// to float32 or to object, the way NumPy widens float16 inputs for them.
#pragma once

#include <pybind11/pybind11.h>

namespace minifloat {

// _core._add_fallback_promoters(ufunc, target) with target float32 or object;
// _core._ufuncs_with_loops(): the names of the ufuncs minifloat has loops for.
void register_fallback_bindings(pybind11::module_& m);

}  // namespace minifloat
