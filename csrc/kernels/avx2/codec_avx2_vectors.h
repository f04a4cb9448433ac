// The vector pieces of the AVX2 8-bit codec (the cast kernels of
// codec_avx2.cpp): 8 codes from 8 float32 bit patterns (or float64 upper
// halves) for every deterministic rounding mode, the overflow/inf/NaN
// fix-up, 8 float32 bit patterns from 8 codes. AVX2 has no mask registers
// or embedded rounding, so selects are blends and the subnormal range is
// rounded by the FPU (nearest even) or with vroundps's explicit directions.
// Include only from x86-64 GCC/Clang translation units.
#pragma once

#include <immintrin.h>

#include "avx2_lanes.h"
#include "avx2_pack.h"
#include "convert_kernels.h"
#include "fast_encoder_constants.h"

namespace minifloat {
namespace avx2_codec {

#define MINIFLOAT_AVX2_CODEC __attribute__((target("avx2")))
// The vector pieces are inlined into their kernels whatever the compiler's
// size heuristics say: out of line, each 8-lane step became a call with
// vectors passed through memory (the AVX2 bfloat16 encoder ran at half speed).
#define MINIFLOAT_AVX2_INLINE __attribute__((target("avx2"), always_inline)) inline

struct EncodeVectors {
    __m256i abs_mask, round_bias, away_increment, normal_from, normal_below, special_below, sign_bit,
        unsigned_from_flipped, flip, magnitude_bits, one, toward_zero_overflow_below, inf_bits, overflow_positive,
        overflow_negative, max_positive, max_negative, inf_positive, inf_negative, nan_positive, nan_negative,
        invalid_code;
    __m256i magic_bits;
    // nearest even: 1 where a normal tie goes to the even code, 0 where
    // every one goes up (no mantissa bit: see mode_thresholds)
    __m256i tie_parity;
    // formats without zero: the steps of the first binade (2^M), which the
    // subnormal rounding counts from zero
    __m256i first_binade_steps;
    __m256i sign_byte;  // the sign bit of a code in every byte (pack32_bytes_with_signs)
    // float64 upper halves (upper_half_vectors): 2^-126's half, and the
    // exponent difference to float32's bits
    __m256i tiny_floor, tiny_rebias;
    // shift counts in every lane: vpsrlvd and kin are one uop, a shift by an
    // xmm count two on Intel cores
    __m256i shift, sign_shift;
    __m256 magic, inverse_step, half, one_float;
    bool zero_drops_sign;
    // Finite overflowing lanes take their code from the magnitude clamped at
    // overflow_magnitude, the sign added by the packing: the nearest modes of
    // signed formats whose overflow code, for either sign, is the largest
    // finite magnitude or the next one (see encode32_codes).
    bool clamps_overflow;
    __m256i overflow_magnitude;
};

// The constants of `k` for rounding mode Mode. Magnitudes are float32 bits
// without the sign; a normal code c is the magnitude (c + rebias) << shift.
template <Rounding Mode>
MINIFLOAT_AVX2_INLINE EncodeVectors encode_vectors(const FastConstants<uint32_t, float>& k) {
    const ModeThresholds t = mode_thresholds(k, Mode);
    EncodeVectors v;
    v.abs_mask = _mm256_set1_epi32(0x7FFFFFFF);
    v.round_bias = _mm256_set1_epi32(static_cast<int>(t.round_bias));
    v.away_increment = _mm256_set1_epi32(static_cast<int>(t.away_increment));
    // magnitudes are below 2^31, so signed compares order them
    v.normal_from = _mm256_set1_epi32(static_cast<int>(k.normal_from));
    v.normal_below = _mm256_set1_epi32(static_cast<int>(k.normal_from - 1));
    v.special_below = _mm256_set1_epi32(static_cast<int>(t.special_from - 1));
    v.sign_bit = _mm256_set1_epi32(static_cast<int>(k.sign_bit));
    v.sign_byte = _mm256_set1_epi8(static_cast<char>(k.sign_bit));
    v.toward_zero_overflow_below = _mm256_set1_epi32(static_cast<int>(t.toward_zero_overflow_from - 1));
    v.inf_bits = _mm256_set1_epi32(static_cast<int>(k.inf_bits));
    v.overflow_positive = _mm256_set1_epi32(static_cast<int>(k.overflow_code));
    v.overflow_negative = _mm256_set1_epi32(static_cast<int>(k.overflow_negative));
    v.max_positive = _mm256_set1_epi32(static_cast<int>(k.max_positive));
    v.max_negative = _mm256_set1_epi32(static_cast<int>(k.max_negative));
    v.inf_positive = _mm256_set1_epi32(static_cast<int>(k.inf_positive));
    v.inf_negative = _mm256_set1_epi32(static_cast<int>(k.inf_negative));
    v.nan_positive = _mm256_set1_epi32(static_cast<int>(k.nan_positive));
    v.nan_negative = _mm256_set1_epi32(static_cast<int>(k.nan_negative));
    v.invalid_code = _mm256_set1_epi32(static_cast<int>(k.invalid_code));
    v.tie_parity = _mm256_set1_epi32(t.tie_parity_bit != 0 ? 1 : 0);
    v.first_binade_steps = _mm256_set1_epi32(1 << (k.source_fraction_bits - k.shift));
    // unsigned compares as signed ones with the top bit flipped
    v.flip = _mm256_set1_epi32(static_cast<int>(0x80000000u));
    v.unsigned_from_flipped = _mm256_set1_epi32(static_cast<int>(t.unsigned_from ^ 0x80000000u));
    v.magnitude_bits = _mm256_set1_epi32(static_cast<int>(k.sign_bit - 1u));
    v.one = _mm256_set1_epi32(1);
    v.shift = _mm256_set1_epi32(static_cast<int>(k.shift));
    v.sign_shift = _mm256_set1_epi32(static_cast<int>(k.sign_shift));
    v.magic = _mm256_set1_ps(k.magic);
    v.magic_bits = _mm256_set1_epi32(static_cast<int>(k.magic_bits));
    // the magic constant's ulp is the step; only the 8-bit formats' directed
    // modes use this, and bfloat16's 2^133 would overflow float32 (and raise
    // the FPU's overflow flag, which NumPy reports), so it is clamped first;
    // the e8m0 kernels' value-initialized upper-half constants (magic 0,
    // unused) must not divide by zero: that flag too would reach NumPy where
    // the compiler keeps the division (GCC at -O1 did)
    const double inverse_step = k.magic > 0 ? 8388608.0 / static_cast<double>(k.magic) : 0.0;
    v.inverse_step = _mm256_set1_ps(static_cast<float>(inverse_step < 3.0e38 ? inverse_step : 3.0e38));
    v.half = _mm256_set1_ps(0.5f);
    v.one_float = _mm256_set1_ps(1.0f);
    v.zero_drops_sign = k.zero_drops_sign != 0;
    // (a nearest mode rounds a lane at or beyond the overflow threshold to at
    // least the magnitude after the largest, and every other lane to at most
    // the largest; fnuz formats overflow to their NaN, the sign bit alone)
    v.clamps_overflow = (Mode == Rounding::nearest_even || Mode == Rounding::nearest_away) && k.sign_bit != 0 &&
                        (k.overflow_code & k.sign_bit) == 0 && k.overflow_negative == (k.overflow_code | k.sign_bit) &&
                        (k.overflow_code == k.max_magnitude || k.overflow_code == k.max_magnitude + 1);
    v.overflow_magnitude = _mm256_set1_epi32(static_cast<int>(k.overflow_code));
    v.tiny_floor = _mm256_setzero_si256();
    v.tiny_rebias = _mm256_setzero_si256();
    return v;
}

// The constants for float64 upper halves (`high`: DoubleHighWordTraits')
// whose subnormal range encode8<..., UpperHalves> rounds as float32s: the
// magic constant and step are float32's (`f32`).
template <Rounding Mode>
MINIFLOAT_AVX2_INLINE EncodeVectors upper_half_vectors(const FastConstants<uint32_t, float>& high,
                                                            const FastConstants<uint32_t, float>& f32) {
    EncodeVectors v = encode_vectors<Mode>(high);
    const EncodeVectors single = encode_vectors<Mode>(f32);
    v.magic = single.magic;
    v.magic_bits = single.magic_bits;
    v.inverse_step = single.inverse_step;
    v.tiny_floor = _mm256_set1_epi32((1023 - 126) << 20);
    v.tiny_rebias = _mm256_set1_epi32((1023 - 127) << 20);
    return v;
}

// Lanes whose magnitude a directed mode rounds away from zero (all ones).
template <Rounding Mode>
MINIFLOAT_AVX2_INLINE __m256i away_lanes(__m256i negative) {
    if constexpr (Mode == Rounding::up) return _mm256_xor_si256(negative, _mm256_set1_epi32(-1));
    if constexpr (Mode == Rounding::down) return negative;
    return _mm256_setzero_si256();
}

// The sign bit of each code: every negative lane keeps it, except in
// formats without -0 (fnuz), where only lanes of a nonzero code do
// (nearest even: those above half the subnormal step).
// The sign bit of each code where every negative lane keeps it.
MINIFLOAT_AVX2_INLINE __m256i sign_bits(const EncodeVectors& v, __m256i u) {
    return _mm256_and_si256(_mm256_srlv_epi32(u, v.sign_shift), v.sign_bit);
}

template <Rounding Mode>
MINIFLOAT_AVX2_INLINE __m256i sign_of(const EncodeVectors& v, __m256i u, __m256i magnitude, __m256i negative) {
    if (!v.zero_drops_sign) return sign_bits(v, u);
    if constexpr (Mode == Rounding::nearest_even) {
        return _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_xor_si256(u, v.flip), v.unsigned_from_flipped), v.sign_bit);
    } else {
        const __m256i zero = _mm256_cmpeq_epi32(_mm256_and_si256(magnitude, v.magnitude_bits), _mm256_setzero_si256());
        return _mm256_and_si256(_mm256_andnot_si256(zero, negative), v.sign_bit);
    }
}

// 8 codes (one per dword, 0..255) from 8 float32 bit patterns; folds their
// magnitudes into `largest`, for any_special. Nearest even rounds the
// subnormal range by adding the magic constant, MXCSR rounding to nearest
// (the encoders' entry points see to it: DefaultFpuModeScope); the other
// modes by vroundps's explicit directions.
// MaySubnormal false: the caller knows every magnitude is at least the
// smallest normal (all_normal), so the subnormal rounding is left out.
// UpperHalves: u holds float64 upper halves with the sticky bit (see
// upper_half_vectors), not float32 bits. WithSign false: the magnitude only
// (formats that keep -0 then take the sign bits when packing, see
// pack32_bytes_with_signs). WithoutZero: the format has no zero (Layout),
// its first binade counted from the subnormal rounding's 2^M steps, values
// below it taking its first code. LowNormals: the format's normals start
// at 2^-126 or 2^-127, and the normal formula must not serve float32's
// subnormals: read as normal ones they are more than their value (from
// 2^-127 it would give zero the first normal code; without a mantissa bit
// it would round 2^-127, the tie between zero and 2^-126, up).
template <Rounding Mode, bool MaySubnormal = true, bool UpperHalves = false, bool WithSign = true,
          bool WithoutZero = false, bool LowNormals = false>
MINIFLOAT_AVX2_INLINE __m256i encode8(const EncodeVectors& v, __m256i u, __m256i& largest) {
    const __m256i a = _mm256_and_si256(u, v.abs_mask);
    const __m256i negative = _mm256_srai_epi32(u, 31);
    // Both ranges are rounded for every lane and the larger result kept: the
    // normal-range formula gives a subnormal magnitude no more than its
    // subnormal rounding (it drops the implicit bit, and rounding is
    // monotonic; far below, it goes negative; LowNormals: see
    // above), and the subnormal formula, fed at most the largest
    // subnormal-range float, gives a normal magnitude no more than the
    // smallest normal code.
    // normal: add the rounding increment (rebias folded in), truncate at `shift`
    __m256i rounded = _mm256_add_epi32(a, v.round_bias);
    if constexpr (Mode == Rounding::nearest_even) {
        rounded = _mm256_add_epi32(rounded, _mm256_and_si256(_mm256_srlv_epi32(a, v.shift), v.tie_parity));
    } else if constexpr (Mode == Rounding::up || Mode == Rounding::down) {
        rounded = _mm256_add_epi32(rounded, _mm256_and_si256(away_lanes<Mode>(negative), v.away_increment));
    }
    const __m256i normal_magnitude = _mm256_srav_epi32(rounded, v.shift);
    if constexpr (!MaySubnormal) {
        largest = _mm256_max_epi32(largest, a);
        if constexpr (!WithSign) return normal_magnitude;
        return _mm256_or_si256(normal_magnitude, sign_of<Mode>(v, u, normal_magnitude, negative));
    }
    // subnormal: finite and small in every lane, so no FP flags
    __m256 tiny;
    if constexpr (UpperHalves) {
        // as float32 bits (the sticky bit landing in bit 3, far below any
        // 8-bit format's step): exact from 2^-126 up; smaller magnitudes
        // are raised to 2^-126, which rounds as they do, except zero away
        // from zero (below)
        const __m256i clamped = _mm256_max_epi32(_mm256_min_epi32(a, v.normal_below), v.tiny_floor);
        tiny = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_sub_epi32(clamped, v.tiny_rebias), 3));
    } else {
        tiny = _mm256_castsi256_ps(_mm256_min_epi32(a, v.normal_below));
    }
    __m256i tiny_magnitude;
    if constexpr (Mode == Rounding::nearest_even) {
        // adding the magic constant rounds at the subnormal step
        tiny_magnitude = _mm256_sub_epi32(_mm256_castps_si256(_mm256_add_ps(tiny, v.magic)), v.magic_bits);
    } else {
        // the value in subnormal steps (exact: a power of two), rounded
        const __m256 steps = _mm256_mul_ps(tiny, v.inverse_step);
        constexpr int kToZero = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
        constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
        __m256 whole;
        if constexpr (Mode == Rounding::nearest_even) {
            whole = _mm256_round_ps(steps, kNearest);
        } else if constexpr (Mode == Rounding::toward_zero) {
            whole = _mm256_round_ps(steps, kToZero);
        } else if constexpr (Mode == Rounding::nearest_away) {
            // nearest even, then ties (an exact .5 above the floor) go up
            const __m256 floor = _mm256_round_ps(steps, kToZero);
            const __m256 tie = _mm256_cmp_ps(_mm256_sub_ps(steps, floor), v.half, _CMP_EQ_OQ);
            whole = _mm256_blendv_ps(_mm256_round_ps(steps, kNearest), _mm256_add_ps(floor, v.one_float), tie);
        } else {
            const __m256 down = _mm256_round_ps(steps, kToZero);
            const __m256 up = _mm256_round_ps(steps, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
            whole = _mm256_blendv_ps(down, up, _mm256_castsi256_ps(away_lanes<Mode>(negative)));
        }
        tiny_magnitude = _mm256_cvttps_epi32(whole);
        if constexpr (UpperHalves && (Mode == Rounding::up || Mode == Rounding::down)) {
            tiny_magnitude = _mm256_andnot_si256(_mm256_cmpeq_epi32(a, _mm256_setzero_si256()), tiny_magnitude);
        }
    }
    if constexpr (WithoutZero) {  // below the first binade: its first code
        tiny_magnitude = _mm256_max_epi32(_mm256_sub_epi32(tiny_magnitude, v.first_binade_steps), _mm256_setzero_si256());
    }
    __m256i magnitude;
    if constexpr (LowNormals) {
        magnitude = _mm256_blendv_epi8(tiny_magnitude, normal_magnitude, _mm256_cmpgt_epi32(a, v.normal_below));
    } else {
        magnitude = _mm256_max_epi32(tiny_magnitude, normal_magnitude);
    }
    largest = _mm256_max_epi32(largest, a);
    if constexpr (!WithSign) return magnitude;
    return _mm256_or_si256(magnitude, sign_of<Mode>(v, u, magnitude, negative));
}

// Whether all 32 magnitudes of u[0..3] are at least the smallest normal
// float of the format: then encode8 needs no subnormal rounding. Typical
// scaled data has such blocks almost only; zeros and tiny values take the
// full path.
MINIFLOAT_AVX2_INLINE bool all_normal(const EncodeVectors& v, const __m256i u[4]) {
    const __m256i smallest =
        _mm256_min_epi32(_mm256_min_epi32(_mm256_and_si256(u[0], v.abs_mask), _mm256_and_si256(u[1], v.abs_mask)),
                         _mm256_min_epi32(_mm256_and_si256(u[2], v.abs_mask), _mm256_and_si256(u[3], v.abs_mask)));
    return _mm256_testz_si256(_mm256_cmpgt_epi32(v.normal_from, smallest), _mm256_set1_epi32(-1));
}

// Whether any magnitude folded into `largest` is at or beyond the mode's
// overflow threshold (overflow, inf, NaN): those lanes need fix_special8.
MINIFLOAT_AVX2_INLINE bool any_special(const EncodeVectors& v, __m256i largest) {
    return !_mm256_testz_si256(_mm256_cmpgt_epi32(largest, v.special_below), _mm256_set1_epi32(-1));
}

// Codes for the lanes of `code` at or beyond the overflow threshold:
// overflow (to the overflow code, or to max where the mode rounds the
// magnitude down), inf and NaN (each by sign); ORs the lanes of each kind
// into `seen`. Layouts other than signed_with_zero: invalid lanes take the
// invalid code instead: zeros of a format without zero; an unsigned
// format's negative lanes that do not round to zero (overflowing ones
// included; without zero all of them), and its -inf (flagged invalid).
struct SpecialLanes {
    __m256i overflow, inf, nan, invalid;
    MINIFLOAT_AVX2_CODEC SpecialLanes()
        : overflow(_mm256_setzero_si256()), inf(_mm256_setzero_si256()), nan(_mm256_setzero_si256()),
          invalid(_mm256_setzero_si256()) {}
};
// Finite: the caller knows no lane is inf or NaN (their tests and blends are
// left out).
template <Rounding Mode, Layout L = Layout::signed_with_zero, bool Finite = false>
MINIFLOAT_AVX2_INLINE __m256i fix_special8(const EncodeVectors& v, __m256i u, __m256i code, SpecialLanes& seen) {
    const __m256i a = _mm256_and_si256(u, v.abs_mask);
    const __m256i negative = _mm256_srai_epi32(u, 31);
    const __m256i is_inf = Finite ? _mm256_setzero_si256() : _mm256_cmpeq_epi32(a, v.inf_bits);
    const __m256i is_nan = Finite ? _mm256_setzero_si256() : _mm256_cmpgt_epi32(a, v.inf_bits);
    const __m256i not_finite = _mm256_or_si256(is_inf, is_nan);
    constexpr bool kDirected = Mode == Rounding::toward_zero || Mode == Rounding::up || Mode == Rounding::down;
    // lanes whose magnitude the mode rounds down
    __m256i toward_zero = _mm256_setzero_si256();
    if constexpr (kDirected) toward_zero = _mm256_xor_si256(away_lanes<Mode>(negative), _mm256_set1_epi32(-1));
    const __m256i beyond = _mm256_cmpgt_epi32(a, v.special_below);
    __m256i invalid = _mm256_setzero_si256();
    if constexpr (!has_zero(L)) invalid = _mm256_cmpeq_epi32(a, _mm256_setzero_si256());
    if constexpr (is_unsigned(L)) {
        __m256i invalid_negative = negative;
        if constexpr (has_zero(L)) {
            const __m256i rounds_to_zero = _mm256_cmpeq_epi32(code, _mm256_setzero_si256());
            invalid_negative = _mm256_and_si256(invalid_negative, _mm256_or_si256(beyond, _mm256_xor_si256(
                                                                                            rounds_to_zero,
                                                                                            _mm256_set1_epi32(-1))));
        }
        invalid = _mm256_or_si256(invalid, _mm256_andnot_si256(not_finite, invalid_negative));
    }
    const __m256i overflow_away =
        _mm256_andnot_si256(_mm256_or_si256(_mm256_or_si256(toward_zero, not_finite), invalid), beyond);
    code = _mm256_blendv_epi8(code, _mm256_blendv_epi8(v.overflow_positive, v.overflow_negative, negative),
                              overflow_away);
    __m256i overflow = overflow_away;
    if constexpr (kDirected) {
        const __m256i overflow_to_max =
            _mm256_andnot_si256(_mm256_or_si256(not_finite, invalid),
                                _mm256_and_si256(toward_zero, _mm256_cmpgt_epi32(a, v.toward_zero_overflow_below)));
        code = _mm256_blendv_epi8(code, _mm256_blendv_epi8(v.max_positive, v.max_negative, negative), overflow_to_max);
        overflow = _mm256_or_si256(overflow, overflow_to_max);
    }
    if constexpr (L != Layout::signed_with_zero) code = _mm256_blendv_epi8(code, v.invalid_code, invalid);
    seen.overflow = _mm256_or_si256(seen.overflow, overflow);
    if constexpr (!Finite) {
        code = _mm256_blendv_epi8(code, _mm256_blendv_epi8(v.inf_positive, v.inf_negative, negative), is_inf);
        code = _mm256_blendv_epi8(code, _mm256_blendv_epi8(v.nan_positive, v.nan_negative, negative), is_nan);
        seen.inf = _mm256_or_si256(seen.inf, is_inf);
        seen.nan = _mm256_or_si256(seen.nan, is_nan);
        if constexpr (is_unsigned(L)) invalid = _mm256_or_si256(invalid, _mm256_and_si256(negative, is_inf));
    }
    seen.invalid = _mm256_or_si256(seen.invalid, invalid);
    return code;
}

// The FP flags of the special lanes seen.
MINIFLOAT_AVX2_INLINE uint32_t special_flags(const FastConstants<uint32_t, float>& k, const SpecialLanes& seen) {
    uint32_t flags = 0;
    if (!_mm256_testz_si256(seen.overflow, seen.overflow)) flags |= k.overflow_flags;
    if (!_mm256_testz_si256(seen.inf, seen.inf)) flags |= k.inf_flags;
    if (!_mm256_testz_si256(seen.nan, seen.nan)) flags |= k.nan_flags;
    if (!_mm256_testz_si256(seen.invalid, seen.invalid)) flags |= kFlagInvalid;
    return flags;
}

// Lanes float8_e8m0fnu's encoder declines, summed up over many vectors:
// the largest code (unsigned; past 254 where a lane is zero, negative, tiny,
// overflows, inf or NaN: a negative lane's shift lands past the exponent
// field) and the least float32 exponent field (0: a subnormal, whose value
// is not 2^(code - 127)). A max and a min a vector, one test a block:
// checking each vector took five operations (float32 -> float8_e8m0fnu,
// 4M values, AVX2 on an Intel Xeon VM: see docs/kernels.md).
struct E8m0Declined {
    __m256i highest_code, lowest_field;
    MINIFLOAT_AVX2_CODEC E8m0Declined() : highest_code(_mm256_setzero_si256()), lowest_field(_mm256_set1_epi32(-1)) {}
    MINIFLOAT_AVX2_INLINE bool any() const {
        return !all_lanes_at_most(highest_code, _mm256_set1_epi32(254)) ||
               any_lane(_mm256_cmpeq_epi32(lowest_field, _mm256_setzero_si256()));
    }
};

// float8_e8m0fnu from float32 bit patterns (FractionBits 23) or float64
// upper halves (20, see DoubleHighWordTraits): the exponent rebiased, plus
// one where the mode rounds the fraction up (nearest: at least one half,
// ties to the larger power; up: any fraction); what it declines goes to
// `declined`.
template <Rounding Mode, int FractionBits = 23>
MINIFLOAT_AVX2_INLINE __m256i encode8_e8m0(__m256i u, E8m0Declined& declined) {
    constexpr int kRebias = FractionBits == 23 ? 0 : 1023 - 127;
    const __m256i field = _mm256_srli_epi32(u, FractionBits);
    __m256i code = _mm256_sub_epi32(field, _mm256_set1_epi32(kRebias));
    const __m256i one = _mm256_set1_epi32(1);
    if constexpr (Mode == Rounding::nearest_even || Mode == Rounding::nearest_away) {
        code = _mm256_add_epi32(code, _mm256_and_si256(_mm256_srli_epi32(u, FractionBits - 1), one));
    } else if constexpr (Mode == Rounding::up) {
        const __m256i fraction = _mm256_set1_epi32((1 << FractionBits) - 1);
        const __m256i exact = _mm256_cmpeq_epi32(_mm256_and_si256(u, fraction), _mm256_setzero_si256());
        code = _mm256_add_epi32(code, _mm256_andnot_si256(exact, one));
    }
    declined.highest_code = _mm256_max_epu32(declined.highest_code, code);
    if constexpr (FractionBits == 23) declined.lowest_field = _mm256_min_epu32(declined.lowest_field, field);
    return code;
}

struct DecodeVectors {
    __m256i code_mask, sign_bit, magnitude_mask, rebias, smallest_normal, inf_magnitude, inf_bits, nan_below,
        nan_code, nan_bits;
    __m256i sign_shift, fraction_shift;  // per lane, as in EncodeVectors
    __m256 subnormal_scale;
    // deep values (decode8<..., true>): float32's smallest normal, its
    // fraction bits
    __m256i float32_normal, fraction_bits, one;
    // byte-wide forms, for any_special_code32
    __m256i code_mask_bytes, magnitude_mask_bytes, special_magnitude_bytes, nan_code_bytes;
    __m256i deep_magnitude_bytes;  // the largest magnitude whose value is below 2^-126 (deep values)
    bool has_inf, has_nan_range, has_nan_code, masks_codes;
};

MINIFLOAT_AVX2_INLINE DecodeVectors decode_vectors(const DecodePlan& d) {
    DecodeVectors v;
    v.code_mask = _mm256_set1_epi32(static_cast<int>(d.code_mask));
    v.masks_codes = d.code_mask != 0xFFu;  // bytes zero-extended are already codes
    v.sign_bit = _mm256_set1_epi32(static_cast<int>(d.sign_bit));
    v.magnitude_mask = _mm256_set1_epi32(static_cast<int>(d.magnitude_mask));
    v.rebias = _mm256_set1_epi32(static_cast<int>(d.exponent_rebias));
    v.smallest_normal = _mm256_set1_epi32(static_cast<int>(d.subnormal_below));
    v.has_inf = d.inf_magnitude != 0xFFFFFFFFu;
    v.inf_magnitude = _mm256_set1_epi32(static_cast<int>(d.inf_magnitude));
    v.inf_bits = _mm256_set1_epi32(0x7F800000);
    v.has_nan_range = d.nan_magnitude_from != 0xFFFFFFFFu;
    v.nan_below = _mm256_set1_epi32(static_cast<int>(d.nan_magnitude_from - 1u));
    v.has_nan_code = d.nan_code != 0xFFFFFFFFu;
    v.nan_code = _mm256_set1_epi32(static_cast<int>(d.nan_code));
    v.nan_bits = _mm256_set1_epi32(0x7FC00000);
    v.sign_shift = _mm256_set1_epi32(static_cast<int>(d.sign_shift));
    v.fraction_shift = _mm256_set1_epi32(static_cast<int>(23 - d.mantissa_bits));
    v.subnormal_scale = _mm256_set1_ps(d.subnormal_below > 1 ? d.subnormal_scale : 0.0f);
    v.float32_normal = _mm256_set1_epi32(1 << 23);
    v.fraction_bits = _mm256_set1_epi32((1 << 23) - 1);
    v.one = _mm256_set1_epi32(1);
    uint32_t special_from = 0xFFu;  // no magnitude of an 8-bit code reaches past 0x7F
    if (v.has_inf) special_from = d.inf_magnitude < special_from ? d.inf_magnitude : special_from;
    if (v.has_nan_range) special_from = d.nan_magnitude_from < special_from ? d.nan_magnitude_from : special_from;
    v.code_mask_bytes = _mm256_set1_epi8(static_cast<char>(d.code_mask));
    v.magnitude_mask_bytes = _mm256_set1_epi8(static_cast<char>(d.magnitude_mask));
    v.special_magnitude_bytes = _mm256_set1_epi8(static_cast<char>(special_from));
    v.nan_code_bytes = _mm256_set1_epi8(static_cast<char>(d.nan_code));
    v.deep_magnitude_bytes = _mm256_set1_epi8(static_cast<char>(d.deep_below - 1));
    return v;
}

// Whether any of 32 8-bit codes is an infinity or a NaN (the codes decode8
// needs its special-case blends for), or, Deep, a value below 2^-126 (zero
// among them: decode8's deep step).
template <bool Deep = false>
MINIFLOAT_AVX2_INLINE bool any_special_code32(const DecodeVectors& v, const uint8_t* in) {
    if (!Deep && !v.has_inf && !v.has_nan_range && !v.has_nan_code) return false;
    __m256i codes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
    if (v.masks_codes) codes = _mm256_and_si256(codes, v.code_mask_bytes);
    __m256i special = _mm256_setzero_si256();
    const __m256i magnitude = _mm256_and_si256(codes, v.magnitude_mask_bytes);
    if (v.has_inf || v.has_nan_range) {
        // magnitude >= special_from, unsigned: max(magnitude, threshold) is the magnitude
        special = _mm256_cmpeq_epi8(_mm256_max_epu8(magnitude, v.special_magnitude_bytes), magnitude);
    }
    if constexpr (Deep) {  // magnitude <= the largest deep one: min(magnitude, it) is the magnitude
        special = _mm256_or_si256(special,
                                  _mm256_cmpeq_epi8(_mm256_min_epu8(magnitude, v.deep_magnitude_bytes), magnitude));
    }
    if (v.has_nan_code) special = _mm256_or_si256(special, _mm256_cmpeq_epi8(codes, v.nan_code_bytes));
    return !_mm256_testz_si256(special, special);
}

// Whether any of 32 float8_e8m0fnu codes is 0 (2^-127, a float32
// subnormal) or 255 (NaN): the two a shift into float32's exponent field
// does not decode. (code + 1) wraps 255 to 0, so min(code, code + 1) is 0
// exactly for those two.
MINIFLOAT_AVX2_INLINE bool any_edge_exponent32(const uint8_t* in) {
    const __m256i codes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
    const __m256i low = _mm256_min_epu8(codes, _mm256_add_epi8(codes, _mm256_set1_epi8(1)));
    const __m256i edge = _mm256_cmpeq_epi8(low, _mm256_setzero_si256());
    return !_mm256_testz_si256(edge, edge);
}

// 8 float32 bit patterns from 8 codes (dwords); the rule of decode_one in
// convert_kernels.cpp: exact, NaN as the quiet NaN with the code's sign.
// MaySpecial false: the caller knows no code is an infinity or a NaN.
// Deep: normal values below float32's normals, whose exponent field the
// rebias takes to zero or below, become float32 subnormals by an integer
// shift of their significand (exact where the format's value is a float32:
// the plan checks every code, DecodePlan::avx2_arithmetic; an FP multiply
// instead measured 2x slower, from the CPU's microcode assists on subnormal
// results).
template <bool MaySpecial = true, bool Deep = false>
MINIFLOAT_AVX2_INLINE __m256i decode8(const DecodeVectors& v, __m256i codes) {
    const __m256i code = v.masks_codes ? _mm256_and_si256(codes, v.code_mask) : codes;
    const __m256i sign = _mm256_sllv_epi32(_mm256_and_si256(code, v.sign_bit), v.sign_shift);
    const __m256i magnitude = _mm256_and_si256(code, v.magnitude_mask);
    __m256i normal = _mm256_add_epi32(_mm256_sllv_epi32(magnitude, v.fraction_shift), v.rebias);
    if constexpr (Deep) {
        // field E <= 0 (normal = E * 2^23 + fraction): the significand shifted right by 1 - E
        const __m256i field = _mm256_srai_epi32(normal, 23);
        const __m256i significand = _mm256_or_si256(_mm256_and_si256(normal, v.fraction_bits), v.float32_normal);
        const __m256i subnormal = _mm256_srlv_epi32(significand, _mm256_sub_epi32(v.one, field));
        normal = _mm256_blendv_epi8(normal, subnormal, _mm256_cmpgt_epi32(v.float32_normal, normal));
    }
    // exact: a small integer times a power of two (a float32 subnormal
    // product or operand costs the CPU a microcode assist: formats without
    // subnormal codes scale by 0, and deep ones multiply their subnormal
    // codes only)
    const __m256i subnormal = _mm256_cmpgt_epi32(v.smallest_normal, magnitude);
    const __m256i tiny_magnitude = Deep ? _mm256_and_si256(magnitude, subnormal) : magnitude;
    const __m256i tiny = _mm256_castps_si256(_mm256_mul_ps(_mm256_cvtepi32_ps(tiny_magnitude), v.subnormal_scale));
    __m256i bits = _mm256_blendv_epi8(normal, tiny, subnormal);
    if constexpr (MaySpecial) {
        if (v.has_inf) bits = _mm256_blendv_epi8(bits, v.inf_bits, _mm256_cmpeq_epi32(magnitude, v.inf_magnitude));
        if (v.has_nan_range) bits = _mm256_blendv_epi8(bits, v.nan_bits, _mm256_cmpgt_epi32(magnitude, v.nan_below));
        if (v.has_nan_code) bits = _mm256_blendv_epi8(bits, v.nan_bits, _mm256_cmpeq_epi32(code, v.nan_code));
    }
    return _mm256_or_si256(bits, sign);
}

// float8_e8m0fnu: 2^(code - 127), code 0 being a float32 subnormal and
// 0xFF NaN (the rule of decode_one_e8m0). MaySpecial false: the caller
// knows neither code is there (any_edge_exponent32), a shift does it.
template <bool MaySpecial = true>
MINIFLOAT_AVX2_INLINE __m256i decode8_e8m0(__m256i code) {
    const __m256i shifted = _mm256_slli_epi32(code, 23);
    if constexpr (!MaySpecial) return shifted;
    const __m256i bits = _mm256_blendv_epi8(shifted, _mm256_set1_epi32(0x00400000),
                                            _mm256_cmpeq_epi32(code, _mm256_setzero_si256()));
    return _mm256_blendv_epi8(bits, _mm256_set1_epi32(0x7FC00000), _mm256_cmpeq_epi32(code, _mm256_set1_epi32(0xFF)));
}

// 8 codes from 8 bytes, one per dword.
MINIFLOAT_AVX2_INLINE __m256i load8_codes(const uint8_t* in) {
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(in)));
}

// Decoding by format kind (ExponentOnly: float8_e8m0fnu), shared by the
// AVX2 decode and sums: whether 32 codes need the special-case path, and 8
// float32 bit patterns from the 8 codes at `in`.
template <bool ExponentOnly, bool Deep = false>
MINIFLOAT_AVX2_INLINE bool needs_special_decode32(const DecodeVectors& v, const uint8_t* in) {
    return ExponentOnly ? any_edge_exponent32(in) : any_special_code32<Deep>(v, in);
}
template <bool ExponentOnly, bool MaySpecial = true, bool Deep = false>
MINIFLOAT_AVX2_INLINE __m256i decode8_from(const DecodeVectors& v, const uint8_t* in) {
    const __m256i codes = load8_codes(in);
    if constexpr (ExponentOnly) return decode8_e8m0<MaySpecial>(codes);
    return decode8<MaySpecial, Deep>(v, codes);
}

}  // namespace avx2_codec
}  // namespace minifloat
