// Rounding modes and the overflow policy of a conversion into a format.
#pragma once

#include <cstdint>
#include <type_traits>

#include "format.h"
#include "fp_status.h"

namespace minifloat {

enum class Rounding : uint8_t {
    nearest_even,   // IEEE default; float8_e8m0fnu: ties go to the larger power of two
    nearest_away,   // ties away from zero
    toward_zero,
    up,             // toward +inf
    down,           // toward -inf
    stochastic,     // up with probability (x - lower) / (upper - lower)
};

// Calls visit(std::integral_constant<Rounding, M>{}) for the run-time mode
// M when it is deterministic, returning what visit returns (the
// hand-written kernels take the mode as a compile-time constant); false for
// stochastic rounding, which they do not do.
template <class Visit>
inline bool with_deterministic_mode(Rounding mode, Visit&& visit) {
    switch (mode) {
        case Rounding::nearest_even: return visit(std::integral_constant<Rounding, Rounding::nearest_even>{});
        case Rounding::nearest_away: return visit(std::integral_constant<Rounding, Rounding::nearest_away>{});
        case Rounding::toward_zero: return visit(std::integral_constant<Rounding, Rounding::toward_zero>{});
        case Rounding::up: return visit(std::integral_constant<Rounding, Rounding::up>{});
        case Rounding::down: return visit(std::integral_constant<Rounding, Rounding::down>{});
        case Rounding::stochastic: return false;
    }
    return false;
}

// What a conversion writes for the inputs the format cannot hold: NaN, +-inf
// and finite values beyond its range (and, for unsigned formats, negative
// values; for formats without zero, zero). Built from a Format; saturating
// casts only differ in these constants, so every kernel serves both.
struct SpecialCodes {
    uint32_t nan_positive = 0, nan_negative = 0;
    uint32_t inf_positive = 0, inf_negative = 0;
    uint32_t overflow_positive = 0, overflow_negative = 0;
    uint32_t max_positive = 0, max_negative = 0;
    uint32_t nan_flags = 0, inf_flags = 0, overflow_flags = 0;
    // Unsigned formats: a negative value that does not round to zero (or
    // any negative value or zero, without zero) is invalid: NaN, else 0.
    uint32_t invalid_code = 0;
    bool zero_drops_sign = false;   // formats without -0 turn -0 into +0
    bool saturate = false;
};

inline SpecialCodes make_special_codes(const Format& f, bool saturate) {
    SpecialCodes s;
    s.saturate = saturate;
    s.max_positive = f.max_magnitude;
    s.max_negative = f.max_magnitude | f.sign_bit;
    s.zero_drops_sign = f.is_signed && f.has_zero && !f.has_negative_zero;
    s.invalid_code = f.has_nan ? f.nan_code : 0u;
    if (f.has_nan) {
        s.nan_positive = f.nan_code;
        // the NaN of the -0 code has no sign; the others keep the input's
        s.nan_negative = f.nan == NanCodes::negative_zero ? f.nan_code : f.nan_code | f.sign_bit;
    } else {
        // No NaN: ml_dtypes writes the sign-flipped zero (+NaN -> -0,
        // -NaN -> +0); kept so existing data converts bit for bit.
        s.nan_positive = f.sign_bit;
        s.nan_negative = 0;
        s.nan_flags = kFlagInvalid;
    }
    switch (f.overflow) {
        case Overflow::to_infinity:
            s.overflow_positive = f.inf_magnitude;
            s.overflow_negative = f.inf_magnitude | f.sign_bit;
            break;
        case Overflow::to_nan:
            s.overflow_positive = s.nan_positive;
            s.overflow_negative = s.nan_negative;
            break;
        case Overflow::saturate:
            s.overflow_positive = s.max_positive;
            s.overflow_negative = s.max_negative;
            break;
    }
    if (f.has_inf) {
        s.inf_positive = f.inf_magnitude;
        s.inf_negative = f.inf_magnitude | f.sign_bit;
    } else {
        // an infinity the format cannot hold is an invalid overflow
        s.inf_positive = s.overflow_positive;
        s.inf_negative = s.overflow_negative;
        s.inf_flags = kFlagInvalid;
    }
    if (!f.is_signed) s.inf_negative = s.invalid_code;
    s.overflow_flags = kFlagOverflow;
    if (saturate) {
        // ONNX Cast saturate=1 semantics as the issue states them: +-inf and
        // overflow become +-max; NaN stays NaN. No warnings: clamping was asked for.
        s.inf_positive = s.overflow_positive = s.max_positive;
        s.inf_negative = s.overflow_negative = f.is_signed ? s.max_negative : s.max_positive;
        if (!f.is_signed) {
            // unsigned formats have no negative values: -inf stays invalid,
            // and its flag comes from the negative-input rule, not inf_flags.
            s.inf_negative = s.invalid_code;
        }
        s.inf_flags = 0;
        s.overflow_flags = 0;
    }
    return s;
}

}  // namespace minifloat
