// Mirrors complex_arith_avx512.cpp step for step in 256-bit registers with
// vector masks instead of mask registers: the two stay apart, as the codec_*
// pair does, because every step is a different instruction.
#include "complex_arith_avx2.h"

#include "fp_status.h"
#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#include <immintrin.h>

#include "avx2_lanes.h"

#define MINIFLOAT_AVX2_COMPLEX __attribute__((target("avx2,fma,f16c")))

namespace minifloat {

namespace {

// 8 part codes (4 elements) as binary32, exactly.
template <PartFormat F>
MINIFLOAT_AVX2_COMPLEX inline __m256 parts_f32(const uint16_t* p) {
    const __m128i codes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    if constexpr (F == PartFormat::float16) {
        return _mm256_cvtph_ps(codes);
    } else {
        static_assert(F == PartFormat::bfloat16);
        return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(codes), 16));
    }
}

// Two elements in binary64: ar*br - ai*bi and ar*bi + ai*br, each rounded
// once from the exact value (the products of parts are exact).
MINIFLOAT_AVX2_COMPLEX inline __m256d multiply2(__m256d a, __m256d b) {
    const __m256d imaginary_products = _mm256_mul_pd(_mm256_permute_pd(a, 0xF), _mm256_permute_pd(b, 0x5));
    return _mm256_fmaddsub_pd(_mm256_movedup_pd(a), b, imaginary_products);
}

// binary64 -> binary32 rounded to odd: rounded to nearest, one step back
// toward zero where that went away from zero, the last bit set when
// anything was dropped (no NaN here).
MINIFLOAT_AVX2_COMPLEX inline __m128 narrow_to_odd(__m256d x) {
    const __m256d magnitude = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFF));
    const __m128 f = _mm256_cvtpd_ps(x);
    const __m256d back = _mm256_cvtps_pd(f);
    const __m256d inexact = _mm256_cmp_pd(back, x, _CMP_NEQ_OQ);
    const __m256d away = _mm256_and_pd(
        inexact, _mm256_cmp_pd(_mm256_and_pd(back, magnitude), _mm256_and_pd(x, magnitude), _CMP_GT_OQ));
    // the 64-bit masks as 32-bit ones: their low halves
    const __m256i low_halves = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    const __m128i inexact32 =
        _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(inexact), low_halves));
    const __m128i away32 = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(away), low_halves));
    const __m128i bits = _mm_or_si128(_mm_add_epi32(_mm_castps_si128(f), away32),
                                      _mm_and_si128(inexact32, _mm_set1_epi32(1)));
    return _mm_castsi128_ps(bits);
}

// The binary32 bits from which round to nearest even gives inf (see
// complex_arith_avx512.cpp).
template <PartFormat F>
constexpr int32_t kFirstOverflowBits = F == PartFormat::float16 ? 0x477FF000 : 0x7F7F8000;

// 8 binary32 values (none NaN) to part codes, rounded to nearest even.
template <PartFormat F>
MINIFLOAT_AVX2_COMPLEX inline __m128i encode_parts(__m256 v) {
    if constexpr (F == PartFormat::float16) {
        return _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT);
    } else {
        static_assert(F == PartFormat::bfloat16);
        // as complex_arith_avx512.cpp: the carry of 0x7FFF plus the kept
        // half's lowest bit is round to nearest even
        const __m256i bits = _mm256_castps_si256(v);
        const __m256i rounded = _mm256_add_epi32(
            bits, _mm256_add_epi32(_mm256_set1_epi32(0x7FFF),
                                   _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1))));
        const __m256i high = _mm256_srli_epi32(rounded, 16);
        return _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packus_epi32(high, high), 0x08));
    }
}

MINIFLOAT_AVX2_COMPLEX inline __m256i magnitude_bits(__m256 v) {
    return _mm256_and_si256(_mm256_castps_si256(v), _mm256_set1_epi32(0x7FFFFFFF));
}

// Lanes (all ones) of v (binary32, no NaN) that round to inf in the part.
template <PartFormat F>
MINIFLOAT_AVX2_COMPLEX inline __m256i rounds_to_inf(__m256 v) {
    return _mm256_cmpgt_epi32(magnitude_bits(v), _mm256_set1_epi32(kFirstOverflowBits<F> - 1));
}

MINIFLOAT_AVX2_COMPLEX inline __m256i finite_lanes(__m256 v) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(0x7F800000), magnitude_bits(v));
}

// Four elements at a time: block(x, y, r, overflow) computes the binary32
// results r (false: this block has a NaN result, which the general loop
// does), then the parts are rounded and stored.
template <PartFormat F, class Block>
MINIFLOAT_AVX2_COMPLEX inline size_t blocks_of_four(const uint16_t* a, const uint16_t* b, uint16_t* out, size_t n,
                                                    uint32_t& flags, Block&& block) {
    __m256i overflow = _mm256_setzero_si256();
    // one block at `at`; false (nothing stored) where it needs the general loop
    const auto one = [&](size_t at) MINIFLOAT_AVX2_COMPLEX MINIFLOAT_LAMBDA_INLINE {
        __m256 r;
        if (!block(parts_f32<F>(a + 2 * at), parts_f32<F>(b + 2 * at), r, overflow)) return false;
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * at), encode_parts<F>(r));
        return true;
    };
    size_t i = 0;
    // two blocks a pass, the sources asked for ahead (kComplexPrefetchBytes)
    for (; i + 8 <= n; i += 8) {
        __builtin_prefetch(reinterpret_cast<const char*>(a + 2 * i) + kComplexPrefetchBytes, 0, 3);
        __builtin_prefetch(reinterpret_cast<const char*>(b + 2 * i) + kComplexPrefetchBytes, 0, 3);
        if (!one(i)) break;
        if (!one(i + 4)) {
            i += 4;
            break;
        }
    }
    while (i + 4 <= n && one(i)) i += 4;  // (after a break: retries that block once, and stops)
    if (!_mm256_testz_si256(overflow, overflow)) flags |= kFlagOverflow;
    return i;
}

// + and -: binary32, then the part (see complex_arith.h).
template <PartFormat F, bool Subtract>
MINIFLOAT_AVX2_COMPLEX size_t add_loop(const uint16_t* a, const uint16_t* b, uint16_t* out, size_t n,
                                       uint32_t& flags) {
    return blocks_of_four<F>(
        a, b, out, n, flags,
        [](__m256 x, __m256 y, __m256& r, __m256i& overflow) MINIFLOAT_AVX2_COMPLEX MINIFLOAT_LAMBDA_INLINE {
            r = Subtract ? _mm256_sub_ps(x, y) : _mm256_add_ps(x, y);
            // NaN's bits are past the overflow bound too: one test for the
            // common block, the rare one sorted out here
            const __m256i big = rounds_to_inf<F>(r);
            if (any_lane(big)) {
                if (_mm256_movemask_ps(_mm256_cmp_ps(r, r, _CMP_UNORD_Q)) != 0) return false;
                const __m256i finite = _mm256_and_si256(finite_lanes(x), finite_lanes(y));
                overflow = _mm256_or_si256(overflow, _mm256_and_si256(big, finite));
            }
            return true;
        });
}

// Four elements in binary64, rounded to odd on binary32 (see
// complex_arith_avx512.cpp). False when a result part is NaN.
template <PartFormat F>
MINIFLOAT_AVX2_COMPLEX inline bool multiply4_f64(__m256 x, __m256 y, __m256& result, __m256i& overflow) {
    const __m256d low = multiply2(_mm256_cvtps_pd(_mm256_castps256_ps128(x)), _mm256_cvtps_pd(_mm256_castps256_ps128(y)));
    const __m256d high = multiply2(_mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)), _mm256_cvtps_pd(_mm256_extractf128_ps(y, 1)));
    const __m256d nan = _mm256_or_pd(_mm256_cmp_pd(low, low, _CMP_UNORD_Q), _mm256_cmp_pd(high, high, _CMP_UNORD_Q));
    if (_mm256_movemask_pd(nan) != 0) return false;
    result = _mm256_insertf128_ps(_mm256_castps128_ps256(narrow_to_odd(low)), narrow_to_odd(high), 1);
    // (an infinite part comes from an infinite operand: no flag)
    overflow = _mm256_or_si256(overflow, _mm256_and_si256(rounds_to_inf<F>(result), finite_lanes(result)));
    return true;
}

// ar*br - ai*bi and ar*bi + ai*br of four elements of float16 parts in
// binary32: the products are exact, so one fused step rounds their sum as
// adding the two rounded products does.
MINIFLOAT_AVX2_COMPLEX inline __m256 product_sums(__m256 x, __m256 y, __m256& cross) {
    cross = _mm256_mul_ps(_mm256_movehdup_ps(x), _mm256_permute_ps(y, 0xB1));  // ai*bi  ai*br
    return _mm256_fmaddsub_ps(_mm256_moveldup_ps(x), y, cross);
}

// Lanes of s whose last 12 bits are zero: those may be a float16 midpoint
// reached inexactly, or not finite.
MINIFLOAT_AVX2_COMPLEX inline __m256i on_coarse_grid(__m256 s) {
    return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_castps_si256(s), _mm256_set1_epi32(0xFFF)),
                              _mm256_setzero_si256());
}

// Four elements of float16 parts in binary32: the exact products' sum
// rounded once to binary32, unless a lane lands on a float16 midpoint
// inexactly (or is not finite): then the binary64 way. Why that is exact:
// complex_arith_avx512.cpp's multiply8_f32.
// Overflow needs no test here: the conversion to float16 raises the flag
// (as complex_arith_avx512.cpp).
MINIFLOAT_AVX2_COMPLEX inline bool multiply4_f32(__m256 x, __m256 y, __m256& result) {
    __m256 cross;
    const __m256 s = product_sums(x, y, cross);
    const __m256i grid = on_coarse_grid(s);
    if (any_lane(grid)) {
        const __m256 p = _mm256_mul_ps(_mm256_moveldup_ps(x), y);  // ar*br  ar*bi
        const __m256 real_lanes_sign = _mm256_castsi256_ps(_mm256_set1_epi64x(0x80000000));
        const __m256 t = _mm256_xor_ps(cross, real_lanes_sign);  // -ai*bi  ai*br
        const __m256 back = _mm256_sub_ps(s, p);
        const __m256 error = _mm256_add_ps(_mm256_sub_ps(p, _mm256_sub_ps(s, back)), _mm256_sub_ps(t, back));
        const __m256i inexact = _mm256_castps_si256(_mm256_cmp_ps(error, _mm256_setzero_ps(), _CMP_NEQ_UQ));
        if (!_mm256_testz_si256(inexact, grid)) return false;
    }
    result = s;
    return true;
}

template <PartFormat F>
MINIFLOAT_AVX2_COMPLEX size_t multiply_loop(const uint16_t* a, const uint16_t* b, uint16_t* out, size_t n,
                                            uint32_t& flags) {
    const auto block = [](__m256 x, __m256 y, __m256& r, __m256i& overflow)
                           MINIFLOAT_AVX2_COMPLEX MINIFLOAT_LAMBDA_INLINE {
                               if constexpr (F == PartFormat::float16) {
                                   if (multiply4_f32(x, y, r)) return true;
                               }
                               return multiply4_f64<F>(x, y, r, overflow);
                           };
    return blocks_of_four<F>(a, b, out, n, flags, block);
}

template <PartFormat F>
MINIFLOAT_AVX2_COMPLEX size_t arith_loop(ComplexArith op, const uint16_t* a, const uint16_t* b, uint16_t* out,
                                         size_t n, uint32_t& flags) {
    switch (op) {
        case ComplexArith::add: return add_loop<F, false>(a, b, out, n, flags);
        case ComplexArith::subtract: return add_loop<F, true>(a, b, out, n, flags);
        case ComplexArith::multiply: return multiply_loop<F>(a, b, out, n, flags);
    }
    return 0;
}

// --- |z| of float16 parts ---------------------------------------------------
// complex_arith_avx512.cpp's method and its proof, eight elements a step.

// Lanes whose binary32 root is within `window` ulps of a float16 midpoint
// (as complex_arith_avx512.cpp's near_midpoint; the masked bits are small,
// so signed compares order them).
MINIFLOAT_AVX2_COMPLEX inline __m256i near_midpoint(__m256 root, int window) {
    const __m256i bits = _mm256_castps_si256(root);
    const __m256i w = _mm256_set1_epi32(window), twice = _mm256_set1_epi32(2 * window);
    const __m256i normal = _mm256_cmpgt_epi32(bits, _mm256_set1_epi32(0x38800000 - 1));  // 2^-14 and up
    const __m256i near_tie = _mm256_cmpgt_epi32(
        twice, _mm256_and_si256(_mm256_add_epi32(_mm256_sub_epi32(bits, _mm256_set1_epi32(0x1000)), w),
                                _mm256_set1_epi32(0x1FFF)));
    const __m256i near_coarse =
        _mm256_cmpgt_epi32(twice, _mm256_and_si256(_mm256_add_epi32(bits, w), _mm256_set1_epi32(0xFFF)));
    return _mm256_blendv_epi8(near_coarse, near_tie, normal);
}

// The even lanes of x0 then x1, in order (the elements' first parts, or
// what was summed into them).
MINIFLOAT_AVX2_COMPLEX inline __m256 even_lanes(__m256 x0, __m256 x1) {
    const __m256 interleaved = _mm256_shuffle_ps(x0, x1, _MM_SHUFFLE(2, 0, 2, 0));  // 0 2 | 0 2 of each half
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(interleaved), _MM_SHUFFLE(3, 1, 2, 0)));
}

MINIFLOAT_AVX2_COMPLEX inline __m256 pair_sums_of_squares(__m256 x) {
    const __m256 squares = _mm256_mul_ps(x, x);
    return _mm256_add_ps(squares, _mm256_permute_ps(squares, 0xB1));  // (in the even lanes)
}

// The 4 roots of x's elements in binary64, rounded once to binary32.
MINIFLOAT_AVX2_COMPLEX inline __m128 roots4_f64(__m256 x) {
    const auto two = [](__m128 parts) MINIFLOAT_AVX2_COMPLEX MINIFLOAT_LAMBDA_INLINE {
        const __m256d wide = _mm256_cvtps_pd(parts);
        const __m256d squares = _mm256_mul_pd(wide, wide);
        return _mm256_add_pd(squares, _mm256_permute_pd(squares, 0x5));  // (in the even lanes)
    };
    const __m256d low = two(_mm256_castps256_ps128(x)), high = two(_mm256_extractf128_ps(x, 1));
    const __m256d sums = _mm256_permute4x64_pd(_mm256_unpacklo_pd(low, high), _MM_SHUFFLE(3, 1, 2, 0));
    return _mm256_cvtpd_ps(_mm256_sqrt_pd(sums));
}

MINIFLOAT_AVX2_COMPLEX size_t abs_loop_f16(const uint16_t* parts, uint16_t* out, size_t n, uint32_t& flags) {
    __m256i overflow = _mm256_setzero_si256();
    const __m256i all = _mm256_set1_epi32(-1);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 x0 = parts_f32<PartFormat::float16>(parts + 2 * i);
        const __m256 x1 = parts_f32<PartFormat::float16>(parts + 2 * i + 8);
        __m256 root = _mm256_sqrt_ps(even_lanes(pair_sums_of_squares(x0), pair_sums_of_squares(x1)));
        const __m256 products =
            even_lanes(_mm256_mul_ps(x0, _mm256_permute_ps(x0, 0xB1)), _mm256_mul_ps(x1, _mm256_permute_ps(x1, 0xB1)));
        const __m256i exact = _mm256_castps_si256(_mm256_cmp_ps(products, _mm256_setzero_ps(), _CMP_EQ_OQ));
        if (!_mm256_testc_si256(exact, near_midpoint(root, 3))) {  // a lane near a midpoint, no part zero
            root = _mm256_insertf128_ps(_mm256_castps128_ps256(roots4_f64(x0)), roots4_f64(x1), 1);
            if (!_mm256_testc_si256(exact, near_midpoint(root, 1))) break;
        }
        if (!_mm256_testc_si256(finite_lanes(root), all)) break;
        overflow = _mm256_or_si256(overflow, rounds_to_inf<PartFormat::float16>(root));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), encode_parts<PartFormat::float16>(root));
    }
    if (!_mm256_testz_si256(overflow, overflow)) flags |= kFlagOverflow;
    return i;
}

bool cpu_has_fma_f16c() {
    static const bool have = __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
    return have;
}

}  // namespace

bool complex_arith_avx2(ComplexArith op, PartFormat format, const uint16_t* a, const uint16_t* b, uint16_t* out,
                        size_t n, size_t& done, uint32_t& flags) {
    if (!avx2_usable() || !cpu_has_fma_f16c()) return false;
    switch (format) {
        case PartFormat::float16: done = arith_loop<PartFormat::float16>(op, a, b, out, n, flags); return true;
        case PartFormat::bfloat16: done = arith_loop<PartFormat::bfloat16>(op, a, b, out, n, flags); return true;
    }
    return false;
}

bool complex32_abs_avx2(const uint16_t* parts, uint16_t* out, size_t n, size_t& done, uint32_t& flags) {
    if (!avx2_usable() || !cpu_has_fma_f16c()) return false;
    done = abs_loop_f16(parts, out, n, flags);
    return true;
}

}  // namespace minifloat

#else

namespace minifloat {

bool complex_arith_avx2(ComplexArith, PartFormat, const uint16_t*, const uint16_t*, uint16_t*, size_t, size_t&,
                        uint32_t&) {
    return false;
}

bool complex32_abs_avx2(const uint16_t*, uint16_t*, size_t, size_t&, uint32_t&) { return false; }

}  // namespace minifloat

#endif
