// Bit packing of sub-byte codes. FP4 and FP6 (the formats' widths) have
// their own loops, FP6 with AVX-512 VBMI byte permutes or AVX2 in-lane
// shuffles; any other width
// goes through a 64-bit accumulator. Before (NumPy in Python), packing 4M
// FP4 codes took ~5 ms and FP6 ~40 ms against 0.3 ms to copy the codes.
#include "pack_kernels.h"

#include <cstring>

#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#include "avx512_intrinsics.h"
#include "pack_avx512.h"
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

// Dword i gets bytes 3i, 3i + 1, 3i + 2 (its top byte is cleared after).
MINIFLOAT_VBMI inline __m512i spread_three_bytes() {
    alignas(64) uint8_t index[64];
    for (int i = 0; i < 64; i++) index[i] = static_cast<uint8_t>(i % 4 == 3 ? 0 : (i / 4) * 3 + i % 4);
    return _mm512_load_si512(index);
}

// FP6, 64 codes (48 bytes) per step (pack_avx512.h's packed_fp6); returns
// the codes done (a multiple of 64 whose bytes it wrote, 0 without VBMI).
MINIFLOAT_VBMI size_t pack_fp6_vbmi_kernel(const uint8_t* codes, size_t count, uint8_t* out) {
    const Fp6PackVectors k = fp6_pack_vectors();
    size_t i = 0;
    for (; i + 64 <= count; i += 64) {
        _mm512_mask_storeu_epi8(out + i / 4 * 3, kPackedFp6Bytes, packed_fp6(k, _mm512_loadu_si512(codes + i)));
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

#define MINIFLOAT_AVX2 __attribute__((target("avx2")))

// AVX2's byte shuffle stays within 128-bit lanes: each lane holds 16 codes,
// 12 packed bytes. Unpacking reads 16 bytes per lane (4 past its 12), packing
// writes 32 bytes for 24, so the loops stop 12 codes (9 bytes) before the
// end and the scalar loop finishes.
constexpr size_t kAvx2Fp6Slack = 12;

// Per lane: bytes 0-2 of each dword packed into the lane's first 12 bytes
// (`gather`), or the three bytes of group k at positions given by `first`
// (0 for the group's bytes 0, 1, 2 at dword bytes first, first+1, first+2;
// -1 entries are zeroed by the shuffle).
MINIFLOAT_AVX2 inline __m256i fp6_gather_index() {
    alignas(32) int8_t index[32];
    for (int i = 0; i < 32; i++) {
        const int k = i % 16;
        index[i] = static_cast<int8_t>(k < 12 ? (k / 3) * 4 + k % 3 : -1);
    }
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(index));
}

MINIFLOAT_AVX2 inline __m256i fp6_spread_index(int first) {
    alignas(32) int8_t index[32];
    for (int i = 0; i < 32; i++) {
        const int k = i % 16, byte = k % 4 - first;
        index[i] = static_cast<int8_t>(byte >= 0 && byte < 3 ? (k / 4) * 3 + byte : -1);
    }
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(index));
}

// Four codes c0..c3 of a dword become the 24-bit group c0 + 64 c1 + 4096 (c2 + 64 c3):
// maddubs forms the two 12-bit halves, madd joins them.
MINIFLOAT_AVX2 size_t pack_fp6_avx2_kernel(const uint8_t* codes, size_t count, uint8_t* out) {
    const __m256i gather = fp6_gather_index();
    const __m256i six_bits = _mm256_set1_epi8(0x3F);
    const __m256i pairs = _mm256_set1_epi16(0x4001);      // bytes (1, 64)
    const __m256i halves = _mm256_set1_epi32(0x10000001); // words (1, 4096)
    const __m256i compact = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
    size_t i = 0;
    for (; i + 32 + kAvx2Fp6Slack <= count; i += 32) {
        const __m256i w = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes + i)), six_bits);
        const __m256i group = _mm256_madd_epi16(_mm256_maddubs_epi16(w, pairs), halves);
        // each lane's 12 bytes into the low 24 (dwords 0-2 and 4-6)
        const __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(group, gather), compact);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i / 4 * 3), bytes);
    }
    return i;
}

// A group's bytes p0 p1 p2 are placed twice: as (0, p0, p1, p2), whose 16-bit
// words hold c0 at bits 8-13 and c2 at bits 4-9 (moved down by mulhi), and as
// (p0, p1, p2, 0), whose words hold c1 at bits 6-11 and c3 at bits 2-7
// (moved up by mullo); one multiply per pair of fields instead of shifts.
MINIFLOAT_AVX2 size_t unpack_fp6_avx2_kernel(const uint8_t* packed, size_t count, uint8_t* codes) {
    const __m256i high_first = fp6_spread_index(1), low_first = fp6_spread_index(0);
    const __m256i c0_c2 = _mm256_set1_epi32(0x03F03F00), down = _mm256_set1_epi32(0x10000100);  // >> 8, >> 4
    const __m256i c1_c3 = _mm256_set1_epi32(0x00FC0FC0), up = _mm256_set1_epi32(0x00400004);    // << 2, << 6
    const auto step = [&](size_t at) MINIFLOAT_AVX2 MINIFLOAT_LAMBDA_INLINE {
        const uint8_t* p = packed + at / 4 * 3;
        const __m256i bytes = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))),
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 12)), 1);
        const __m256i even = _mm256_mulhi_epu16(_mm256_and_si256(_mm256_shuffle_epi8(bytes, high_first), c0_c2), down);
        const __m256i odd = _mm256_mullo_epi16(_mm256_and_si256(_mm256_shuffle_epi8(bytes, low_first), c1_c3), up);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(codes + at), _mm256_or_si256(even, odd));
    };
    size_t i = 0;
    // two steps per pass: one step per pass ran 0.087 or 0.133 ms for 4M
    // codes on a Zen 5, depending on the loop's address
    for (; i + 64 + kAvx2Fp6Slack <= count; i += 64) {
        step(i);
        step(i + 32);
    }
    for (; i + 32 + kAvx2Fp6Slack <= count; i += 32) step(i);
    return i;
}

size_t pack_fp6_simd(const uint8_t* codes, size_t count, uint8_t* out) {
    if (avx512_vbmi_usable()) return pack_fp6_vbmi_kernel(codes, count, out);
    return avx2_usable() ? pack_fp6_avx2_kernel(codes, count, out) : 0;
}
size_t unpack_fp6_simd(const uint8_t* packed, size_t count, uint8_t* codes) {
    if (avx512_vbmi_usable()) return unpack_fp6_vbmi_kernel(packed, count, codes);
    return avx2_usable() ? unpack_fp6_avx2_kernel(packed, count, codes) : 0;
}
#else
size_t pack_fp6_simd(const uint8_t*, size_t, uint8_t*) { return 0; }
size_t unpack_fp6_simd(const uint8_t*, size_t, uint8_t*) { return 0; }
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
    size_t i = pack_fp6_simd(codes, count, out);
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
    size_t i = unpack_fp6_simd(packed, count, codes);
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
