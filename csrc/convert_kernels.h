// Bulk conversions between minifloat codes and binary32/binary64 arrays, on
// contiguous buffers. Cast loops and ufuncs call these; strided data is
// staged through small contiguous buffers first.
#pragma once

#include <cstddef>
#include <cstdint>

#include "format.h"
#include "rounding.h"

namespace minifloat {

// Constants of the round-to-nearest-even encoder for one IEEE source type,
// precomputed from a Format and its SpecialCodes.
template <class Bits>
struct IeeeEncodeConstants {
    Bits shift = 0;            // source fraction bits minus target fraction bits
    Bits half_minus_one = 0;   // rounding increment below a tie
    Bits rebias = 0;           // exponent bias difference, in target code units
    Bits normal_threshold = 0; // source bits of the target's smallest normal
    Bits subnormal_magic = 0;  // source bits of a value whose ulp is the target's subnormal step
    Bits inf_bits = 0;         // source bits of +inf
    Bits max_magnitude = 0;
    Bits sign_bit = 0;
    Bits nan_positive = 0, nan_negative = 0;
    Bits inf_positive = 0, inf_negative = 0;
    Bits overflow_positive = 0, overflow_negative = 0;
    uint32_t nan_flags = 0, inf_flags = 0, overflow_flags = 0;
    Bits zero_drops_sign = 0;  // 1 for fnuz formats
};

struct EncodePlan {
    bool exponent_only = false;  // float8_e8m0fnu has its own kernel
    int storage_bytes = 1;
    IeeeEncodeConstants<uint32_t> from_f32;
    IeeeEncodeConstants<uint64_t> from_f64;
    // float8_e8m0fnu
    uint32_t e8m0_nan = 0, e8m0_overflow = 0, e8m0_inf = 0;
    uint32_t e8m0_overflow_flags = 0, e8m0_inf_flags = 0;
};

EncodePlan make_encode_plan(const Format& f, const SpecialCodes& s);

// Each returns the FpFlag bits raised by the conversion.
uint32_t encode_f32(const EncodePlan& plan, const float* in, void* out, size_t n);
uint32_t encode_f64(const EncodePlan& plan, const double* in, void* out, size_t n);

// Decoding through per-format tables (8-bit codes) or bit shifts (bfloat16).
void decode_u8_to_f32(const uint32_t* table256, const uint8_t* in, float* out, size_t n);
void decode_u8_to_f64(const double* table256, const uint8_t* in, double* out, size_t n);
void decode_bf16_to_f32(const uint16_t* in, float* out, size_t n);
void decode_bf16_to_f64(const uint16_t* in, double* out, size_t n);

// Code-to-code conversion through a 256-entry table; returns raised flags.
uint32_t translate_u8(const uint16_t* table256, const uint8_t* in, uint8_t* out, size_t n);
uint32_t translate_u8_to_u16(const uint32_t* table256, const uint8_t* in, uint16_t* out, size_t n);

}  // namespace minifloat
