// The fast float32 -> 8-bit encoder written with AVX-512 intrinsics: the
// same arithmetic as encode_block_fast, with mask registers for the selects
// and two byte permutes to pack 64 codes (the compiler's generic packing
// takes five times as many instructions).
#include "encode_fast.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

namespace minifloat {

namespace {

#define MINIFLOAT_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi")))

struct Vectors {
    __m512i abs_mask, half_minus_one, one, rebias, normal_from, magic_bits, overflow_from, inf_bits,
        sign_bit, overflow_code, overflow_sign;
    __m128i shift, sign_shift;
    __m512 magic;
};

MINIFLOAT_AVX512 inline Vectors broadcast(const FastConstants<uint32_t, float>& k) {
    Vectors v;
    v.abs_mask = _mm512_set1_epi32(0x7FFFFFFF);
    v.half_minus_one = _mm512_set1_epi32(static_cast<int>(k.half_minus_one));
    v.one = _mm512_set1_epi32(1);
    v.rebias = _mm512_set1_epi32(static_cast<int>(k.rebias));
    v.normal_from = _mm512_set1_epi32(static_cast<int>(k.normal_from));
    v.magic_bits = _mm512_set1_epi32(static_cast<int>(k.magic_bits));
    v.overflow_from = _mm512_set1_epi32(static_cast<int>(k.overflow_from));
    v.inf_bits = _mm512_set1_epi32(static_cast<int>(k.inf_bits));
    v.sign_bit = _mm512_set1_epi32(static_cast<int>(k.sign_bit));
    v.overflow_code = _mm512_set1_epi32(static_cast<int>(k.overflow_code));
    v.overflow_sign = _mm512_set1_epi32(static_cast<int>(k.overflow_sign));
    v.shift = _mm_cvtsi32_si128(static_cast<int>(k.shift));
    v.sign_shift = _mm_cvtsi32_si128(static_cast<int>(k.sign_shift));
    v.magic = _mm512_set1_ps(k.magic);
    return v;
}

// 16 codes (one per dword) from 16 floats; accumulates the lane masks of
// overflowed and inf/NaN inputs.
MINIFLOAT_AVX512 inline __m512i encode16(const Vectors& v, bool zero_drops_sign, __m512i u,
                                         __mmask16& overflowed, __mmask16& outside) {
    const __m512i a = _mm512_and_si512(u, v.abs_mask);
    const __mmask16 normal = _mm512_cmpge_epu32_mask(a, v.normal_from);
    const __m512i lsb = _mm512_and_si512(_mm512_srl_epi32(a, v.shift), v.one);
    const __m512i rounded = _mm512_add_epi32(_mm512_add_epi32(a, v.half_minus_one), lsb);
    const __m512i normal_code = _mm512_sub_epi32(_mm512_srl_epi32(rounded, v.shift), v.rebias);
    const __m512 tiny = _mm512_castsi512_ps(_mm512_maskz_mov_epi32(static_cast<__mmask16>(~normal), a));
    const __m512i subnormal_code =
        _mm512_sub_epi32(_mm512_castps_si512(_mm512_add_ps(tiny, v.magic)), v.magic_bits);
    const __m512i magnitude = _mm512_mask_blend_epi32(normal, subnormal_code, normal_code);
    const __m512i sign = _mm512_and_si512(_mm512_srl_epi32(u, v.sign_shift), v.sign_bit);
    __m512i code = _mm512_or_si512(magnitude, sign);
    if (zero_drops_sign) {
        code = _mm512_maskz_mov_epi32(_mm512_test_epi32_mask(magnitude, magnitude), code);
    }
    const __mmask16 overflow = _mm512_cmpge_epu32_mask(a, v.overflow_from);
    const __m512i overflow_code = _mm512_or_si512(v.overflow_code, _mm512_and_si512(sign, v.overflow_sign));
    code = _mm512_mask_blend_epi32(overflow, code, overflow_code);
    overflowed |= overflow;
    outside |= _mm512_cmpge_epu32_mask(a, v.inf_bits);
    return code;
}

MINIFLOAT_AVX512 bool encode_block(const FastConstants<uint32_t, float>& k, const float* in, uint8_t* out,
                                   size_t n, uint32_t& flags) {
    const Vectors v = broadcast(k);
    const bool zds = k.zero_drops_sign != 0;
    // Byte 0 of every dword of two vectors into the low 32 bytes: index 4i
    // is byte 0 of dword i of the first vector for i < 16 and, with bit 6
    // set, of dword i - 16 of the second.
    alignas(64) uint8_t pick[64] = {};
    for (int i = 0; i < 32; i++) pick[i] = static_cast<uint8_t>(4 * i);
    const __m512i low_bytes = _mm512_load_si512(pick);
    __mmask16 overflowed = 0, outside = 0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const __m512i c0 = encode16(v, zds, _mm512_loadu_si512(in + i), overflowed, outside);
        const __m512i c1 = encode16(v, zds, _mm512_loadu_si512(in + i + 16), overflowed, outside);
        const __m512i c2 = encode16(v, zds, _mm512_loadu_si512(in + i + 32), overflowed, outside);
        const __m512i c3 = encode16(v, zds, _mm512_loadu_si512(in + i + 48), overflowed, outside);
        // 32 bytes from c0,c1 into the low half, 32 from c2,c3 into the high half.
        const __m512i packed01 = _mm512_permutex2var_epi8(c0, low_bytes, c1);
        const __m512i packed23 = _mm512_permutex2var_epi8(c2, low_bytes, c3);
        const __m512i packed = _mm512_inserti64x4(packed01, _mm512_castsi512_si256(packed23), 1);
        _mm512_storeu_si512(out + i, packed);
    }
    for (; i + 16 <= n; i += 16) {
        const __m512i c = encode16(v, zds, _mm512_loadu_si512(in + i), overflowed, outside);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm512_cvtepi32_epi8(c));
    }
    if (i < n) {
        const __mmask16 tail = static_cast<__mmask16>((1u << (n - i)) - 1u);
        const __m512i c = encode16(v, zds, _mm512_maskz_loadu_epi32(tail, in + i), overflowed, outside);
        _mm512_mask_cvtepi32_storeu_epi8(out + i, tail, c);
    }
    if (outside != 0) return false;
    if (overflowed != 0) flags |= k.overflow_flags;
    return true;
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

bool cpu_supported() {
    static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                           __builtin_cpu_supports("avx512vbmi");
    return ok;
}

}  // namespace

bool encode_f32_u8_block_avx512(const FastConstants<uint32_t, float>& k, const float* in, uint8_t* out,
                                size_t n, uint32_t& flags) {
    if (!cpu_supported()) return false;
    return encode_block(k, in, out, n, flags);
}

bool round_to_odd_f32_avx512(const double* in, float* out, size_t n) {
    if (!cpu_supported()) return false;
    round_to_odd(in, out, n);
    return true;
}

}  // namespace minifloat

#else

namespace minifloat {
bool encode_f32_u8_block_avx512(const FastConstants<uint32_t, float>&, const float*, uint8_t*, size_t,
                                uint32_t&) {
    return false;
}
bool round_to_odd_f32_avx512(const double*, float*, size_t) { return false; }
}  // namespace minifloat

#endif
