// Per-format run-time state: the derived Format, conversion plans, decode
// tables and the Python objects (scalar type, DType class, descriptor) made
// from its table row.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "numpy_api.h"

#include "convert_kernels.h"
#include "format.h"
#include "rounding.h"

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

struct FormatRuntime {
    Format format;
    SpecialCodes default_specials;
    SpecialCodes saturating_specials;
    EncodePlan default_plan;
    EncodePlan saturating_plan;
    DecodePlan decode_plan;
    std::vector<uint32_t> decode_f32_bits; // code -> float32 bits, every code
    std::vector<double> decode_f64;        // code -> value, every code

    std::string scalar_name;               // "minifloat.float8_e4m3fn"
    std::string dtype_name;                // "minifloat.Float8E4M3FNDType"
    PyTypeObject scalar_type{};
    PyArray_DTypeMeta dtype_class{};
    MinifloatDescr* descr = nullptr;       // the singleton, owned

    // Exact-representability facts used for cast safety and promotion.
    bool fits_float16 = false;             // every finite value is a float16 value
    bool holds_zero_and_one = false;
    bool holds_int8 = false, holds_uint8 = false, holds_int16 = false, holds_uint16 = false;

    size_t code_count() const { return size_t{1} << (8 * format.storage_bytes); }
    float decode_f32(uint32_t code) const {
        float v;
        uint32_t bits = decode_f32_bits[code & (code_count() - 1)];
        std::memcpy(&v, &bits, sizeof v);
        return v;
    }
};

FormatRuntime& runtime(int index);
inline FormatRuntime& runtime_of(const PyArray_Descr* descr) {
    return runtime(reinterpret_cast<const MinifloatDescr*>(descr)->format_index);
}

// Fills the Format-derived parts of every runtime (no Python objects yet).
void init_format_runtimes();

// The abstract parent of every format's DType and scalar type.
extern PyArray_DTypeMeta g_abstract_dtype;
extern PyTypeObject g_abstract_scalar_type;

// -1 when `descr` is not a minifloat descriptor / `obj` not a minifloat scalar.
int format_index_of_descr(const PyArray_Descr* descr);
int format_index_of_scalar_type(const PyTypeObject* type);
inline int format_index_of_scalar(PyObject* obj) { return format_index_of_scalar_type(Py_TYPE(obj)); }
int format_index_of_dtype_class(const PyArray_DTypeMeta* cls);
// -1 when no format has this name.
int format_index_of_name(const char* name);

}  // namespace minifloat
