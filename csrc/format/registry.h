// Per-format run-time state: the derived Format, conversion plans, decode
// tables and the Python objects (scalar type, DType class, descriptor) made
// from its description. Built-in formats come first (their table order);
// formats made at run time (mf.float_format) are appended. A format's
// state never moves and lives as long as the process.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "numpy_api.h"

#include "convert_kernels.h"
#include "format.h"
#include "per_format.h"
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

// A format's DType class and scalar type, with the format's index beside
// them (a DType class or scalar type leads to its format in O(1)).
struct FormatDTypeClass : PyArray_DTypeMeta {
    int format_index = -1;
};
struct FormatScalarType : PyTypeObject {
    int format_index = -1;
};

struct FormatRuntime {
    FormatRow row;                         // the description (names point into the strings below)
    std::string name;                      // "float8_e4m3fn"
    std::string dtype_class_name;          // "Float8E4M3FNDType"
    Format format;
    SpecialCodes default_specials;
    SpecialCodes saturating_specials;
    EncodePlan default_plan;
    EncodePlan saturating_plan;
    DecodePlan decode_plan;
    std::vector<uint32_t> exact_f32_bits;  // code -> float32 bits of the exact value (quiet NaNs)
    std::vector<uint32_t> decode_f32_bits; // code -> float32 bits, every code (the bulk decoder's)
    std::vector<double> decode_f64;        // code -> value, every code

    // Formats made at run time: the dtype's repr (the call that makes it)
    // and its __reduce__ value (pickled by its parameters). Set once, kept.
    std::string repr_text;
    PyObject* reduce_value = nullptr;
    std::string scalar_name;               // "minifloat.float8_e4m3fn"
    std::string dtype_name;                // "minifloat.Float8E4M3FNDType"
    FormatScalarType scalar_type{};
    FormatDTypeClass dtype_class{};
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

// The format at `index` (0 <= index < format_count()).
FormatRuntime& runtime(int index);
inline FormatRuntime& runtime_of(const PyArray_Descr* descr) {
    return runtime(reinterpret_cast<const MinifloatDescr*>(descr)->format_index);
}
// How many formats exist now (built-in and made at run time).
int format_count();

// Makes the runtimes of the built-in formats (no Python objects yet).
void init_format_runtimes();

// Adds a format made at run time (its row checked with row_problem, names
// unused) and returns its index; the Python objects are made by the caller
// (dtype_class.h). Under the GIL. Throws std::length_error past kMaxFormats.
int add_format_runtime(const FormatRow& row, const std::string& name, const std::string& dtype_class_name);

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
