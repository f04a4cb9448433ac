// 64 sub-byte codes in one register to their packed bytes (pack_kernels.h's
// layout: code k at bit k * bits, little-endian), for mf.pack's loop and for
// the encoder that packs as it rounds (codec_avx512.cpp). Include only under
// MINIFLOAT_HAVE_X86_KERNELS (simd_dispatch.h).
#pragma once

#include <cstdint>

#include "avx512_intrinsics.h"

#define MINIFLOAT_PACK_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi"), always_inline)) inline

namespace minifloat {

// The constants of packed_fp6, made once per loop.
struct Fp6PackVectors {
    __m512i gather;  // bytes 0, 1, 2 of each dword, in order (48 of 64 bytes)
    __m512i six_bits, pairs, halves;
};

MINIFLOAT_PACK_VBMI Fp6PackVectors fp6_pack_vectors() {
    alignas(64) uint8_t index[64];
    for (int i = 0; i < 64; i++) index[i] = static_cast<uint8_t>(i < 48 ? (i / 3) * 4 + i % 3 : 0);
    Fp6PackVectors k;
    k.gather = _mm512_load_si512(index);
    k.six_bits = _mm512_set1_epi8(0x3F);
    k.pairs = _mm512_set1_epi16(0x4001);       // bytes (1, 64)
    k.halves = _mm512_set1_epi32(0x10000001);  // words (1, 4096)
    return k;
}

// 64 FP6 codes (bytes, their top two bits ignored) as 48 bytes, in the low
// 48 of the result: each dword's four codes c0..c3 become the 24-bit group
// c0 + 64 c1 + 4096 (c2 + 64 c3) by two multiply-adds (three shifts and
// three merges took 0.047 ns a code in cache on the Intel Xeon VM, these
// 0.027), then one byte permute drops every fourth byte.
MINIFLOAT_PACK_VBMI __m512i packed_fp6(const Fp6PackVectors& k, __m512i codes) {
    const __m512i w = _mm512_and_si512(codes, k.six_bits);
    const __m512i group = _mm512_madd_epi16(_mm512_maddubs_epi16(w, k.pairs), k.halves);
    return _mm512_permutexvar_epi8(k.gather, group);
}

constexpr uint64_t kPackedFp6Bytes = 0x0000FFFFFFFFFFFFull;  // (the 48 bytes' store mask)

// 64 FP4 codes (bytes, their top four bits ignored) as 32 bytes: each pair
// c0 + 16 c1 by one multiply-add, its word narrowed to a byte.
MINIFLOAT_PACK_VBMI __m256i packed_fp4(__m512i codes) {
    const __m512i w = _mm512_and_si512(codes, _mm512_set1_epi8(0x0F));
    return _mm512_cvtepi16_epi8(_mm512_maddubs_epi16(w, _mm512_set1_epi16(0x1001)));  // bytes (1, 16)
}

}  // namespace minifloat
