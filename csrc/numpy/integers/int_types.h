// Runtime state of the sub-byte integer types: scalar type, DType class and
// singleton descriptor of each row of kIntFormatTable. Kept apart from the
// float formats' registry on purpose: nothing here depends on its layout.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "int_format_table.h"
#include "numpy_api.h"

namespace minifloat {

struct IntScalar {
    PyObject_HEAD
    uint8_t code;  // the element's stored byte (int_code_of; NumPy copies it here when indexing)
};

struct IntDescr {
    PyArray_Descr base;
    int int_index;
};

struct IntTypeRuntime {
    const IntFormatRow* row = nullptr;
    int min = 0, max = 0;
    std::string scalar_name;  // "minifloat.int4"
    std::string dtype_name;   // "minifloat.Int4DType"
    PyTypeObject scalar_type{PyVarObject_HEAD_INIT(nullptr, 0)};
    PyArray_DTypeMeta dtype_class{};
    PyArray_Descr* descr = nullptr;
};

IntTypeRuntime& int_runtime(int index);
// -1 when the class/type/descriptor is not one of the integer types.
int int_index_of_dtype_class(const PyArray_DTypeMeta* cls);
int int_index_of_scalar_type(const PyTypeObject* type);
inline int int_index_of_descr(const PyArray_Descr* d) {
    return int_index_of_dtype_class(reinterpret_cast<const PyArray_DTypeMeta*>(Py_TYPE(d)));
}

// NumPy's DType class of a builtin type number; new reference.
inline PyArray_DTypeMeta* dtype_class_of_type_num(int type_num) {
    PyArray_Descr* d = PyArray_DescrFromType(type_num);
    if (d == nullptr) return nullptr;
    PyArray_DTypeMeta* cls = reinterpret_cast<PyArray_DTypeMeta*>(Py_TYPE(d));
    Py_INCREF(cls);
    Py_DECREF(d);
    return cls;
}

extern PyTypeObject g_int_abstract_signed_scalar;    // minifloat.signedinteger
extern PyTypeObject g_int_abstract_unsigned_scalar;  // minifloat.unsignedinteger
extern PyArray_DTypeMeta g_int_abstract_dtype;       // minifloat.IntegerDType

// Wraps v to the type's width (two's complement), as NumPy's int64 -> int8.
inline int wrap_to_int_type(int64_t v, int bits, bool is_signed) {
    const uint64_t u = static_cast<uint64_t>(v);
    if (!is_signed) return static_cast<int>(u & ((uint64_t{1} << bits) - 1));
    const int shift = 64 - bits;
    return static_cast<int>(static_cast<int64_t>(u << shift) >> shift);
}

// The stored byte of a value already in range.
inline uint8_t int_code_of(int value) { return static_cast<uint8_t>(value); }
inline int int_value_of(const IntTypeRuntime& rt, uint8_t code) {
    return rt.row->is_signed ? static_cast<int>(static_cast<int8_t>(code)) : static_cast<int>(code);
}

// A Python object as a value of the type (NumPy's setitem rules: Python ints
// out of range raise OverflowError, NumPy integers wrap, floats truncate).
// Returns -1 with an exception set.
int int_value_from_object(const IntTypeRuntime& rt, PyObject* obj, int* value);

PyObject* new_int_scalar(int index, int value);

// Steps of the module's initialisation (module.cpp calls init_int_types).
int init_int_scalar_types();
int init_int_dtype_classes();
int init_int_ufuncs();
void append_int_cast_specs(int index, std::vector<PyArrayMethod_Spec*>& out);
int install_int_float_format_casts(int index, std::vector<PyArrayMethod_Spec*>& out);
int init_int_types(PyObject* module);

}  // namespace minifloat
