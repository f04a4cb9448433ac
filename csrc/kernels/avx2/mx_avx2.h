// AVX2 path of NVFP4 block scaling, for CPUs without AVX-512: block maxima
// 8 blocks at a time reduced in registers, and float4_e2m1fn elements by
// comparing with the scaled rounding boundaries (see mx_avx512.h for the
// rules, mx_kernels.cpp for the scalar ones).
#pragma once

#include <cstddef>
#include <cstdint>

namespace minifloat {

// The largest magnitudes (float32 bits without sign) of the first 8 * k
// whole blocks of `in` (block is 16 or 32); returns the number of blocks
// done (0 without AVX2).
size_t largest_magnitudes_avx2(const float* in, size_t blocks, size_t block, uint32_t* maxima);

// NVFP4 elements of the first 2 * k whole blocks of 16 of the `count`
// values of `in`, with float32 boundaries (block_scales[b] * m, exact in
// float32; 0: the block holds zeros). Returns the number of values done (0
// without AVX2); the caller encodes the rest.
size_t fp4_block_pairs_avx2(const float* in, size_t count, const double* block_scales, uint8_t* out);

}  // namespace minifloat
