// Builds the sub-byte integer types and adds them to minifloat._core: the
// scalar types (int4, ...), DType classes (Int4DType, ...), the abstract
// IntegerDType and INT_FORMAT_NAMES.
#include "int_types.h"

namespace minifloat {

extern PyObject* g_int_module_for_init;

int init_int_types(PyObject* module) {
    g_int_module_for_init = module;  // the float formats' names, for the cast tables
    const int status = init_int_scalar_types() < 0 || init_int_dtype_classes() < 0 || init_int_ufuncs() < 0 ? -1 : 0;
    g_int_module_for_init = nullptr;
    if (status < 0) return -1;
    PyObject* names = PyTuple_New(kIntFormatCount);
    if (names == nullptr) return -1;
    for (int i = 0; i < kIntFormatCount; i++) {
        IntTypeRuntime& rt = int_runtime(i);
        PyObject* scalar = reinterpret_cast<PyObject*>(&rt.scalar_type);
        PyObject* cls = reinterpret_cast<PyObject*>(&rt.dtype_class);
        if (PyObject_SetAttrString(module, rt.row->name, scalar) < 0 ||
            PyObject_SetAttrString(module, rt.row->dtype_class, cls) < 0) {
            Py_DECREF(names);
            return -1;
        }
        PyTuple_SET_ITEM(names, i, PyUnicode_FromString(rt.row->name));
    }
    const int added = PyObject_SetAttrString(module, "INT_FORMAT_NAMES", names);
    Py_DECREF(names);
    if (added < 0) return -1;
    if (PyObject_SetAttrString(module, "IntegerDType", reinterpret_cast<PyObject*>(&g_int_abstract_dtype)) < 0 ||
        PyObject_SetAttrString(module, "signedinteger", reinterpret_cast<PyObject*>(&g_int_abstract_signed_scalar)) < 0 ||
        PyObject_SetAttrString(module, "unsignedinteger", reinterpret_cast<PyObject*>(&g_int_abstract_unsigned_scalar)) < 0) {
        return -1;
    }
    return 0;
}

}  // namespace minifloat
