// Run-time SIMD selection for the bulk kernels. On x86-64 with GCC or Clang,
// each marked function is compiled for AVX-512 (x86-64-v4), AVX2+FMA
// (x86-64-v3) and the portable baseline, and the loader picks the best clone
// for the CPU it runs on. The kernels are written as plain loops the compiler
// vectorizes, so every clone computes the same bits. AArch64 has NEON in its
// baseline, so the single default build is already vectorized there.
#pragma once

// (target_clones with x86-64-v3/v4 needs GCC 11 or Clang 14; older
// compilers build the baseline only.)
#if defined(__x86_64__) && !defined(MINIFLOAT_NO_SIMD_CLONES) && defined(__linux__) && \
    ((defined(__clang__) && __clang_major__ >= 14) || (!defined(__clang__) && __GNUC__ >= 11))
#if defined(MINIFLOAT_CLONES_UP_TO_AVX2)
// Measuring what an AVX2-only CPU gets, on a machine that has AVX-512 (with
// MINIFLOAT_DISABLE_AVX512=1 for the hand-written kernels): build with
// CFLAGS=-DMINIFLOAT_CLONES_UP_TO_AVX2.
#define MINIFLOAT_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MINIFLOAT_SIMD_CLONES \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
#else
#define MINIFLOAT_SIMD_CLONES
#endif

// Helpers called from a cloned kernel must be inlined into it: an
// out-of-line helper would be compiled for the baseline ISA only.
#if defined(__GNUC__) || defined(__clang__)
#define MINIFLOAT_KERNEL_INLINE inline __attribute__((always_inline))
#define MINIFLOAT_LAMBDA_INLINE __attribute__((always_inline))  // after a lambda's parameter list
#else
#define MINIFLOAT_KERNEL_INLINE inline
#define MINIFLOAT_LAMBDA_INLINE
#endif

// The hand-written AVX-512 and AVX2 kernels (x86-64 intrinsics with
// per-function target attributes) are built with GCC or Clang on x86-64.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MINIFLOAT_HAVE_X86_KERNELS 1
#endif

namespace minifloat {

// Whether the hand-written AVX-512 kernels may run (when the CPU has them).
// On by default; off when the environment sets MINIFLOAT_DISABLE_AVX512=1,
// or through minifloat._core._set_avx512_kernels (the tests compare the
// portable kernels with them).
bool avx512_kernels_enabled();
void set_avx512_kernels_enabled(bool enabled);

// Whether the CPU has AVX-512 F+BW+VL (resp. also VBMI's byte permutes) and
// the hand-written kernels are enabled: what each AVX-512 kernel asks first.
bool avx512_bw_usable();
bool avx512_vbmi_usable();

// The same for the hand-written AVX2 kernels, which run where the AVX-512
// ones do not (a CPU without AVX-512, or those disabled); off when the
// environment sets MINIFLOAT_DISABLE_AVX2=1, or through
// minifloat._core._set_avx2_kernels.
bool cpu_has_avx512_bw();
bool cpu_has_avx512_vbmi();
bool cpu_has_avx2();
bool avx2_kernels_enabled();
void set_avx2_kernels_enabled(bool enabled);
bool avx2_usable();

}  // namespace minifloat
