// Floating-point status that conversions and ufunc loops report. Loops collect
// these bits while they run (cheap, vectorizable) and raise them on the FPU
// once at the end, which is where NumPy looks (np.errstate, warnings).
#pragma once

#include <cfenv>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)  // GCC/Clang, MSVC
#include <xmmintrin.h>
#define MINIFLOAT_FP_STATUS_X86 1
#else
#define MINIFLOAT_FP_STATUS_X86 0
#endif

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

// The FPU's default modes for as long as it lives: round to nearest, ties
// to even, and on x86 no flush-to-zero or denormals-are-zero (MXCSR FTZ and
// DAZ, which torch.set_flush_denormal and fast-math code set). The caller's
// modes come back at the end; flags are left alone. The library's rounding
// rules (every cast into a format, every exact evaluation of an operation)
// are carried out with FPU arithmetic that assumes these modes, so a
// program that changed them gets the same bits.
class DefaultFpuModeScope {
public:
    DefaultFpuModeScope() {
#if MINIFLOAT_FP_STATUS_X86
        saved_csr_ = _mm_getcsr();  // before fesetround, which rewrites its rounding bits
#endif
        saved_round_ = std::fegetround();
        if (saved_round_ != FE_TONEAREST) std::fesetround(FE_TONEAREST);
#if MINIFLOAT_FP_STATUS_X86
        if ((saved_csr_ & kCsrModes) != 0) _mm_setcsr(_mm_getcsr() & ~kCsrModes);
#endif
    }
    ~DefaultFpuModeScope() {
        if (saved_round_ != FE_TONEAREST) std::fesetround(saved_round_);
#if MINIFLOAT_FP_STATUS_X86
        if ((saved_csr_ & kCsrModes) != 0) _mm_setcsr((_mm_getcsr() & ~kCsrModes) | (saved_csr_ & kCsrModes));
#endif
    }
    DefaultFpuModeScope(const DefaultFpuModeScope&) = delete;
    DefaultFpuModeScope& operator=(const DefaultFpuModeScope&) = delete;

private:
    int saved_round_;
#if MINIFLOAT_FP_STATUS_X86
    static constexpr unsigned kCsrModes = 0x6000u | 0x8000u | 0x0040u;  // rounding control, FTZ, DAZ
    unsigned saved_csr_;
#endif
};

// The exception flags a caller sees (fetestexcept: the x87 status word's
// and MXCSR's, or-ed), saved, cleared, and put back: what
// fegetexceptflag / feclearexcept / fesetexceptflag do, where glibc's
// feclearexcept and fesetexceptflag store and reload the whole x87
// environment (about 40% of a scalar `a + b`). On x86 with GCC or Clang
// MXCSR is read and written directly and the x87 flags cleared by fnclex;
// the flags come back in MXCSR, which fetestexcept (and so NumPy) reads
// or-ed with the x87 ones: the caller sees exactly the invalid, divide,
// overflow and underflow flags it had. Inexact and denormal, which NumPy
// never reports, are left as they are (most arithmetic raises inexact:
// clearing it cost a write of MXCSR, and the read after it a stall, each
// time).
#if MINIFLOAT_FP_STATUS_X86 && defined(__GNUC__)
class SavedFpFlags {
public:
    SavedFpFlags() {
        const unsigned x87 = x87_flags();
        const unsigned csr = _mm_getcsr();
        saved_ = (x87 | csr) & kFlagBits;
        if (csr & kFlagBits) _mm_setcsr(csr & ~kFlagBits);
        if (x87) __asm__ volatile("fnclex");
    }
    static void clear() {
        const unsigned csr = _mm_getcsr();
        if (csr & kFlagBits) _mm_setcsr(csr & ~kFlagBits);
        if (x87_flags()) __asm__ volatile("fnclex");
    }
    void restore() const {
        const unsigned csr = _mm_getcsr();
        if ((csr & kFlagBits) != saved_) _mm_setcsr((csr & ~kFlagBits) | saved_);
        if (x87_flags()) __asm__ volatile("fnclex");
    }

private:
    static constexpr unsigned kFlagBits = 0x1Du;  // invalid, divide, overflow, underflow
    static unsigned x87_flags() {
        unsigned short status;
        __asm__ volatile("fnstsw %0" : "=am"(status));
        return status & kFlagBits;
    }
    unsigned saved_;
};
#else
class SavedFpFlags {
public:
    SavedFpFlags() {
        std::fegetexceptflag(&saved_, FE_ALL_EXCEPT);
        std::feclearexcept(FE_ALL_EXCEPT);
    }
    static void clear() { std::feclearexcept(FE_ALL_EXCEPT); }
    void restore() const { std::fesetexceptflag(&saved_, FE_ALL_EXCEPT); }

private:
    std::fexcept_t saved_;
};
#endif

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
