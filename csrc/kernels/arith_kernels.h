// Element-wise + - * / over decoded operands, SIMD-dispatched: the middle
// step of a minifloat ufunc loop (decode, compute, round once).
#pragma once

#include <cstddef>

#include "math_ops.h"

namespace minifloat {

// out[i] = a[i] op b[i] in float32 (exact enough for every format but
// float8_e8m0fnu, see ufunc_loops.cpp). `op` is add, subtract, multiply or divide.
void arith_f32(BinaryOp op, const float* a, const float* b, float* out, size_t n);

// The same in binary64 (float8_e8m0fnu, whose results leave float32's range).
void arith_f64(BinaryOp op, const float* a, const float* b, double* out, size_t n);

// Folds n values into kFoldLanes running results: lanes[i % kFoldLanes] op=
// values[i] (op is add or multiply). A fixed lane count, so every SIMD
// width computes the same bits; enough lanes to hide the add latency.
constexpr size_t kFoldLanes = 64;
void fold_f32_lanes(BinaryOp op, const float* values, size_t n, float* lanes);

}  // namespace minifloat
