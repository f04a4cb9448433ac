// The thread pool's controls for the Python package (python/minifloat/_threads.py).
#pragma once

#include <pybind11/pybind11.h>

namespace minifloat {

void register_thread_bindings(pybind11::module_& m);

}  // namespace minifloat
