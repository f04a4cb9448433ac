// Packed storage of sub-byte codes (mf.pack, mf.unpack, mf.cast(packed=True),
// MXArray.pack): `count` codes of `bits` bits (1..8, one per byte, low bits)
// as one little-endian bitstream, code i at bit i * bits, a partial last
// byte padded with zero bits. FP4: two codes per byte, the first in the low
// nibble; FP6: four codes per three bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace minifloat {

inline size_t packed_byte_count(size_t count, int bits) {
    return (count * static_cast<size_t>(bits) + 7) / 8;
}

// Writes packed_byte_count(count, bits) bytes; the codes' bits above
// `bits` are ignored.
void pack_codes(const uint8_t* codes, size_t count, int bits, uint8_t* out);
// Reads packed_byte_count(count, bits) bytes, writes `count` codes.
void unpack_codes(const uint8_t* packed, size_t count, int bits, uint8_t* codes);

}  // namespace minifloat
