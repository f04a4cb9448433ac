// The fast float32 -> 8-bit encoder written with AVX-512 intrinsics, for
// every deterministic rounding mode: integer rounding of normal magnitudes,
// the FPU's (with embedded rounding) for subnormal ones, mask registers for
// the selects and two byte permutes to pack 64 codes (the compiler's
// generic packing takes five times as many instructions).
#include "codec_avx512.h"

#include "cache_line.h"
#include "fp_status.h"
#include "memory_streams.h"
#include "pack_kernels.h"
#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#include <type_traits>

#include "avx512_intrinsics.h"
#include "pack_avx512.h"
#include "partial_vectors.h"

#include "codec_avx512_vectors.h"

namespace minifloat {

namespace {

using namespace avx512_encoder;

#define MINIFLOAT_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi")))

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
    const __m512i odd_dwords = odd_dwords_index();
    const __m512i upper = _mm512_permutex2var_epi32(low, odd_dwords, high);
    const __m512i half_bit = _mm512_and_si512(_mm512_srli_epi32(upper, 19), _mm512_set1_epi32(1));
    const __m512i code = _mm512_sub_epi32(_mm512_add_epi32(_mm512_srli_epi32(upper, 20), half_bit),
                                          _mm512_set1_epi32(1023 - 127));
    outside |= _mm512_cmpgt_epu32_mask(code, _mm512_set1_epi32(254));
    return code;
}

// 16 float32 bit patterns from 16 floats or from 16 doubles rounded to odd
// (see codec_avx512.h).
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

// The upper dwords of 16 doubles (sign, exponent, 20 fraction bits), bit 0
// set where the lower dword is not zero: rounded to odd at 20 fraction bits
// (see upper_half_vectors).
MINIFLOAT_AVX512 inline __m512i upper_halves16(const double* in, __mmask16 lanes) {
    const __m512i low = _mm512_maskz_loadu_epi64(static_cast<__mmask8>(lanes), in);
    const __m512i high = _mm512_maskz_loadu_epi64(static_cast<__mmask8>(lanes >> 8), in + 8);
    const __m512i upper = _mm512_permutex2var_epi32(
        low, odd_dwords_index(), high);
    const __m512i lower = _mm512_permutex2var_epi32(
        low, even_dwords_index(), high);
    return _mm512_or_si512(upper, _mm512_min_epu32(lower, _mm512_set1_epi32(1)));
}

// The 16 source bit patterns encode16 takes (UpperHalves: of doubles).
template <bool UpperHalves, class Source>
MINIFLOAT_AVX512 inline __m512i source16(const Source* in, __mmask16 lanes) {
    if constexpr (UpperHalves) {
        return upper_halves16(in, lanes);
    } else {
        return load16(in, lanes);
    }
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

// Up to 16 values by masked loads (the start and the end of a block): their
// codes in the 32-bit lanes of `lanes`.
template <bool ExponentOnly, Rounding Mode, bool UpperHalves, Layout L, bool DeepNormals, class Source>
MINIFLOAT_AVX512 inline __m512i encode_part(const Vectors& v, const Source* in, __mmask16 lanes, __mmask16& outside,
                                            SpecialLanes& seen) {
    // masked-off lanes load as +0: harmless to encode, but not a valid
    // e8m0 input, so only live lanes count toward `outside`
    __mmask16 lane_outside = 0;
    __m512i c;
    if constexpr (ExponentOnly) {
        c = encode16_e8m0_from<Mode>(in, lanes, lane_outside);
    } else {
        const __m512i u = source16<UpperHalves>(in, lanes);
        __mmask16 special = 0;
        c = encode16<Mode, UpperHalves, L, DeepNormals>(v, u, special);
        // (a format without zero finds the masked-off lanes' zeros invalid)
        special &= lanes;
        if (special != 0) {
            SpecialLanes part;
            c = fix_special16<Mode, L>(v, u, c, part);
            seen.overflow |= part.overflow & lanes;
            seen.inf |= part.inf & lanes;
            seen.nan |= part.nan & lanes;
            seen.invalid |= part.invalid & lanes;
        }
    }
    outside |= lane_outside & lanes;
    return c;
}

// The codes of 64 values in whole vectors, one per byte.
template <bool ExponentOnly, Rounding Mode, bool UpperHalves, Layout L, bool DeepNormals, class Source>
MINIFLOAT_AVX512 inline __m512i encode_step64(const Vectors& v, __m512i pattern, const Source* in,
                                              __mmask16& outside, SpecialLanes& seen) {
    constexpr __mmask16 kAll = 0xFFFF;
    __m512i c[4];
    if constexpr (ExponentOnly) {
        for (int q = 0; q < 4; q++) c[q] = encode16_e8m0_from<Mode>(in + 16 * q, kAll, outside);
    } else {
        __m512i u[4];
        __mmask16 special = 0;
        for (int q = 0; q < 4; q++) {
            u[q] = source16<UpperHalves>(in + 16 * q, kAll);
            c[q] = encode16<Mode, UpperHalves, L, DeepNormals>(v, u[q], special);
        }
        if (special != 0) {
            for (int q = 0; q < 4; q++) c[q] = fix_special16<Mode, L>(v, u[q], c[q], seen);
        }
    }
    return pack64(pattern, c[0], c[1], c[2], c[3]);
}

// Where the codes go: a byte each (ByteCodes), or packed at Bits bits each
// (PackedCodes, pack_kernels.h's layout), as encode_in_mode makes them:
// whole steps of 64 and parts of up to 16 (the block's start and end).
struct ByteCodes {
    MINIFLOAT_AVX512 static void step64(uint8_t* out, size_t i, __m512i codes) { _mm512_storeu_si512(out + i, codes); }
    MINIFLOAT_AVX512 static void part(uint8_t* out, size_t i, __mmask16 lanes, __m512i c) {
        store_epi32_as_epi8(out + i, lanes, c);
    }
};

// Bits 4 or 6; value i's code starts on a byte wherever a part or a step
// starts (i * Bits a multiple of 8: encode_f32_packed_avx512 checks the
// block's first part, the others start 16 or 64 values later). The last
// part's partial byte gets zero high bits, as mf.pack writes it.
template <int Bits>
struct PackedCodes {
    static_assert(Bits == 4 || Bits == 6);
    Fp6PackVectors fp6;
    MINIFLOAT_AVX512 PackedCodes() : fp6(fp6_pack_vectors()) {}
    MINIFLOAT_AVX512 void step64(uint8_t* out, size_t i, __m512i codes) const {
        if constexpr (Bits == 6) {
            _mm512_mask_storeu_epi8(out + i / 4 * 3, kPackedFp6Bytes, packed_fp6(fp6, codes));
        } else {
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i / 2), packed_fp4(codes));
        }
    }
    MINIFLOAT_AVX512 void part(uint8_t* out, size_t i, __mmask16 lanes, __m512i c) const {
        alignas(16) uint8_t codes[16];
        _mm_store_si128(reinterpret_cast<__m128i*>(codes), _mm512_cvtepi32_epi8(c));
        const size_t count = static_cast<size_t>(__builtin_popcount(lanes));  // (lanes: the low `count` bits)
        pack_codes(codes, count, Bits, out + i * Bits / 8);
    }
};

// UpperHalves: doubles by their upper halves, `high` their constants (see
// upper_half_vectors); otherwise float32 bit patterns (doubles rounded to
// odd on the way) and `high` unused.
// The whole block in one rounding mode, fixed at compile time, for codes
// laid out as L (see encode16), into `out` as Sink writes them.
template <bool ExponentOnly, Rounding Mode, bool UpperHalves, Layout L, bool DeepNormals, class Sink = ByteCodes,
          class Source>
MINIFLOAT_AVX512 bool encode_in_mode(const FastConstants<uint32_t, float>& k, const FastConstants<uint32_t, float>* high,
                                     const Source* in, uint8_t* out, size_t n, uint32_t& flags) {
    Vectors v;
    if constexpr (UpperHalves) {
        v = upper_half_vectors<Mode>(*high, k);
    } else {
        v = broadcast<Mode>(k);
    }
    const __m512i pattern = low_byte_pattern();
    __mmask16 outside = 0;  // e8m0 lanes the fast path does not handle
    SpecialLanes seen;
    const Sink sink{};
    const auto step = [&](size_t i) MINIFLOAT_AVX512 MINIFLOAT_LAMBDA_INLINE {
        sink.step64(out, i, encode_step64<ExponentOnly, Mode, UpperHalves, L, DeepNormals>(v, pattern, in + i, outside,
                                                                                           seen));
    };
    // values [i, i + count), count <= 16
    const auto part = [&](size_t i, size_t count) MINIFLOAT_AVX512 MINIFLOAT_LAMBDA_INLINE {
        const __mmask16 lanes = count >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << count) - 1u);
        sink.part(out, i, lanes, encode_part<ExponentOnly, Mode, UpperHalves, L, DeepNormals>(v, in + i, lanes, outside,
                                                                                              seen));
    };
    // the source is then read in whole cache lines (cache_line.h)
    const size_t head = elements_before_cache_line(in, n);
    size_t i = 0;
    for (; i < head; i += 16) part(i, head - i < 16 ? head - i : 16);
    constexpr size_t kBlock = stream_block(sizeof(Source));
    const StreamParts parts = stream_parts(head, n, kBlock, sizeof(Source) + 1);
    for (size_t j = 0; j < parts.length; j += kBlock) {
        for (unsigned s = 0; s < parts.streams; s++) {
            const size_t first = parts.start + s * parts.length + j;
            if (parts.prefetch) prefetch_ahead(in, first, kBlock);
            for (i = first; i < first + kBlock; i += 64) step(i);
        }
        // declined: stop early, the caller redoes the values
        if (ExponentOnly && outside != 0) return false;
    }
    for (i = parts.end(); i + 64 <= n; i += 64) step(i);
    for (; i < n; i += 16) part(i, n - i);
    if (outside != 0) return false;
    if (seen.overflow != 0) flags |= k.overflow_flags;
    if (seen.inf != 0) flags |= k.inf_flags;
    if (seen.nan != 0) flags |= k.nan_flags;
    if (seen.invalid != 0) flags |= kFlagInvalid;
    return true;
}

// The block in `mode`: picks encode_in_mode's instantiation for it.
template <class Source>
MINIFLOAT_AVX512 bool encode_choosing_mode(const FastConstants<uint32_t, float>& k, const FastConstants<uint32_t, float>* high,
                                           bool exponent_only, Rounding mode, const Source* in, uint8_t* out, size_t n,
                                           uint32_t& flags) {
    // doubles by their upper halves where the format's constants allow (on
    // an AMD Zen 5: float64 -> float8_e4m3fn 1.23 -> 0.91 ms; narrowing each
    // double to float32 rounded to odd took three operations per 8 values more)
    return with_deterministic_mode(mode, [&](auto mode_constant) {
        constexpr Rounding M = decltype(mode_constant)::value;
        if (exponent_only) {
            return encode_in_mode<true, M, false, Layout::signed_with_zero, false>(k, high, in, out, n, flags);
        }
        return with_layout(k, [&](auto layout_constant) {
            constexpr Layout L = decltype(layout_constant)::value;
            if (k.deep_normals) return encode_in_mode<false, M, false, L, true>(k, high, in, out, n, flags);
            if constexpr (std::is_same_v<Source, double>) {
                if (high != nullptr) return encode_in_mode<false, M, true, L, false>(k, high, in, out, n, flags);
            }
            return encode_in_mode<false, M, false, L, false>(k, high, in, out, n, flags);
        });
    });
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

template <class Source>
bool encode_u8_block_avx512(const FastConstants<uint32_t, float>& k, const FastConstants<uint32_t, float>* high,
                            bool exponent_only, Rounding mode, const Source* in, uint8_t* out, size_t n,
                            uint32_t& flags) {
    return avx512_vbmi_usable() && encode_choosing_mode(k, high, exponent_only, mode, in, out, n, flags);
}

bool encode_f32_packed_avx512(const FastConstants<uint32_t, float>& k, int bits, const float* in, uint8_t* packed,
                              size_t n, uint32_t& flags) {
    if (!avx512_vbmi_usable() || (bits != 4 && bits != 6)) return false;
    // the first part (up to the source's first cache line) must end on a byte
    if (elements_before_cache_line(in, n) * static_cast<size_t>(bits) % 8 != 0) return false;
    constexpr Rounding M = Rounding::nearest_even;
    return with_layout(k, [&](auto layout_constant) {
        constexpr Layout L = decltype(layout_constant)::value;
        const auto with_bits = [&](auto bits_constant) {
            using Sink = PackedCodes<decltype(bits_constant)::value>;
            if (k.deep_normals) return encode_in_mode<false, M, false, L, true, Sink>(k, nullptr, in, packed, n, flags);
            return encode_in_mode<false, M, false, L, false, Sink>(k, nullptr, in, packed, n, flags);
        };
        return bits == 6 ? with_bits(std::integral_constant<int, 6>{}) : with_bits(std::integral_constant<int, 4>{});
    });
}

bool round_to_odd_f32_avx512(const double* in, float* out, size_t n) {
    if (!avx512_vbmi_usable()) return false;
    round_to_odd(in, out, n);
    return true;
}

}  // namespace minifloat

#else

namespace minifloat {
template <class Source>
bool encode_u8_block_avx512(const FastConstants<uint32_t, float>&, const FastConstants<uint32_t, float>*, bool,
                            Rounding, const Source*, uint8_t*, size_t, uint32_t&) {
    return false;
}
bool encode_f32_packed_avx512(const FastConstants<uint32_t, float>&, int, const float*, uint8_t*, size_t, uint32_t&) {
    return false;
}
bool round_to_odd_f32_avx512(const double*, float*, size_t) { return false; }
}  // namespace minifloat

#endif

// The sources the encoder serves (defined above for either build).
namespace minifloat {
using Constants32 = FastConstants<uint32_t, float>;
template bool encode_u8_block_avx512<float>(const Constants32&, const Constants32*, bool, Rounding, const float*,
                                            uint8_t*, size_t, uint32_t&);
template bool encode_u8_block_avx512<double>(const Constants32&, const Constants32*, bool, Rounding, const double*,
                                             uint8_t*, size_t, uint32_t&);
template bool encode_u8_block_avx512<uint16_t>(const Constants32&, const Constants32*, bool, Rounding,
                                               const uint16_t*, uint8_t*, size_t, uint32_t&);
}  // namespace minifloat
