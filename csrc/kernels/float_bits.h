// float32 and float64 as unsigned bit lanes, the branch-free mask helpers
// the portable kernels are written in (so that their loops vectorize), and
// the float8_e8m0fnu rule on such lanes: one copy for the round-to-format
// kernels (convert_kernels.cpp) and the stochastic ones
// (stochastic_rounding.cpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "fp_status.h"
#include "simd_dispatch.h"

namespace minifloat {
namespace float_bits {

// A binary floating-point layout: sign, exponent, FractionBits of fraction
// in an unsigned BitsT.
template <class BitsT, unsigned FractionBits, unsigned Bias>
struct BinaryLayout {
    using Bits = BitsT;
    using Int = std::make_signed_t<BitsT>;
    static constexpr Bits fraction_bits = FractionBits;
    static constexpr Bits bias = Bias;
    static constexpr Bits sign_shift = sizeof(Bits) * 8 - 1;
    static constexpr Bits abs_mask = ~Bits{0} >> 1;
    static constexpr Bits inf_bits = abs_mask & ~((Bits{1} << FractionBits) - 1);
};

template <class Float> struct IeeeTraits;
template <> struct IeeeTraits<float> : BinaryLayout<uint32_t, 23, 127> {};
template <> struct IeeeTraits<double> : BinaryLayout<uint64_t, 52, 1023> {};

template <class To, class From>
MINIFLOAT_KERNEL_INLINE To bit_cast(const From& from) {
    static_assert(sizeof(To) == sizeof(From), "size mismatch");
    To to;
    std::memcpy(&to, &from, sizeof(To));
    return to;
}

// All-ones when `condition`, else zero; and a select on such masks.
template <class Bits>
MINIFLOAT_KERNEL_INLINE Bits mask_if(bool condition) {
    return Bits{0} - static_cast<Bits>(condition);
}
template <class Bits>
MINIFLOAT_KERNEL_INLINE Bits select(Bits mask, Bits if_set, Bits if_clear) {
    return (if_set & mask) | (if_clear & ~mask);
}

// Where |x| (bits `a`) lies among float8_e8m0fnu's binades: its exponent
// field and the fraction within the binade it rounds in. A float32
// subnormal at or above 2^-127 sits in [2^-127, 2^-126) with a fraction one
// bit shorter; below that everything clamps to 2^-127.
template <class Float>
struct E8m0Binade {
    using Bits = typename IeeeTraits<Float>::Bits;
    Bits exponent, subnormal, last_binade, fraction;
};

template <class Float>
MINIFLOAT_KERNEL_INLINE E8m0Binade<Float> e8m0_binade(typename IeeeTraits<Float>::Bits a) {
    using T = IeeeTraits<Float>;
    using Bits = typename T::Bits;
    constexpr Bits kHalf = Bits{1} << (T::fraction_bits - 1);
    const Bits fraction = a & ((Bits{1} << T::fraction_bits) - 1);
    const Bits exponent = a >> T::fraction_bits;
    const Bits subnormal = mask_if<Bits>(exponent == 0);
    const Bits last_binade = T::bias == 127 ? subnormal & mask_if<Bits>(fraction >= kHalf) : Bits{0};
    return {exponent, subnormal, last_binade, select<Bits>(subnormal, (fraction - kHalf) << 1, fraction)};
}

// The code of the binade `b` after a `bump` (0 or 1) by the rounding of its
// fraction, then the specials: zero and negative values are NaN, overflow
// gives `overflow_code`, +inf its code.
template <class Float>
MINIFLOAT_KERNEL_INLINE uint32_t e8m0_code(const E8m0Binade<Float>& b, typename IeeeTraits<Float>::Bits a,
                                           typename IeeeTraits<Float>::Bits negative,
                                           typename IeeeTraits<Float>::Bits bump,
                                           typename IeeeTraits<Float>::Bits overflow_code,
                                           typename IeeeTraits<Float>::Bits inf_positive,
                                           typename IeeeTraits<Float>::Bits nan_positive,
                                           typename IeeeTraits<Float>::Bits overflow_flags,
                                           typename IeeeTraits<Float>::Bits inf_flags,
                                           typename IeeeTraits<Float>::Bits& flags) {
    using T = IeeeTraits<Float>;
    using Bits = typename T::Bits;
    constexpr Bits kLaneBits = sizeof(Bits) * 8;
    // exponent - source bias + 127, negative (below 2^-127) clamps to 0
    const Bits unclamped = b.exponent + Bits{127} - T::bias + bump;
    const Bits below = T::bias == 127 ? Bits{0} : mask_if<Bits>((unclamped >> (kLaneBits - 1)) != 0);
    Bits code = ~below & unclamped;
    code = select<Bits>(b.subnormal, b.last_binade & bump, code);
    const Bits is_nan = mask_if<Bits>(a > T::inf_bits);
    const Bits is_inf = mask_if<Bits>(a == T::inf_bits);
    const Bits invalid = negative | mask_if<Bits>(a == 0);
    const Bits overflow = ~is_nan & ~is_inf & ~invalid & mask_if<Bits>(code > 254);
    code = select<Bits>(overflow, overflow_code, code);
    code = select<Bits>(is_inf & ~negative, inf_positive, code);
    code = select<Bits>(invalid | is_nan, nan_positive, code);
    flags |= (overflow & overflow_flags) | (is_inf & ~negative & inf_flags) | (invalid & ~is_nan & Bits{kFlagInvalid});
    return static_cast<uint32_t>(code);
}

}  // namespace float_bits
}  // namespace minifloat
