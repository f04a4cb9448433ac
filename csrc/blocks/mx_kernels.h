// The row kernels of block quantization: per block, the largest magnitude,
// the shared scale, and the elements rounded once (see python/minifloat/mx.py
// for the rules). Pure computation on contiguous float32 rows; the Python
// binding lives in mx_quantize.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "convert_kernels.h"
#include "registry.h"

namespace minifloat {

// float4_e2m1fn's rounding boundaries in units of the block scale: the
// midpoints between its magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6; a tie goes up
// at the odd positions (0.75, 1.75, 3.5: the upper code is even). One
// table for the scalar, AVX2 and AVX-512 element kernels; lane 7 pads a
// vector of 8.
inline constexpr float kFp4Midpoints[8] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f, 0.0f};

enum class ScaleMode { floor, ceil, even, rceil };

struct MxElement {
    int emax;               // exponent of the largest power of two the element holds
    uint32_t max_bits;      // float32 bits of the largest element magnitude
    int significand_bits;   // mantissa bits + 1 (MXINT8: 7)
    const EncodePlan* plan; // saturating plan of the element format; nullptr: MXINT8
    uint8_t nan_fill;       // element code written into NaN/inf blocks
};

// The largest scaled element magnitude, in the encoder's units (MXINT8
// counts 2^-6 steps). The scaling clamps to it: under round-to-nearest with
// saturation every larger magnitude encodes as the maximum anyway, and the
// encoder's slow path for overflowing lanes (a quarter of floor-mode blocks
// hold one) is never taken.
inline float element_limit(const MxElement& e) {
    float max_element;
    std::memcpy(&max_element, &e.max_bits, sizeof max_element);
    return e.plan == nullptr ? max_element * 64.0f : max_element;
}

// The shared exponent of a block whose largest magnitude has the float32
// bits `amax_bits` (finite, non-zero), clamped to [-127, 127].
int shared_exponent(uint32_t amax_bits, const MxElement& e, ScaleMode mode);

// One row of `cols` values, blocks of `block` along it: writes the element
// codes (int8 values for MXINT8) and one float8_e8m0fnu scale code per block.
void mx_quantize_row(const float* row, size_t cols, size_t block, const MxElement& e, ScaleMode mode,
                     uint8_t* elements, uint8_t* scales);

// NVFP4: float8_e4m3fn scale s = amax / (6 t) per block, float4_e2m1fn
// elements V / (s t), both rounded once with saturation.
// `scale` is float8_e4m3fn's runtime.
struct Nvfp4Scales {
    double tensor_scale;
    // s t for each scale code (0 for NaN: a block with nothing to keep),
    // made once per call: the elements' boundaries m s t are exact (s t has
    // at most 4 + 24 significant bits, a double holds the products, and
    // without a tensor scale float32 does)
    double block_scale_of[256];
};
Nvfp4Scales nvfp4_scales(const FormatRuntime& scale, double tensor_scale);
void nvfp4_quantize_row(const float* row, size_t cols, size_t block, const Nvfp4Scales& scaling,
                        const FormatRuntime& scale, uint8_t* elements, uint8_t* scales);

}  // namespace minifloat
