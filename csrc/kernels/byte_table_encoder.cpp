#include "byte_table_encoder.h"

#include <cstring>

#include "codec.h"
#include "simd_dispatch.h"

namespace minifloat {

namespace {

constexpr uint32_t kBucketBits = 16;
constexpr uint32_t kNoNextCode = 1u << kBucketBits;
constexpr uint32_t kFloat32Infinity = 0x7F800000u;

float float_of(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// The exact encoding of the positive float32 with bits u.
Encoded encode_bits(const Format& f, const SpecialCodes& s, uint32_t u) {
    return encode_from_double(f, s, static_cast<double>(float_of(u)));
}

bool is_ordinary(const Format& f, const Encoded& e) {
    return e.flags == 0 && !f.code_is_nan(e.code) && !f.code_is_inf(e.code);
}

void build(const Format& f, const SpecialCodes& s, ByteTableEncoder& t) {
    if (f.storage_bytes != 1 || f.mantissa_bits > 7) return;
    // the first positive |x| whose encoding is not an ordinary code without
    // flags (overflow; with saturation, never below inf)
    uint32_t low = 1, high = kFloat32Infinity;  // encode(low) ordinary, encode(high) not (or inf)
    if (!is_ordinary(f, encode_bits(f, s, low))) return;
    while (high - low > 1) {
        const uint32_t mid = low + (high - low) / 2;
        (is_ordinary(f, encode_bits(f, s, mid)) ? low : high) = mid;
    }
    t.ordinary_below = high;
    if (high < kFloat32Infinity) {
        // every finite value from there overflows alike (RNE is monotonic:
        // the first and the last finite ones say it)
        const Encoded first = encode_bits(f, s, high), last = encode_bits(f, s, kFloat32Infinity - 1);
        const Encoded first_negative = encode_from_double(f, s, -static_cast<double>(float_of(high)));
        const Encoded last_negative = encode_from_double(f, s, -static_cast<double>(float_of(kFloat32Infinity - 1)));
        if (first.code != last.code || first.flags != last.flags) return;
        if (f.is_signed && (first_negative.code != last_negative.code || first_negative.flags != first.flags)) return;
        t.overflow_positive = first.code;
        t.overflow_negative = f.is_signed ? first_negative.code : 0u;
        t.overflow_flags = first.flags;
    }
    const uint32_t buckets = (high + kNoNextCode - 1) >> kBucketBits;
    t.entries.assign(buckets, 0);
    for (uint32_t bucket = 0; bucket < buckets; bucket++) {
        const uint32_t first = bucket << kBucketBits;
        uint32_t last = first + (kNoNextCode - 1);
        if (last >= high) last = high - 1;
        // (u = 0 of a format without zero is special: read the next pattern)
        const uint32_t start_code = encode_bits(f, s, first == 0 && !f.has_zero ? 1 : first).code;
        const uint32_t end_code = encode_bits(f, s, last).code;
        uint32_t next = kNoNextCode;
        if (end_code != start_code) {
            if (end_code != start_code + 1) return;  // two thresholds in a bucket: no table
            uint32_t below = first, at = last;  // the smallest u with end_code
            while (at - below > 1) {
                const uint32_t mid = below + (at - below) / 2;
                (encode_bits(f, s, mid).code == end_code ? at : below) = mid;
            }
            next = at - first;
        }
        t.entries[bucket] = start_code << 17 | next;
    }
    t.sign_bit = f.sign_bit;
    t.code0_keeps_sign = f.has_negative_zero || !f.has_zero;
    t.zero_is_special = !f.has_zero;
    t.negative_is_special = !f.is_signed;
    t.usable = true;
}

}  // namespace

const ByteTableEncoder& ByteTableSource::table() {
    return table_.get([this](ByteTableEncoder& t) { build(format_, specials_, t); });
}

MINIFLOAT_SIMD_CLONES
bool encode_f32_block_by_table(const ByteTableEncoder& table, const float* in, uint8_t* out, size_t n,
                               uint32_t& flags) {
    bool needs_exact = false;
    if (encode_f32_by_table_avx512(table, in, out, n, needs_exact, flags)) return !needs_exact;
    // 32-bit lanes throughout (the lookups vectorize as gathers), then
    // narrowed to bytes in a second loop
    constexpr size_t kLanes = 256;
    alignas(64) uint32_t codes[kLanes];
    const uint32_t* __restrict entries = table.entries.data();
    const uint32_t ordinary_below = table.ordinary_below;
    const uint32_t sign_bit = table.sign_bit;
    const uint32_t code0_keeps_sign = table.code0_keeps_sign ? 1u : 0u;
    const uint32_t zero_is_special = table.zero_is_special ? 1u : 0u;
    const uint32_t negative_is_special = table.negative_is_special ? 1u : 0u;
    const uint32_t overflow_positive = table.overflow_positive, overflow_negative = table.overflow_negative;
    const uint32_t* __restrict bits = reinterpret_cast<const uint32_t*>(in);
    uint32_t special = 0, overflowed = 0;
    for (size_t done = 0; done < n; done += kLanes) {
        const size_t count = n - done < kLanes ? n - done : kLanes;
        for (size_t i = 0; i < count; i++) {
            const uint32_t u = bits[done + i];
            const uint32_t magnitude = u & 0x7FFFFFFFu;
            const uint32_t negative = u >> 31;
            const uint32_t ordinary = static_cast<uint32_t>(magnitude < ordinary_below);
            const uint32_t index = magnitude & (0u - ordinary);  // special lanes read entry 0
            const uint32_t entry = entries[index >> kBucketBits];
            const uint32_t code = (entry >> 17) + static_cast<uint32_t>((index & (kNoNextCode - 1)) >= (entry & 0x1FFFFu));
            const uint32_t signed_lane = negative & (static_cast<uint32_t>(code != 0) | code0_keeps_sign);
            const uint32_t overflow = (ordinary ^ 1u) & static_cast<uint32_t>(magnitude < kFloat32Infinity);
            const uint32_t overflow_code = negative ? overflow_negative : overflow_positive;
            codes[i] = overflow ? overflow_code : code | ((0u - signed_lane) & sign_bit);
            overflowed |= overflow;
            special |= static_cast<uint32_t>(magnitude >= kFloat32Infinity) | (negative & negative_is_special) |
                       (static_cast<uint32_t>(magnitude == 0) & zero_is_special);
        }
        for (size_t i = 0; i < count; i++) out[done + i] = static_cast<uint8_t>(codes[i]);
    }
    if (overflowed != 0) flags |= table.overflow_flags;
    return special == 0;
}

}  // namespace minifloat
