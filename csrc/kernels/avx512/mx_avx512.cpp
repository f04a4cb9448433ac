#include "mx_avx512.h"

#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#include "avx512_intrinsics.h"
#include "partial_vectors.h"

namespace minifloat {

namespace {

#define MINIFLOAT_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))

// 16 vectors of partial maxima -> one vector of their 16 maxima, in order:
// halves, then quarters of 128-bit lanes swapped between neighbours, so
// every step halves the vectors and the partials per block.
MINIFLOAT_AVX512 inline __m512i reduce16_max(__m512i m[16]) {
    __m512i y[8], z[4], w[2];
    for (int k = 0; k < 8; k++) {
        y[k] = _mm512_max_epu32(_mm512_shuffle_i32x4(m[2 * k], m[2 * k + 1], 0x44),
                                _mm512_shuffle_i32x4(m[2 * k], m[2 * k + 1], 0xEE));
    }
    for (int k = 0; k < 4; k++) {  // 128-bit lane L of z[k]: block 4k + L
        z[k] = _mm512_max_epu32(_mm512_shuffle_i32x4(y[2 * k], y[2 * k + 1], 0x88),
                                _mm512_shuffle_i32x4(y[2 * k], y[2 * k + 1], 0xDD));
    }
    for (int k = 0; k < 2; k++) {
        w[k] = _mm512_max_epu32(_mm512_unpacklo_epi32(z[2 * k], z[2 * k + 1]),
                                _mm512_unpackhi_epi32(z[2 * k], z[2 * k + 1]));
    }
    // dword 4L + i now holds block 4i + L
    const __m512i r = _mm512_max_epu32(_mm512_unpacklo_epi64(w[0], w[1]), _mm512_unpackhi_epi64(w[0], w[1]));
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    return _mm512_permutexvar_epi32(order, r);
}

// Shared exponents of 16 blocks from their largest magnitudes (positive
// normal floats; the caller redoes other lanes with the scalar rule).
MINIFLOAT_AVX512 inline __m512i shared_exponents16(__m512i amax, const MxElement& e, ScaleMode mode) {
    const __m512i exponent = _mm512_sub_epi32(_mm512_srli_epi32(amax, 23), _mm512_set1_epi32(127));
    const __m512i fraction = _mm512_and_si512(amax, _mm512_set1_epi32(0x007FFFFF));
    const __m512i one = _mm512_set1_epi32(1);
    __m512i result = _mm512_sub_epi32(exponent, _mm512_set1_epi32(e.emax));
    switch (mode) {
        case ScaleMode::floor:
            break;
        case ScaleMode::ceil:
            result = _mm512_mask_add_epi32(result, _mm512_test_epi32_mask(fraction, fraction), result, one);
            break;
        case ScaleMode::even: {
            // rounding the fraction to significand_bits - 1 bits carries past bit 23
            const int dropped = 23 - (e.significand_bits - 1);
            const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(fraction, dropped), one);
            const __m512i rounded = _mm512_add_epi32(
                _mm512_add_epi32(fraction, _mm512_set1_epi32(static_cast<int>((1u << (dropped - 1)) - 1u))), lsb);
            result = _mm512_add_epi32(result, _mm512_srli_epi32(rounded, 23));
            break;
        }
        case ScaleMode::rceil: {
            const int max_exponent = static_cast<int>(e.max_bits >> 23) - 127;
            const __m512i max_fraction = _mm512_set1_epi32(static_cast<int>(e.max_bits & 0x007FFFFFu));
            result = _mm512_sub_epi32(exponent, _mm512_set1_epi32(max_exponent));
            result = _mm512_mask_add_epi32(result, _mm512_cmpgt_epu32_mask(fraction, max_fraction), result, one);
            break;
        }
    }
    return _mm512_min_epi32(_mm512_max_epi32(result, _mm512_set1_epi32(-127)), _mm512_set1_epi32(127));
}

// The largest magnitudes of 16 consecutive blocks.
template <size_t Block>
MINIFLOAT_AVX512 inline __m512i group_maxima(const float* group) {
    const __m512i abs_mask = _mm512_set1_epi32(0x7FFFFFFF);
    __m512i m[16];
    for (int j = 0; j < 16; j++) {
        m[j] = _mm512_and_si512(_mm512_loadu_si512(group + j * Block), abs_mask);
        if constexpr (Block == 32) {
            m[j] = _mm512_max_epu32(m[j], _mm512_and_si512(_mm512_loadu_si512(group + j * Block + 16), abs_mask));
        }
    }
    return reduce16_max(m);
}

template <size_t Block>
MINIFLOAT_AVX512 size_t maxima_groups(const float* in, size_t blocks, uint32_t* maxima) {
    size_t done = 0;
    for (; done + 16 <= blocks; done += 16) {
        _mm512_storeu_si512(maxima + done, group_maxima<Block>(in + done * Block));
    }
    return done;
}

template <size_t Block>
MINIFLOAT_AVX512 size_t scale_groups(const float* in, size_t blocks, const MxElement& e, ScaleMode mode,
                                     float* scaled, uint8_t* scales, uint8_t* non_finite) {
    const __m512 unit = _mm512_set1_ps(e.plan == nullptr ? 64.0f : 1.0f);
    const __m512 limit = _mm512_set1_ps(element_limit(e));
    const __m512 negative_limit = _mm512_set1_ps(-element_limit(e));
    size_t done = 0;
    for (; done + 16 <= blocks; done += 16) {
        const float* group = in + done * Block;
        const __m512i amax = group_maxima<Block>(group);
        __m512i exponent = shared_exponents16(amax, e, mode);
        // lanes the vector rule does not cover: zero blocks (2^-127),
        // subnormal maxima (scalar rule), inf/NaN blocks (scale NaN)
        const __mmask16 non_normal = _mm512_cmplt_epu32_mask(amax, _mm512_set1_epi32(0x00800000));
        const __mmask16 bad = _mm512_cmpge_epu32_mask(amax, _mm512_set1_epi32(0x7F800000));
        if (non_normal != 0) {
            alignas(64) int32_t lanes[16];
            alignas(64) uint32_t maxima[16];
            _mm512_store_si512(lanes, exponent);
            _mm512_store_si512(maxima, amax);
            for (int j = 0; j < 16; j++) {
                if ((non_normal >> j) & 1) lanes[j] = maxima[j] == 0 ? -127 : shared_exponent(maxima[j], e, mode);
            }
            exponent = _mm512_load_si512(lanes);
        }
        exponent = _mm512_mask_mov_epi32(exponent, bad, _mm512_setzero_si512());  // any factor; filled later
        const __m512i codes = _mm512_mask_mov_epi32(_mm512_add_epi32(exponent, _mm512_set1_epi32(127)), bad,
                                                    _mm512_set1_epi32(0xFF));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(scales + done), _mm512_cvtepi32_epi8(codes));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(non_finite + done),
                         _mm_maskz_mov_epi8(bad, _mm_set1_epi8(1)));
        // 2^-E: the exponent field 127 - E, or the subnormal 2^-127
        const __m512i factor_bits = _mm512_mask_mov_epi32(
            _mm512_slli_epi32(_mm512_sub_epi32(_mm512_set1_epi32(127), exponent), 23),
            _mm512_cmpeq_epi32_mask(exponent, _mm512_set1_epi32(127)), _mm512_set1_epi32(0x00400000));
        float* out = scaled + done * Block;
        for (int j = 0; j < 16; j++) {
            const __m512 factor = _mm512_castsi512_ps(_mm512_permutexvar_epi32(_mm512_set1_epi32(j), factor_bits));
            for (size_t h = 0; h < Block; h += 16) {
                const __m512 v = _mm512_mul_ps(_mm512_mul_ps(_mm512_loadu_ps(group + j * Block + h), factor), unit);
                _mm512_storeu_ps(out + j * Block + h, _mm512_min_ps(_mm512_max_ps(v, negative_limit), limit));
            }
        }
    }
    return done;
}

// The constants of the FP4 element search.
struct Fp4Search {
    __m512 midpoints;  // kFp4Midpoints in lanes 0-7 and again in 8-15
    __m512i ties_up;   // 1 where a boundary's tie goes up (0.75, 1.75, 3.5)
    __m512i lane3, one, two, four, eight, abs_mask;
};

MINIFLOAT_AVX512 inline Fp4Search fp4_search() {
    Fp4Search f;
    const __m512 low = _mm512_maskz_loadu_ps(0xFF, kFp4Midpoints);
    f.midpoints = _mm512_shuffle_f32x4(low, low, 0x44);
    f.ties_up = _mm512_setr_epi32(0, 1, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0);
    f.lane3 = _mm512_set1_epi32(3);
    f.one = _mm512_set1_epi32(1);
    f.two = _mm512_set1_epi32(2);
    f.four = _mm512_set1_epi32(4);
    f.eight = _mm512_set1_epi32(8);
    f.abs_mask = _mm512_set1_epi32(0x7FFFFFFF);
    return f;
}

// A block's boundaries from its scale s broadcast: the products m * s
// (exact in float32) in lanes 0-6 and again in 8-14, those where ties go up
// (to the even codes) replaced by the float32 just below, so every compare
// is a strict one.
MINIFLOAT_AVX512 inline __m512 fp4_strict_bounds(const Fp4Search& f, __m512 scale) {
    return _mm512_castsi512_ps(_mm512_sub_epi32(_mm512_castps_si512(_mm512_mul_ps(f.midpoints, scale)), f.ties_up));
}

// The same from a float64 scale (NVFP4 with a tensor scale: s t has up to
// 28 significant bits, so m * s * t is exact in float64, not in float32):
// each product rounded to float32 in the direction that keeps the strict
// float32 compare exact for float32 inputs a: a > b iff a > b rounded down;
// a >= b (ties up) iff a > (b rounded up) less one ulp. (Compared in
// float64 before, 8 lanes and 7 compares per 8 values: twice the time.)
MINIFLOAT_AVX512 inline __m512 fp4_strict_bounds(const Fp4Search& f, double scale) {
    const __m512d products = _mm512_mul_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(f.midpoints)), _mm512_set1_pd(scale));
    const __m256 down = _mm512_cvt_roundpd_ps(products, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    const __m256i up = _mm256_castps_si256(_mm512_cvt_roundpd_ps(products, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC));
    const __m256 below_up = _mm256_castsi256_ps(_mm256_sub_epi32(up, _mm256_set1_epi32(1)));
    const __m512 bounds = _mm512_castps256_ps512(_mm256_mask_blend_ps(0x2A, down, below_up));  // ties up: lanes 1, 3, 5
    return _mm512_shuffle_f32x4(bounds, bounds, 0x44);
}

// float4_e2m1fn codes of the 16 floats of one block by binary search over
// its boundaries `bounds` (fp4_strict_bounds): bit 2 of the magnitude code,
// then bit 1, then bit 0, each from one compare with the boundary its lane
// has reached (NaN passes none). The sign (bit 3) is set first and carried
// through: the bounds repeat in lanes 8-15, so an index with bit 3 set
// picks the same boundary.
MINIFLOAT_AVX512 inline __m512i fp4_codes16(const Fp4Search& f, __m512i bits, __m512 bounds) {
    const __m512 a = _mm512_castsi512_ps(_mm512_and_si512(bits, f.abs_mask));
    const __m512i sign = _mm512_maskz_mov_epi32(_mm512_cmplt_epi32_mask(bits, _mm512_setzero_si512()), f.eight);
    const __mmask16 upper = _mm512_cmp_ps_mask(a, _mm512_permutexvar_ps(f.lane3, bounds), _CMP_GT_OQ);
    const __m512i high = _mm512_mask_or_epi32(sign, upper, sign, f.four);
    const __mmask16 above_second =
        _mm512_cmp_ps_mask(a, _mm512_permutexvar_ps(_mm512_or_si512(high, f.one), bounds), _CMP_GT_OQ);
    const __m512i index = _mm512_mask_or_epi32(high, above_second, high, f.two);
    const __mmask16 above_last = _mm512_cmp_ps_mask(a, _mm512_permutexvar_ps(index, bounds), _CMP_GT_OQ);
    return _mm512_mask_add_epi32(index, above_last, index, f.one);
}

// 64 codes (one per dword of c0..c3, in order) as 64 bytes: the packs work
// per 128-bit lane, a dword permute puts the lanes back in order.
MINIFLOAT_AVX512 inline __m512i pack64_codes(__m512i c0, __m512i c1, __m512i c2, __m512i c3) {
    const __m512i bytes = _mm512_packus_epi16(_mm512_packus_epi32(c0, c1), _mm512_packus_epi32(c2, c3));
    return _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), bytes);
}

// Blocks of 16, 16 blocks at a time: four blocks' codes stored as one
// 64-byte vector. Float32Scales (NVFP4's default, no tensor scale): the
// scales of 16 blocks converted in one step, each broadcast from its lane;
// else each block's boundaries from its float64 scale. Returns the number
// of blocks done.
template <bool Float32Scales>
MINIFLOAT_AVX512 size_t fp4_groups16(const float* in, size_t blocks, const double* block_scales, uint8_t* out) {
    const Fp4Search f = fp4_search();
    size_t done = 0;
    for (; done + 16 <= blocks; done += 16) {
        const __m512d low = _mm512_loadu_pd(block_scales + done), high = _mm512_loadu_pd(block_scales + done + 8);
        const __m512 scales = _mm512_castpd_ps(_mm512_insertf64x4(
            _mm512_castps_pd(_mm512_castps256_ps512(_mm512_cvtpd_ps(low))), _mm256_castps_pd(_mm512_cvtpd_ps(high)), 1));
        // a block of scale 0 (all its values zero or tiny) is all +0 codes
        const __mmask16 used = static_cast<__mmask16>(_mm512_cmpneq_pd_mask(low, _mm512_setzero_pd()) |
                                                      _mm512_cmpneq_pd_mask(high, _mm512_setzero_pd()) << 8);
        for (int j = 0; j < 16; j += 4) {
            __m512i code[4];
            for (int q = 0; q < 4; q++) {
                const size_t start = (done + j + q) * 16;
                __m512 bounds;
                if constexpr (Float32Scales) {
                    bounds = fp4_strict_bounds(f, _mm512_permutexvar_ps(_mm512_set1_epi32(j + q), scales));
                } else {
                    bounds = fp4_strict_bounds(f, block_scales[done + j + q]);
                }
                code[q] = _mm512_maskz_mov_epi32(static_cast<__mmask16>(((used >> (j + q)) & 1) ? 0xFFFF : 0),
                                                 fp4_codes16(f, _mm512_loadu_si512(in + start), bounds));
            }
            _mm512_storeu_si512(out + (done + j) * 16, pack64_codes(code[0], code[1], code[2], code[3]));
        }
    }
    return done;
}

MINIFLOAT_AVX512 void fp4_blocks(const float* in, size_t count, size_t block, const double* block_scales,
                                 bool float32_boundaries, uint8_t* out) {
    size_t b = 0;
    if (block == 16) {
        b = float32_boundaries ? fp4_groups16<true>(in, count / 16, block_scales, out)
                               : fp4_groups16<false>(in, count / 16, block_scales, out);
    }
    for (size_t start = b * block; start < count; start += block, b++) {
        const size_t length = count - start < block ? count - start : block;
        const double s = block_scales[b];
        if (s == 0.0) {
            __builtin_memset(out + start, 0, length);
            continue;
        }
        const Fp4Search f = fp4_search();
        const __m512 bounds =
            float32_boundaries ? fp4_strict_bounds(f, _mm512_set1_ps(static_cast<float>(s))) : fp4_strict_bounds(f, s);
        for (size_t i = 0; i < length; i += 16) {
            const __mmask16 lanes = length - i >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << (length - i)) - 1u);
            const __m512i code = fp4_codes16(f, load_epi32(in + start + i, lanes), bounds);
            store_epi32_as_epi8(out + start + i, lanes, code);
        }
    }
}

}  // namespace

size_t mx_scale_blocks_avx512(const float* in, size_t blocks, size_t block, const MxElement& e, ScaleMode mode,
                              float* scaled, uint8_t* scales, uint8_t* non_finite) {
    if (!avx512_bw_usable()) return 0;
    if (block == 32) return scale_groups<32>(in, blocks, e, mode, scaled, scales, non_finite);
    if (block == 16) return scale_groups<16>(in, blocks, e, mode, scaled, scales, non_finite);
    return 0;
}

size_t largest_magnitudes_avx512(const float* in, size_t blocks, size_t block, uint32_t* maxima) {
    if (!avx512_bw_usable()) return 0;
    if (block == 32) return maxima_groups<32>(in, blocks, maxima);
    if (block == 16) return maxima_groups<16>(in, blocks, maxima);
    return 0;
}

bool fp4_blocks_avx512(const float* in, size_t count, size_t block, const double* block_scales,
                       bool float32_boundaries, uint8_t* out) {
    if (!avx512_bw_usable()) return false;
    fp4_blocks(in, count, block, block_scales, float32_boundaries, out);
    return true;
}

}  // namespace minifloat

#else

namespace minifloat {
size_t mx_scale_blocks_avx512(const float*, size_t, size_t, const MxElement&, ScaleMode, float*, uint8_t*, uint8_t*) {
    return 0;
}
size_t largest_magnitudes_avx512(const float*, size_t, size_t, uint32_t*) { return 0; }
bool fp4_blocks_avx512(const float*, size_t, size_t, const double*, bool, uint8_t*) { return false; }
}  // namespace minifloat

#endif
