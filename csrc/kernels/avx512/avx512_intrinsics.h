// The intrinsics of the hand-written AVX-512 kernels; include only under
// MINIFLOAT_HAVE_X86_KERNELS (simd_dispatch.h). GCC 12 warns about its
// own intrinsics' "undefined" pass-through operands; those warnings are off
// in the files that include this.
#pragma once

#include <immintrin.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

// Indices for _mm512_permutex2var_epi32(a, index, b): the even dwords of a
// then of b (the lower halves of 8 + 8 doubles, in order), or the odd ones
// (their upper halves: sign, exponent and the fraction's top 20 bits).
__attribute__((target("avx512f"))) inline __m512i even_dwords_index() {
    return _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
}
__attribute__((target("avx512f"))) inline __m512i odd_dwords_index() {
    return _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
}
