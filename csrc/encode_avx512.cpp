// The fast float32 -> 8-bit encoder written with AVX-512 intrinsics, for
// every deterministic rounding mode: integer rounding of normal magnitudes,
// the FPU's (with embedded rounding) for subnormal ones, mask registers for
// the selects and two byte permutes to pack 64 codes (the compiler's
// generic packing takes five times as many instructions).
#include "encode_fast.h"

#include "simd_dispatch.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <type_traits>

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 reports its own intrinsics' "undefined" pass-through operands.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace minifloat {

namespace {

#define MINIFLOAT_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi")))

constexpr int kRoundToZero = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
constexpr int kRoundUp = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;

template <Rounding Mode>
constexpr bool kDirected = Mode == Rounding::toward_zero || Mode == Rounding::up || Mode == Rounding::down;

struct Vectors {
    __m512i abs_mask, round_bias, lsb_bit, away_increment, unsigned_from, magnitude_bits, one, normal_from,
        special_from, toward_zero_overflow_from, inf_bits, sign_bit, overflow_positive, overflow_negative,
        max_positive, max_negative, inf_positive, inf_negative, nan_positive, nan_negative;
    __m128i shift;
    __m512 magic, half_step;
    bool zero_drops_sign;
};

// The constants of `k` for rounding mode Mode. Magnitudes are float32 bits
// without the sign; a normal code c is the magnitude (c + rebias) << shift.
template <Rounding Mode>
MINIFLOAT_AVX512 inline Vectors broadcast(const FastConstants<uint32_t, float>& k) {
    const uint32_t rebias = k.rebias << k.shift;
    const uint32_t ulp = 1u << k.shift, half = ulp >> 1;
    const uint32_t max_bits = (k.max_magnitude << k.shift) + rebias;
    Vectors v;
    v.abs_mask = _mm512_set1_epi32(0x7FFFFFFF);
    // normal magnitudes: add the rounding increment, take off the rebias,
    // truncate at bit `shift`
    uint32_t increment = 0;
    if constexpr (Mode == Rounding::nearest_even) increment = half - 1;  // + the kept lsb
    if constexpr (Mode == Rounding::nearest_away) increment = half;
    v.round_bias = _mm512_set1_epi32(static_cast<int>(increment - rebias));
    v.lsb_bit = _mm512_set1_epi32(static_cast<int>(ulp));
    v.away_increment = _mm512_set1_epi32(static_cast<int>(ulp - 1));
    // round to nearest even: u > unsigned_from is a negative lane that keeps
    // its sign; fnuz formats (no -0) drop it below half the subnormal step,
    // which is 24 binades below magic
    const uint32_t rounds_to_zero = k.zero_drops_sign ? k.magic_bits - (24u << 23) : 0u;
    v.unsigned_from = _mm512_set1_epi32(static_cast<int>(0x80000000u + rounds_to_zero - (k.zero_drops_sign ? 0u : 1u)));
    v.magnitude_bits = _mm512_set1_epi32(static_cast<int>(k.sign_bit - 1u));
    v.zero_drops_sign = k.zero_drops_sign != 0;
    v.one = _mm512_set1_epi32(1);
    v.normal_from = _mm512_set1_epi32(static_cast<int>(k.normal_from));
    // From which magnitude a lane overflows: when its rounding leaves the
    // magnitude alone (toward zero), one ulp past max; otherwise past max,
    // or from the midpoint above it for the nearest modes.
    uint32_t special_from = max_bits + 1;
    if constexpr (Mode == Rounding::nearest_even) special_from = k.overflow_from;
    if constexpr (Mode == Rounding::nearest_away) special_from = max_bits + half;
    if constexpr (Mode == Rounding::toward_zero) special_from = max_bits + ulp;
    v.special_from = _mm512_set1_epi32(static_cast<int>(special_from));
    v.toward_zero_overflow_from = _mm512_set1_epi32(static_cast<int>(max_bits + ulp));
    v.inf_bits = _mm512_set1_epi32(static_cast<int>(k.inf_bits));
    v.sign_bit = _mm512_set1_epi32(static_cast<int>(k.sign_bit));
    v.overflow_positive = _mm512_set1_epi32(static_cast<int>(k.overflow_code));
    v.overflow_negative = _mm512_set1_epi32(static_cast<int>(k.overflow_negative));
    v.max_positive = _mm512_set1_epi32(static_cast<int>(k.max_positive));
    v.max_negative = _mm512_set1_epi32(static_cast<int>(k.max_negative));
    v.inf_positive = _mm512_set1_epi32(static_cast<int>(k.inf_positive));
    v.inf_negative = _mm512_set1_epi32(static_cast<int>(k.inf_negative));
    v.nan_positive = _mm512_set1_epi32(static_cast<int>(k.nan_positive));
    v.nan_negative = _mm512_set1_epi32(static_cast<int>(k.nan_negative));
    v.shift = _mm_cvtsi32_si128(static_cast<int>(k.shift));
    v.magic = _mm512_set1_ps(k.magic);
    // half the subnormal step: the magic constant's ulp, halved
    uint32_t half_step_bits = k.magic_bits - (24u << 23);
    float half_step;
    __builtin_memcpy(&half_step, &half_step_bits, sizeof half_step);
    v.half_step = _mm512_set1_ps(half_step);
    return v;
}

// Lanes whose magnitude a directed mode rounds away from zero.
template <Rounding Mode>
MINIFLOAT_AVX512 inline __mmask16 away_lanes(__mmask16 negative) {
    if constexpr (Mode == Rounding::up) return static_cast<__mmask16>(~negative);
    if constexpr (Mode == Rounding::down) return negative;
    return 0;
}

// 16 codes (one per dword, in its low byte: the upper bytes may hold
// junk) from 16 floats, for values up to overflow; adds the lanes at or
// beyond the overflow threshold (overflow, inf, NaN) to `special`, whose
// codes the caller then fixes with fix_special16.
template <Rounding Mode>
MINIFLOAT_AVX512 inline __m512i encode16(const Vectors& v, __m512i u, __mmask16& special) {
    const __m512i a = _mm512_and_si512(u, v.abs_mask);
    const __m512 a_float = _mm512_castsi512_ps(a);
    const __mmask16 normal = _mm512_cmpge_epu32_mask(a, v.normal_from);
    const __mmask16 tiny = static_cast<__mmask16>(~normal);
    const __mmask16 negative = _mm512_cmplt_epi32_mask(u, _mm512_setzero_si512());
    // subnormal: adding the magic constant rounds at the subnormal step (in
    // the mode's direction) and leaves the code in the low mantissa bits;
    // masked lanes raise no FP exceptions
    __m512 sum;
    if constexpr (Mode == Rounding::nearest_even) {
        sum = _mm512_maskz_add_ps(tiny, a_float, v.magic);
    } else if constexpr (Mode == Rounding::nearest_away) {
        // floor((a + step/2) / step): truncating twice keeps the floor
        const __m512 shifted = _mm512_maskz_add_round_ps(tiny, a_float, v.half_step, kRoundToZero);
        sum = _mm512_maskz_add_round_ps(tiny, shifted, v.magic, kRoundToZero);
    } else {
        const __mmask16 away = away_lanes<Mode>(negative);
        sum = _mm512_maskz_add_round_ps(tiny & ~away, a_float, v.magic, kRoundToZero);
        if constexpr (Mode != Rounding::toward_zero) {
            sum = _mm512_mask_add_round_ps(sum, tiny & away, a_float, v.magic, kRoundUp);
        }
    }
    // normal: add the rounding increment (the rebias folded in), then shift
    // down into the subnormal lanes' gaps
    __m512i rounded = _mm512_add_epi32(a, v.round_bias);
    if constexpr (Mode == Rounding::nearest_even) {
        rounded = _mm512_mask_add_epi32(rounded, _mm512_test_epi32_mask(a, v.lsb_bit), rounded, v.one);
    } else if constexpr (Mode == Rounding::up || Mode == Rounding::down) {
        rounded = _mm512_mask_add_epi32(rounded, away_lanes<Mode>(negative), rounded, v.away_increment);
    }
    const __m512i magnitude = _mm512_mask_srl_epi32(_mm512_castps_si512(sum), normal, rounded, v.shift);
    // the sign bit on negative lanes; fnuz formats (no -0): only on those
    // whose magnitude is not zero
    __mmask16 signed_lanes;
    if constexpr (Mode == Rounding::nearest_even) {
        signed_lanes = _mm512_cmpgt_epu32_mask(u, v.unsigned_from);
    } else {
        signed_lanes = v.zero_drops_sign ? negative & _mm512_test_epi32_mask(magnitude, v.magnitude_bits) : negative;
    }
    special |= _mm512_cmpge_epu32_mask(a, v.special_from);
    return _mm512_mask_or_epi32(magnitude, signed_lanes, magnitude, v.sign_bit);
}

// Codes for the lanes of `code` at or beyond the overflow threshold:
// overflow (to the overflow code, or to max where the mode rounds the
// magnitude down), inf and NaN (each by sign), recording which occurred.
struct SpecialLanes {
    __mmask16 overflow = 0, inf = 0, nan = 0;
};
template <Rounding Mode>
MINIFLOAT_AVX512 inline __m512i fix_special16(const Vectors& v, __m512i u, __m512i code, SpecialLanes& seen) {
    const __m512i a = _mm512_and_si512(u, v.abs_mask);
    const __mmask16 negative = _mm512_cmplt_epi32_mask(u, _mm512_setzero_si512());
    const __mmask16 is_inf = _mm512_cmpeq_epu32_mask(a, v.inf_bits);
    const __mmask16 is_nan = _mm512_cmpgt_epu32_mask(a, v.inf_bits);
    const __mmask16 finite = static_cast<__mmask16>(~(is_inf | is_nan));
    __mmask16 toward_zero = 0;  // lanes whose magnitude the mode rounds down
    if constexpr (kDirected<Mode>) toward_zero = static_cast<__mmask16>(~away_lanes<Mode>(negative));
    const __mmask16 overflow_away =
        _mm512_cmpge_epu32_mask(a, v.special_from) & static_cast<__mmask16>(~toward_zero) & finite;
    const __mmask16 overflow_to_max = _mm512_cmpge_epu32_mask(a, v.toward_zero_overflow_from) & toward_zero & finite;
    code = _mm512_mask_blend_epi32(overflow_away, code,
                                   _mm512_mask_blend_epi32(negative, v.overflow_positive, v.overflow_negative));
    if constexpr (kDirected<Mode>) {
        code = _mm512_mask_blend_epi32(overflow_to_max, code,
                                       _mm512_mask_blend_epi32(negative, v.max_positive, v.max_negative));
    }
    if (finite != 0xFFFF) {  // rarer than finite overflow
        code = _mm512_mask_blend_epi32(is_inf, code, _mm512_mask_blend_epi32(negative, v.inf_positive, v.inf_negative));
        code = _mm512_mask_blend_epi32(is_nan, code, _mm512_mask_blend_epi32(negative, v.nan_positive, v.nan_negative));
    }
    seen.overflow |= overflow_away | overflow_to_max;
    seen.inf |= is_inf;
    seen.nan |= is_nan;
    return code;
}

// float8_e8m0fnu for positive normal float32 below overflow: the exponent,
// plus one when the mode rounds the fraction up (nearest: at least one
// half, ties to the larger power; up: any fraction). Anything else (zero,
// negatives, subnormals, overflow, inf/NaN) sends the block to the general
// kernel.
template <Rounding Mode>
MINIFLOAT_AVX512 inline __m512i encode16_e8m0(__m512i u, __mmask16& outside) {
    __m512i code = _mm512_srli_epi32(u, 23);
    if constexpr (Mode == Rounding::nearest_even || Mode == Rounding::nearest_away) {
        code = _mm512_add_epi32(code, _mm512_and_si512(_mm512_srli_epi32(u, 22), _mm512_set1_epi32(1)));
    } else if constexpr (Mode == Rounding::up) {
        code = _mm512_mask_add_epi32(code, _mm512_test_epi32_mask(u, _mm512_set1_epi32(0x007FFFFF)), code,
                                     _mm512_set1_epi32(1));
    }
    outside |= _mm512_cmple_epi32_mask(u, _mm512_set1_epi32(0x007FFFFF));  // <= largest subnormal, or negative
    outside |= _mm512_cmpgt_epu32_mask(code, _mm512_set1_epi32(254));
    return code;
}

// float8_e8m0fnu straight from 16 doubles, rounding to nearest: their upper
// dwords (sign, exponent, leading fraction bits) gathered into one vector,
// then the exponent minus 1023 - 127, plus one when the fraction is at
// least one half. Any lane outside [2^-127, 2^127 * 1.5) or not a positive
// normal double wraps above 254 and is reported in `outside`.
MINIFLOAT_AVX512 inline __m512i encode16_e8m0_nearest(const double* in, __mmask16 lanes, __mmask16& outside) {
    const __m512i low = _mm512_maskz_loadu_epi64(static_cast<__mmask8>(lanes), in);
    const __m512i high = _mm512_maskz_loadu_epi64(static_cast<__mmask8>(lanes >> 8), in + 8);
    const __m512i odd_dwords = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const __m512i upper = _mm512_permutex2var_epi32(low, odd_dwords, high);
    const __m512i half_bit = _mm512_and_si512(_mm512_srli_epi32(upper, 19), _mm512_set1_epi32(1));
    const __m512i code = _mm512_sub_epi32(_mm512_add_epi32(_mm512_srli_epi32(upper, 20), half_bit),
                                          _mm512_set1_epi32(1023 - 127));
    outside |= _mm512_cmpgt_epu32_mask(code, _mm512_set1_epi32(254));
    return code;
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

template <Rounding Mode, class Source>
MINIFLOAT_AVX512 inline __m512i encode16_e8m0_from(const Source* in, __mmask16 lanes, __mmask16& outside) {
    if constexpr (std::is_same_v<Source, double> && Mode == Rounding::nearest_even) {
        return encode16_e8m0_nearest(in, lanes, outside);
    } else {
        const __m512i u = load16(in, lanes);
        if constexpr (std::is_same_v<Source, double>) {
            // beyond float32's range the narrowing stops at FLT_MAX, which
            // the directed modes would not flag as an overflow
            outside |= _mm512_cmpeq_epi32_mask(u, _mm512_set1_epi32(0x7F7FFFFF));
        }
        return encode16_e8m0<Mode>(u, outside);
    }
}

template <bool ExponentOnly, Rounding Mode, class Source>
MINIFLOAT_AVX512 bool encode_block(const FastConstants<uint32_t, float>& k, const Source* in, uint8_t* out,
                                   size_t n, uint32_t& flags) {
    const Vectors v = broadcast<Mode>(k);
    const __m512i pattern = low_byte_pattern();
    __mmask16 outside = 0;  // e8m0 lanes the fast path does not handle
    SpecialLanes seen;
    constexpr __mmask16 kAll = 0xFFFF;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m512i c[4];
        if constexpr (ExponentOnly) {
            for (int q = 0; q < 4; q++) c[q] = encode16_e8m0_from<Mode>(in + i + 16 * q, kAll, outside);
        } else {
            __m512i u[4];
            __mmask16 special = 0;
            for (int q = 0; q < 4; q++) {
                u[q] = load16(in + i + 16 * q, kAll);
                c[q] = encode16<Mode>(v, u[q], special);
            }
            if (special != 0) {
                for (int q = 0; q < 4; q++) c[q] = fix_special16<Mode>(v, u[q], c[q], seen);
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
            c = encode16_e8m0_from<Mode>(in + i, lanes, lane_outside);
        } else {
            const __m512i u = load16(in + i, lanes);
            __mmask16 special = 0;
            c = encode16<Mode>(v, u, special);
            if (special != 0) c = fix_special16<Mode>(v, u, c, seen);
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

template <class Source>
MINIFLOAT_AVX512 bool encode_block_any(const FastConstants<uint32_t, float>& k, bool exponent_only, Rounding mode,
                                       const Source* in, uint8_t* out, size_t n, uint32_t& flags) {
    switch (mode) {
        case Rounding::nearest_even:
            return exponent_only ? encode_block<true, Rounding::nearest_even>(k, in, out, n, flags)
                                 : encode_block<false, Rounding::nearest_even>(k, in, out, n, flags);
        case Rounding::nearest_away:
            return exponent_only ? encode_block<true, Rounding::nearest_away>(k, in, out, n, flags)
                                 : encode_block<false, Rounding::nearest_away>(k, in, out, n, flags);
        case Rounding::toward_zero:
            return exponent_only ? encode_block<true, Rounding::toward_zero>(k, in, out, n, flags)
                                 : encode_block<false, Rounding::toward_zero>(k, in, out, n, flags);
        case Rounding::up:
            return exponent_only ? encode_block<true, Rounding::up>(k, in, out, n, flags)
                                 : encode_block<false, Rounding::up>(k, in, out, n, flags);
        case Rounding::down:
            return exponent_only ? encode_block<true, Rounding::down>(k, in, out, n, flags)
                                 : encode_block<false, Rounding::down>(k, in, out, n, flags);
        case Rounding::stochastic:
            return false;
    }
    return false;
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

}  // namespace

bool encode_f32_u8_block_avx512(const FastConstants<uint32_t, float>& k, bool exponent_only, Rounding mode,
                                const float* in, uint8_t* out, size_t n, uint32_t& flags) {
    return avx512_vbmi_usable() && encode_block_any(k, exponent_only, mode, in, out, n, flags);
}

bool encode_f64_u8_block_avx512(const FastConstants<uint32_t, float>& k, bool exponent_only, Rounding mode,
                                const double* in, uint8_t* out, size_t n, uint32_t& flags) {
    return avx512_vbmi_usable() && encode_block_any(k, exponent_only, mode, in, out, n, flags);
}

bool encode_bf16_u8_block_avx512(const FastConstants<uint32_t, float>& k, bool exponent_only, Rounding mode,
                                 const uint16_t* in, uint8_t* out, size_t n, uint32_t& flags) {
    return avx512_vbmi_usable() && encode_block_any(k, exponent_only, mode, in, out, n, flags);
}

bool round_to_odd_f32_avx512(const double* in, float* out, size_t n) {
    if (!avx512_vbmi_usable()) return false;
    round_to_odd(in, out, n);
    return true;
}

}  // namespace minifloat

#else

namespace minifloat {
bool encode_f32_u8_block_avx512(const FastConstants<uint32_t, float>&, bool, Rounding, const float*, uint8_t*, size_t,
                                uint32_t&) {
    return false;
}
bool encode_f64_u8_block_avx512(const FastConstants<uint32_t, float>&, bool, Rounding, const double*, uint8_t*,
                                size_t, uint32_t&) {
    return false;
}
bool encode_bf16_u8_block_avx512(const FastConstants<uint32_t, float>&, bool, Rounding, const uint16_t*, uint8_t*,
                                 size_t, uint32_t&) {
    return false;
}
bool round_to_odd_f32_avx512(const double*, float*, size_t) { return false; }
}  // namespace minifloat

#endif
