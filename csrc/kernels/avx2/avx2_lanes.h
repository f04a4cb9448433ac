// Whole-vector tests on 32-bit lanes for the AVX2 kernels, each one compare
// and one vmovmskps/vpmovmskb (vptest is two µops on Intel, one of them on
// port 5, which the kernels' shuffles need). Include only from x86-64
// GCC/Clang translation units; callers check avx2_usable() first.
#pragma once

#include <immintrin.h>

namespace minifloat {

// Whether every lane of x is at most `limit`, both unsigned.
__attribute__((target("avx2"))) inline bool all_lanes_at_most(__m256i x, __m256i limit) {
    return _mm256_movemask_epi8(_mm256_cmpeq_epi32(_mm256_max_epu32(x, limit), limit)) == -1;
}

// Whether any lane of a compare's mask (all ones or all zeros per lane) is set.
__attribute__((target("avx2"))) inline bool any_lane(__m256i mask) {
    return _mm256_movemask_ps(_mm256_castsi256_ps(mask)) != 0;
}

}  // namespace minifloat
