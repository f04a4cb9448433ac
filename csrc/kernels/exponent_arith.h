// + - * / on float8_e8m0fnu codes directly. Its values are powers of two,
// so every result is a small integer function of the two exponents:
//   2^p * 2^q = 2^(p+q)              2^p / 2^q = 2^(p-q)
//   2^p + 2^q = 2^max * (1 + 2^-|p-q|): rounds up a power when |p-q| <= 1
//   2^p - 2^q = 2^p * (1 - 2^(q-p)):    one power lower when p - q == 1,
//                                       no value (NaN) when p <= q
// (ties go to the larger power; below 2^-127 is 2^-127; above 2^127 overflows).
#pragma once

#include <cstddef>
#include <cstdint>

#include "math_ops.h"

namespace minifloat {

// Contiguous codes; returns FpFlag bits. `op` is add, subtract, multiply or divide.
uint32_t exponent_arith(BinaryOp op, const uint8_t* a, const uint8_t* b, uint8_t* out, size_t n);

}  // namespace minifloat
