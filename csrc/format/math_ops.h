// The arithmetic of every ufunc and scalar operator, on exact binary64
// values. A minifloat operation decodes its operands exactly, applies one of
// these, and rounds the result once; binary64 holds every intermediate of
// + - * / sqrt exactly enough (53 >= 2p + 2 for p <= 11), and the other
// functions are libm's, which are far more accurate than the formats need.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace minifloat {

template <class Real>
inline auto bits_of(Real value) {
    std::conditional_t<sizeof(Real) == 4, uint32_t, uint64_t> bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

enum class BinaryOp : uint8_t {
    add, subtract, multiply, divide, floor_divide, remainder, fmod, power,
    copysign, arctan2, hypot, logaddexp, logaddexp2, heaviside, maximum, minimum,
    fmax, fmin, float_power,
    count
};

// The step of a float32 sum or product (the reductions' accumulators).
template <BinaryOp Op>
inline float combine(float a, float b) {
    static_assert(Op == BinaryOp::add || Op == BinaryOp::multiply);
    if constexpr (Op == BinaryOp::add) {
        return a + b;
    } else {
        return a * b;
    }
}

enum class UnaryOp : uint8_t {
    negative, positive, absolute, sign, reciprocal, square, sqrt, cbrt, rint, floor, ceil,
    trunc, exp, exp2, expm1, log, log2, log10, log1p, sin, cos, tan, arcsin, arccos,
    arctan, sinh, cosh, tanh, arcsinh, arccosh, arctanh, deg2rad, rad2deg,
    modf_fraction,  // the first output of modf
    count
};

// Python-style floor division and modulo on floats, as NumPy defines them.
inline double floor_divide_value(double a, double b) {
    if (b == 0.0) return a / b;  // NaN for 0 // 0, +-inf (divide by zero) otherwise
    const double mod = std::fmod(a, b);
    double div = (a - mod) / b;
    if (mod != 0.0 && std::isless(b, 0.0) != std::isless(mod, 0.0)) div -= 1.0;
    if (div == 0.0) return std::copysign(0.0, a / b);
    double floordiv = std::floor(div);
    if (std::isgreater(div - floordiv, 0.5)) floordiv += 1.0;
    return floordiv;
}

inline double remainder_value(double a, double b) {
    if (b == 0.0) return std::fmod(a, b);
    double mod = std::fmod(a, b);
    if (mod != 0.0) {
        if (std::isless(b, 0.0) != std::isless(mod, 0.0)) mod += b;
    } else {
        mod = std::copysign(0.0, b);
    }
    return mod;
}

// Which NaN an arithmetic result carries when both operands are NaN is up
// to the instruction the compiler picked (it may swap the operands of a
// commutative add). Fixed here: the first NaN operand, quieted. Integer
// tests and selects, so loops over it vectorize (FP compares would not be
// if-converted under -ftrapping-math).
template <class Real>
inline Real first_nan_or(Real a, Real b, Real result) {
    using Bits = std::conditional_t<sizeof(Real) == 4, uint32_t, uint64_t>;
    using Signed = std::make_signed_t<Bits>;
    constexpr Bits kAbs = ~Bits{0} >> 1;
    constexpr Bits kQuiet = Bits{1} << (std::numeric_limits<Real>::digits - 2);
    // Mask arithmetic, not ?: (which lets the compiler compute `result` only
    // on one branch and so not vectorize without masked instructions);
    // magnitudes compare as signed integers (AVX2 has no unsigned compare).
    const Signed inf = static_cast<Signed>(bits_of(std::numeric_limits<Real>::infinity()));
    const Bits ua = bits_of(a), ub = bits_of(b);
    const Bits a_nan = Bits{0} - static_cast<Bits>(static_cast<Signed>(ua & kAbs) > inf);
    const Bits b_nan = Bits{0} - static_cast<Bits>(static_cast<Signed>(ub & kAbs) > inf);
    Bits out = bits_of(result);
    out = (out & ~b_nan) | ((ub | kQuiet) & b_nan);
    out = (out & ~a_nan) | ((ua | kQuiet) & a_nan);
    Real value;
    std::memcpy(&value, &out, sizeof value);
    return value;
}

inline double logaddexp_value(double a, double b) {
    if (a == b) return a + M_LN2;  // handles infinities of the same sign
    const double d = a - b;
    if (std::isgreater(d, 0.0)) return a + std::log1p(std::exp(-d));
    if (std::islessequal(d, 0.0)) return b + std::log1p(std::exp(d));
    return d;  // NaN
}

inline double logaddexp2_value(double a, double b) {
    if (a == b) return a + 1.0;
    const double d = a - b;
    if (std::isgreater(d, 0.0)) return a + std::log1p(std::exp2(-d)) / M_LN2;
    if (std::islessequal(d, 0.0)) return b + std::log1p(std::exp2(d)) / M_LN2;
    return d;
}

inline double apply_binary(BinaryOp op, double a, double b) {
    switch (op) {
        case BinaryOp::add: return first_nan_or(a, b, a + b);
        case BinaryOp::subtract: return first_nan_or(a, b, a - b);
        case BinaryOp::multiply: return first_nan_or(a, b, a * b);
        case BinaryOp::divide: return first_nan_or(a, b, a / b);
        case BinaryOp::floor_divide: return floor_divide_value(a, b);
        case BinaryOp::remainder: return remainder_value(a, b);
        case BinaryOp::fmod: return std::fmod(a, b);
        case BinaryOp::power:
        case BinaryOp::float_power: return std::pow(a, b);
        case BinaryOp::copysign: return std::copysign(a, b);
        case BinaryOp::arctan2: return std::atan2(a, b);
        case BinaryOp::hypot: return std::hypot(a, b);
        case BinaryOp::logaddexp: return logaddexp_value(a, b);
        case BinaryOp::logaddexp2: return logaddexp2_value(a, b);
        case BinaryOp::heaviside:
            if (std::isnan(a)) return a;
            if (a == 0.0) return b;
            return a < 0 ? 0.0 : 1.0;
        // NumPy's float16 rules: NaN propagates (maximum/minimum) or is
        // skipped (fmax/fmin); between equal values (+0 and -0) the first wins.
        case BinaryOp::maximum:
            if (std::isnan(a)) return a;
            if (std::isnan(b)) return b;
            return a >= b ? a : b;
        case BinaryOp::minimum:
            if (std::isnan(a)) return a;
            if (std::isnan(b)) return b;
            return a <= b ? a : b;
        // Two NaNs: the canonical (positive quiet) NaN, whichever they were.
        case BinaryOp::fmax:
            if (std::isnan(a) && std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
            if (std::isnan(b)) return a;
            if (std::isnan(a)) return b;
            return a >= b ? a : b;
        case BinaryOp::fmin:
            if (std::isnan(a) && std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
            if (std::isnan(b)) return a;
            if (std::isnan(a)) return b;
            return a <= b ? a : b;
        case BinaryOp::count: break;
    }
    return std::nan("");
}

inline double apply_unary(UnaryOp op, double x) {
    switch (op) {
        case UnaryOp::negative: return -x;
        case UnaryOp::positive: return x;
        case UnaryOp::absolute: return std::fabs(x);
        case UnaryOp::sign:  // NumPy: sign(-0.0) is +0.0, sign(NaN) is NaN
            if (std::isnan(x)) return x;
            return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0);
        case UnaryOp::reciprocal: return 1.0 / x;
        case UnaryOp::square: return x * x;
        case UnaryOp::sqrt: return std::sqrt(x);
        case UnaryOp::cbrt: return std::cbrt(x);
        case UnaryOp::rint: return std::nearbyint(x);
        case UnaryOp::floor: return std::floor(x);
        case UnaryOp::ceil: return std::ceil(x);
        case UnaryOp::trunc: return std::trunc(x);
        case UnaryOp::exp: return std::exp(x);
        case UnaryOp::exp2: return std::exp2(x);
        case UnaryOp::expm1: return std::expm1(x);
        case UnaryOp::log: return std::log(x);
        case UnaryOp::log2: return std::log2(x);
        case UnaryOp::log10: return std::log10(x);
        case UnaryOp::log1p: return std::log1p(x);
        case UnaryOp::sin: return std::sin(x);
        case UnaryOp::cos: return std::cos(x);
        case UnaryOp::tan: return std::tan(x);
        case UnaryOp::arcsin: return std::asin(x);
        case UnaryOp::arccos: return std::acos(x);
        case UnaryOp::arctan: return std::atan(x);
        case UnaryOp::sinh: return std::sinh(x);
        case UnaryOp::cosh: return std::cosh(x);
        case UnaryOp::tanh: return std::tanh(x);
        case UnaryOp::arcsinh: return std::asinh(x);
        case UnaryOp::arccosh: return std::acosh(x);
        case UnaryOp::arctanh: return std::atanh(x);
        case UnaryOp::deg2rad: return x * (M_PI / 180.0);
        case UnaryOp::rad2deg: return x * (180.0 / M_PI);
        case UnaryOp::modf_fraction: {
            double whole;
            return std::modf(x, &whole);
        }
        case UnaryOp::count: break;
    }
    return std::nan("");
}

}  // namespace minifloat
