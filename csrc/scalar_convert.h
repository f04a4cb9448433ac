// Conversions between single Python objects and codes: exact parsing of any
// Python number or numeric string, and the shortest round-trip decimal text.
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

// Rounds the decimal text `text` (ASCII, Python float syntax) once.
bool code_from_text(const FormatRuntime& rt, const SpecialCodes& specials, PyObject* text,
                    uint32_t* code, uint32_t* flags);

// The shortest decimal that rounds back to `code`, spelled like Python's repr
// of a float ("0.1", "448.0", "6e-05", "nan", "-inf", "-0.0"). New reference.
PyObject* shortest_repr(const FormatRuntime& rt, uint32_t code);

// Same text as a C++ string (used by the string casts, no Python objects).
bool shortest_repr_text(const FormatRuntime& rt, uint32_t code, char* out, size_t out_size);

}  // namespace minifloat
