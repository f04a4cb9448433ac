// minifloat's 16-bit complex types, complex32 (two float16) and bcomplex32
// (two bfloat16): NumPy DTypes of kind 'c', itemsize 4, alignment 2, the real
// part first, each part in native byte order (the layout of ml_dtypes' and
// torch's complex32). The parts are plain part codes (complex_parts.h); every
// operation decodes them exactly to binary64, computes what NumPy's
// complex128 computes and rounds each part once.
//
// Kept apart from the float formats' DType classes on purpose: the state of
// the two types (scalar type, DType class, descriptor) lives here, in one
// table indexed by ComplexKind.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "complex_parts.h"
#include "numpy_api.h"

namespace minifloat {

enum ComplexKind : int { kComplex32 = 0, kBComplex32 = 1 };
inline constexpr int kComplexCount = 2;

struct ComplexScalar {
    PyObject_HEAD
    uint16_t parts[2];  // real, imaginary: the element's own bytes
};

struct ComplexDescr {
    PyArray_Descr base;
    int complex_kind;
};

struct ComplexTypeRuntime {
    const char* name;          // "complex32"
    const char* dtype_name;    // "Complex32DType"
    const char* part_name;     // "float16"
    char type_char;
    PartCodec codec{};
    PyTypeObject scalar_type{PyVarObject_HEAD_INIT(nullptr, 0)};
    PyArray_DTypeMeta dtype_class{};
    PyArray_Descr* descr = nullptr;
    PyArray_Descr* part_descr = nullptr;  // float16, or minifloat's bfloat16 (a new reference kept)
    std::string scalar_qualname;          // "minifloat.complex32"
    std::string dtype_qualname;
};

// The abstract parents (ComplexDType, minifloat.complexfloating).
extern PyArray_DTypeMeta g_complex_abstract_dtype;
extern PyTypeObject g_complex_abstract_scalar;

ComplexTypeRuntime& complex_runtime(int kind);
// -1 when not one of the complex types.
int complex_kind_of_dtype_class(const PyArray_DTypeMeta* cls);
int complex_kind_of_scalar_type(const PyTypeObject* type);
inline int complex_kind_of_descr(const PyArray_Descr* d) {
    return complex_kind_of_dtype_class(reinterpret_cast<const PyArray_DTypeMeta*>(Py_TYPE(d)));
}

// The format index of minifloat's bfloat16 (the part of bcomplex32).
int bfloat16_format_index();

// A Python object as a complex value of the type's parts (exact to binary64
// where the source allows; Python ints beyond 2^53 rounded to odd so the
// part rounds once). Returns -1 with an exception set.
int complex_from_object(int kind, PyObject* obj, double* re, double* im);
// Both parts rounded into the type; returns the FpFlag bits.
uint32_t encode_complex_value(int kind, double re, double im, uint16_t parts[2]);
void decode_complex_value(int kind, const uint16_t parts[2], double* re, double* im);

// One element as complex64 parts (exact for both part formats), and back
// rounded (returns the FpFlag bits): what sorting, dot and matmul work in.
struct ComplexF32 {
    float re, im;
};
inline ComplexF32 load_complex_f32(const PartCodec& codec, const char* item) {
    uint16_t parts[2];
    std::memcpy(parts, item, 4);
    float values[2];
    decode_parts_f32(codec, parts, values, 2);
    return {values[0], values[1]};
}
inline uint32_t store_complex_f32(const PartCodec& codec, char* item, ComplexF32 v) {
    const float values[2] = {v.re, v.im};
    uint16_t parts[2];
    const uint32_t flags = encode_parts_f32(codec, values, parts, 2);
    std::memcpy(item, parts, 4);
    return flags;
}

PyObject* new_complex_scalar(int kind, const uint16_t parts[2]);
// The scalar's text as NumPy prints complex64's: "(1.5+2j)" for str, "np?" free
PyObject* complex_str(int kind, const uint16_t parts[2]);

// NumPy's complex128 inner loop of a ufunc (its "legacy" loop for the given
// type numbers), or nullptr; `data` gets the loop's data pointer.
PyUFuncGenericFunction numpy_loop(PyObject* ufunc, const std::vector<int>& types, void** data);

// Steps of the module's initialisation (complex_module.cpp).
int init_complex_scalar_types();
int init_complex_dtype_classes();
int init_complex_ufuncs();
void append_complex_cast_specs(int kind, std::vector<PyArrayMethod_Spec*>& out);
// Both directions between a format made after the complex types (mf.float_format)
// and each complex type, for the format's own spec; nothing before they exist.
void append_format_complex_cast_specs(int format_index, std::vector<PyArrayMethod_Spec*>& out);
int init_complex_types(PyObject* module);

}  // namespace minifloat
