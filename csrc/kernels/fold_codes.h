// Sums and products of contiguous 8-bit codes with the decoding done in
// registers: each code is decoded to float32 and folded straight into the
// running lanes of fold_f32_lanes (code i into lanes[i % kFoldLanes], in
// the same order), so the lanes end with the same bits as decoding into a
// buffer and folding that, without the trip through memory in between.
#pragma once

#include <cstddef>
#include <cstdint>

#include "arith_kernels.h"
#include "convert_kernels.h"
#include "math_ops.h"

namespace minifloat {

// Fold the leading whole groups of kFoldLanes codes of `in` into `lanes`
// (op: add or multiply); returns how many codes that was (0 when the
// CPU lacks the instruction set, or the plan is not an 8-bit format's). The
// caller folds the rest, continuing at lanes[0].
size_t fold_u8_codes_avx512(BinaryOp op, const DecodePlan& plan, const uint8_t* in, size_t n, float* lanes);
size_t fold_u8_codes_avx2(BinaryOp op, const DecodePlan& plan, const uint8_t* in, size_t n, float* lanes);

inline size_t fold_u8_codes(BinaryOp op, const DecodePlan& plan, const uint8_t* in, size_t n, float* lanes) {
    const size_t done = fold_u8_codes_avx512(op, plan, in, n, lanes);
    return done != 0 ? done : fold_u8_codes_avx2(op, plan, in, n, lanes);
}

}  // namespace minifloat
