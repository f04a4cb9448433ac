// Packing 32 dwords holding byte values (0..255) into 32 bytes in order,
// for the AVX2 kernels: the packs work per 128-bit half, so a dword permute
// puts the halves back in order. Include only from x86-64 GCC/Clang
// translation units; callers check avx2_usable() first.
#pragma once

#include <immintrin.h>

namespace minifloat {

__attribute__((target("avx2"))) inline __m256i pack32_bytes(__m256i c0, __m256i c1, __m256i c2, __m256i c3) {
    const __m256i words01 = _mm256_packus_epi32(c0, c1);  // per half: 4 of c0, 4 of c1
    const __m256i words23 = _mm256_packus_epi32(c2, c3);
    const __m256i bytes = _mm256_packus_epi16(words01, words23);  // half 0: c0 c1 c2 c3, low 4 each
    return _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

// The same, each byte's `sign_byte` bits set where the dword of s0..s3 at
// its place (the code's source bits) is negative: the signs are packed
// alongside the codes (signed saturation keeps the sign bit), six operations
// for 32 codes instead of three per 8. In two halves for loops that make
// their codes a pair of vectors at a time: the pair's words and signs
// (pack_pair_with_signs), then the bytes of two pairs (bytes_with_signs).
struct WordsWithSigns {
    __m256i words, signs;
};

__attribute__((target("avx2"))) inline WordsWithSigns pack_pair_with_signs(__m256i c0, __m256i c1, __m256i s0,
                                                                           __m256i s1) {
    return {_mm256_packus_epi32(c0, c1), _mm256_packs_epi32(s0, s1)};
}

__attribute__((target("avx2"))) inline __m256i bytes_with_signs(WordsWithSigns p01, WordsWithSigns p23,
                                                                __m256i sign_byte) {
    const __m256i bytes = _mm256_packus_epi16(p01.words, p23.words);
    const __m256i negative = _mm256_cmpgt_epi8(_mm256_setzero_si256(), _mm256_packs_epi16(p01.signs, p23.signs));
    const __m256i signed_bytes = _mm256_or_si256(bytes, _mm256_and_si256(negative, sign_byte));
    return _mm256_permutevar8x32_epi32(signed_bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

__attribute__((target("avx2"))) inline __m256i pack32_bytes_with_signs(__m256i c0, __m256i c1, __m256i c2,
                                                                       __m256i c3, const __m256i s[4],
                                                                       __m256i sign_byte) {
    return bytes_with_signs(pack_pair_with_signs(c0, c1, s[0], s[1]), pack_pair_with_signs(c2, c3, s[2], s[3]),
                            sign_byte);
}

// Elements 0, 1, 4, 5 | 2, 3, 6, 7 of each 8 in the dword lanes (the order
// vshufps gathers the upper halves of two vectors of 4 doubles in) back in
// order: after the permute each 8 bytes read 0 1 4 5 2 3 6 7, and a byte
// shuffle swaps their middle pairs.
__attribute__((target("avx2"))) inline __m256i from_pair_order(__m256i packed) {
    const __m256i swap_middle_pairs = _mm256_setr_epi8(0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15,  //
                                                       0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15);
    return _mm256_shuffle_epi8(packed, swap_middle_pairs);
}

// The bytes of 32 elements packed from vectors of the even and odd elements
// of each 16 (e0 e2 .. e14, e1 e3 .. e15, then the same for e16 .. e31) back
// in element order: each 16-byte half is 8 evens then 8 odds, interleaved
// by one byte shuffle.
__attribute__((target("avx2"))) inline __m256i from_even_odd_order(__m256i packed) {
    const __m256i interleave = _mm256_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15,  //
                                                0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
    return _mm256_shuffle_epi8(packed, interleave);
}

// pack32_bytes for codes in that pair order.
__attribute__((target("avx2"))) inline __m256i pack32_bytes_from_pair_order(__m256i c0, __m256i c1, __m256i c2,
                                                                            __m256i c3) {
    return from_pair_order(pack32_bytes(c0, c1, c2, c3));
}

}  // namespace minifloat
