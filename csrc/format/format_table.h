// The one table of formats. Every other part of minifloat (codec, dtype and
// scalar registration, finfo constants, cast safety, promotion, names) derives
// what it needs from these rows. Adding a format means adding a row here and
// its expectations in tests/reference.py.
#pragma once

#include <cstdint>

namespace minifloat {

// How a format spends its reserved encodings.
enum class Specials : uint8_t {
    // Exponent all ones: mantissa zero is +-inf, anything else NaN. Has -0.
    ieee,
    // No infinities; the all-ones exponent+mantissa pattern is NaN (both
    // signs). Has -0. ("fn": finite, special NaN)
    finite_nan_all_ones,
    // No infinities and no -0; the code of -0 (sign bit alone) is the only
    // NaN. ("fnuz": finite, NaN, unsigned zero)
    finite_nan_negative_zero,
    // No infinities and no NaN at all (MX FP6/FP4). Has -0.
    finite_only,
    // Unsigned, exponent only, no zero; all ones is NaN (MX scale E8M0).
    unsigned_exponent_only,
};

struct FormatRow {
    const char* name;       // NumPy/ml_dtypes spelling, also the scalar type name
    const char* dtype_class;// NumPy DType class name
    uint8_t bits;           // meaningful bits (storage is 1 byte, or 2 for 16-bit)
    uint8_t exponent_bits;
    uint8_t mantissa_bits;  // explicit fraction bits
    int16_t bias;
    Specials specials;
    // dtype.char: a letter NumPy's dtype parser does not take for one of its
    // own types, so np.dtype(dt.char) finds this format (registered by the
    // package) instead of silently meaning another type (ml_dtypes' letters
    // 'G' and 'L' are NumPy's complex256 and uint64; its digits do not parse).
    char type_char;
};

inline constexpr FormatRow kFormatTable[] = {
    {"float8_e4m3fn", "Float8E4M3FNDType", 8, 4, 3, 7, Specials::finite_nan_all_ones, 'R'},
    {"float8_e4m3fnuz", "Float8E4M3FNUZDType", 8, 4, 3, 8, Specials::finite_nan_negative_zero, 'J'},
    {"float8_e5m2", "Float8E5M2DType", 8, 5, 2, 15, Specials::ieee, 'K'},
    {"float8_e5m2fnuz", "Float8E5M2FNUZDType", 8, 5, 2, 16, Specials::finite_nan_negative_zero, 'C'},
    {"float8_e4m3", "Float8E4M3DType", 8, 4, 3, 7, Specials::ieee, 'X'},
    {"float8_e3m4", "Float8E3M4DType", 8, 3, 4, 3, Specials::ieee, 'Y'},
    {"float8_e4m3b11fnuz", "Float8E4M3B11FNUZDType", 8, 4, 3, 11, Specials::finite_nan_negative_zero, 'Z'},
    {"float8_e8m0fnu", "Float8E8M0FNUDType", 8, 8, 0, 127, Specials::unsigned_exponent_only, 'W'},
    {"float6_e2m3fn", "Float6E2M3FNDType", 6, 2, 3, 1, Specials::finite_only, 'A'},
    {"float6_e3m2fn", "Float6E3M2FNDType", 6, 3, 2, 3, Specials::finite_only, 'j'},
    {"float4_e2m1fn", "Float4E2M1FNDType", 4, 2, 1, 1, Specials::finite_only, 'k'},
    {"bfloat16", "BFloat16DType", 16, 8, 7, 127, Specials::ieee, 'E'},
};

inline constexpr int kFormatCount = sizeof(kFormatTable) / sizeof(kFormatTable[0]);

}  // namespace minifloat
