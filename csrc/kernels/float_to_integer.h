// NumPy's casts from floating point to its integer types, as the C
// conversions behind them behave on x86-64: truncation toward zero, and a
// value the conversion cannot represent (NaN, inf, out of range) gives the
// "integer indefinite" and raises invalid. Targets narrower than 32 bits
// convert through int32 and keep its low bits; uint32 goes through int64.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace minifloat {

enum class IntegerKind : uint8_t { i8, u8, i16, u16, i32, u32, i64, u64 };

template <class Int>
constexpr IntegerKind integer_kind_of() {
    static_assert(std::is_integral_v<Int> && sizeof(Int) <= 8, "an integer type of at most 64 bits");
    constexpr bool is_signed = std::is_signed_v<Int>;
    if constexpr (sizeof(Int) == 1) return is_signed ? IntegerKind::i8 : IntegerKind::u8;
    if constexpr (sizeof(Int) == 2) return is_signed ? IntegerKind::i16 : IntegerKind::u16;
    if constexpr (sizeof(Int) == 4) return is_signed ? IntegerKind::i32 : IntegerKind::u32;
    return is_signed ? IntegerKind::i64 : IntegerKind::u64;
}

// out[i] = in[i] converted to the integer type `kind` (out holds n of
// them); returns kFlagInvalid if any value could not be represented.
// Vectorized: every float32 is converted with selects, never branches.
uint32_t floats_to_integers(IntegerKind kind, const float* in, void* out, size_t n);

}  // namespace minifloat
