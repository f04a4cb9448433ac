// Stochastic rounding with the draws made in C++: chunks of the source take
// their 32-bit draws from the counter generator (counter_random.h) into an
// L1 buffer, and a kernel of the source's lane width rounds them. Before,
// one Python random_raw value per element and convert_kernels.cpp's general
// encoder (64-bit draw compares in every lane width, not vectorized) cost
// 30-45 ms for 4M values.
//
// The kernels follow the exact rule of encode_one / encode_one_e8m0 in
// convert_kernels.cpp (the quotient of the significand shifted to the
// target's step, plus an increment, then the overflow and special codes),
// with the increment "draw < floor(f * 2^32)" computed in the source's lane
// width: the threshold is the dropped bits' top 32 bits, or for values far
// below the target's smallest step the significand shifted down.
#include "stochastic_rounding.h"

#include <cmath>
#include <cstring>

#include "counter_random.h"
#include "float_bits.h"
#include "fp_status.h"
#include "memory_streams.h"
#include "stochastic_avx2.h"
#include "stochastic_avx512.h"
#include "widen_float32.h"

namespace minifloat {

namespace {

template <class Float>
using SourceLayout = float_bits::IeeeTraits<Float>;
using float_bits::mask_if;
using float_bits::select;
using float_bits::bit_cast;

// The plan's fields as locals of the source's lane width (the loops would
// not vectorize with loads through the plan).
template <class Float>
struct StochasticConstants {
    using L = SourceLayout<Float>;
    using Bits = typename L::Bits;
    Bits fraction_shift, max_magnitude, sign_bit, sign_shift;
    Bits nan_positive, nan_negative, inf_positive, inf_negative, overflow_positive, overflow_negative;
    Bits nan_flags, inf_flags, overflow_flags, zero_drops_sign;
    Bits normal_from;  // source bits of the target's smallest normal value
    Bits max_bits;     // source bits of the target's largest value
    Bits rebias;       // normal range: code = (bits >> fraction_shift) - rebias
    Float step_scale;  // 1 / the target's smallest step (its subnormal spacing)

    explicit StochasticConstants(const EncodePlan& p)
        : fraction_shift(L::fraction_bits - p.mantissa_bits),
          max_magnitude(p.max_magnitude),
          sign_bit(p.sign_bit),
          sign_shift(sizeof(Bits) * 8 - 1 - static_cast<Bits>(__builtin_ctz(p.sign_bit ? p.sign_bit : 1))),
          nan_positive(p.nan_positive),
          nan_negative(p.nan_negative),
          inf_positive(p.inf_positive),
          inf_negative(p.inf_negative),
          overflow_positive(p.overflow_positive),
          overflow_negative(p.overflow_negative),
          nan_flags(p.nan_flags),
          inf_flags(p.inf_flags),
          overflow_flags(p.overflow_flags),
          zero_drops_sign(mask_if<Bits>(p.zero_drops_sign)) {
        const Bits emin_field = static_cast<Bits>(p.min_normal_exponent + static_cast<int32_t>(L::bias));
        // a target whose normal range starts where the source's does
        // (bfloat16 from float32) has the source's subnormal step: the normal
        // rule holds for every value (and the step scale, 2^133, would
        // overflow)
        const bool shared_subnormals = emin_field == 1;
        normal_from = shared_subnormals ? 0 : emin_field << L::fraction_bits;
        rebias = (emin_field - 1) << p.mantissa_bits;
        // the largest magnitude's code read as a target-normal code, back in source bits
        max_bits = (static_cast<Bits>(p.max_magnitude) + rebias) << fraction_shift;
        step_scale = shared_subnormals
                         ? Float(1)
                         : static_cast<Float>(std::ldexp(1.0, static_cast<int>(p.mantissa_bits) - p.min_normal_exponent));
    }
};

// floor(f * 2^32) >= d + 1, written as the carry of adding ~d to the
// dropped bits: in the target's normal range x = (bits of |x|) carries into
// the code's last place, where code = (bits >> fraction_shift) - rebias (a
// carry out of the mantissa moves to the next binade, as the codes do).
// With F the dropped bits and G = 2^(fraction_shift - 32) (float64) or
// 2^-(32 - fraction_shift) (float32), F + floor(~d * G) >= 2^fraction_shift
// exactly when d < floor(F / G) = floor(f * 2^32).
template <class Float>
MINIFLOAT_KERNEL_INLINE typename SourceLayout<Float>::Bits normal_magnitude(const StochasticConstants<Float>& k,
                                                                            typename SourceLayout<Float>::Bits a,
                                                                            uint32_t draw) {
    using Bits = typename SourceLayout<Float>::Bits;
    const Bits complement = static_cast<Bits>(static_cast<uint32_t>(~draw));
    Bits carry_in;
    if constexpr (sizeof(Bits) == 4) {
        carry_in = complement >> (32 - k.fraction_shift);
    } else {
        carry_in = complement << (k.fraction_shift - 32);
    }
    return ((a + carry_in) >> k.fraction_shift) - k.rebias;
}

// Below the target's normal range the step is fixed: V = |x| / step is
// exact in the source's precision, q = trunc(V) is the magnitude code, and
// floor(frac(V) * 2^32) the threshold (frac(V) and its scaling exact too).
template <class Float>
MINIFLOAT_KERNEL_INLINE typename SourceLayout<Float>::Bits subnormal_magnitude(const StochasticConstants<Float>& k,
                                                                               typename SourceLayout<Float>::Bits a,
                                                                               uint32_t draw) {
    using L = SourceLayout<Float>;
    using Bits = typename L::Bits;
    // lanes at or above the normal range are clamped (their result is not
    // used; no overflow to inf, no invalid conversion)
    const Bits clamped = a < k.normal_from ? a : k.normal_from;
    const Float v = bit_cast<Float>(clamped) * k.step_scale;
    const typename L::Int q = static_cast<typename L::Int>(v);
    const Float fraction = v - static_cast<Float>(q);
    const uint32_t threshold = static_cast<uint32_t>(fraction * static_cast<Float>(4294967296.0));
    return static_cast<Bits>(q) + static_cast<Bits>(draw < threshold);
}

// One value into a sign-magnitude format, every case: the magnitude from
// the normal or the subnormal rule, then overflow and the special codes.
template <class Float>
MINIFLOAT_KERNEL_INLINE typename SourceLayout<Float>::Bits stochastic_code(const StochasticConstants<Float>& k,
                                                                           typename SourceLayout<Float>::Bits u,
                                                                           uint32_t draw,
                                                                           typename SourceLayout<Float>::Bits& flags) {
    using L = SourceLayout<Float>;
    using Bits = typename L::Bits;
    constexpr Bits kLaneBits = sizeof(Bits) * 8;
    constexpr Bits kAbs = ~Bits{0} >> 1;
    constexpr Bits kInf = kAbs & ~((Bits{1} << L::fraction_bits) - 1);
    const Bits negative = mask_if<Bits>((u >> (kLaneBits - 1)) != 0);
    const Bits a = u & kAbs;
    const Bits magnitude = select<Bits>(mask_if<Bits>(a < k.normal_from), subnormal_magnitude(k, a, draw),
                                      normal_magnitude(k, a, draw));
    const Bits is_nan = mask_if<Bits>(a > kInf);
    const Bits is_inf = mask_if<Bits>(a == kInf);
    const Bits overflow = ~is_nan & ~is_inf & mask_if<Bits>(magnitude > k.max_magnitude);
    Bits code = magnitude | (negative & k.sign_bit);
    code = select<Bits>(mask_if<Bits>(magnitude == 0) & k.zero_drops_sign, Bits{0}, code);
    code = select<Bits>(overflow, select<Bits>(negative, k.overflow_negative, k.overflow_positive), code);
    code = select<Bits>(is_inf, select<Bits>(negative, k.inf_negative, k.inf_positive), code);
    code = select<Bits>(is_nan, select<Bits>(negative, k.nan_negative, k.nan_positive), code);
    flags |= (overflow & k.overflow_flags) | (is_inf & k.inf_flags) | (is_nan & k.nan_flags);
    return code;
}

// The common case, for blocks whose every value lies in the target's normal
// range below its largest value (no subnormal step, no overflow, no
// special): the normal rule and the sign. Returns false when a value lies
// outside; the caller then redoes the block with stochastic_code.
template <class Float, class Out>
MINIFLOAT_KERNEL_INLINE bool stochastic_block_normal(const StochasticConstants<Float>& k,
                                                     const typename SourceLayout<Float>::Bits* __restrict bits,
                                                     const uint32_t* __restrict draws, Out* __restrict out,
                                                     size_t n) {
    using Bits = typename SourceLayout<Float>::Bits;
    constexpr Bits kAbs = ~Bits{0} >> 1;
    const Bits span = k.max_bits - k.normal_from + 1;  // the largest value itself never moves
    Bits outside = 0;
    for (size_t i = 0; i < n; i++) {
        const Bits a = bits[i] & kAbs;
        const Bits code = normal_magnitude(k, a, draws[i]) | ((bits[i] >> k.sign_shift) & k.sign_bit);
        out[i] = static_cast<Out>(code);
        outside |= mask_if<Bits>(a - k.normal_from >= span);
    }
    return outside == 0;
}

// One value into float8_e8m0fnu (the rules of encode_one_e8m0): the
// exponent bumped when the draw is below the fraction's top 32 bits.
template <class Float>
MINIFLOAT_KERNEL_INLINE uint32_t stochastic_code_e8m0(const StochasticConstants<Float>& k,
                                                      typename SourceLayout<Float>::Bits u, uint32_t draw,
                                                      typename SourceLayout<Float>::Bits& flags) {
    using L = SourceLayout<Float>;
    using Bits = typename L::Bits;
    const Bits negative = mask_if<Bits>((u >> L::sign_shift) != 0);
    const Bits a = u & L::abs_mask;
    const float_bits::E8m0Binade<Float> b = float_bits::e8m0_binade<Float>(a);
    Bits threshold;
    if constexpr (L::fraction_bits < 32) {
        threshold = b.fraction << (32 - L::fraction_bits);
    } else {
        threshold = b.fraction >> (L::fraction_bits - 32);
    }
    const Bits bump = static_cast<Bits>(static_cast<Bits>(draw) < threshold);
    return float_bits::e8m0_code<Float>(b, a, negative, bump, k.overflow_positive, k.inf_positive, k.nan_positive,
                                        k.overflow_flags, k.inf_flags, flags);
}

template <class Float, class Out>
MINIFLOAT_KERNEL_INLINE uint32_t stochastic_loop(const EncodePlan& plan, const Float* __restrict in,
                                                 const uint32_t* __restrict draws, Out* __restrict out, size_t n) {
    using Bits = typename SourceLayout<Float>::Bits;
    const StochasticConstants<Float> k(plan);
    const Bits* bits = reinterpret_cast<const Bits*>(in);
    Bits lane_flags = 0;
    if (plan.exponent_only) {
        for (size_t i = 0; i < n; i++) out[i] = static_cast<Out>(stochastic_code_e8m0<Float>(k, bits[i], draws[i], lane_flags));
        return static_cast<uint32_t>(lane_flags);
    }
    constexpr size_t kBlock = 256;
    for (size_t start = 0; start < n; start += kBlock) {
        const size_t count = n - start < kBlock ? n - start : kBlock;
        if (stochastic_block_normal<Float>(k, bits + start, draws + start, out + start, count)) continue;
        for (size_t i = start; i < start + count; i++) {
            out[i] = static_cast<Out>(stochastic_code<Float>(k, bits[i], draws[i], lane_flags));
        }
    }
    return static_cast<uint32_t>(lane_flags);
}

// The portable rule for the steps the hand-written kernels hand back.
uint32_t redo_portable(const EncodePlan& plan, const void* in, bool float64, const uint32_t* draws, void* out,
                       size_t count) {
    if (float64) {
        const double* values = static_cast<const double*>(in);
        if (plan.storage_bytes == 1) return stochastic_loop(plan, values, draws, static_cast<uint8_t*>(out), count);
        return stochastic_loop(plan, values, draws, static_cast<uint16_t*>(out), count);
    }
    const float* values = static_cast<const float*>(in);
    if (plan.storage_bytes == 1) return stochastic_loop(plan, values, draws, static_cast<uint8_t*>(out), count);
    return stochastic_loop(plan, values, draws, static_cast<uint16_t*>(out), count);
}

// Whether a value of in[0..n) has its sign bit set.
template <class Float>
MINIFLOAT_KERNEL_INLINE bool has_sign_bit(const Float* in, size_t n) {
    using Bits = typename SourceLayout<Float>::Bits;
    const Bits* bits = reinterpret_cast<const Bits*>(in);
    Bits any = 0;
    for (size_t i = 0; i < n; i++) any |= bits[i];
    return (any >> (sizeof(Bits) * 8 - 1)) != 0;
}

// The hand-written kernels: AVX-512, else AVX2 (the same contract: false
// when neither runs, nothing written).
bool stochastic_by_hand(const EncodePlan& plan, uint64_t key, uint64_t first, const void* in, bool float64,
                        void* out, size_t n, uint32_t& flags, StochasticRedo redo) {
    return stochastic_avx512(plan, key, first, in, float64, out, n, flags, redo) ||
           stochastic_avx2(plan, key, first, in, float64, out, n, flags, redo);
}

// Values per chunk: their draws stay in L1 between the two loops.
constexpr size_t kDrawChunk = 2048;

// Unsigned formats: the portable kernels round the non-negative values only
// (they know no invalid negative), so a chunk holding a negative value (its
// sign bit set: -0, -inf and -NaN too) is redone by the exact encoders, with
// the same draws; checked per chunk of a streamed block, just before the
// kernel reads it again (from cache). The hand-written kernels find negative
// values themselves, handing their steps to encode_exact_with_draws (a check
// before them cost a fifth of their time; the AVX-512 one from float64 was
// checked a chunk at a time until 2026-11: float64 -> binary8p3ue, 4M
// values, 1.58 ms, against 0.99 now on a Zen 5).
template <class Float>
MINIFLOAT_KERNEL_INLINE uint32_t encode_chunks(const EncodePlan& plan, uint64_t key, uint64_t first,
                                               const Float* in, void* out, size_t n) {
    alignas(64) uint32_t draws[kDrawChunk];
    uint32_t flags = 0;
    const size_t item = static_cast<size_t>(plan.storage_bytes);
    const bool negatives_exactly = !plan.is_signed && !plan.exponent_only;  // (float8_e8m0fnu's kernels know them)
    const bool float64 = sizeof(Float) == 8;
    auto portable_block = [&](size_t start, size_t count) MINIFLOAT_LAMBDA_INLINE {
        fill_draws32(key, first + start, draws, count);
        if (item == 1) {
            flags |= stochastic_loop(plan, in + start, draws, static_cast<uint8_t*>(out) + start, count);
        } else {
            flags |= stochastic_loop(plan, in + start, draws, static_cast<uint16_t*>(out) + start, count);
        }
    };
    // the portable kernel in chunks of at most kDrawChunk values, a chunk
    // with a negative value exactly (beyond the cache the source is asked
    // for a chunk ahead)
    const bool prefetch = prefetches(n, sizeof(Float) + item);
    auto portable_chunks = [&](size_t block_start, size_t block_count) MINIFLOAT_LAMBDA_INLINE {
        const size_t end = block_start + block_count;
        for (size_t start = block_start; start < end; start += kDrawChunk) {
            const size_t count = end - start < kDrawChunk ? end - start : kDrawChunk;
            if (prefetch) prefetch_ahead(in, start, count);
            if (negatives_exactly && has_sign_bit(in + start, count)) {
                flags |= encode_stochastic_exact(plan, key, first + start, in + start, float64,
                                                 static_cast<char*>(out) + start * item, count);
            } else {
                portable_block(start, count);
            }
        }
    };
    // elementwise: the streamed block order (memory_streams.h) changes no bit
    for_each_streamed_block(n, sizeof(Float), [&](size_t block_start, size_t block_count) MINIFLOAT_LAMBDA_INLINE {
        if (stochastic_by_hand(plan, key, first + block_start, in + block_start, float64,
                               static_cast<char*>(out) + block_start * item, block_count, flags,
                               negatives_exactly ? encode_exact_with_draws : redo_portable)) {
            return;
        }
        portable_chunks(block_start, block_count);
    });
    return flags;
}

}  // namespace

MINIFLOAT_SIMD_CLONES
uint32_t encode_stochastic_part(const EncodePlan& plan, uint64_t key, uint64_t first, const void* in, bool float64,
                                void* out, size_t n) {
    if (!plan.stochastic_kernels) return encode_stochastic_exact(plan, key, first, in, float64, out, n);
    // (formats of powers of two have a hand-written kernel from float32
    // itself; it sends a step below 2^-126 to the exact rule)
    const bool widen = plan.stochastic_widen_float32 &&
                       !(plan.stochastic_powers_of_two && (stochastic_avx512_usable() || stochastic_avx2_usable()) &&
                         first % 4 == 0);
    if (!float64 && widen) {  // each block keeps its elements' draws
        return encode_widened(static_cast<const float*>(in), n, [&](const double* block, size_t start, size_t count) {
            return encode_stochastic_part(plan, key, first + start, block, true,
                                          static_cast<char*>(out) + start * static_cast<size_t>(plan.storage_bytes),
                                          count);
        });
    }
    DefaultFpuModeScope default_modes;  // the subnormal rule's float steps must not flush (DAZ/FTZ)
    if (float64) return encode_chunks(plan, key, first, static_cast<const double*>(in), out, n);
    return encode_chunks(plan, key, first, static_cast<const float*>(in), out, n);
}

uint32_t encode_f32_stochastic(const EncodePlan& plan, uint64_t key, const float* in, void* out, size_t n) {
    return encode_stochastic_part(plan, key, 0, in, false, out, n);
}

uint32_t encode_f64_stochastic(const EncodePlan& plan, uint64_t key, const double* in, void* out, size_t n) {
    return encode_stochastic_part(plan, key, 0, in, true, out, n);
}

}  // namespace minifloat
