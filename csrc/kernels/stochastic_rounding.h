// Stochastic rounding with the random bits made in C++ from a key
// (counter_random.h): the kernels of mf.cast(rounding="stochastic") for
// float32 and float64 sources (the Python side is in cast_extras.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "convert_kernels.h"

namespace minifloat {

// Rounds in[0..n) into the plan's format, element i drawing d_i of `key`
// (counter_random.h); returns the FpFlag bits raised.
uint32_t encode_f32_stochastic(const EncodePlan& plan, uint64_t key, const float* in, void* out, size_t n);
uint32_t encode_f64_stochastic(const EncodePlan& plan, uint64_t key, const double* in, void* out, size_t n);

// The same for a part of a longer array: `in` and `out` start at element
// `first` of it, whose draws the part takes.
uint32_t encode_stochastic_part(const EncodePlan& plan, uint64_t key, uint64_t first, const void* in,
                                bool float64, void* out, size_t n);

// The same through the exact any-mode encoders (stochastic_any_format.cpp):
// every format, used for those the kernels above do not model.
uint32_t encode_stochastic_exact(const EncodePlan& plan, uint64_t key, uint64_t first, const void* in,
                                 bool float64, void* out, size_t n);

// The exact rule with the given 32-bit draws (one per value, the kernels'
// own): the step of a vector kernel that the rule must redo.
uint32_t encode_exact_with_draws(const EncodePlan& plan, const void* in, bool float64, const uint32_t* draws,
                                 void* out, size_t n);

}  // namespace minifloat
