// The fast float32 -> 8-bit encoder written with AVX-512 intrinsics: the
// same arithmetic as encode_block_fast, with mask registers for the selects
// and two byte permutes to pack 64 codes (the compiler's generic packing
// takes five times as many instructions).
#include "encode_fast.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 reports its own intrinsics' "undefined" pass-through operands.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace minifloat {

namespace {

#define MINIFLOAT_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi")))

struct Vectors {
    __m512i abs_mask, round_bias, lsb_bit, unsigned_from, one, normal_from, overflow_from, inf_bits,
        sign_bit, overflow_code, overflow_sign, inf_positive, inf_negative, nan_positive, nan_negative;
    __m128i shift, sign_shift;
    __m512 magic;
};

MINIFLOAT_AVX512 inline Vectors broadcast(const FastConstants<uint32_t, float>& k) {
    Vectors v;
    v.abs_mask = _mm512_set1_epi32(0x7FFFFFFF);
    v.round_bias = _mm512_set1_epi32(static_cast<int>(k.half_minus_one - (k.rebias << k.shift)));
    v.lsb_bit = _mm512_set1_epi32(static_cast<int>(1u << k.shift));
    // u > unsigned_from: negative, and for fnuz beyond the largest float
    // rounding to zero (half the subnormal step, 24 binades below magic)
    const uint32_t rounds_to_zero = k.zero_drops_sign ? k.magic_bits - (24u << 23) : 0u;
    v.unsigned_from = _mm512_set1_epi32(static_cast<int>(0x80000000u + rounds_to_zero - (k.zero_drops_sign ? 0u : 1u)));
    v.one = _mm512_set1_epi32(1);
    v.normal_from = _mm512_set1_epi32(static_cast<int>(k.normal_from));
    v.overflow_from = _mm512_set1_epi32(static_cast<int>(k.overflow_from));
    v.inf_bits = _mm512_set1_epi32(static_cast<int>(k.inf_bits));
    v.sign_bit = _mm512_set1_epi32(static_cast<int>(k.sign_bit));
    v.overflow_code = _mm512_set1_epi32(static_cast<int>(k.overflow_code));
    v.overflow_sign = _mm512_set1_epi32(static_cast<int>(k.overflow_sign));
    v.inf_positive = _mm512_set1_epi32(static_cast<int>(k.inf_positive));
    v.inf_negative = _mm512_set1_epi32(static_cast<int>(k.inf_negative));
    v.nan_positive = _mm512_set1_epi32(static_cast<int>(k.nan_positive));
    v.nan_negative = _mm512_set1_epi32(static_cast<int>(k.nan_negative));
    v.shift = _mm_cvtsi32_si128(static_cast<int>(k.shift));
    v.sign_shift = _mm_cvtsi32_si128(static_cast<int>(k.sign_shift));
    v.magic = _mm512_set1_ps(k.magic);
    return v;
}

// 16 codes (one per dword, in its low byte: the upper bytes may hold
// junk) from 16 floats, for values up to overflow; adds the lanes at or
// beyond the overflow threshold (overflow, inf, NaN) to `special`, whose
// codes the caller then fixes with fix_special16.
MINIFLOAT_AVX512 inline __m512i encode16(const Vectors& v, __m512i u, __mmask16& special) {
    const __m512i a = _mm512_and_si512(u, v.abs_mask);
    const __mmask16 normal = _mm512_cmpge_epu32_mask(a, v.normal_from);
    // subnormal: adding the magic constant rounds at the subnormal step and
    // leaves the code in the low mantissa bits (masked lanes raise no FP
    // exceptions)
    const __m512i subnormal = _mm512_castps_si512(
        _mm512_maskz_add_ps(static_cast<__mmask16>(~normal), _mm512_castsi512_ps(a), v.magic));
    // normal: round to nearest even at bit `shift` (the rebias folded into
    // the rounding constant), then shift down into the subnormal lanes' gaps
    __m512i rounded = _mm512_add_epi32(a, v.round_bias);
    rounded = _mm512_mask_add_epi32(rounded, _mm512_test_epi32_mask(a, v.lsb_bit), rounded, v.one);
    const __m512i magnitude = _mm512_mask_srl_epi32(subnormal, normal, rounded, v.shift);
    // the sign bit on negative lanes; fnuz formats (no -0): only on those
    // that do not round to zero
    const __mmask16 signed_lanes = _mm512_cmpgt_epu32_mask(u, v.unsigned_from);
    special |= _mm512_cmpge_epu32_mask(a, v.overflow_from);
    return _mm512_mask_or_epi32(magnitude, signed_lanes, magnitude, v.sign_bit);
}

// Codes for the lanes of `code` at or beyond the overflow threshold:
// overflow, inf and NaN (each by sign), recording which occurred.
struct SpecialLanes {
    __mmask16 overflow = 0, inf = 0, nan = 0;
};
MINIFLOAT_AVX512 inline __m512i fix_special16(const Vectors& v, __m512i u, __m512i code, SpecialLanes& seen) {
    const __m512i a = _mm512_and_si512(u, v.abs_mask);
    const __mmask16 negative = _mm512_cmplt_epi32_mask(u, _mm512_setzero_si512());
    const __mmask16 is_inf = _mm512_cmpeq_epu32_mask(a, v.inf_bits);
    const __mmask16 is_nan = _mm512_cmpgt_epu32_mask(a, v.inf_bits);
    const __mmask16 overflow = _mm512_cmpge_epu32_mask(a, v.overflow_from) & ~is_inf & ~is_nan;
    const __m512i sign = _mm512_and_si512(_mm512_srl_epi32(u, v.sign_shift), v.sign_bit);
    const __m512i overflow_code = _mm512_or_si512(v.overflow_code, _mm512_and_si512(sign, v.overflow_sign));
    code = _mm512_mask_blend_epi32(overflow, code, overflow_code);
    code = _mm512_mask_blend_epi32(is_inf, code, _mm512_mask_blend_epi32(negative, v.inf_positive, v.inf_negative));
    code = _mm512_mask_blend_epi32(is_nan, code, _mm512_mask_blend_epi32(negative, v.nan_positive, v.nan_negative));
    seen.overflow |= overflow;
    seen.inf |= is_inf;
    seen.nan |= is_nan;
    return code;
}

// float8_e8m0fnu for positive normal float32 below overflow: the exponent,
// plus one when the fraction is at least one half. Anything else (zero,
// negatives, subnormals, overflow, inf/NaN) sends the block to the general
// kernel.
MINIFLOAT_AVX512 inline __m512i encode16_e8m0(__m512i u, __mmask16& outside) {
    const __m512i exponent = _mm512_srli_epi32(u, 23);
    const __m512i code = _mm512_add_epi32(exponent, _mm512_and_si512(_mm512_srli_epi32(u, 22), _mm512_set1_epi32(1)));
    outside |= _mm512_cmple_epi32_mask(u, _mm512_set1_epi32(0x007FFFFF));  // <= largest subnormal, or negative
    outside |= _mm512_cmpgt_epu32_mask(code, _mm512_set1_epi32(254));
    return code;
}

// float8_e8m0fnu straight from 8 doubles (64-bit lanes): the exponent field
// minus 1023 - 127, plus one when the fraction is at least one half. Any
// lane outside [2^-127, 2^127 * 1.5) or not a positive normal double wraps
// above 254 and is reported in `outside`.
MINIFLOAT_AVX512 inline __m512i encode8_e8m0_f64(const double* in, __mmask8 lanes, __mmask8& outside) {
    const __m512i u = _mm512_maskz_loadu_epi64(lanes, in);
    const __m512i top = _mm512_srli_epi64(u, 51);  // sign, exponent, first fraction bit
    const __m512i code = _mm512_sub_epi64(
        _mm512_add_epi64(_mm512_srli_epi64(top, 1), _mm512_and_si512(top, _mm512_set1_epi64(1))),
        _mm512_set1_epi64(1023 - 127));
    outside |= _mm512_cmpgt_epu64_mask(code, _mm512_set1_epi64(254));
    return code;
}

MINIFLOAT_AVX512 inline __m512i encode16_e8m0(const double* in, __mmask16 lanes, __mmask16& outside) {
    __mmask8 low_outside = 0, high_outside = 0;
    const __m512i low = encode8_e8m0_f64(in, static_cast<__mmask8>(lanes), low_outside);
    const __m512i high = encode8_e8m0_f64(in + 8, static_cast<__mmask8>(lanes >> 8), high_outside);
    outside |= static_cast<__mmask16>(low_outside | (high_outside << 8));
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(low)), _mm512_cvtepi64_epi32(high), 1);
}
MINIFLOAT_AVX512 inline __m512i encode16_e8m0(const float* in, __mmask16 lanes, __mmask16& outside) {
    return encode16_e8m0(_mm512_maskz_loadu_epi32(lanes, in), outside);
}
MINIFLOAT_AVX512 inline __m512i load16(const uint16_t* in, __mmask16 lanes);
MINIFLOAT_AVX512 inline __m512i encode16_e8m0(const uint16_t* in, __mmask16 lanes, __mmask16& outside) {
    return encode16_e8m0(load16(in, lanes), outside);
}

// Byte 0 of every dword of two vectors into the low 32 bytes: index 4i is
// byte 0 of dword i of the first vector for i < 16 and, with bit 6 set,
// of dword i - 16 of the second.
MINIFLOAT_AVX512 inline __m512i low_byte_pattern() {
    alignas(64) uint8_t pick[64] = {};
    for (int i = 0; i < 32; i++) pick[i] = static_cast<uint8_t>(4 * i);
    return _mm512_load_si512(pick);
}

MINIFLOAT_AVX512 inline __m512i pack64(__m512i pattern, __m512i c0, __m512i c1, __m512i c2, __m512i c3) {
    const __m512i packed01 = _mm512_permutex2var_epi8(c0, pattern, c1);
    const __m512i packed23 = _mm512_permutex2var_epi8(c2, pattern, c3);
    return _mm512_inserti64x4(packed01, _mm512_castsi512_si256(packed23), 1);
}

// 16 float32 bit patterns from 16 floats or from 16 doubles rounded to odd
// (see encode_fast.h).
MINIFLOAT_AVX512 inline __m512i load16(const float* in, __mmask16 lanes) {
    return _mm512_maskz_loadu_epi32(lanes, in);
}
MINIFLOAT_AVX512 inline __m256i odd_half(const double* in, __mmask8 lanes) {
    const __m512d x = _mm512_maskz_loadu_pd(lanes, in);
    const __m256 truncated = _mm512_cvt_roundpd_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __mmask8 inexact = _mm512_cmp_pd_mask(_mm512_cvtps_pd(truncated), x, _CMP_NEQ_UQ);
    return _mm256_mask_or_epi32(_mm256_castps_si256(truncated), inexact, _mm256_castps_si256(truncated),
                                _mm256_set1_epi32(1));
}
// bfloat16 codes are the upper halves of float32 bit patterns
MINIFLOAT_AVX512 inline __m512i load16(const uint16_t* in, __mmask16 lanes) {
    return _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(lanes, in)), 16);
}
MINIFLOAT_AVX512 inline __m512i load16(const double* in, __mmask16 lanes) {
    const __m256i low = odd_half(in, static_cast<__mmask8>(lanes));
    const __m256i high = odd_half(in + 8, static_cast<__mmask8>(lanes >> 8));
    return _mm512_inserti64x4(_mm512_castsi256_si512(low), high, 1);
}

template <bool ExponentOnly, class Source>
MINIFLOAT_AVX512 bool encode_block(const FastConstants<uint32_t, float>& k, const Source* in, uint8_t* out,
                                   size_t n, uint32_t& flags) {
    const Vectors v = broadcast(k);
    const __m512i pattern = low_byte_pattern();
    __mmask16 outside = 0;  // e8m0 lanes the fast path does not handle
    SpecialLanes seen;
    constexpr __mmask16 kAll = 0xFFFF;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m512i c[4];
        if constexpr (ExponentOnly) {
            for (int q = 0; q < 4; q++) c[q] = encode16_e8m0(in + i + 16 * q, kAll, outside);
        } else {
            __m512i u[4];
            __mmask16 special = 0;
            for (int q = 0; q < 4; q++) {
                u[q] = load16(in + i + 16 * q, kAll);
                c[q] = encode16(v, u[q], special);
            }
            if (special != 0) {
                for (int q = 0; q < 4; q++) c[q] = fix_special16(v, u[q], c[q], seen);
            }
        }
        _mm512_storeu_si512(out + i, pack64(pattern, c[0], c[1], c[2], c[3]));
    }
    for (; i < n; i += 16) {
        const size_t left = n - i;
        const __mmask16 lanes = left >= 16 ? kAll : static_cast<__mmask16>((1u << left) - 1u);
        // masked-off lanes load as +0: harmless to encode, but not a valid
        // e8m0 input, so only live lanes count toward `outside`
        __mmask16 lane_outside = 0;
        __m512i c;
        if constexpr (ExponentOnly) {
            c = encode16_e8m0(in + i, lanes, lane_outside);
        } else {
            const __m512i u = load16(in + i, lanes);
            __mmask16 special = 0;
            c = encode16(v, u, special);
            if (special != 0) c = fix_special16(v, u, c, seen);
        }
        outside |= lane_outside & lanes;
        _mm512_mask_cvtepi32_storeu_epi8(out + i, lanes, c);
    }
    if (outside != 0) return false;
    if (seen.overflow != 0) flags |= k.overflow_flags;
    if (seen.inf != 0) flags |= k.inf_flags;
    if (seen.nan != 0) flags |= k.nan_flags;
    return true;
}

MINIFLOAT_AVX512 void round_to_odd(const double* in, float* out, size_t n) {
    const __m256i one = _mm256_set1_epi32(1);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m512d x = _mm512_loadu_pd(in + i);
        const __m256 truncated = _mm512_cvt_roundpd_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        const __m512d back = _mm512_cvtps_pd(truncated);
        // inexact (NaN compares unequal to itself but stays NaN: its last
        // mantissa bit is part of the payload, and a quiet NaN stays quiet)
        const __mmask8 inexact = _mm512_cmp_pd_mask(back, x, _CMP_NEQ_UQ);
        const __m256i bits = _mm256_mask_or_epi32(_mm256_castps_si256(truncated), inexact,
                                                  _mm256_castps_si256(truncated), one);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), bits);
    }
    for (; i < n; i++) {
        const __m128d x = _mm_set_sd(in[i]);
        const __m128 truncated = _mm_cvt_roundsd_ss(_mm_setzero_ps(), x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        float f = _mm_cvtss_f32(truncated);
        if (static_cast<double>(f) != in[i] && in[i] == in[i]) {
            uint32_t b;
            __builtin_memcpy(&b, &f, 4);
            b |= 1u;
            __builtin_memcpy(&f, &b, 4);
        }
        out[i] = f;
    }
}

bool cpu_supported() {
    static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                           __builtin_cpu_supports("avx512vbmi");
    return ok;
}

}  // namespace

bool encode_f32_u8_block_avx512(const FastConstants<uint32_t, float>& k, bool exponent_only, const float* in,
                                uint8_t* out, size_t n, uint32_t& flags) {
    if (!cpu_supported()) return false;
    return exponent_only ? encode_block<true>(k, in, out, n, flags) : encode_block<false>(k, in, out, n, flags);
}

bool encode_f64_u8_block_avx512(const FastConstants<uint32_t, float>& k, bool exponent_only, const double* in,
                                uint8_t* out, size_t n, uint32_t& flags) {
    if (!cpu_supported()) return false;
    return exponent_only ? encode_block<true>(k, in, out, n, flags) : encode_block<false>(k, in, out, n, flags);
}

bool encode_bf16_u8_block_avx512(const FastConstants<uint32_t, float>& k, bool exponent_only, const uint16_t* in,
                                 uint8_t* out, size_t n, uint32_t& flags) {
    if (!cpu_supported()) return false;
    return exponent_only ? encode_block<true>(k, in, out, n, flags) : encode_block<false>(k, in, out, n, flags);
}

bool round_to_odd_f32_avx512(const double* in, float* out, size_t n) {
    if (!cpu_supported()) return false;
    round_to_odd(in, out, n);
    return true;
}

}  // namespace minifloat

#else

namespace minifloat {
bool encode_f32_u8_block_avx512(const FastConstants<uint32_t, float>&, bool, const float*, uint8_t*, size_t,
                                uint32_t&) {
    return false;
}
bool encode_f64_u8_block_avx512(const FastConstants<uint32_t, float>&, bool, const double*, uint8_t*, size_t,
                                uint32_t&) {
    return false;
}
bool encode_bf16_u8_block_avx512(const FastConstants<uint32_t, float>&, bool, const uint16_t*, uint8_t*, size_t,
                                 uint32_t&) {
    return false;
}
bool round_to_odd_f32_avx512(const double*, float*, size_t) { return false; }
}  // namespace minifloat

#endif
