// Element-wise complex +, -, * on the parts of complex32 / bcomplex32. Each
// result part is what NumPy's complex128 computes, rounded once into the
// part format: a sum or difference of two part values is rounded once to
// binary32 and then to the part, which equals one rounding of the exact
// value (24 >= 2p + 2 for p = 11 and 8, Figueroa 1995), as complex128's
// once-rounded binary64 does; products of parts are exact in binary64 and
// ar*br - ai*bi is rounded once there, as complex128 does. No NumPy.
#pragma once

#include <cstddef>
#include <cstdint>

#include "complex_parts.h"

namespace minifloat {

enum class ComplexArith : uint8_t { add, subtract, multiply };

// How far ahead the hand-written kernels ask for each source's next line (a
// pass of two blocks reads one line of each, AVX-512; half a line, AVX2):
// on an Intel Xeon (family 6 model 207) VM, 4M-element a * b took 0.54-0.56
// ns an element with it (512 or 2048 bytes the same) and 0.61-0.62
// without; the hardware prefetchers alone keep too few lines in flight for
// loops this busy.
constexpr size_t kComplexPrefetchBytes = 1024;

// out = a op b on part codes (2n each, real part first); returns the FpFlag
// bits raised. The hand-written kernels (complex_arith_avx512/avx2) take
// the blocks whose results hold no NaN, the general loop the rest.
uint32_t complex_arith_parts(const PartCodec& codec, ComplexArith op, const uint16_t* a, const uint16_t* b,
                             uint16_t* out, size_t n);

// |z| of complex32 elements (float16 parts) into float16 codes by a
// hand-written kernel, for the leading blocks where that gives what NumPy's
// complex128 absolute rounded once gives (complex_arith_avx512.h): `done`
// says how many; false where no kernel serves this CPU. The caller runs
// NumPy's loop on the block after `done` and calls again.
bool complex32_abs_by_hand(const uint16_t* parts, uint16_t* out, size_t n, size_t& done, uint32_t& flags);

// The general loop's steps on decoded parts (binary32 pairs of float16 or
// bfloat16 values, which they hold exactly); a, b, out hold 2n values.
void complex_add_f32(const float* a, const float* b, float* out, size_t n);
void complex_subtract_f32(const float* a, const float* b, float* out, size_t n);
void complex_multiply_f64(const float* a, const float* b, double* out, size_t n);
// a + b where b is one complex value (array plus scalar)
void complex_add_scalar_f32(const float* a, const float b[2], float* out, size_t n);

}  // namespace minifloat
