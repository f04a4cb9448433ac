// complex32 / bcomplex32 +, -, * in registers with AVX2, FMA and F16C:
// complex_arith_avx512.h's kernels, four elements at a time (products in
// binary64 only), for CPUs without AVX-512 (AMD Zen 2/3, Intel client
// cores). Same bits and flags as the general loop of complex_arith.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "complex_arith.h"

namespace minifloat {

// As complex_arith_avx512, in blocks of four; false without AVX2, FMA and
// F16C in use.
bool complex_arith_avx2(ComplexArith op, PartFormat format, const uint16_t* a, const uint16_t* b, uint16_t* out,
                        size_t n, size_t& done, uint32_t& flags);

}  // namespace minifloat
