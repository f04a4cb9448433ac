// AVX-512 path of the MX block scaling: 16 blocks of 16 or 32 values at a
// time, their largest magnitudes reduced in registers and their shared
// exponents computed as vectors (see mx_kernels.cpp for the scalar rules).
#pragma once

#include <cstddef>
#include <cstdint>

#include "mx_scaling.h"

namespace minifloat {

// Scales the first 16 * k whole blocks of `in` (block is 16 or 32) into
// `scaled`, writing their scale codes and non-finite marks; returns the
// number of blocks done (0 without AVX-512).
size_t mx_scale_blocks_avx512(const float* in, size_t blocks, size_t block, const MxElement& e, ScaleMode mode,
                              float* scaled, uint8_t* scales, uint8_t* non_finite);

// The largest magnitudes (float32 bits without sign) of the first 16 * k
// whole blocks of `in` (block is 16 or 32); returns the number of blocks
// done (0 without AVX-512).
size_t largest_magnitudes_avx512(const float* in, size_t blocks, size_t block, uint32_t* maxima);

// NVFP4 elements: the float4_e2m1fn codes of the `count` values of `in`, in
// blocks of `block`, each divided by its block_scales[b] (0: the block
// holds zeros) and rounded to nearest even with saturation, by comparing
// with the rounding boundaries (see fp4_codes_by_boundaries in
// mx_kernels.cpp) in float32 (float32_boundaries) or double. Returns false
// without AVX-512.
bool fp4_blocks_avx512(const float* in, size_t count, size_t block, const double* block_scales,
                       bool float32_boundaries, uint8_t* out);

}  // namespace minifloat
