// Which of two bit-identical kernels serves contiguous 8-bit + - * / on
// long runs: the fused AVX-512 kernel (decode, combine in float32, encode in
// registers) or lookups in the op's 64K pair table by AVX2 gathers. Which is
// faster depends on the CPU (gathers are cheap on some x86 cores and slow on
// others), so it is measured once per process, on the first long run.
#pragma once

#include <cstddef>

namespace minifloat {

// A run of at least this many elements asks for the measurement (which
// makes one 64K pair table, some milliseconds, once per process); shorter
// runs keep the fused kernel unless the gathers were chosen and the op's
// table exists.
constexpr size_t kPairChoiceMinimum = size_t{1} << 20;

// Whether gathers beat the fused kernel on this CPU (false without both).
// Measured on first call: float8_e4m3fn multiply on 256K random code pairs,
// best of several rounds each. MINIFLOAT_PAIR_KERNEL=fused or =gathers
// skips the measurement.
bool pair_gathers_beat_fused();

// Whether pair_gathers_beat_fused has decided (it then answers at once).
bool pair_choice_made();

}  // namespace minifloat
