// The conversion behind every cast between two formats, whichever DTypes
// carry the codes: minifloat's own, or ml_dtypes' for the same formats.
#pragma once

#include "numpy_api.h"

namespace minifloat {

// Converts `n` codes of format `from` at data[0] into format `to` at data[1]
// (any strides and alignment): one rounding to nearest even from the exact
// value, the target's default overflow, NumPy's floating-point flags raised.
// The same format on both sides copies the bits. Every format must have been
// registered (the code tables are built as the DTypes are made).
void translate_codes(int from, int to, char* const data[], npy_intp n, const npy_intp strides[]);

}  // namespace minifloat
