#include "complex_arith.h"

#include "simd_dispatch.h"

namespace minifloat {

MINIFLOAT_SIMD_CLONES
void complex_add_f32(const float* a, const float* b, float* out, size_t n) {
    for (size_t i = 0; i < 2 * n; i++) out[i] = a[i] + b[i];
}

MINIFLOAT_SIMD_CLONES
void complex_subtract_f32(const float* a, const float* b, float* out, size_t n) {
    for (size_t i = 0; i < 2 * n; i++) out[i] = a[i] - b[i];
}

MINIFLOAT_SIMD_CLONES
void complex_multiply_f64(const float* a, const float* b, double* out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const double ar = a[2 * i], ai = a[2 * i + 1], br = b[2 * i], bi = b[2 * i + 1];
        out[2 * i] = ar * br - ai * bi;
        out[2 * i + 1] = ar * bi + ai * br;
    }
}

MINIFLOAT_SIMD_CLONES
void complex_add_scalar_f32(const float* a, const float b[2], float* out, size_t n) {
    const float br = b[0], bi = b[1];
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = a[2 * i] + br;
        out[2 * i + 1] = a[2 * i + 1] + bi;
    }
}

}  // namespace minifloat
