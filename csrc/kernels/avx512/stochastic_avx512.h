// AVX-512 path of stochastic rounding from float32 and float64
// (stochastic_rounding.cpp holds the portable kernels and the rules): 16
// values per step, their 16 draws one vector of 4 ARS-5 blocks made by VAES
// (counter_random.h: the words of B_j are the draws of elements 4j..4j+3, so
// the vector read as 32-bit lanes is the draws in element order), made and
// used in registers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "convert_kernels.h"
#include "stochastic_vector_constants.h"

namespace minifloat {

// Rounds in[0..n) (float32, or float64 when `float64`; elements first.. of
// the array) into the plan's format, a sign-magnitude format of 1 or 2 bytes
// or float8_e8m0fnu; returns false without AVX-512 and VAES or when `first`
// is not a multiple of 4 (then nothing is written). Unsigned formats: from
// float32, the steps with a negative value go to `redo`, which must then
// know them (the exact rule); float64 sources must hold none.
// Whether this CPU runs stochastic_avx512 (AVX-512 BW/DQ/VBMI2 and VAES).
bool stochastic_avx512_usable();

bool stochastic_avx512(const EncodePlan& plan, uint64_t key, uint64_t first, const void* in, bool float64,
                       void* out, size_t n, uint32_t& flags, StochasticRedo redo);

}  // namespace minifloat
