// A promoter that lets NumPy decide: each operand's DType (the signature's,
// else the operand's) is replaced by a stand-in NumPy can resolve, and the
// loop ufunc.resolve_dtypes(stand-ins) names is the promotion. Used for
// ufuncs without loops of ours (ufunc_fallback.cpp for the float formats,
// integers/int_ufuncs.cpp for the sub-byte integers).
#pragma once

#include "numpy_api.h"

namespace minifloat {

// The ufunc of this name in NumPy's umath (np.clip, for one, is a Python
// wrapper, not the ufunc); new reference, nullptr with an error set.
inline PyObject* numpy_ufunc_named(const char* name) {
    PyObject* umath = PyImport_ImportModule("numpy._core.umath");
    if (umath == nullptr) return nullptr;
    PyObject* ufunc = PyObject_GetAttrString(umath, name);
    Py_DECREF(umath);
    return ufunc;
}

inline PyArray_DTypeMeta* new_dtype_ref(PyArray_DTypeMeta* dtype) {
    Py_XINCREF(dtype);
    return dtype;
}

// What resolve_dtypes takes for an operand of a DType that is not ours: the
// Python type itself for NumPy's "weak" Python scalars, else the DType's
// default descriptor. New reference, nullptr with an error set.
inline PyObject* numpy_stand_in(PyArray_DTypeMeta* dtype) {
    PyObject* python_type = nullptr;
    if (dtype == &PyArray_PyFloatDType) python_type = reinterpret_cast<PyObject*>(&PyFloat_Type);
    if (dtype == &PyArray_PyLongDType) python_type = reinterpret_cast<PyObject*>(&PyLong_Type);
    if (dtype == &PyArray_PyComplexDType) python_type = reinterpret_cast<PyObject*>(&PyComplex_Type);
    if (python_type != nullptr) {
        Py_INCREF(python_type);
        return python_type;
    }
    return reinterpret_cast<PyObject*>(PyArray_GetDefaultDescr(dtype));
}

// `stand_in(dtype)`: a new reference NumPy's resolve_dtypes takes for an
// operand of `dtype` (a descriptor, or a Python type for its weak scalars);
// nullptr with an error set. Outputs the signature leaves open stay open
// (None). With `reduction_reads_second`, a missing first operand (a
// reduction's) is the second one's.
template <class StandIn>
int promote_by_resolution(PyObject* ufunc, PyArray_DTypeMeta* const op_dtypes[],
                          PyArray_DTypeMeta* const signature[], PyArray_DTypeMeta* new_op_dtypes[],
                          bool reduction_reads_second, StandIn&& stand_in) {
    const PyUFuncObject* u = reinterpret_cast<PyUFuncObject*>(ufunc);
    PyObject* operands = PyTuple_New(u->nargs);
    if (operands == nullptr) return -1;
    for (int i = 0; i < u->nargs; i++) {
        PyArray_DTypeMeta* chosen = signature[i] != nullptr ? signature[i] : op_dtypes[i];
        if (reduction_reads_second && chosen == nullptr && i == 0 && u->nin > 1) chosen = op_dtypes[1];
        PyObject* operand;
        if (chosen == nullptr || (i >= u->nin && signature[i] == nullptr)) {
            Py_INCREF(Py_None);
            operand = Py_None;  // outputs: NumPy decides
        } else {
            operand = stand_in(chosen);
        }
        if (operand == nullptr) {
            Py_DECREF(operands);
            return -1;
        }
        PyTuple_SET_ITEM(operands, i, operand);
    }
    PyObject* resolved = PyObject_CallMethod(ufunc, "resolve_dtypes", "(O)", operands);
    Py_DECREF(operands);
    if (resolved == nullptr) return -1;
    for (int i = 0; i < u->nargs; i++) {
        new_op_dtypes[i] = new_dtype_ref(NPY_DTYPE(reinterpret_cast<PyArray_Descr*>(PyTuple_GET_ITEM(resolved, i))));
    }
    Py_DECREF(resolved);
    return 0;
}

}  // namespace minifloat
