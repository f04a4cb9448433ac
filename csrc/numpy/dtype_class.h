// The NumPy DType classes: the abstract minifloat.MinifloatDType and one
// concrete class per format with its singleton descriptor, slots and casts.
#pragma once

#include "numpy_api.h"

namespace minifloat {

// The abstract class and every built-in format's. Requires the scalar
// types to be ready.
int init_dtype_classes();

// The DType class of format `index` (made at run time), with its casts to
// and from NumPy's types and every format made before it. Requires its
// scalar type to be ready.
int init_format_dtype(int index);

}  // namespace minifloat
