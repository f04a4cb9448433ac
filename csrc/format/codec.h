// Exact one-value conversions between a format's codes and binary64. These
// are the reference the bulk kernels must agree with, and they serve every
// source that is not a plain float32/float64 array (Python ints and strings,
// int64, long double): the caller passes the source rounded to double plus
// the sign of what that rounding dropped, so the result is rounded once.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "format.h"
#include "rounding.h"

namespace minifloat {

struct Encoded {
    uint32_t code;
    uint32_t flags;
};

// Value of a code, exactly (every format here fits in binary64).
inline double decode_to_double(const Format& f, uint32_t code) {
    code &= f.code_mask;
    const bool negative = (code & f.sign_bit) != 0;
    if (f.code_is_nan(code)) {
        return negative ? -std::numeric_limits<double>::quiet_NaN()
                        : std::numeric_limits<double>::quiet_NaN();
    }
    if (f.code_is_inf(code)) {
        return negative ? -std::numeric_limits<double>::infinity()
                        : std::numeric_limits<double>::infinity();
    }
    const uint32_t magnitude = code & f.magnitude_mask;
    const uint32_t exponent_field = magnitude >> f.mantissa_bits;
    const uint32_t fraction = magnitude & ((1u << f.mantissa_bits) - 1u);
    double value;
    if (exponent_field == 0 && f.has_subnormals) {
        value = std::ldexp(static_cast<double>(fraction), f.min_normal_exponent - f.mantissa_bits);
    } else {
        value = std::ldexp(static_cast<double>(fraction | (1u << f.mantissa_bits)),
                           static_cast<int>(exponent_field) - f.bias - f.mantissa_bits);
    }
    return negative ? -value : value;
}

namespace detail {

// Whether to add one unit to a truncated magnitude `n`, given the dropped
// fraction (exact, in [0, 1)), the sign of the residual below double
// precision and the rounding mode (already mapped to magnitude direction).
enum class MagnitudeRounding : uint8_t { nearest_even, nearest_away, down, up, stochastic };

inline MagnitudeRounding magnitude_rounding(Rounding mode, bool negative) {
    switch (mode) {
        case Rounding::nearest_even: return MagnitudeRounding::nearest_even;
        case Rounding::nearest_away: return MagnitudeRounding::nearest_away;
        case Rounding::toward_zero: return MagnitudeRounding::down;
        case Rounding::up: return negative ? MagnitudeRounding::down : MagnitudeRounding::up;
        case Rounding::down: return negative ? MagnitudeRounding::up : MagnitudeRounding::down;
        case Rounding::stochastic: return MagnitudeRounding::stochastic;
    }
    return MagnitudeRounding::nearest_even;
}

// Whether a stochastic rounding goes up: the draw is below floor(frac*2^64)
// (frac exact in [0, 1), so the scaled value is exact too).
template <class Real>
inline bool draw_rounds_up(uint64_t random, Real frac) {
    const Real scaled = std::ldexp(frac, 64);  // < 2^64
    return scaled >= 1 && random < static_cast<uint64_t>(scaled);
}

// Rounds q = n + frac (+ residual) to an integer; `random` is the draw of
// stochastic rounding.
template <class Real>
inline Real round_magnitude(Real q, int residual, MagnitudeRounding how, uint64_t random) {
    Real n = std::floor(q);
    const Real frac = q - n;  // exact: q < 2^(M+1)
    switch (how) {
        case MagnitudeRounding::nearest_even:
            if (frac > 0.5 || (frac == 0.5 && (residual > 0 ||
                                               (residual == 0 && std::fmod(n, Real{2}) != 0)))) {
                n += 1;
            }
            break;
        case MagnitudeRounding::nearest_away:
            if (frac > 0.5 || (frac == 0.5 && residual >= 0)) n += 1;
            break;
        case MagnitudeRounding::down:
            if (frac == 0.0 && residual < 0 && n > 0) n -= 1;
            break;
        case MagnitudeRounding::up:
            if (frac > 0.0 || residual > 0) n += 1;
            break;
        case MagnitudeRounding::stochastic:
            if (draw_rounds_up(random, frac)) n += 1;
            break;
    }
    return n;
}

}  // namespace detail

// Rounds `value` (+ a residual of sign `residual` below its last bit) once
// into the format. `random` is only read for stochastic rounding: the value
// rounds away from zero iff it is below floor(fraction * 2^64). Real is
// double, or long double where stochastic rounding needs the exact fraction
// of a wider source (a residual's sign is enough for every other mode).
template <class Real>
inline Encoded encode_from_real(const Format& f, const SpecialCodes& specials, Real value,
                                int residual = 0, Rounding mode = Rounding::nearest_even,
                                uint64_t random = 0) {
    const bool negative = std::signbit(value);
    if (std::isnan(value)) {
        return {negative ? specials.nan_negative : specials.nan_positive, specials.nan_flags};
    }
    if (std::isinf(value)) {
        // -inf into an unsigned format is invalid even when saturating.
        const uint32_t unsigned_negative = negative && !f.is_signed ? kFlagInvalid : 0u;
        return {negative ? specials.inf_negative : specials.inf_positive, specials.inf_flags | unsigned_negative};
    }
    const int magnitude_residual = negative ? -residual : residual;
    const Real magnitude = std::fabs(value);
    const detail::MagnitudeRounding how = detail::magnitude_rounding(mode, negative);
    // Beyond the largest value (by binade, or by rounding into the next):
    // rounded down, the largest value; else the format's overflow code.
    const auto overflow = [&]() -> Encoded {
        if (!f.is_signed && negative) return {specials.invalid_code, kFlagInvalid};
        if (how == detail::MagnitudeRounding::down) {
            return {negative ? specials.max_negative : specials.max_positive, specials.overflow_flags};
        }
        return {negative ? specials.overflow_negative : specials.overflow_positive, specials.overflow_flags};
    };
    if (!f.has_zero && ((negative && !f.is_signed) || (magnitude == 0 && magnitude_residual <= 0))) {
        // Zero (and negative numbers, unsigned) have no encoding
        // (float8_e8m0fnu): NaN.
        return {specials.invalid_code, kFlagInvalid};
    }

    uint32_t code_magnitude;
    if (magnitude == 0) {
        code_magnitude = 0;
        if (magnitude_residual > 0) {
            // A non-zero value too small for binary64: only directed modes see
            // it (without zero: it is below the smallest value, see below).
            if (how == detail::MagnitudeRounding::up || !f.has_zero) code_magnitude = f.smallest_code;
        }
    } else {
        int exponent;
        std::frexp(magnitude, &exponent);
        exponent -= 1;  // magnitude in [2^exponent, 2^(exponent+1))
        if (exponent > f.max_exponent + 1) {
            return overflow();
        }
        int64_t c;
        if (!f.has_subnormals && exponent < f.min_normal_exponent) {
            c = 0;  // below the smallest value of a format without zero: the smallest
        } else {
            const int scale_exponent =
                (exponent < f.min_normal_exponent ? f.min_normal_exponent : exponent) - f.mantissa_bits;
            const Real q = std::ldexp(magnitude, -scale_exponent);  // < 2^(M+1), exact
            const Real n = detail::round_magnitude(q, magnitude_residual, how, random);
            const int64_t units = static_cast<int64_t>(n);
            const int64_t exponent_steps =
                (exponent < f.min_normal_exponent ? 0 : exponent - f.min_normal_exponent);
            c = (exponent_steps << f.mantissa_bits) + units;
            if (!f.has_subnormals) {
                // the zero field is a normal binade: units count its implicit
                // bit, and rounding down from its bottom stays there
                c -= int64_t{1} << f.mantissa_bits;
                if (c < 0) c = 0;
            }
        }
        if (c > static_cast<int64_t>(f.max_magnitude)) {
            return overflow();
        }
        code_magnitude = static_cast<uint32_t>(c);
    }
    if (!f.is_signed && negative) {
        // a negative value of an unsigned format: zero when it rounds there
        if (code_magnitude == 0 && f.has_zero) return {0u, 0u};
        return {specials.invalid_code, kFlagInvalid};
    }
    if (code_magnitude == 0 && specials.zero_drops_sign) return {0u, 0u};
    return {code_magnitude | (negative ? f.sign_bit : 0u), 0u};
}

inline Encoded encode_from_double(const Format& f, const SpecialCodes& specials, double value,
                                  int residual = 0, Rounding mode = Rounding::nearest_even,
                                  uint64_t random = 0) {
    return encode_from_real<double>(f, specials, value, residual, mode, random);
}

// Sign of (exact - approx) for an integer rounded to double.
inline int residual_of_int64(int64_t exact, double approx) {
    if (approx >= 9223372036854775808.0) return -1;  // approx is 2^63 > any int64
    const int64_t back = static_cast<int64_t>(approx);
    return exact > back ? 1 : (exact < back ? -1 : 0);
}
inline int residual_of_uint64(uint64_t exact, double approx) {
    if (approx >= 18446744073709551616.0) return -1;
    const uint64_t back = static_cast<uint64_t>(approx);
    return exact > back ? 1 : (exact < back ? -1 : 0);
}

// Whether every Int is exact in long double (x87 extended: yes; where long
// double is binary64, stochastic rounding of wide integers sees the rounded
// value's fraction).
template <class Int>
constexpr bool exact_in_long_double() {
    return std::numeric_limits<long double>::digits >= std::numeric_limits<Int>::digits;
}

// A 64-bit integer rounded once: through binary64 and the residual of that
// rounding, or exactly through long double for stochastic rounding.
template <class Int>
inline Encoded encode_from_integer(const Format& f, const SpecialCodes& s, Int v, Rounding mode, uint64_t random) {
    if (mode == Rounding::stochastic && exact_in_long_double<Int>()) {
        return encode_from_real<long double>(f, s, static_cast<long double>(v), 0, mode, random);
    }
    const double approx = static_cast<double>(v);
    int residual;
    if constexpr (std::is_signed_v<Int>) {
        residual = residual_of_int64(v, approx);
    } else {
        residual = residual_of_uint64(v, approx);
    }
    return encode_from_double(f, s, approx, residual, mode, random);
}
inline Encoded encode_from_int64(const Format& f, const SpecialCodes& s, int64_t v,
                                 Rounding mode = Rounding::nearest_even, uint64_t random = 0) {
    return encode_from_integer<int64_t>(f, s, v, mode, random);
}
inline Encoded encode_from_uint64(const Format& f, const SpecialCodes& s, uint64_t v,
                                  Rounding mode = Rounding::nearest_even, uint64_t random = 0) {
    return encode_from_integer<uint64_t>(f, s, v, mode, random);
}
inline Encoded encode_from_long_double(const Format& f, const SpecialCodes& s, long double v,
                                       Rounding mode = Rounding::nearest_even,
                                       uint64_t random = 0) {
    if (mode == Rounding::stochastic) {
        // The fraction must be exact; the residual's sign is not enough.
        return encode_from_real<long double>(f, s, v, 0, mode, random);
    }
    double approx = static_cast<double>(v);
    int residual = 0;
    if (std::isfinite(approx)) {
        const long double diff = v - static_cast<long double>(approx);
        residual = diff > 0 ? 1 : (diff < 0 ? -1 : 0);
    } else if (std::isinf(approx) && std::isfinite(v)) {
        // Finite but beyond binary64: stands in as the largest double plus a
        // residual, which every format treats as an overflow.
        approx = std::copysign(std::numeric_limits<double>::max(), approx);
        residual = approx > 0 ? 1 : -1;
    }
    return encode_from_double(f, s, approx, residual, mode, random);
}

}  // namespace minifloat
