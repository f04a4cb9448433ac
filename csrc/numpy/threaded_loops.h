// Element-wise ufunc loops split over the worker threads (thread_pool.h).
#pragma once

#include "numpy_api.h"

namespace minifloat {

// A strided loop doing what `inner` does (an element-wise loop with `nin`
// inputs and `nout` outputs), its elements split over the thread pool when
// the call is large, no output is a reduction's (stride 0) and no output
// overlaps an input other than exactly (in place). `inner` must compute
// each element from the same element of the inputs alone and never need the
// GIL. Made at import (the GIL held); the same inner loop gets the same one.
PyArrayMethod_StridedLoop* threaded_loop(PyArrayMethod_StridedLoop* inner, int nin, int nout, const char* ufunc);

// Runs `inner` (as above) on one call's operands, split the same way; for
// loops that pick their inner loop per call (add and multiply's get_loop).
int run_split_loop(PyArrayMethod_StridedLoop* inner, int nin, int nout, PyArrayMethod_Context* context,
                   char* const data[], const npy_intp dimensions[], const npy_intp strides[], NpyAuxData* aux);

}  // namespace minifloat
