// Conversions between single Python objects and codes: exact parsing of any
// Python number or numeric string, and the text a scalar prints as.
#pragma once

#include "numpy_api.h"
#include "registry.h"

namespace minifloat {

// Rounds `obj` once into the format. Returns false with a Python exception
// (TypeError/ValueError) set when obj is not a real number or numeric text.
// `random` is the stochastic-rounding draw (see codec.h).
bool code_from_object(const FormatRuntime& rt, const SpecialCodes& specials, PyObject* obj,
                      uint32_t* code, uint32_t* flags, Rounding mode = Rounding::nearest_even,
                      uint64_t random = 0);

// A Python number (float, int or bool) as the weak operand (NEP 50) of a
// comparison with format `rt`: its value rounded into the format, as NumPy's
// float16 does, except where float16 would round it to an infinity (it is
// infinite, or beyond the range) and the format has none: then it is that
// infinity (+-inf) instead of the format's overflow result (NaN or the
// largest value), so `x < 1000` and `x < inf` are True for a float8_e4m3fn
// x as for a float16 one. A NaN is NaN (also in formats without one). `flags` gets the conversion's FP flags (overflow
// for a finite number beyond the range, as float16's cast reports).
bool weak_comparison_operand(const FormatRuntime& rt, PyObject* number, double* value, uint32_t* flags);

// Rounds the decimal text `text` (ASCII, Python float syntax) once.
bool code_from_text(const FormatRuntime& rt, const SpecialCodes& specials, PyObject* text,
                    uint32_t* code, uint32_t* flags);

// Whether the format prints each value exactly (formats of 8 bits or fewer:
// the quantized value is what their users look at) rather than as the
// shortest decimal that reads back in the format (bfloat16, like float16).
bool prints_exact_value(const Format& format);

// str() and repr() of a scalar, and each element of astype(str): for formats
// of 8 bits or fewer the value's float32 shortest repr, as NumPy's str of
// the float32 gives it ("448.0", "0.1015625", "1.7014118e+38"; every such
// value is a float32), else the shortest decimal that reads back to `code`
// ("0.1" for bfloat16's 0.10009765625), laid out by NumPy's rule for
// float16 with the format's precision ("99.5", "1e+02"). Specials: "nan",
// "inf", "-inf", "-0.0". Either way the text reads back to the same code.
// New reference.
PyObject* scalar_repr_object(const FormatRuntime& rt, uint32_t code);

// Same text as a C++ string (used by the string casts, no Python objects).
bool scalar_repr_text(const FormatRuntime& rt, uint32_t code, char* out, size_t out_size);

}  // namespace minifloat
