#include "exponent_arith.h"

#include "fp_status.h"
#include "simd_dispatch.h"

namespace minifloat {

namespace {

constexpr int16_t kNaN = 255;
constexpr int16_t kMaxCode = 254;
constexpr int16_t kBias = 127;

template <BinaryOp Op>
MINIFLOAT_KERNEL_INLINE uint32_t exponent_loop(const uint8_t* __restrict a, const uint8_t* __restrict b,
                                               uint8_t* __restrict out, size_t n) {
    int16_t overflowed = 0, invalid = 0;  // OR of lane flags, kept vectorizable
    for (size_t i = 0; i < n; i++) {
        const int16_t p = a[i], q = b[i];
        const int16_t nan_in = (p == kNaN) | (q == kNaN);
        int16_t r = 0, no_value = 0;
        if constexpr (Op == BinaryOp::add) {
            const int16_t d = p - q;
            r = (p > q ? p : q) + ((d <= 1) & (d >= -1));
        } else if constexpr (Op == BinaryOp::subtract) {
            r = p - (p - q == 1);
            no_value = p <= q;
        } else if constexpr (Op == BinaryOp::multiply) {
            r = p + q - kBias;
        } else {
            r = p - q + kBias;
        }
        r = r < 0 ? 0 : r;  // below 2^-127: the smallest value
        const int16_t over = r > kMaxCode;
        out[i] = static_cast<uint8_t>((nan_in | no_value | over) ? kNaN : r);
        overflowed |= over & (nan_in ^ 1);
        invalid |= no_value & (nan_in ^ 1);
    }
    return (overflowed ? kFlagOverflow : 0u) | (invalid ? kFlagInvalid : 0u);
}

}  // namespace

MINIFLOAT_SIMD_CLONES
uint32_t exponent_arith(BinaryOp op, const uint8_t* a, const uint8_t* b, uint8_t* out, size_t n) {
    switch (op) {
        case BinaryOp::add: return exponent_loop<BinaryOp::add>(a, b, out, n);
        case BinaryOp::subtract: return exponent_loop<BinaryOp::subtract>(a, b, out, n);
        case BinaryOp::multiply: return exponent_loop<BinaryOp::multiply>(a, b, out, n);
        case BinaryOp::divide: return exponent_loop<BinaryOp::divide>(a, b, out, n);
        default: return 0;
    }
}

}  // namespace minifloat
