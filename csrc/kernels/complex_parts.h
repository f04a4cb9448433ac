// The parts of minifloat's 16-bit complex types (complex32: two float16,
// bcomplex32: two bfloat16, real part first) as plain code arrays: a complex
// array of n elements is a part array of 2n codes, so every conversion here
// works on parts and knows nothing of complex numbers. Decoding is exact;
// encoding rounds each part once, to nearest even (the float formats' own
// encoders, overflow to inf, NaN stays NaN). No NumPy.
#pragma once

#include <cstddef>
#include <cstdint>

#include "convert_kernels.h"

namespace minifloat {

enum class PartFormat : uint8_t { float16, bfloat16 };

struct PartCodec {
    PartFormat format;
    const EncodePlan* plan;  // binary64/binary32 -> the part format, round to nearest even
};

// Parts to binary64 / binary32 (exact; NaN payloads kept).
void decode_parts_f64(const PartCodec& codec, const uint16_t* in, double* out, size_t n);
void decode_parts_f32(const PartCodec& codec, const uint16_t* in, float* out, size_t n);
// binary64 / binary32 to parts; returns the FpFlag bits raised (overflow, invalid).
uint32_t encode_parts_f64(const PartCodec& codec, const double* in, uint16_t* out, size_t n);
uint32_t encode_parts_f32(const PartCodec& codec, const float* in, uint16_t* out, size_t n);

// An integer as the binary64 value that rounds to the same part as the
// integer itself: exact up to 2^53, round-to-odd beyond (a binary64 with 53
// bits rounded to odd, then to 11 or 8 bits, is the integer rounded once).
double int64_for_parts(int64_t v);
double uint64_for_parts(uint64_t v);
// The same for a long double (x87 extended) source.
double long_double_for_parts(long double v);

}  // namespace minifloat
