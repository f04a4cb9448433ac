// ARS-5's draws (counter_random.h) outside the AVX-512 kernels: with AES-NI
// (or the Armv8 AES instructions where the compiler targets them) four
// blocks at a time, else the AES rounds in software from their definition
// (FIPS-197), the same bits. Measured on 4M float32 values to float8_e4m3fn
// without the AVX-512 kernels: 1.9 ms with AES-NI, 33 ms with the software
// rounds.
#include "counter_random.h"

#include <array>

#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#include <immintrin.h>
#elif defined(__aarch64__) && defined(__ARM_FEATURE_AES)
#include <arm_neon.h>
#define MINIFLOAT_ARM_AES 1
#endif

namespace minifloat {

namespace {

// GF(2^8) with the AES polynomial x^8 + x^4 + x^3 + x + 1.
constexpr uint8_t times_x(uint8_t a) { return static_cast<uint8_t>((a << 1) ^ ((a & 0x80) ? 0x1B : 0)); }
constexpr uint8_t gf_multiply(uint8_t a, uint8_t b) {
    uint8_t product = 0;
    for (int bit = 0; bit < 8; bit++) {
        if (b & (1 << bit)) product ^= a;
        a = times_x(a);
    }
    return product;
}
constexpr uint8_t rotate_left8(uint8_t b, int s) { return static_cast<uint8_t>((b << s) | (b >> (8 - s))); }

// The S-box from its definition: the multiplicative inverse (0 for 0),
// then the affine map b ^ rotl(b, 1..4) ^ 0x63.
constexpr std::array<uint8_t, 256> make_sbox() {
    std::array<uint8_t, 256> box{};
    for (int x = 0; x < 256; x++) {
        uint8_t inverse = 0;
        for (int y = 1; y < 256 && x != 0; y++) {
            if (gf_multiply(static_cast<uint8_t>(x), static_cast<uint8_t>(y)) == 1) {
                inverse = static_cast<uint8_t>(y);
                break;
            }
        }
        box[x] = static_cast<uint8_t>(inverse ^ rotate_left8(inverse, 1) ^ rotate_left8(inverse, 2) ^
                                      rotate_left8(inverse, 3) ^ rotate_left8(inverse, 4) ^ 0x63);
    }
    return box;
}
constexpr std::array<uint8_t, 256> kSbox = make_sbox();

// SubBytes and MixColumns of one state byte in row 0, as the little-endian
// column word (2s, s, s, 3s); rows 1..3 are this word rotated by 8, 16, 24.
constexpr std::array<uint32_t, 256> make_round_table() {
    std::array<uint32_t, 256> table{};
    for (int x = 0; x < 256; x++) {
        const uint32_t s = kSbox[x];
        const uint32_t twice = times_x(static_cast<uint8_t>(s)), thrice = twice ^ s;
        table[x] = twice | (s << 8) | (s << 16) | (thrice << 24);
    }
    return table;
}
constexpr std::array<uint32_t, 256> kRoundTable = make_round_table();

inline uint32_t rotate_left32(uint32_t w, int s) { return (w << s) | (w >> (32 - s)); }
inline uint32_t byte_of(const uint32_t* columns, int column, int row) {
    return (columns[column & 3] >> (8 * row)) & 0xFF;
}

// One AES round (AESENC, or AESENCLAST without MixColumns) on the state as
// four little-endian column words: ShiftRows takes row r of column c from
// column c + r.
void aes_round(uint32_t* state, uint64_t key_low, uint64_t key_high, bool last) {
    const uint32_t key[4] = {static_cast<uint32_t>(key_low), static_cast<uint32_t>(key_low >> 32),
                             static_cast<uint32_t>(key_high), static_cast<uint32_t>(key_high >> 32)};
    uint32_t next[4];
    for (int c = 0; c < 4; c++) {
        if (last) {
            next[c] = kSbox[byte_of(state, c, 0)] | (uint32_t{kSbox[byte_of(state, c + 1, 1)]} << 8) |
                      (uint32_t{kSbox[byte_of(state, c + 2, 2)]} << 16) |
                      (uint32_t{kSbox[byte_of(state, c + 3, 3)]} << 24);
        } else {
            next[c] = kRoundTable[byte_of(state, c, 0)] ^ rotate_left32(kRoundTable[byte_of(state, c + 1, 1)], 8) ^
                      rotate_left32(kRoundTable[byte_of(state, c + 2, 2)], 16) ^
                      rotate_left32(kRoundTable[byte_of(state, c + 3, 3)], 24);
        }
    }
    for (int c = 0; c < 4; c++) state[c] = next[c] ^ key[c];
}

// B_j as its four draws.
void ars_block_portable(const ArsRoundKeys& k, uint64_t j, uint32_t* words) {
    uint32_t state[4] = {static_cast<uint32_t>(j ^ k.low[0]), static_cast<uint32_t>((j ^ k.low[0]) >> 32),
                         static_cast<uint32_t>(k.high[0]), static_cast<uint32_t>(k.high[0] >> 32)};
    for (int r = 1; r <= kArsRounds; r++) aes_round(state, k.low[r], k.high[r], r == kArsRounds);
    for (int w = 0; w < 4; w++) words[w] = state[w];
}

// Blocks [first_block, first_block + blocks) into `words` (4 per block).
using BlockFill = void (*)(const ArsRoundKeys& k, uint64_t first_block, uint32_t* words, size_t blocks);

void fill_blocks_portable(const ArsRoundKeys& k, uint64_t first_block, uint32_t* words, size_t blocks) {
    for (size_t b = 0; b < blocks; b++) ars_block_portable(k, first_block + b, words + 4 * b);
}

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#define MINIFLOAT_AES_NI __attribute__((target("aes,sse4.1")))

// Four independent blocks per step keep the AES unit's pipeline full.
MINIFLOAT_AES_NI void fill_blocks_aes_ni(const ArsRoundKeys& k, uint64_t first_block, uint32_t* words,
                                         size_t blocks) {
    __m128i keys[kArsRounds + 1];
    for (int r = 0; r <= kArsRounds; r++) {
        keys[r] = _mm_set_epi64x(static_cast<long long>(k.high[r]), static_cast<long long>(k.low[r]));
    }
    size_t b = 0;
    for (; b + 4 <= blocks; b += 4) {
        __m128i x[4];
        for (int i = 0; i < 4; i++) {
            x[i] = _mm_xor_si128(_mm_set_epi64x(0, static_cast<long long>(first_block + b + i)), keys[0]);
        }
        for (int r = 1; r < kArsRounds; r++) {
            for (int i = 0; i < 4; i++) x[i] = _mm_aesenc_si128(x[i], keys[r]);
        }
        for (int i = 0; i < 4; i++) {
            _mm_storeu_si128(reinterpret_cast<__m128i*>(words + 4 * (b + i)), _mm_aesenclast_si128(x[i], keys[kArsRounds]));
        }
    }
    for (; b < blocks; b++) {
        __m128i x = _mm_xor_si128(_mm_set_epi64x(0, static_cast<long long>(first_block + b)), keys[0]);
        for (int r = 1; r < kArsRounds; r++) x = _mm_aesenc_si128(x, keys[r]);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(words + 4 * b), _mm_aesenclast_si128(x, keys[kArsRounds]));
    }
}

// AES-NI goes with the hand-written x86 kernels: off with them
// (MINIFLOAT_DISABLE_AVX2=1 or _core._set_avx2_kernels(False)), so the
// tests reach the software rounds on this CPU too.
BlockFill block_fill() {
    static const bool has_aes = __builtin_cpu_supports("aes") && __builtin_cpu_supports("sse4.1");
    return has_aes && avx2_kernels_enabled() ? fill_blocks_aes_ni : fill_blocks_portable;
}
#elif defined(MINIFLOAT_ARM_AES)
// AESE is AddRoundKey, SubBytes, ShiftRows and AESMC MixColumns, so
// AESENC(x, k) = AESMC(AESE(x, 0)) ^ k; the round key's xor moves into the
// next AESE (AESE(y, k) = ShiftRows(SubBytes(y ^ k))).
void fill_blocks_arm_aes(const ArsRoundKeys& k, uint64_t first_block, uint32_t* words, size_t blocks) {
    uint8x16_t keys[kArsRounds + 1];
    for (int r = 0; r <= kArsRounds; r++) {
        keys[r] = vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(k.low[r]), vcreate_u64(k.high[r])));
    }
    for (size_t b = 0; b < blocks; b++) {
        uint8x16_t x = vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(first_block + b), vcreate_u64(0)));
        for (int r = 0; r < kArsRounds - 1; r++) x = vaesmcq_u8(vaeseq_u8(x, keys[r]));
        x = veorq_u8(vaeseq_u8(x, keys[kArsRounds - 1]), keys[kArsRounds]);
        vst1q_u8(reinterpret_cast<uint8_t*>(words + 4 * b), x);
    }
}

BlockFill block_fill() { return fill_blocks_arm_aes; }
#else
BlockFill block_fill() { return fill_blocks_portable; }
#endif

void fill_draws_with(BlockFill fill, uint64_t key, uint64_t first, uint32_t* draws, size_t count) {
    if (count == 0) return;
    const ArsRoundKeys k = ars_round_keys(key);
    // whole blocks straight into `draws`, partial ones at either end through a buffer
    alignas(16) uint32_t buffer[4];
    size_t done = 0;
    while (done < count) {
        const uint64_t element = first + done;
        const uint64_t block = element / 4;
        const size_t skip = static_cast<size_t>(element % 4);
        if (skip == 0 && count - done >= 4) {
            const size_t blocks = (count - done) / 4;
            fill(k, block, draws + done, blocks);
            done += 4 * blocks;
            continue;
        }
        fill(k, block, buffer, 1);
        for (size_t w = skip; w < 4 && done < count; w++) draws[done++] = buffer[w];
    }
}

}  // namespace

void fill_draws32(uint64_t key, uint64_t first, uint32_t* draws, size_t count) {
    fill_draws_with(block_fill(), key, first, draws, count);
}

void fill_draws32_portable(uint64_t key, uint64_t first, uint32_t* draws, size_t count) {
    fill_draws_with(fill_blocks_portable, key, first, draws, count);
}

}  // namespace minifloat
