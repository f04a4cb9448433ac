// Branch-free conversion kernels. Every loop body is a sequence of integer
// operations and selects so the compiler can vectorize it for each clone in
// simd_dispatch.h; codec.h holds the exact scalar rules these must match.
#include "convert_kernels.h"

#include <cstring>

#include "simd_dispatch.h"

namespace minifloat {

namespace {

template <class Float> struct IeeeTraits;
template <> struct IeeeTraits<float> {
    using Bits = uint32_t;
    static constexpr int fraction_bits = 23;
    static constexpr int bias = 127;
    static constexpr int total_bits = 32;
};
template <> struct IeeeTraits<double> {
    using Bits = uint64_t;
    static constexpr int fraction_bits = 52;
    static constexpr int bias = 1023;
    static constexpr int total_bits = 64;
};

template <class To, class From>
inline To bit_cast(const From& from) {
    static_assert(sizeof(To) == sizeof(From), "size mismatch");
    To to;
    std::memcpy(&to, &from, sizeof(To));
    return to;
}

template <class Float>
IeeeEncodeConstants<typename IeeeTraits<Float>::Bits> make_constants(const Format& f,
                                                                     const SpecialCodes& s) {
    using T = IeeeTraits<Float>;
    using Bits = typename T::Bits;
    IeeeEncodeConstants<Bits> k;
    if (f.specials == Specials::unsigned_exponent_only) return k;
    k.shift = static_cast<Bits>(T::fraction_bits - f.mantissa_bits);
    k.half_minus_one = (Bits{1} << (k.shift - 1)) - 1;
    k.rebias = static_cast<Bits>(T::bias - f.bias) << f.mantissa_bits;
    k.normal_threshold = static_cast<Bits>(f.min_normal_exponent + T::bias) << T::fraction_bits;
    // A value whose ulp equals the target's subnormal spacing 2^(emin - M):
    // adding it to a tiny magnitude rounds that magnitude to a whole number of
    // subnormal steps with the FPU's own round-to-nearest-even.
    k.subnormal_magic =
        static_cast<Bits>(f.min_normal_exponent - f.mantissa_bits + T::fraction_bits + T::bias)
        << T::fraction_bits;
    k.inf_bits = static_cast<Bits>((Bits{1} << (T::total_bits - 1 - T::fraction_bits)) - 1)
                 << T::fraction_bits;
    k.max_magnitude = f.max_magnitude;
    k.sign_bit = f.sign_bit;
    k.nan_positive = s.nan_positive;
    k.nan_negative = s.nan_negative;
    k.inf_positive = s.inf_positive;
    k.inf_negative = s.inf_negative;
    k.overflow_positive = s.overflow_positive;
    k.overflow_negative = s.overflow_negative;
    k.nan_flags = s.nan_flags;
    k.inf_flags = s.inf_flags;
    k.overflow_flags = s.overflow_flags;
    k.zero_drops_sign = s.zero_drops_sign ? 1 : 0;
    return k;
}

// Round-to-nearest-even of one IEEE value into a code (see codec.h).
template <class Float>
inline typename IeeeTraits<Float>::Bits encode_one_rne(
        const IeeeEncodeConstants<typename IeeeTraits<Float>::Bits>& k, Float x,
        uint32_t& flags) {
    using T = IeeeTraits<Float>;
    using Bits = typename T::Bits;
    const Bits u = bit_cast<Bits>(x);
    const Bits negative = u >> (T::total_bits - 1);
    const Bits a = u & ~(Bits{1} << (T::total_bits - 1));
    const bool is_nan = a > k.inf_bits;
    const bool is_inf = a == k.inf_bits;
    const bool is_normal = a >= k.normal_threshold;

    const Bits rounded = a + k.half_minus_one + ((a >> k.shift) & 1);
    const Bits normal_code = (rounded >> k.shift) - k.rebias;
    const Float tiny = bit_cast<Float>(is_normal ? Bits{0} : a);
    const Bits subnormal_code =
        bit_cast<Bits>(static_cast<Float>(tiny + bit_cast<Float>(k.subnormal_magic))) -
        k.subnormal_magic;
    const Bits magnitude = is_normal ? normal_code : subnormal_code;
    const bool finite = !is_nan && !is_inf;
    const bool overflow = finite && magnitude > k.max_magnitude;

    Bits code = magnitude | (negative ? k.sign_bit : Bits{0});
    code = (magnitude == 0 && k.zero_drops_sign) ? Bits{0} : code;
    code = overflow ? (negative ? k.overflow_negative : k.overflow_positive) : code;
    code = is_inf ? (negative ? k.inf_negative : k.inf_positive) : code;
    code = is_nan ? (negative ? k.nan_negative : k.nan_positive) : code;
    flags |= (overflow ? k.overflow_flags : 0u) | (is_inf ? k.inf_flags : 0u) |
             (is_nan ? k.nan_flags : 0u);
    return code;
}

// float8_e8m0fnu: the result is the source exponent, bumped when the
// fraction is at least one half (ties go to the larger power of two).
template <class Float>
inline uint32_t encode_one_e8m0(const EncodePlan& p, Float x, uint32_t& flags) {
    using T = IeeeTraits<Float>;
    using Bits = typename T::Bits;
    const Bits u = bit_cast<Bits>(x);
    const bool negative = (u >> (T::total_bits - 1)) != 0;
    const Bits a = u & ~(Bits{1} << (T::total_bits - 1));
    const Bits inf_bits = static_cast<Bits>((Bits{1} << (T::total_bits - 1 - T::fraction_bits)) - 1)
                          << T::fraction_bits;
    const Bits fraction = a & ((Bits{1} << T::fraction_bits) - 1);
    const int64_t exponent_field = static_cast<int64_t>(a >> T::fraction_bits);
    const bool round_up = fraction >= (Bits{1} << (T::fraction_bits - 1));
    int64_t code = exponent_field - T::bias + 127 + (round_up ? 1 : 0);
    // Source subnormals: only float32 reaches e8m0's range (2^-127 is a
    // float32 subnormal); 2^-127 * 1.5 is the tie up to 2^-126.
    const bool source_subnormal = exponent_field == 0;
    const Bits subnormal_tie = (T::bias == 127) ? (Bits{3} << (T::fraction_bits - 2)) : Bits{0};
    const int64_t subnormal_code =
        (T::bias == 127 && fraction >= subnormal_tie) ? 1 : 0;
    code = source_subnormal ? subnormal_code : code;
    code = code < 0 ? 0 : code;
    const bool is_nan = a > inf_bits;
    const bool is_inf = a == inf_bits;
    const bool invalid = negative || a == 0;
    const bool overflow = !is_nan && !is_inf && !invalid && code > 254;
    uint32_t out = static_cast<uint32_t>(code);
    out = overflow ? p.e8m0_overflow : out;
    out = is_inf ? p.e8m0_inf : out;
    out = (invalid || is_nan) ? p.e8m0_nan : out;
    flags |= (overflow ? p.e8m0_overflow_flags : 0u) |
             ((is_inf && !negative) ? p.e8m0_inf_flags : 0u) |
             ((invalid && !is_nan) ? uint32_t{kFlagInvalid} : 0u);
    return out;
}

template <class Float, class Out>
inline uint32_t encode_loop(const EncodePlan& p,
                            const IeeeEncodeConstants<typename IeeeTraits<Float>::Bits>& k,
                            const Float* in, Out* out, size_t n) {
    uint32_t flags = 0;
    if (p.exponent_only) {
        for (size_t i = 0; i < n; i++) out[i] = static_cast<Out>(encode_one_e8m0(p, in[i], flags));
    } else {
        for (size_t i = 0; i < n; i++) out[i] = static_cast<Out>(encode_one_rne<Float>(k, in[i], flags));
    }
    return flags;
}

}  // namespace

EncodePlan make_encode_plan(const Format& f, const SpecialCodes& s) {
    EncodePlan p;
    p.exponent_only = f.specials == Specials::unsigned_exponent_only;
    p.storage_bytes = f.storage_bytes;
    p.from_f32 = make_constants<float>(f, s);
    p.from_f64 = make_constants<double>(f, s);
    p.e8m0_nan = f.nan_code;
    p.e8m0_overflow = s.overflow_positive;
    p.e8m0_inf = s.inf_positive;
    p.e8m0_overflow_flags = s.overflow_flags;
    p.e8m0_inf_flags = s.inf_flags;
    return p;
}

MINIFLOAT_SIMD_CLONES
uint32_t encode_f32(const EncodePlan& plan, const float* in, void* out, size_t n) {
    if (plan.storage_bytes == 1) {
        return encode_loop<float>(plan, plan.from_f32, in, static_cast<uint8_t*>(out), n);
    }
    return encode_loop<float>(plan, plan.from_f32, in, static_cast<uint16_t*>(out), n);
}

MINIFLOAT_SIMD_CLONES
uint32_t encode_f64(const EncodePlan& plan, const double* in, void* out, size_t n) {
    if (plan.storage_bytes == 1) {
        return encode_loop<double>(plan, plan.from_f64, in, static_cast<uint8_t*>(out), n);
    }
    return encode_loop<double>(plan, plan.from_f64, in, static_cast<uint16_t*>(out), n);
}

MINIFLOAT_SIMD_CLONES
void decode_u8_to_f32(const uint32_t* table256, const uint8_t* in, float* out, size_t n) {
    uint32_t* bits = reinterpret_cast<uint32_t*>(out);
    for (size_t i = 0; i < n; i++) bits[i] = table256[in[i]];
}

MINIFLOAT_SIMD_CLONES
void decode_u8_to_f64(const double* table256, const uint8_t* in, double* out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = table256[in[i]];
}

MINIFLOAT_SIMD_CLONES
void decode_bf16_to_f32(const uint16_t* in, float* out, size_t n) {
    uint32_t* bits = reinterpret_cast<uint32_t*>(out);
    for (size_t i = 0; i < n; i++) bits[i] = static_cast<uint32_t>(in[i]) << 16;
}

MINIFLOAT_SIMD_CLONES
void decode_bf16_to_f64(const uint16_t* in, double* out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        out[i] = static_cast<double>(bit_cast<float>(static_cast<uint32_t>(in[i]) << 16));
    }
}

MINIFLOAT_SIMD_CLONES
uint32_t translate_u8(const uint16_t* table256, const uint8_t* in, uint8_t* out, size_t n) {
    uint32_t flags = 0;
    for (size_t i = 0; i < n; i++) {
        const uint16_t entry = table256[in[i]];
        out[i] = static_cast<uint8_t>(entry);
        flags |= entry >> 8;
    }
    return flags;
}

MINIFLOAT_SIMD_CLONES
uint32_t translate_u8_to_u16(const uint32_t* table256, const uint8_t* in, uint16_t* out,
                             size_t n) {
    uint32_t flags = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t entry = table256[in[i]];
        out[i] = static_cast<uint16_t>(entry);
        flags |= entry >> 16;
    }
    return flags;
}

}  // namespace minifloat
