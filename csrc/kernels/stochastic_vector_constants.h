// What the hand-written stochastic rounding kernels share
// (avx512/stochastic_avx512.cpp, avx2/stochastic_avx2.cpp; the rules are
// stochastic_rounding.cpp's): their constants, derived once from the plan as
// scalars of the source's lane width for broadcasting into either
// instruction set's vectors, and the portable rule they hand steps to. No
// intrinsics here.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "convert_kernels.h"

namespace minifloat {

// The portable rule for `count` (<= 16) values (float32, or float64 when
// `float64`) with their draws, for the steps the vector kernels leave to
// it; returns the FpFlag bits raised.
using StochasticRedo = uint32_t (*)(const EncodePlan& plan, const void* in, bool float64, const uint32_t* draws,
                                    void* out, size_t count);

struct StochasticVectorConstants {
    uint64_t fraction_shift, carry_shift, rebias, normal_from, max_bits, span, sign_shift, sign_bit;
    uint64_t exponent_mask, scale_base, max_magnitude;
    // small_magnitudes (float32): 32 - (emin field + fraction_shift), and
    // the band of exponent fields [band_from, band_from + band_span) whose
    // values its 32-bit shifts cannot round (below: the threshold is 0 anyway)
    uint64_t count_base, band_from, band_span;
    bool zero_drops_sign;
};

// Bits: uint32_t for float32 sources, uint64_t for float64.
template <class Bits>
StochasticVectorConstants stochastic_vector_constants(const EncodePlan& p) {
    constexpr uint32_t kFractionBits = sizeof(Bits) == 4 ? 23 : 52;
    constexpr uint64_t kBias = sizeof(Bits) == 4 ? 127 : 1023;
    StochasticVectorConstants k;
    k.fraction_shift = kFractionBits - p.mantissa_bits;
    // float32: ~d >> (32 - shift); float64: ~d << (shift - 32)
    k.carry_shift = sizeof(Bits) == 4 ? 32 - k.fraction_shift : k.fraction_shift - 32;
    const uint64_t emin_field = static_cast<uint64_t>(p.min_normal_exponent + static_cast<int64_t>(kBias));
    k.rebias = (emin_field - 1) << p.mantissa_bits;
    // a target whose normal range starts where the source's does (bfloat16
    // from float32) has the source's subnormal step: the normal rule holds
    // for every value
    k.normal_from = emin_field == 1 ? 0 : emin_field << kFractionBits;
    k.max_bits = (p.max_magnitude + k.rebias) << k.fraction_shift;
    k.span = k.max_bits - k.normal_from + 1;  // the largest value itself never moves
    const uint64_t sign_position = p.sign_bit ? static_cast<uint64_t>(__builtin_ctz(p.sign_bit)) : 0;
    k.sign_shift = sizeof(Bits) * 8 - 1 - sign_position;
    k.sign_bit = p.sign_bit;
    k.exponent_mask = (sizeof(Bits) == 4 ? uint64_t{0xFF} : uint64_t{0x7FF}) << kFractionBits;
    // 2^(M - e) for the exponent field e of |x| (at least the normal
    // range's): the bits of the scale that makes the target's step 1
    k.scale_base = (2 * kBias + p.mantissa_bits) << kFractionBits;
    k.max_magnitude = p.max_magnitude;
    k.zero_drops_sign = p.zero_drops_sign;
    const int64_t shift_base = static_cast<int64_t>(emin_field + k.fraction_shift);  // K: s = K - e
    constexpr int64_t kLaneBits = sizeof(Bits) * 8, kSignificandBits = kFractionBits + 1;
    // (a target sharing the source's subnormal step: every value, the
    // source's subnormals too, shifts by fraction_shift)
    k.count_base = k.normal_from == 0 ? kLaneBits - k.fraction_shift : static_cast<uint64_t>(kLaneBits - shift_base);
    // float32: s > 32 (e < K - 32) loses threshold bits in
    // small_magnitudes' shifts; float64: s >= 64 (e <= K - 64;
    // small_magnitudes64); either unless s >= 32 + significand bits (the
    // significand lies below 2^-32)
    const int64_t band_low = std::max<int64_t>(shift_base - 31 - kSignificandBits, 1);
    const int64_t band_high = kLaneBits == 32 ? shift_base - 32 : shift_base - 63;
    k.band_from = static_cast<uint64_t>(band_low) << kFractionBits;
    k.band_span = band_high > band_low ? static_cast<uint64_t>(band_high - band_low) << kFractionBits : 0;
    return k;
}

// float8_e8m0fnu from float32, and the unsigned formats of powers of two
// (stochastic_powers_of_two): inside [2^-126, largest) the code is the
// exponent field moved by the bias, bumped when the draw is below the
// fraction's top bits. The float32 bits of the largest value's binade end.
inline uint32_t powers_of_two_end_bits(const EncodePlan& p) {
    return (p.max_magnitude - static_cast<uint32_t>(p.bias) + 127u) << 23;
}

}  // namespace minifloat
