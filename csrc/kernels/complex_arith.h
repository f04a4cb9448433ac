// Element-wise complex +, -, * on decoded parts (binary32 pairs of float16
// or bfloat16 values, which they hold exactly). Each result part is what
// NumPy's complex128 computes, ready to be rounded once into the part
// format: a sum or difference of two part values is rounded once to
// binary32 and then to the part, which equals one rounding of the exact
// value (24 >= 2p + 2 for p = 11 and 8, Figueroa 1995), as complex128's
// once-rounded binary64 does; products of parts are exact in binary64 and
// ar*br - ai*bi is rounded once there, as complex128 does. No NumPy.
#pragma once

#include <cstddef>

namespace minifloat {

// n complex elements: a, b, out hold 2n values (real, imaginary, ...)
void complex_add_f32(const float* a, const float* b, float* out, size_t n);
void complex_subtract_f32(const float* a, const float* b, float* out, size_t n);
void complex_multiply_f64(const float* a, const float* b, double* out, size_t n);
// a + b where b is one complex value (array plus scalar)
void complex_add_scalar_f32(const float* a, const float b[2], float* out, size_t n);

}  // namespace minifloat
