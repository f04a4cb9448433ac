// Loops of the linear-algebra generalized ufuncs (matmul, vecdot, matvec,
// vecmat): T, T -> T with float32 accumulation.
#pragma once

#include <vector>

#include "numpy_api.h"

namespace minifloat {

struct LinalgLoop {
    const char* ufunc;
    PyArrayMethod_StridedLoop* loop;
};

std::vector<LinalgLoop> linalg_loops();

}  // namespace minifloat
