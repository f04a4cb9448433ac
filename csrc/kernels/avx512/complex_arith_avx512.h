// complex32 / bcomplex32 +, -, * in registers with AVX-512: eight element
// pairs at a time, decoded, computed and rounded to the part format with no
// trip through memory between the steps (the general loop of
// complex_arith.cpp makes three or four). Same bits and flags as that loop.
#pragma once

#include <cstddef>
#include <cstdint>

#include "complex_arith.h"

namespace minifloat {

// out = a op b for the leading elements of n (a, b, out: 2n part codes,
// real part first); stops at the first block of eight whose result has a
// NaN part (the general loop gives NaNs their codes and flags) and before a
// tail under eight, setting `done` to how many it did. Adds kFlagOverflow
// to `flags`. Returns false, doing nothing, without AVX-512 F+BW+VL in use.
bool complex_arith_avx512(ComplexArith op, PartFormat format, const uint16_t* a, const uint16_t* b, uint16_t* out,
                          size_t n, size_t& done, uint32_t& flags);

// |z| of complex32 elements as float16 codes, for the leading blocks of
// 16 where binary32's sqrt(ar^2 + ai^2) rounds as NumPy's complex128
// absolute (its hypot) does, whatever the last bits of either; stops at the first
// other block (the caller runs NumPy's loop on it). Adds kFlagOverflow.
// False, doing nothing, without AVX-512 F+BW+VL in use.
bool complex32_abs_avx512(const uint16_t* parts, uint16_t* out, size_t n, size_t& done, uint32_t& flags);

}  // namespace minifloat
