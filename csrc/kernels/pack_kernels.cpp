// Bit packing of sub-byte codes. FP4 and FP6 (the formats' widths) have
// their own loops, FP6 with AVX-512 VBMI byte permutes; any other width
// goes through a 64-bit accumulator. Before (NumPy in Python), packing 4M
// FP4 codes took ~5 ms and FP6 ~40 ms against 0.3 ms to copy the codes.
#include "pack_kernels.h"

#include <cstring>

#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#include "avx512_intrinsics.h"
#endif

namespace minifloat {

namespace {

MINIFLOAT_KERNEL_INLINE uint16_t load_u16(const uint8_t* p) {
    return static_cast<uint16_t>(p[0] | (p[1] << 8));
}

MINIFLOAT_KERNEL_INLINE uint32_t load_u32(const uint8_t* p) {
    return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
           (static_cast<uint32_t>(p[3]) << 24);
}

// Four 6-bit codes (bytes of w, low first) as the 24-bit group v0 | v1 << 6 | ...
MINIFLOAT_KERNEL_INLINE uint32_t fp6_group(uint32_t w) {
    return (w & 0x3Fu) | ((w >> 2) & 0xFC0u) | ((w >> 4) & 0x3F000u) | ((w >> 6) & 0xFC0000u);
}

// The inverse: a 24-bit group as four code bytes.
MINIFLOAT_KERNEL_INLINE uint32_t fp6_codes(uint32_t v) {
    return (v & 0x3Fu) | ((v << 2) & 0x3F00u) | ((v << 4) & 0x3F0000u) | ((v << 6) & 0x3F000000u);
}

// Any width: codes into a 64-bit accumulator, whole bytes out.
void pack_any(const uint8_t* codes, size_t count, int bits, uint8_t* out) {
    const uint32_t mask = (1u << bits) - 1u;
    uint64_t acc = 0;
    int filled = 0;
    for (size_t i = 0; i < count; i++) {
        acc |= static_cast<uint64_t>(codes[i] & mask) << filled;
        filled += bits;
        while (filled >= 8) {
            *out++ = static_cast<uint8_t>(acc);
            acc >>= 8;
            filled -= 8;
        }
    }
    if (filled > 0) *out = static_cast<uint8_t>(acc);
}

void unpack_any(const uint8_t* packed, size_t count, int bits, uint8_t* codes) {
    const uint32_t mask = (1u << bits) - 1u;
    uint64_t acc = 0;
    int filled = 0;
    for (size_t i = 0; i < count; i++) {
        while (filled < bits) {
            acc |= static_cast<uint64_t>(*packed++) << filled;
            filled += 8;
        }
        codes[i] = static_cast<uint8_t>(acc & mask);
        acc >>= bits;
        filled -= bits;
    }
}

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#define MINIFLOAT_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))

// Bytes 0, 1, 2 of each dword, in order (48 of 64 bytes).
MINIFLOAT_VBMI inline __m512i three_of_four_bytes() {
    alignas(64) uint8_t index[64];
    for (int i = 0; i < 64; i++) index[i] = static_cast<uint8_t>(i < 48 ? (i / 3) * 4 + i % 3 : 0);
    return _mm512_load_si512(index);
}

// Dword i gets bytes 3i, 3i + 1, 3i + 2 (its top byte is cleared after).
MINIFLOAT_VBMI inline __m512i spread_three_bytes() {
    alignas(64) uint8_t index[64];
    for (int i = 0; i < 64; i++) index[i] = static_cast<uint8_t>(i % 4 == 3 ? 0 : (i / 4) * 3 + i % 4);
    return _mm512_load_si512(index);
}

// FP6, 64 codes (48 bytes) per step; returns the codes done (a multiple
// of 64 whose bytes it wrote, 0 without VBMI).
MINIFLOAT_VBMI size_t pack_fp6_vbmi_kernel(const uint8_t* codes, size_t count, uint8_t* out) {
    const __m512i gather = three_of_four_bytes();
    const __m512i m0 = _mm512_set1_epi32(0x3F), m1 = _mm512_set1_epi32(0xFC0), m2 = _mm512_set1_epi32(0x3F000),
                  m3 = _mm512_set1_epi32(0xFC0000);
    size_t i = 0;
    for (; i + 64 <= count; i += 64) {
        const __m512i w = _mm512_loadu_si512(codes + i);
        __m512i v = _mm512_ternarylogic_epi32(_mm512_and_si512(w, m0), _mm512_srli_epi32(w, 2), m1, 0xF8);
        v = _mm512_ternarylogic_epi32(v, _mm512_srli_epi32(w, 4), m2, 0xF8);
        v = _mm512_ternarylogic_epi32(v, _mm512_srli_epi32(w, 6), m3, 0xF8);
        _mm512_mask_storeu_epi8(out + i / 4 * 3, 0x0000FFFFFFFFFFFFull, _mm512_permutexvar_epi8(gather, v));
    }
    return i;
}

MINIFLOAT_VBMI size_t unpack_fp6_vbmi_kernel(const uint8_t* packed, size_t count, uint8_t* codes) {
    const __m512i spread = spread_three_bytes();
    const __m512i c0 = _mm512_set1_epi32(0x3F), c1 = _mm512_set1_epi32(0x3F00), c2 = _mm512_set1_epi32(0x3F0000),
                  c3 = _mm512_set1_epi32(0x3F000000);
    size_t i = 0;
    for (; i + 64 <= count; i += 64) {
        const __m512i bytes = _mm512_maskz_loadu_epi8(0x0000FFFFFFFFFFFFull, packed + i / 4 * 3);
        const __m512i v = _mm512_permutexvar_epi8(spread, bytes);
        __m512i w = _mm512_ternarylogic_epi32(_mm512_and_si512(v, c0), _mm512_slli_epi32(v, 2), c1, 0xF8);
        w = _mm512_ternarylogic_epi32(w, _mm512_slli_epi32(v, 4), c2, 0xF8);
        w = _mm512_ternarylogic_epi32(w, _mm512_slli_epi32(v, 6), c3, 0xF8);
        _mm512_storeu_si512(codes + i, w);
    }
    return i;
}

size_t pack_fp6_vbmi(const uint8_t* codes, size_t count, uint8_t* out) {
    return avx512_vbmi_usable() ? pack_fp6_vbmi_kernel(codes, count, out) : 0;
}
size_t unpack_fp6_vbmi(const uint8_t* packed, size_t count, uint8_t* codes) {
    return avx512_vbmi_usable() ? unpack_fp6_vbmi_kernel(packed, count, codes) : 0;
}
#else
size_t pack_fp6_vbmi(const uint8_t*, size_t, uint8_t*) { return 0; }
size_t unpack_fp6_vbmi(const uint8_t*, size_t, uint8_t*) { return 0; }
#endif

MINIFLOAT_SIMD_CLONES
void pack_fp4(const uint8_t* __restrict codes, size_t count, uint8_t* __restrict out) {
    const size_t pairs = count / 2;
    for (size_t j = 0; j < pairs; j++) {
        const uint16_t w = load_u16(codes + 2 * j);
        out[j] = static_cast<uint8_t>((w & 0x0Fu) | ((w >> 4) & 0xF0u));
    }
    if (count & 1) out[pairs] = codes[count - 1] & 0x0F;
}

MINIFLOAT_SIMD_CLONES
void unpack_fp4(const uint8_t* __restrict packed, size_t count, uint8_t* __restrict codes) {
    const size_t pairs = count / 2;
    for (size_t j = 0; j < pairs; j++) {
        const uint16_t w = static_cast<uint16_t>((packed[j] & 0x0Fu) | ((packed[j] & 0xF0u) << 4));
        std::memcpy(codes + 2 * j, &w, sizeof w);  // little-endian: the low nibble's code first
    }
    if (count & 1) codes[count - 1] = packed[pairs] & 0x0F;
}

void pack_fp6(const uint8_t* codes, size_t count, uint8_t* out) {
    size_t i = pack_fp6_vbmi(codes, count, out);
    for (; i + 4 <= count; i += 4) {
        const uint32_t v = fp6_group(load_u32(codes + i));
        uint8_t* o = out + i / 4 * 3;
        o[0] = static_cast<uint8_t>(v);
        o[1] = static_cast<uint8_t>(v >> 8);
        o[2] = static_cast<uint8_t>(v >> 16);
    }
    if (i < count) pack_any(codes + i, count - i, 6, out + i / 4 * 3);
}

void unpack_fp6(const uint8_t* packed, size_t count, uint8_t* codes) {
    size_t i = unpack_fp6_vbmi(packed, count, codes);
    for (; i + 4 <= count; i += 4) {
        const uint8_t* p = packed + i / 4 * 3;
        const uint32_t w = fp6_codes(static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
                                     (static_cast<uint32_t>(p[2]) << 16));
        codes[i] = static_cast<uint8_t>(w);
        codes[i + 1] = static_cast<uint8_t>(w >> 8);
        codes[i + 2] = static_cast<uint8_t>(w >> 16);
        codes[i + 3] = static_cast<uint8_t>(w >> 24);
    }
    if (i < count) unpack_any(packed + i / 4 * 3, count - i, 6, codes + i);
}

MINIFLOAT_SIMD_CLONES
void mask_codes(const uint8_t* __restrict codes, size_t count, uint8_t mask, uint8_t* __restrict out) {
    for (size_t i = 0; i < count; i++) out[i] = codes[i] & mask;
}

}  // namespace

void pack_codes(const uint8_t* codes, size_t count, int bits, uint8_t* out) {
    switch (bits) {
        case 4: return pack_fp4(codes, count, out);
        case 6: return pack_fp6(codes, count, out);
        case 8: return mask_codes(codes, count, 0xFF, out);
        default: return pack_any(codes, count, bits, out);
    }
}

void unpack_codes(const uint8_t* packed, size_t count, int bits, uint8_t* codes) {
    switch (bits) {
        case 4: return unpack_fp4(packed, count, codes);
        case 6: return unpack_fp6(packed, count, codes);
        case 8: return mask_codes(packed, count, 0xFF, codes);
        default: return unpack_any(packed, count, bits, codes);
    }
}

}  // namespace minifloat
