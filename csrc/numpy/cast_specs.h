// The ArrayMethod specs of every cast that involves format `index`,
// appended to `out` for PyArrayInitDTypeMeta_FromSpec. Specs live for the
// whole process (NumPy keeps pointers to their DType lists).
#pragma once

#include <vector>

#include "numpy_api.h"

namespace minifloat {

// format <-> NumPy's bool, integer, float and complex DTypes
void append_numeric_cast_specs(int index, std::vector<PyArrayMethod_Spec*>& out);
// format <-> str_ and bytes_
void append_text_cast_specs(int index, std::vector<PyArrayMethod_Spec*>& out);
// format <-> void: raw bytes refused, structured dtypes field by field
void append_void_cast_specs(int index, std::vector<PyArrayMethod_Spec*>& out);
// format -> itself, and both directions with every format registered before it
void append_minifloat_cast_specs(int index, std::vector<PyArrayMethod_Spec*>& out);
// format <-> every ml_dtypes float DType (imports ml_dtypes on the first
// call unless MINIFLOAT_NO_ML_DTYPES is set); -1 with a Python error set
int append_ml_dtypes_cast_specs(int index, std::vector<PyArrayMethod_Spec*>& out);

// Owns a spec with its DType list and slots.
PyArrayMethod_Spec* make_method_spec(const char* name, int nin, int nout, NPY_CASTING casting,
                                     NPY_ARRAYMETHOD_FLAGS flags,
                                     std::vector<PyArray_DTypeMeta*> dtypes,
                                     std::vector<PyType_Slot> slots);

}  // namespace minifloat
