// A format's derived parameters, computed from its description (a table
// row, format_table.h). Works for rows known only at run time (user-defined
// formats), so nothing here depends on a compile-time index.
#pragma once

#include <cmath>
#include <cstdint>

#include "format_table.h"

namespace minifloat {

// Magnitude bits of the all-ones exponent with a zero mantissa.
constexpr uint32_t all_ones_exponent_magnitude(const FormatRow& r) {
    return ((1u << r.exponent_bits) - 1u) << r.mantissa_bits;
}
constexpr uint32_t magnitude_mask_of(const FormatRow& r) {
    return (1u << (r.bits - (r.is_signed ? 1 : 0))) - 1u;
}
// Magnitudes from this one up are NaN (above the mask: none are).
constexpr uint32_t nan_magnitude_from_of(const FormatRow& r) {
    switch (r.nan) {
        case NanCodes::ieee: return all_ones_exponent_magnitude(r) + 1u;
        case NanCodes::all_ones: return magnitude_mask_of(r);
        case NanCodes::negative_zero:
        case NanCodes::none: return magnitude_mask_of(r) + 1u;
    }
    return magnitude_mask_of(r) + 1u;
}
// Magnitude bits of +inf (0 when the format has none).
constexpr uint32_t inf_magnitude_of(const FormatRow& r) {
    switch (r.infinities) {
        case Infinities::none: return 0u;
        case Infinities::ieee: return all_ones_exponent_magnitude(r);
        case Infinities::largest_codes: return nan_magnitude_from_of(r) - 1u;
    }
    return 0u;
}
constexpr uint32_t max_magnitude_of(const FormatRow& r) {
    return r.infinities == Infinities::none ? nan_magnitude_from_of(r) - 1u : inf_magnitude_of(r) - 1u;
}
// Exponent of the smallest normal value (of the zero field without subnormals).
constexpr int min_normal_exponent_of(const FormatRow& r) { return r.subnormals ? 1 - r.bias : -r.bias; }
constexpr int max_exponent_of(const FormatRow& r) {
    return static_cast<int>(max_magnitude_of(r) >> r.mantissa_bits) - r.bias;
}
// Exponent of the smallest positive value's last bit.
constexpr int min_exponent_of(const FormatRow& r) {
    return r.subnormals ? min_normal_exponent_of(r) - r.mantissa_bits : min_normal_exponent_of(r);
}

// Why `r` is not a format minifloat can hold, or nullptr. The same rules
// guard the built-in table (static_assert below) and rows made at run time
// (mf.float_format states them to users with the parameters' names).
// Descriptions are canonical: where two spellings mean the same codes
// (IEEE infinities or the largest codes next to IEEE NaNs, say), one of
// them is required, so equal formats have equal rows.
constexpr const char* row_problem(const FormatRow& r) {
    const int sign = r.is_signed ? 1 : 0;
    if (r.exponent_bits < 1) return "at least one exponent bit is needed";
    if (r.bits != sign + r.exponent_bits + r.mantissa_bits) return "bits must be sign + exponent + mantissa bits";
    if (r.bits < 2 || r.bits > 16) return "formats have 2 to 16 bits";
    if (r.mantissa_bits > 15) return "at most 15 mantissa bits";
    switch (r.nan) {
        case NanCodes::ieee:
            if (r.mantissa_bits == 0) return "IEEE NaNs need a mantissa bit (the all-ones exponent has one code)";
            if (r.infinities == Infinities::largest_codes)
                return "below IEEE NaNs the largest codes are IEEE infinities (not canonical)";
            break;
        case NanCodes::all_ones:
            if (r.infinities == Infinities::ieee)
                return "IEEE infinities reserve the all-ones exponent, whose other codes must be NaN";
            break;
        case NanCodes::negative_zero:
            if (!r.is_signed) return "an unsigned format has no code of -0 for NaN";
            if (!r.subnormals) return "a format without zero has no code of -0 for NaN";
            if (r.negative_zero) return "the code of -0 cannot be NaN and -0 at once";
            if (r.infinities == Infinities::ieee)
                return "IEEE infinities reserve the all-ones exponent, whose other codes must be NaN";
            break;
        case NanCodes::none:
            if (r.infinities == Infinities::ieee && r.mantissa_bits > 0)
                return "IEEE infinities reserve the all-ones exponent, whose other codes must be NaN";
            if (r.infinities == Infinities::ieee) return "without NaNs the IEEE infinity is the largest code (not canonical)";
            if (!r.subnormals) return "a format without zero needs a NaN for zero inputs";
            break;
    }
    if (r.negative_zero && !r.is_signed) return "an unsigned format has no -0";
    if (r.negative_zero && !r.subnormals) return "a format without zero has no -0";
    if (!r.negative_zero && r.is_signed && r.subnormals && r.nan != NanCodes::negative_zero)
        return "the code of -0 must be -0 unless it is the NaN";
    switch (r.overflow) {
        case Overflow::to_infinity:
            if (r.infinities == Infinities::none) return "overflow to infinity needs infinities";
            break;
        case Overflow::to_nan:
            if (r.nan == NanCodes::none) return "overflow to NaN needs a NaN";
            break;
        case Overflow::saturate: break;
    }
    if (max_magnitude_of(r) < (r.subnormals ? 1u : 0u) || max_magnitude_of(r) > magnitude_mask_of(r))
        return "no positive finite value is left";
    if (max_exponent_of(r) > 127) return "the largest value must be below 2^128 (a float32)";
    if (min_exponent_of(r) < -149) return "the smallest value must be at least 2^-149 (a float32)";
    return nullptr;
}

constexpr bool table_is_valid() {
    for (const FormatRow& r : kFormatTable) {
        if (row_problem(r) != nullptr) return false;
    }
    return true;
}
static_assert(table_is_valid(), "a row of kFormatTable breaks a rule of row_problem");

// How the bulk kernels treat a format (convert_kernels.cpp): every format
// takes the portable kernels; sign-magnitude formats with subnormals also
// the hand-written SIMD ones; float8_e8m0fnu's layout has its own.
enum class KernelKind : uint8_t {
    sign_magnitude,  // signed, zero, subnormals, a mantissa bit, a normal largest value, normals within float32's
    e8m0,            // 8 exponent bits, bias 127, unsigned, no zero: 2^(code - 127), NaN 0xFF
    general,         // anything else (unsigned with zero, no zero, values below float32's normals)
};

struct Format {
    const FormatRow* row = nullptr;
    int index = -1;               // position in the registry (registry.h)

    int bits = 0;
    int exponent_bits = 0;
    int mantissa_bits = 0;
    int bias = 0;
    Infinities infinities = Infinities::none;
    NanCodes nan = NanCodes::none;
    Overflow overflow = Overflow::saturate;
    int storage_bytes = 1;

    bool is_signed = true;
    bool has_inf = false;
    bool has_nan = false;
    bool has_negative_zero = false;
    bool has_zero = true;
    bool has_subnormals = true;   // the zero exponent field holds zero and subnormals
    bool is_float32_upper_half = false;  // bfloat16: a code is float32's top 16 bits
    KernelKind kernel_kind = KernelKind::general;
    // + - * / computed in float32 and rounded once more into the format
    // give the correctly rounded result (see arithmetic_in_float32_holds).
    bool arithmetic_in_float32 = false;

    uint32_t code_mask = 0;       // all meaningful bits
    uint32_t sign_bit = 0;        // 0 for unsigned formats
    uint32_t magnitude_mask = 0;
    uint32_t max_magnitude = 0;   // magnitude bits of the largest finite value
    uint32_t inf_magnitude = 0;   // magnitude bits of +inf (when has_inf)
    uint32_t nan_magnitude_from = 0;  // magnitudes from here up are NaN (ieee, all_ones)
    uint32_t nan_code = 0;        // the canonical NaN NumPy code writes (positive sign)
    uint32_t smallest_code = 0;   // smallest positive value (subnormal where present)

    int min_normal_exponent = 0;  // exponent of the smallest normal value
    int max_exponent = 0;         // exponent of the largest finite value
    int min_exponent = 0;         // exponent of the smallest positive value's last bit

    bool code_is_nan(uint32_t code) const {
        code &= code_mask;
        switch (nan) {
            case NanCodes::none: return false;
            case NanCodes::ieee:
            case NanCodes::all_ones: return (code & magnitude_mask) >= nan_magnitude_from;
            case NanCodes::negative_zero: return code == sign_bit;
        }
        return false;
    }
    bool code_is_inf(uint32_t code) const {
        return has_inf && (code & magnitude_mask) == inf_magnitude;
    }
    bool code_is_negative(uint32_t code) const {
        return sign_bit != 0 && (code & sign_bit) != 0 && !code_is_nan(code);
    }
};

// Double rounding through float32 is innocuous for + - * / when float32
// has at least 2p + 2 bits where the format's results lie (p its
// precision), including its subnormal range, and float32's own overflow
// and underflow cannot change the format's result: the format has a zero
// (float32 underflows to it), and either nothing overflows float32 or the
// format's own overflow is an infinity too.
constexpr bool arithmetic_in_float32_holds(const FormatRow& r) {
    const int precision = r.mantissa_bits + 1;
    if (2 * precision + 2 > 24 || !r.subnormals) return false;
    if (min_exponent_of(r) - (precision + 2) < -149) return false;
    const int top = max_exponent_of(r) + 1;  // values are below 2^top
    const bool no_float32_overflow = 2 * top <= 127 && top - min_exponent_of(r) <= 127;
    return no_float32_overflow || (r.infinities != Infinities::none && r.overflow == Overflow::to_infinity);
}

inline Format make_format(const FormatRow& row, int index) {
    Format f;
    f.row = &row;
    f.index = index;
    f.bits = row.bits;
    f.exponent_bits = row.exponent_bits;
    f.mantissa_bits = row.mantissa_bits;
    f.bias = row.bias;
    f.infinities = row.infinities;
    f.nan = row.nan;
    f.overflow = row.overflow;
    f.storage_bytes = row.bits > 8 ? 2 : 1;
    f.is_signed = row.is_signed;
    f.has_inf = row.infinities != Infinities::none;
    f.has_nan = row.nan != NanCodes::none;
    f.has_negative_zero = row.negative_zero;
    f.has_zero = row.subnormals;
    f.has_subnormals = row.subnormals;
    f.is_float32_upper_half = row.bits == 16 && row.exponent_bits == 8 && row.bias == 127 && row.is_signed &&
                              row.infinities == Infinities::ieee && row.nan == NanCodes::ieee;

    f.code_mask = (1u << row.bits) - 1u;
    f.sign_bit = row.is_signed ? (1u << (row.bits - 1)) : 0u;
    f.magnitude_mask = magnitude_mask_of(row);
    f.nan_magnitude_from = nan_magnitude_from_of(row);
    f.inf_magnitude = inf_magnitude_of(row);
    f.max_magnitude = max_magnitude_of(row);
    switch (row.nan) {
        case NanCodes::ieee:
            // quiet NaN: all-ones exponent with the top mantissa bit set
            f.nan_code = all_ones_exponent_magnitude(row) | (1u << (row.mantissa_bits - 1));
            break;
        case NanCodes::all_ones: f.nan_code = f.magnitude_mask; break;
        case NanCodes::negative_zero: f.nan_code = f.sign_bit; break;
        case NanCodes::none:
            // No NaN exists; NaN inputs become -0 (ml_dtypes' choice, kept so
            // that existing data round-trips bit for bit; unsigned: 0).
            f.nan_code = f.sign_bit;
            break;
    }
    f.min_normal_exponent = min_normal_exponent_of(row);
    f.max_exponent = max_exponent_of(row);
    f.min_exponent = min_exponent_of(row);
    f.smallest_code = f.has_subnormals ? 1u : 0u;
    f.arithmetic_in_float32 = arithmetic_in_float32_holds(row);

    const bool e8m0_layout = row.bits == 8 && row.exponent_bits == 8 && row.bias == 127 && !row.is_signed &&
                             !row.subnormals && row.nan == NanCodes::all_ones &&
                             row.infinities == Infinities::none;
    if (e8m0_layout) {
        f.kernel_kind = KernelKind::e8m0;
    } else if (row.is_signed && row.subnormals && f.min_normal_exponent >= -126 && row.mantissa_bits >= 1 &&
               (f.max_magnitude >> row.mantissa_bits) >= 1) {
        // (the hand-written kernels break ties with the kept bit of the
        // source: with no mantissa bit that is the exponent's, while a tie
        // between powers of two goes to the larger one; and they place the
        // largest value as a normal one)
        f.kernel_kind = KernelKind::sign_magnitude;
    } else {
        f.kernel_kind = KernelKind::general;
    }
    return f;
}

}  // namespace minifloat
