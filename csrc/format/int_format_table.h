// The sub-byte integer types (ml_dtypes' int1/int2/int4/uint1/uint2/uint4):
// one value per byte, signed codes sign-extended to the whole byte, so the
// bytes of an int4 array are the int8 array of the same values.
#pragma once

#include <cstdint>

namespace minifloat {

struct IntFormatRow {
    const char* name;        // "int4": the scalar type's name and np.dtype("int4")
    const char* dtype_class; // "Int4DType"
    uint8_t bits;
    bool is_signed;
    // dtype.char: a letter NumPy's dtype parser refuses and no float format
    // uses (see kFormatTable), registered by the package for np.dtype(dt.char).
    char type_char;
};

inline constexpr IntFormatRow kIntFormatTable[] = {
    {"int1", "Int1DType", 1, true, 'o'},
    {"int2", "Int2DType", 2, true, 's'},
    {"int4", "Int4DType", 4, true, 't'},
    {"uint1", "UInt1DType", 1, false, 'v'},
    {"uint2", "UInt2DType", 2, false, 'w'},
    {"uint4", "UInt4DType", 4, false, 'x'},
};

inline constexpr int kIntFormatCount = sizeof(kIntFormatTable) / sizeof(kIntFormatTable[0]);

constexpr int int_format_min(const IntFormatRow& r) { return r.is_signed ? -(1 << (r.bits - 1)) : 0; }
constexpr int int_format_max(const IntFormatRow& r) {
    return r.is_signed ? (1 << (r.bits - 1)) - 1 : (1 << r.bits) - 1;
}
// The width's bits of a stored byte, and its sign bit (0 for unsigned
// types): the wrap of the byte kernels (int_kernels.h).
constexpr unsigned int_format_mask(const IntFormatRow& r) { return (1u << r.bits) - 1; }
constexpr unsigned int_format_sign_bit(const IntFormatRow& r) { return r.is_signed ? 1u << (r.bits - 1) : 0u; }

}  // namespace minifloat
