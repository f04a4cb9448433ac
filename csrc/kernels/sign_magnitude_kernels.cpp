#include "sign_magnitude_kernels.h"

#include "simd_dispatch.h"

namespace minifloat {

namespace {

constexpr uint32_t kNaNKey = 0x10000;

// 0x8000 for both zeros, above it the positive magnitudes, below it the
// negative ones reversed; NaN beyond every number.
MINIFLOAT_KERNEL_INLINE uint32_t order_key(uint32_t code, uint32_t inf_magnitude) {
    const uint32_t magnitude = code & 0x7FFFu;
    const uint32_t key = (code & 0x8000u) ? 0x8000u - magnitude : 0x8000u + magnitude;
    return magnitude > inf_magnitude ? kNaNKey : key;
}

// The same order in 16-bit lanes (twice the lanes of order_key's): -magnitude
// for a negative code, +magnitude for a positive one (both zeros 0), NaN
// told apart by its magnitude.
MINIFLOAT_KERNEL_INLINE int16_t signed_order_key(uint16_t code) {
    const int16_t magnitude = static_cast<int16_t>(code & 0x7FFF);
    return (code & 0x8000) ? static_cast<int16_t>(-magnitude) : magnitude;
}

template <KeyComparison Op>
MINIFLOAT_KERNEL_INLINE void compare_loop(uint32_t inf_magnitude, const uint16_t* __restrict a,
                                          const uint16_t* __restrict b, uint8_t* __restrict out, size_t n) {
    const uint16_t inf16 = static_cast<uint16_t>(inf_magnitude);
    for (size_t i = 0; i < n; i++) {
        const int16_t ka = signed_order_key(a[i]), kb = signed_order_key(b[i]);
        const bool ordered = (static_cast<uint16_t>(a[i] & 0x7FFF) <= inf16) &
                             (static_cast<uint16_t>(b[i] & 0x7FFF) <= inf16);
        bool r;
        if constexpr (Op == KeyComparison::equal) r = ordered & (ka == kb);
        if constexpr (Op == KeyComparison::not_equal) r = !(ordered & (ka == kb));
        if constexpr (Op == KeyComparison::less) r = ordered & (ka < kb);
        if constexpr (Op == KeyComparison::less_equal) r = ordered & (ka <= kb);
        if constexpr (Op == KeyComparison::greater) r = ordered & (ka > kb);
        if constexpr (Op == KeyComparison::greater_equal) r = ordered & (ka >= kb);
        out[i] = r;
    }
}

template <KeySelection Op>
MINIFLOAT_KERNEL_INLINE void select_loop(uint32_t inf_magnitude, const uint16_t* __restrict a,
                                         const uint16_t* __restrict b, uint16_t* __restrict out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const uint32_t ka = order_key(a[i], inf_magnitude), kb = order_key(b[i], inf_magnitude);
        out[i] = first_is_selected(Op, ka, kb, kNaNKey) ? a[i] : b[i];
    }
}

}  // namespace

MINIFLOAT_SIMD_CLONES
void compare_sign_magnitude16(KeyComparison op, uint16_t inf_magnitude, const uint16_t* a, const uint16_t* b,
                              uint8_t* out, size_t n) {
    switch (op) {
        case KeyComparison::equal: return compare_loop<KeyComparison::equal>(inf_magnitude, a, b, out, n);
        case KeyComparison::not_equal: return compare_loop<KeyComparison::not_equal>(inf_magnitude, a, b, out, n);
        case KeyComparison::less: return compare_loop<KeyComparison::less>(inf_magnitude, a, b, out, n);
        case KeyComparison::less_equal: return compare_loop<KeyComparison::less_equal>(inf_magnitude, a, b, out, n);
        case KeyComparison::greater: return compare_loop<KeyComparison::greater>(inf_magnitude, a, b, out, n);
        case KeyComparison::greater_equal:
            return compare_loop<KeyComparison::greater_equal>(inf_magnitude, a, b, out, n);
    }
}

MINIFLOAT_SIMD_CLONES
void select_sign_magnitude16(KeySelection op, uint16_t inf_magnitude, const uint16_t* a, const uint16_t* b,
                             uint16_t* out, size_t n) {
    switch (op) {
        case KeySelection::maximum: return select_loop<KeySelection::maximum>(inf_magnitude, a, b, out, n);
        case KeySelection::minimum: return select_loop<KeySelection::minimum>(inf_magnitude, a, b, out, n);
        case KeySelection::fmax: return select_loop<KeySelection::fmax>(inf_magnitude, a, b, out, n);
        case KeySelection::fmin: return select_loop<KeySelection::fmin>(inf_magnitude, a, b, out, n);
    }
}

}  // namespace minifloat
