// The one table of built-in formats. Each row is a format description of
// independent fields, in the spirit of LLVM's fltSemantics (which keeps
// non-finite behaviour apart from how NaN is encoded): sizes and bias,
// signedness, where infinities and NaN live, whether -0, zero and
// subnormals exist, and what a default cast does on overflow. Every other
// part of minifloat (codec, kernels, dtype and scalar registration, finfo
// constants, cast safety, promotion, DLPack codes) derives what it needs
// from these fields, so a row known only at run time (mf.float_format)
// goes through the same code. Adding a built-in format means adding a row
// here and its expectations in tests/reference.py.
#pragma once

#include <cstdint>

namespace minifloat {

// Where a format encodes its infinities.
enum class Infinities : uint8_t {
    none,
    // IEEE 754: the all-ones exponent with a zero mantissa (both signs).
    ieee,
    // The largest-magnitude codes that are not NaN (IEEE P3109 "extended").
    largest_codes,
};

// Which codes are NaN.
enum class NanCodes : uint8_t {
    none,
    // IEEE 754: the all-ones exponent with a non-zero mantissa (both signs).
    ieee,
    // The all-ones magnitude only (both signs): the "fn" formats, and the
    // all-ones code of an unsigned format (float8_e8m0fnu, P3109 unsigned).
    all_ones,
    // The code of -0 (the sign bit alone) only: the "fnuz" formats and
    // P3109's signed formats.
    negative_zero,
};

// What a default (non-saturating) cast writes for a finite value beyond
// the largest one.
enum class Overflow : uint8_t { to_infinity, to_nan, saturate };

struct FormatRow {
    const char* name;         // NumPy/ml_dtypes spelling, also the scalar type name
    const char* dtype_class;  // NumPy DType class name
    uint8_t bits;             // meaningful bits (storage is 1 byte, or 2 above 8 bits)
    uint8_t exponent_bits;
    uint8_t mantissa_bits;    // explicit fraction bits
    int16_t bias;
    bool is_signed;           // false: no sign bit, every code is >= 0 or NaN
    Infinities infinities;
    NanCodes nan;
    bool negative_zero;       // the code of -0 is -0
    // The zero exponent field holds zero and the subnormals (IEEE); false:
    // it is a normal binade like the others, so there is no zero
    // (float8_e8m0fnu).
    bool subnormals;
    Overflow overflow;
    // dtype.char: a character NumPy's dtype parser does not take for one of
    // its own types, so np.dtype(dt.char) finds this format (registered by
    // the package) instead of silently meaning another type (ml_dtypes'
    // letters 'G' and 'L' are NumPy's complex256 and uint64). np.dtype()
    // refuses j k o r s t u v w x y z A C E J K R W X Y Z (some taken by the
    // sub-byte integers, int_format_table.h); past those letters, the
    // symbols ! " # $ % & ' ( ) * + - . / : ; @ [ ] ^ ` { } ~ (not digits,
    // which parse as a size, nor the byte-order marks < = > |, nor ? , \).
    char type_char;
};

namespace row_fields {
constexpr bool kSigned = true, kUnsigned = false;
constexpr bool kNegativeZero = true, kNoNegativeZero = false;
constexpr bool kSubnormals = true, kNoZero = false;
}  // namespace row_fields

// The character of formats created at run time (np.dtype() refuses it; not
// registered, since every such format has it).
constexpr char kUserFormatTypeChar = '_';

inline constexpr FormatRow kFormatTable[] = {
    // clang-format off
    // name                  DType class               bits E  M  bias  sign                      infinities                NaN                      -0                         zero/subnormals         overflow            char
    {"float8_e4m3fn",      "Float8E4M3FNDType",      8, 4, 3, 7,   row_fields::kSigned,   Infinities::none, NanCodes::all_ones,      row_fields::kNegativeZero,   row_fields::kSubnormals, Overflow::to_nan,      'R'},
    {"float8_e4m3fnuz",    "Float8E4M3FNUZDType",    8, 4, 3, 8,   row_fields::kSigned,   Infinities::none, NanCodes::negative_zero, row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_nan,      'J'},
    {"float8_e5m2",        "Float8E5M2DType",        8, 5, 2, 15,  row_fields::kSigned,   Infinities::ieee, NanCodes::ieee,          row_fields::kNegativeZero,   row_fields::kSubnormals, Overflow::to_infinity, 'K'},
    {"float8_e5m2fnuz",    "Float8E5M2FNUZDType",    8, 5, 2, 16,  row_fields::kSigned,   Infinities::none, NanCodes::negative_zero, row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_nan,      'C'},
    {"float8_e4m3",        "Float8E4M3DType",        8, 4, 3, 7,   row_fields::kSigned,   Infinities::ieee, NanCodes::ieee,          row_fields::kNegativeZero,   row_fields::kSubnormals, Overflow::to_infinity, 'X'},
    {"float8_e3m4",        "Float8E3M4DType",        8, 3, 4, 3,   row_fields::kSigned,   Infinities::ieee, NanCodes::ieee,          row_fields::kNegativeZero,   row_fields::kSubnormals, Overflow::to_infinity, 'Y'},
    {"float8_e4m3b11fnuz", "Float8E4M3B11FNUZDType", 8, 4, 3, 11,  row_fields::kSigned,   Infinities::none, NanCodes::negative_zero, row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_nan,      'Z'},
    {"float8_e8m0fnu",     "Float8E8M0FNUDType",     8, 8, 0, 127, row_fields::kUnsigned, Infinities::none, NanCodes::all_ones,      row_fields::kNoNegativeZero, row_fields::kNoZero,     Overflow::to_nan,      'W'},
    {"float6_e2m3fn",      "Float6E2M3FNDType",      6, 2, 3, 1,   row_fields::kSigned,   Infinities::none, NanCodes::none,          row_fields::kNegativeZero,   row_fields::kSubnormals, Overflow::saturate,    'A'},
    {"float6_e3m2fn",      "Float6E3M2FNDType",      6, 3, 2, 3,   row_fields::kSigned,   Infinities::none, NanCodes::none,          row_fields::kNegativeZero,   row_fields::kSubnormals, Overflow::saturate,    'j'},
    {"float4_e2m1fn",      "Float4E2M1FNDType",      4, 2, 1, 1,   row_fields::kSigned,   Infinities::none, NanCodes::none,          row_fields::kNegativeZero,   row_fields::kSubnormals, Overflow::saturate,    'k'},
    {"bfloat16",           "BFloat16DType",          16, 8, 7, 127, row_fields::kSigned,  Infinities::ieee, NanCodes::ieee,          row_fields::kNegativeZero,   row_fields::kSubnormals, Overflow::to_infinity, 'E'},
    // IEEE P3109 binary8 formats, named as the interim report names them:
    // binary<K>p<P><s|u><e|f> -- K = 8 bits, precision P (the significand
    // with its hidden bit, so P - 1 mantissa bits), s(igned) or u(nsigned),
    // e(xtended: +-inf at the largest codes) or f(inite: none). Every
    // P = 1..7 in all four kinds (the unsigned P = 8 has no exponent bit,
    // which minifloat does not hold). Bias 2^(7-P) signed, 2^(8-P) unsigned;
    // one zero (no -0); one NaN: the code of -0 when signed (0x80), the
    // all-ones code when unsigned (0xFF). Checked against gfloat's
    // format_info_p3109 (bias, NaN and infinity codes).
    {"binary8p1se",       "Binary8p1seDType",    8, 7, 0, 64,  row_fields::kSigned,  Infinities::largest_codes,       NanCodes::negative_zero, row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_infinity, '!'},
    {"binary8p1sf",       "Binary8p1sfDType",    8, 7, 0, 64,  row_fields::kSigned,  Infinities::none,                NanCodes::negative_zero, row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_nan,     '#'},
    {"binary8p1ue",       "Binary8p1ueDType",    8, 8, 0, 128, row_fields::kUnsigned, Infinities::largest_codes,       NanCodes::all_ones,      row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_infinity, '$'},
    {"binary8p1uf",       "Binary8p1ufDType",    8, 8, 0, 128, row_fields::kUnsigned, Infinities::none,                NanCodes::all_ones,      row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_nan,     '%'},
    {"binary8p2se",       "Binary8p2seDType",    8, 6, 1, 32,  row_fields::kSigned,  Infinities::largest_codes,       NanCodes::negative_zero, row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_infinity, '&'},
    {"binary8p2sf",       "Binary8p2sfDType",    8, 6, 1, 32,  row_fields::kSigned,  Infinities::none,                NanCodes::negative_zero, row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_nan,     '('},
    {"binary8p2ue",       "Binary8p2ueDType",    8, 7, 1, 64,  row_fields::kUnsigned, Infinities::largest_codes,       NanCodes::all_ones,      row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_infinity, ')'},
    {"binary8p2uf",       "Binary8p2ufDType",    8, 7, 1, 64,  row_fields::kUnsigned, Infinities::none,                NanCodes::all_ones,      row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_nan,     '*'},
    {"binary8p3se",       "Binary8p3seDType",    8, 5, 2, 16,  row_fields::kSigned,  Infinities::largest_codes,       NanCodes::negative_zero, row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_infinity, 'r'},
    {"binary8p3sf",       "Binary8p3sfDType",    8, 5, 2, 16,  row_fields::kSigned,  Infinities::none,                NanCodes::negative_zero, row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_nan,     'u'},
    {"binary8p3ue",       "Binary8p3ueDType",    8, 6, 2, 32,  row_fields::kUnsigned, Infinities::largest_codes,       NanCodes::all_ones,      row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_infinity, '+'},
    {"binary8p3uf",       "Binary8p3ufDType",    8, 6, 2, 32,  row_fields::kUnsigned, Infinities::none,                NanCodes::all_ones,      row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_nan,     '-'},
    {"binary8p4se",       "Binary8p4seDType",    8, 4, 3, 8,   row_fields::kSigned,  Infinities::largest_codes,       NanCodes::negative_zero, row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_infinity, 'y'},
    {"binary8p4sf",       "Binary8p4sfDType",    8, 4, 3, 8,   row_fields::kSigned,  Infinities::none,                NanCodes::negative_zero, row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_nan,     'z'},
    {"binary8p4ue",       "Binary8p4ueDType",    8, 5, 3, 16,  row_fields::kUnsigned, Infinities::largest_codes,       NanCodes::all_ones,      row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_infinity, '.'},
    {"binary8p4uf",       "Binary8p4ufDType",    8, 5, 3, 16,  row_fields::kUnsigned, Infinities::none,                NanCodes::all_ones,      row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_nan,     '/'},
    {"binary8p5se",       "Binary8p5seDType",    8, 3, 4, 4,   row_fields::kSigned,  Infinities::largest_codes,       NanCodes::negative_zero, row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_infinity, ':'},
    {"binary8p5sf",       "Binary8p5sfDType",    8, 3, 4, 4,   row_fields::kSigned,  Infinities::none,                NanCodes::negative_zero, row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_nan,     ';'},
    {"binary8p5ue",       "Binary8p5ueDType",    8, 4, 4, 8,   row_fields::kUnsigned, Infinities::largest_codes,       NanCodes::all_ones,      row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_infinity, '@'},
    {"binary8p5uf",       "Binary8p5ufDType",    8, 4, 4, 8,   row_fields::kUnsigned, Infinities::none,                NanCodes::all_ones,      row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_nan,     '['},
    {"binary8p6se",       "Binary8p6seDType",    8, 2, 5, 2,   row_fields::kSigned,  Infinities::largest_codes,       NanCodes::negative_zero, row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_infinity, ']'},
    {"binary8p6sf",       "Binary8p6sfDType",    8, 2, 5, 2,   row_fields::kSigned,  Infinities::none,                NanCodes::negative_zero, row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_nan,     '^'},
    {"binary8p6ue",       "Binary8p6ueDType",    8, 3, 5, 4,   row_fields::kUnsigned, Infinities::largest_codes,       NanCodes::all_ones,      row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_infinity, '{'},
    {"binary8p6uf",       "Binary8p6ufDType",    8, 3, 5, 4,   row_fields::kUnsigned, Infinities::none,                NanCodes::all_ones,      row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_nan,     '}'},
    {"binary8p7se",       "Binary8p7seDType",    8, 1, 6, 1,   row_fields::kSigned,  Infinities::largest_codes,       NanCodes::negative_zero, row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_infinity, '~'},
    {"binary8p7sf",       "Binary8p7sfDType",    8, 1, 6, 1,   row_fields::kSigned,  Infinities::none,                NanCodes::negative_zero, row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_nan,     '`'},
    {"binary8p7ue",       "Binary8p7ueDType",    8, 2, 6, 2,   row_fields::kUnsigned, Infinities::largest_codes,       NanCodes::all_ones,      row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_infinity, '"'},
    {"binary8p7uf",       "Binary8p7ufDType",    8, 2, 6, 2,   row_fields::kUnsigned, Infinities::none,                NanCodes::all_ones,      row_fields::kNoNegativeZero, row_fields::kSubnormals, Overflow::to_nan,     '\''},
    // clang-format on
};

// Built-in formats are indices 0 .. kBuiltinFormatCount - 1 of the registry
// (registry.h); formats made at run time follow them.
inline constexpr int kBuiltinFormatCount = sizeof(kFormatTable) / sizeof(kFormatTable[0]);

}  // namespace minifloat
