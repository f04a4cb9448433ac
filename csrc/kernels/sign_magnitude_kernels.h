// Comparisons and maximum/minimum on contiguous 16-bit sign-magnitude codes
// (bfloat16) without decoding: the order key of a code is computed from its
// bits (negative codes reversed below the positive ones, both zeros equal,
// NaN apart), so the loops are integer-only and vectorize.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lookup_kernels.h"

namespace minifloat {

// `inf_magnitude`: the magnitude of inf; larger magnitudes are NaN.
void compare_sign_magnitude16(KeyComparison op, uint16_t inf_magnitude, const uint16_t* a, const uint16_t* b,
                              uint8_t* out, size_t n);
void select_sign_magnitude16(KeySelection op, uint16_t inf_magnitude, const uint16_t* a, const uint16_t* b,
                             uint16_t* out, size_t n);

}  // namespace minifloat
