// Loads and narrowing stores of whole or partial vectors. On AMD (Zen 5's are
// microcoded; measured here on Zen 5) masked narrowing stores (vpmovdb /
// vpmovqb ... to memory with a mask) and the stochastic kernels' masked loads are slow:
// float64 -> float8_e8m0fnu stochastic rounding took 5-13 ms for 4M values
// with both masked, 2.8-3 ms without (astype: 1.2 ms). So a whole vector
// loads plainly, narrows in a register and stores plainly; only a loop's
// tail takes the masked forms. Include under MINIFLOAT_HAVE_X86_KERNELS.
#pragma once

#include <cstdint>

#include "avx512_intrinsics.h"

namespace minifloat {

#define MINIFLOAT_PARTIAL_VECTOR inline __attribute__((target("avx512f"), always_inline))
#define MINIFLOAT_PARTIAL_VECTOR_VL inline __attribute__((target("avx512f,avx512vl"), always_inline))

MINIFLOAT_PARTIAL_VECTOR __m512i load_epi32(const void* in, __mmask16 lanes) {
    return lanes == 0xFFFF ? _mm512_loadu_si512(in) : _mm512_maskz_loadu_epi32(lanes, in);
}

MINIFLOAT_PARTIAL_VECTOR __m512i load_epi64(const void* in, __mmask8 lanes) {
    return lanes == 0xFF ? _mm512_loadu_si512(in) : _mm512_maskz_loadu_epi64(lanes, in);
}

MINIFLOAT_PARTIAL_VECTOR void store_epi32_as_epi8(uint8_t* out, __mmask16 lanes, __m512i v) {
    if (lanes == 0xFFFF) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm512_cvtepi32_epi8(v));
    } else {
        _mm512_mask_cvtepi32_storeu_epi8(out, lanes, v);
    }
}

MINIFLOAT_PARTIAL_VECTOR void store_epi32_as_epi16(uint16_t* out, __mmask16 lanes, __m512i v) {
    if (lanes == 0xFFFF) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm512_cvtepi32_epi16(v));
    } else {
        _mm512_mask_cvtepi32_storeu_epi16(out, lanes, v);
    }
}

MINIFLOAT_PARTIAL_VECTOR void store_epi64_as_epi8(uint8_t* out, __mmask8 lanes, __m512i v) {
    if (lanes == 0xFF) {
        _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm512_cvtepi64_epi8(v));
    } else {
        _mm512_mask_cvtepi64_storeu_epi8(out, lanes, v);
    }
}

MINIFLOAT_PARTIAL_VECTOR void store_epi64_as_epi16(uint16_t* out, __mmask8 lanes, __m512i v) {
    if (lanes == 0xFF) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm512_cvtepi64_epi16(v));
    } else {
        _mm512_mask_cvtepi64_storeu_epi16(out, lanes, v);
    }
}

MINIFLOAT_PARTIAL_VECTOR_VL void store_epi32_as_epi8(uint8_t* out, __mmask8 lanes, __m256i v) {
    if (lanes == 0xFF) {
        _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm256_cvtepi32_epi8(v));
    } else {
        _mm256_mask_cvtepi32_storeu_epi8(out, lanes, v);
    }
}

#undef MINIFLOAT_PARTIAL_VECTOR
#undef MINIFLOAT_PARTIAL_VECTOR_VL

}  // namespace minifloat
