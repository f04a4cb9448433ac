// Random bits for stochastic rounding, drawn from a counter instead of a
// sequential generator state: element i's draw depends only on the key and
// i, so a kernel can make the draws of any chunk of an array, in any order,
// vectorized. The generator is ARS-5 (Salmon, Moraes, Dror, Shaw, "Parallel
// random numbers: as easy as 1, 2, 3", SC'11; also Intel MKL's ARS5): five
// AES rounds whose round keys step along a Weyl sequence. AES hardware
// (VAES: 16 draws per 5 instructions) makes it cheaper than SplitMix64's
// 64-bit multiplies, which bound the earlier kernels. With K the 64-bit key:
//
//     k_0 = (lo K, hi 0),  k_r = k_0 + r * (lo 0x9E3779B97F4A7C15,
//                                           hi 0xBB67AE8584CAA73B)
//           (each 64-bit half added mod 2^64)
//     B_j = AESENCLAST(AESENC(AESENC(AESENC(AESENC(c_j ^ k_0, k_1), k_2),
//                                      k_3), k_4), k_5)
//     c_j = the 128-bit integer j;  d_i = bits 32 (i % 4) .. 32 (i % 4) + 31
//                                         of B_{i / 4}
//
// with AESENC / AESENCLAST one AES round of FIPS-197 (SubBytes, ShiftRows,
// MixColumns (not in the last), AddRoundKey) on the state whose byte b is
// byte b of the little-endian 128-bit value (the AES-NI convention).
// Element i (C order) rounds to the larger-magnitude neighbour iff
// d_i < floor(f_i * 2^32), f_i the exact fraction of the gap (so the bias
// is below 2^-32 and exact values never move).
#pragma once

#include <cstddef>
#include <cstdint>

namespace minifloat {

inline constexpr int kArsRounds = 5;
inline constexpr uint64_t kArsWeylLow = 0x9E3779B97F4A7C15ull;   // 2^64 / golden ratio
inline constexpr uint64_t kArsWeylHigh = 0xBB67AE8584CAA73Bull;  // 2^64 * (sqrt(3) - 1)

// The round keys k_0 .. k_5 of a key, as 64-bit halves.
struct ArsRoundKeys {
    uint64_t low[kArsRounds + 1], high[kArsRounds + 1];
};
inline ArsRoundKeys ars_round_keys(uint64_t key) {
    ArsRoundKeys k;
    for (int r = 0; r <= kArsRounds; r++) {
        k.low[r] = key + static_cast<uint64_t>(r) * kArsWeylLow;
        k.high[r] = static_cast<uint64_t>(r) * kArsWeylHigh;
    }
    return k;
}

// The draws d_first .. d_{first + count - 1} of `key` (any first, any count;
// AES instructions where the CPU has them, else AES rounds in software: the
// same bits).
void fill_draws32(uint64_t key, uint64_t first, uint32_t* draws, size_t count);

// The same, always in software (for tests and machines without AES).
void fill_draws32_portable(uint64_t key, uint64_t first, uint32_t* draws, size_t count);

// The draw d in the form the exact element-wise encoders take (codec.h:
// up iff draw < floor(f * 2^64)): d * 2^32 + 2^32 - 1, which is below
// floor(f * 2^64) exactly when d < floor(f * 2^32).
inline uint64_t widened_draw(uint32_t d) { return (uint64_t{d} << 32) | 0xFFFFFFFFull; }

}  // namespace minifloat
