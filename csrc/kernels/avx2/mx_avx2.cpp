#include "mx_avx2.h"

#include "mx_scaling.h"

#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#include "avx2_pack.h"

namespace minifloat {

namespace {

#define MINIFLOAT_AVX2_MX __attribute__((target("avx2")))

// 8 vectors of partial maxima -> one vector of their 8 maxima, in order:
// 128-bit halves, then 64-bit pairs, then dword pairs, each step halving
// the partials per block; the last permute undoes the half interleave.
MINIFLOAT_AVX2_MX inline __m256i reduce8_max(const __m256i m[8]) {
    __m256i y[4], z[2];
    for (int k = 0; k < 4; k++) {  // half L of y[k]: block 2k + L
        y[k] = _mm256_max_epu32(_mm256_permute2x128_si256(m[2 * k], m[2 * k + 1], 0x20),
                                _mm256_permute2x128_si256(m[2 * k], m[2 * k + 1], 0x31));
    }
    for (int k = 0; k < 2; k++) {  // half L of z[k]: blocks 4k + L (dwords 0-1), 4k + 2 + L (dwords 2-3)
        z[k] = _mm256_max_epu32(_mm256_unpacklo_epi64(y[2 * k], y[2 * k + 1]),
                                _mm256_unpackhi_epi64(y[2 * k], y[2 * k + 1]));
    }
    const __m256 z0 = _mm256_castsi256_ps(z[0]), z1 = _mm256_castsi256_ps(z[1]);
    // half L: blocks L, 2 + L, 4 + L, 6 + L
    const __m256i w = _mm256_max_epu32(_mm256_castps_si256(_mm256_shuffle_ps(z0, z1, 0x88)),
                                       _mm256_castps_si256(_mm256_shuffle_ps(z0, z1, 0xDD)));
    return _mm256_permutevar8x32_epi32(w, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

template <size_t Block>
MINIFLOAT_AVX2_MX size_t maxima_groups(const float* in, size_t blocks, uint32_t* maxima) {
    const __m256i abs_mask = _mm256_set1_epi32(0x7FFFFFFF);
    size_t done = 0;
    for (; done + 8 <= blocks; done += 8) {
        __m256i m[8];
        for (int j = 0; j < 8; j++) {
            const float* block = in + (done + j) * Block;
            m[j] = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block)), abs_mask);
            for (size_t i = 8; i < Block; i += 8) {
                m[j] = _mm256_max_epu32(
                    m[j], _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + i)), abs_mask));
            }
        }
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(maxima + done), reduce8_max(m));
    }
    return done;
}


// One block's rounding boundaries (scale * m, exact in float32), each as
// "greater than" one: a boundary where ties go up (0.75, 1.75, 3.5, to the
// even codes) is replaced by the float32 just below it.
struct Fp4Bounds {
    __m256 all, middle, quarter, three_quarters;  // all 7 (lane k: boundary k), and 3, 1, 5 broadcast
};

MINIFLOAT_AVX2_MX inline Fp4Bounds fp4_bounds(float scale) {
    const __m256 exact = _mm256_mul_ps(_mm256_loadu_ps(kFp4Midpoints), _mm256_set1_ps(scale));
    Fp4Bounds b;
    b.all = _mm256_castsi256_ps(
        _mm256_sub_epi32(_mm256_castps_si256(exact), _mm256_setr_epi32(0, 1, 0, 1, 0, 1, 0, 0)));
    b.middle = _mm256_permutevar8x32_ps(b.all, _mm256_set1_epi32(3));
    b.quarter = _mm256_permutevar8x32_ps(b.all, _mm256_set1_epi32(1));
    b.three_quarters = _mm256_permutevar8x32_ps(b.all, _mm256_set1_epi32(5));
    return b;
}

// float4_e2m1fn codes (dwords) of 8 floats: the number of boundaries each
// magnitude passes, found by binary search (bit 2, then 1, then 0; NaN
// passes none); bit 3 the sign.
MINIFLOAT_AVX2_MX inline __m256i fp4_codes8(__m256i bits, const Fp4Bounds& b) {
    const __m256 a = _mm256_castsi256_ps(_mm256_and_si256(bits, _mm256_set1_epi32(0x7FFFFFFF)));
    const __m256 upper = _mm256_cmp_ps(a, b.middle, _CMP_GT_OQ);
    const __m256 second = _mm256_blendv_ps(b.quarter, b.three_quarters, upper);
    __m256i index = _mm256_and_si256(_mm256_castps_si256(upper), _mm256_set1_epi32(4));
    const __m256 above_second = _mm256_cmp_ps(a, second, _CMP_GT_OQ);
    index = _mm256_or_si256(index, _mm256_and_si256(_mm256_castps_si256(above_second), _mm256_set1_epi32(2)));
    const __m256 last = _mm256_permutevar8x32_ps(b.all, index);
    // a passed compare is all ones: subtracting it counts one
    const __m256i magnitude = _mm256_sub_epi32(index, _mm256_castps_si256(_mm256_cmp_ps(a, last, _CMP_GT_OQ)));
    return _mm256_or_si256(magnitude, _mm256_and_si256(_mm256_srli_epi32(bits, 28), _mm256_set1_epi32(8)));
}

// The 16 codes of one block of 16 as two vectors of dwords.
MINIFLOAT_AVX2_MX inline void fp4_block(const float* in, double scale, __m256i& low, __m256i& high) {
    if (scale == 0.0) {
        low = high = _mm256_setzero_si256();
        return;
    }
    const Fp4Bounds bounds = fp4_bounds(static_cast<float>(scale));
    low = fp4_codes8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in)), bounds);
    high = fp4_codes8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + 8)), bounds);
}

MINIFLOAT_AVX2_MX size_t fp4_pairs(const float* in, size_t count, const double* block_scales, uint8_t* out) {
    size_t done = 0;
    for (size_t b = 0; done + 32 <= count; done += 32, b += 2) {
        __m256i c[4];
        fp4_block(in + done, block_scales[b], c[0], c[1]);
        fp4_block(in + done + 16, block_scales[b + 1], c[2], c[3]);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + done), pack32_bytes(c[0], c[1], c[2], c[3]));
    }
    return done;
}

}  // namespace

size_t largest_magnitudes_avx2(const float* in, size_t blocks, size_t block, uint32_t* maxima) {
    if (!avx2_usable()) return 0;
    if (block == 32) return maxima_groups<32>(in, blocks, maxima);
    if (block == 16) return maxima_groups<16>(in, blocks, maxima);
    return 0;
}

size_t fp4_block_pairs_avx2(const float* in, size_t count, const double* block_scales, uint8_t* out) {
    if (!avx2_usable()) return 0;
    return fp4_pairs(in, count, block_scales, out);
}

}  // namespace minifloat

#else

namespace minifloat {
size_t largest_magnitudes_avx2(const float*, size_t, size_t, uint32_t*) { return 0; }
size_t fp4_block_pairs_avx2(const float*, size_t, const double*, uint8_t*) { return 0; }
}  // namespace minifloat

#endif
