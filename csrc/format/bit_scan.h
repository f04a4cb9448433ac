// The lowest and highest set bit of a 32-bit word (C++20's <bit> is not
// available in C++17): the compiler's builtins on GCC and Clang, the
// intrinsics on MSVC.
#pragma once

#include <cstdint>

#if !defined(__GNUC__) && !defined(__clang__) && defined(_MSC_VER)
#include <intrin.h>
#endif

namespace minifloat {

// Index of the lowest set bit (0 for bit 0); `bits` must not be 0.
inline int lowest_set_bit(uint32_t bits) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctz(bits);
#else
    unsigned long index;
    _BitScanForward(&index, bits);
    return static_cast<int>(index);
#endif
}

// Index of the highest set bit (31 for bit 31); `bits` must not be 0.
inline int highest_set_bit(uint32_t bits) {
#if defined(__GNUC__) || defined(__clang__)
    return 31 - __builtin_clz(bits);
#else
    unsigned long index;
    _BitScanReverse(&index, bits);
    return static_cast<int>(index);
#endif
}

}  // namespace minifloat
