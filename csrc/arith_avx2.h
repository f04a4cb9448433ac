// Fused + - * / for 8-bit formats with AVX2 (CPUs without AVX-512): 32 code
// pairs at a time are decoded, combined in float32 and rounded to nearest
// even in registers. Same bits and flags as the general loop (decode,
// compute, encode): the float32 operation is exact enough (see
// ufunc_loops.cpp), a NaN operand propagates (the first when both are), and
// a step with an overflow, inf or NaN result is encoded by the portable
// encoder, which finds its flags.
#pragma once

#include <cstddef>
#include <cstdint>

#include "convert_kernels.h"
#include "encode_fast.h"
#include "math_ops.h"

namespace minifloat {

// out[i] = round(a[i*sa] op b[i*sb]) for op in add, subtract, multiply,
// divide, sa and sb each 0 (a broadcast operand) or 1. `decode` reads the
// operands, the encoder constants `k` round the result. Adds the encoder's
// FP flags to `flags`. Returns false, doing nothing, without AVX2 or for
// another op.
bool binary_u8_avx2(BinaryOp op, const DecodePlan& decode, const FastConstants<uint32_t, float>& k,
                    const uint8_t* a, bool a_broadcast, const uint8_t* b, bool b_broadcast, uint8_t* out, size_t n,
                    uint32_t& flags);

}  // namespace minifloat
