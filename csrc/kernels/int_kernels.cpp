// Plain loops the compiler vectorizes, one clone per instruction set
// (MINIFLOAT_SIMD_CLONES); see int_kernels.h.
#include "int_kernels.h"

#include "simd_dispatch.h"

namespace minifloat {

MINIFLOAT_SIMD_CLONES void int_codes_to_int32(const int8_t* src, int32_t* dst, std::ptrdiff_t n) {
    for (std::ptrdiff_t i = 0; i < n; i++) dst[i] = src[i];
}

MINIFLOAT_SIMD_CLONES void uint_codes_to_int32(const uint8_t* src, int32_t* dst, std::ptrdiff_t n) {
    for (std::ptrdiff_t i = 0; i < n; i++) dst[i] = src[i];
}

MINIFLOAT_SIMD_CLONES void int_codes_to_int64(const int8_t* src, int64_t* dst, std::ptrdiff_t n) {
    for (std::ptrdiff_t i = 0; i < n; i++) dst[i] = src[i];
}

MINIFLOAT_SIMD_CLONES void uint_codes_to_int64(const uint8_t* src, int64_t* dst, std::ptrdiff_t n) {
    for (std::ptrdiff_t i = 0; i < n; i++) dst[i] = src[i];
}

MINIFLOAT_SIMD_CLONES void int_codes_to_float32(const int8_t* src, float* dst, std::ptrdiff_t n) {
    for (std::ptrdiff_t i = 0; i < n; i++) dst[i] = static_cast<float>(src[i]);
}

MINIFLOAT_SIMD_CLONES void uint_codes_to_float32(const uint8_t* src, float* dst, std::ptrdiff_t n) {
    for (std::ptrdiff_t i = 0; i < n; i++) dst[i] = static_cast<float>(src[i]);
}

MINIFLOAT_SIMD_CLONES void int32_to_codes(const int32_t* src, uint8_t* dst, std::ptrdiff_t n, unsigned sign,
                                          unsigned mask) {
    for (std::ptrdiff_t i = 0; i < n; i++) dst[i] = static_cast<uint8_t>(((static_cast<unsigned>(src[i]) + sign) & mask) - sign);
}

MINIFLOAT_SIMD_CLONES void int64_to_codes(const int64_t* src, uint8_t* dst, std::ptrdiff_t n, unsigned sign,
                                          unsigned mask) {
    for (std::ptrdiff_t i = 0; i < n; i++) dst[i] = static_cast<uint8_t>(((static_cast<unsigned>(src[i]) + sign) & mask) - sign);
}

// Out-of-range lanes are zeroed before the conversion, so it never sees a
// value it cannot convert.
MINIFLOAT_SIMD_CLONES uint8_t float32_to_codes(const float* src, uint8_t* dst, std::ptrdiff_t n, float below,
                                               float above) {
    uint8_t bad = 0;
    for (std::ptrdiff_t i = 0; i < n; i++) {
        const float x = src[i];
        const bool ok = (x > below) & (x < above);  // NaN: false
        bad |= static_cast<uint8_t>(!ok);
        dst[i] = static_cast<uint8_t>(static_cast<int32_t>(ok ? x : 0.0f));
    }
    return bad;
}

MINIFLOAT_SIMD_CLONES uint8_t float64_to_codes(const double* src, uint8_t* dst, std::ptrdiff_t n, double below,
                                               double above) {
    uint8_t bad = 0;
    for (std::ptrdiff_t i = 0; i < n; i++) {
        const double x = src[i];
        const bool ok = (x > below) & (x < above);
        bad |= static_cast<uint8_t>(!ok);
        dst[i] = static_cast<uint8_t>(static_cast<int32_t>(ok ? x : 0.0));
    }
    return bad;
}

namespace {

MINIFLOAT_KERNEL_INLINE uint8_t wrap_byte(unsigned low_byte, unsigned sign, unsigned mask) {
    return static_cast<uint8_t>(((low_byte + sign) & mask) - sign);
}

}  // namespace

MINIFLOAT_SIMD_CLONES void wrapped_binary(WrappedBinary op, const uint8_t* a, const uint8_t* b, uint8_t* out,
                                          std::ptrdiff_t n, unsigned sign, unsigned mask) {
    // one loop per op, each vectorized on its own
    switch (op) {
        case WrappedBinary::add:
            for (std::ptrdiff_t i = 0; i < n; i++) out[i] = wrap_byte(static_cast<uint8_t>(a[i] + b[i]), sign, mask);
            return;
        case WrappedBinary::subtract:
            for (std::ptrdiff_t i = 0; i < n; i++) out[i] = wrap_byte(static_cast<uint8_t>(a[i] - b[i]), sign, mask);
            return;
        case WrappedBinary::multiply:
            for (std::ptrdiff_t i = 0; i < n; i++) out[i] = wrap_byte(static_cast<uint8_t>(a[i] * b[i]), sign, mask);
            return;
    }
}

MINIFLOAT_SIMD_CLONES void wrapped_unary(WrappedUnary op, const uint8_t* a, uint8_t* out, std::ptrdiff_t n,
                                         unsigned sign, unsigned mask) {
    switch (op) {
        case WrappedUnary::negative:
            for (std::ptrdiff_t i = 0; i < n; i++) out[i] = wrap_byte(static_cast<uint8_t>(-a[i]), sign, mask);
            return;
        case WrappedUnary::absolute:
            for (std::ptrdiff_t i = 0; i < n; i++) {
                const int8_t v = static_cast<int8_t>(a[i]);
                out[i] = wrap_byte(static_cast<uint8_t>(v < 0 ? -v : v), sign, mask);
            }
            return;
        case WrappedUnary::square:
            for (std::ptrdiff_t i = 0; i < n; i++) out[i] = wrap_byte(static_cast<uint8_t>(a[i] * a[i]), sign, mask);
            return;
        case WrappedUnary::invert:
            for (std::ptrdiff_t i = 0; i < n; i++) out[i] = wrap_byte(static_cast<uint8_t>(~a[i]), sign, mask);
            return;
    }
}

}  // namespace minifloat
