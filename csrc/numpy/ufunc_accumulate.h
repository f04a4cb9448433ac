// Float32 accumulation for add and multiply across NumPy's loop calls.
//
// NumPy runs a reduction as many inner-loop calls that add into the output
// in place (one per row of a non-innermost axis, or per buffer), so rounding
// the output to the format after each call would round many times (ml_dtypes
// sums 300 ones to 16 in float8_e4m3fn). These loops keep each output's
// running float32 value in the loop's auxdata between calls and write its
// rounding every time: the final output is the once-rounded float32 result.
// ufunc.at gets an indexed loop that does the same per touched element (NumPy
// uses it when the values already have the format's dtype; other values go
// through a promoted loop, e.g. float64 for int values, as for float16).
#pragma once

#include <vector>

#include "math_ops.h"
#include "numpy_api.h"

namespace minifloat {

// Extra ArrayMethod slots (get_loop, get_reduction_initial, indexed loop)
// for BinaryOp::add or BinaryOp::multiply.
std::vector<PyType_Slot> accumulation_slots(BinaryOp op);

}  // namespace minifloat
