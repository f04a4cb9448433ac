// 256-entry byte tables looked up 64 bytes at a time with AVX-512 VBMI's
// two-source byte permutes. Include only from x86-64 GCC/Clang translation
// units; the callers check avx512_vbmi_usable() first.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace minifloat {

#define MINIFLOAT_BYTE_LOOKUP __attribute__((target("avx512f,avx512bw,avx512vbmi")))

struct ByteTable {
    __m512i quarter[4];
};

MINIFLOAT_BYTE_LOOKUP inline ByteTable load_table(const uint8_t* table) {
    ByteTable t;
    for (int q = 0; q < 4; q++) t.quarter[q] = _mm512_loadu_si512(table + 64 * q);
    return t;
}

// 64 lookups: bits 0-6 pick a byte of one 128-byte half, bit 7 the half.
MINIFLOAT_BYTE_LOOKUP inline __m512i lookup64(const ByteTable& t, __m512i index) {
    const __m512i low = _mm512_permutex2var_epi8(t.quarter[0], index, t.quarter[1]);
    const __m512i high = _mm512_permutex2var_epi8(t.quarter[2], index, t.quarter[3]);
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(index), low, high);
}

// The permute patterns that turn the looked-up upper two bytes of 64 float32
// values (byte 2s in one vector, byte 3s in the other) into four vectors of
// 16 floats with zero lower halves: pattern q serves values 16q..16q+15.
MINIFLOAT_BYTE_LOOKUP inline void upper_halves_patterns(__m512i pattern[4]) {
    alignas(64) uint8_t bytes[4][64];
    for (int q = 0; q < 4; q++) {
        for (int lane = 0; lane < 16; lane++) {
            bytes[q][4 * lane + 0] = 0;
            bytes[q][4 * lane + 1] = 0;
            bytes[q][4 * lane + 2] = static_cast<uint8_t>(16 * q + lane);       // from the byte 2s
            bytes[q][4 * lane + 3] = static_cast<uint8_t>(64 + 16 * q + lane);  // from the byte 3s
        }
    }
    for (int q = 0; q < 4; q++) pattern[q] = _mm512_load_si512(bytes[q]);
}

// Values 16q..16q+15 of 64 decoded floats (see upper_halves_patterns).
MINIFLOAT_BYTE_LOOKUP inline __m512 floats_from_upper_halves(__m512i byte2s, __m512i pattern, __m512i byte3s) {
    constexpr __mmask64 kUpperHalves = 0xCCCCCCCCCCCCCCCCull;
    return _mm512_castsi512_ps(_mm512_maskz_permutex2var_epi8(kUpperHalves, byte2s, pattern, byte3s));
}

// The same with all four bytes looked up (values below float32's normals):
// the lower halves built as upper ones, shifted down.
MINIFLOAT_BYTE_LOOKUP inline __m512 floats_from_four_bytes(__m512i byte0s, __m512i byte1s, __m512i byte2s,
                                                          __m512i pattern, __m512i byte3s) {
    const __m512i upper = _mm512_castps_si512(floats_from_upper_halves(byte2s, pattern, byte3s));
    const __m512i lower = _mm512_srli_epi32(_mm512_castps_si512(floats_from_upper_halves(byte0s, pattern, byte1s)), 16);
    return _mm512_castsi512_ps(_mm512_or_si512(upper, lower));
}

}  // namespace minifloat
