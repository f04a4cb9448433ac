// Decoding contiguous runs of codes of any format into float32/float64.
#pragma once

#include <cstddef>
#include <cstdint>

#include "convert_kernels.h"
#include "registry.h"

namespace minifloat {

inline void decode_codes_to_f32(const FormatRuntime& rt, const void* in, float* out, size_t n) {
    decode_to_f32(rt.decode_plan, in, out, n);
}

inline void decode_codes_to_f64(const FormatRuntime& rt, const void* in, double* out, size_t n) {
    decode_to_f64(rt.decode_plan, in, out, n);
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
