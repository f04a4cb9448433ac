// float32 sources widened to float64 a block at a time, for encoders that
// take them as float64: formats whose values reach below float32's normals
// (a float32 subnormal would land in their normal range), for the exact
// encoders and the stochastic kernels alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace minifloat {

// encode(block of doubles, its offset within in) for each block; returns
// the flags raised.
template <class EncodeDoubles>
uint32_t encode_widened(const float* in, size_t n, EncodeDoubles&& encode) {
    constexpr size_t kChunk = 1024;
    double widened[kChunk];
    uint32_t flags = 0;
    for (size_t start = 0; start < n; start += kChunk) {
        const size_t count = n - start < kChunk ? n - start : kChunk;
        // exact, NaN payloads and all (a quiet NaN widens quietly)
        uint32_t bits;
        for (size_t i = 0; i < count; i++) {
            std::memcpy(&bits, in + start + i, sizeof bits);
            if ((bits & 0x7FFFFFFFu) > 0x7F800000u) bits |= 0x00400000u;
            float quiet;
            std::memcpy(&quiet, &bits, sizeof quiet);
            widened[i] = static_cast<double>(quiet);
        }
        flags |= encode(widened, start, count);
    }
    return flags;
}

}  // namespace minifloat
