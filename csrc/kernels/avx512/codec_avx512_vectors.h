// The vector pieces of the AVX-512 float32 -> 8-bit encoder, shared by the
// cast kernels (codec_avx512.cpp) and the fused 8-bit arithmetic
// (arith_avx512.cpp): per-mode constants, 16 codes from 16 float32 bit
// patterns, the overflow/inf/NaN fix-up, and packing 64 codes. Include only
// from x86-64 GCC/Clang translation units.
#pragma once

#include <immintrin.h>

#include "fast_encoder_constants.h"

namespace minifloat {
namespace avx512_encoder {

#define MINIFLOAT_AVX512_ENCODER __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi")))

constexpr int kRoundToZero = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
constexpr int kRoundUp = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;

template <Rounding Mode>
constexpr bool kDirected = Mode == Rounding::toward_zero || Mode == Rounding::up || Mode == Rounding::down;

struct Vectors {
    __m512i abs_mask, round_bias, lsb_bit, away_increment, unsigned_from, one, normal_from,
        special_from, toward_zero_overflow_from, inf_bits, sign_bit, overflow_positive, overflow_negative,
        max_positive, max_negative, inf_positive, inf_negative, nan_positive, nan_negative, invalid_code,
        low_byte;
    // formats without zero: the magic sum's bits at the first binade's first
    // code (the magic constant plus 2^M steps)
    __m512i first_code_sum;
    // deep normals (normals below float32's): float32's smallest normal, and
    // the exponent fields 2^64 adds
    __m512i float32_normal_from, deep_rebias;
    __m512 two_to_64;
    __m512i shift;  // per lane: vpsrlvd is one uop, a shift by an xmm count two
    // fnuz formats (no -0) sign only a non-zero magnitude: the sign goes on
    // lanes where (magnitude | sign_keep_bit) & sign_test_bits is not zero,
    // sign_keep_bit being bit 31 (never set in a lane's magnitude, whose
    // upper bits may hold junk) except for them: no branch on the format in
    // the loop
    __m512i sign_keep_bit, sign_test_bits;
    // float64 upper halves (upper_half_vectors): 2^-126's half, and the
    // exponent difference to float32's bits
    __m512i tiny_floor, tiny_rebias;
    __m512 magic, half_step;
};

// The constants of `k` for rounding mode Mode. Magnitudes are float32 bits
// without the sign; a normal code c is the magnitude (c + rebias) << shift.
template <Rounding Mode>
MINIFLOAT_AVX512_ENCODER inline Vectors broadcast(const FastConstants<uint32_t, float>& k) {
    const ModeThresholds t = mode_thresholds(k, Mode);
    Vectors v;
    v.abs_mask = _mm512_set1_epi32(0x7FFFFFFF);
    v.round_bias = _mm512_set1_epi32(static_cast<int>(t.round_bias));
    v.lsb_bit = _mm512_set1_epi32(static_cast<int>(t.tie_parity_bit));
    v.away_increment = _mm512_set1_epi32(static_cast<int>(t.away_increment));
    v.unsigned_from = _mm512_set1_epi32(static_cast<int>(t.unsigned_from));
    constexpr uint32_t kBit31 = 1u << 31;
    v.sign_keep_bit = _mm512_set1_epi32(static_cast<int>(k.zero_drops_sign != 0 ? 0u : kBit31));
    v.sign_test_bits = _mm512_set1_epi32(static_cast<int>((k.sign_bit - 1u) | kBit31));
    v.one = _mm512_set1_epi32(1);
    v.normal_from = _mm512_set1_epi32(static_cast<int>(k.normal_from));
    v.special_from = _mm512_set1_epi32(static_cast<int>(t.special_from));
    v.toward_zero_overflow_from = _mm512_set1_epi32(static_cast<int>(t.toward_zero_overflow_from));
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
    v.invalid_code = _mm512_set1_epi32(static_cast<int>(k.invalid_code));
    v.low_byte = _mm512_set1_epi32(0xFF);
    const uint32_t mantissa_bits = k.source_fraction_bits - k.shift;
    v.first_code_sum = _mm512_set1_epi32(static_cast<int>(k.magic_bits + (1u << mantissa_bits)));
    v.float32_normal_from = _mm512_set1_epi32(0x00800000);
    v.deep_rebias = _mm512_set1_epi32(64 << 23);
    v.two_to_64 = _mm512_set1_ps(18446744073709551616.0f);
    v.shift = _mm512_set1_epi32(static_cast<int>(k.shift));
    v.magic = _mm512_set1_ps(k.magic);
    float half_step;
    __builtin_memcpy(&half_step, &t.half_step_bits, sizeof half_step);
    v.half_step = _mm512_set1_ps(half_step);
    v.tiny_floor = _mm512_setzero_si512();
    v.tiny_rebias = _mm512_setzero_si512();
    return v;
}

// The constants for float64 upper halves (`high`: the format's constants for
// a float with 11 exponent and 20 fraction bits, DoubleHighWordTraits in
// convert_kernels.cpp) with the lower half folded into bit 0 as a sticky bit,
// i.e. rounded to odd at 20 fraction bits, which every mode then rounds as
// the double itself (the AVX2 encoder's method, codec_avx2_vectors.h). The
// subnormal range is rounded as float32s: the magic constant and half step
// are float32's (`f32`). Kept apart from the AVX2 twin on purpose: the
// widths, masks (not all-ones lanes) and constant sets differ, and one
// template over both ISAs would wrap every intrinsic of the hot loop.
template <Rounding Mode>
MINIFLOAT_AVX512_ENCODER inline Vectors upper_half_vectors(const FastConstants<uint32_t, float>& high,
                                                           const FastConstants<uint32_t, float>& f32) {
    Vectors v = broadcast<Mode>(high);
    const Vectors single = broadcast<Mode>(f32);
    v.magic = single.magic;
    v.half_step = single.half_step;
    v.first_code_sum = single.first_code_sum;
    v.tiny_floor = _mm512_set1_epi32((1023 - 126) << 20);
    v.tiny_rebias = _mm512_set1_epi32((1023 - 127) << 20);
    return v;
}

// Lanes whose magnitude a directed mode rounds away from zero.
template <Rounding Mode>
MINIFLOAT_AVX512_ENCODER inline __mmask16 away_lanes(__mmask16 negative) {
    if constexpr (Mode == Rounding::up) return static_cast<__mmask16>(~negative);
    if constexpr (Mode == Rounding::down) return negative;
    return 0;
}

// 16 codes (one per dword, in its low byte: the upper bytes may hold
// junk) from 16 floats, for values up to overflow; adds the lanes at or
// beyond the overflow threshold (overflow, inf, NaN) to `special`, whose
// codes the caller then fixes with fix_special16. UpperHalves: u holds
// float64 upper halves with the sticky bit and `v` their constants
// (upper_half_vectors). Other layouts than signed_with_zero also add the
// lanes that may be invalid (fix_special16): an unsigned format's negative
// lanes that do not round to zero (its code is the magnitude), and zeros
// where the format has none. DeepNormals (float32 bits only): the format's
// normals start below float32's, and the normal lanes among float32's
// subnormals are first scaled by 2^64 (exact), their bits then rebiased by
// 64 exponents: the same integer rounding then applies to them.
template <Rounding Mode, bool UpperHalves = false, Layout L = Layout::signed_with_zero, bool DeepNormals = false>
MINIFLOAT_AVX512_ENCODER inline __m512i encode16(const Vectors& v, __m512i u, __mmask16& special) {
    static_assert(!(UpperHalves && DeepNormals), "upper halves serve formats with normals within float32's");
    const __m512i a = _mm512_and_si512(u, v.abs_mask);
    __m512 a_float = _mm512_castsi512_ps(a);
    if constexpr (UpperHalves) {
        // below the normal range (the only lanes that read it), as float32
        // bits (the sticky bit lands in bit 3, far below any 8-bit format's
        // step): exact from 2^-126 up; smaller magnitudes are raised to
        // 2^-126, which rounds as they do, except zero away from zero (below)
        a_float = _mm512_castsi512_ps(
            _mm512_slli_epi32(_mm512_sub_epi32(_mm512_max_epi32(a, v.tiny_floor), v.tiny_rebias), 3));
    }
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
        __mmask16 away = away_lanes<Mode>(negative);
        if constexpr (UpperHalves) away &= _mm512_test_epi32_mask(a, a);  // zero stays zero
        sum = _mm512_maskz_add_round_ps(tiny & ~away, a_float, v.magic, kRoundToZero);
        if constexpr (Mode != Rounding::toward_zero) {
            sum = _mm512_mask_add_round_ps(sum, tiny & away, a_float, v.magic, kRoundUp);
        }
    }
    // normal: add the rounding increment (the rebias folded in), then shift
    // down into the subnormal lanes' gaps
    __m512i x = a;
    if constexpr (DeepNormals) {
        const __mmask16 deep = _mm512_mask_cmplt_epu32_mask(normal, a, v.float32_normal_from);
        // (masked: the other lanes could overflow, and masked lanes raise no FP flags)
        const __m512 scaled = _mm512_maskz_mul_ps(deep, a_float, v.two_to_64);
        x = _mm512_mask_sub_epi32(a, deep, _mm512_castps_si512(scaled), v.deep_rebias);
    }
    __m512i rounded = _mm512_add_epi32(x, v.round_bias);
    if constexpr (Mode == Rounding::nearest_even) {
        rounded = _mm512_mask_add_epi32(rounded, _mm512_test_epi32_mask(x, v.lsb_bit), rounded, v.one);
    } else if constexpr (Mode == Rounding::up || Mode == Rounding::down) {
        rounded = _mm512_mask_add_epi32(rounded, away_lanes<Mode>(negative), rounded, v.away_increment);
    }
    __m512i tiny_code = _mm512_castps_si512(sum);
    if constexpr (!has_zero(L)) {
        // steps from zero less the 2^M below the first binade; below it, its first code
        tiny_code = _mm512_max_epi32(_mm512_sub_epi32(tiny_code, v.first_code_sum), _mm512_setzero_si512());
    }
    const __m512i magnitude = _mm512_mask_srlv_epi32(tiny_code, normal, rounded, v.shift);
    special |= _mm512_cmpge_epu32_mask(a, v.special_from);
    if constexpr (!has_zero(L)) special |= _mm512_testn_epi32_mask(a, a);
    if constexpr (is_unsigned(L)) {
        if constexpr (has_zero(L)) {
            // (the low byte: a subnormal lane's upper bytes hold the magic constant's)
            special |= _mm512_mask_test_epi32_mask(negative, magnitude, v.low_byte);
        } else {
            special |= negative;
        }
        return magnitude;
    }
    // the sign bit on negative lanes; fnuz formats (no -0): only on those
    // whose magnitude is not zero
    __mmask16 signed_lanes;
    if constexpr (Mode == Rounding::nearest_even) {
        signed_lanes = _mm512_cmpgt_epu32_mask(u, v.unsigned_from);
    } else {
        signed_lanes = _mm512_mask_test_epi32_mask(negative, _mm512_or_si512(magnitude, v.sign_keep_bit),
                                                   v.sign_test_bits);
    }
    return _mm512_mask_or_epi32(magnitude, signed_lanes, magnitude, v.sign_bit);
}

// Codes for the lanes of `code` at or beyond the overflow threshold:
// overflow (to the overflow code, or to max where the mode rounds the
// magnitude down), inf and NaN (each by sign), recording which occurred.
// Invalid lanes take the invalid code instead: zeros of a format without
// zero; an unsigned format's negative lanes that do not round to zero
// (overflowing ones included; without zero all of them), and its -inf.
struct SpecialLanes {
    __mmask16 overflow = 0, inf = 0, nan = 0, invalid = 0;
};
template <Rounding Mode, Layout L = Layout::signed_with_zero>
MINIFLOAT_AVX512_ENCODER inline __m512i fix_special16(const Vectors& v, __m512i u, __m512i code, SpecialLanes& seen) {
    const __m512i a = _mm512_and_si512(u, v.abs_mask);
    const __mmask16 negative = _mm512_cmplt_epi32_mask(u, _mm512_setzero_si512());
    const __mmask16 is_inf = _mm512_cmpeq_epu32_mask(a, v.inf_bits);
    const __mmask16 is_nan = _mm512_cmpgt_epu32_mask(a, v.inf_bits);
    const __mmask16 finite = static_cast<__mmask16>(~(is_inf | is_nan));
    __mmask16 toward_zero = 0;  // lanes whose magnitude the mode rounds down
    if constexpr (kDirected<Mode>) toward_zero = static_cast<__mmask16>(~away_lanes<Mode>(negative));
    __mmask16 invalid = 0;
    if constexpr (!has_zero(L)) invalid = _mm512_testn_epi32_mask(a, a);
    if constexpr (is_unsigned(L)) {
        __mmask16 invalid_negative = negative;
        if constexpr (has_zero(L)) {
            invalid_negative &= _mm512_test_epi32_mask(code, v.low_byte) | _mm512_cmpge_epu32_mask(a, v.special_from);
        }
        invalid |= invalid_negative & finite;
    }
    const __mmask16 overflow_away = _mm512_cmpge_epu32_mask(a, v.special_from) &
                                    static_cast<__mmask16>(~toward_zero & ~invalid) & finite;
    const __mmask16 overflow_to_max = _mm512_cmpge_epu32_mask(a, v.toward_zero_overflow_from) & toward_zero &
                                      static_cast<__mmask16>(~invalid) & finite;
    code = _mm512_mask_blend_epi32(overflow_away, code,
                                   _mm512_mask_blend_epi32(negative, v.overflow_positive, v.overflow_negative));
    if constexpr (kDirected<Mode>) {
        code = _mm512_mask_blend_epi32(overflow_to_max, code,
                                       _mm512_mask_blend_epi32(negative, v.max_positive, v.max_negative));
    }
    if constexpr (L != Layout::signed_with_zero) code = _mm512_mask_blend_epi32(invalid, code, v.invalid_code);
    if (finite != 0xFFFF) {  // rarer than finite overflow
        code = _mm512_mask_blend_epi32(is_inf, code, _mm512_mask_blend_epi32(negative, v.inf_positive, v.inf_negative));
        code = _mm512_mask_blend_epi32(is_nan, code, _mm512_mask_blend_epi32(negative, v.nan_positive, v.nan_negative));
    }
    seen.overflow |= overflow_away | overflow_to_max;
    seen.inf |= is_inf;
    seen.nan |= is_nan;
    seen.invalid |= invalid;
    if constexpr (is_unsigned(L)) seen.invalid |= negative & is_inf;
    return code;
}


// Byte 0 of every dword of two vectors into the low 32 bytes: index 4i is
// byte 0 of dword i of the first vector for i < 16 and, with bit 6 set,
// of dword i - 16 of the second.
MINIFLOAT_AVX512_ENCODER inline __m512i low_byte_pattern() {
    alignas(64) uint8_t pick[64] = {};
    for (int i = 0; i < 32; i++) pick[i] = static_cast<uint8_t>(4 * i);
    return _mm512_load_si512(pick);
}

MINIFLOAT_AVX512_ENCODER inline __m512i pack64(__m512i pattern, __m512i c0, __m512i c1, __m512i c2, __m512i c3) {
    const __m512i packed01 = _mm512_permutex2var_epi8(c0, pattern, c1);
    const __m512i packed23 = _mm512_permutex2var_epi8(c2, pattern, c3);
    return _mm512_inserti64x4(packed01, _mm512_castsi512_si256(packed23), 1);
}


}  // namespace avx512_encoder
}  // namespace minifloat
