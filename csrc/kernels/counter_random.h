// Random bits for stochastic rounding, drawn from a counter instead of a
// sequential generator state: element i's draw depends only on the key and
// i, so a kernel can make the draws of any chunk of an array, in any order,
// vectorized. The generator is SplitMix64 (Steele, Lea, Flood, "Fast
// splittable pseudorandom number generators", 2014): its j-th output is a
// fixed mixing function of key + (j + 1) * golden gamma, which is already a
// counter hash. Each 64-bit output serves two elements:
//
//     h_j        = mix64(key + (j + 1) * 0x9E3779B97F4A7C15)    (mod 2^64)
//     mix64(z)   : z ^= z >> 30; z *= 0xBF58476D1CE4E5B9;
//                  z ^= z >> 27; z *= 0x94D049BB133111EB; z ^= z >> 31
//     draw d_i   = bits 0..31 of h_{i/2} for even i, bits 32..63 for odd i
//
// and element i (C order) rounds to the larger-magnitude neighbour iff
// d_i < floor(f_i * 2^32), f_i the exact fraction of the gap (so the bias
// is below 2^-32 and exact values never move).
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd_dispatch.h"

namespace minifloat {

inline constexpr uint64_t kSplitMixGamma = 0x9E3779B97F4A7C15ull;

MINIFLOAT_KERNEL_INLINE uint64_t splitmix64_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// h_j of the key.
MINIFLOAT_KERNEL_INLINE uint64_t counter_hash(uint64_t key, uint64_t j) {
    return splitmix64_mix(key + (j + 1) * kSplitMixGamma);
}

// The 32-bit draws d_first .. d_{first + count - 1} (`first` even). The
// counter advances by addition (one multiply fewer per hash than
// key + (j + 1) * gamma), and each hash is stored as its two draws at once.
MINIFLOAT_KERNEL_INLINE void fill_draws32(uint64_t key, uint64_t first, uint32_t* __restrict draws, size_t count) {
    uint64_t z = key + (first / 2 + 1) * kSplitMixGamma;
    const size_t pairs = count / 2;
    for (size_t j = 0; j < pairs; j++) {
        const uint64_t h = splitmix64_mix(z);
        z += kSplitMixGamma;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        __builtin_memcpy(draws + 2 * j, &h, sizeof h);  // bits 0..31 first
#else
        draws[2 * j] = static_cast<uint32_t>(h);
        draws[2 * j + 1] = static_cast<uint32_t>(h >> 32);
#endif
    }
    if (count & 1) draws[count - 1] = static_cast<uint32_t>(splitmix64_mix(z));
}

// The draw d in the form the exact element-wise encoders take (codec.h:
// up iff draw < floor(f * 2^64)): d * 2^32 + 2^32 - 1, which is below
// floor(f * 2^64) exactly when d < floor(f * 2^32).
MINIFLOAT_KERNEL_INLINE uint64_t widened_draw(uint32_t d) { return (uint64_t{d} << 32) | 0xFFFFFFFFull; }

}  // namespace minifloat
