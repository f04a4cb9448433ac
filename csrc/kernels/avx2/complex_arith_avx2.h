// complex32 / bcomplex32 +, -, * and complex32's |z| in registers with
// AVX2, FMA and F16C: complex_arith_avx512.h's kernels in 256-bit steps,
// for CPUs without AVX-512 (AMD Zen 2/3, Intel client cores). Same bits and
// flags as the general loops (complex_arith.cpp, NumPy's absolute).
#pragma once

#include <cstddef>
#include <cstdint>

#include "complex_arith.h"

namespace minifloat {

// As complex_arith_avx512, in blocks of four; false without AVX2, FMA and
// F16C in use.
bool complex_arith_avx2(ComplexArith op, PartFormat format, const uint16_t* a, const uint16_t* b, uint16_t* out,
                        size_t n, size_t& done, uint32_t& flags);

// As complex32_abs_avx512 (complex_arith_avx512.h), eight elements a step.
bool complex32_abs_avx2(const uint16_t* parts, uint16_t* out, size_t n, size_t& done, uint32_t& flags);

}  // namespace minifloat
