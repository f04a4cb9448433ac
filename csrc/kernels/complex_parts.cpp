#include "complex_parts.h"

#include <cmath>
#include <cstring>

#include "half_float.h"
#include "simd_dispatch.h"

namespace minifloat {

namespace {

MINIFLOAT_SIMD_CLONES
void bfloat16_to_f32(const uint16_t* in, float* out, size_t n) {
    uint32_t* bits = reinterpret_cast<uint32_t*>(out);
    for (size_t i = 0; i < n; i++) bits[i] = static_cast<uint32_t>(in[i]) << 16;
}

MINIFLOAT_SIMD_CLONES
void widen_f32(const float* in, double* out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = static_cast<double>(in[i]);
}

// A binary64 with a 53-bit significand rounded to odd from `magnitude`.
double odd_rounded(uint64_t magnitude) {
    int width = 64;
    while (width > 0 && ((magnitude >> (width - 1)) & 1u) == 0) width--;
    if (width <= 53) return static_cast<double>(magnitude);
    const int drop = width - 53;
    const uint64_t dropped = magnitude & ((uint64_t{1} << drop) - 1);
    uint64_t kept = magnitude >> drop;
    if (dropped != 0) kept |= 1u;
    return std::ldexp(static_cast<double>(kept), drop);
}

}  // namespace

void decode_parts_f32(const PartCodec& codec, const uint16_t* in, float* out, size_t n) {
    switch (codec.format) {
        case PartFormat::float16: return half_to_float(in, out, n);
        case PartFormat::bfloat16: return bfloat16_to_f32(in, out, n);
    }
}

void decode_parts_f64(const PartCodec& codec, const uint16_t* in, double* out, size_t n) {
    constexpr size_t kChunk = 512;
    float buffer[kChunk];
    for (size_t start = 0; start < n; start += kChunk) {
        const size_t count = n - start < kChunk ? n - start : kChunk;
        decode_parts_f32(codec, in + start, buffer, count);
        widen_f32(buffer, out + start, count);
    }
}

uint32_t encode_parts_f64(const PartCodec& codec, const double* in, uint16_t* out, size_t n) {
    return encode_f64(*codec.plan, in, out, n);
}

uint32_t encode_parts_f32(const PartCodec& codec, const float* in, uint16_t* out, size_t n) {
    return encode_f32(*codec.plan, in, out, n);
}

double int64_for_parts(int64_t v) {
    if (v >= -(int64_t{1} << 53) && v <= (int64_t{1} << 53)) return static_cast<double>(v);
    const uint64_t magnitude = v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    const double d = odd_rounded(magnitude);
    return v < 0 ? -d : d;
}

double uint64_for_parts(uint64_t v) { return odd_rounded(v); }

double long_double_for_parts(long double v) {
    double d = static_cast<double>(v);
    if (std::isnan(v) || static_cast<long double>(d) == v) return d;
    if (std::isinf(d)) d = std::copysign(1.7976931348623157e308, d);  // past binary64: its largest, odd
    // truncate toward zero, then mark the dropped bits in the last place
    if (std::fabs(static_cast<long double>(d)) > std::fabs(v)) d = std::nextafter(d, 0.0);
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    bits |= 1u;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

}  // namespace minifloat
