// AVX-512 path of the MX block scaling: 16 blocks of 16 or 32 values at a
// time, their largest magnitudes reduced in registers and their shared
// exponents computed as vectors (see mx_kernels.cpp for the scalar rules).
#pragma once

#include <cstddef>
#include <cstdint>

#include "mx_kernels.h"

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

}  // namespace minifloat
