// ml_dtypes' DType classes, matched to minifloat's formats by name (their
// codes are the same bits), found when minifloat's DTypes are made.
#pragma once

#include "numpy_api.h"

namespace minifloat {

// The format whose codes ml_dtypes' DType class `cls` holds; -1 for any
// other class, and for every class when ml_dtypes was absent or skipped.
int format_index_of_ml_dtypes_class(const PyArray_DTypeMeta* cls);

}  // namespace minifloat
