// Table lookups over 8-bit codes: 256-entry byte maps (casts between
// formats, unary ops, predicates, ordering keys) and 64K-entry pair tables
// (binary ops). With AVX-512 VBMI a 256-entry map is two permutes per 64
// codes, with AVX2 sixteen shuffles per 32 (byte_lookup_avx2.h); elsewhere
// a scalar loop.
#pragma once

#include <cstddef>
#include <cstdint>

namespace minifloat {

// out[i] = table[in[i]]
void lookup_bytes(const uint8_t* table256, const uint8_t* in, uint8_t* out, size_t n);

// out[i] = codes[in[i]]; returns the OR of flags[in[i]].
uint32_t lookup_bytes_with_flags(const uint8_t* codes256, const uint8_t* flags256,
                                 const uint8_t* in, uint8_t* out, size_t n);

// out[i] = entry & 0xFFFF for entry = table[in[i]]; returns the OR of entry >> 16.
uint32_t lookup_wide_with_flags(const uint32_t* table256, const uint8_t* in, uint16_t* out, size_t n);

// out[i] = entry & 0xFF for entry = table[a[i] << 8 | b[i]]; returns the OR
// of entry >> 8 (the flags). The table holds kPairTableEntries entries: one
// spare at the end, as the AVX2 kernel's gathers read 32 bits per entry.
constexpr size_t kPairTableEntries = 65536 + 1;
uint32_t lookup_pairs(const uint16_t* table64k, const uint8_t* a, const uint8_t* b, uint8_t* out,
                      size_t n);

// Whether lookup_pairs runs vectorized (AVX2 gathers) on this CPU.
bool pair_lookups_vectorized();

// 8-bit codes to float32 whose low 16 bits are always zero: the result is
// (byte3[code] << 24 | byte2[code] << 16). Returns false (doing nothing)
// when the CPU lacks the byte-permute instructions this is fast with.
bool decode_bytes_to_f32(const uint8_t* byte2_table, const uint8_t* byte3_table, const uint8_t* in,
                         float* out, size_t n);
// The same with all four bytes from tables (byte0 the lowest).
bool decode_four_bytes_to_f32(const uint8_t* byte0_table, const uint8_t* byte1_table, const uint8_t* byte2_table,
                              const uint8_t* byte3_table, const uint8_t* in, float* out, size_t n);

// Comparisons on order keys (NaN has key 255, every other value a smaller
// key, equal values equal keys): out[i] is 0 or 1.
enum class KeyComparison : uint8_t { equal, not_equal, less, less_equal, greater, greater_equal };
struct SignedKeyRule;  // order_avx2.h: the keys by byte arithmetic, for AVX2 (may be null)
void compare_by_keys(KeyComparison op, const uint8_t* keys256, const SignedKeyRule* rule, const uint8_t* a,
                     const uint8_t* b, uint8_t* out, size_t n);

// maximum/minimum/fmax/fmin as a choice between the two input codes by
// order key: NaN (key 255) propagates (maximum/minimum) or loses
// (fmax/fmin); equal keys (+0 and -0) keep the first operand.
enum class KeySelection : uint8_t { maximum, minimum, fmax, fmin };
void select_by_keys(KeySelection op, const uint8_t* keys256, const SignedKeyRule* rule, const uint8_t* a,
                    const uint8_t* b, uint8_t* out, size_t n);

// The same rule on two keys: whether the first operand is chosen.
inline bool first_is_selected(KeySelection op, unsigned ka, unsigned kb, unsigned nan_key) {
    const bool a_nan = ka == nan_key, b_nan = kb == nan_key;
    switch (op) {
        case KeySelection::maximum: return a_nan || (!b_nan && ka >= kb);
        case KeySelection::minimum: return a_nan || (!b_nan && ka <= kb);
        case KeySelection::fmax: return b_nan || (!a_nan && ka >= kb);
        case KeySelection::fmin: return b_nan || (!a_nan && ka <= kb);
    }
    return true;
}

}  // namespace minifloat
