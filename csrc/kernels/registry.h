// Per-format run-time state: the derived Format, conversion plans and
// decode tables made from its description. Built-in formats come first
// (their table order); formats made at run time (mf.float_format) are
// appended. A format's state never moves and lives as long as the process.
// The Python objects made from a format (DType class, scalar type,
// descriptor) are NumPy's side: numpy/format_types.h.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "convert_kernels.h"
#include "format.h"
#include "per_format.h"
#include "rounding.h"

namespace minifloat {

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
// How many formats exist now (built-in and made at run time).
int format_count();

// Makes the runtimes of the built-in formats (no Python objects yet).
void init_format_runtimes();

// Adds a format made at run time (its row checked with row_problem, names
// unused) and returns its index; the Python objects are made by the caller
// (format_types.h, dtype_class.h). Under the GIL. Throws std::length_error past kMaxFormats.
int add_format_runtime(const FormatRow& row, const std::string& name, const std::string& dtype_class_name);

// -1 when no format has this name.
int format_index_of_name(const char* name);

}  // namespace minifloat
