#include "arith_kernels.h"
#include "fp_status.h"

#include "simd_dispatch.h"

namespace minifloat {

namespace {

template <class Real, BinaryOp Op>
MINIFLOAT_KERNEL_INLINE void arith_loop(const float* __restrict a, const float* __restrict b,
                                        Real* __restrict out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const Real x = a[i], y = b[i];
        Real r;
        if constexpr (Op == BinaryOp::add) r = x + y;
        if constexpr (Op == BinaryOp::subtract) r = x - y;
        if constexpr (Op == BinaryOp::multiply) r = x * y;
        if constexpr (Op == BinaryOp::divide) r = x / y;
        out[i] = first_nan_or(x, y, r);
    }
}

template <class Real>
MINIFLOAT_KERNEL_INLINE void arith_any(BinaryOp op, const float* a, const float* b, Real* out, size_t n) {
    switch (op) {
        case BinaryOp::add: return arith_loop<Real, BinaryOp::add>(a, b, out, n);
        case BinaryOp::subtract: return arith_loop<Real, BinaryOp::subtract>(a, b, out, n);
        case BinaryOp::multiply: return arith_loop<Real, BinaryOp::multiply>(a, b, out, n);
        case BinaryOp::divide: return arith_loop<Real, BinaryOp::divide>(a, b, out, n);
        default: return;
    }
}

template <BinaryOp Op>
MINIFLOAT_KERNEL_INLINE void fold_loop(const float* __restrict values, size_t n, float* __restrict lanes) {
    size_t i = 0;
    for (; i + kFoldLanes <= n; i += kFoldLanes) {
        for (size_t l = 0; l < kFoldLanes; l++) {
            lanes[l] = Op == BinaryOp::add ? lanes[l] + values[i + l] : lanes[l] * values[i + l];
        }
    }
    for (size_t l = 0; i < n; i++, l++) {
        lanes[l] = Op == BinaryOp::add ? lanes[l] + values[i] : lanes[l] * values[i];
    }
}

}  // namespace

MINIFLOAT_SIMD_CLONES
void fold_f32_lanes(BinaryOp op, const float* values, size_t n, float* lanes) {
    if (op == BinaryOp::add) {
        fold_loop<BinaryOp::add>(values, n, lanes);
    } else {
        fold_loop<BinaryOp::multiply>(values, n, lanes);
    }
}

MINIFLOAT_SIMD_CLONES
void arith_f32(BinaryOp op, const float* a, const float* b, float* out, size_t n) {
    DefaultFpuModeScope default_modes;
    arith_any<float>(op, a, b, out, n);
}

MINIFLOAT_SIMD_CLONES
void arith_f64(BinaryOp op, const float* a, const float* b, double* out, size_t n) {
    DefaultFpuModeScope default_modes;
    arith_any<double>(op, a, b, out, n);
}

}  // namespace minifloat
