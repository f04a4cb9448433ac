// The intrinsics of the hand-written AVX-512 kernels; include only under
// MINIFLOAT_HAVE_X86_KERNELS (simd_dispatch.h). GCC 12 warns about its
// own intrinsics' "undefined" pass-through operands; those warnings are off
// in the files that include this.
#pragma once

#include <immintrin.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
