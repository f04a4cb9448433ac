// The AVX2 cast kernels between float32/float64 and 8-bit codes (see
// codec_avx2.h), built on the vector pieces of codec_avx2_vectors.h.
#include "codec_avx2.h"

#include <cstring>
#include <type_traits>

#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_AVX512_KERNELS

#include "codec_avx2_vectors.h"

namespace minifloat {

namespace {

using namespace avx2_codec;

// Rounds to zero for as long as it lives, then puts MXCSR back as it was,
// sticky flags included: the narrowing below raises inexact/overflow flags
// the caller must not see (it reports its own).
struct RoundTowardZeroScope {
    unsigned saved;
    MINIFLOAT_AVX2_CODEC RoundTowardZeroScope() : saved(_mm_getcsr()) { _mm_setcsr((saved & ~0x6000u) | 0x6000u); }
    MINIFLOAT_AVX2_CODEC ~RoundTowardZeroScope() { _mm_setcsr(saved); }
};

MINIFLOAT_AVX2_CODEC inline __m256i load8(const float* in) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
}

// bfloat16 codes are the upper halves of float32 bit patterns
MINIFLOAT_AVX2_CODEC inline __m256i load8(const uint16_t* in) {
    return _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in))), 16);
}

// 1.0 in each source type: what a partial step is padded with
template <class Source>
constexpr Source one_of() {
    if constexpr (std::is_same_v<Source, uint16_t>) {
        return 0x3F80;  // bfloat16 1.0
    } else {
        return Source(1);
    }
}

// 4 doubles with their sticky bit (any of the 29 bits below float32's
// precision) ORed into bit 29, float32's last bit: truncating that rounds to
// odd. The dropped bits lie in each low dword, so 32-bit lanes do it (the
// high dwords see zero masks and stay). Infinities and NaNs keep their
// class: an infinity has no low bits to stick.
MINIFLOAT_AVX2_CODEC inline __m256d with_sticky_bit(__m256d x) {
    const __m256i below = _mm256_set1_epi64x(0x1FFFFFFF);
    const __m256i bit29 = _mm256_set1_epi64x(1 << 29);
    const __m256i bits = _mm256_castpd_si256(x);
    const __m256i exact = _mm256_cmpeq_epi32(_mm256_and_si256(bits, below), _mm256_setzero_si256());
    return _mm256_castsi256_pd(_mm256_or_si256(bits, _mm256_andnot_si256(exact, bit29)));
}

// 8 doubles rounded to odd float32 (under RoundTowardZeroScope). That is
// exact from float32's smallest normal up; below, the sticky bit is below
// the subnormal float32's last bit, but every 8-bit format's subnormal step
// is far above, so only whether the value is zero can matter: to modes
// rounding away from zero, which AwayFromZero asks to keep (a nonzero double
// stays a nonzero float32).
template <bool AwayFromZero = false>
MINIFLOAT_AVX2_CODEC inline __m256i load8(const double* in) {
    const __m256d low = _mm256_loadu_pd(in), high = _mm256_loadu_pd(in + 4);
    const __m128 t_low = _mm256_cvtpd_ps(with_sticky_bit(low)), t_high = _mm256_cvtpd_ps(with_sticky_bit(high));
    __m256i truncated = _mm256_castps_si256(_mm256_set_m128(t_high, t_low));
    if constexpr (AwayFromZero) {
        // lanes truncated to a zero from a nonzero double get float32's smallest subnormal
        const __m256d magnitude_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFF));
        const __m128 nonzero_low = _mm256_cvtpd_ps(_mm256_cmp_pd(_mm256_and_pd(low, magnitude_mask),
                                                                 _mm256_setzero_pd(), _CMP_NEQ_UQ));
        const __m128 nonzero_high = _mm256_cvtpd_ps(_mm256_cmp_pd(_mm256_and_pd(high, magnitude_mask),
                                                                  _mm256_setzero_pd(), _CMP_NEQ_UQ));
        // an all-ones double is a NaN, converted to a NaN float32: its low bit is set
        const __m256i nonzero = _mm256_castps_si256(_mm256_set_m128(nonzero_high, nonzero_low));
        const __m256i zero = _mm256_cmpeq_epi32(_mm256_and_si256(truncated, _mm256_set1_epi32(0x7FFFFFFF)),
                                                _mm256_setzero_si256());
        truncated = _mm256_or_si256(truncated, _mm256_and_si256(_mm256_and_si256(nonzero, zero), _mm256_set1_epi32(1)));
    }
    return truncated;
}

// 32 codes; `outside` collects float8_e8m0fnu lanes this kernel does not
// handle. float64 sources run with MXCSR rounding toward zero.
template <bool ExponentOnly, Rounding Mode, class Source>
MINIFLOAT_AVX2_CODEC inline __m256i encode32(const EncodeVectors& v, const Source* in, __m256i& outside,
                                             SpecialLanes& seen) {
    constexpr bool kFpuNearest = !std::is_same_v<Source, double>;
    __m256i u[4], c[4];
    __m256i largest = _mm256_setzero_si256();
    for (int q = 0; q < 4; q++) {
        if constexpr (std::is_same_v<Source, double>) {
            u[q] = load8<Mode == Rounding::up || Mode == Rounding::down>(in + 8 * q);
        } else {
            u[q] = load8(in + 8 * q);
        }
        if constexpr (ExponentOnly) {
            if constexpr (std::is_same_v<Source, double>) {
                // past float32's range the truncation stops at FLT_MAX
                outside = _mm256_or_si256(outside, _mm256_cmpeq_epi32(u[q], _mm256_set1_epi32(0x7F7FFFFF)));
            }
            c[q] = encode8_e8m0<Mode>(u[q], outside);
        } else {
            c[q] = encode8<Mode, kFpuNearest>(v, u[q], largest);
        }
    }
    if (!ExponentOnly && any_special(v, largest)) {
        for (int q = 0; q < 4; q++) c[q] = fix_special8<Mode>(v, u[q], c[q], seen);
    }
    return pack32_bytes(c[0], c[1], c[2], c[3]);
}

template <bool ExponentOnly, Rounding Mode, class Source>
MINIFLOAT_AVX2_CODEC bool encode_block(const FastConstants<uint32_t, float>& k, const Source* in, uint8_t* out,
                                       size_t n, uint32_t& flags) {
    const EncodeVectors v = encode_vectors<Mode>(k);
    __m256i outside = _mm256_setzero_si256();
    SpecialLanes seen;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                            encode32<ExponentOnly, Mode>(v, in + i, outside, seen));
    }
    if (i < n) {  // the rest through a buffer padded with ones (a plain value in every format)
        Source padded[32];
        for (Source& x : padded) x = one_of<Source>();
        std::memcpy(padded, in + i, (n - i) * sizeof(Source));
        alignas(32) uint8_t codes[32];
        _mm256_store_si256(reinterpret_cast<__m256i*>(codes), encode32<ExponentOnly, Mode>(v, padded, outside, seen));
        std::memcpy(out + i, codes, n - i);
    }
    if (!_mm256_testz_si256(outside, outside)) return false;
    flags |= special_flags(k, seen);
    return true;
}

template <class Source>
MINIFLOAT_AVX2_CODEC bool encode_any(const FastConstants<uint32_t, float>& k, bool exponent_only, Rounding mode,
                                     const Source* in, uint8_t* out, size_t n, uint32_t& flags) {
#define MINIFLOAT_ENCODE_MODE(M)                                                 \
    case M:                                                                      \
        return exponent_only ? encode_block<true, M>(k, in, out, n, flags)       \
                             : encode_block<false, M>(k, in, out, n, flags);
    switch (mode) {
        MINIFLOAT_ENCODE_MODE(Rounding::nearest_even)
        MINIFLOAT_ENCODE_MODE(Rounding::nearest_away)
        MINIFLOAT_ENCODE_MODE(Rounding::toward_zero)
        MINIFLOAT_ENCODE_MODE(Rounding::up)
        MINIFLOAT_ENCODE_MODE(Rounding::down)
        case Rounding::stochastic: return false;
    }
#undef MINIFLOAT_ENCODE_MODE
    return false;
}

// 16 16-bit codes from 16 floats, in order (the pack works per 128-bit half).
MINIFLOAT_AVX2_CODEC inline __m256i encode16_u16(const EncodeVectors& v, const float* x, SpecialLanes& seen) {
    __m256i largest = _mm256_setzero_si256();
    const __m256i u0 = load8(x), u1 = load8(x + 8);
    __m256i c0 = encode8<Rounding::nearest_even>(v, u0, largest);
    __m256i c1 = encode8<Rounding::nearest_even>(v, u1, largest);
    if (any_special(v, largest)) {
        c0 = fix_special8<Rounding::nearest_even>(v, u0, c0, seen);
        c1 = fix_special8<Rounding::nearest_even>(v, u1, c1, seen);
    }
    return _mm256_permute4x64_epi64(_mm256_packus_epi32(c0, c1), 0xD8);
}

MINIFLOAT_AVX2_CODEC void encode_u16(const FastConstants<uint32_t, float>& k, const float* in, uint16_t* out,
                                     size_t n, uint32_t& flags) {
    const EncodeVectors v = encode_vectors<Rounding::nearest_even>(k);
    SpecialLanes seen;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), encode16_u16(v, in + i, seen));
    if (i < n) {
        float padded[16];
        for (float& x : padded) x = 1.0f;
        std::memcpy(padded, in + i, (n - i) * sizeof(float));
        alignas(32) uint16_t codes[16];
        _mm256_store_si256(reinterpret_cast<__m256i*>(codes), encode16_u16(v, padded, seen));
        std::memcpy(out + i, codes, (n - i) * sizeof(uint16_t));
    }
    flags |= special_flags(k, seen);
}

template <bool ExponentOnly>
MINIFLOAT_AVX2_CODEC inline __m256i decode8_any(const DecodeVectors& v, const uint8_t* in) {
    return ExponentOnly ? decode8_e8m0(load8_codes(in)) : decode8(v, load8_codes(in));
}

template <bool ExponentOnly>
MINIFLOAT_AVX2_CODEC void decode_all(const DecodePlan& plan, const uint8_t* in, float* out, size_t n) {
    const DecodeVectors v = decode_vectors(plan);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        if (!ExponentOnly && !any_special_code32(v, in + i)) {  // the common block: no infinity, no NaN
            for (int q = 0; q < 4; q++) {
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i + 8 * q),
                                    decode8<false>(v, load8_codes(in + i + 8 * q)));
            }
            continue;
        }
        for (int q = 0; q < 4; q++) {
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i + 8 * q),
                                decode8_any<ExponentOnly>(v, in + i + 8 * q));
        }
    }
    for (; i < n; i += 8) {
        uint8_t codes[8] = {};
        const size_t count = n - i < 8 ? n - i : 8;
        std::memcpy(codes, in + i, count);
        alignas(32) float values[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(values), decode8_any<ExponentOnly>(v, codes));
        std::memcpy(out + i, values, count * sizeof(float));
    }
}

}  // namespace

template <class Source>
bool encode_u8_block_avx2(const FastConstants<uint32_t, float>& k, bool exponent_only, Rounding mode,
                          const Source* in, uint8_t* out, size_t n, uint32_t& flags) {
    if (!avx2_usable()) return false;
    if constexpr (std::is_same_v<Source, double>) {
        RoundTowardZeroScope toward_zero;  // the narrowing truncates
        return encode_any(k, exponent_only, mode, in, out, n, flags);
    } else {
        return encode_any(k, exponent_only, mode, in, out, n, flags);
    }
}

bool encode_f32_u16_avx2(const FastConstants<uint32_t, float>& k, const float* in, uint16_t* out, size_t n,
                         uint32_t& flags) {
    if (!avx2_usable()) return false;
    encode_u16(k, in, out, n, flags);
    return true;
}

bool decode_u8_to_f32_avx2(const DecodePlan& plan, const uint8_t* in, float* out, size_t n) {
    if (!avx2_usable() || plan.storage_bytes != 1) return false;
    if (plan.exponent_only) {
        decode_all<true>(plan, in, out, n);
    } else {
        decode_all<false>(plan, in, out, n);
    }
    return true;
}

}  // namespace minifloat

#else

namespace minifloat {
template <class Source>
bool encode_u8_block_avx2(const FastConstants<uint32_t, float>&, bool, Rounding, const Source*, uint8_t*, size_t,
                          uint32_t&) {
    return false;
}
bool encode_f32_u16_avx2(const FastConstants<uint32_t, float>&, const float*, uint16_t*, size_t, uint32_t&) {
    return false;
}
bool decode_u8_to_f32_avx2(const DecodePlan&, const uint8_t*, float*, size_t) { return false; }
}  // namespace minifloat

#endif

// The sources the encoder serves (defined above for either build).
namespace minifloat {
using Constants32 = FastConstants<uint32_t, float>;
template bool encode_u8_block_avx2<float>(const Constants32&, bool, Rounding, const float*, uint8_t*,
                                          size_t, uint32_t&);
template bool encode_u8_block_avx2<double>(const Constants32&, bool, Rounding, const double*, uint8_t*,
                                           size_t, uint32_t&);
template bool encode_u8_block_avx2<uint16_t>(const Constants32&, bool, Rounding, const uint16_t*, uint8_t*,
                                             size_t, uint32_t&);
}  // namespace minifloat
