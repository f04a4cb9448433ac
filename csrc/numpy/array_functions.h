// NumPy's per-dtype array functions (ArrFuncs): ordering for sort, argsort,
// searchsorted and partition (NaN last, -0 == +0), argmax/argmin, nonzero,
// fill (np.arange) and dot (np.dot, accumulated in float32).
#pragma once

#include <vector>

#include "numpy_api.h"

namespace minifloat {

void append_array_function_slots(int index, std::vector<PyType_Slot>& slots);

// Rank of a code in value order: equal values share a rank, NaN codes rank
// above everything. Valid for every code of format `index`.
const std::vector<uint16_t>& order_keys(int index);

// For tests: format `index`'s dotfunc slot over n codes of each operand, as
// NumPy 2.5's np.dot calls it (arr == NULL); writes one code to `out`.
void dot_through_slot(int index, const void* a, npy_intp stride_a, const void* b, npy_intp stride_b, void* out,
                      npy_intp n);

}  // namespace minifloat
