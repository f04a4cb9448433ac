#include "complex_arith.h"

#include "fp_status.h"
#include "simd_dispatch.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define MINIFLOAT_COMPLEX_ARITH_X86 1
#else
#define MINIFLOAT_COMPLEX_ARITH_X86 0
#endif

namespace minifloat {

MINIFLOAT_SIMD_CLONES
void complex_add_f32(const float* a, const float* b, float* out, size_t n) {
    for (size_t i = 0; i < 2 * n; i++) out[i] = a[i] + b[i];
}

MINIFLOAT_SIMD_CLONES
void complex_subtract_f32(const float* a, const float* b, float* out, size_t n) {
    for (size_t i = 0; i < 2 * n; i++) out[i] = a[i] - b[i];
}

MINIFLOAT_SIMD_CLONES
void complex_multiply_f64(const float* a, const float* b, double* out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const double ar = a[2 * i], ai = a[2 * i + 1], br = b[2 * i], bi = b[2 * i + 1];
        out[2 * i] = ar * br - ai * bi;
        out[2 * i + 1] = ar * bi + ai * br;
    }
}

MINIFLOAT_SIMD_CLONES
void complex_add_scalar_f32(const float* a, const float b[2], float* out, size_t n) {
    const float br = b[0], bi = b[1];
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = a[2 * i] + br;
        out[2 * i + 1] = a[2 * i + 1] + bi;
    }
}

#if MINIFLOAT_COMPLEX_ARITH_X86
namespace {

bool have_f16c_fma() {
    static const bool have = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                             __builtin_cpu_supports("f16c");
    return have;
}

// Two complex products in binary64 (exact products; the sum rounded once, as
// complex128 computes it), narrowed to binary32 rounded to odd.
__attribute__((target("avx2,fma,f16c")))
inline __m128 two_products_to_odd(__m128 x, __m128 y) {
    const __m256d xd = _mm256_cvtps_pd(x);  // ar0 ai0 ar1 ai1
    const __m256d yd = _mm256_cvtps_pd(y);
    const __m256d p = _mm256_mul_pd(_mm256_movedup_pd(xd), yd);                               // ar br, ar bi
    const __m256d q = _mm256_mul_pd(_mm256_permute_pd(xd, 0xF), _mm256_permute_pd(yd, 0x5));  // ai bi, ai br
    const __m256d r = _mm256_addsub_pd(p, q);  // ar br - ai bi, ar bi + ai br
    const __m128 f = _mm256_cvtpd_ps(r);
    const __m256d back = _mm256_cvtps_pd(f);
    const __m256d magnitude = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFF));
    const __m256d inexact = _mm256_cmp_pd(back, r, _CMP_NEQ_OQ);
    const __m256d past = _mm256_and_pd(
        inexact, _mm256_cmp_pd(_mm256_and_pd(back, magnitude), _mm256_and_pd(r, magnitude), _CMP_GT_OQ));
    const __m256i low_halves = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    const __m128i inexact32 =
        _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(inexact), low_halves));
    const __m128i past32 = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(past), low_halves));
    // one step back toward zero where the rounding went past, then the last bit set where inexact
    return _mm_castsi128_ps(_mm_or_si128(_mm_add_epi32(_mm_castps_si128(f), past32),
                                         _mm_and_si128(inexact32, _mm_set1_epi32(1))));
}

__attribute__((target("avx2,fma,f16c")))
size_t complex32_multiply_avx2(const uint16_t* a, const uint16_t* b, uint16_t* out, size_t n, uint32_t* flags) {
    const __m128i magnitude16 = _mm_set1_epi16(0x7FFF);
    const __m128i below_inf16 = _mm_set1_epi16(0x7BFF);
    const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    const __m256 overflow_from = _mm256_set1_ps(65520.0f);  // rounds to inf in float16
    __m256 overflow = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const __m128i ha = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + 2 * i));
        const __m128i hb = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 2 * i));
        const __m128i special = _mm_or_si128(_mm_cmpgt_epi16(_mm_and_si128(ha, magnitude16), below_inf16),
                                             _mm_cmpgt_epi16(_mm_and_si128(hb, magnitude16), below_inf16));
        if (!_mm_testz_si128(special, special)) break;
        const __m256 x = _mm256_cvtph_ps(ha);
        const __m256 y = _mm256_cvtph_ps(hb);
        const __m128 low = two_products_to_odd(_mm256_castps256_ps128(x), _mm256_castps256_ps128(y));
        const __m128 high = two_products_to_odd(_mm256_extractf128_ps(x, 1), _mm256_extractf128_ps(y, 1));
        const __m256 r = _mm256_set_m128(high, low);
        overflow = _mm256_or_ps(overflow, _mm256_cmp_ps(_mm256_and_ps(r, magnitude), overflow_from, _CMP_GE_OQ));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * i), _mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT));
    }
    if (_mm256_movemask_ps(overflow) != 0) *flags |= kFlagOverflow;
    return i;
}

}  // namespace
#endif

size_t complex32_multiply_codes(const uint16_t* a, const uint16_t* b, uint16_t* out, size_t n, uint32_t* flags) {
#if MINIFLOAT_COMPLEX_ARITH_X86
    if (have_f16c_fma()) return complex32_multiply_avx2(a, b, out, n, flags);
#endif
    (void)a;
    (void)b;
    (void)out;
    (void)n;
    (void)flags;
    return 0;
}

}  // namespace minifloat
