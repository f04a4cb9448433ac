// 256-entry byte tables looked up 32 bytes at a time with AVX2, whose byte
// shuffle indexes only 16 bytes: the table is 16 rows of 16, and row k
// serves the bytes whose high nibble is k. Include only from x86-64
// GCC/Clang translation units; the callers check avx2_usable() first.
#pragma once

#include <immintrin.h>

#include <cstddef>
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

// A table whose upper half mirrors its lower one: table[c | 0x80] is
// table[c] ^ flip for every c < 128 (a format's negative codes convert as
// its positive ones, the sign moved: flip 0x80; their flags are the same:
// flip 0), but for at most kMirrorExceptions codes (a NaN or a zero whose
// sign the formats treat apart, as float8_e4m3fnuz's 0x80), which are
// looked up on their own. Then 8 rows serve: half the shuffles of 16.
constexpr int kMirrorExceptions = 4;

struct MirroredRows {
    __m256i row[8];  // table[16k .. 16k + 15] in both 128-bit halves
    __m256i flip;
    __m256i exception_code[kMirrorExceptions], exception_value[kMirrorExceptions];
    int exceptions = 0;
    bool usable = false;
};

// The flip that leaves the fewest exceptions: code 0's pair's, or code 1's
// where code 0 is itself an exception.
MINIFLOAT_BYTE_LOOKUP_AVX2 inline MirroredRows load_mirrored_rows(const uint8_t* table) {
    MirroredRows t;
    int best = 129;
    uint8_t best_flip = 0;
    for (int first = 0; first < 2; first++) {
        const uint8_t flip = static_cast<uint8_t>(table[0x80 | first] ^ table[first]);
        int exceptions = 0;
        for (int c = 0; c < 128; c++) exceptions += (table[c] ^ flip) != table[c | 0x80];
        if (exceptions < best) best = exceptions, best_flip = flip;
    }
    if (best > kMirrorExceptions) return t;
    for (int c = 0; c < 128; c++) {
        if ((table[c] ^ best_flip) == table[c | 0x80]) continue;
        t.exception_code[t.exceptions] = _mm256_set1_epi8(static_cast<char>(c | 0x80));
        t.exception_value[t.exceptions] = _mm256_set1_epi8(static_cast<char>(table[c | 0x80]));
        t.exceptions++;
    }
    for (int k = 0; k < 8; k++) {
        t.row[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(table + 16 * k)));
    }
    t.flip = _mm256_set1_epi8(static_cast<char>(best_flip));
    t.usable = true;
    return t;
}

// 32 lookups: the low 7 bits m of each index as lookup32_all_rows does 8
// bits (rows k and k + 4, which differ in bit 6, shuffled by m + 0x40 and
// m + 0xC0, each with bit 7 set where the other row serves; bits 5 and 4
// by 3 blends), then the flip where bit 7 is set, then the exceptions.
MINIFLOAT_BYTE_LOOKUP_AVX2 inline __m256i lookup32_mirrored(const MirroredRows& t, __m256i index) {
    const __m256i m = _mm256_and_si256(index, _mm256_set1_epi8(0x7F));
    const __m256i lower_rows = _mm256_add_epi8(m, _mm256_set1_epi8(0x40));
    const __m256i upper_rows = _mm256_add_epi8(m, _mm256_set1_epi8(static_cast<char>(0xC0)));
    __m256i r[4];
    for (int k = 0; k < 4; k++) {
        r[k] = _mm256_or_si256(_mm256_shuffle_epi8(t.row[k], lower_rows),
                               _mm256_shuffle_epi8(t.row[k + 4], upper_rows));
    }
    __m256i selector = _mm256_add_epi8(m, m);
    selector = _mm256_add_epi8(selector, selector);  // bit 5 in bit 7
    r[0] = _mm256_blendv_epi8(r[0], r[2], selector);
    r[1] = _mm256_blendv_epi8(r[1], r[3], selector);
    selector = _mm256_add_epi8(selector, selector);  // bit 4
    __m256i result = _mm256_blendv_epi8(r[0], r[1], selector);
    result = _mm256_blendv_epi8(result, _mm256_xor_si256(result, t.flip), index);
    for (int e = 0; e < t.exceptions; e++) {
        result = _mm256_blendv_epi8(result, t.exception_value[e], _mm256_cmpeq_epi8(index, t.exception_code[e]));
    }
    return result;
}

// A 256-entry table by whichever of the two ways takes fewer operations
// (16 rows: 35 a lookup; a row of 16 of a sparse table: 4; mirrored: 26,
// and 2 an exception). The mirror is looked for from kMirrorWorthIt codes
// on: it costs some 400 scalar operations a call, which 32 lookups of all
// 16 rows save.
constexpr size_t kMirrorWorthIt = 1024;

struct ByteLookup {
    ByteRows rows;
    MirroredRows mirrored;
    bool use_mirrored = false;
    bool empty() const { return !use_mirrored && rows.rows == 0; }
};

// (n: the codes to look up)
MINIFLOAT_BYTE_LOOKUP_AVX2 inline ByteLookup load_lookup(const uint8_t* table, bool skip_zero_rows, size_t n) {
    ByteLookup t;
    t.rows = load_rows(table, skip_zero_rows);
    const int rows_cost = t.rows.rows == 16 ? 35 : 4 * t.rows.rows;
    if (n < kMirrorWorthIt || rows_cost <= 26) return t;
    t.mirrored = load_mirrored_rows(table);
    t.use_mirrored = t.mirrored.usable && 26 + 2 * t.mirrored.exceptions < rows_cost;
    return t;
}

MINIFLOAT_BYTE_LOOKUP_AVX2 inline __m256i lookup32(const ByteLookup& t, __m256i index) {
    return t.use_mirrored ? lookup32_mirrored(t.mirrored, index) : lookup32(t.rows, index);
}

}  // namespace minifloat
