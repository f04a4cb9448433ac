// The AVX2 8-bit codec kernels, for CPUs without AVX-512 (or with those
// kernels disabled). Each returns false, doing nothing useful, when the CPU
// cannot run them, and the encoders also for a float8_e8m0fnu block holding
// a value outside its positive range (2^-127 to 2^127, as rounded) or an
// unsigned format's block holding a special value: the caller then runs the
// exact portable kernel on that block.
#pragma once

#include <cstddef>
#include <cstdint>

#include "convert_kernels.h"
#include "fast_encoder_constants.h"
#include "rounding.h"

namespace minifloat {

// Whether encode_u8_block_avx2 models `plan`'s format (whatever the CPU):
// the sign_magnitude and e8m0 kinds, and unsigned formats with zero of the
// general kind (whose overflow, inf, NaN and invalid negative values it
// declines: false for that block).
bool encode_u8_avx2_serves(const EncodePlan& plan, bool float64_source);

// float32, float64 (by their upper halves, rounded to odd: see
// DoubleHighWordTraits in convert_kernels.cpp), or bfloat16 codes (Source uint16_t: float32's upper
// halves) into 8-bit codes of `plan`'s format with a deterministic rounding
// mode, adding the FP flags raised. Instantiated for those three sources.
template <class Source>
bool encode_u8_block_avx2(const EncodePlan& plan, Rounding mode, const Source* in, uint8_t* out, size_t n,
                          uint32_t& flags);

// float32 into 16-bit codes (bfloat16), rounding to nearest even.
bool encode_f32_u16_avx2(const FastConstants<uint32_t, float>& k, const float* in, uint16_t* out, size_t n,
                         uint32_t& flags);

// 8-bit codes to float32.
bool decode_u8_to_f32_avx2(const DecodePlan& plan, const uint8_t* in, float* out, size_t n);

// Whether this CPU runs the AVX2 decoder's arithmetic and it decodes every
// code of `plan` (of kind table) to the exact bits of plan.table: sets
// DecodePlan::avx2_arithmetic (whatever the kernel sets enabled now).
bool decode_arithmetic_avx2_exact(const DecodePlan& plan);

}  // namespace minifloat
