// Fused + - * / for 8-bit formats with AVX-512 VBMI: 64 code pairs at a
// time are decoded with byte permutes, combined in float32 and rounded to
// nearest even in registers, without the float32 round trip through memory
// of the general loop (decode, compute, encode). Same bits and flags as that
// loop: the float32 operation is exact enough (see ufunc_loops.cpp), NaN
// operands propagate the first NaN, and the encoder is the cast's.
#pragma once

#include <cstddef>
#include <cstdint>

#include "convert_kernels.h"
#include "math_ops.h"

namespace minifloat {

// Whether binary_u8_avx512 serves the format of `decode` on this CPU: byte
// decode tables, not float8_e8m0fnu (whose 2^+-127 operands need binary64),
// and AVX-512 VBMI in use.
bool fused_u8_arith_serves(const DecodePlan& decode);

// out[i] = round(a[i*sa] op b[i*sb]) for op in add, subtract, multiply,
// divide, with sa, sb each 0 (a broadcast operand) or 1; the operands'
// decode tables are `decode` (byte tables required), the result's encoder
// constants `k`. Adds the encoder's FP flags to `flags`. Returns false,
// doing nothing, without AVX-512 VBMI or for another op.
bool binary_u8_avx512(BinaryOp op, const DecodePlan& decode, const FastConstants<uint32_t, float>& k,
                      const uint8_t* a, bool a_broadcast, const uint8_t* b, bool b_broadcast, uint8_t* out,
                      size_t n, uint32_t& flags);

}  // namespace minifloat
