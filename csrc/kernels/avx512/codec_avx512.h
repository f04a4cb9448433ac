// The AVX-512 codec kernels (kernels/avx512/codec_avx512.cpp): float32,
// float64 and bfloat16 into 8-bit codes with any deterministic rounding mode,
// and float64 -> float32 rounded to odd. Each returns false when the CPU
// cannot run it; the caller then runs the portable kernel.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fast_encoder_constants.h"
#include "rounding.h"

namespace minifloat {

// Encodes a block of float32 (or float64, rounded to odd on the way, see
// below, or bfloat16 codes) into 8-bit codes with any deterministic
// rounding mode when the CPU has AVX-512 (F/BW/VL/VBMI), adding the FP flags
// raised (float8_e8m0fnu: only blocks of positive normal values below
// overflow). Returns false, leaving `out` unspecified, when it did not
// handle the block; the caller then runs the general kernel. `k` holds the
// float32 constants of the format; `high` (doubles only, may be null) its
// constants for float64 upper halves, with which doubles are encoded from
// their upper halves instead (see upper_half_vectors).
// Source is float, double or uint16_t (bfloat16 codes), the instantiations.
template <class Source>
bool encode_u8_block_avx512(const FastConstants<uint32_t, float>& k, const FastConstants<uint32_t, float>* high,
                            bool exponent_only, Rounding mode, const Source* in, uint8_t* out, size_t n,
                            uint32_t& flags);

// Float32 into the codes of a 4- or 6-bit format (bits), rounded to
// nearest even, packed as mf.pack packs them (pack_kernels.h) in the same
// pass, adding the FP flags raised. Returns false, writing nothing, when
// the CPU lacks AVX-512, bits is another width, or the values before the
// source's first cache line do not fill whole bytes (FP6: a source not
// 16-byte aligned; FP4: not 8-byte); the caller then rounds and packs in
// two steps.
bool encode_f32_packed_avx512(const FastConstants<uint32_t, float>& k, int bits, const float* in, uint8_t* packed,
                              size_t n, uint32_t& flags);

// float64 -> float32 rounded to odd (truncate, then set the last bit when
// anything was dropped; beyond float32's range: the largest float32). A
// later single rounding of the float32 into any format with at most 22
// significand bits and a subnormal step of at least 2^-147 equals the
// rounding of the float64 itself, for every rounding direction. Returns
// false when the CPU lacks AVX-512.
bool round_to_odd_f32_avx512(const double* in, float* out, size_t n);

}  // namespace minifloat
