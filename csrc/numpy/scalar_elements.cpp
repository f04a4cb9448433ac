#include "scalar_elements.h"

#include <cstddef>

#include "decode_blocks.h"
#include "format_types.h"

namespace minifloat {

static_assert(offsetof(MinifloatScalar, storage) == sizeof(PyObject),
              "NumPy copies a scalar's element right after the object header");

PyObject* element_as_python_float(PyArray_Descr* descr, char* data) {
    const FormatRuntime& rt = runtime_of(descr);
    return PyFloat_FromDouble(rt.decode_f64[load_code(rt, data)]);
}

int build_scalars_by_copy(PyArray_Descr* descr) {
    if (PyDataType_GetArrFuncs(descr)->copyswap == nullptr) {
        PyErr_SetString(PyExc_RuntimeError, "minifloat: scalars need the copyswap function first");
        return -1;
    }
    descr->flags &= ~static_cast<npy_uint64>(NPY_USE_GETITEM);
    return 0;
}

}  // namespace minifloat
