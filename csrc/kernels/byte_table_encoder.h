// Round-to-nearest-even from float32 into any 8-bit format through one
// table lookup per value, for the formats the hand-written kernels do not
// model (KernelKind::general: unsigned formats, formats without a mantissa
// bit, NaN lists, many formats made by mf.float_format), which otherwise
// take the exact per-value encoder (about 16x slower).
//
// The rounding of a positive float32 is monotonic in its bits u, so the
// code is the number of thresholds (the smallest u that rounds to each next
// code) at or below u. Cut u's range into buckets of 2^16 patterns: a
// format of at most 7 mantissa bits has at most one threshold per bucket
// (its codes are at least 2^16 patterns apart in float32, midpoints and
// ties-to-even included; the builder checks it and gives up otherwise). One
// 32-bit entry per bucket holds the code at the bucket's start and where in
// the bucket the next code starts. The entries are made from the exact
// codec (codec.h), once, on the first cast.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "format.h"
#include "once_value.h"
#include "rounding.h"

namespace minifloat {

struct ByteTableEncoder {
    bool usable = false;
    // entry = code << 17 | start of the next code within the bucket
    // (0x10000: none), for bucket u >> 16 of |x|'s bits
    std::vector<uint32_t> entries;
    // |x| bits from which values overflow (the table's end)
    uint32_t ordinary_below = 0;
    // what every finite |x| from there writes (+, -) and raises; the exact
    // encoder takes inf and NaN
    uint32_t overflow_positive = 0, overflow_negative = 0, overflow_flags = 0;
    uint32_t sign_bit = 0;         // of the codes; 0 when unsigned
    // negative values whose magnitude code is 0 keep the sign: formats with
    // -0, and formats without zero (code 0 is their smallest value)
    bool code0_keeps_sign = false;
    bool zero_is_special = false;  // formats without zero: +-0.0 takes the exact encoder
    bool negative_is_special = false;  // unsigned formats: negative inputs take it
};

// What the table is made from, and the table, made on first use.
class ByteTableSource {
public:
    ByteTableSource(const Format& format, const SpecialCodes& specials) : format_(format), specials_(specials) {}
    const ByteTableEncoder& table();

private:
    Format format_;
    SpecialCodes specials_;
    OnceValue<ByteTableEncoder> table_;
};

// The codes of in[0..n) where the table decides them, or-ing the flags
// raised into `flags`; returns false when a value needs the exact encoder
// (inf, NaN, a negative value of an unsigned format, zero without zero),
// whose caller then redoes those `n` values.
bool encode_f32_block_by_table(const ByteTableEncoder& table, const float* in, uint8_t* out, size_t n,
                               uint32_t& flags);

// The same with AVX-512 gathers (kernels/avx512/byte_table_avx512.cpp):
// false when the CPU has none; else `special` says whether a value needs
// the exact encoder.
bool encode_f32_by_table_avx512(const ByteTableEncoder& table, const float* in, uint8_t* out, size_t n,
                                bool& special, uint32_t& flags);

}  // namespace minifloat
