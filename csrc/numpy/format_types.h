// The Python objects made from each format: its DType class, scalar type
// and singleton descriptor, one set per format index beside the format's
// run-time state (registry.h), at a stable address for the life of the
// process. Made by scalar_type.cpp and dtype_class.cpp.
#pragma once

#include <string>

#include "numpy_api.h"
#include "registry.h"

namespace minifloat {

// The descriptor instance of a format's DType (one singleton per format).
struct MinifloatDescr {
    PyArray_Descr base;
    int format_index;
};

// The scalar object of every format: the code as the element's own bytes
// (one, or two in native order) right after the object header, where
// NumPy's PyArray_Scalar copies an array element (scalar_elements.h).
struct MinifloatScalar {
    PyObject_HEAD
    union {
        uint8_t byte;   // formats stored in one byte
        uint16_t half;  // formats stored in two
    } storage;
};

// A format's DType class and scalar type, with the format's index beside
// them (a DType class or scalar type leads to its format in O(1)).
struct FormatDTypeClass : PyArray_DTypeMeta {
    int format_index = -1;
};
struct FormatScalarType : PyTypeObject {
    int format_index = -1;
};

struct FormatTypes {
    // Formats made at run time: the dtype's repr (the call that makes it)
    // and its __reduce__ value (pickled by its parameters). Set once, kept.
    std::string repr_text;
    PyObject* reduce_value = nullptr;
    std::string scalar_name;               // "minifloat.float8_e4m3fn"
    std::string dtype_name;                // "minifloat.Float8E4M3FNDType"
    FormatScalarType scalar_type{};
    FormatDTypeClass dtype_class{};
    MinifloatDescr* descr = nullptr;       // the singleton, owned
};

// The Python objects of format `index` (0 <= index < format_count()); empty
// until scalar_type.cpp and dtype_class.cpp make them.
FormatTypes& format_types(int index);

// The run-time state and the Python objects of the format a minifloat
// descriptor holds.
inline FormatRuntime& runtime_of(const PyArray_Descr* descr) {
    return runtime(reinterpret_cast<const MinifloatDescr*>(descr)->format_index);
}
inline FormatTypes& format_types_of(const PyArray_Descr* descr) {
    return format_types(reinterpret_cast<const MinifloatDescr*>(descr)->format_index);
}

// The abstract parent of every format's DType and scalar type.
extern PyArray_DTypeMeta g_abstract_dtype;
extern PyTypeObject g_abstract_scalar_type;

// -1 when `descr` is not a minifloat descriptor / `obj` not a minifloat scalar.
int format_index_of_descr(const PyArray_Descr* descr);
int format_index_of_scalar_type(const PyTypeObject* type);
inline int format_index_of_scalar(PyObject* obj) { return format_index_of_scalar_type(Py_TYPE(obj)); }
int format_index_of_dtype_class(const PyArray_DTypeMeta* cls);

}  // namespace minifloat
