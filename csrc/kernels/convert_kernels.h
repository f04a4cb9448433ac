// Bulk conversions between minifloat codes and binary32/binary64 arrays, on
// contiguous buffers. Cast loops, ufuncs and mf.cast call these; strided
// data is staged through small contiguous buffers first.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fast_encoder_constants.h"
#include "format.h"
#include "rounding.h"

namespace minifloat {

class ByteTableSource;  // byte_table_encoder.h

// Everything an encoder needs about the target, as plain integers (the
// kernels copy these into locals so the compiler can vectorize).
struct EncodePlan {
    KernelKind kind = KernelKind::general;
    bool exponent_only = false;   // kind e8m0: float8_e8m0fnu has its own kernels
    // kind sign_magnitude: the hand-written SIMD kernels and the fast
    // round-to-nearest path serve it (the portable kernel serves every kind)
    bool hand_kernels = false;
    // kind general, one byte: the AVX-512 encoder (codec_avx512.h) models
    // these layouts too (unsigned, no mantissa bit, a list of NaN codes, no
    // zero, normals below float32's), for every deterministic mode; without
    // AVX-512 the byte table (float32) and the portable kernel serve them
    bool avx512_layouts = false;
    bool avx512_layouts_float64 = false;  // ... and from float64 too
    // float32 sources go through float64 (a format whose normal range starts
    // below float32's: the float32 kernels cannot place a float32 subnormal)
    bool widen_float32 = false;
    int storage_bytes = 1;
    uint32_t mantissa_bits = 0;
    int32_t min_normal_exponent = 0;
    int32_t bias = 0;
    uint32_t max_magnitude = 0;
    uint32_t sign_bit = 0;
    uint32_t nan_positive = 0, nan_negative = 0;
    uint32_t inf_positive = 0, inf_negative = 0;
    uint32_t overflow_positive = 0, overflow_negative = 0;
    uint32_t max_positive = 0, max_negative = 0;
    uint32_t nan_flags = 0, inf_flags = 0, overflow_flags = 0;
    bool zero_drops_sign = false;
    // Layout facts for the portable kernel (see encode_one).
    bool is_signed = true;
    bool has_zero = true;
    bool has_subnormals = true;
    uint32_t invalid_code = 0;
    // Magnitudes (source bits without sign) from which round-to-nearest
    // overflows or the input is inf/NaN; below them the fast path applies.
    uint32_t f32_special_from = 0;
    uint64_t f64_special_from = 0;
    // The fast encoders' constants for float32 and float64 sources (the
    // hand-written kernels take the float32 ones), derived once with the plan.
    FastConstants<uint32_t, float> fast32{};
    FastConstants<uint64_t, double> fast64{};
    // The AVX2 float64 encoder's, for float64 upper halves (see
    // DoubleHighWordTraits in convert_kernels.cpp), when they apply.
    FastConstants<uint32_t, float> fast64_high{};
    bool fast64_high_usable = false;
    // kind general, one byte: float32 sources by one table lookup per value
    // (byte_table_encoder.h), made on the first cast; kept for the process
    ByteTableSource* byte_table = nullptr;
    // The stochastic kernels (stochastic_rounding.h) model the format: the
    // sign-magnitude kind, float8_e8m0fnu, sign-magnitude layouts without a
    // mantissa bit (binary8p1s*: stochastic rounding has no ties, which kept
    // them from the nearest-even kernels) and unsigned layouts with a zero
    // (their negative values are redone exactly).
    bool stochastic_kernels = false;
    bool stochastic_widen_float32 = false;  // ... from float32 through float64
    // unsigned, one byte, no mantissa bit, with zero (binary8p1u*): the
    // AVX-512 kernel from float32 rounds by the exponent, float8_e8m0fnu's
    // rule moved by the bias, without the widening
    bool stochastic_powers_of_two = false;
};

EncodePlan make_encode_plan(const Format& f, const SpecialCodes& s);

// Round-to-nearest-even (the default cast); return the FpFlag bits raised.
uint32_t encode_f32(const EncodePlan& plan, const float* in, void* out, size_t n);
uint32_t encode_f64(const EncodePlan& plan, const double* in, void* out, size_t n);
// bfloat16 codes (the upper halves of float32 bit patterns) as the source.
uint32_t encode_bf16_bits(const EncodePlan& plan, const uint16_t* in, void* out, size_t n);
// encode_f32 into a 4- or 6-bit format's codes packed as mf.pack packs them
// (pack_kernels.h), in one pass where the AVX-512 encoder serves the plan
// (then adds the FP flags raised to `flags`); false, writing nothing,
// elsewhere: the caller encodes and packs in two steps.
bool encode_f32_packed(const EncodePlan& plan, const float* in, size_t n, int bits, uint8_t* packed, uint32_t& flags);

// Any rounding mode. `random` holds one uint64 draw per element and is only
// read for Rounding::stochastic: an element rounds up iff its draw is below
// floor(fraction * 2^64), fraction being the exact distance to the lower
// neighbour over the gap.
uint32_t encode_f32_rounding(const EncodePlan& plan, Rounding mode, const float* in,
                             const uint64_t* random, void* out, size_t n);
uint32_t encode_f64_rounding(const EncodePlan& plan, Rounding mode, const double* in,
                             const uint64_t* random, void* out, size_t n);

// How a format's codes become float32 values.
enum class DecodeKind : uint8_t {
    float32_upper_half,  // bfloat16: a shift
    e8m0,                // 2^(code - 127): a shift, with 0 and 0xFF apart
    sign_magnitude,      // arithmetic (decode_one): subnormal layout, every value a normal float32 or zero
    table,               // anything else: the exact values, looked up
};

// Decoding: per-format constants for the arithmetic decoder.
struct DecodePlan {
    DecodeKind kind = DecodeKind::table;
    bool exponent_only = false;    // kind e8m0 (the AVX2 kernels' template switch)
    const uint32_t* table = nullptr;  // kind table: float32 bits of every code
    int storage_bytes = 1;
    uint32_t code_mask = 0;
    uint32_t sign_bit = 0;
    uint32_t sign_shift = 0;       // moves the sign bit to bit 31
    uint32_t magnitude_mask = 0;
    uint32_t mantissa_bits = 0;
    uint32_t exponent_rebias = 0;  // (127 - bias) << 23
    float subnormal_scale = 0;     // 2^(emin - M)
    uint32_t subnormal_below = 0;  // magnitudes below this are subnormal (1 << M; without them 0)
    // kind table: the AVX2 decoder's arithmetic (codec_avx2_vectors.h,
    // decode8), with values below float32's normals scaled into them
    // (deep_values), gives every code's exact value: checked on this CPU
    // when the plan is made (else it gathers from the table)
    bool avx2_arithmetic = false;
    bool deep_values = false;
    uint32_t deep_below = 0;  // magnitudes below this have values below 2^-126 (zero included)
    uint32_t nan_magnitude_from = 0xFFFFFFFFu;  // magnitudes >= this are NaN
    uint32_t nan_code = 0xFFFFFFFFu;            // this exact code is NaN
    uint32_t inf_magnitude = 0xFFFFFFFFu;
    // 8-bit formats whose float32 values have zero low halves (all of them
    // here): the two upper bytes per code, for the byte-permute decoder.
    bool has_byte_tables = false;
    // else (values below float32's normals): the lower two bytes too, for
    // the decoding casts (byte0, byte1)
    bool has_low_byte_tables = false;
    uint8_t byte0[256] = {};
    uint8_t byte1[256] = {};
    uint8_t byte2[256] = {};
    uint8_t byte3[256] = {};
};

// `exact_bits` (float32 bits of every code, exact) is used for the table
// kind and the byte tables; it must outlive the plan.
DecodePlan make_decode_plan(const Format& f, const uint32_t* exact_bits);

void decode_to_f32(const DecodePlan& plan, const void* in, float* out, size_t n);
void decode_to_f64(const DecodePlan& plan, const void* in, double* out, size_t n);

}  // namespace minifloat
