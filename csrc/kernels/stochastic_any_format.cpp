// Stochastic rounding into formats the stochastic kernels do not model
// (EncodePlan::stochastic_kernels false: formats whose values reach below
// float32's normals, NaN lists, no zero other than float8_e8m0fnu's layout,
// a largest value in the subnormal field), and for negative values of
// unsigned formats: the same draws (counter_random.h) handed to the
// exact any-mode encoders of convert_kernels.cpp, widened to their 64-bit
// compare, so every format follows one bit rule.
#include <cstdint>

#include "counter_random.h"
#include "stochastic_rounding.h"

namespace minifloat {

uint32_t encode_exact_with_draws(const EncodePlan& plan, const void* in, bool float64, const uint32_t* draws,
                                 void* out, size_t n) {
    constexpr size_t kPart = 256;
    uint64_t widened[kPart];
    uint32_t flags = 0;
    const size_t item = static_cast<size_t>(plan.storage_bytes);
    for (size_t start = 0; start < n; start += kPart) {
        const size_t count = n - start < kPart ? n - start : kPart;
        for (size_t i = 0; i < count; i++) widened[i] = widened_draw(draws[start + i]);
        void* codes = static_cast<char*>(out) + start * item;
        if (float64) {
            flags |= encode_f64_rounding(plan, Rounding::stochastic, static_cast<const double*>(in) + start,
                                         widened, codes, count);
        } else {
            flags |= encode_f32_rounding(plan, Rounding::stochastic, static_cast<const float*>(in) + start,
                                         widened, codes, count);
        }
    }
    return flags;
}

uint32_t encode_stochastic_exact(const EncodePlan& plan, uint64_t key, uint64_t first, const void* in,
                                 bool float64, void* out, size_t n) {
    constexpr size_t kChunk = 2048;  // the draws stay in L1
    alignas(64) uint32_t draws[kChunk];
    uint32_t flags = 0;
    const size_t item = float64 ? sizeof(double) : sizeof(float);
    for (size_t start = 0; start < n; start += kChunk) {
        const size_t count = n - start < kChunk ? n - start : kChunk;
        fill_draws32(key, first + start, draws, count);
        flags |= encode_exact_with_draws(plan, static_cast<const char*>(in) + start * item, float64, draws,
                                         static_cast<char*>(out) + start * static_cast<size_t>(plan.storage_bytes),
                                         count);
    }
    return flags;
}

}  // namespace minifloat
