#include "stochastic_avx512.h"

#include <cmath>

#include "counter_random.h"
#include "fp_status.h"
#include "simd_dispatch.h"
#include "stochastic_vector_constants.h"

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#include "avx512_intrinsics.h"
#include "partial_vectors.h"

namespace minifloat {

namespace {

#define MINIFLOAT_AVX512_DQ __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi2,vaes")))

// AVX-512 with VAES (Ice Lake and later, Zen 4): ARS-5 in zmm registers;
// VBMI2 (the same CPUs) for small_magnitudes64's funnel shift.
bool cpu_has_avx512_dq_vaes() {
    static const bool has = cpu_has_avx512_bw() && __builtin_cpu_supports("avx512dq") &&
                            __builtin_cpu_supports("vaes") && __builtin_cpu_supports("avx512vbmi2");
    return has;
}

// The counters of 4 consecutive ARS-5 blocks c_j .. c_{j+3} (one per
// 128-bit lane), their step, and the round keys in every lane.
struct CounterLanes {
    __m512i counter;
    __m512i step;
    __m512i keys[kArsRounds + 1];  // the last one complemented (next_complemented_draws)
    __m512i last_key;              // k_5 itself (next_draws)
};

// The next 4 ARS-5 blocks, 5 VAES instructions, the last round with `last_key`.
MINIFLOAT_AVX512_DQ inline __m512i next_blocks(CounterLanes& c, __m512i last_key) {
    __m512i x = _mm512_xor_si512(c.counter, c.keys[0]);
    c.counter = _mm512_add_epi64(c.counter, c.step);
    for (int r = 1; r < kArsRounds; r++) x = _mm512_aesenc_epi128(x, c.keys[r]);
    return _mm512_aesenclast_epi128(x, last_key);
}

// ~(B_j .. B_{j+3}): the complements of 16 draws, element order (see
// counter_random.h). The complement rides on the last round key:
// AESENCLAST ends with the key's xor.
MINIFLOAT_AVX512_DQ inline __m512i next_complemented_draws(CounterLanes& c) {
    return next_blocks(c, c.keys[kArsRounds]);
}

// B_j .. B_{j+3} themselves: the next 16 draws.
MINIFLOAT_AVX512_DQ inline __m512i next_draws(CounterLanes& c) { return next_blocks(c, c.last_key); }

// ~x in one instruction (the draws from their complements and back).
MINIFLOAT_AVX512_DQ inline __m512i bit_not(__m512i x) { return _mm512_ternarylogic_epi32(x, x, x, 0x55); }
MINIFLOAT_AVX512_DQ inline __m256i bit_not(__m256i x) { return _mm256_ternarylogic_epi32(x, x, x, 0x55); }

struct Lanes32 {
    __m512i abs_mask, carry_shift, fraction_shift, rebias, normal_from, max_bits, span, sign_bit;
    __m512i count_base, normal_count, fraction_mask, implicit_bit, band_from, band_span;
    __m512i small_span;   // normal_from - band_from: values from the band up to the normal range
    __m512i rebias_bits;  // rebias << fraction_shift
    bool zero_drops_sign;
};

MINIFLOAT_AVX512_DQ inline __m512i v(uint64_t x) { return _mm512_set1_epi32(static_cast<int>(static_cast<uint32_t>(x))); }

MINIFLOAT_AVX512_DQ Lanes32 make_lanes32(const EncodePlan& p) {
    const StochasticVectorConstants c = stochastic_vector_constants<uint32_t>(p);
    Lanes32 k;
    // unsigned formats keep the sign bit in |x|: a negative value then lies
    // beyond the largest, and its step or vector goes to `redo` (the exact
    // rule, which makes it invalid unless it rounds to zero)
    k.abs_mask = v(p.is_signed ? 0x7FFFFFFF : 0xFFFFFFFF);
    k.carry_shift = v(c.carry_shift);
    k.fraction_shift = v(c.fraction_shift);
    k.rebias = v(c.rebias);
    k.normal_from = v(c.normal_from);
    k.max_bits = v(c.max_bits);
    k.span = v(c.span);
    k.sign_bit = v(c.sign_bit);
    k.count_base = v(c.count_base);
    k.normal_count = v(32 - c.fraction_shift);
    k.fraction_mask = v(0x7FFFFF);
    k.implicit_bit = v(0x800000);
    k.band_from = v(c.band_from);
    k.band_span = v(c.band_span);
    k.small_span = v(c.normal_from - c.band_from);
    k.rebias_bits = v(c.rebias << c.fraction_shift);
    k.zero_drops_sign = c.zero_drops_sign;
    return k;
}

// The magnitude codes of 16 values at most the largest value, none in the
// band of exponents stochastic_vector_constants describes, in integers: with s the
// number of dropped bits (fraction_shift in the normal range, K - e below
// it, K = emin field + fraction_shift) and x the bits (normal: |x|'s less
// the rebias's, so that the exponent becomes the code's) or the
// significand (below), the code is x >> s, plus 1 when the draw d is below
// the threshold floor(f * 2^32), the dropped bits moved to the top:
// x << (32 - s) (exact while s <= 32; for s >= 56 both shifts give 0,
// right for such values, their threshold being 0). (The normal rule's
// carry, (x + (~d >> (32 - s))) >> s, is one instruction shorter but
// overflows at s = 32, which doubles the band's fixes for float4_e2m1fn.)
// Half the vector instructions of float steps (any_magnitudes64).
// Wide: the same for any values at most the largest (the band too), the
// threshold x << (32 - s) for s <= 32, or x >> (s - 32) beyond.
template <bool Wide>
MINIFLOAT_AVX512_DQ inline __m512i small_magnitudes(const Lanes32& k, __m512i a, __m512i draw) {
    const __m512i exponent = _mm512_srli_epi32(a, 23);
    const __m512i up_count = _mm512_min_epi32(_mm512_add_epi32(exponent, k.count_base), k.normal_count);
    const __m512i down_count = _mm512_sub_epi32(_mm512_set1_epi32(32), up_count);
    const __mmask16 below = _mm512_cmplt_epu32_mask(a, k.normal_from);
    // normal: the bits less the rebias's (their low 23 bits, the
    // significand's, stay: below, (that & b) | c)
    const __m512i x = _mm512_mask_ternarylogic_epi32(_mm512_sub_epi32(a, k.rebias_bits), below, k.fraction_mask,
                                                     k.implicit_bit, 0xEA);
    // x << up_count is 0 where up_count < 0 (a huge unsigned count); wide:
    // x >> -up_count there, each shift giving 0 where the other applies
    __m512i threshold;
    if constexpr (Wide) {
        threshold = _mm512_or_si512(_mm512_sllv_epi32(x, up_count),
                                    _mm512_srlv_epi32(x, _mm512_sub_epi32(_mm512_setzero_si512(), up_count)));
    } else {
        threshold = _mm512_sllv_epi32(x, up_count);
    }
    const __mmask16 up = _mm512_cmplt_epu32_mask(draw, threshold);
    const __m512i q = _mm512_srlv_epi32(x, down_count);
    return _mm512_mask_sub_epi32(q, up, q, _mm512_set1_epi32(-1));
}

// How a group of values is rounded: all in the target's normal range below
// its largest value (normal: the normal rule), all at most the largest
// value and none in the band (small), all at most the largest value
// (small_wide, float64 only; float32 small groups fix the vectors with band
// values: fix_small_group), or anything (any: step by step, handing steps
// with overflow or specials to the portable rule; below_max: float64's float
// steps, for those steps). Chosen per group of kGroup values, not per
// vector: a data-dependent branch per vector mispredicts often on data
// with some subnormal-range values (float8_e3m4 from a Gaussian: 3.4
// against 1.5 ms).
enum class GroupKind { normal, small, small_wide, below_max, any };
constexpr size_t kGroup = 256;
// The scans prefetch the group this many groups ahead: its loads then
// overlap the rounding of the groups before it (without, the scan of
// float64 groups waited on memory for half of the kernel's time).
constexpr size_t kPrefetchGroups = 2;

// The sign bit on the negative lanes; formats without -0 put it only on a
// non-zero magnitude (one masked test, not a test and a masked move).
MINIFLOAT_AVX512_DQ inline __m512i with_signs(__m512i magnitude, __mmask16 negative, __m512i sign_bit,
                                              bool zero_drops_sign) {
    const __mmask16 signed_lanes =
        zero_drops_sign ? _mm512_mask_test_epi32_mask(negative, magnitude, magnitude) : negative;
    return _mm512_mask_or_epi32(magnitude, signed_lanes, magnitude, sign_bit);
}

// The codes of 16 values by the rule of `Kind`; false: the step needs the
// portable rule (only for GroupKind::any).
template <GroupKind Kind>
MINIFLOAT_AVX512_DQ inline bool codes16(const Lanes32& k, __m512i complement, __m512i u, __mmask16 lanes,
                                        __m512i& codes) {
    const __m512i a = _mm512_and_si512(u, k.abs_mask);
    // the sign by a compare and a masked or, not a shift: shifts and the
    // generator (VAES) share port 0 on Intel
    const __mmask16 negative = _mm512_cmplt_epi32_mask(u, _mm512_setzero_si512());
    bool normal = Kind == GroupKind::normal;
    if constexpr (Kind == GroupKind::any) {
        normal = (_mm512_cmplt_epu32_mask(_mm512_sub_epi32(a, k.normal_from), k.span) & lanes) == lanes;
        if (!normal && _mm512_mask_cmpgt_epu32_mask(lanes, a, k.max_bits) != 0) return false;
    }
    if (normal) {
        // (a + (~d >> (32 - fraction_shift))) >> fraction_shift, rebiased
        const __m512i sum = _mm512_add_epi32(a, _mm512_srlv_epi32(complement, k.carry_shift));
        const __m512i magnitude = _mm512_sub_epi32(_mm512_srlv_epi32(sum, k.fraction_shift), k.rebias);
        codes = _mm512_mask_or_epi32(magnitude, negative, magnitude, k.sign_bit);
        return true;
    }
    __m512i magnitude;
    if constexpr (Kind == GroupKind::small) {
        magnitude = small_magnitudes<false>(k, a, complement);  // (the draws themselves: run_group)
    } else {
        magnitude = small_magnitudes<true>(k, a, bit_not(complement));
    }
    codes = with_signs(magnitude, negative, k.sign_bit, k.zero_drops_sign);
    return true;
}

// Which rule a whole group of kGroup values takes: normal when the largest
// |x| - normal_from (unsigned: below normal_from wraps around) is inside
// the normal span, else small (run_small_group: its checks find the rest).
MINIFLOAT_AVX512_DQ inline GroupKind scan_group(const Lanes32& k, const float* in) {
    __m512i high = _mm512_setzero_si512();
    for (size_t i = 0; i < kGroup; i += 16) {
        _mm_prefetch(reinterpret_cast<const char*>(in + i + kPrefetchGroups * kGroup), _MM_HINT_T0);
        const __m512i a = _mm512_and_si512(_mm512_loadu_si512(in + i), k.abs_mask);
        high = _mm512_max_epu32(high, _mm512_sub_epi32(a, k.normal_from));
    }
    return _mm512_cmpge_epu32_mask(high, k.span) == 0 ? GroupKind::normal : GroupKind::small;
}

template <int OutBytes>
MINIFLOAT_AVX512_DQ inline void store_codes(void* out, size_t i, __m512i codes, __mmask16 lanes) {
    if constexpr (OutBytes == 1) {
        store_epi32_as_epi8(static_cast<uint8_t*>(out) + i, lanes, codes);
    } else {
        store_epi32_as_epi16(static_cast<uint16_t*>(out) + i, lanes, codes);
    }
}

// A step the vector rules declined: its draws to memory, the portable rule.
template <int OutBytes>
MINIFLOAT_AVX512_DQ inline uint32_t redo_step(const EncodePlan& plan, StochasticRedo redo, const float* in,
                                              __m512i complement, void* out, size_t i, size_t count) {
    alignas(64) uint32_t draws[16];
    _mm512_store_si512(draws, bit_not(complement));
    return redo(plan, in + i, false, draws, static_cast<uint8_t*>(out) + i * OutBytes, count);
}

// Values [i, i + count) by the rule of Kind, 16 at a time.
template <int OutBytes, GroupKind Kind>
MINIFLOAT_AVX512_DQ inline uint32_t run_steps(const EncodePlan& plan, const Lanes32& k, CounterLanes& counters,
                                              const float* in, void* out, size_t i, size_t count,
                                              StochasticRedo redo) {
    uint32_t flags = 0;
    for (const size_t end = i + count; i < end; i += 16) {
        const size_t lanes_count = end - i >= 16 ? 16 : end - i;
        const __mmask16 lanes = static_cast<__mmask16>((1u << lanes_count) - 1u);
        const __m512i complement = next_complemented_draws(counters);
        __m512i codes;
        if (codes16<Kind>(k, complement, load_epi32(in + i, lanes), lanes, codes)) {
            store_codes<OutBytes>(out, i, codes, lanes);
        } else {
            flags |= redo_step<OutBytes>(plan, redo, in, complement, out, i, lanes_count);
        }
    }
    return flags;
}

// A whole group by the rule of Kind (normal or small): 64 values per step,
// whole vectors, their codes packed into one store (the packs work within
// 128-bit lanes; the permute orders them). The small rule also checks the
// values and returns any when one is beyond the largest or in the band
// (then fix_small_group redoes those vectors), normal when none lies from
// the band up to the normal range (the next group is scanned), else small.
// `suspects`: for any, the vectors (bit v) that may hold a value in the
// band (the band minimum is kept per position of the 4-vector steps) or,
// with one beyond the largest, all of them.
template <int OutBytes, GroupKind Kind>
MINIFLOAT_AVX512_DQ inline GroupKind run_group(const Lanes32& k, CounterLanes& counters, const float* in, void* out,
                                               uint32_t* suspects = nullptr, __m512i* draws = nullptr) {
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    constexpr bool kSmall = Kind == GroupKind::small;
    __m512i top = _mm512_setzero_si512();
    __m512i band[4] = {_mm512_set1_epi32(-1), _mm512_set1_epi32(-1), _mm512_set1_epi32(-1), _mm512_set1_epi32(-1)};
    for (size_t i = 0; i < kGroup; i += 64) {
        __m512i c[4];
        if constexpr (kSmall) {
            _mm_prefetch(reinterpret_cast<const char*>(in + i + kPrefetchGroups * kGroup), _MM_HINT_T0);
            _mm_prefetch(reinterpret_cast<const char*>(in + i + 32 + kPrefetchGroups * kGroup), _MM_HINT_T0);
        }
        for (int j = 0; j < 4; j++) {
            const __m512i u = _mm512_loadu_si512(in + i + 16 * j);
            if constexpr (kSmall) {
                const __m512i a = _mm512_and_si512(u, k.abs_mask);
                top = _mm512_max_epu32(top, a);
                band[j] = _mm512_min_epu32(band[j], _mm512_sub_epi32(a, k.band_from));
            }
            // (the small rule takes the draws themselves, the normal one their complements)
            const __m512i drawn = kSmall ? next_draws(counters) : next_complemented_draws(counters);
            if constexpr (kSmall) draws[i / 16 + j] = drawn;  // kept for fix_small_group (stores: no ALU port)
            codes16<Kind>(k, drawn, u, 0xFFFF, c[j]);
        }
        const __m512i low = _mm512_packus_epi32(c[0], c[1]), high = _mm512_packus_epi32(c[2], c[3]);
        if constexpr (OutBytes == 1) {
            const __m512i bytes = _mm512_packus_epi16(low, high);
            _mm512_storeu_si512(static_cast<uint8_t*>(out) + i, _mm512_permutexvar_epi32(order, bytes));
        } else {
            const __m512i order64 = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
            _mm512_storeu_si512(static_cast<uint16_t*>(out) + i, _mm512_permutexvar_epi64(order64, low));
            _mm512_storeu_si512(static_cast<uint16_t*>(out) + i + 32, _mm512_permutexvar_epi64(order64, high));
        }
    }
    if constexpr (kSmall) {
        if (_mm512_cmpgt_epu32_mask(top, k.max_bits) != 0) {
            *suspects = 0xFFFF;
            return GroupKind::any;
        }
        uint32_t positions = 0;
        for (int j = 0; j < 4; j++) {
            if (_mm512_cmplt_epu32_mask(band[j], k.band_span) != 0) positions |= 0x1111u << j;
        }
        if (positions != 0) {
            *suspects = positions;
            return GroupKind::any;
        }
        // no value from the band up to the normal range: the next group is scanned
        const __m512i lowest = _mm512_min_epu32(_mm512_min_epu32(band[0], band[1]), _mm512_min_epu32(band[2], band[3]));
        if (_mm512_cmplt_epu32_mask(lowest, k.small_span) == 0) return GroupKind::normal;
    }
    return Kind;
}

// `codes` with the lanes in `lanes` replaced by a special code by sign.
MINIFLOAT_AVX512_DQ inline __m512i with_special_codes(__m512i codes, __mmask16 lanes, __mmask16 negative,
                                                      uint32_t positive, uint32_t negative_code) {
    codes = _mm512_mask_mov_epi32(codes, lanes & static_cast<__mmask16>(~negative),
                                  _mm512_set1_epi32(static_cast<int>(positive)));
    return _mm512_mask_mov_epi32(codes, lanes & negative, _mm512_set1_epi32(static_cast<int>(negative_code)));
}

// The codes of 16 values of any kind (the rules of stochastic_code in
// stochastic_rounding.cpp): small_magnitudes<true>, continued beyond the
// largest value (the normal rule's codes keep counting), then overflow,
// infinities and NaN by the plan's codes; `flags` gains the FpFlag bits.
MINIFLOAT_AVX512_DQ inline __m512i any_codes16(const EncodePlan& plan, const Lanes32& k, __m512i complement, __m512i u,
                                               uint32_t& flags) {
    const __m512i a = _mm512_and_si512(u, k.abs_mask);
    const __m512i inf_bits = _mm512_set1_epi32(0x7F800000);
    const __mmask16 negative = _mm512_cmplt_epi32_mask(u, _mm512_setzero_si512());
    const __mmask16 nan = _mm512_cmpgt_epu32_mask(a, inf_bits), inf = _mm512_cmpeq_epi32_mask(a, inf_bits);
    const __m512i magnitude = small_magnitudes<true>(k, _mm512_min_epu32(a, inf_bits), bit_not(complement));
    const __mmask16 overflow = _mm512_cmpgt_epu32_mask(magnitude, _mm512_set1_epi32(static_cast<int>(plan.max_magnitude))) &
                               static_cast<__mmask16>(~(nan | inf));
    __m512i codes = with_signs(magnitude, negative, k.sign_bit, k.zero_drops_sign);
    codes = with_special_codes(codes, overflow, negative, plan.overflow_positive, plan.overflow_negative);
    codes = with_special_codes(codes, inf, negative, plan.inf_positive, plan.inf_negative);
    codes = with_special_codes(codes, nan, negative, plan.nan_positive, plan.nan_negative);
    flags |= (overflow ? plan.overflow_flags : 0) | (inf ? plan.inf_flags : 0) | (nan ? plan.nan_flags : 0);
    return codes;
}

// The vectors of a small group its rule got wrong (among `suspects`), again
// with their draws (`draws`: the group's complemented draws, per vector):
// those with a value in the band or beyond the largest (or not finite), by
// any_codes16. Gaussian data puts a value beyond the largest in 1.5% of the
// groups, one in the band in up to a quarter of them (float4_e2m1fn).
// An unsigned format's vector with a negative value goes to `redo`.
template <int OutBytes>
MINIFLOAT_AVX512_DQ uint32_t fix_small_group(const EncodePlan& plan, const Lanes32& k, const __m512i* draws,
                                             const float* in, void* out, uint32_t suspects, StochasticRedo redo) {
    uint32_t flags = 0;
    for (size_t v = 0; v < kGroup / 16; v++) {
        if (!(suspects >> v & 1)) continue;
        const __m512i u = _mm512_loadu_si512(in + 16 * v);
        const __m512i a = _mm512_and_si512(u, k.abs_mask);
        if (_mm512_cmpgt_epu32_mask(a, k.max_bits) == 0 &&
            _mm512_cmplt_epu32_mask(_mm512_sub_epi32(a, k.band_from), k.band_span) == 0) {
            continue;
        }
        if (!plan.is_signed && _mm512_movepi32_mask(u) != 0) {
            // (not redo_step: the draws are at hand, their complements not yet)
            alignas(64) uint32_t vector_draws[16];
            _mm512_store_si512(vector_draws, draws[v]);
            flags |= redo(plan, in + 16 * v, false, vector_draws, static_cast<uint8_t*>(out) + 16 * v * OutBytes, 16);
            continue;
        }
        // vector v's blocks: 4 per vector
        const __m512i complement = bit_not(draws[v]);
        store_codes<OutBytes>(out, 16 * v, any_codes16(plan, k, complement, u, flags), 0xFFFF);
    }
    return flags;
}

template <int OutBytes>
MINIFLOAT_AVX512_DQ void sign_magnitude_kernel(const EncodePlan& plan, const Lanes32& k, CounterLanes counters,
                                               const float* in, void* out, size_t n, uint32_t& flags,
                                               StochasticRedo redo) {
    size_t i = 0;
    GroupKind last = GroupKind::normal;
    __m512i group_draws[kGroup / 16];  // a small group's complemented draws, per vector
    for (; i + kGroup <= n; i += kGroup) {
        void* group_out = static_cast<uint8_t*>(out) + i * OutBytes;
        // data with values below the normal range has them in most groups:
        // after a group with some, the next takes the small rule at once
        // (without a scan; its checks find what it cannot round)
        if (last != GroupKind::small) last = scan_group(k, in + i);
        switch (last) {
            case GroupKind::normal:
                run_group<OutBytes, GroupKind::normal>(k, counters, in + i, group_out);
                break;
            case GroupKind::small: {
                uint32_t suspects = 0;
                const GroupKind found =
                    run_group<OutBytes, GroupKind::small>(k, counters, in + i, group_out, &suspects, group_draws);
                if (found == GroupKind::any) {
                    flags |= fix_small_group<OutBytes>(plan, k, group_draws, in + i, group_out, suspects, redo);
                }
                last = found == GroupKind::normal ? GroupKind::normal : GroupKind::small;
                break;
            }
            case GroupKind::small_wide:  // (scan_group chooses normal or small only)
            case GroupKind::below_max:
            case GroupKind::any:
                flags |= run_steps<OutBytes, GroupKind::any>(plan, k, counters, in, out, i, kGroup, redo);
                break;
        }
    }
    flags |= run_steps<OutBytes, GroupKind::any>(plan, k, counters, in, out, i, n - i, redo);
}

// float8_e8m0fnu: the exponent field bumped when d < fraction << 9. A step
// with a value outside [2^-126, 2^127) (zero, negative, subnormal, inf,
// NaN, overflow: rare in data meant for this format) is redone by `redo`.
// The other unsigned formats of powers of two (stochastic_powers_of_two):
// the same, the code moved by the bias (bias - 127), up to their largest
// value.
MINIFLOAT_AVX512_DQ void e8m0_kernel(const EncodePlan& plan, CounterLanes counters, const float* in, uint8_t* out,
                                     size_t n, uint32_t& flags, StochasticRedo redo) {
    const uint32_t largest_bits = powers_of_two_end_bits(plan);
    const __m512i lowest = _mm512_set1_epi32(0x00800000), span = _mm512_set1_epi32(static_cast<int>(largest_bits - 0x00800000));
    const __m512i offset = _mm512_set1_epi32(plan.bias - 127);
    for (size_t i = 0; i < n; i += 16) {
        const size_t count = n - i >= 16 ? 16 : n - i;
        const __mmask16 lanes = static_cast<__mmask16>((1u << count) - 1u);
        const __m512i complement = next_complemented_draws(counters);
        const __m512i u = load_epi32(in + i, lanes);
        const __m512i draw = bit_not(complement);
        const __mmask16 inside = _mm512_cmplt_epu32_mask(_mm512_sub_epi32(u, lowest), span);
        if ((inside & lanes) != lanes) {
            flags |= redo_step<1>(plan, redo, in, complement, out, i, count);
            continue;
        }
        const __mmask16 up = _mm512_cmplt_epu32_mask(draw, _mm512_slli_epi32(u, 9));
        const __m512i exponent = _mm512_add_epi32(_mm512_srli_epi32(u, 23), offset);
        store_epi32_as_epi8(out + i, lanes, _mm512_mask_sub_epi32(exponent, up, exponent, _mm512_set1_epi32(-1)));
    }
}

// float64 sources: 8 values per vector, two vectors per draw vector (its
// low 8 draws, then its high 8), the same rules in 64-bit lanes.
// The float64 kernels below repeat the float32 ones' structure on purpose:
// 64-bit lanes take other instructions (_epi64, the upper halves as 32-bit
// lanes in run_group64), so one template over the lane width would wrap
// every intrinsic and hide which instruction each step of these hottest
// loops is; the shared rules live once in stochastic_vector_constants.h.
struct Lanes64 {
    __m512i abs_mask, carry_shift, fraction_shift, rebias, normal_from, max_bits, span, sign_shift, sign_bit;
    __m512i exponent_mask, scale_base, two_pow_32;
    // the same rules on the upper 32 bits of 16 values (run_group64):
    // fraction_shift - 32, the code's sign bit, rebias
    __m512i high_fraction_shift, sign_bit32, rebias32;
    // small_magnitudes64 (32-bit lanes): K - 32, the normal range's start,
    // the significand's upper part; the band it cannot round
    __m512i high_shift_base, normal_from32, fraction_mask32, implicit_bit32, band_from, band_span;
    // run_group64's checks on the upper halves (max_bits has no lower half)
    __m512i max_bits_high, band_from_high, band_span_high;
    __m512i abs_mask32;  // abs_mask's upper half
    __m512i rebias_bits_high;  // (rebias << fraction_shift) >> 32
    bool zero_drops_sign;
};

MINIFLOAT_AVX512_DQ inline __m512i v64(uint64_t x) { return _mm512_set1_epi64(static_cast<long long>(x)); }

MINIFLOAT_AVX512_DQ Lanes64 make_lanes64(const EncodePlan& p) {
    const StochasticVectorConstants c = stochastic_vector_constants<uint64_t>(p);
    Lanes64 k;
    // unsigned formats keep the sign bit, as make_lanes32's: a negative
    // value lies beyond the largest, its step going to `redo`
    k.abs_mask = v64(p.is_signed ? 0x7FFFFFFFFFFFFFFFull : ~uint64_t{0});
    k.abs_mask32 = v(p.is_signed ? 0x7FFFFFFFu : 0xFFFFFFFFu);
    k.carry_shift = v64(c.carry_shift);
    k.fraction_shift = v64(c.fraction_shift);
    k.rebias = v64(c.rebias);
    k.normal_from = v64(c.normal_from);
    k.max_bits = v64(c.max_bits);
    k.span = v64(c.span);
    k.sign_shift = v64(c.sign_shift);
    k.sign_bit = v64(c.sign_bit);
    k.exponent_mask = v64(c.exponent_mask);
    k.scale_base = v64(c.scale_base);
    k.two_pow_32 = _mm512_castpd_si512(_mm512_set1_pd(4294967296.0));
    k.high_fraction_shift = v(c.fraction_shift - 32);  // fraction_shift >= 52 - 7
    k.sign_bit32 = v(c.sign_bit);
    k.rebias32 = v(c.rebias);
    k.high_shift_base = v(64 - c.count_base - 32);  // count_base = 64 - K
    k.normal_from32 = v(c.normal_from >> 32);
    k.fraction_mask32 = v(0xFFFFF);
    k.implicit_bit32 = v(0x100000);
    k.band_from = v64(c.band_from);
    k.band_span = v64(c.band_span);
    k.max_bits_high = v(c.max_bits >> 32);
    k.rebias_bits_high = v((c.rebias << c.fraction_shift) >> 32);
    k.band_from_high = v(c.band_from >> 32);
    k.band_span_high = v(c.band_span >> 32);
    k.zero_drops_sign = c.zero_drops_sign;
    return k;
}

// any_magnitudes for 8 float64 values; `complement` holds their 8 draws'
// complements in 32-bit lanes.
MINIFLOAT_AVX512_DQ inline __m512i any_magnitudes64(const Lanes64& k, __m512i a, __m256i complement) {
    const __m512i exponent = _mm512_max_epu64(_mm512_and_si512(a, k.exponent_mask), k.normal_from);
    const __m512d scale = _mm512_castsi512_pd(_mm512_sub_epi64(k.scale_base, exponent));
    const __m512d v = _mm512_mul_pd(_mm512_castsi512_pd(a), scale);
    const __m512i q = _mm512_cvttpd_epi64(v);
    const __m512d fraction = _mm512_sub_pd(v, _mm512_cvtepi64_pd(q));
    const __m256i threshold = _mm512_cvttpd_epu32(_mm512_mul_pd(fraction, _mm512_castsi512_pd(k.two_pow_32)));
    const __mmask8 up = _mm256_cmplt_epu32_mask(bit_not(complement), threshold);
    const __m512i binade = _mm512_srlv_epi64(_mm512_sub_epi64(exponent, k.normal_from), k.fraction_shift);
    const __m512i magnitude = _mm512_add_epi64(binade, q);
    return _mm512_mask_sub_epi64(magnitude, up, magnitude, _mm512_set1_epi64(-1));
}

// small_magnitudes for 16 float64 values held as their upper and lower
// 32-bit halves: s >= fraction_shift > 32 dropped bits, so the code is the
// upper half (significand, below the normal range) shifted by c = s - 32
// and the threshold the 32 bits of the pair from bit c, one funnel shift
// (VBMI2); lanes with s >= 64 (c >= 32) have no threshold bits (those with
// 64 <= s < 85 would: their groups go to any_magnitudes64).
// Wide: also c >= 32 (64 <= s < 85), the threshold the upper half shifted
// by c - 32 (no band).
template <bool Wide>
MINIFLOAT_AVX512_DQ inline __m512i small_magnitudes64(const Lanes64& k, __m512i high, __m512i low, __m512i draw) {
    const __m512i a = _mm512_and_si512(high, _mm512_set1_epi32(0x7FFFFFFF));
    const __m512i exponent = _mm512_srli_epi32(a, 20);
    const __m512i c = _mm512_max_epi32(_mm512_sub_epi32(k.high_shift_base, exponent), k.high_fraction_shift);
    const __mmask16 below = _mm512_cmplt_epu32_mask(a, k.normal_from32);
    // (as in small_magnitudes: normal lanes less the rebias's bits)
    const __m512i x = _mm512_mask_ternarylogic_epi32(_mm512_sub_epi32(a, k.rebias_bits_high), below, k.fraction_mask32,
                                                     k.implicit_bit32, 0xEA);
    const __mmask16 has_threshold = _mm512_cmplt_epi32_mask(c, _mm512_set1_epi32(32));
    __mmask16 up;
    if constexpr (Wide) {
        const __m512i funnel = _mm512_shrdv_epi32(low, x, c);
        const __m512i threshold = _mm512_mask_srlv_epi32(funnel, static_cast<__mmask16>(~has_threshold), x,
                                                         _mm512_sub_epi32(c, _mm512_set1_epi32(32)));
        up = _mm512_cmplt_epu32_mask(draw, threshold);
    } else {
        up = _mm512_mask_cmplt_epu32_mask(has_threshold, draw, _mm512_shrdv_epi32(low, x, c));
    }
    const __m512i q = _mm512_srlv_epi32(x, c);
    return _mm512_mask_sub_epi32(q, up, q, _mm512_set1_epi32(-1));
}

template <GroupKind Kind>
MINIFLOAT_AVX512_DQ inline bool codes8(const Lanes64& k, __m512i u, __mmask8 lanes, __m256i complement,
                                       __m512i& codes) {
    const __m512i a = _mm512_and_si512(u, k.abs_mask);
    const __m512i sign = _mm512_srlv_epi64(u, k.sign_shift);
    bool normal = Kind == GroupKind::normal;
    if constexpr (Kind == GroupKind::any) {
        normal = (_mm512_cmplt_epu64_mask(_mm512_sub_epi64(a, k.normal_from), k.span) & lanes) == lanes;
        if (!normal && _mm512_mask_cmpgt_epu64_mask(lanes, a, k.max_bits) != 0) return false;
    }
    if (normal) {
        // (a + (~d << (fraction_shift - 32))) >> fraction_shift, rebiased
        const __m512i sum = _mm512_add_epi64(a, _mm512_sllv_epi64(_mm512_cvtepu32_epi64(complement), k.carry_shift));
        const __m512i magnitude = _mm512_sub_epi64(_mm512_srlv_epi64(sum, k.fraction_shift), k.rebias);
        codes = _mm512_ternarylogic_epi64(magnitude, sign, k.sign_bit, 0xF8);
        return true;
    }
    const __m512i magnitude = any_magnitudes64(k, a, complement);
    codes = _mm512_ternarylogic_epi64(magnitude, sign, k.sign_bit, 0xF8);
    if (k.zero_drops_sign) codes = _mm512_maskz_mov_epi64(_mm512_test_epi64_mask(magnitude, magnitude), codes);
    return true;
}

MINIFLOAT_AVX512_DQ inline uint64_t first_lane64(__m512i x) {
    return static_cast<uint64_t>(_mm_cvtsi128_si64(_mm512_castsi512_si128(x)));
}

MINIFLOAT_AVX512_DQ inline GroupKind scan_group64(const Lanes64& k, const double* in) {
    __m512i high = _mm512_setzero_si512();
    for (size_t i = 0; i < kGroup; i += 8) {
        _mm_prefetch(reinterpret_cast<const char*>(in + i + kPrefetchGroups * kGroup), _MM_HINT_T0);
        const __m512i a = _mm512_and_si512(_mm512_loadu_si512(in + i), k.abs_mask);
        high = _mm512_max_epu64(high, _mm512_sub_epi64(a, k.normal_from));
    }
    if (_mm512_reduce_max_epu64(high) < first_lane64(k.span)) return GroupKind::normal;
    __m512i top = _mm512_setzero_si512(), band = _mm512_set1_epi64(-1);
    for (size_t i = 0; i < kGroup; i += 8) {
        const __m512i a = _mm512_and_si512(_mm512_loadu_si512(in + i), k.abs_mask);
        top = _mm512_max_epu64(top, a);
        band = _mm512_min_epu64(band, _mm512_sub_epi64(a, k.band_from));
    }
    if (_mm512_reduce_max_epu64(top) > first_lane64(k.max_bits)) return GroupKind::any;
    return _mm512_reduce_min_epu64(band) < first_lane64(k.band_span) ? GroupKind::small_wide : GroupKind::small;
}

template <int OutBytes>
MINIFLOAT_AVX512_DQ inline void store_codes8(void* out, size_t i, __m512i codes, __mmask8 lanes) {
    if constexpr (OutBytes == 1) {
        store_epi64_as_epi8(static_cast<uint8_t*>(out) + i, lanes, codes);
    } else {
        store_epi64_as_epi16(static_cast<uint16_t*>(out) + i, lanes, codes);
    }
}

// Values [i, i + count) by the rule of Kind: 16 per draw vector,
// its low 8 draws (blocks j, j + 1) for the first 8 values, its high 8 for the next.
template <int OutBytes, GroupKind Kind>
MINIFLOAT_AVX512_DQ inline uint32_t run_steps64(const EncodePlan& plan, const Lanes64& k, CounterLanes& counters,
                                                const double* in, void* out, size_t i, size_t count,
                                                StochasticRedo redo) {
    alignas(64) uint32_t draws[16];
    uint32_t flags = 0;
    for (const size_t end = i + count; i < end; i += 16) {
        const __m512i complement = next_complemented_draws(counters);
        const __m256i halves[2] = {_mm512_castsi512_si256(complement), _mm512_extracti64x4_epi64(complement, 1)};
        for (size_t h = 0; h < 2 && i + 8 * h < end; h++) {
            const size_t start = i + 8 * h;
            const size_t lanes_count = end - start >= 8 ? 8 : end - start;
            const __mmask8 lanes = static_cast<__mmask8>((1u << lanes_count) - 1u);
            __m512i codes;
            if (codes8<Kind>(k, load_epi64(in + start, lanes), lanes, halves[h], codes)) {
                store_codes8<OutBytes>(out, start, codes, lanes);
            } else {
                _mm256_store_si256(reinterpret_cast<__m256i*>(draws), bit_not(halves[h]));
                flags |= redo(plan, in + start, true, draws, static_cast<uint8_t*>(out) + start * OutBytes,
                              lanes_count);
            }
        }
    }
    return flags;
}

// 16 codes from 32-bit lanes into out[i..i+16).
template <int OutBytes>
MINIFLOAT_AVX512_DQ inline void store16(void* out, size_t i, __m512i codes) {
    if constexpr (OutBytes == 1) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(static_cast<uint8_t*>(out) + i), _mm512_cvtepi32_epi8(codes));
    } else {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(static_cast<uint16_t*>(out) + i), _mm512_cvtepi32_epi16(codes));
    }
}

// A whole run of kGroup float64 values whose every value takes the rule of
// Kind (normal or below_max), 16 per step in whole vectors: the codes' bits
// all lie in the upper halves of the sums (normal: fraction_shift > 32) or
// the lower halves of the magnitudes (below_max), so one permute gathers 16
// of them into 32-bit lanes, where the sign is merged and one store writes
// them (the 8-lane steps of run_steps64 narrow and store twice as often).
// The small kinds check their values as run_group's do (on the upper
// halves: values whose upper half is the largest value's go to the any
// rule too) and return the kind the group needs.
template <int OutBytes, GroupKind Kind>
MINIFLOAT_AVX512_DQ inline GroupKind run_group64(const Lanes64& k, CounterLanes& counters, const double* in,
                                                 void* out) {
    const __m512i low_halves = even_dwords_index();
    const __m512i high_halves = odd_dwords_index();
    constexpr bool kSmall = Kind == GroupKind::small || Kind == GroupKind::small_wide;
    __m512i top_high = _mm512_setzero_si512(), band = _mm512_set1_epi32(-1);
    for (size_t i = 0; i < kGroup; i += 16) {
        if constexpr (kSmall) {
            _mm_prefetch(reinterpret_cast<const char*>(in + i + kPrefetchGroups * kGroup), _MM_HINT_T0);
            _mm_prefetch(reinterpret_cast<const char*>(in + i + 8 + kPrefetchGroups * kGroup), _MM_HINT_T0);
            const __m512i draws = next_draws(counters);
            const __m512i u0 = _mm512_loadu_si512(in + i), u1 = _mm512_loadu_si512(in + i + 8);
            const __m512i high = _mm512_permutex2var_epi32(u0, high_halves, u1);
            // (an unsigned format's negative lane sends the group to the any rule)
            const __m512i a_high = _mm512_and_si512(high, k.abs_mask32);
            top_high = _mm512_max_epu32(top_high, a_high);
            if constexpr (Kind == GroupKind::small) {
                band = _mm512_min_epu32(band, _mm512_sub_epi32(a_high, k.band_from_high));
            }
            const __m512i magnitude = small_magnitudes64<Kind == GroupKind::small_wide>(
                k, high, _mm512_permutex2var_epi32(u0, low_halves, u1), draws);
            const __mmask16 negative = _mm512_cmplt_epi32_mask(high, _mm512_setzero_si512());
            __m512i codes = with_signs(magnitude, negative, k.sign_bit32, k.zero_drops_sign);
            store16<OutBytes>(out, i, codes);
            continue;
        }
        const __m512i complement = next_complemented_draws(counters);
        const __m256i draws_low = _mm512_castsi512_si256(complement), draws_high = _mm512_extracti64x4_epi64(complement, 1);
        const __m512i u0 = _mm512_loadu_si512(in + i), u1 = _mm512_loadu_si512(in + i + 8);
        __m512i magnitude, top;
        if constexpr (Kind == GroupKind::normal) {
            // (u + (~d << (fraction_shift - 32))) >> fraction_shift, rebiased;
            // the sum keeps u's sign (no carry reaches it below max)
            const __m512i s0 = _mm512_add_epi64(u0, _mm512_sllv_epi64(_mm512_cvtepu32_epi64(draws_low), k.carry_shift));
            const __m512i s1 = _mm512_add_epi64(u1, _mm512_sllv_epi64(_mm512_cvtepu32_epi64(draws_high), k.carry_shift));
            top = _mm512_permutex2var_epi32(s0, high_halves, s1);
            magnitude = _mm512_sub_epi32(_mm512_srlv_epi32(_mm512_and_si512(top, k.abs_mask32), k.high_fraction_shift),
                                         k.rebias32);
        } else {
            const __m512i m0 = any_magnitudes64(k, _mm512_and_si512(u0, k.abs_mask), draws_low);
            const __m512i m1 = any_magnitudes64(k, _mm512_and_si512(u1, k.abs_mask), draws_high);
            magnitude = _mm512_permutex2var_epi32(m0, low_halves, m1);
            top = _mm512_permutex2var_epi32(u0, high_halves, u1);
        }
        const __mmask16 negative = _mm512_cmplt_epi32_mask(top, _mm512_setzero_si512());  // as in codes16
        __m512i codes = _mm512_mask_or_epi32(magnitude, negative, magnitude, k.sign_bit32);
        if constexpr (Kind == GroupKind::below_max) {
            if (k.zero_drops_sign) codes = _mm512_maskz_mov_epi32(_mm512_test_epi32_mask(magnitude, magnitude), codes);
        }
        store16<OutBytes>(out, i, codes);
    }
    if constexpr (kSmall) {
        if (_mm512_cmpge_epu32_mask(top_high, k.max_bits_high) != 0) return GroupKind::any;
        if (_mm512_cmplt_epu32_mask(band, k.band_span_high) != 0) return GroupKind::small_wide;
    }
    return Kind;
}

template <int OutBytes>
MINIFLOAT_AVX512_DQ void sign_magnitude_kernel64(const EncodePlan& plan, const Lanes64& k, CounterLanes counters,
                                                 const double* in, void* out, size_t n, uint32_t& flags,
                                                 StochasticRedo redo) {
    size_t i = 0;
    GroupKind last = GroupKind::any;
    for (; i + kGroup <= n; i += kGroup) {
        void* group_out = static_cast<uint8_t*>(out) + i * OutBytes;
        if (last == GroupKind::small || last == GroupKind::small_wide) {
            // as in sign_magnitude_kernel: the last group's small rule at
            // once, the scan's rules only when its check fails
            const __m512i group_counter = counters.counter;
            const GroupKind needs = last == GroupKind::small
                                        ? run_group64<OutBytes, GroupKind::small>(k, counters, in + i, group_out)
                                        : run_group64<OutBytes, GroupKind::small_wide>(k, counters, in + i, group_out);
            if (needs == last) continue;
            counters.counter = group_counter;
            last = needs;
        } else {
            last = scan_group64(k, in + i);
        }
        switch (last) {
            case GroupKind::normal:
                run_group64<OutBytes, GroupKind::normal>(k, counters, in + i, group_out);
                break;
            case GroupKind::small:
                run_group64<OutBytes, GroupKind::small>(k, counters, in + i, group_out);
                break;
            case GroupKind::small_wide:
                run_group64<OutBytes, GroupKind::small_wide>(k, counters, in + i, group_out);
                break;
            case GroupKind::below_max:  // (scan_group64 does not choose it: small_wide covers its values)
                run_group64<OutBytes, GroupKind::below_max>(k, counters, in + i, group_out);
                break;
            case GroupKind::any:
                flags |= run_steps64<OutBytes, GroupKind::any>(plan, k, counters, in, out, i, kGroup, redo);
                break;
        }
    }
    flags |= run_steps64<OutBytes, GroupKind::any>(plan, k, counters, in, out, i, n - i, redo);
}

// float8_e8m0fnu from float64: inside [2^-127, 2^127) the code is the
// exponent field - 896, bumped when d < the top 32 fraction bits.
// Values [i, min(i + 16, n)) in 8-lane steps, the draws d = ~complement;
// a step with a value outside goes to `redo`.
MINIFLOAT_AVX512_DQ inline uint32_t e8m0_narrow_steps64(const EncodePlan& plan, __m512i complement, const double* in,
                                                        uint8_t* out, size_t i, size_t n, StochasticRedo redo) {
    const __m512i lowest = v64(uint64_t{896} << 52), span = v64(uint64_t{254} << 52);
    const __m512i fraction_mask = v64((uint64_t{1} << 52) - 1);
    const __m256i halves[2] = {_mm512_castsi512_si256(complement), _mm512_extracti64x4_epi64(complement, 1)};
    alignas(64) uint32_t draws[16];
    uint32_t flags = 0;
    for (size_t h = 0; h < 2 && i + 8 * h < n; h++) {
        const size_t start = i + 8 * h;
        const size_t count = n - start >= 8 ? 8 : n - start;
        const __mmask8 lanes = static_cast<__mmask8>((1u << count) - 1u);
        const __m512i u = load_epi64(in + start, lanes);
        const __m256i draw = bit_not(halves[h]);
        const __mmask8 inside = _mm512_cmplt_epu64_mask(_mm512_sub_epi64(u, lowest), span);
        if ((inside & lanes) != lanes) {
            _mm256_store_si256(reinterpret_cast<__m256i*>(draws), draw);
            flags |= redo(plan, in + start, true, draws, out + start, count);
            continue;
        }
        const __m256i threshold = _mm512_cvtepi64_epi32(_mm512_srli_epi64(_mm512_and_si512(u, fraction_mask), 20));
        const __mmask8 up = _mm256_cmplt_epu32_mask(draw, threshold);
        const __m512i code = _mm512_srli_epi64(_mm512_sub_epi64(u, lowest), 52);
        const __m512i bumped = _mm512_mask_sub_epi64(code, up, code, v64(~uint64_t{0}));
        store_epi64_as_epi8(out + start, lanes, bumped);
    }
    return flags;
}

// Whole steps of 16 values whose every value lies inside take 32-bit
// lanes, as run_group64 does: the upper halves hold the sign, the exponent
// and the fraction's top 20 bits, the lower halves its next 12; two
// permutes and one store per 16 values, where the 8-lane steps narrow and
// store twice (128K values in cache, Intel Xeon VM: 0.43 -> 0.34 ns each).
MINIFLOAT_AVX512_DQ void e8m0_kernel64(const EncodePlan& plan, CounterLanes counters, const double* in, uint8_t* out,
                                       size_t n, uint32_t& flags, StochasticRedo redo) {
    const __m512i lowest_high = v(896u << 20), span_high = v(254u << 20);
    const __m512i low_halves = even_dwords_index();
    const __m512i high_halves = odd_dwords_index();
    for (size_t i = 0; i < n; i += 16) {
        if (n - i >= 16) {
            const __m512i u0 = _mm512_loadu_si512(in + i), u1 = _mm512_loadu_si512(in + i + 8);
            const __m512i high = _mm512_permutex2var_epi32(u0, high_halves, u1);
            // the code in bits 20-27, the fraction's top 20 bits below
            const __m512i above_lowest = _mm512_sub_epi32(high, lowest_high);
            if (_mm512_cmplt_epu32_mask(above_lowest, span_high) == 0xFFFF) {
                const __m512i draws = next_draws(counters);
                const __m512i low = _mm512_permutex2var_epi32(u0, low_halves, u1);
                const __m512i threshold = _mm512_or_si512(_mm512_slli_epi32(high, 12), _mm512_srli_epi32(low, 20));
                const __mmask16 up = _mm512_cmplt_epu32_mask(draws, threshold);
                const __m512i code = _mm512_srli_epi32(above_lowest, 20);
                _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                                 _mm512_cvtepi32_epi8(_mm512_mask_sub_epi32(code, up, code, v(~0u))));
                continue;
            }
        }
        flags |= e8m0_narrow_steps64(plan, next_complemented_draws(counters), in, out, i, n, redo);
    }
}

MINIFLOAT_AVX512_DQ CounterLanes counters_from(uint64_t key, uint64_t first) {
    const ArsRoundKeys k = ars_round_keys(key);
    CounterLanes counters;
    const long long block = static_cast<long long>(first / 4);
    counters.counter = _mm512_setr_epi64(block, 0, block + 1, 0, block + 2, 0, block + 3, 0);
    counters.step = _mm512_setr_epi64(4, 0, 4, 0, 4, 0, 4, 0);
    for (int r = 0; r <= kArsRounds; r++) {
        const uint64_t low = r == kArsRounds ? ~k.low[r] : k.low[r], high = r == kArsRounds ? ~k.high[r] : k.high[r];
        counters.keys[r] = _mm512_broadcast_i32x4(_mm_set_epi64x(static_cast<long long>(high), static_cast<long long>(low)));
    }
    counters.last_key = _mm512_broadcast_i32x4(
        _mm_set_epi64x(static_cast<long long>(k.high[kArsRounds]), static_cast<long long>(k.low[kArsRounds])));
    return counters;
}

MINIFLOAT_AVX512_DQ void run_kernel(const EncodePlan& plan, uint64_t key, uint64_t first, const float* in, void* out,
                                    size_t n, uint32_t& flags, StochasticRedo redo) {
    const CounterLanes counters = counters_from(key, first);
    if (plan.exponent_only || plan.stochastic_powers_of_two) {
        e8m0_kernel(plan, counters, in, static_cast<uint8_t*>(out), n, flags, redo);
        return;
    }
    const Lanes32 k = make_lanes32(plan);
    if (plan.storage_bytes == 1) {
        sign_magnitude_kernel<1>(plan, k, counters, in, out, n, flags, redo);
    } else {
        sign_magnitude_kernel<2>(plan, k, counters, in, out, n, flags, redo);
    }
}

MINIFLOAT_AVX512_DQ void run_kernel64(const EncodePlan& plan, uint64_t key, uint64_t first, const double* in,
                                      void* out, size_t n, uint32_t& flags, StochasticRedo redo) {
    const CounterLanes counters = counters_from(key, first);
    if (plan.exponent_only) {
        e8m0_kernel64(plan, counters, in, static_cast<uint8_t*>(out), n, flags, redo);
        return;
    }
    const Lanes64 k = make_lanes64(plan);
    if (plan.storage_bytes == 1) {
        sign_magnitude_kernel64<1>(plan, k, counters, in, out, n, flags, redo);
    } else {
        sign_magnitude_kernel64<2>(plan, k, counters, in, out, n, flags, redo);
    }
}

}  // namespace

bool stochastic_avx512_usable() { return avx512_bw_usable() && cpu_has_avx512_dq_vaes(); }

bool stochastic_avx512(const EncodePlan& plan, uint64_t key, uint64_t first, const void* in, bool float64,
                       void* out, size_t n, uint32_t& flags, StochasticRedo redo) {
    if (!stochastic_avx512_usable() || first % 4 != 0) return false;
    if (float64) {
        run_kernel64(plan, key, first, static_cast<const double*>(in), out, n, flags, redo);
    } else {
        run_kernel(plan, key, first, static_cast<const float*>(in), out, n, flags, redo);
    }
    return true;
}

}  // namespace minifloat

#else

namespace minifloat {

bool stochastic_avx512_usable() { return false; }

bool stochastic_avx512(const EncodePlan&, uint64_t, uint64_t, const void*, bool, void*, size_t, uint32_t&,
                       StochasticRedo) {
    return false;
}

}  // namespace minifloat
#endif
