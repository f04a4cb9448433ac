#include "matrix_tile_avx512.h"

#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#include "avx512_intrinsics.h"

namespace minifloat {

// Per kk: three vectors of B, then each row's value of A broadcast from
// memory (folded into the multiply-add) against them. 8 x 48 measured best
// of 6 x 64, 8 x 48, 12 x 32 and 14 x 32 on Zen 5 (2048^3: 70-76 ms, all
// within 8%); 24 sums keep 24 multiply-adds in flight, more than two FMA
// units of latency 4 need.
__attribute__((target("avx512f"))) void matrix_tile_avx512(const float* a, const float* b, size_t kc, float* c,
                                                             size_t ldc, bool first) {
    constexpr size_t R = kAvx512TileRows, V = kAvx512TileColumns / 16;
    __m512 sum[R][V];
#pragma GCC unroll 8
    for (size_t r = 0; r < R; r++) {
#pragma GCC unroll 3
        for (size_t v = 0; v < V; v++) sum[r][v] = first ? _mm512_setzero_ps() : _mm512_loadu_ps(c + r * ldc + 16 * v);
    }
    for (size_t kk = 0; kk < kc; kk++) {
        __m512 bv[V];
#pragma GCC unroll 3
        for (size_t v = 0; v < V; v++) bv[v] = _mm512_loadu_ps(b + kk * kAvx512TileColumns + 16 * v);
#pragma GCC unroll 8
        for (size_t r = 0; r < R; r++) {
            const __m512 av = _mm512_set1_ps(a[kk * R + r]);
#pragma GCC unroll 3
            for (size_t v = 0; v < V; v++) sum[r][v] = _mm512_fmadd_ps(av, bv[v], sum[r][v]);
        }
    }
#pragma GCC unroll 8
    for (size_t r = 0; r < R; r++) {
#pragma GCC unroll 3
        for (size_t v = 0; v < V; v++) _mm512_storeu_ps(c + r * ldc + 16 * v, sum[r][v]);
    }
}

}  // namespace minifloat
#else
namespace minifloat {
void matrix_tile_avx512(const float*, const float*, size_t, float*, size_t, bool) {}
}  // namespace minifloat
#endif
