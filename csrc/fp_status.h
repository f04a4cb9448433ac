// Floating-point status that conversions and ufunc loops report. Loops collect
// these bits while they run (cheap, vectorizable) and raise them on the FPU
// once at the end, which is where NumPy looks (np.errstate, warnings).
#pragma once

#include <cfenv>
#include <cstdint>

namespace minifloat {

enum FpFlag : uint32_t {
    kFlagOverflow = 1u,
    kFlagInvalid = 2u,
    kFlagDivideByZero = 4u,
    kFlagUnderflow = 8u,
};

inline void raise_fp_flags(uint32_t flags) {
    if (flags == 0) return;
    int excepts = 0;
    if (flags & kFlagOverflow) excepts |= FE_OVERFLOW;
    if (flags & kFlagInvalid) excepts |= FE_INVALID;
    if (flags & kFlagDivideByZero) excepts |= FE_DIVBYZERO;
    if (flags & kFlagUnderflow) excepts |= FE_UNDERFLOW;
    std::feraiseexcept(excepts);
}

// Rounds to nearest, ties to even, for as long as it lives, then puts the
// caller's rounding direction back (flags are left alone). The library's
// rounding rules (every cast into a format, every exact evaluation of an
// operation) are carried out with FPU arithmetic that assumes this
// direction, so a program that changed it (fesetround) gets the same bits.
class NearestRoundingScope {
public:
    NearestRoundingScope() : saved_(std::fegetround()) {
        if (saved_ != FE_TONEAREST) std::fesetround(FE_TONEAREST);
    }
    ~NearestRoundingScope() {
        if (saved_ != FE_TONEAREST) std::fesetround(saved_);
    }
    NearestRoundingScope(const NearestRoundingScope&) = delete;
    NearestRoundingScope& operator=(const NearestRoundingScope&) = delete;

private:
    int saved_;
};

// Flags the hardware raised since `feclearexcept`, as FpFlag bits.
inline uint32_t hardware_fp_flags() {
    int raised = std::fetestexcept(FE_OVERFLOW | FE_INVALID | FE_DIVBYZERO | FE_UNDERFLOW);
    uint32_t flags = 0;
    if (raised & FE_OVERFLOW) flags |= kFlagOverflow;
    if (raised & FE_INVALID) flags |= kFlagInvalid;
    if (raised & FE_DIVBYZERO) flags |= kFlagDivideByZero;
    if (raised & FE_UNDERFLOW) flags |= kFlagUnderflow;
    return flags;
}

}  // namespace minifloat
