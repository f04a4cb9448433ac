// One minifloat operation on codes: decode exactly, compute in binary64,
// round once, and report the FP flags NumPy would report for it. Scalar
// operators use this directly; ufunc loops use it to fill result tables.
#pragma once

#include <algorithm>
#include <cfenv>
#include <limits>

#include "codec.h"
#include "fp_status.h"
#include "math_ops.h"
#include "registry.h"

namespace minifloat {

// Saves and restores the FPU flags around a computation whose own flags are
// collected separately (so a caller's pending flags are never lost), and
// rounds to nearest within it.
class FpFlagScope {
public:
    ~FpFlagScope() { saved_.restore(); }
    uint32_t raised() const { return hardware_fp_flags() & ~uint32_t{kFlagUnderflow}; }
    void clear() const { SavedFpFlags::clear(); }

private:
    DefaultFpuModeScope default_modes_;
    SavedFpFlags saved_;
};

// A binary64 result that underflowed to zero stands for a non-zero value
// too small for binary64: it rounds like the smallest positive double (so
// float8_e8m0fnu gets 2^-127, not the NaN of an exact zero).
inline double keep_underflow_nonzero(double value, bool underflowed) {
    return (value == 0.0 && underflowed) ? std::copysign(std::numeric_limits<double>::denorm_min(), value)
                                         : value;
}

inline Encoded round_result(const FormatRuntime& rt, double value, uint32_t op_flags, int residual = 0) {
    Encoded e = encode_from_double(rt.format, rt.default_specials, value, residual);
    e.flags |= op_flags;
    return e;
}

// Whether the exact value on each side of `value` rounds differently: then
// `value` is a rounding boundary of the format (a midpoint or the overflow
// threshold) and the side the exact result lies on must be known.
inline bool is_rounding_boundary(const FormatRuntime& rt, double value) {
    return std::isfinite(value) &&
           encode_from_double(rt.format, rt.default_specials, value, 1).code !=
               encode_from_double(rt.format, rt.default_specials, value, -1).code;
}

// For functions whose binary64 result may be rounded onto a boundary: the
// sign of (exact - result), from a long double evaluation, or 0 if unknown.
inline int transcendental_residual(BinaryOp op, double a, double b, double result) {
    long double wide;
    switch (op) {
        case BinaryOp::arctan2: wide = std::atan2(static_cast<long double>(a), static_cast<long double>(b)); break;
        case BinaryOp::power:
        case BinaryOp::float_power: wide = std::pow(static_cast<long double>(a), static_cast<long double>(b)); break;
        case BinaryOp::logaddexp: {
            const long double hi = std::max<long double>(a, b), lo = std::min<long double>(a, b);
            wide = hi + std::log1p(std::exp(lo - hi));
            break;
        }
        case BinaryOp::logaddexp2: {
            if (a == b) {
                // exactly a + 1: the error of the binary64 sum decides (TwoSum)
                const double back = result - a;
                const double error = (a - (result - back)) + (1.0 - back);
                return error > 0 ? 1 : (error < 0 ? -1 : 0);
            }
            const long double hi = std::max<long double>(a, b), lo = std::min<long double>(a, b);
            wide = hi + std::log1p(std::exp2(lo - hi)) / static_cast<long double>(M_LN2);
            break;
        }
        default: return 0;
    }
    if (wide > result) return 1;
    if (wide < result) return -1;
    // atan2(y, x) for x > 0 and a tiny quotient is atan(y/x), a little
    // smaller in magnitude than y/x, beyond even long double's precision.
    if (op == BinaryOp::arctan2 && b > 0 && result != 0) return result > 0 ? -1 : 1;
    return 0;
}

// Must be called inside an FpFlagScope (flags are read, not saved).
inline Encoded evaluate_binary(const FormatRuntime& rt, const FpFlagScope& scope, BinaryOp op,
                               uint32_t a, uint32_t b) {
    scope.clear();
    const double x = rt.decode_f64[a], y = rt.decode_f64[b];
    volatile double raw = apply_binary(op, x, y);
    const bool underflowed = std::fetestexcept(FE_UNDERFLOW) != 0;
    const uint32_t flags = scope.raised();
    const double result = keep_underflow_nonzero(raw, underflowed);
    const int residual = is_rounding_boundary(rt, result) ? transcendental_residual(op, x, y, result) : 0;
    return round_result(rt, result, flags, residual);
}

inline Encoded evaluate_unary(const FormatRuntime& rt, const FpFlagScope& scope, UnaryOp op,
                              uint32_t a) {
    scope.clear();
    volatile double raw = apply_unary(op, rt.decode_f64[a]);
    const bool underflowed = std::fetestexcept(FE_UNDERFLOW) != 0;
    const uint32_t flags = scope.raised();
    return round_result(rt, keep_underflow_nonzero(raw, underflowed), flags);
}

}  // namespace minifloat
