// One minifloat operation on codes: decode exactly, compute in binary64,
// round once, and report the FP flags NumPy would report for it. Scalar
// operators use this directly; ufunc loops use it to fill result tables.
#pragma once

#include <cfenv>

#include "codec.h"
#include "fp_status.h"
#include "math_ops.h"
#include "registry.h"

namespace minifloat {

// Saves and restores the FPU flags around a computation whose own flags are
// collected separately (so a caller's pending flags are never lost).
class FpFlagScope {
public:
    FpFlagScope() {
        std::fegetexceptflag(&saved_, FE_ALL_EXCEPT);
        std::feclearexcept(FE_ALL_EXCEPT);
    }
    ~FpFlagScope() { std::fesetexceptflag(&saved_, FE_ALL_EXCEPT); }
    uint32_t raised() const { return hardware_fp_flags() & ~uint32_t{kFlagUnderflow}; }
    void clear() const { std::feclearexcept(FE_ALL_EXCEPT); }

private:
    std::fexcept_t saved_;
};

inline Encoded round_result(const FormatRuntime& rt, double value, uint32_t op_flags) {
    Encoded e = encode_from_double(rt.format, rt.default_specials, value);
    e.flags |= op_flags;
    return e;
}

// Must be called inside an FpFlagScope (flags are read, not saved).
inline Encoded evaluate_binary(const FormatRuntime& rt, const FpFlagScope& scope, BinaryOp op,
                               uint32_t a, uint32_t b) {
    scope.clear();
    volatile double result = apply_binary(op, rt.decode_f64[a], rt.decode_f64[b]);
    const uint32_t flags = scope.raised();
    return round_result(rt, result, flags);
}

inline Encoded evaluate_unary(const FormatRuntime& rt, const FpFlagScope& scope, UnaryOp op,
                              uint32_t a) {
    scope.clear();
    volatile double result = apply_unary(op, rt.decode_f64[a]);
    const uint32_t flags = scope.raised();
    return round_result(rt, result, flags);
}

}  // namespace minifloat
