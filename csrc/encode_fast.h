// Constants of the fast round-to-nearest-even encoder (see
// convert_kernels.cpp) and its hand-vectorized AVX-512 version for the
// hottest case, float32 into an 8-bit format.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rounding.h"

namespace minifloat {

template <class Bits, class Float>
struct FastConstants {
    Bits source_fraction_bits;  // 23 for float32, 52 for float64, 20 for a float64's upper half
    Bits shift, half_minus_one, rebias, normal_from, magic_bits, overflow_from, inf_bits;
    Bits sign_bit, sign_shift, zero_drops_sign, overflow_code, overflow_sign;
    Bits inf_positive, inf_negative, nan_positive, nan_negative;
    Bits overflow_negative, max_magnitude, max_positive, max_negative;
    uint32_t overflow_flags, inf_flags, nan_flags;
    Float magic;
};

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
};

inline ModeThresholds mode_thresholds(const FastConstants<uint32_t, float>& k, Rounding mode) {
    const uint32_t rebias = k.rebias << k.shift;
    const uint32_t ulp = 1u << k.shift, half = ulp >> 1;
    const uint32_t max_bits = (k.max_magnitude << k.shift) + rebias;
    ModeThresholds t;
    uint32_t increment = 0;
    if (mode == Rounding::nearest_even) increment = half - 1;
    if (mode == Rounding::nearest_away) increment = half;
    t.round_bias = increment - rebias;
    t.away_increment = ulp - 1;
    // when its rounding leaves the magnitude alone (toward zero): one ulp
    // past max; otherwise past max, or from the midpoint above it for the
    // nearest modes
    t.special_from = max_bits + 1;
    if (mode == Rounding::nearest_even) t.special_from = k.overflow_from;
    if (mode == Rounding::nearest_away) t.special_from = max_bits + half;
    if (mode == Rounding::toward_zero) t.special_from = max_bits + ulp;
    t.toward_zero_overflow_from = max_bits + ulp;
    // fraction_bits + 1 binades below the magic constant
    t.half_step_bits = k.magic_bits - ((k.source_fraction_bits + 1) << k.source_fraction_bits);
    const uint32_t rounds_to_zero = k.zero_drops_sign ? t.half_step_bits : 0u;
    t.unsigned_from = 0x80000000u + rounds_to_zero - (k.zero_drops_sign ? 0u : 1u);
    return t;
}

// Encodes a block of float32 (or float64, rounded to odd on the way, see
// below, or bfloat16 codes) into 8-bit codes with any deterministic
// rounding mode when the CPU has AVX-512 (F/BW/VL/VBMI), adding the FP flags
// raised (float8_e8m0fnu: only blocks of positive normal values below
// overflow). Returns false, leaving `out` unspecified, when it did not
// handle the block; the caller then runs the general kernel. `k` holds the
// float32 constants of the format; `high` (doubles only, may be null) its
// constants for float64 upper halves, with which doubles are encoded from
// their upper halves instead (see upper_half_vectors).
// Source is float, double or uint16_t (bfloat16 codes), the instantiations.
template <class Source>
bool encode_u8_block_avx512(const FastConstants<uint32_t, float>& k, const FastConstants<uint32_t, float>* high,
                            bool exponent_only, Rounding mode, const Source* in, uint8_t* out, size_t n,
                            uint32_t& flags);

// float64 -> float32 rounded to odd (truncate, then set the last bit when
// anything was dropped; beyond float32's range: the largest float32). A
// later single rounding of the float32 into any format with at most 22
// significand bits and a subnormal step of at least 2^-147 equals the
// rounding of the float64 itself, for every rounding direction. Returns
// false when the CPU lacks AVX-512.
bool round_to_odd_f32_avx512(const double* in, float* out, size_t n);

}  // namespace minifloat
