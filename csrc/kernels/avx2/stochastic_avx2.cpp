// The AVX2 twin of stochastic_avx512.cpp. The rules and their proofs are
// stochastic_rounding.cpp's and stochastic_avx512.cpp's (normal rule: the
// draw's complement carried into the code's last place; below the normal
// range the quotient and the threshold by variable shifts), the constants
// stochastic_vector_constants.h's; this file repeats their structure with
// other instructions at every step, so it is a twin, not a template over
// both: no mask registers (compares give lane masks; unsigned compares by
// biased signed ones or by max_epu32), no funnel shift (two shifts and an
// or), no 64-bit unsigned compares (float64 values are checked and rounded
// by their upper 32-bit halves, gathered with vshufps in the pair order of
// avx2_pack.h), draws 8 per vector (VAES on 256 bits, or AES-NI on each
// half). The float32 rule below the normal range is new here: the normal
// rule's carry with a drop per lane (small_magnitudes), 10 instructions,
// the AVX-512 kernel's threshold rule (wide_magnitudes) only for a step
// with a value in its band.
//
// Groups of kGroup values take one rule, predicted from the last group and
// checked while running; the vectors of a group the prediction did not fit
// are redone after its batch of groups, their draws made again.
#include "stochastic_avx2.h"

#include "counter_random.h"
#include "memory_streams.h"
#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#include <immintrin.h>

#include <algorithm>
#include <atomic>

#include "avx2_lanes.h"
#include "avx2_pack.h"

namespace minifloat {

namespace {

// (vaes: the 256-bit AES rounds of VaesRounds; the AesNiRounds instances use
// the 128-bit AES-NI instructions only, which run on CPUs without VAES)
#define MINIFLOAT_AVX2_SR __attribute__((target("avx2,aes,vaes")))
#define MINIFLOAT_AVX2_SR_INLINE __attribute__((target("avx2,aes,vaes"), always_inline)) inline

bool cpu_has_aes() {
    static const bool has = __builtin_cpu_supports("aes");
    return has;
}

bool cpu_has_vaes() {
    static const bool has = __builtin_cpu_supports("vaes");
    return has;
}

std::atomic<bool>& vaes_enabled() {
    static std::atomic<bool> enabled{true};
    return enabled;
}

// The counters of 2 consecutive ARS-5 blocks c_j, c_{j+1} (one per 128-bit
// lane) and the round keys in both lanes; the last round key in the two
// forms the rules take, its xor ending AESENCLAST: complemented (~d, the
// normal rule's carry) and biased (d ^ 2^31 in every 32-bit lane, for
// unsigned compares as signed ones).
struct DrawLanes {
    __m256i counter;
    __m256i keys[kArsRounds];
    __m256i last_complemented, last_biased;
};

// A 128-bit value (64-bit halves) in both lanes.
MINIFLOAT_AVX2_SR_INLINE __m256i both_lanes(uint64_t low, uint64_t high) {
    return _mm256_setr_epi64x(static_cast<long long>(low), static_cast<long long>(high), static_cast<long long>(low),
                              static_cast<long long>(high));
}

MINIFLOAT_AVX2_SR DrawLanes draw_lanes(uint64_t key, uint64_t first) {
    const ArsRoundKeys k = ars_round_keys(key);
    DrawLanes d;
    const long long block = static_cast<long long>(first / 4);
    d.counter = _mm256_setr_epi64x(block, 0, block + 1, 0);
    for (int r = 0; r < kArsRounds; r++) d.keys[r] = both_lanes(k.low[r], k.high[r]);
    const uint64_t low = k.low[kArsRounds], high = k.high[kArsRounds];
    constexpr uint64_t kBias = 0x8000000080000000ull;
    d.last_complemented = both_lanes(~low, ~high);
    d.last_biased = both_lanes(low ^ kBias, high ^ kBias);
    return d;
}

MINIFLOAT_AVX2_SR_INLINE __m256i next_counter(DrawLanes& d) {
    const __m256i x = _mm256_xor_si256(d.counter, d.keys[0]);
    d.counter = _mm256_add_epi64(d.counter, _mm256_setr_epi64x(2, 0, 2, 0));
    return x;
}

// The first round's inputs (c ^ k_0) of the next 4 vectors of draws (8
// blocks), where the counter's block is a multiple of 8 (the kernels' steps
// of 32 values from an element a multiple of 32): the blocks then differ
// from the first in its 3 low bits alone, so c + m = c ^ m, and one xor
// makes each (not an add and an xor).
struct StepCounters {
    __m256i x[4];
};
MINIFLOAT_AVX2_SR_INLINE StepCounters next_step_counters(DrawLanes& d) {
    StepCounters s;
    s.x[0] = _mm256_xor_si256(d.counter, d.keys[0]);
    d.counter = _mm256_add_epi64(d.counter, _mm256_setr_epi64x(8, 0, 8, 0));
    for (int t = 1; t < 4; t++) s.x[t] = _mm256_xor_si256(s.x[0], _mm256_setr_epi64x(2 * t, 0, 2 * t, 0));
    return s;
}

// The rest of 2 blocks (8 draws, element order) from their first round's
// input, the last round with `last`: 5 VAES instructions.
struct VaesRounds {
    MINIFLOAT_AVX2_SR_INLINE static __m256i rounds(const DrawLanes& d, __m256i x, __m256i last) {
        for (int r = 1; r < kArsRounds; r++) x = _mm256_aesenc_epi128(x, d.keys[r]);
        return _mm256_aesenclast_epi128(x, last);
    }
    MINIFLOAT_AVX2_SR_INLINE static __m256i next(DrawLanes& d, __m256i last) { return rounds(d, next_counter(d), last); }
};

// The same by AES-NI, each 128-bit half on its own (10 instructions and a
// lane split and merge).
struct AesNiRounds {
    MINIFLOAT_AVX2_SR_INLINE static __m256i next(DrawLanes& d, __m256i last) { return rounds(d, next_counter(d), last); }
    MINIFLOAT_AVX2_SR_INLINE static __m256i rounds(const DrawLanes& d, __m256i x, __m256i last) {
        __m128i low = _mm256_castsi256_si128(x), high = _mm256_extracti128_si256(x, 1);
        for (int r = 1; r < kArsRounds; r++) {
            const __m128i key = _mm256_castsi256_si128(d.keys[r]);
            low = _mm_aesenc_si128(low, key);
            high = _mm_aesenc_si128(high, key);
        }
        const __m128i last_key = _mm256_castsi256_si128(last);
        return _mm256_set_m128i(_mm_aesenclast_si128(high, last_key), _mm_aesenclast_si128(low, last_key));
    }
};

MINIFLOAT_AVX2_SR_INLINE __m256i v32(uint64_t x) { return _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(x))); }

MINIFLOAT_AVX2_SR_INLINE __m256i sign_bias() { return _mm256_set1_epi32(static_cast<int>(0x80000000u)); }

// The draws of a step a vector rule declined, to memory for `redo`.
MINIFLOAT_AVX2_SR_INLINE void store_draws(uint32_t* draws, __m256i biased) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(draws), _mm256_xor_si256(biased, sign_bias()));
}

// The codes of 8 values (32-bit lanes, element order) into out[i..i+8).
template <int OutBytes>
MINIFLOAT_AVX2_SR_INLINE void store8(void* out, size_t i, __m256i codes) {
    const __m256i words = _mm256_packus_epi32(codes, codes);  // per half: its 4 codes, twice
    if constexpr (OutBytes == 1) {
        const __m256i bytes = _mm256_packus_epi16(words, words);
        const __m128i both = _mm_unpacklo_epi32(_mm256_castsi256_si128(bytes), _mm256_extracti128_si256(bytes, 1));
        _mm_storel_epi64(reinterpret_cast<__m128i*>(static_cast<uint8_t*>(out) + i), both);
    } else {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(static_cast<uint16_t*>(out) + i),
                         _mm256_castsi256_si128(_mm256_permute4x64_epi64(words, 0x08)));
    }
}

// The codes of 32 values into out[i..i+32), packed a pair of vectors at a
// time (c0, c1: values 16h..16h+15 of the 32, their lanes in element order,
// or in the pair order of avx2_pack.h when `PairOrder`), the sign bit set
// where s0's or s1's lane is negative: the pairs' words as they come (fewer
// registers live than four vectors of codes and four of signs), the bytes
// once both pairs are in (avx2_pack.h). DropZeroSigns (formats without -0):
// a code that came out as -0 becomes +0, one compare for all 32 (16) codes
// where signing each vector as rounded took two operations per 8 (as
// codec_avx2.cpp's pack32_with_signs).
template <int OutBytes, bool PairOrder, bool DropZeroSigns = false>
struct CodeStore {
    WordsWithSigns first_pair;

    MINIFLOAT_AVX2_SR_INLINE void pair(void* out, size_t i, int h, __m256i c0, __m256i c1, __m256i s0, __m256i s1,
                                       __m256i sign) {
        if constexpr (OutBytes == 1) {
            const WordsWithSigns packed = pack_pair_with_signs(c0, c1, s0, s1);
            if (h == 0) {
                first_pair = packed;
                return;
            }
            __m256i codes = bytes_with_signs(first_pair, packed, sign);
            if constexpr (DropZeroSigns) codes = _mm256_andnot_si256(_mm256_cmpeq_epi8(codes, sign), codes);
            if constexpr (PairOrder) codes = from_pair_order(codes);
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(static_cast<uint8_t*>(out) + i), codes);
        } else {
            // per half: 4 of c0, 4 of c1; the dword permute puts each
            // vector's 8 back together (pair order: 0 1 4 5 | 2 3 6 7 as
            // dword pairs, so dwords 0 4 1 5 | 2 6 3 7 of the pack)
            const __m256i order = PairOrder ? _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)
                                            : _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
            const __m256i signed0 = _mm256_or_si256(c0, _mm256_and_si256(_mm256_srai_epi32(s0, 31), sign));
            const __m256i signed1 = _mm256_or_si256(c1, _mm256_and_si256(_mm256_srai_epi32(s1, 31), sign));
            __m256i packed = _mm256_permutevar8x32_epi32(_mm256_packus_epi32(signed0, signed1), order);
            if constexpr (DropZeroSigns) {
                const __m256i sign16 = _mm256_packus_epi32(sign, sign);  // (sign's bit in every 16-bit lane)
                packed = _mm256_andnot_si256(_mm256_cmpeq_epi16(packed, sign16), packed);
            }
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(static_cast<uint16_t*>(out) + i + 16 * h), packed);
        }
    }
};

// The rule a group is run by: all its values in the target's normal range
// up to its largest value (normal), or all at most the largest (small;
// float32: its steps with a value in the band of the small rule redone by
// the wide rule, see small_magnitudes).
enum class GroupKind { normal, small };
constexpr size_t kGroup = 256;

// The source lines of the step kBeyondCachePrefetchBytes (memory_streams.h)
// ahead of the 32 values at `in`, in the cache too: the hardware
// prefetchers alone keep too few reads in flight. float64 ->
// float8_e8m0fnu of 4M values on a Zen 5 VM: 3.0 ms without, 1.8 with 2 KB
// ahead when four streams were on, and in plain order 1.19 ms with 2 KB,
// 1.05 with 16 KB (float32 in the cache: 0.80 and 0.77 ms).
template <class Float>
MINIFLOAT_AVX2_SR_INLINE void prefetch_step(const Float* in) {
    const char* ahead = reinterpret_cast<const char*>(in) + kBeyondCachePrefetchBytes;
    for (size_t line = 0; line < 32 * sizeof(Float); line += 64) _mm_prefetch(ahead + line, _MM_HINT_T0);
}

// ---- float32 sources ----

struct Lanes32 {
    __m256i abs_mask, normal_from, max_bits, rebias, sign_bit, sign_byte;
    __m128i carry_shift, fraction_shift;  // the normal rule's shifts (one count for every lane)
    // the small rule: the emin field, K = emin field + fraction_shift,
    // 32 - K; the band [band_from, band_from + band_span) of exponent fields
    // it cannot round (32 <= s < 56)
    __m256i exponent_mask, shift_base, count_base, band_from, band_span;
    // the wide rule (stochastic_avx512.cpp's small_magnitudes)
    __m256i normal_count, fraction_mask, implicit_bit, rebias_bits;
    bool zero_drops_sign;
};

MINIFLOAT_AVX2_SR Lanes32 make_lanes32(const EncodePlan& p) {
    const StochasticVectorConstants c = stochastic_vector_constants<uint32_t>(p);
    Lanes32 k;
    // unsigned formats keep the sign bit in |x|: a negative value then lies
    // beyond the largest, and its vector goes to `redo`
    k.abs_mask = v32(p.is_signed ? 0x7FFFFFFF : 0xFFFFFFFF);
    k.normal_from = v32(c.normal_from);
    k.max_bits = v32(c.max_bits);
    k.rebias = v32(c.rebias);
    k.sign_bit = v32(c.sign_bit);
    k.sign_byte = _mm256_set1_epi8(static_cast<char>(c.sign_bit));
    k.carry_shift = _mm_cvtsi32_si128(static_cast<int>(c.carry_shift));
    k.fraction_shift = _mm_cvtsi32_si128(static_cast<int>(c.fraction_shift));
    const int64_t emin_field = static_cast<int64_t>(c.normal_from >> 23);
    const int64_t shift_base = emin_field + static_cast<int64_t>(c.fraction_shift);  // K: s = K - e
    k.exponent_mask = v32(0x7F800000);
    k.shift_base = v32(static_cast<uint64_t>(shift_base));
    k.count_base = v32(c.count_base);
    // (a target sharing float32's subnormal step, normal_from 0, never
    // takes the small rule: every value at most the largest is normal)
    const int64_t band_low = std::max<int64_t>(shift_base - 55, 1), band_high = shift_base - 31;
    k.band_from = v32(static_cast<uint64_t>(band_low) << 23);
    k.band_span = v32(c.normal_from != 0 && band_high > band_low ? static_cast<uint64_t>(band_high - band_low) << 23 : 0);
    k.normal_count = v32(32 - c.fraction_shift);
    k.fraction_mask = v32(0x7FFFFF);
    k.implicit_bit = v32(0x800000);
    k.rebias_bits = v32(c.rebias << c.fraction_shift);
    k.zero_drops_sign = c.zero_drops_sign;
    return k;
}

// The normal rule: (a + (~d >> (32 - fraction_shift))) >> fraction_shift,
// rebiased.
MINIFLOAT_AVX2_SR_INLINE __m256i normal_magnitudes(const Lanes32& k, __m256i a, __m256i complemented) {
    const __m256i sum = _mm256_add_epi32(a, _mm256_srl_epi32(complemented, k.carry_shift));
    return _mm256_sub_epi32(_mm256_srl_epi32(sum, k.fraction_shift), k.rebias);
}

// The small rule, for values at most the largest and none in the band: the
// normal rule's carry with the drop s per lane. With e the exponent field
// and m = min(e, emin field), x = a + 2^23 - (m << 23) is the significand
// (below the normal range) or the bits less the rebias's (normal), s = K - m,
// and (x + (~d >> (32 - s))) >> s the code: exact for s < 32 (the proof of
// normal_magnitude in stochastic_rounding.cpp); from s = 56 on both shifts
// give 0 (AVX2's variable shifts give 0 for counts of 32 and more, negative
// ones included), right for such values (their threshold is 0); the band
// between goes to the wide rule.
MINIFLOAT_AVX2_SR_INLINE __m256i small_magnitudes(const Lanes32& k, __m256i a, __m256i complemented) {
    // (m << 23 first: one shift fewer, shifts sharing ports with the AES rounds)
    const __m256i m_bits = _mm256_min_epi32(_mm256_and_si256(a, k.exponent_mask), k.normal_from);
    const __m256i m = _mm256_srli_epi32(m_bits, 23);
    const __m256i x = _mm256_sub_epi32(_mm256_add_epi32(a, k.implicit_bit), m_bits);
    const __m256i carry = _mm256_srlv_epi32(complemented, _mm256_add_epi32(m, k.count_base));
    return _mm256_srlv_epi32(_mm256_add_epi32(x, carry), _mm256_sub_epi32(k.shift_base, m));
}

// The wide rule, for any values at most the largest (stochastic_avx512.cpp's
// small_magnitudes<true>): x the bits less the rebias's (normal) or the
// significand (below); the code x >> s, plus 1 when the draw is below the
// threshold, the dropped bits' top 32: x << (32 - s) for s <= 32,
// x >> (s - 32) beyond (each shift giving 0 where the other applies).
MINIFLOAT_AVX2_SR_INLINE __m256i wide_magnitudes(const Lanes32& k, __m256i a, __m256i biased_draw) {
    const __m256i exponent = _mm256_srli_epi32(a, 23);
    const __m256i up_count = _mm256_min_epi32(_mm256_add_epi32(exponent, k.count_base), k.normal_count);
    const __m256i down_count = _mm256_sub_epi32(_mm256_set1_epi32(32), up_count);
    const __m256i below = _mm256_cmpgt_epi32(k.normal_from, a);  // (a < 2^31: at most the largest)
    const __m256i x = _mm256_blendv_epi8(_mm256_sub_epi32(a, k.rebias_bits),
                                         _mm256_or_si256(_mm256_and_si256(a, k.fraction_mask), k.implicit_bit), below);
    const __m256i threshold = _mm256_or_si256(_mm256_sllv_epi32(x, up_count),
                                              _mm256_srlv_epi32(x, _mm256_sub_epi32(_mm256_setzero_si256(), up_count)));
    const __m256i up = _mm256_cmpgt_epi32(_mm256_xor_si256(threshold, sign_bias()), biased_draw);
    return _mm256_sub_epi32(_mm256_srlv_epi32(x, down_count), up);  // (up: -1 where true)
}

// The sign source for a magnitude: u, or for formats without -0 u where
// the magnitude is not 0 (else +0).
MINIFLOAT_AVX2_SR_INLINE __m256i sign_source(bool zero_drops_sign, __m256i u, __m256i magnitude) {
    return zero_drops_sign ? _mm256_andnot_si256(_mm256_cmpeq_epi32(magnitude, _mm256_setzero_si256()), u) : u;
}

// The 32 values at in + i by the wide rule, their draws those of the step
// whose first counter is `counter` (a multiple of 8 blocks).
template <class Rounds, int OutBytes>
MINIFLOAT_AVX2_SR_INLINE void wide_step(const Lanes32& k, const DrawLanes& d, __m256i counter, const float* in,
                                        void* out, size_t i) {
    DrawLanes again = d;
    again.counter = counter;
    const StepCounters counters = next_step_counters(again);
    CodeStore<OutBytes, false> store;
    for (int h = 0; h < 2; h++) {
        __m256i c[2], s[2];
        for (int j = 0; j < 2; j++) {
            const __m256i u = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i + 16 * h + 8 * j));
            c[j] = wide_magnitudes(k, _mm256_and_si256(u, k.abs_mask),
                                   Rounds::rounds(again, counters.x[2 * h + j], again.last_biased));
            s[j] = sign_source(k.zero_drops_sign, u, c[j]);
        }
        store.pair(out, i, h, c[0], c[1], s[0], s[1], OutBytes == 1 ? k.sign_byte : k.sign_bit);
    }
}

// What a group's run found: whether every value is at most the largest
// (none beyond it, not finite, or an unsigned format's negative), in the
// normal range, and (small rule) outside the band.
struct GroupCheck {
    bool within_max, all_normal;
};

// A whole group by the rule of Kind (normal or small), 32 values per step.
template <class Rounds, int OutBytes, GroupKind Kind, bool ZeroDropsSign>
MINIFLOAT_AVX2_SR_INLINE GroupCheck run_group(const Lanes32& constants, DrawLanes& draws, const float* in, void* out) {
    // (copies the stores to `out` cannot alias: the counter stays in a register)
    const Lanes32 k = constants;
    DrawLanes d = draws;
    __m256i low = _mm256_set1_epi32(-1), top = _mm256_setzero_si256();
    CodeStore<OutBytes, false, Kind == GroupKind::small && ZeroDropsSign> store;
    for (size_t i = 0; i < kGroup; i += 32) {
        prefetch_step(in + i);
        const StepCounters counters = next_step_counters(d);
        __m256i band = _mm256_set1_epi32(-1);  // |x| - band_from's least in the step
        for (int h = 0; h < 2; h++) {
            __m256i c[2], s[2];
            for (int j = 0; j < 2; j++) {
                const __m256i u = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i + 16 * h + 8 * j));
                const __m256i a = _mm256_and_si256(u, k.abs_mask);
                low = _mm256_min_epu32(low, a);
                top = _mm256_max_epu32(top, a);
                if constexpr (Kind == GroupKind::normal) {
                    c[j] = normal_magnitudes(k, a, Rounds::rounds(d, counters.x[2 * h + j], d.last_complemented));
                    s[j] = u;
                } else {
                    // (|x| - band_from: below the band wraps around)
                    band = _mm256_min_epu32(band, _mm256_sub_epi32(a, k.band_from));
                    c[j] = small_magnitudes(k, a, Rounds::rounds(d, counters.x[2 * h + j], d.last_complemented));
                    s[j] = u;  // (-0 dropped by the store where the format has none)
                }
            }
            store.pair(out, i, h, c[0], c[1], s[0], s[1], OutBytes == 1 ? k.sign_byte : k.sign_bit);
        }
        // a step with a value in the band (Gaussian data puts one in a
        // fifth of the groups for float4_e2m1fn) again, whole, by the wide
        // rule, here: a branch per vector or a call (fix_group) made such a
        // fix cost 110-160 cycles
        if constexpr (Kind == GroupKind::small) {
            if (!all_lanes_at_most(k.band_span, band)) {
                wide_step<Rounds, OutBytes>(k, d, _mm256_sub_epi64(d.counter, _mm256_setr_epi64x(8, 0, 8, 0)), in,
                                            out, i);
            }
        }
    }
    draws.counter = d.counter;
    return {all_lanes_at_most(top, k.max_bits), all_lanes_at_most(k.normal_from, low)};
}

// The codes of one vector by the wide rule (any values at most the largest)
// into out[i..i+8).
template <int OutBytes>
MINIFLOAT_AVX2_SR_INLINE void store_wide8(const Lanes32& k, __m256i u, __m256i a, __m256i biased, void* out,
                                          size_t i) {
    const __m256i magnitude = wide_magnitudes(k, a, biased);
    const __m256i s = sign_source(k.zero_drops_sign, u, magnitude);
    store8<OutBytes>(out, i, _mm256_or_si256(magnitude, _mm256_and_si256(_mm256_srai_epi32(s, 31), k.sign_bit)));
}

// The vectors of a group whose rule (Ran) did not fit, again, their draws
// made again from the group's first counter: by `redo` where a value lies
// beyond the largest, else by the wide rule where one lies below the normal
// range (a normal group) or in the band (a small one, whose steps with one
// run_group redid already). Cheaper than running the group again: Gaussian
// data puts a value below the normal range in 3% of the groups for
// float8_e4m3fn, one beyond the largest in 1.5%.
template <class Rounds, int OutBytes, GroupKind Ran>
MINIFLOAT_AVX2_SR uint32_t fix_group(const EncodePlan& plan, const Lanes32& k, const DrawLanes& d, __m256i counter,
                                     const float* in, void* out, GroupCheck check, StochasticRedo redo) {
    uint32_t flags = 0;
    DrawLanes again = d;
    alignas(32) uint32_t draws[8];
    const bool group_within_max = check.within_max;
    for (size_t v = 0; v < kGroup / 8; v++) {
        const __m256i u = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + 8 * v));
        const __m256i a = _mm256_and_si256(u, k.abs_mask);
        const bool within_max = group_within_max || all_lanes_at_most(a, k.max_bits);
        const bool rule_fits = Ran == GroupKind::normal ? all_lanes_at_most(k.normal_from, a)
                                                        : all_lanes_at_most(k.band_span, _mm256_sub_epi32(a, k.band_from));
        if (within_max && rule_fits) continue;
        const long long step = static_cast<long long>(2 * v);  // (blocks: the counters' low halves)
        again.counter = _mm256_add_epi64(counter, _mm256_setr_epi64x(step, 0, step, 0));
        const __m256i biased = Rounds::next(again, again.last_biased);
        if (within_max) {
            store_wide8<OutBytes>(k, u, a, biased, out, 8 * v);
        } else {
            store_draws(draws, biased);
            flags |= redo(plan, in + 8 * v, false, draws, static_cast<uint8_t*>(out) + 8 * v * OutBytes, 8);
        }
    }
    return flags;
}

// Values [i, i + count) vector by vector: the wide rule where every value
// is at most the largest, else (and for a last partial vector) `redo`.
template <class Rounds, int OutBytes>
MINIFLOAT_AVX2_SR uint32_t run_steps(const EncodePlan& plan, const Lanes32& k, DrawLanes& d, const float* in,
                                     void* out, size_t i, size_t count, StochasticRedo redo) {
    uint32_t flags = 0;
    alignas(32) uint32_t draws[8];
    for (const size_t end = i + count; i < end; i += 8) {
        const __m256i biased = Rounds::next(d, d.last_biased);
        if (end - i >= 8) {
            const __m256i u = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
            const __m256i a = _mm256_and_si256(u, k.abs_mask);
            if (all_lanes_at_most(a, k.max_bits)) {
                store_wide8<OutBytes>(k, u, a, biased, out, i);
                continue;
            }
        }
        store_draws(draws, biased);
        const size_t lanes = end - i >= 8 ? 8 : end - i;
        flags |= redo(plan, in + i, false, draws, static_cast<uint8_t*>(out) + i * OutBytes, lanes);
    }
    return flags;
}

// Whether the first group's values are all in the normal range (or
// beyond): its rule, chosen by a scan. (Long arrays come a 4 KB block at a
// time, beyond the cache from four places (memory_streams.h), and a wrong
// guess costs a group's every vector again.)
MINIFLOAT_AVX2_SR_INLINE bool first_group_normal(const Lanes32& k, const float* in) {
    __m256i low = _mm256_set1_epi32(-1);
    for (size_t i = 0; i < kGroup; i += 8) {
        const __m256i u = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
        low = _mm256_min_epu32(low, _mm256_and_si256(u, k.abs_mask));
    }
    return all_lanes_at_most(k.normal_from, low);
}

// float8_e8m0fnu and the unsigned formats of powers of two: inside
// [2^-126, their largest value's binade end) the exponent field moved by the
// bias, bumped when d < fraction << 9; 32 values per step, a step with a
// value outside (zero, negative, subnormal, inf, NaN, overflow: rare in data
// meant for these formats) to `redo` vector by vector.
MINIFLOAT_AVX2_SR_INLINE __m256i e8m0_codes(__m256i offset, __m256i u, __m256i biased) {
    const __m256i up = _mm256_cmpgt_epi32(_mm256_xor_si256(_mm256_slli_epi32(u, 9), sign_bias()), biased);
    return _mm256_sub_epi32(_mm256_add_epi32(_mm256_srli_epi32(u, 23), offset), up);
}

template <class Rounds>
MINIFLOAT_AVX2_SR void e8m0_kernel(const EncodePlan& plan, DrawLanes d, const float* in, uint8_t* out, size_t n,
                                   uint32_t& flags, StochasticRedo redo) {
    const __m256i lowest = _mm256_set1_epi32(0x00800000);
    const __m256i inside_limit = v32(powers_of_two_end_bits(plan) - 0x00800000u - 1u);
    const __m256i offset = _mm256_set1_epi32(plan.bias - 127);
    alignas(32) uint32_t draws[8];
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        prefetch_step(in + i);
        const StepCounters counters = next_step_counters(d);
        __m256i u[4], biased[4], high = _mm256_setzero_si256();
        for (int j = 0; j < 4; j++) {
            u[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i + 8 * j));
            high = _mm256_max_epu32(high, _mm256_sub_epi32(u[j], lowest));
            biased[j] = Rounds::rounds(d, counters.x[j], d.last_biased);
        }
        if (all_lanes_at_most(high, inside_limit)) {
            const __m256i bytes = pack32_bytes(e8m0_codes(offset, u[0], biased[0]), e8m0_codes(offset, u[1], biased[1]),
                                               e8m0_codes(offset, u[2], biased[2]), e8m0_codes(offset, u[3], biased[3]));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), bytes);
            continue;
        }
        for (int j = 0; j < 4; j++) {
            if (all_lanes_at_most(_mm256_sub_epi32(u[j], lowest), inside_limit)) {
                store8<1>(out, i + 8 * j, e8m0_codes(offset, u[j], biased[j]));
            } else {
                store_draws(draws, biased[j]);
                flags |= redo(plan, in + i + 8 * j, false, draws, out + i + 8 * j, 8);
            }
        }
    }
    for (; i < n; i += 8) {
        const size_t lanes = n - i >= 8 ? 8 : n - i;
        store_draws(draws, Rounds::next(d, d.last_biased));
        flags |= redo(plan, in + i, false, draws, out + i, lanes);
    }
}

// ---- float64 sources: 8 values per step as their upper and lower 32-bit
// halves (vshufps of two vectors of 4: the pair order 0 1 4 5 | 2 3 6 7),
// their draws permuted into that order where the rule takes them per lane
// (the normal rule widens them to the 64-bit lanes instead) ----

struct Lanes64 {
    __m256i abs_mask32, normal_from32, rebias32, sign_bit, sign_byte;
    // the upper halves' limit, below max_bits' upper half (the largest value
    // itself and anything with its upper half go to `redo`)
    __m256i top_limit32;
    __m128i carry_shift, high_fraction_shift;  // fraction_shift - 32 - ... (see make_lanes64)
    // the small rule: K - 32, the significand's upper part, the rebias's bits
    __m256i high_shift_base, high_fraction_shift32, fraction_mask32, implicit_bit32, rebias_bits_high;
    bool zero_drops_sign;
};

MINIFLOAT_AVX2_SR Lanes64 make_lanes64(const EncodePlan& p) {
    const StochasticVectorConstants c = stochastic_vector_constants<uint64_t>(p);
    Lanes64 k;
    // (fraction_shift > 32 for every format served, and normal_from and
    // max_bits have no lower half: both are codes shifted by it)
    // (unsigned formats: as from float32, a negative value lies beyond the largest)
    k.abs_mask32 = v32(p.is_signed ? 0x7FFFFFFF : 0xFFFFFFFF);
    k.normal_from32 = v32(c.normal_from >> 32);
    k.top_limit32 = v32((c.max_bits >> 32) - 1);
    k.rebias32 = v32(c.rebias);
    k.sign_bit = v32(c.sign_bit);
    k.sign_byte = _mm256_set1_epi8(static_cast<char>(c.sign_bit));
    k.carry_shift = _mm_cvtsi32_si128(static_cast<int>(c.carry_shift));
    k.high_fraction_shift = _mm_cvtsi32_si128(static_cast<int>(c.fraction_shift - 32));
    k.high_shift_base = v32(64 - c.count_base - 32);  // count_base = 64 - K
    k.high_fraction_shift32 = v32(c.fraction_shift - 32);
    k.fraction_mask32 = v32(0xFFFFF);
    k.implicit_bit32 = v32(0x100000);
    k.rebias_bits_high = v32((c.rebias << c.fraction_shift) >> 32);
    k.zero_drops_sign = c.zero_drops_sign;
    return k;
}

// The upper (odd dwords) or lower (even) halves of u0's and u1's 4 values, pair order.
MINIFLOAT_AVX2_SR_INLINE __m256i upper_halves(__m256i u0, __m256i u1) {
    return _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(u0), _mm256_castsi256_ps(u1), 0xDD));
}
MINIFLOAT_AVX2_SR_INLINE __m256i lower_halves(__m256i u0, __m256i u1) {
    return _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(u0), _mm256_castsi256_ps(u1), 0x88));
}

// Element order <-> pair order (an involution: 64-bit blocks 1 and 2 swap).
MINIFLOAT_AVX2_SR_INLINE __m256i swap_pair_order(__m256i x) { return _mm256_permute4x64_epi64(x, 0xD8); }

// The normal rule for 8 values u0, u1 (element order, 4 each) with the
// complements of their draws: (u + (~d << (fraction_shift - 32))) >>
// fraction_shift, rebiased, read from the sums' upper halves (pair order);
// the sum keeps u's sign (no carry reaches it below the largest), returned
// in `signs`.
MINIFLOAT_AVX2_SR_INLINE __m256i normal_magnitudes64(const Lanes64& k, __m256i u0, __m256i u1, __m256i complemented,
                                                     __m256i& signs) {
    const __m256i d0 = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(complemented));
    const __m256i d1 = _mm256_cvtepu32_epi64(_mm256_extracti128_si256(complemented, 1));
    const __m256i s0 = _mm256_add_epi64(u0, _mm256_sll_epi64(d0, k.carry_shift));
    const __m256i s1 = _mm256_add_epi64(u1, _mm256_sll_epi64(d1, k.carry_shift));
    signs = upper_halves(s0, s1);
    const __m256i a = _mm256_and_si256(signs, k.abs_mask32);
    return _mm256_sub_epi32(_mm256_srl_epi32(a, k.high_fraction_shift), k.rebias32);
}

// The small rule on the halves (pair order) of 8 values at most the
// largest: c = s - 32 dropped bits of the upper half x (s >= fraction_shift
// > 32), the code x >> c, the threshold the 32 bits of the pair x:low from
// bit c: low >> c | x << (32 - c) for c < 32, x >> (c - 32) from 32 on
// (each term 0 where another applies; at c = 32 two give x).
MINIFLOAT_AVX2_SR_INLINE __m256i small_magnitudes64(const Lanes64& k, __m256i a, __m256i low, __m256i biased_draw) {
    const __m256i exponent = _mm256_srli_epi32(a, 20);
    const __m256i c = _mm256_max_epi32(_mm256_sub_epi32(k.high_shift_base, exponent), k.high_fraction_shift32);
    const __m256i below = _mm256_cmpgt_epi32(k.normal_from32, a);
    const __m256i x = _mm256_blendv_epi8(_mm256_sub_epi32(a, k.rebias_bits_high),
                                         _mm256_or_si256(_mm256_and_si256(a, k.fraction_mask32), k.implicit_bit32),
                                         below);
    const __m256i thirty_two = _mm256_set1_epi32(32);
    const __m256i funnel = _mm256_or_si256(_mm256_srlv_epi32(low, c), _mm256_sllv_epi32(x, _mm256_sub_epi32(thirty_two, c)));
    const __m256i threshold = _mm256_or_si256(funnel, _mm256_srlv_epi32(x, _mm256_sub_epi32(c, thirty_two)));
    const __m256i up = _mm256_cmpgt_epi32(_mm256_xor_si256(threshold, sign_bias()), biased_draw);
    return _mm256_sub_epi32(_mm256_srlv_epi32(x, c), up);
}

MINIFLOAT_AVX2_SR_INLINE void load8(const double* in, __m256i& u0, __m256i& u1) {
    u0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
    u1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + 4));
}

// As run_group (the small rule takes every value at most the largest: no band).
template <class Rounds, int OutBytes, GroupKind Kind, bool ZeroDropsSign>
MINIFLOAT_AVX2_SR_INLINE GroupCheck run_group(const Lanes64& constants, DrawLanes& draws, const double* in, void* out) {
    const Lanes64 k = constants;  // (as in run_group)
    DrawLanes d = draws;
    __m256i low = _mm256_set1_epi32(-1), top = _mm256_setzero_si256();
    CodeStore<OutBytes, true, Kind == GroupKind::small && ZeroDropsSign> store;
    for (size_t i = 0; i < kGroup; i += 32) {
        prefetch_step(in + i);
        const StepCounters counters = next_step_counters(d);
        for (int h = 0; h < 2; h++) {
            __m256i c[2], s[2];
            for (int j = 0; j < 2; j++) {
                __m256i u0, u1;
                load8(in + i + 16 * h + 8 * j, u0, u1);
                const __m256i high = upper_halves(u0, u1);
                const __m256i a = _mm256_and_si256(high, k.abs_mask32);
                low = _mm256_min_epu32(low, a);
                top = _mm256_max_epu32(top, a);
                if constexpr (Kind == GroupKind::normal) {
                    c[j] = normal_magnitudes64(k, u0, u1, Rounds::rounds(d, counters.x[2 * h + j], d.last_complemented),
                                               s[j]);
                } else {
                    const __m256i biased = swap_pair_order(Rounds::rounds(d, counters.x[2 * h + j], d.last_biased));
                    c[j] = small_magnitudes64(k, a, lower_halves(u0, u1), biased);
                    s[j] = high;  // (-0 dropped by the store where the format has none)
                }
            }
            store.pair(out, i, h, c[0], c[1], s[0], s[1], OutBytes == 1 ? k.sign_byte : k.sign_bit);
        }
    }
    draws.counter = d.counter;
    return {all_lanes_at_most(top, k.top_limit32), all_lanes_at_most(k.normal_from32, low)};
}

// The codes of one vector (u0, u1) by the small rule (any values at most the
// largest) into out[i..i+8).
template <int OutBytes>
MINIFLOAT_AVX2_SR_INLINE void store_small8(const Lanes64& k, __m256i u0, __m256i u1, __m256i biased, void* out,
                                           size_t i) {
    const __m256i high = upper_halves(u0, u1);
    const __m256i a = _mm256_and_si256(high, k.abs_mask32);
    const __m256i magnitude = small_magnitudes64(k, a, lower_halves(u0, u1), swap_pair_order(biased));
    const __m256i s = sign_source(k.zero_drops_sign, high, magnitude);
    const __m256i codes = _mm256_or_si256(magnitude, _mm256_and_si256(_mm256_srai_epi32(s, 31), k.sign_bit));
    store8<OutBytes>(out, i, swap_pair_order(codes));
}

// As fix_group: a vector with a value beyond the largest by `redo`, one of
// a normal group with a value below the normal range by the small rule.
template <class Rounds, int OutBytes, GroupKind Ran>
MINIFLOAT_AVX2_SR uint32_t fix_group(const EncodePlan& plan, const Lanes64& k, const DrawLanes& d, __m256i counter,
                                       const double* in, void* out, GroupCheck, StochasticRedo redo) {
    uint32_t flags = 0;
    DrawLanes again = d;
    alignas(32) uint32_t draws[8];
    for (size_t v = 0; v < kGroup / 8; v++) {
        __m256i u0, u1;
        load8(in + 8 * v, u0, u1);
        const __m256i a = _mm256_and_si256(upper_halves(u0, u1), k.abs_mask32);
        const bool within_max = all_lanes_at_most(a, k.top_limit32);
        if (within_max && (Ran == GroupKind::small || all_lanes_at_most(k.normal_from32, a))) continue;
        const long long step = static_cast<long long>(2 * v);
        again.counter = _mm256_add_epi64(counter, _mm256_setr_epi64x(step, 0, step, 0));
        const __m256i biased = Rounds::next(again, again.last_biased);
        if (within_max) {
            store_small8<OutBytes>(k, u0, u1, biased, out, 8 * v);
        } else {
            store_draws(draws, biased);
            flags |= redo(plan, in + 8 * v, true, draws, static_cast<uint8_t*>(out) + 8 * v * OutBytes, 8);
        }
    }
    return flags;
}

template <class Rounds, int OutBytes>
MINIFLOAT_AVX2_SR uint32_t run_steps(const EncodePlan& plan, const Lanes64& k, DrawLanes& d, const double* in,
                                       void* out, size_t i, size_t count, StochasticRedo redo) {
    uint32_t flags = 0;
    alignas(32) uint32_t draws[8];
    for (const size_t end = i + count; i < end; i += 8) {
        const __m256i biased = Rounds::next(d, d.last_biased);
        if (end - i >= 8) {
            __m256i u0, u1;
            load8(in + i, u0, u1);
            if (all_lanes_at_most(_mm256_and_si256(upper_halves(u0, u1), k.abs_mask32), k.top_limit32)) {
                store_small8<OutBytes>(k, u0, u1, biased, out, i);
                continue;
            }
        }
        store_draws(draws, biased);
        const size_t lanes = end - i >= 8 ? 8 : end - i;
        flags |= redo(plan, in + i, true, draws, static_cast<uint8_t*>(out) + i * OutBytes, lanes);
    }
    return flags;
}

MINIFLOAT_AVX2_SR_INLINE bool first_group_normal(const Lanes64& k, const double* in) {
    __m256i low = _mm256_set1_epi32(-1);
    for (size_t i = 0; i < kGroup; i += 8) {
        __m256i u0, u1;
        load8(in + i, u0, u1);
        low = _mm256_min_epu32(low, _mm256_and_si256(upper_halves(u0, u1), k.abs_mask32));
    }
    return all_lanes_at_most(k.normal_from32, low);
}

// Groups of kGroup values by the rule the last group's values asked for
// (normal, or small once one was below the normal range), the vectors a
// group's rule did not fit fixed after its batch of kBatchGroups (no call
// among the groups: every vector register is the caller's to save, and a
// call in their loop had the compiler keep the constants in memory; 0.9
// against 1.0 ms for float4_e2m1fn); the rest vector by vector. Float32
// and float64 alike (run_group, fix_group, run_steps for each).
constexpr size_t kBatchGroups = 32;

struct PendingFix {
    uint32_t group;
    bool ran_normal;
    GroupCheck check;
};

template <class Rounds, int OutBytes, bool ZeroDropsSign, class Lanes, class Float>
MINIFLOAT_AVX2_SR void sign_magnitude_kernel(const EncodePlan& plan, const Lanes& k, DrawLanes d, const Float* in,
                                             void* out, size_t n, uint32_t& flags, StochasticRedo redo) {
    size_t i = 0;
    bool normal = n < kGroup || first_group_normal(k, in);
    while (i + kGroup <= n) {
        const size_t batch_start = i;
        const __m256i batch_counter = d.counter;
        PendingFix pending[kBatchGroups];
        size_t pending_count = 0;
        for (uint32_t g = 0; g < kBatchGroups && i + kGroup <= n; g++, i += kGroup) {
            void* group_out = static_cast<uint8_t*>(out) + i * OutBytes;
            GroupCheck check;
            bool fits;
            if (normal) {
                check = run_group<Rounds, OutBytes, GroupKind::normal, ZeroDropsSign>(k, d, in + i, group_out);
                fits = check.within_max && check.all_normal;
            } else {
                check = run_group<Rounds, OutBytes, GroupKind::small, ZeroDropsSign>(k, d, in + i, group_out);
                fits = check.within_max;
            }
            if (!fits) pending[pending_count++] = {g, normal, check};
            normal = check.all_normal;
        }
        for (size_t p = 0; p < pending_count; p++) {
            const PendingFix& fix = pending[p];
            const size_t start = batch_start + size_t{fix.group} * kGroup;
            const long long blocks = static_cast<long long>(start - batch_start) / 4;  // (the counters' low halves)
            const __m256i counter = _mm256_add_epi64(batch_counter, _mm256_setr_epi64x(blocks, 0, blocks, 0));
            void* group_out = static_cast<uint8_t*>(out) + start * OutBytes;
            if (fix.ran_normal) {
                flags |= fix_group<Rounds, OutBytes, GroupKind::normal>(plan, k, d, counter, in + start, group_out,
                                                                        fix.check, redo);
            } else {
                flags |= fix_group<Rounds, OutBytes, GroupKind::small>(plan, k, d, counter, in + start, group_out,
                                                                       fix.check, redo);
            }
        }
    }
    flags |= run_steps<Rounds, OutBytes>(plan, k, d, in, out, i, n - i, redo);
}

// float8_e8m0fnu from float64: inside [2^-127, 2^127) (bounds without a
// lower half, so the upper halves decide) the code is the exponent field -
// 896, bumped when d < the top 32 fraction bits (upper half << 12 | lower
// half >> 20); 32 values per step (pair order), a step with a value outside
// to `redo` vector by vector.
MINIFLOAT_AVX2_SR_INLINE __m256i e8m0_codes64(__m256i field, __m256i low, __m256i high, __m256i biased) {
    const __m256i threshold = _mm256_or_si256(_mm256_slli_epi32(high, 12), _mm256_srli_epi32(low, 20));
    const __m256i up = _mm256_cmpgt_epi32(_mm256_xor_si256(threshold, sign_bias()), swap_pair_order(biased));
    return _mm256_sub_epi32(_mm256_srli_epi32(field, 20), up);
}

template <class Rounds>
MINIFLOAT_AVX2_SR void e8m0_kernel64(const EncodePlan& plan, DrawLanes d, const double* in, uint8_t* out, size_t n,
                                     uint32_t& flags, StochasticRedo redo) {
    const __m256i lowest = _mm256_set1_epi32(896 << 20), inside_limit = _mm256_set1_epi32((254 << 20) - 1);
    alignas(32) uint32_t draws[8];
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        prefetch_step(in + i);
        const StepCounters counters = next_step_counters(d);
        __m256i field[4], low[4], high[4], biased[4], widest = _mm256_setzero_si256();
        for (int j = 0; j < 4; j++) {
            __m256i u0, u1;
            load8(in + i + 8 * j, u0, u1);
            high[j] = upper_halves(u0, u1);
            low[j] = lower_halves(u0, u1);
            field[j] = _mm256_sub_epi32(high[j], lowest);
            widest = _mm256_max_epu32(widest, field[j]);
            biased[j] = Rounds::rounds(d, counters.x[j], d.last_biased);
        }
        if (all_lanes_at_most(widest, inside_limit)) {
            const __m256i bytes = pack32_bytes_from_pair_order(
                e8m0_codes64(field[0], low[0], high[0], biased[0]), e8m0_codes64(field[1], low[1], high[1], biased[1]),
                e8m0_codes64(field[2], low[2], high[2], biased[2]), e8m0_codes64(field[3], low[3], high[3], biased[3]));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), bytes);
            continue;
        }
        for (int j = 0; j < 4; j++) {
            if (all_lanes_at_most(field[j], inside_limit)) {
                store8<1>(out, i + 8 * j, swap_pair_order(e8m0_codes64(field[j], low[j], high[j], biased[j])));
            } else {
                store_draws(draws, biased[j]);
                flags |= redo(plan, in + i + 8 * j, true, draws, out + i + 8 * j, 8);
            }
        }
    }
    for (; i < n; i += 8) {
        const size_t lanes = n - i >= 8 ? 8 : n - i;
        store_draws(draws, Rounds::next(d, d.last_biased));
        flags |= redo(plan, in + i, true, draws, out + i, lanes);
    }
}

template <class Rounds>
MINIFLOAT_AVX2_SR void run_kernel(const EncodePlan& plan, uint64_t key, uint64_t first, const float* in, void* out,
                                  size_t n, uint32_t& flags, StochasticRedo redo) {
    const DrawLanes d = draw_lanes(key, first);
    if (plan.exponent_only || plan.stochastic_powers_of_two) {
        e8m0_kernel<Rounds>(plan, d, in, static_cast<uint8_t*>(out), n, flags, redo);
        return;
    }
    const Lanes32 k = make_lanes32(plan);
    if (plan.storage_bytes == 1) {
        if (plan.zero_drops_sign) {
            sign_magnitude_kernel<Rounds, 1, true>(plan, k, d, in, out, n, flags, redo);
        } else {
            sign_magnitude_kernel<Rounds, 1, false>(plan, k, d, in, out, n, flags, redo);
        }
    } else if (plan.zero_drops_sign) {
        sign_magnitude_kernel<Rounds, 2, true>(plan, k, d, in, out, n, flags, redo);
    } else {
        sign_magnitude_kernel<Rounds, 2, false>(plan, k, d, in, out, n, flags, redo);
    }
}

template <class Rounds>
MINIFLOAT_AVX2_SR void run_kernel64(const EncodePlan& plan, uint64_t key, uint64_t first, const double* in,
                                    void* out, size_t n, uint32_t& flags, StochasticRedo redo) {
    const DrawLanes d = draw_lanes(key, first);
    if (plan.exponent_only) {
        e8m0_kernel64<Rounds>(plan, d, in, static_cast<uint8_t*>(out), n, flags, redo);
        return;
    }
    const Lanes64 k = make_lanes64(plan);
    if (plan.storage_bytes == 1) {
        if (plan.zero_drops_sign) {
            sign_magnitude_kernel<Rounds, 1, true>(plan, k, d, in, out, n, flags, redo);
        } else {
            sign_magnitude_kernel<Rounds, 1, false>(plan, k, d, in, out, n, flags, redo);
        }
    } else if (plan.zero_drops_sign) {
        sign_magnitude_kernel<Rounds, 2, true>(plan, k, d, in, out, n, flags, redo);
    } else {
        sign_magnitude_kernel<Rounds, 2, false>(plan, k, d, in, out, n, flags, redo);
    }
}

// Elements first .. up to a multiple of 32 (at most 28: `first` is a multiple
// of 4) by `redo`, so that the kernels' steps start at multiples of 32
// (next_step_counters); returns how many.
size_t round_head(const EncodePlan& plan, uint64_t key, uint64_t first, const void* in, bool float64, void* out,
                  size_t n, uint32_t& flags, StochasticRedo redo) {
    const size_t head = std::min<size_t>(n, (32 - first % 32) % 32);
    uint32_t draws[32];
    fill_draws32(key, first, draws, head);
    for (size_t i = 0; i < head; i += 8) {
        const size_t count = std::min<size_t>(8, head - i);
        const void* values = static_cast<const char*>(in) + i * (float64 ? sizeof(double) : sizeof(float));
        flags |= redo(plan, values, float64, draws + i, static_cast<uint8_t*>(out) + i * plan.storage_bytes, count);
    }
    return head;
}

template <class Rounds>
void run_either(const EncodePlan& plan, uint64_t key, uint64_t first, const void* in, bool float64, void* out,
                size_t n, uint32_t& flags, StochasticRedo redo) {
    const size_t head = round_head(plan, key, first, in, float64, out, n, flags, redo);
    in = static_cast<const char*>(in) + head * (float64 ? sizeof(double) : sizeof(float));
    out = static_cast<uint8_t*>(out) + head * plan.storage_bytes;
    first += head;
    n -= head;
    if (float64) {
        run_kernel64<Rounds>(plan, key, first, static_cast<const double*>(in), out, n, flags, redo);
    } else {
        run_kernel<Rounds>(plan, key, first, static_cast<const float*>(in), out, n, flags, redo);
    }
}

}  // namespace

bool stochastic_avx2_usable() { return avx2_usable() && cpu_has_aes(); }

bool set_stochastic_avx2_vaes(bool enabled) { return vaes_enabled().exchange(enabled); }

bool stochastic_avx2(const EncodePlan& plan, uint64_t key, uint64_t first, const void* in, bool float64, void* out,
                     size_t n, uint32_t& flags, StochasticRedo redo) {
    if (!stochastic_avx2_usable() || first % 4 != 0) return false;
    if (cpu_has_vaes() && vaes_enabled().load(std::memory_order_relaxed)) {
        run_either<VaesRounds>(plan, key, first, in, float64, out, n, flags, redo);
    } else {
        run_either<AesNiRounds>(plan, key, first, in, float64, out, n, flags, redo);
    }
    return true;
}

}  // namespace minifloat

#else

namespace minifloat {

bool stochastic_avx2_usable() { return false; }

bool set_stochastic_avx2_vaes(bool) { return false; }

bool stochastic_avx2(const EncodePlan&, uint64_t, uint64_t, const void*, bool, void*, size_t, uint32_t&,
                     StochasticRedo) {
    return false;
}

}  // namespace minifloat
#endif
