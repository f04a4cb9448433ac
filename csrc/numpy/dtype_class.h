// The NumPy DType classes: the abstract minifloat.MinifloatDType and one
// concrete class per format with its singleton descriptor, slots and casts.
#pragma once

#include "numpy_api.h"

namespace minifloat {

// Requires the scalar types to be ready.
int init_dtype_classes();

}  // namespace minifloat
