// Decoding contiguous runs of codes of any format into float32/float64.
#pragma once

#include <cstddef>
#include <cmath>
#include <cstdint>
#include <limits>

#include "convert_kernels.h"
#include "registry.h"
#include "simd_dispatch.h"

namespace minifloat {

inline void decode_codes_to_f32(const FormatRuntime& rt, const void* in, float* out, size_t n) {
    decode_to_f32(rt.decode_plan, in, out, n);
}

inline void decode_codes_to_f64(const FormatRuntime& rt, const void* in, double* out, size_t n) {
    decode_to_f64(rt.decode_plan, in, out, n);
}

// A float32 sum or product that overflowed to inf in a format without inf
// is an overflow (NaN or max, with the overflow flag), not an inf input.
// A NaN result is the positive quiet NaN, which rounds to the format's
// canonical NaN: which NaN float32 arithmetic passes on depends on operand
// order, which the compilers choose differently for each kernel set.
inline double accumulated_value(const FormatRuntime& rt, float value) {
    if (std::isnan(value)) return std::numeric_limits<double>::quiet_NaN();
    if (!rt.format.has_inf && std::isinf(value)) return std::copysign(std::numeric_limits<double>::max(), value);
    return value;
}
// The same for a float32 sum that the float32 kernels round (FLT_MAX
// overflows every format, as DBL_MAX would), branch-free so that a run of
// them vectorizes (settle_sums, matrix_product.h).
MINIFLOAT_KERNEL_INLINE float accumulated_value_f32(float value, bool format_has_inf) {
    const float finite = !format_has_inf && std::fabs(value) == std::numeric_limits<float>::infinity()
                             ? std::copysign(std::numeric_limits<float>::max(), value)
                             : value;
    return value != value ? std::numeric_limits<float>::quiet_NaN() : finite;
}

inline uint32_t load_code(const FormatRuntime& rt, const char* p) {
    if (rt.format.storage_bytes == 1) return static_cast<uint8_t>(*p) & rt.format.code_mask;
    uint16_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

inline void store_code(const FormatRuntime& rt, char* p, uint32_t code) {
    if (rt.format.storage_bytes == 1) {
        *p = static_cast<char>(code);
    } else {
        const uint16_t v = static_cast<uint16_t>(code);
        std::memcpy(p, &v, sizeof v);
    }
}

}  // namespace minifloat
