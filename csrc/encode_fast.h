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
    Bits shift, half_minus_one, rebias, normal_from, magic_bits, overflow_from, inf_bits;
    Bits sign_bit, sign_shift, zero_drops_sign, overflow_code, overflow_sign;
    Bits inf_positive, inf_negative, nan_positive, nan_negative;
    Bits overflow_negative, max_magnitude, max_positive, max_negative;
    uint32_t overflow_flags, inf_flags, nan_flags;
    Float magic;
};

// Encodes a block of float32 (or float64, rounded to odd on the way, see
// below, or bfloat16 codes) into 8-bit codes with any deterministic
// rounding mode when the CPU has AVX-512 (F/BW/VL/VBMI), adding the FP flags
// raised (float8_e8m0fnu: only blocks of positive normal values below
// overflow). Returns false, leaving `out` unspecified, when it did not
// handle the block; the caller then runs the general kernel. `k` holds the
// float32 constants of the format.
bool encode_f32_u8_block_avx512(const FastConstants<uint32_t, float>& k, bool exponent_only, Rounding mode,
                                const float* in, uint8_t* out, size_t n, uint32_t& flags);
bool encode_f64_u8_block_avx512(const FastConstants<uint32_t, float>& k, bool exponent_only, Rounding mode,
                                const double* in, uint8_t* out, size_t n, uint32_t& flags);
bool encode_bf16_u8_block_avx512(const FastConstants<uint32_t, float>& k, bool exponent_only, Rounding mode,
                                 const uint16_t* in, uint8_t* out, size_t n, uint32_t& flags);

// float64 -> float32 rounded to odd (truncate, then set the last bit when
// anything was dropped; beyond float32's range: the largest float32). A
// later single rounding of the float32 into any format with at most 22
// significand bits and a subnormal step of at least 2^-147 equals the
// rounding of the float64 itself, for every rounding direction. Returns
// false when the CPU lacks AVX-512.
bool round_to_odd_f32_avx512(const double* in, float* out, size_t n);

}  // namespace minifloat
