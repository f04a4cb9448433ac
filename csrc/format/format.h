// A format's derived parameters, computed from its table row. Works for rows
// known only at run time (user-defined formats), so nothing here depends on a
// compile-time index.
#pragma once

#include <cmath>
#include <cstdint>

#include "format_table.h"

namespace minifloat {

struct Format {
    const FormatRow* row = nullptr;
    int index = -1;               // position in kFormatTable, -1 for run-time rows

    int bits = 0;
    int exponent_bits = 0;
    int mantissa_bits = 0;
    int bias = 0;
    Specials specials = Specials::ieee;
    int storage_bytes = 1;

    bool is_signed = true;
    bool has_inf = false;
    bool has_nan = false;
    bool has_negative_zero = false;
    bool has_zero = true;
    bool has_subnormals = true;
    bool is_float32_upper_half = false;  // bfloat16: a code is float32's top 16 bits

    uint32_t code_mask = 0;       // all meaningful bits
    uint32_t sign_bit = 0;        // 0 for unsigned formats
    uint32_t magnitude_mask = 0;
    uint32_t max_magnitude = 0;   // magnitude bits of the largest finite value
    uint32_t inf_magnitude = 0;   // magnitude bits of +inf (when has_inf)
    uint32_t nan_code = 0;        // the canonical NaN NumPy code writes (positive sign)
    uint32_t smallest_code = 0;   // smallest positive value (subnormal where present)

    int min_normal_exponent = 0;  // exponent of the smallest normal value
    int max_exponent = 0;         // exponent of the largest finite value

    // True when the code's exponent field is all ones and the format uses it
    // for specials (only IEEE-like formats).
    bool code_is_nan(uint32_t code) const {
        code &= code_mask;
        switch (specials) {
            case Specials::ieee: {
                uint32_t m = code & magnitude_mask;
                return m > inf_magnitude;
            }
            case Specials::finite_nan_all_ones:
                return (code & magnitude_mask) == magnitude_mask;
            case Specials::finite_nan_negative_zero:
                return code == sign_bit;
            case Specials::finite_only:
                return false;
            case Specials::unsigned_exponent_only:
                return code == code_mask;
        }
        return false;
    }
    bool code_is_inf(uint32_t code) const {
        return has_inf && (code & magnitude_mask) == inf_magnitude;
    }
    bool row_is_exponent_only() const { return specials == Specials::unsigned_exponent_only; }
    bool code_is_negative(uint32_t code) const {
        return sign_bit != 0 && (code & sign_bit) != 0 && !code_is_nan(code);
    }
};

inline Format make_format(const FormatRow& row, int index) {
    Format f;
    f.row = &row;
    f.index = index;
    f.bits = row.bits;
    f.exponent_bits = row.exponent_bits;
    f.mantissa_bits = row.mantissa_bits;
    f.bias = row.bias;
    f.specials = row.specials;
    f.storage_bytes = row.bits > 8 ? 2 : 1;
    f.is_signed = row.specials != Specials::unsigned_exponent_only;
    f.has_inf = row.specials == Specials::ieee;
    f.has_nan = row.specials != Specials::finite_only;
    f.has_negative_zero = f.is_signed && row.specials != Specials::finite_nan_negative_zero;
    f.has_zero = row.specials != Specials::unsigned_exponent_only;
    f.has_subnormals = row.specials != Specials::unsigned_exponent_only;
    f.is_float32_upper_half = row.bits == 16 && row.exponent_bits == 8 && row.bias == 127 &&
                              row.specials == Specials::ieee;

    f.code_mask = (1u << row.bits) - 1u;
    f.sign_bit = f.is_signed ? (1u << (row.bits - 1)) : 0u;
    f.magnitude_mask = f.code_mask & ~f.sign_bit;
    const uint32_t exponent_all_ones = (1u << row.exponent_bits) - 1u;
    const uint32_t mantissa_all_ones = (1u << row.mantissa_bits) - 1u;

    switch (row.specials) {
        case Specials::ieee:
            f.inf_magnitude = exponent_all_ones << row.mantissa_bits;
            f.max_magnitude = f.inf_magnitude - 1u;
            // Quiet NaN: all-ones exponent with the top mantissa bit set.
            f.nan_code = f.inf_magnitude | (1u << (row.mantissa_bits - 1));
            break;
        case Specials::finite_nan_all_ones:
            f.max_magnitude = f.magnitude_mask - 1u;
            f.nan_code = f.magnitude_mask;
            break;
        case Specials::finite_nan_negative_zero:
            f.max_magnitude = f.magnitude_mask;
            f.nan_code = f.sign_bit;
            break;
        case Specials::finite_only:
            f.max_magnitude = f.magnitude_mask;
            // No NaN exists; NaN inputs become -0 (ml_dtypes' choice, kept so
            // that existing data round-trips bit for bit).
            f.nan_code = f.sign_bit;
            break;
        case Specials::unsigned_exponent_only:
            f.max_magnitude = f.code_mask - 1u;
            f.nan_code = f.code_mask;
            break;
    }
    (void)mantissa_all_ones;
    f.min_normal_exponent = f.has_subnormals ? 1 - row.bias : -row.bias;
    f.max_exponent = static_cast<int>(f.max_magnitude >> row.mantissa_bits) - row.bias;
    f.smallest_code = f.has_subnormals ? 1u : 0u;
    return f;
}

// The process-wide table of built-in formats, filled once at import.
const Format& builtin_format(int index);

}  // namespace minifloat
