// ml_dtypes' DType classes, matched to minifloat's formats by name (their
// codes are the same bits), found when minifloat's DTypes are made.
#pragma once

#include <vector>

#include "numpy_api.h"

namespace minifloat {

// The format whose codes ml_dtypes' DType class `cls` holds; -1 for any
// other class, and for every class when ml_dtypes was absent or skipped.
int format_index_of_ml_dtypes_class(const PyArray_DTypeMeta* cls);

// format <-> every ml_dtypes float DType (imports ml_dtypes on the first
// call unless MINIFLOAT_NO_ML_DTYPES is set); -1 with a Python error set
int append_ml_dtypes_cast_specs(int index, std::vector<PyArrayMethod_Spec*>& out);
// integer type <-> ml_dtypes' integer DTypes, when ml_dtypes is installed
// (int_casts_ml_dtypes.cpp); always 0
int append_int_ml_dtypes_cast_specs(int index, std::vector<PyArrayMethod_Spec*>& out);

// Tells the NumPy layer about ml_dtypes: its casts for every DType made from
// now on, and promotion of its DType classes as minifloat's of the same
// format. Called at import before the DTypes are made.
void register_ml_dtypes_interop();

}  // namespace minifloat
