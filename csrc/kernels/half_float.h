// IEEE binary16 (NumPy's float16) described as one more table row, so its
// conversions reuse the same codec and kernels as the minifloat formats.
#pragma once

#include <cstddef>
#include <cstdint>

#include "convert_kernels.h"
#include "format.h"

namespace minifloat {

struct HalfFloatCodec {
    Format format;
    EncodePlan plan;                 // float32/float64 -> binary16, round to nearest even
    const uint32_t* float32_bits;    // binary16 code -> float32 bits (all 65536 codes)
};

const HalfFloatCodec& half_float_codec();

inline void half_to_float(const uint16_t* in, float* out, size_t n) {
    const uint32_t* table = half_float_codec().float32_bits;
    uint32_t* bits = reinterpret_cast<uint32_t*>(out);
    for (size_t i = 0; i < n; i++) bits[i] = table[in[i]];
}

// NumPy's casts to float16 report underflow for a result below float16's
// normal range that is inexact (nonzero values that become zero included).
// `values` are the float32 inputs of the binary16 results `halves`; on the
// bits, so signaling NaNs raise nothing. Returns kFlagUnderflow or 0.
uint32_t float16_underflow(const float* values, const uint16_t* halves, size_t n);

}  // namespace minifloat
