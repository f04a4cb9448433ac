// Contiguous bulk conversions of the sub-byte integers' bytes, compiled for
// several instruction sets (simd_dispatch.h): the loops NumPy's int8 runs
// with AVX2/AVX-512, which the baseline build alone cannot match. Counts
// are std::ptrdiff_t (NumPy's npy_intp is Py_ssize_t, the same width).
#pragma once

#include <cstddef>
#include <cstdint>

namespace minifloat {

// Stored bytes (int8 for signed types, uint8 for unsigned) to wider numbers.
void int_codes_to_int32(const int8_t* src, int32_t* dst, std::ptrdiff_t n);
void uint_codes_to_int32(const uint8_t* src, int32_t* dst, std::ptrdiff_t n);
void int_codes_to_float32(const int8_t* src, float* dst, std::ptrdiff_t n);
void uint_codes_to_float32(const uint8_t* src, float* dst, std::ptrdiff_t n);
// (64-bit: sum and prod's accumulator; the bits serve int64 and uint64 alike)
void int_codes_to_int64(const int8_t* src, int64_t* dst, std::ptrdiff_t n);
void uint_codes_to_int64(const uint8_t* src, int64_t* dst, std::ptrdiff_t n);

// Integers to the codes of a type: the low byte wrapped to the width
// (two's complement: bias by `sign`, keep `mask`, unbias; unsigned types
// have sign 0), as NumPy's int32 -> int8 wraps.
void int32_to_codes(const int32_t* src, uint8_t* dst, std::ptrdiff_t n, unsigned sign, unsigned mask);
void int64_to_codes(const int64_t* src, uint8_t* dst, std::ptrdiff_t n, unsigned sign, unsigned mask);

// Floats to codes, truncating: a value is in range when below < x < above
// (min - 1 and max + 1); others (NaN too) give 0. Returns 1 when any was
// out of range (NumPy's "invalid value" warning), else 0.
uint8_t float32_to_codes(const float* src, uint8_t* dst, std::ptrdiff_t n, float below, float above);
uint8_t float64_to_codes(const double* src, uint8_t* dst, std::ptrdiff_t n, double below, double above);

// Element-wise arithmetic on stored bytes, wrapped to the type's width as
// above: results modulo 256 are right modulo 2^bits, so one byte operation
// and the wrap give the type's value. (The baseline build's loops miss
// NumPy's int8 speed on multiply and negative: SSE2 has no byte multiply.)
enum class WrappedBinary : uint8_t { add, subtract, multiply };
// absolute reads a byte as int8: every stored value of these types is in
// -8..15, so the unsigned types' bytes read as themselves.
enum class WrappedUnary : uint8_t { negative, absolute, square, invert };
void wrapped_binary(WrappedBinary op, const uint8_t* a, const uint8_t* b, uint8_t* out, std::ptrdiff_t n,
                    unsigned sign, unsigned mask);
void wrapped_unary(WrappedUnary op, const uint8_t* a, uint8_t* out, std::ptrdiff_t n, unsigned sign,
                   unsigned mask);

}  // namespace minifloat
