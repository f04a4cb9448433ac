// 256-entry byte tables looked up 32 bytes at a time with AVX2, whose byte
// shuffle indexes only 16 bytes: the table is 16 rows of 16, and row k
// serves the bytes whose high nibble is k. Include only from x86-64
// GCC/Clang translation units; the callers check avx2_usable() first.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace minifloat {

#define MINIFLOAT_BYTE_LOOKUP_AVX2 __attribute__((target("avx2")))

struct ByteRows {
    __m256i row[16];   // table[16k .. 16k + 15] in both 128-bit halves, for the k of key[j]
    __m256i key[16];   // 16k in every byte
    int rows = 0;      // entries in use: all 16 rows, or only those not all zero
};

// `skip_zero_rows`: leave out the rows that hold only zeros (a flags table
// is mostly zeros); codes in them then look up as zero, as they should.
MINIFLOAT_BYTE_LOOKUP_AVX2 inline ByteRows load_rows(const uint8_t* table, bool skip_zero_rows) {
    ByteRows t;
    for (int k = 0; k < 16; k++) {
        const __m256i row =
            _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(table + 16 * k)));
        if (skip_zero_rows && _mm256_testz_si256(row, row)) continue;
        t.row[t.rows] = row;
        t.key[t.rows] = _mm256_set1_epi8(static_cast<char>(16 * k));
        t.rows++;
    }
    return t;
}

// 32 lookups in all 16 rows: every row shuffled by the low nibble, and
// the 16 results narrowed to one by the high nibble's bits, highest first.
// Bit 7 costs no blend: a shuffle gives zero where its index has bit 7 set,
// so rows k and k + 8 (which differ in bit 7) shuffled by the index and by
// the index with bit 7 flipped are ORed. Bits 6, 5, 4 then take 7 byte
// blends (a blend picks by bit 7; each doubling brings the next bit there):
// 16 shuffles, 8 ORs and 7 blends, against 16 x 4 operations for masking rows.
MINIFLOAT_BYTE_LOOKUP_AVX2 inline __m256i lookup32_all_rows(const ByteRows& t, __m256i index) {
    const __m256i upper_rows = _mm256_xor_si256(index, _mm256_set1_epi8(static_cast<char>(0x80)));
    __m256i r[8];
    for (int k = 0; k < 8; k++) {
        r[k] = _mm256_or_si256(_mm256_shuffle_epi8(t.row[k], index), _mm256_shuffle_epi8(t.row[k + 8], upper_rows));
    }
    __m256i selector = index;
    for (int width = 4; width >= 1; width /= 2) {  // then bits 6, 5, 4
        selector = _mm256_add_epi8(selector, selector);
        for (int k = 0; k < width; k++) r[k] = _mm256_blendv_epi8(r[k], r[k + width], selector);
    }
    return r[0];
}

// 32 lookups. For row k, index ^ 16k is below 16 exactly where the high
// nibble is k; adding 0x70 with saturation then leaves bit 7 clear only
// there, and the shuffle gives zero wherever bit 7 is set. A table with
// every row in use goes to lookup32_all_rows.
MINIFLOAT_BYTE_LOOKUP_AVX2 inline __m256i lookup32(const ByteRows& t, __m256i index) {
    if (t.rows == 16) return lookup32_all_rows(t, index);
    const __m256i lift = _mm256_set1_epi8(0x70);
    __m256i result = _mm256_setzero_si256();
    for (int j = 0; j < t.rows; j++) {
        const __m256i picked = _mm256_adds_epu8(_mm256_xor_si256(index, t.key[j]), lift);
        result = _mm256_or_si256(result, _mm256_shuffle_epi8(t.row[j], picked));
    }
    return result;
}

}  // namespace minifloat
