#include "complex_arith_avx512.h"

#include "fp_status.h"
#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#include "avx512_intrinsics.h"

#define MINIFLOAT_AVX512_COMPLEX __attribute__((target("avx512f,avx512bw,avx512vl,fma,f16c")))

namespace minifloat {

namespace {

// 16 part codes (8 elements) as binary32, exactly.
template <PartFormat F>
MINIFLOAT_AVX512_COMPLEX inline __m512 parts_f32(const uint16_t* p) {
    const __m256i codes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    if constexpr (F == PartFormat::float16) {
        return _mm512_cvtph_ps(codes);
    } else {
        static_assert(F == PartFormat::bfloat16);
        return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(codes), 16));
    }
}

// The binary32 bits from which round to nearest even gives inf: the first
// value at or past the part's largest finite value plus half its ulp
// (float16: 65520; bfloat16: 0x7F7F8000, whose tie goes to the even inf).
template <PartFormat F>
constexpr int32_t kFirstOverflowBits = F == PartFormat::float16 ? 0x477FF000 : 0x7F7F8000;

// 16 binary32 values (none NaN) to part codes, rounded to nearest even.
template <PartFormat F>
MINIFLOAT_AVX512_COMPLEX inline __m256i encode_parts(__m512 v) {
    if constexpr (F == PartFormat::float16) {
        return _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    } else {
        static_assert(F == PartFormat::bfloat16);
        // adding 0x7FFF plus the kept half's lowest bit carries into the
        // kept half exactly when round to nearest even goes up
        const __m512i bits = _mm512_castps_si512(v);
        const __m512i rounded = _mm512_add_epi32(
            bits, _mm512_add_epi32(_mm512_set1_epi32(0x7FFF),
                                   _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1))));
        return _mm512_cvtepi32_epi16(_mm512_srli_epi32(rounded, 16));
    }
}

// Lanes of v (binary32, no NaN) that round to inf in the part format.
template <PartFormat F>
MINIFLOAT_AVX512_COMPLEX inline __mmask16 rounds_to_inf(__m512 v) {
    const __m512i magnitude = _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7FFFFFFF));
    return _mm512_cmpge_epi32_mask(magnitude, _mm512_set1_epi32(kFirstOverflowBits<F>));
}

MINIFLOAT_AVX512_COMPLEX inline __mmask16 finite_lanes(__m512 v) {
    const __m512i magnitude = _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7FFFFFFF));
    return _mm512_cmplt_epi32_mask(magnitude, _mm512_set1_epi32(0x7F800000));
}

// Eight elements at a time: block(x, y, r, overflow) computes the binary32
// results r of the decoded parts (false: this block has a NaN result, which
// the general loop does), then the parts are rounded and stored.
template <PartFormat F, class Block>
MINIFLOAT_AVX512_COMPLEX inline size_t blocks_of_eight(const uint16_t* a, const uint16_t* b, uint16_t* out, size_t n,
                                                       uint32_t& flags, Block&& block) {
    __mmask16 overflow = 0;
    // one block at `at`; false (nothing stored) where it needs the general loop
    const auto one = [&](size_t at) MINIFLOAT_AVX512_COMPLEX MINIFLOAT_LAMBDA_INLINE {
        __m512 r;
        if (!block(parts_f32<F>(a + 2 * at), parts_f32<F>(b + 2 * at), r, overflow)) return false;
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 2 * at), encode_parts<F>(r));
        return true;
    };
    size_t i = 0;
    // two blocks a pass, the sources asked for ahead (kComplexPrefetchBytes)
    for (; i + 16 <= n; i += 16) {
        __builtin_prefetch(reinterpret_cast<const char*>(a + 2 * i) + kComplexPrefetchBytes, 0, 3);
        __builtin_prefetch(reinterpret_cast<const char*>(b + 2 * i) + kComplexPrefetchBytes, 0, 3);
        if (!one(i)) break;
        if (!one(i + 8)) {
            i += 8;
            break;
        }
    }
    while (i + 8 <= n && one(i)) i += 8;  // (after a break: retries that block once, and stops)
    if (overflow != 0) flags |= kFlagOverflow;
    return i;
}

// --- + and - ------------------------------------------------------------
// A sum of two parts rounded to binary32 and then to the part is the sum
// rounded once (24 >= 2p + 2, see complex_arith.h). Overflow: a finite
// pair whose sum rounds to inf (binary32's own overflow included).
template <PartFormat F, bool Subtract>
MINIFLOAT_AVX512_COMPLEX size_t add_loop(const uint16_t* a, const uint16_t* b, uint16_t* out, size_t n,
                                         uint32_t& flags) {
    return blocks_of_eight<F>(a, b, out, n, flags,
                              [](__m512 x, __m512 y, __m512& r, __mmask16& overflow)
                                  MINIFLOAT_AVX512_COMPLEX MINIFLOAT_LAMBDA_INLINE {
                                      r = Subtract ? _mm512_sub_ps(x, y) : _mm512_add_ps(x, y);
                                      // NaN's bits are past the overflow bound too: one test
                                      // for the common block, the rare one sorted out here
                                      const __mmask16 big = rounds_to_inf<F>(r);
                                      if (big != 0) {
                                          if (_mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q) != 0) return false;
                                          overflow |= big & finite_lanes(x) & finite_lanes(y);
                                      }
                                      return true;
                                  });
}

// --- * in binary64 ------------------------------------------------------

// Four elements (real, imaginary, ...): ar*br - ai*bi and ar*bi + ai*br.
// Products of two parts are exact in binary64, so the fused multiply-add
// rounds the same exact value once, as complex128 does.
MINIFLOAT_AVX512_COMPLEX inline __m512d multiply4(__m512d a, __m512d b) {
    const __m512d imaginary_products = _mm512_mul_pd(_mm512_permute_pd(a, 0xFF), _mm512_permute_pd(b, 0x55));
    return _mm512_fmaddsub_pd(_mm512_movedup_pd(a), b, imaginary_products);
}

// binary64 -> binary32 rounded to odd (truncated, the last bit set when
// anything was dropped); past binary32's largest value truncation gives it.
MINIFLOAT_AVX512_COMPLEX inline __m256 narrow_to_odd(__m512d x) {
    const __m256 f = _mm512_cvt_roundpd_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __mmask8 inexact = _mm512_cmp_pd_mask(_mm512_cvtps_pd(f), x, _CMP_NEQ_OQ);
    const __m256i bits = _mm256_castps_si256(f);
    return _mm256_castsi256_ps(_mm256_mask_or_epi32(bits, inexact, bits, _mm256_set1_epi32(1)));
}

// Eight elements: the binary64 results rounded to odd on binary32 (then
// rounding to the part is complex128's result rounded once: 24 >= p + 2).
// False when a result part is NaN.
template <PartFormat F>
MINIFLOAT_AVX512_COMPLEX inline bool multiply8_f64(__m512 x, __m512 y, __m512& result, __mmask16& overflow) {
    const __m512d low = multiply4(_mm512_cvtps_pd(_mm512_castps512_ps256(x)), _mm512_cvtps_pd(_mm512_castps512_ps256(y)));
    const __m512d high =
        multiply4(_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1))),
                  _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(y), 1))));
    if ((_mm512_cmp_pd_mask(low, low, _CMP_UNORD_Q) | _mm512_cmp_pd_mask(high, high, _CMP_UNORD_Q)) != 0) return false;
    result = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(narrow_to_odd(low))),
                                                 _mm256_castps_pd(narrow_to_odd(high)), 1));
    // (an infinite part comes from an infinite operand: no flag)
    overflow |= rounds_to_inf<F>(result) & finite_lanes(result);
    return true;
}

// --- * of float16 parts in binary32 -------------------------------------
// Products of two float16 values have at most 22 significant bits and
// exponents in [-48, 32]: exact in binary32, so s = p + t is the exact
// result x rounded once to binary32. Rounding s to float16 then gives x
// rounded once (and so complex128's binary64 result rounded once, which is
// x's double rounding) unless s is a float16 midpoint (a tie, or 65520
// where overflow starts) that x is not: a rounding to a finer grid changes
// the coarser rounding only by landing on a midpoint. Midpoints of float16
// have their low 12 binary32 bits zero; a lane like that whose sum was
// inexact (TwoSum's error not 0) sends the block the binary64 way, which
// does what complex128 does. So do non-finite parts (their error is NaN
// and their low 12 bits zero: inf, the default NaN, a float16 NaN's
// payload shifted up by 13). False: this block needs that way.
// Overflow needs no test here: s is finite and rounds to inf exactly when
// the exact result does (65520 is a binary32 value), and the conversion to
// float16 (vcvtps2ph) then raises the overflow flag itself.
MINIFLOAT_AVX512_COMPLEX inline bool multiply8_f32(__m512 x, __m512 y, __m512& result) {
    const __m512 x_real = _mm512_moveldup_ps(x);
    const __m512 t = _mm512_mul_ps(_mm512_movehdup_ps(x), _mm512_permute_ps(y, 0xB1));  // ai*bi  ai*br
    // p = ar*br  ar*bi is exact, so the fused form rounds p -+ t once, as p + (-+t) would
    const __m512 s = _mm512_fmaddsub_ps(x_real, y, t);
    const __mmask16 on_coarse_grid = _mm512_testn_epi32_mask(_mm512_castps_si512(s), _mm512_set1_epi32(0xFFF));
    if (on_coarse_grid != 0) {
        const __m512 p = _mm512_mul_ps(x_real, y);
        const __m512 signed_t = _mm512_castsi512_ps(
            _mm512_xor_si512(_mm512_castps_si512(t), _mm512_set1_epi64(0x80000000)));  // -ai*bi  ai*br
        const __m512 back = _mm512_sub_ps(s, p);
        const __m512 error =
            _mm512_add_ps(_mm512_sub_ps(p, _mm512_sub_ps(s, back)), _mm512_sub_ps(signed_t, back));
        if (_mm512_mask_cmp_ps_mask(on_coarse_grid, error, _mm512_setzero_ps(), _CMP_NEQ_UQ) != 0) return false;
    }
    result = s;
    return true;
}

template <PartFormat F>
MINIFLOAT_AVX512_COMPLEX size_t multiply_loop(const uint16_t* a, const uint16_t* b, uint16_t* out, size_t n,
                                              uint32_t& flags) {
    return blocks_of_eight<F>(a, b, out, n, flags,
                              [](__m512 x, __m512 y, __m512& r, __mmask16& overflow)
                                  MINIFLOAT_AVX512_COMPLEX MINIFLOAT_LAMBDA_INLINE {
                                      if constexpr (F == PartFormat::float16) {
                                          if (multiply8_f32(x, y, r)) return true;
                                      }
                                      return multiply8_f64<F>(x, y, r, overflow);
                                  });
}

template <PartFormat F>
MINIFLOAT_AVX512_COMPLEX size_t arith_loop(ComplexArith op, const uint16_t* a, const uint16_t* b, uint16_t* out,
                                           size_t n, uint32_t& flags) {
    switch (op) {
        case ComplexArith::add: return add_loop<F, false>(a, b, out, n, flags);
        case ComplexArith::subtract: return add_loop<F, true>(a, b, out, n, flags);
        case ComplexArith::multiply: return multiply_loop<F>(a, b, out, n, flags);
    }
    return 0;
}

// --- |z| of float16 parts --------------------------------------------------
// NumPy's complex128 absolute (its hypot) is within an ulp or so of
// binary64's exact root, not always exact (|1443 + 1800j| = 2307 gives
// 2306.9999999999995); rounded to float16 it gives the exact root's
// rounding unless a float16 midpoint (a tie, or 65520 where overflow
// starts) lies nearer to the root than those errors. So a root computed
// with a known error bound rounds as NumPy's does wherever it is farther
// than that bound from every midpoint. First in binary32 (the squares
// exact, their sum and the root rounded: within 2 binary32 ulps of the
// exact root), checked against a window of 3 ulps; the rare block with a
// lane in the window again in binary64 (squares exact, the sum exact or
// the root within 2^-32 of the larger part, the root rounded once:
// binary32's rounding of it is a midpoint only within a few binary64 ulps
// of one). A lane with a zero part is |other part| exactly (hypot(x, 0) is
// fabs(x), C's Annex F; checked for every code); blocks still in doubt, and
// non-finite parts, go to NumPy's loop.

// Lanes whose binary32 root is within `window` ulps of a float16 midpoint:
// low 13 bits near 0x1000 in float16's normal range, low 12 bits near 0
// below it (the subnormal grid's midpoints are coarser).
MINIFLOAT_AVX512_COMPLEX inline __mmask16 near_midpoint(__m512 root, int window) {
    const __m512i bits = _mm512_castps_si512(root);
    const __m512i w = _mm512_set1_epi32(window);
    const __mmask16 normal = _mm512_cmpge_epi32_mask(bits, _mm512_set1_epi32(0x38800000));  // 2^-14
    const __mmask16 near_tie = _mm512_cmplt_epu32_mask(
        _mm512_and_si512(_mm512_add_epi32(_mm512_sub_epi32(bits, _mm512_set1_epi32(0x1000)), w), _mm512_set1_epi32(0x1FFF)),
        _mm512_add_epi32(w, w));
    const __mmask16 near_coarse = _mm512_cmplt_epu32_mask(
        _mm512_and_si512(_mm512_add_epi32(bits, w), _mm512_set1_epi32(0xFFF)), _mm512_add_epi32(w, w));
    return (normal & near_tie) | (static_cast<__mmask16>(~normal) & near_coarse);
}

// The 16 roots of x0, x1's elements in binary64, rounded once to binary32.
MINIFLOAT_AVX512_COMPLEX inline __m512 roots_f64(__m512 x0, __m512 x1) {
    const __m512i even_lanes = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
    const auto eight = [&](__m512 x) MINIFLOAT_AVX512_COMPLEX MINIFLOAT_LAMBDA_INLINE {
        const __m512d low = _mm512_cvtps_pd(_mm512_castps512_ps256(x));
        const __m512d high = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1)));
        const __m512d low_squares = _mm512_mul_pd(low, low), high_squares = _mm512_mul_pd(high, high);
        const __m512d sums = _mm512_permutex2var_pd(_mm512_add_pd(low_squares, _mm512_permute_pd(low_squares, 0x55)),
                                                    even_lanes,
                                                    _mm512_add_pd(high_squares, _mm512_permute_pd(high_squares, 0x55)));
        return _mm512_cvtpd_ps(_mm512_sqrt_pd(sums));
    };
    return _mm512_castpd_ps(
        _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(eight(x0))), _mm256_castps_pd(eight(x1)), 1));
}

MINIFLOAT_AVX512_COMPLEX inline __m512 pair_sums_of_squares(__m512 x) {
    const __m512 squares = _mm512_mul_ps(x, x);
    return _mm512_add_ps(squares, _mm512_permute_ps(squares, 0xB1));  // (in the even lanes)
}

MINIFLOAT_AVX512_COMPLEX size_t abs_loop_f16(const uint16_t* parts, uint16_t* out, size_t n, uint32_t& flags) {
    const __m512i even_lanes = even_dwords_index();
    __mmask16 overflow = 0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 x0 = parts_f32<PartFormat::float16>(parts + 2 * i);
        const __m512 x1 = parts_f32<PartFormat::float16>(parts + 2 * i + 16);
        __m512 root = _mm512_sqrt_ps(_mm512_permutex2var_ps(pair_sums_of_squares(x0), even_lanes, pair_sums_of_squares(x1)));
        const __m512 products = _mm512_permutex2var_ps(_mm512_mul_ps(x0, _mm512_permute_ps(x0, 0xB1)), even_lanes,
                                                       _mm512_mul_ps(x1, _mm512_permute_ps(x1, 0xB1)));
        const __mmask16 exact = _mm512_cmp_ps_mask(products, _mm512_setzero_ps(), _CMP_EQ_OQ);  // a part is zero
        if (static_cast<__mmask16>(near_midpoint(root, 3) & ~exact) != 0) {
            root = roots_f64(x0, x1);
            if (static_cast<__mmask16>(near_midpoint(root, 1) & ~exact) != 0) break;
        }
        if (finite_lanes(root) != 0xFFFF) break;
        overflow |= rounds_to_inf<PartFormat::float16>(root);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), encode_parts<PartFormat::float16>(root));
    }
    if (overflow != 0) flags |= kFlagOverflow;
    return i;
}

}  // namespace

bool complex_arith_avx512(ComplexArith op, PartFormat format, const uint16_t* a, const uint16_t* b, uint16_t* out,
                          size_t n, size_t& done, uint32_t& flags) {
    if (!avx512_bw_usable()) return false;
    switch (format) {
        case PartFormat::float16: done = arith_loop<PartFormat::float16>(op, a, b, out, n, flags); return true;
        case PartFormat::bfloat16: done = arith_loop<PartFormat::bfloat16>(op, a, b, out, n, flags); return true;
    }
    return false;
}

bool complex32_abs_avx512(const uint16_t* parts, uint16_t* out, size_t n, size_t& done, uint32_t& flags) {
    if (!avx512_bw_usable()) return false;
    done = abs_loop_f16(parts, out, n, flags);
    return true;
}

}  // namespace minifloat

#else

namespace minifloat {

bool complex_arith_avx512(ComplexArith, PartFormat, const uint16_t*, const uint16_t*, uint16_t*, size_t, size_t&,
                          uint32_t&) {
    return false;
}

bool complex32_abs_avx512(const uint16_t*, uint16_t*, size_t, size_t&, uint32_t&) { return false; }

}  // namespace minifloat

#endif
