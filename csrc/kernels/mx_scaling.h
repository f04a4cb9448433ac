// The shared scale of MX block quantization: the element format's facts a
// block's scale is made from, the scale rules, and float4_e2m1fn's rounding
// boundaries. Shared by the row kernels (blocks/mx_kernels.cpp) and their
// AVX2 and AVX-512 versions (mx_avx2.cpp, mx_avx512.cpp); see
// python/minifloat/mx.py for the rules.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "bit_scan.h"
#include "convert_kernels.h"
#include "simd_dispatch.h"

namespace minifloat {

// float4_e2m1fn's rounding boundaries in units of the block scale: the
// midpoints between its magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6; a tie goes up
// at the odd positions (0.75, 1.75, 3.5: the upper code is even). One
// table for the scalar, AVX2 and AVX-512 element kernels; lane 7 pads a
// vector of 8.
inline constexpr float kFp4Midpoints[8] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f, 0.0f};

enum class ScaleMode { floor, ceil, even, rceil };

// The blocks of `block` values that hold `count` values (the last may be
// partial): one rule for quantize, dequantize and the matrix products.
constexpr size_t blocks_covering(size_t count, size_t block) { return (count + block - 1) / block; }

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

// exponent and 23-bit normalized fraction of a positive finite float32
struct Binade {
    int exponent;
    uint32_t fraction;
};

inline Binade binade_of(uint32_t bits) {
    constexpr uint32_t kFractionMask = 0x007FFFFFu;
    const uint32_t field = bits >> 23;
    if (field != 0) return {static_cast<int>(field) - 127, bits & kFractionMask};
    const int top = highest_set_bit(bits);  // subnormal: bits * 2^-149
    return {top - 149, (bits << (23 - top)) & kFractionMask};
}

// The shared exponent of a block whose largest magnitude has the float32
// bits `amax_bits` (finite, non-zero), clamped to [-127, 127]. Inlined into
// the scalar row kernel; the vector kernels call shared_exponent for the
// lanes they leave to the scalar rule.
MINIFLOAT_KERNEL_INLINE int shared_exponent_inline(uint32_t amax_bits, const MxElement& e, ScaleMode mode) {
    const Binade a = binade_of(amax_bits);
    int exponent = a.exponent - e.emax;
    switch (mode) {
        case ScaleMode::floor:
            break;
        case ScaleMode::ceil:
            exponent += a.fraction != 0;
            break;
        case ScaleMode::even: {
            // amax rounded (nearest even) to the element's significand may
            // carry into the next binade
            const int dropped = 23 - (e.significand_bits - 1);
            const uint32_t kept = a.fraction >> dropped;
            const uint32_t rest = a.fraction & ((1u << dropped) - 1u);
            const uint32_t half = 1u << (dropped - 1);
            // bitwise, not && / ||: the data decide these block by block, so
            // branches would be mispredicted about half the time
            const uint32_t up = static_cast<uint32_t>(rest > half) | (static_cast<uint32_t>(rest == half) & kept);
            exponent += static_cast<int>(up & static_cast<uint32_t>(kept == (1u << (e.significand_bits - 1)) - 1u));
            break;
        }
        case ScaleMode::rceil: {
            // smallest E with amax <= max_element * 2^E
            const Binade m = binade_of(e.max_bits);
            exponent = a.exponent - m.exponent + (a.fraction > m.fraction);
            break;
        }
    }
    return std::clamp(exponent, -127, 127);
}

int shared_exponent(uint32_t amax_bits, const MxElement& e, ScaleMode mode);

}  // namespace minifloat
