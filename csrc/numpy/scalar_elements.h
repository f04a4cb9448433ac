// How NumPy turns an element of a minifloat array into a Python object,
// split as for NumPy's float16: indexing (arr[i], iteration, 0-d results)
// gives a minifloat scalar, while item(), tolist() and astype(object) give
// a Python float, so that json.dumps(arr.tolist()) works.
#pragma once

#include "numpy_api.h"

namespace minifloat {

// The DType's getitem slot (NumPy's PyArray_GETITEM: item, tolist, casts to
// object): the element's value as a Python float. New reference. (The
// integer and complex types do the same with Python ints and complex
// numbers, as NumPy's int8 and complex64.)
PyObject* element_as_python_float(PyArray_Descr* descr, char* data);

// Makes NumPy build a type's scalars from array elements itself (the
// descriptor: the type's singleton). NumPy marks new-style descriptors
// NPY_USE_GETITEM, which sends indexing (PyArray_Scalar) to getitem as
// well; without the flag PyArray_Scalar allocates the scalar type and
// copies the element into it with the DType's copyswap (legacy_copyswap.h,
// installed first), right after the object header (MinifloatScalar,
// IntScalar and ComplexScalar keep the element there). -1 with an
// exception on failure.
int build_scalars_by_copy(PyArray_Descr* descr);

}  // namespace minifloat
