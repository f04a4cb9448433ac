// AVX2 path of stochastic rounding from float32 and float64, for CPUs
// without the AVX-512 one (stochastic_avx512.h; AMD Zen 2 and 3, Intel
// before Ice Lake): 8 values per step, their 8 draws one vector of 2 ARS-5
// blocks (counter_random.h) made in registers, by VAES on 256-bit vectors
// where the CPU has it (Zen 3), else by AES-NI on the two 128-bit halves.
#pragma once

#include <cstddef>
#include <cstdint>

#include "convert_kernels.h"
#include "stochastic_vector_constants.h"

namespace minifloat {

// Whether this CPU runs stochastic_avx2 (AVX2 and AES-NI, the AVX2 kernels
// enabled).
bool stochastic_avx2_usable();

// Whether the draws take VAES where the CPU has it (on by default; off, the
// AES-NI rounds run instead: the tests compare both on one CPU). Returns
// the previous setting.
bool set_stochastic_avx2_vaes(bool enabled);

// The contract of stochastic_avx512 (stochastic_avx512.h): rounds in[0..n)
// (float32, or float64 when `float64`; elements first.. of the array) into
// the plan's format, a sign-magnitude format of 1 or 2 bytes or
// float8_e8m0fnu, or from float32 an unsigned format of powers of two;
// returns false (writing nothing) where stochastic_avx2_usable() is false
// or `first` is not a multiple of 4. Steps it cannot round go to `redo`;
// unsigned formats: the steps with a negative value go there (which must
// then know them: the exact rule), from float64 too (where the AVX-512
// kernel needs sources without them).
bool stochastic_avx2(const EncodePlan& plan, uint64_t key, uint64_t first, const void* in, bool float64,
                     void* out, size_t n, uint32_t& flags, StochasticRedo redo);

}  // namespace minifloat
