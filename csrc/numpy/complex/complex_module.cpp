// Builds complex32 and bcomplex32 and adds them to minifloat._core: the
// scalar types, DType classes (Complex32DType, BComplex32DType), the
// abstract ComplexDType and complexfloating, COMPLEX_FORMAT_NAMES and the
// pickle helper _complex_from_codes.
#include "complex_types.h"

namespace minifloat {

namespace {

// _complex_from_codes(name, real_code, imag_code): a scalar from its codes
// (what a pickled scalar holds).
PyObject* complex_from_codes(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "_complex_from_codes(type name, real code, imaginary code)");
        return nullptr;
    }
    int kind = -1;
    for (int k = 0; k < kComplexCount; k++) {
        if (PyUnicode_CompareWithASCIIString(args[0], complex_runtime(k).name) == 0) kind = k;
    }
    if (kind < 0) {
        PyErr_Format(PyExc_ValueError, "unknown minifloat complex type %R", args[0]);
        return nullptr;
    }
    uint16_t parts[2];
    for (int i = 0; i < 2; i++) {
        const unsigned long code = PyLong_AsUnsignedLong(args[1 + i]);
        if (PyErr_Occurred()) return nullptr;
        if (code > 0xFFFFu) {
            PyErr_Format(PyExc_ValueError, "code %lu out of range for a 16-bit part", code);
            return nullptr;
        }
        parts[i] = static_cast<uint16_t>(code);
    }
    return new_complex_scalar(kind, parts);
}

PyMethodDef g_from_codes_def = {"_complex_from_codes",
                                reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(complex_from_codes)),
                                METH_FASTCALL, "Rebuild a complex32/bcomplex32 scalar from its part codes (pickle)."};

}  // namespace

extern PyArray_DTypeMeta g_complex_abstract_dtype;
extern PyTypeObject g_complex_abstract_scalar;

int init_complex_types(PyObject* module) {
    if (init_complex_scalar_types() < 0 || init_complex_dtype_classes() < 0 || init_complex_ufuncs() < 0) return -1;
    PyObject* names = PyTuple_New(kComplexCount);
    if (names == nullptr) return -1;
    for (int k = 0; k < kComplexCount; k++) {
        ComplexTypeRuntime& rt = complex_runtime(k);
        if (PyObject_SetAttrString(module, rt.name, reinterpret_cast<PyObject*>(&rt.scalar_type)) < 0 ||
            PyObject_SetAttrString(module, rt.dtype_name, reinterpret_cast<PyObject*>(&rt.dtype_class)) < 0) {
            Py_DECREF(names);
            return -1;
        }
        PyTuple_SET_ITEM(names, k, PyUnicode_FromString(rt.name));
    }
    const int added = PyObject_SetAttrString(module, "COMPLEX_FORMAT_NAMES", names);
    Py_DECREF(names);
    if (added < 0) return -1;
    PyObject* function = PyCFunction_NewEx(&g_from_codes_def, nullptr, nullptr);
    if (function == nullptr) return -1;
    const int set = PyObject_SetAttrString(module, "_complex_from_codes", function);
    Py_DECREF(function);
    if (set < 0) return -1;
    if (PyObject_SetAttrString(module, "ComplexDType", reinterpret_cast<PyObject*>(&g_complex_abstract_dtype)) < 0 ||
        PyObject_SetAttrString(module, "complexfloating", reinterpret_cast<PyObject*>(&g_complex_abstract_scalar)) < 0) {
        return -1;
    }
    return 0;
}

}  // namespace minifloat
