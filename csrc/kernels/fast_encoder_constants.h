// Constants of the fast encoders: the branch-free portable one
// (convert_kernels.cpp) and the hand-written AVX2 and AVX-512 ones
// (kernels/avx2/codec_avx2.cpp, kernels/avx512/codec_avx512.cpp), all
// derived once per format from its row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "rounding.h"

namespace minifloat {

// Source magnitudes (bits, no sign) from which a positive value rounded in
// each deterministic mode is not an ordinary finite code (overflow, inf or
// NaN), found with the exact codec; `away` serves up (and down for negative
// values), `toward_zero` also the directed modes' lanes rounded toward zero.
template <class Bits>
struct OverflowThresholds {
    Bits nearest_even = 0, nearest_away = 0, toward_zero = 0, away = 0;
};

template <class Bits, class Float>
struct FastConstants {
    Bits source_fraction_bits;  // 23 for float32, 52 for float64, 20 for a float64's upper half
    Bits shift, half_minus_one, rebias, normal_from, magic_bits, overflow_from, inf_bits;
    Bits nearest_away_overflow_from, toward_zero_overflow_from, away_overflow_from;  // OverflowThresholds
    Bits sign_bit, sign_shift, zero_drops_sign, overflow_code, overflow_sign;
    Bits inf_positive, inf_negative, nan_positive, nan_negative;
    Bits overflow_negative, max_magnitude, max_positive, max_negative;
    // the AVX-512 encoder's other layouts (codec_avx512_vectors.h): the code
    // of an invalid value (unsigned: a negative one that does not round to
    // zero; without zero: zero), and whether the format lacks a zero
    Bits invalid_code;
    bool without_zero;
    bool deep_normals;  // normals below the source's: normal_from is a subnormal pattern
    uint32_t overflow_flags, inf_flags, nan_flags;
    Float magic;
};

// The code layouts the hand-written 8-bit encoders (AVX-512 and AVX2) model:
// the sign-magnitude kind's, and those of kind general formats they serve
// too (EncodePlan::avx512_layouts). Without zero the zero exponent field is
// a normal binade: values below it take its first code, and zero itself
// (and, unsigned, every negative value) is invalid; the magic constant's
// addition places that binade (its step is the magic constant's ulp), so it
// may lie in float32's subnormal range.
enum class Layout : uint8_t { signed_with_zero, unsigned_with_zero, signed_without_zero, unsigned_without_zero };

constexpr bool is_unsigned(Layout layout) {
    switch (layout) {
        case Layout::signed_with_zero:
        case Layout::signed_without_zero: return false;
        case Layout::unsigned_with_zero:
        case Layout::unsigned_without_zero: return true;
    }
    return false;
}

constexpr bool has_zero(Layout layout) {
    switch (layout) {
        case Layout::signed_with_zero:
        case Layout::unsigned_with_zero: return true;
        case Layout::signed_without_zero:
        case Layout::unsigned_without_zero: return false;
    }
    return true;
}

// Calls body(std::integral_constant<Layout, the layout of k's format>).
template <class Constants, class Body>
inline auto with_layout(const Constants& k, Body&& body) {
    const bool unsigned_codes = k.sign_bit == 0;
    if (k.without_zero) {
        if (unsigned_codes) return body(std::integral_constant<Layout, Layout::unsigned_without_zero>{});
        return body(std::integral_constant<Layout, Layout::signed_without_zero>{});
    }
    if (unsigned_codes) return body(std::integral_constant<Layout, Layout::unsigned_with_zero>{});
    return body(std::integral_constant<Layout, Layout::signed_with_zero>{});
}

// The per-mode scalars of the hand-written 8-bit encoders (AVX-512 and
// AVX2), in source bits without the sign (float32's, or a float64's upper
// half): a normal code c is the magnitude (c + rebias) << shift.
struct ModeThresholds {
    uint32_t round_bias;                 // added before truncating, the rebias folded in (nearest
                                         // even also adds the kept lsb)
    uint32_t away_increment;             // directed modes: added where the magnitude rounds away
    uint32_t special_from;               // from here a lane overflows (or is inf/NaN)
    uint32_t toward_zero_overflow_from;  // ... where the mode rounds its magnitude down
    uint32_t unsigned_from;              // nearest even: u > this (unsigned) keeps its sign; fnuz
                                         // formats drop it up to half the subnormal step
    uint32_t half_step_bits;             // half the subnormal step: the magic constant's ulp, halved
    uint32_t tie_parity_bit;             // nearest even: a normal tie goes up when this bit of the
                                         // source is set (0: every normal tie goes up)
};

inline ModeThresholds mode_thresholds(const FastConstants<uint32_t, float>& k, Rounding mode) {
    const uint32_t rebias = k.rebias << k.shift;
    const uint32_t ulp = 1u << k.shift, half = ulp >> 1;
    ModeThresholds t;
    // Without a mantissa bit the kept bit is the exponent's, while a tie
    // between two powers of two goes to the larger one (even as an integer
    // multiple of the smaller: 1.5 * 2^e rounds to 2 * 2^e), as the exact
    // codec rounds: every normal tie goes up.
    const bool ties_go_up = k.shift == k.source_fraction_bits;
    t.tie_parity_bit = ties_go_up ? 0u : ulp;
    uint32_t increment = 0;
    if (mode == Rounding::nearest_even) increment = ties_go_up ? half : half - 1;
    if (mode == Rounding::nearest_away) increment = half;
    t.round_bias = increment - rebias;
    t.away_increment = ulp - 1;
    // from the exact codec's thresholds (the largest value may be subnormal)
    switch (mode) {
        case Rounding::nearest_even: t.special_from = k.overflow_from; break;
        case Rounding::nearest_away: t.special_from = k.nearest_away_overflow_from; break;
        case Rounding::toward_zero: t.special_from = k.toward_zero_overflow_from; break;
        case Rounding::up:
        case Rounding::down:
        case Rounding::stochastic: t.special_from = k.away_overflow_from; break;
    }
    t.toward_zero_overflow_from = k.toward_zero_overflow_from;
    // fraction_bits + 1 binades below the magic constant
    // (a float32 subnormal for a format whose smallest step is 2^-127)
    const int32_t half_step_field = static_cast<int32_t>(k.magic_bits >> k.source_fraction_bits) -
                                    static_cast<int32_t>(k.source_fraction_bits + 1);
    // Below the source's smallest subnormal the half step has no bit
    // pattern: 0. Only constants no encoder reads get there (the e8m0
    // kernels' value-initialized upper-half constants, all fields zero); the
    // shift would be negative, which C++ leaves undefined.
    const int32_t subnormal_bit = static_cast<int32_t>(k.source_fraction_bits) - 1 + half_step_field;
    t.half_step_bits = half_step_field >= 1 ? static_cast<uint32_t>(half_step_field) << k.source_fraction_bits
                       : subnormal_bit >= 0 ? 1u << subnormal_bit
                                            : 0u;
    const uint32_t rounds_to_zero = k.zero_drops_sign ? t.half_step_bits : 0u;
    t.unsigned_from = 0x80000000u + rounds_to_zero - (k.zero_drops_sign ? 0u : 1u);
    return t;
}

}  // namespace minifloat
