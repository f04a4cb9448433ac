#include "complex_arith.h"

#include <algorithm>

#include "complex_arith_avx2.h"
#include "complex_arith_avx512.h"
#include "fp_status.h"
#include "simd_dispatch.h"

namespace minifloat {

MINIFLOAT_SIMD_CLONES
void complex_add_f32(const float* a, const float* b, float* out, size_t n) {
    for (size_t i = 0; i < 2 * n; i++) out[i] = a[i] + b[i];
}

MINIFLOAT_SIMD_CLONES
void complex_subtract_f32(const float* a, const float* b, float* out, size_t n) {
    for (size_t i = 0; i < 2 * n; i++) out[i] = a[i] - b[i];
}

MINIFLOAT_SIMD_CLONES
void complex_multiply_f64(const float* a, const float* b, double* out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const double ar = a[2 * i], ai = a[2 * i + 1], br = b[2 * i], bi = b[2 * i + 1];
        out[2 * i] = ar * br - ai * bi;
        out[2 * i + 1] = ar * bi + ai * br;
    }
}

namespace {

// decoded, computed (in binary64 for *), encoded: the general loop, in blocks
uint32_t arith_parts_by_steps(const PartCodec& codec, ComplexArith op, const uint16_t* a, const uint16_t* b,
                              uint16_t* out, size_t n) {
    constexpr size_t kBlock = 256;
    alignas(64) float x[2 * kBlock], y[2 * kBlock];
    alignas(64) float sum[2 * kBlock];
    alignas(64) double product[2 * kBlock];
    uint32_t flags = 0;
    for (size_t start = 0; start < n; start += kBlock) {
        const size_t count = std::min(kBlock, n - start);
        decode_parts_f32(codec, a + 2 * start, x, 2 * count);
        decode_parts_f32(codec, b + 2 * start, y, 2 * count);
        switch (op) {
            case ComplexArith::add:
                complex_add_f32(x, y, sum, count);
                flags |= encode_parts_f32(codec, sum, out + 2 * start, 2 * count);
                break;
            case ComplexArith::subtract:
                complex_subtract_f32(x, y, sum, count);
                flags |= encode_parts_f32(codec, sum, out + 2 * start, 2 * count);
                break;
            case ComplexArith::multiply:
                complex_multiply_f64(x, y, product, count);
                flags |= encode_parts_f64(codec, product, out + 2 * start, 2 * count);
                break;
        }
    }
    return flags;
}

// the leading elements a hand-written kernel did (false: none serves this CPU)
bool arith_parts_by_hand(const PartCodec& codec, ComplexArith op, const uint16_t* a, const uint16_t* b, uint16_t* out,
                         size_t n, size_t& done, uint32_t& flags) {
    return complex_arith_avx512(op, codec.format, a, b, out, n, done, flags) ||
           complex_arith_avx2(op, codec.format, a, b, out, n, done, flags);
}

}  // namespace

uint32_t complex_arith_parts(const PartCodec& codec, ComplexArith op, const uint16_t* a, const uint16_t* b,
                             uint16_t* out, size_t n) {
    DefaultFpuModeScope default_modes;  // the narrowing to binary32 must not flush to zero
    uint32_t flags = 0;
    size_t done = 0;
    while (done < n) {
        size_t by_hand = 0;
        if (!arith_parts_by_hand(codec, op, a + 2 * done, b + 2 * done, out + 2 * done, n - done, by_hand, flags)) {
            return flags | arith_parts_by_steps(codec, op, a + 2 * done, b + 2 * done, out + 2 * done, n - done);
        }
        done += by_hand;
        // what the kernel left: a block with a NaN result, or the tail
        const size_t rest = std::min<size_t>(8, n - done);
        flags |= arith_parts_by_steps(codec, op, a + 2 * done, b + 2 * done, out + 2 * done, rest);
        done += rest;
    }
    return flags;
}

bool complex32_abs_by_hand(const uint16_t* parts, uint16_t* out, size_t n, size_t& done, uint32_t& flags) {
    DefaultFpuModeScope default_modes;  // (the binary32 rounding must be to nearest, without flushing)
    return complex32_abs_avx512(parts, out, n, done, flags) || complex32_abs_avx2(parts, out, n, done, flags);
}

MINIFLOAT_SIMD_CLONES
void complex_add_scalar_f32(const float* a, const float b[2], float* out, size_t n) {
    const float br = b[0], bi = b[1];
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = a[2 * i] + br;
        out[2 * i + 1] = a[2 * i + 1] + bi;
    }
}

}  // namespace minifloat
