// Constants of the fast round-to-nearest-even encoder (see
// convert_kernels.cpp) and its hand-vectorized AVX-512 version for the
// hottest case, float32 into an 8-bit format.
#pragma once

#include <cstddef>
#include <cstdint>

namespace minifloat {

template <class Bits, class Float>
struct FastConstants {
    Bits shift, half_minus_one, rebias, normal_from, magic_bits, overflow_from, inf_bits;
    Bits sign_bit, sign_shift, zero_drops_sign, overflow_code, overflow_sign;
    uint32_t overflow_flags;
    Float magic;
};

// Encodes a block of float32 into 8-bit codes when the CPU has AVX-512
// (F/BW/VBMI) and the block has no inf/NaN; adds overflow flags. Returns
// false, leaving `out` unspecified, when it did not (fully) handle it.
bool encode_f32_u8_block_avx512(const FastConstants<uint32_t, float>& k, const float* in, uint8_t* out,
                                size_t n, uint32_t& flags);

}  // namespace minifloat
