// A NumPy function wrapped so that calls without a minifloat operand reach
// the original at C speed; calls with one go to a Python handler.
#pragma once

#include <pybind11/pybind11.h>

namespace minifloat {

// _core._function_guard(original, handler): a callable that calls
// handler(original, *args, **kwargs) when an argument (or an element of a
// list/tuple argument, or a keyword value) is an ndarray, scalar or dtype of
// minifloat's, and original(*args, **kwargs) otherwise. It presents the
// original's name, docstring, module, signature and __wrapped__, and pickles
// by reference as the original does; __minifloat_original__ is the original.
void register_function_guard_bindings(pybind11::module_& m);

}  // namespace minifloat
