// AVX-512 path of byte_table_encoder.h: 16 values a time, one gather of the
// bucket entries (GCC's vectorizer spells gathers as 16 scalar loads).
#include "byte_table_encoder.h"

#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#include <immintrin.h>
#include "partial_vectors.h"

namespace minifloat {

#define MINIFLOAT_AVX512F __attribute__((target("avx512f")))

MINIFLOAT_AVX512F
bool encode_f32_by_table_avx512(const ByteTableEncoder& table, const float* in, uint8_t* out, size_t n,
                                bool& special, uint32_t& flags) {
    if (!avx512_bw_usable()) return false;
    const int* entries = reinterpret_cast<const int*>(table.entries.data());
    const __m512i magnitude_mask = _mm512_set1_epi32(0x7FFFFFFF);
    const __m512i ordinary_below = _mm512_set1_epi32(static_cast<int>(table.ordinary_below));
    const __m512i in_bucket = _mm512_set1_epi32(0xFFFF);
    const __m512i next_mask = _mm512_set1_epi32(0x1FFFF);
    const __m512i one = _mm512_set1_epi32(1);
    const __m512i sign_bit = _mm512_set1_epi32(static_cast<int>(table.sign_bit));
    const __m512i zero = _mm512_setzero_si512();
    const __m512i infinity = _mm512_set1_epi32(0x7F800000);
    const __m512i overflow_positive = _mm512_set1_epi32(static_cast<int>(table.overflow_positive));
    const __m512i overflow_negative = _mm512_set1_epi32(static_cast<int>(table.overflow_negative));
    const __mmask16 all = 0xFFFF;
    const __mmask16 code0_keeps_sign = table.code0_keeps_sign ? all : 0;
    const __mmask16 negative_is_special = table.negative_is_special ? all : 0;
    const __mmask16 zero_is_special = table.zero_is_special ? all : 0;
    __mmask16 any_special = 0, any_overflow = 0;
    for (size_t i = 0; i < n; i += 16) {
        const __mmask16 lanes = n - i >= 16 ? all : static_cast<__mmask16>((1u << (n - i)) - 1u);
        const __m512i u = load_epi32(in + i, lanes);
        const __m512i magnitude = _mm512_and_si512(u, magnitude_mask);
        const __mmask16 ordinary = _mm512_cmplt_epu32_mask(magnitude, ordinary_below);
        const __m512i index = _mm512_maskz_mov_epi32(ordinary, magnitude);  // special lanes read entry 0
        const __m512i entry = _mm512_i32gather_epi32(_mm512_srli_epi32(index, 16), entries, 4);
        const __mmask16 step = _mm512_cmpge_epu32_mask(_mm512_and_si512(index, in_bucket),
                                                       _mm512_and_si512(entry, next_mask));
        const __m512i start_code = _mm512_srli_epi32(entry, 17);
        const __m512i code = _mm512_mask_add_epi32(start_code, step, start_code, one);
        const __mmask16 negative = _mm512_cmplt_epi32_mask(u, zero);
        const __mmask16 nonzero = _mm512_cmpneq_epu32_mask(code, zero);
        __m512i signed_code = _mm512_mask_or_epi32(code, negative & (nonzero | code0_keeps_sign), code, sign_bit);
        const __mmask16 finite = _mm512_cmplt_epu32_mask(magnitude, infinity);
        const __mmask16 overflow = static_cast<__mmask16>(~ordinary) & finite;
        signed_code = _mm512_mask_mov_epi32(signed_code, overflow & static_cast<__mmask16>(~negative), overflow_positive);
        signed_code = _mm512_mask_mov_epi32(signed_code, overflow & negative, overflow_negative);
        store_epi32_as_epi8(out + i, lanes, signed_code);
        const __mmask16 is_zero = _mm512_cmpeq_epu32_mask(magnitude, zero);
        any_overflow |= lanes & overflow;
        any_special |= lanes & (static_cast<__mmask16>(~finite) | (negative & negative_is_special) |
                                (is_zero & zero_is_special));
    }
    special = any_special != 0;
    if (any_overflow != 0) flags |= table.overflow_flags;
    return true;
}

}  // namespace minifloat

#else

namespace minifloat {
bool encode_f32_by_table_avx512(const ByteTableEncoder&, const float*, uint8_t*, size_t, bool&, uint32_t&) {
    return false;
}
}  // namespace minifloat

#endif
