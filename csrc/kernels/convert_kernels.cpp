// Branch-free conversion kernels. Loop bodies are integer operations and
// mask selects only (no branches, no bool logic the vectorizer cannot
// if-convert), so the compiler vectorizes them for every clone listed in
// simd_dispatch.h. codec.h holds the exact scalar rules these must match.
#include "convert_kernels.h"
#include "bit_scan.h"
#include "byte_table_encoder.h"
#include "widen_float32.h"
#include "memory_streams.h"

#include "codec.h"
#include "codec_avx2.h"
#include "codec_avx512.h"
#include "float_bits.h"
#include "fp_status.h"
#include "lookup_kernels.h"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "simd_dispatch.h"

namespace minifloat {

namespace {

using float_bits::BinaryLayout;
using float_bits::IeeeTraits;
using float_bits::bit_cast;
using float_bits::mask_if;
using float_bits::select;

// A float64's upper 32 bits read as a float format of their own (11-bit
// exponent, 20-bit fraction). The AVX2 float64 encoder rounds those, the
// lower 32 bits folded into bit 0 as a sticky bit: rounding to odd at 20
// fraction bits, which every 8-bit format's rounding then gets right.
struct DoubleHighWordTraits : BinaryLayout<uint32_t, 20, 1023> {};

// The plan's fields as locals of the source's lane width.
template <class Bits>
struct LaneConstants {
    Bits mantissa_bits, emin_field, fraction_shift, max_magnitude, sign_bit;
    Bits nan_positive, nan_negative, inf_positive, inf_negative;
    Bits overflow_positive, overflow_negative, max_positive, max_negative;
    Bits nan_flags, inf_flags, overflow_flags, zero_drops_sign;
    // layouts beyond signed-with-subnormals (all-ones masks when they apply)
    Bits is_unsigned, no_zero, no_subnormals, implicit_unit, invalid_code;

    template <class Float>
    static LaneConstants make(const EncodePlan& p) {
        using T = IeeeTraits<Float>;
        LaneConstants c;
        c.mantissa_bits = p.mantissa_bits;
        // Source exponent field of the target's smallest normal value.
        c.emin_field = static_cast<Bits>(p.min_normal_exponent + static_cast<int32_t>(T::bias));
        c.fraction_shift = T::fraction_bits - p.mantissa_bits;
        c.max_magnitude = p.max_magnitude;
        c.sign_bit = p.sign_bit;
        c.nan_positive = p.nan_positive;
        c.nan_negative = p.nan_negative;
        c.inf_positive = p.inf_positive;
        c.inf_negative = p.inf_negative;
        c.overflow_positive = p.overflow_positive;
        c.overflow_negative = p.overflow_negative;
        c.max_positive = p.max_positive;
        c.max_negative = p.max_negative;
        c.nan_flags = p.nan_flags;
        c.inf_flags = p.inf_flags;
        c.overflow_flags = p.overflow_flags;
        c.zero_drops_sign = mask_if<Bits>(p.zero_drops_sign);
        c.is_unsigned = mask_if<Bits>(!p.is_signed);
        c.no_zero = mask_if<Bits>(!p.has_zero);
        c.no_subnormals = mask_if<Bits>(!p.has_subnormals);
        c.implicit_unit = c.no_subnormals & (Bits{1} << p.mantissa_bits);
        c.invalid_code = p.invalid_code;
        return c;
    }
};

// One value of an IEEE source into a sign-magnitude format, any rounding.
// The magnitude is the source significand shifted right by `shift` (more
// for results below the target's normal range), plus a rounding increment.
template <class Float, Rounding Mode>
MINIFLOAT_KERNEL_INLINE typename IeeeTraits<Float>::Bits encode_one(
        const LaneConstants<typename IeeeTraits<Float>::Bits>& k, typename IeeeTraits<Float>::Bits u,
        uint64_t random, typename IeeeTraits<Float>::Bits& flags) {
    using T = IeeeTraits<Float>;
    using Bits = typename T::Bits;
    const Bits negative = mask_if<Bits>((u >> T::sign_shift) != 0);
    const Bits a = u & T::abs_mask;
    const Bits exponent = a >> T::fraction_bits;
    const Bits source_subnormal = mask_if<Bits>(exponent == 0);
    const Bits exponent_eff = select<Bits>(source_subnormal, Bits{1}, exponent);
    const Bits significand = (a & ((Bits{1} << T::fraction_bits) - 1)) |
                             (~source_subnormal & (Bits{1} << T::fraction_bits));
    const Bits below_normal = mask_if<Bits>(k.emin_field > exponent_eff);
    const Bits extra = below_normal & (k.emin_field - exponent_eff);
    const Bits true_shift = k.fraction_shift + extra;
    constexpr Bits kMaxShift = sizeof(Bits) * 8 - 1;
    const Bits shift = select<Bits>(mask_if<Bits>(true_shift > kMaxShift), kMaxShift, true_shift);
    const Bits quotient = significand >> shift;
    // The dropped bits as a fraction of one unit, left-aligned in the lane
    // (constants shifted by a per-lane amount do not vectorize for 64-bit
    // lanes with GCC 12, so the remainder is derived from the quotient).
    constexpr Bits kLaneBits = sizeof(Bits) * 8;
    constexpr Bits kHalf = Bits{1} << (kLaneBits - 1);
    const Bits remainder = significand - (quotient << shift);
    const Bits fraction = remainder << (kLaneBits - shift);

    Bits increment;
    Bits rounds_down_magnitude;  // directed rounding toward zero for this sign
    if constexpr (Mode == Rounding::nearest_even) {
        increment = (mask_if<Bits>(fraction > kHalf) |
                     (mask_if<Bits>(fraction == kHalf) & (Bits{0} - (quotient & 1)))) & 1;
        rounds_down_magnitude = 0;
    } else if constexpr (Mode == Rounding::nearest_away) {
        increment = mask_if<Bits>(fraction >= kHalf) & 1;
        rounds_down_magnitude = 0;
    } else if constexpr (Mode == Rounding::toward_zero) {
        increment = 0;
        rounds_down_magnitude = ~Bits{0};
    } else if constexpr (Mode == Rounding::up || Mode == Rounding::down) {
        const Bits away = Mode == Rounding::up ? ~negative : negative;
        increment = away & mask_if<Bits>(remainder != 0) & 1;
        rounds_down_magnitude = ~away;
    } else {
        // P(round up) = exact fraction, compared on 64 bits: the draw is
        // below floor(fraction * 2^64).
        const uint64_t s = static_cast<uint64_t>(true_shift);
        const uint64_t sig64 = static_cast<uint64_t>(significand);
        uint64_t threshold;
        if (s <= kMaxShift) {
            threshold = static_cast<uint64_t>(fraction) << (64 - kLaneBits);
        } else if (s < 64) {
            threshold = sig64 << (64 - s);  // the whole significand was dropped
        } else {
            threshold = s - 64 > 63 ? 0 : sig64 >> (s - 64);
        }
        increment = static_cast<Bits>(random < threshold);
        rounds_down_magnitude = 0;
    }

    const Bits steps = ~below_normal & (exponent_eff - k.emin_field);
    Bits magnitude = (steps << k.mantissa_bits) + quotient + increment;
    // Without subnormals the zero field is a normal binade: the implicit bit
    // is not part of the code, and values below it take the smallest code.
    magnitude = select<Bits>(k.no_subnormals & below_normal, Bits{0}, magnitude - k.implicit_unit);
    const Bits is_nan = mask_if<Bits>(a > T::inf_bits);
    // Unsigned formats: a negative value that does not round to zero is
    // invalid; without zero, zero and every negative value are.
    const Bits invalid = ~is_nan & ((negative & k.is_unsigned & (mask_if<Bits>(magnitude != 0) | k.no_zero)) |
                                    (k.no_zero & mask_if<Bits>(a == 0)));
    const Bits is_inf = mask_if<Bits>(a == T::inf_bits);
    const Bits overflow = ~is_nan & ~is_inf & ~invalid & mask_if<Bits>(magnitude > k.max_magnitude);

    Bits code = magnitude | (negative & k.sign_bit);
    code = select<Bits>(mask_if<Bits>(magnitude == 0) & k.zero_drops_sign, Bits{0}, code);
    const Bits overflow_code = select<Bits>(
        rounds_down_magnitude, select<Bits>(negative, k.max_negative, k.max_positive),
        select<Bits>(negative, k.overflow_negative, k.overflow_positive));
    code = select<Bits>(overflow, overflow_code, code);
    code = select<Bits>(invalid, k.invalid_code, code);
    code = select<Bits>(is_inf, select<Bits>(negative, k.inf_negative, k.inf_positive), code);
    code = select<Bits>(is_nan, select<Bits>(negative, k.nan_negative, k.nan_positive), code);
    flags |= (overflow & k.overflow_flags) | (is_inf & k.inf_flags) | (is_nan & k.nan_flags) |
             (invalid & Bits{kFlagInvalid});
    return code;
}

// float8_e8m0fnu: the source exponent, moved to bias 127 and bumped by the
// rounding of the fraction (ties go to the larger power of two); zero and
// negative inputs are NaN, values below 2^-127 become 2^-127. Mask style
// like encode_one, so it vectorizes.
template <class Float, Rounding Mode>
MINIFLOAT_KERNEL_INLINE uint32_t encode_one_e8m0(const LaneConstants<typename IeeeTraits<Float>::Bits>& k,
                                                 typename IeeeTraits<Float>::Bits u, uint64_t random,
                                                 typename IeeeTraits<Float>::Bits& flags) {
    using T = IeeeTraits<Float>;
    using Bits = typename T::Bits;
    constexpr Bits kHalf = Bits{1} << (T::fraction_bits - 1);
    const Bits negative = mask_if<Bits>((u >> T::sign_shift) != 0);
    const Bits a = u & T::abs_mask;
    const float_bits::E8m0Binade<Float> b = float_bits::e8m0_binade<Float>(a);
    Bits bump;
    if constexpr (Mode == Rounding::nearest_even || Mode == Rounding::nearest_away) {
        bump = mask_if<Bits>(b.fraction >= kHalf) & 1;
    } else if constexpr (Mode == Rounding::up) {
        bump = mask_if<Bits>(b.fraction != 0) & 1;
    } else if constexpr (Mode == Rounding::toward_zero || Mode == Rounding::down) {
        bump = 0;
    } else {
        const uint64_t threshold = static_cast<uint64_t>(b.fraction) << (64 - T::fraction_bits);
        bump = static_cast<Bits>(random < threshold);
    }
    constexpr bool toward_zero = Mode == Rounding::toward_zero || Mode == Rounding::down;
    return float_bits::e8m0_code<Float>(b, a, negative, bump, toward_zero ? k.max_positive : k.overflow_positive,
                                        k.inf_positive, k.nan_positive, k.overflow_flags, k.inf_flags, flags);
}

template <class Float, Rounding Mode, class Out>
MINIFLOAT_KERNEL_INLINE uint32_t encode_loop(const EncodePlan& plan, const Float* __restrict in,
                            const uint64_t* __restrict random, Out* __restrict out, size_t n) {
    using Bits = typename IeeeTraits<Float>::Bits;
    // Copied to locals: `out` may alias anything (char-sized), and reloads
    // through `plan` every element would stop vectorization.
    const auto k = LaneConstants<Bits>::template make<Float>(plan);
    const Bits* bits = reinterpret_cast<const Bits*>(in);
    Bits lane_flags = 0;  // lane width: keeps the OR vectorizable
    if (plan.exponent_only) {
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = Mode == Rounding::stochastic ? random[i] : 0;
            out[i] = static_cast<Out>(encode_one_e8m0<Float, Mode>(k, bits[i], r, lane_flags));
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = Mode == Rounding::stochastic ? random[i] : 0;
            out[i] = static_cast<Out>(encode_one<Float, Mode>(k, bits[i], r, lane_flags));
        }
    }
    return static_cast<uint32_t>(lane_flags);
}

// The common case of round-to-nearest-even, for blocks without inf or NaN:
// the target's normal range is a rebias and a rounded shift; its subnormal
// range comes from adding a value whose ulp is the target's subnormal step
// (the FPU rounds to nearest even); zeros and tiny values fall out of the
// same addition; magnitudes from `overflow_from` on take the overflow code.
// `overflow` holds the plan's special thresholds in T's bits.
template <class Float, class T = IeeeTraits<Float>>
FastConstants<typename T::Bits, Float> make_fast_constants(const EncodePlan& p,
                                                          const OverflowThresholds<typename T::Bits>& overflow) {
    using Bits = typename T::Bits;
    FastConstants<Bits, Float> c;
    c.source_fraction_bits = T::fraction_bits;
    const int32_t source_bias = static_cast<int32_t>(T::bias);
    c.shift = T::fraction_bits - p.mantissa_bits;
    c.half_minus_one = (Bits{1} << (c.shift - 1)) - 1;
    c.rebias = static_cast<Bits>(source_bias - p.bias) << p.mantissa_bits;
    // A format whose normals start below the source's (float32 sources of
    // formats with 8 exponent bits and a bias above 127). Starting at 2^-127,
    // the first binade shares the subnormal step: the magic constant's
    // addition places it, from the source's normals down. Further down: the
    // smallest normal as a subnormal bit pattern, and the AVX-512 encoder
    // scales the normal values below the source's normals up by 2^64 first
    // (deep_normals, codec_avx512_vectors.h; three more operations per 16
    // values, float32 -> binary8p1ue 0.76 -> 0.95 ms when it served 2^-127 too).
    const int32_t normal_field = p.min_normal_exponent + source_bias;
    c.deep_normals = normal_field < 0;
    c.normal_from = c.deep_normals ? Bits{1} << (static_cast<int32_t>(T::fraction_bits) - 1 + normal_field)
                                   : static_cast<Bits>(normal_field > 1 ? normal_field : 1) << T::fraction_bits;
    c.magic_bits = static_cast<Bits>(p.min_normal_exponent - static_cast<int32_t>(p.mantissa_bits) +
                                     static_cast<int32_t>(T::fraction_bits) + source_bias)
                   << T::fraction_bits;
    c.magic = bit_cast<Float>(c.magic_bits);  // for the upper-half constants a float of no use
    c.overflow_from = overflow.nearest_even;
    c.nearest_away_overflow_from = overflow.nearest_away;
    c.toward_zero_overflow_from = overflow.toward_zero;
    c.away_overflow_from = overflow.away;
    c.inf_bits = T::inf_bits;
    c.sign_bit = p.sign_bit;
    c.sign_shift = T::sign_shift - static_cast<Bits>(lowest_set_bit(p.sign_bit ? p.sign_bit : 1));
    c.zero_drops_sign = mask_if<Bits>(p.zero_drops_sign);
    c.overflow_code = p.overflow_positive;
    // The overflow codes differ by the sign bit (inf, fn NaN, FP6/FP4 max) or
    // not at all (fnuz NaN).
    c.overflow_sign = p.overflow_negative != p.overflow_positive ? p.sign_bit : 0;
    c.overflow_flags = p.overflow_flags;
    c.inf_positive = p.inf_positive;
    c.inf_negative = p.inf_negative;
    c.nan_positive = p.nan_positive;
    c.nan_negative = p.nan_negative;
    c.inf_flags = p.inf_flags;
    c.nan_flags = p.nan_flags;
    c.overflow_negative = p.overflow_negative;
    c.max_magnitude = p.max_magnitude;
    c.max_positive = p.max_positive;
    c.max_negative = p.max_negative;
    c.invalid_code = p.invalid_code;
    c.without_zero = !p.has_zero;
    return c;
}

// The plan's constants for a source type.
template <class Float>
MINIFLOAT_KERNEL_INLINE const FastConstants<typename IeeeTraits<Float>::Bits, Float>& fast_constants(
        const EncodePlan& plan) {
    if constexpr (sizeof(Float) == 4) {
        return plan.fast32;
    } else {
        return plan.fast64;
    }
}

// Returns false when the block holds an inf or NaN: the caller then redoes
// it with the general kernel.
template <class Float, class Out>
MINIFLOAT_KERNEL_INLINE bool encode_block_fast(const FastConstants<typename IeeeTraits<Float>::Bits, Float>& k,
                                               const Float* __restrict in, Out* __restrict out, size_t n,
                                               uint32_t& flags) {
    using T = IeeeTraits<Float>;
    using Bits = typename T::Bits;
    const Bits* bits = reinterpret_cast<const Bits*>(in);
    Bits outside = 0, overflowed = 0;
    for (size_t i = 0; i < n; i++) {
        const Bits u = bits[i];
        const Bits a = u & T::abs_mask;
        const Bits is_normal = mask_if<Bits>(a >= k.normal_from);
        const Bits rounded = a + k.half_minus_one + ((a >> k.shift) & 1);
        const Bits normal = (rounded >> k.shift) - k.rebias;
        const Float tiny = bit_cast<Float>(a & ~is_normal);
        const Bits subnormal = bit_cast<Bits>(static_cast<Float>(tiny + k.magic)) - k.magic_bits;
        const Bits magnitude = select<Bits>(is_normal, normal, subnormal);
        const Bits sign = (u >> k.sign_shift) & k.sign_bit;
        Bits code = magnitude | sign;
        code = select<Bits>(mask_if<Bits>(magnitude == 0) & k.zero_drops_sign, Bits{0}, code);
        const Bits overflow = mask_if<Bits>(a >= k.overflow_from);
        code = select<Bits>(overflow, k.overflow_code | (sign & k.overflow_sign), code);
        out[i] = static_cast<Out>(code);
        overflowed |= overflow;
        outside |= mask_if<Bits>(a >= k.inf_bits);
    }
    if (outside != 0) return false;  // the general kernel redoes the block and its flags
    if (overflowed != 0) flags |= k.overflow_flags;
    return true;
}

// The hand-written block encoders into 8-bit codes, best first (see
// codec_avx512.h and codec_avx2.h; float32, float64 or bfloat16 sources);
// false: the caller runs the portable kernel.
template <class Source>
MINIFLOAT_KERNEL_INLINE bool encode_u8_block_by_hand(const EncodePlan& plan, Rounding mode, const Source* in,
                                                     uint8_t* out, size_t n, uint32_t& flags) {
    switch (plan.kind) {
        case KernelKind::sign_magnitude:
        case KernelKind::e8m0: {
            const FastConstants<uint32_t, float>* high = plan.fast64_high_usable ? &plan.fast64_high : nullptr;
            return encode_u8_block_avx512(plan.fast32, high, plan.exponent_only, mode, in, out, n, flags) ||
                   encode_u8_block_avx2(plan, mode, in, out, n, flags);
        }
        case KernelKind::general: {
            if (!(std::is_same_v<Source, double> ? plan.avx512_layouts_float64 : plan.avx512_layouts)) return false;
            const FastConstants<uint32_t, float>* high = plan.fast64_high_usable ? &plan.fast64_high : nullptr;
            return encode_u8_block_avx512(plan.fast32, high, false, mode, in, out, n, flags) ||
                   encode_u8_block_avx2(plan, mode, in, out, n, flags);
        }
    }
    return false;
}

// Runs the hand-written encoders over all n values at once, or, when they
// decline (float8_e8m0fnu values outside their range: they stop at the
// first such step), over chunks of kHandChunk values. A chunk they decline
// goes block by block, and a block they decline to fallback(start, count),
// which returns its flags.
template <class Float, class Fallback>
MINIFLOAT_KERNEL_INLINE uint32_t encode_u8_chunked(const EncodePlan& plan, Rounding mode, const Float* in,
                                                   uint8_t* out, size_t n, Fallback&& fallback) {
    constexpr size_t kHandChunk = 16384, kBlock = 256;
    uint32_t flags = 0;
    if (n > kHandChunk) {  // first in one call: its loop streams memory (memory_streams.h)
        if (encode_u8_block_by_hand(plan, mode, in, out, n, flags)) return flags;
        flags = 0;
    }
    for (size_t chunk = 0; chunk < n; chunk += kHandChunk) {
        const size_t chunk_end = n - chunk < kHandChunk ? n : chunk + kHandChunk;
        uint32_t hand_flags = 0;
        if (encode_u8_block_by_hand(plan, mode, in + chunk, out + chunk, chunk_end - chunk, hand_flags)) {
            flags |= hand_flags;
            continue;
        }
        for (size_t start = chunk; start < chunk_end; start += kBlock) {
            const size_t count = chunk_end - start < kBlock ? chunk_end - start : kBlock;
            hand_flags = 0;
            if (encode_u8_block_by_hand(plan, mode, in + start, out + start, count, hand_flags)) {
                flags |= hand_flags;
            } else {
                flags |= fallback(start, count);
            }
        }
    }
    return flags;
}

template <class Float, class Out>
MINIFLOAT_KERNEL_INLINE uint32_t encode_nearest_even(const EncodePlan& plan, const Float* in, Out* out,
                                                     size_t n) {
    constexpr size_t kBlock = 256;
    const auto& k = fast_constants<Float>(plan);
    // the fast kernel, then the general one for blocks with inf or NaN
    auto portable = [&](size_t start, size_t count) MINIFLOAT_LAMBDA_INLINE {
        uint32_t block_flags = 0;
        if (plan.hand_kernels && encode_block_fast(k, in + start, out + start, count, block_flags)) {
            return block_flags;
        }
        return encode_loop<Float, Rounding::nearest_even>(plan, in + start, nullptr, out + start, count);
    };
    if constexpr (sizeof(Out) == 1) {
        return encode_u8_chunked(plan, Rounding::nearest_even, in,
                                 out, n, portable);
    }
    uint32_t flags = 0;
    if constexpr (sizeof(Float) == 4) {  // bfloat16 and the other 16-bit formats
        if (plan.hand_kernels &&
            encode_f32_u16_avx2(k, reinterpret_cast<const float*>(in), reinterpret_cast<uint16_t*>(out), n, flags)) {
            return flags;
        }
    }
    for (size_t start = 0; start < n; start += kBlock) flags |= portable(start, n - start < kBlock ? n - start : kBlock);
    return flags;
}

template <class Float, Rounding Mode>
MINIFLOAT_KERNEL_INLINE uint32_t encode_any(const EncodePlan& plan, const Float* in, const uint64_t* random, void* out,
                    size_t n) {
    if (plan.storage_bytes == 1) {
        uint8_t* codes = static_cast<uint8_t*>(out);
        if constexpr (Mode == Rounding::stochastic || sizeof(Float) != 4) {
            return encode_loop<Float, Mode>(plan, in, random, codes, n);
        } else {
            return encode_u8_chunked(plan, Mode, in, codes, n,
                                     [&](size_t start, size_t count) MINIFLOAT_LAMBDA_INLINE {
                                         return encode_loop<Float, Mode>(plan, in + start, nullptr, codes + start,
                                                                         count);
                                     });
        }
    }
    return encode_loop<Float, Mode>(plan, in, random, static_cast<uint16_t*>(out), n);
}

template <class Float>
MINIFLOAT_KERNEL_INLINE uint32_t encode_with_mode(const EncodePlan& plan, Rounding mode, const Float* in,
                          const uint64_t* random, void* out, size_t n) {
    switch (mode) {
        case Rounding::nearest_even: return encode_any<Float, Rounding::nearest_even>(plan, in, random, out, n);
        case Rounding::nearest_away: return encode_any<Float, Rounding::nearest_away>(plan, in, random, out, n);
        case Rounding::toward_zero: return encode_any<Float, Rounding::toward_zero>(plan, in, random, out, n);
        case Rounding::up: return encode_any<Float, Rounding::up>(plan, in, random, out, n);
        case Rounding::down: return encode_any<Float, Rounding::down>(plan, in, random, out, n);
        case Rounding::stochastic: return encode_any<Float, Rounding::stochastic>(plan, in, random, out, n);
    }
    return 0;
}

// Arithmetic decode of one code to float32 bits (every value of every
// format here is a normal or zero float32, except float8_e8m0fnu's 2^-127).
template <class Code>
MINIFLOAT_KERNEL_INLINE uint32_t decode_one(const DecodePlan& d, Code raw) {
    const uint32_t code = static_cast<uint32_t>(raw) & d.code_mask;
    const uint32_t sign = (code & d.sign_bit) << d.sign_shift;
    const uint32_t magnitude = code & d.magnitude_mask;
    const uint32_t normal = (magnitude << (23 - d.mantissa_bits)) + d.exponent_rebias;
    const float tiny = static_cast<float>(static_cast<int32_t>(magnitude)) * d.subnormal_scale;
    const uint32_t subnormal = bit_cast<uint32_t>(tiny);
    uint32_t bits = select<uint32_t>(mask_if<uint32_t>((magnitude >> d.mantissa_bits) == 0), subnormal, normal);
    bits = select<uint32_t>(mask_if<uint32_t>(magnitude == d.inf_magnitude), 0x7F800000u, bits);
    const uint32_t nan = mask_if<uint32_t>(magnitude >= d.nan_magnitude_from) |
                         mask_if<uint32_t>(code == d.nan_code);
    bits = select<uint32_t>(nan, 0x7FC00000u, bits);
    return bits | sign;
}

MINIFLOAT_KERNEL_INLINE uint32_t decode_one_e8m0(uint32_t code) {
    // 2^(code - 127); code 0 is 2^-127, a float32 subnormal; 0xFF is NaN.
    const uint32_t bits = select<uint32_t>(mask_if<uint32_t>(code == 0), 0x00400000u, code << 23);
    return select<uint32_t>(mask_if<uint32_t>(code == 0xFF), 0x7FC00000u, bits);
}

template <class Code>
MINIFLOAT_KERNEL_INLINE void decode_loop(const DecodePlan& plan, const Code* __restrict in, uint32_t* __restrict out, size_t n) {
    switch (plan.kind) {
        case DecodeKind::float32_upper_half:
            for (size_t i = 0; i < n; i++) out[i] = static_cast<uint32_t>(in[i]) << 16;
            return;
        case DecodeKind::e8m0:
            for (size_t i = 0; i < n; i++) out[i] = decode_one_e8m0(static_cast<uint32_t>(in[i]) & 0xFFu);
            return;
        case DecodeKind::sign_magnitude: {
            const DecodePlan d = plan;
            for (size_t i = 0; i < n; i++) out[i] = decode_one<Code>(d, in[i]);
            return;
        }
        case DecodeKind::table: {
            const uint32_t* __restrict table = plan.table;
            const uint32_t mask = plan.code_mask;
            for (size_t i = 0; i < n; i++) out[i] = table[static_cast<uint32_t>(in[i]) & mask];
            return;
        }
    }
}

// Smallest magnitude (source bits) whose rounding in `mode` (of a positive
// value: up is away from zero) is not an ordinary finite code: rounding is
// monotonic, so bisect with the codec.
template <class Float>
typename IeeeTraits<Float>::Bits special_threshold(const Format& f, Rounding mode) {
    using Bits = typename IeeeTraits<Float>::Bits;
    const SpecialCodes s = make_special_codes(f, false);  // overflow is flagged here
    Bits low = 0, high = IeeeTraits<Float>::inf_bits;  // high is always special
    while (high - low > 1) {
        const Bits mid = low + (high - low) / 2;
        const double value = static_cast<double>(bit_cast<Float>(mid));
        const Encoded e = encode_from_double(f, s, value, 0, mode);
        const bool special = e.flags != 0 || (e.code & f.magnitude_mask) > f.max_magnitude;
        (special ? high : low) = mid;
    }
    return high;
}

// The thresholds of every deterministic mode (FastConstants): from the
// exact codec, so that they hold whatever the largest value's place (a
// subnormal one too).
template <class Float>
OverflowThresholds<typename IeeeTraits<Float>::Bits> special_thresholds(const Format& f) {
    OverflowThresholds<typename IeeeTraits<Float>::Bits> t;
    t.nearest_even = special_threshold<Float>(f, Rounding::nearest_even);
    t.nearest_away = special_threshold<Float>(f, Rounding::nearest_away);
    t.toward_zero = special_threshold<Float>(f, Rounding::toward_zero);
    t.away = special_threshold<Float>(f, Rounding::up);
    return t;
}

// In float64 upper halves with the sticky bit, a >= T holds exactly when the
// half is at least T's upper half, plus one when T has lower bits: T's lower
// half must be 0 or 1 (anything nonzero below then counts alike) and its
// upper half even (so the sticky bit cannot reach it from below). Every
// 8-bit format's threshold (a code or a midpoint) is so.
bool upper_half_threshold(uint64_t threshold, uint32_t& upper) {
    const uint64_t low = threshold & 0xFFFFFFFFu;
    const uint32_t high = static_cast<uint32_t>(threshold >> 32);
    upper = high + static_cast<uint32_t>(low);
    return low <= 1 && (high & 1u) == 0;
}

}  // namespace

EncodePlan make_encode_plan(const Format& f, const SpecialCodes& s) {
    EncodePlan p;
    p.kind = f.kernel_kind;
    switch (f.kernel_kind) {
        case KernelKind::sign_magnitude: p.hand_kernels = true; break;
        case KernelKind::e8m0: p.exponent_only = true; break;
        case KernelKind::general:
            // float32 subnormals would land in the format's normal range
            p.widen_float32 = f.min_normal_exponent < -126;
            if (f.storage_bytes == 1) p.byte_table = new ByteTableSource(f, s);  // lives with the format
            // (normals below float32's: see make_fast_constants)
            p.avx512_layouts = f.storage_bytes == 1;
            // from float64 by way of float32 rounded to odd: exact while the
            // format's step is at least 2^-147 (see round_to_odd_f32_avx512)
            p.avx512_layouts_float64 = p.avx512_layouts && f.min_exponent >= -147;
            break;
    }
    // (unsigned formats: the caller redoes negative values exactly)
    p.stochastic_kernels = f.kernel_kind != KernelKind::general ||
                           (f.has_subnormals && (f.is_signed ? f.mantissa_bits == 0 : true) &&
                            f.nan != NanCodes::listed && (f.max_magnitude >> f.mantissa_bits) >= 1);
    // float32 subnormals would land in the format's normal range: float32
    // sources go through the float64 kernels (float8_e8m0fnu's own kernels
    // place them)
    p.stochastic_widen_float32 =
        p.stochastic_kernels && f.kernel_kind != KernelKind::e8m0 && f.min_normal_exponent < -126;
    p.stochastic_powers_of_two = p.stochastic_kernels && f.kernel_kind == KernelKind::general && !f.is_signed &&
                                 f.mantissa_bits == 0 && f.storage_bytes == 1;
    p.storage_bytes = f.storage_bytes;
    p.mantissa_bits = static_cast<uint32_t>(f.mantissa_bits);
    p.min_normal_exponent = f.min_normal_exponent;
    p.bias = f.bias;
    p.max_magnitude = f.max_magnitude;
    p.sign_bit = f.sign_bit;
    p.nan_positive = s.nan_positive;
    p.nan_negative = s.nan_negative;
    p.inf_positive = s.inf_positive;
    p.inf_negative = s.inf_negative;
    p.overflow_positive = s.overflow_positive;
    p.overflow_negative = s.overflow_negative;
    p.max_positive = s.max_positive;
    p.max_negative = s.max_negative;
    p.nan_flags = s.nan_flags;
    p.inf_flags = s.inf_flags;
    p.overflow_flags = s.overflow_flags;
    p.zero_drops_sign = s.zero_drops_sign;
    p.is_signed = f.is_signed;
    p.has_zero = f.has_zero;
    p.has_subnormals = f.has_subnormals;
    p.invalid_code = s.invalid_code;
    if (p.hand_kernels || p.avx512_layouts) {
        const OverflowThresholds<uint32_t> f32 = special_thresholds<float>(f);
        const OverflowThresholds<uint64_t> f64 = special_thresholds<double>(f);
        p.f32_special_from = f32.nearest_even;
        p.f64_special_from = f64.nearest_even;
        p.fast32 = make_fast_constants<float>(p, f32);
        p.fast64 = make_fast_constants<double>(p, f64);
        OverflowThresholds<uint32_t> high;
        bool usable = upper_half_threshold(f64.nearest_even, high.nearest_even);
        usable &= upper_half_threshold(f64.nearest_away, high.nearest_away);
        usable &= upper_half_threshold(f64.toward_zero, high.toward_zero);
        usable &= upper_half_threshold(f64.away, high.away);
        // The upper halves' subnormal range is rounded as float32 values,
        // those below 2^-126 raised to it (upper_half_vectors): 2^-126 must
        // round as anything below it does, to zero, under half the smallest
        // step (unsigned formats with 8 exponent bits have steps of 2^-127).
        p.fast64_high_usable = usable && f.min_exponent - 1 > -126;
        p.fast64_high = make_fast_constants<float, DoubleHighWordTraits>(p, high);
    } else if (p.exponent_only) {
        // the e8m0 kernels read only the special codes and flags of these
        p.fast32 = make_fast_constants<float>(p, {});
        p.fast64 = make_fast_constants<double>(p, {});
    }
    return p;
}

DecodePlan make_decode_plan(const Format& f, const uint32_t* exact_bits) {
    DecodePlan d;
    d.table = exact_bits;
    if (f.is_float32_upper_half) {
        d.kind = DecodeKind::float32_upper_half;
    } else if (f.kernel_kind == KernelKind::e8m0) {
        d.kind = DecodeKind::e8m0;
    } else if (f.has_subnormals && f.min_exponent >= -126) {
        d.kind = DecodeKind::sign_magnitude;  // every value a normal float32 or zero
    } else {
        d.kind = DecodeKind::table;
    }
    d.exponent_only = d.kind == DecodeKind::e8m0;
    d.storage_bytes = f.storage_bytes;
    d.code_mask = f.code_mask;
    d.sign_bit = f.sign_bit;
    d.sign_shift = f.sign_bit ? static_cast<uint32_t>(32 - f.bits) : 0u;
    d.magnitude_mask = f.magnitude_mask;
    d.mantissa_bits = static_cast<uint32_t>(f.mantissa_bits);
    d.exponent_rebias = static_cast<uint32_t>(127 - f.bias) << 23;
    d.subnormal_scale = std::ldexp(1.0f, f.min_normal_exponent - f.mantissa_bits);
    d.subnormal_below = f.has_subnormals ? 1u << f.mantissa_bits : 0u;
    d.deep_values = f.min_exponent < -126;
    if (f.has_inf) d.inf_magnitude = f.inf_magnitude;
    switch (f.nan) {
        case NanCodes::ieee:
        case NanCodes::all_ones: d.nan_magnitude_from = f.nan_magnitude_from; break;
        case NanCodes::negative_zero: d.nan_code = f.sign_bit; break;
        case NanCodes::listed:
            d.nan_magnitude_from = f.nan_magnitude_from;
            if (f.nan_at_negative_zero) d.nan_code = f.sign_bit;
            break;
        case NanCodes::none: break;
    }
    if (f.storage_bytes == 1) {
        // the exact values' upper halves (all 8-bit formats' float32 values
        // have zero lower halves, but for values of 2^-134 and below)
        d.has_byte_tables = true;
        for (uint32_t code = 0; code < 256; code++) {
            const uint32_t bits = exact_bits[code & f.code_mask];
            d.has_byte_tables &= (bits & 0xFFFFu) == 0;
            d.byte0[code] = static_cast<uint8_t>(bits);
            d.byte1[code] = static_cast<uint8_t>(bits >> 8);
            d.byte2[code] = static_cast<uint8_t>(bits >> 16);
            d.byte3[code] = static_cast<uint8_t>(bits >> 24);
        }
        // (values below float32's normals: four tables, for the decoding casts)
        d.has_low_byte_tables = !d.has_byte_tables;
        for (uint32_t m = 0; m <= f.magnitude_mask; m++) {
            if ((exact_bits[m] & 0x7FFFFFFFu) < 0x00800000u) d.deep_below = m + 1;
        }
        if (d.kind == DecodeKind::table) d.avx2_arithmetic = decode_arithmetic_avx2_exact(d);
    }
    return d;
}


// Whether float32 sources go through float64 (see EncodePlan::widen_float32);
// the AVX-512 encoder places float32 subnormals in a first binade at 2^-127
// (see make_fast_constants), in every deterministic mode, and the AVX2 one
// too where that binade is the format's first. Asked per call: the kernel
// sets can be switched off at run time.
static bool widens_float32(const EncodePlan& plan, Rounding mode = Rounding::nearest_even) {
    if (!plan.widen_float32 || mode == Rounding::stochastic) return plan.widen_float32;
    const bool by_hand = plan.avx512_layouts && avx512_vbmi_usable();
    return !by_hand && !(avx2_usable() && encode_u8_avx2_serves(plan, false));
}

MINIFLOAT_SIMD_CLONES
static uint32_t encode_f32_without_table(const EncodePlan& plan, const float* in, void* out, size_t n) {
    if (widens_float32(plan)) {
        return encode_widened(in, n, [&](const double* block, size_t start, size_t count) {
            return encode_f64(plan, block, static_cast<char*>(out) + start * plan.storage_bytes, count);
        });
    }
    DefaultFpuModeScope default_modes;  // the subnormal range is rounded by the FPU
    if (plan.storage_bytes == 1) return encode_nearest_even(plan, in, static_cast<uint8_t*>(out), n);
    return encode_nearest_even(plan, in, static_cast<uint16_t*>(out), n);
}

uint32_t encode_f32(const EncodePlan& plan, const float* in, void* out, size_t n) {
    // the AVX-512 encoder first: a third of the table's time (float32 ->
    // binary8p3ue on an AMD Zen 5: 1.6 -> 0.6 ms for 4M values)
    if (plan.avx512_layouts && avx512_vbmi_usable()) return encode_f32_without_table(plan, in, out, n);
    // then the AVX2 encoder, for the same layouts but normals below 2^-127
    // (float32 -> binary8p4ue, 4M values, Zen 5 with AVX-512 off: 1.04 ms,
    // the table 1.78)
    if (avx2_usable() && encode_u8_avx2_serves(plan, false)) return encode_f32_without_table(plan, in, out, n);
    const ByteTableEncoder* table = plan.byte_table != nullptr ? &plan.byte_table->table() : nullptr;
    if (table == nullptr || !table->usable) return encode_f32_without_table(plan, in, out, n);
    // chunks, then blocks with a value the table leaves to the exact
    // encoder (inf, NaN, a negative value of an unsigned format, zero
    // without zero) are redone by it
    constexpr size_t kChunk = 16384, kBlock = 256;
    uint8_t* codes = static_cast<uint8_t*>(out);
    uint32_t flags = 0;
    for (size_t chunk = 0; chunk < n; chunk += kChunk) {
        const size_t chunk_count = n - chunk < kChunk ? n - chunk : kChunk;
        uint32_t chunk_flags = 0;
        if (encode_f32_block_by_table(*table, in + chunk, codes + chunk, chunk_count, chunk_flags)) {
            flags |= chunk_flags;
            continue;
        }
        for (size_t start = chunk; start < chunk + chunk_count; start += kBlock) {
            const size_t count = chunk + chunk_count - start < kBlock ? chunk + chunk_count - start : kBlock;
            uint32_t block_flags = 0;
            if (encode_f32_block_by_table(*table, in + start, codes + start, count, block_flags)) {
                flags |= block_flags;
            } else {
                flags |= encode_f32_without_table(plan, in + start, codes + start, count);
            }
        }
    }
    return flags;
}

bool encode_f32_packed(const EncodePlan& plan, const float* in, size_t n, int bits, uint8_t* packed,
                       uint32_t& flags) {
    // where encode_f32 takes the AVX-512 encoder for every value (as
    // encode_u8_block_by_hand chooses it)
    if (plan.storage_bytes != 1 || !avx512_vbmi_usable()) return false;
    switch (plan.kind) {
        case KernelKind::sign_magnitude: break;
        case KernelKind::general:
            if (!plan.avx512_layouts || widens_float32(plan)) return false;
            break;
        case KernelKind::e8m0: return false;
    }
    DefaultFpuModeScope default_modes;  // (as encode_f32_without_table)
    return encode_f32_packed_avx512(plan.fast32, bits, in, packed, n, flags);
}

uint32_t encode_bf16_bits(const EncodePlan& plan, const uint16_t* in, void* out, size_t n) {
    DefaultFpuModeScope default_modes;
    constexpr size_t kBlock = 256;
    const size_t item = static_cast<size_t>(plan.storage_bytes);
    // widened to float32 a block at a time for the float32 encoder
    auto widen_and_encode = [&](size_t start, size_t count) {
        alignas(64) float widened[kBlock];
        uint32_t* bits = reinterpret_cast<uint32_t*>(widened);
        for (size_t i = 0; i < count; i++) bits[i] = static_cast<uint32_t>(in[start + i]) << 16;
        return encode_f32(plan, widened, static_cast<char*>(out) + start * item, count);
    };
    if (item == 1) {
        return encode_u8_chunked(plan, Rounding::nearest_even, in,
                                 static_cast<uint8_t*>(out), n, widen_and_encode);
    }
    uint32_t flags = 0;
    for (size_t start = 0; start < n; start += kBlock) {
        flags |= widen_and_encode(start, n - start < kBlock ? n - start : kBlock);
    }
    return flags;
}

// Whether any finite |x| exceeds FLT_MAX; integer compares, so NaN inputs
// raise no hardware flag.
static bool any_finite_beyond_f32(const double* in, size_t n) {
    constexpr uint64_t kFltMaxBits = 0x47EFFFFFE0000000ull;  // FLT_MAX as binary64
    constexpr uint64_t kInfBits = 0x7FF0000000000000ull;
    const uint64_t* bits = reinterpret_cast<const uint64_t*>(in);
    bool beyond = false;
    for (size_t i = 0; i < n; i++) {
        const uint64_t a = bits[i] & 0x7FFFFFFFFFFFFFFFull;
        beyond |= (a > kFltMaxBits) & (a < kInfBits);
    }
    return beyond;
}

// float64 sources: with AVX-512, round to odd into float32 first (one
// rounding is preserved, see codec_avx512.h) and reuse the float32 kernels.
static uint32_t encode_f64_via_f32(const EncodePlan& plan, Rounding mode, const double* in, void* out,
                            size_t n, bool* handled) {
    constexpr size_t kChunk = 1024;
    alignas(64) float narrowed[kChunk];
    uint32_t flags = 0;
    const size_t item = static_cast<size_t>(plan.storage_bytes);
    for (size_t start = 0; start < n; start += kChunk) {
        const size_t count = n - start < kChunk ? n - start : kChunk;
        if (!round_to_odd_f32_avx512(in + start, narrowed, count)) {
            *handled = false;
            return 0;
        }
        void* block_out = static_cast<char*>(out) + start * item;
        flags |= mode == Rounding::nearest_even
                     ? encode_f32(plan, narrowed, block_out, count)
                     : encode_f32_rounding(plan, mode, narrowed, nullptr, block_out, count);
        if (mode != Rounding::nearest_even && mode != Rounding::nearest_away &&
            any_finite_beyond_f32(in + start, count)) {
            // Narrowing clamps these to FLT_MAX, whose rounding toward zero
            // lands on max without overflowing; the value itself (>= 2^128,
            // beyond every format's max) overflows. The codes already agree.
            flags |= plan.overflow_flags;
        }
    }
    *handled = true;
    return flags;
}

MINIFLOAT_SIMD_CLONES
static uint32_t encode_f64_direct(const EncodePlan& plan, const double* in, void* out, size_t n) {
    if (plan.storage_bytes == 1) return encode_nearest_even(plan, in, static_cast<uint8_t*>(out), n);
    return encode_nearest_even(plan, in, static_cast<uint16_t*>(out), n);
}

uint32_t encode_f64(const EncodePlan& plan, const double* in, void* out, size_t n) {
    DefaultFpuModeScope default_modes;
    // 8-bit formats: the AVX-512 kernel rounds to odd in registers
    if (plan.storage_bytes == 1 || !plan.hand_kernels) return encode_f64_direct(plan, in, out, n);
    bool handled = false;
    const uint32_t flags = encode_f64_via_f32(plan, Rounding::nearest_even, in, out, n, &handled);
    return handled ? flags : encode_f64_direct(plan, in, out, n);
}

MINIFLOAT_SIMD_CLONES
uint32_t encode_f32_rounding(const EncodePlan& plan, Rounding mode, const float* in,
                             const uint64_t* random, void* out, size_t n) {
    if (widens_float32(plan, mode)) {
        return encode_widened(in, n, [&](const double* block, size_t start, size_t count) {
            return encode_f64_rounding(plan, mode, block, random == nullptr ? nullptr : random + start,
                                       static_cast<char*>(out) + start * plan.storage_bytes, count);
        });
    }
    DefaultFpuModeScope default_modes;
    return encode_with_mode<float>(plan, mode, in, random, out, n);
}

MINIFLOAT_SIMD_CLONES
static uint32_t encode_f64_rounding_direct(const EncodePlan& plan, Rounding mode, const double* in,
                                    const uint64_t* random, void* out, size_t n) {
    return encode_with_mode<double>(plan, mode, in, random, out, n);
}

uint32_t encode_f64_rounding(const EncodePlan& plan, Rounding mode, const double* in,
                             const uint64_t* random, void* out, size_t n) {
    DefaultFpuModeScope default_modes;
    if (mode == Rounding::stochastic) {  // needs the exact fraction
        return encode_f64_rounding_direct(plan, mode, in, random, out, n);
    }
    if (plan.storage_bytes == 1) {
        // the hand-written kernels round to odd in registers; blocks they
        // decline (no AVX2, float8_e8m0fnu edge cases) take the exact kernel
        uint8_t* codes = static_cast<uint8_t*>(out);
        return encode_u8_chunked(plan, mode, in, codes, n,
                                 [&](size_t start, size_t count) {
                                     return encode_f64_rounding_direct(plan, mode, in + start, nullptr,
                                                                       codes + start, count);
                                 });
    }
    if (!plan.hand_kernels) return encode_f64_rounding_direct(plan, mode, in, random, out, n);
    bool handled = false;
    const uint32_t flags = encode_f64_via_f32(plan, mode, in, out, n, &handled);
    return handled ? flags : encode_f64_rounding_direct(plan, mode, in, random, out, n);
}

MINIFLOAT_SIMD_CLONES
void decode_to_f32(const DecodePlan& plan, const void* in, float* out, size_t n) {
    if (plan.has_byte_tables &&
        decode_bytes_to_f32(plan.byte2, plan.byte3, static_cast<const uint8_t*>(in), out, n)) {
        return;
    }
    if (plan.has_low_byte_tables &&
        decode_four_bytes_to_f32(plan.byte0, plan.byte1, plan.byte2, plan.byte3, static_cast<const uint8_t*>(in),
                                 out, n)) {
        return;
    }
    switch (plan.kind) {
        case DecodeKind::e8m0:
        case DecodeKind::sign_magnitude:
        case DecodeKind::table:
            if (decode_u8_to_f32_avx2(plan, static_cast<const uint8_t*>(in), out, n)) return;
            break;
        case DecodeKind::float32_upper_half: break;
    }
    uint32_t* bits = reinterpret_cast<uint32_t*>(out);
    if (plan.storage_bytes == 1) {
        decode_loop(plan, static_cast<const uint8_t*>(in), bits, n);
        return;
    }
    const uint16_t* codes = static_cast<const uint16_t*>(in);
    for_each_streamed_block(n, sizeof(float), [&](size_t start, size_t count) MINIFLOAT_LAMBDA_INLINE {
        decode_loop(plan, codes + start, bits + start, count);
    });
}

MINIFLOAT_SIMD_CLONES
void decode_to_f64(const DecodePlan& plan, const void* in, double* out, size_t n) {
    DefaultFpuModeScope default_modes;  // widening a float32 subnormal must not flush it (DAZ)
    constexpr size_t kChunk = 1024;
    alignas(64) float buffer[kChunk];
    const size_t item = static_cast<size_t>(plan.storage_bytes);
    for (size_t start = 0; start < n; start += kChunk) {
        const size_t count = n - start < kChunk ? n - start : kChunk;
        decode_to_f32(plan, static_cast<const char*>(in) + start * item, buffer, count);
        // Widening a signaling NaN (bfloat16 has them) would raise the invalid
        // flag; quiet it first in the integer domain, as the widening would.
        uint32_t* bits = reinterpret_cast<uint32_t*>(buffer);
        for (size_t i = 0; i < count; i++) {
            const bool is_nan = (bits[i] & 0x7fffffffu) > 0x7f800000u;
            bits[i] |= is_nan ? 0x00400000u : 0u;
        }
        for (size_t i = 0; i < count; i++) out[start + i] = static_cast<double>(buffer[i]);
    }
}

}  // namespace minifloat
