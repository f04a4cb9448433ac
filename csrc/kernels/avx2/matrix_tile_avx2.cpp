#include "matrix_tile_avx2.h"

#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#include <immintrin.h>

namespace minifloat {

// 4 x 24 measured best of 6 x 16, 5 x 16, 4 x 24 and 3 x 32 on Zen 5 with
// AVX2 only (2048^3: 136 ms, 145 for 6 x 16; NumPy's OpenBLAS, whose
// Haswell kernel runs there, 133).
__attribute__((target("avx2,fma"))) void matrix_tile_avx2(const float* a, const float* b, size_t kc, float* c,
                                                            size_t ldc, bool first) {
    constexpr size_t R = kAvx2TileRows, V = kAvx2TileColumns / 8;
    __m256 sum[R][V];
#pragma GCC unroll 4
    for (size_t r = 0; r < R; r++) {
#pragma GCC unroll 3
        for (size_t v = 0; v < V; v++) sum[r][v] = first ? _mm256_setzero_ps() : _mm256_loadu_ps(c + r * ldc + 8 * v);
    }
    for (size_t kk = 0; kk < kc; kk++) {
        __m256 bv[V];
#pragma GCC unroll 3
        for (size_t v = 0; v < V; v++) bv[v] = _mm256_loadu_ps(b + kk * kAvx2TileColumns + 8 * v);
#pragma GCC unroll 4
        for (size_t r = 0; r < R; r++) {
            const __m256 av = _mm256_broadcast_ss(a + kk * R + r);
#pragma GCC unroll 3
            for (size_t v = 0; v < V; v++) sum[r][v] = _mm256_fmadd_ps(av, bv[v], sum[r][v]);
        }
    }
#pragma GCC unroll 4
    for (size_t r = 0; r < R; r++) {
#pragma GCC unroll 3
        for (size_t v = 0; v < V; v++) _mm256_storeu_ps(c + r * ldc + 8 * v, sum[r][v]);
    }
}

}  // namespace minifloat
#else
namespace minifloat {
void matrix_tile_avx2(const float*, const float*, size_t, float*, size_t, bool) {}
}  // namespace minifloat
#endif
