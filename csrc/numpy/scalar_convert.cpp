#include "scalar_convert.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "codec.h"
#include "format_types.h"
#include "fp_status.h"
#include "scalar_type.h"

namespace minifloat {

namespace {

// The code `approx` rounds to when the exact value is slightly above/below.
bool residual_matters(const FormatRuntime& rt, const SpecialCodes& s, double approx,
                      Rounding mode) {
    if (!std::isfinite(approx)) return false;
    return encode_from_double(rt.format, s, approx, 1, mode).code !=
           encode_from_double(rt.format, s, approx, -1, mode).code;
}

// Sign of (exact - approx) for an object that compares exactly with floats
// (int, Fraction, Decimal). Returns 2 on error.
int exact_residual(PyObject* exact, double approx) {
    PyObject* as_float = PyFloat_FromDouble(approx);
    if (as_float == nullptr) return 2;
    const int greater = PyObject_RichCompareBool(exact, as_float, Py_GT);
    const int less = greater == 0 ? PyObject_RichCompareBool(exact, as_float, Py_LT) : 0;
    Py_DECREF(as_float);
    if (greater < 0 || less < 0) return 2;
    return greater ? 1 : (less ? -1 : 0);
}

PyObject* fraction_from_text(PyObject* text) {
    PyObject* fractions = PyImport_ImportModule("fractions");
    if (fractions == nullptr) return nullptr;
    PyObject* fraction = PyObject_CallMethod(fractions, "Fraction", "O", text);
    Py_DECREF(fractions);
    return fraction;
}

bool finish(const Encoded& e, uint32_t* code, uint32_t* flags) {
    *code = e.code;
    *flags |= e.flags;
    return true;
}

// Rounds a Python int exactly (any size).
bool code_from_int(const FormatRuntime& rt, const SpecialCodes& s, PyObject* value,
                   uint32_t* code, uint32_t* flags, Rounding mode, uint64_t random) {
    int overflow = 0;
    const long long small = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (small == -1 && PyErr_Occurred()) return false;
    if (overflow == 0) {
        return finish(encode_from_int64(rt.format, s, small, mode, random), code, flags);
    }
    double approx = PyLong_AsDouble(value);
    int residual;
    if (approx == -1.0 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return false;
        PyErr_Clear();
        // Beyond binary64: the largest double plus a residual overflows every format.
        approx = std::copysign(std::numeric_limits<double>::max(), overflow);
        residual = overflow;
    } else {
        residual = exact_residual(value, approx);
        if (residual == 2) return false;
    }
    return finish(encode_from_double(rt.format, s, approx, residual, mode, random), code, flags);
}

// Rounds any object with an exact comparison to float and a __float__.
bool code_from_real(const FormatRuntime& rt, const SpecialCodes& s, PyObject* value,
                    uint32_t* code, uint32_t* flags, Rounding mode, uint64_t random) {
    double approx = PyFloat_AsDouble(value);
    if (approx == -1.0 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return false;
        PyErr_Clear();  // Fraction(10**400, 3): finite, beyond binary64
        const int sign = exact_residual(value, 0.0);
        if (sign == 2) return false;
        approx = std::copysign(HUGE_VAL, sign);
    }
    if (std::isinf(approx)) {
        // A finite value beyond binary64 (Decimal('1e400') converts to inf)
        // rounds like the largest double plus a residual, as an int of that
        // size does: overflow, not an infinite input. Objects that do not
        // compare with floats are taken at their __float__.
        int beyond = exact_residual(value, approx);
        if (beyond == 2) {
            PyErr_Clear();
            beyond = 0;
        }
        if (beyond != 0) {
            const double largest = std::copysign(std::numeric_limits<double>::max(), approx);
            return finish(encode_from_double(rt.format, s, largest, approx > 0 ? 1 : -1, mode, random), code, flags);
        }
    }
    int residual = 0;
    if (residual_matters(rt, s, approx, mode)) {
        residual = exact_residual(value, approx);
        if (residual == 2) {
            PyErr_Clear();
            residual = 0;
        }
    }
    return finish(encode_from_double(rt.format, s, approx, residual, mode, random), code, flags);
}

std::string type_name(PyObject* obj) { return Py_TYPE(obj)->tp_name; }

}  // namespace

bool code_from_text(const FormatRuntime& rt, const SpecialCodes& s, PyObject* text,
                    uint32_t* code, uint32_t* flags) {
    DefaultFpuModeScope default_modes;  // parsing and rounding as under the default direction
    PyObject* as_float = PyFloat_FromString(text);
    if (as_float == nullptr) return false;
    const double approx = PyFloat_AS_DOUBLE(as_float);
    Py_DECREF(as_float);
    int residual = 0;
    if (residual_matters(rt, s, approx, Rounding::nearest_even)) {
        // The decimal sits within half a binary64 ulp of a rounding boundary
        // of the format: decide with the exact rational value of the text.
        PyObject* str = PyBytes_Check(text) ? PyUnicode_FromEncodedObject(text, "ascii", "strict")
                                            : (Py_INCREF(text), text);
        PyObject* fraction = str ? fraction_from_text(str) : nullptr;
        Py_XDECREF(str);
        if (fraction == nullptr) {
            PyErr_Clear();
        } else {
            residual = exact_residual(fraction, approx);
            Py_DECREF(fraction);
            if (residual == 2) {
                PyErr_Clear();
                residual = 0;
            }
        }
    }
    return finish(encode_from_double(rt.format, s, approx, residual), code, flags);
}

bool code_from_object(const FormatRuntime& rt, const SpecialCodes& s, PyObject* obj,
                      uint32_t* code, uint32_t* flags, Rounding mode, uint64_t random) {
    const int other = format_index_of_scalar(obj);
    if (other >= 0 && &runtime(other) == &rt && mode == Rounding::nearest_even && !s.saturate) {
        *code = scalar_code(obj);  // (a scalar of the format: its code, no arithmetic)
        return true;
    }
    DefaultFpuModeScope default_modes;
    // obj may be borrowed from a container (an object array, a list) that its
    // own __float__, __index__ or comparisons replace it in: keep it alive.
    Py_INCREF(obj);
    struct Release {
        PyObject* held;
        ~Release() { Py_DECREF(held); }
    } release{obj};
    if (other >= 0) {
        const uint32_t other_code = scalar_code(obj);
        return finish(encode_from_double(rt.format, s, runtime(other).decode_f64[other_code], 0,
                                         mode, random),
                      code, flags);
    }
    if (PyBool_Check(obj)) {
        return finish(encode_from_double(rt.format, s, obj == Py_True ? 1.0 : 0.0, 0, mode, random), code,
                      flags);
    }
    if (PyFloat_Check(obj)) {
        return finish(encode_from_double(rt.format, s, PyFloat_AS_DOUBLE(obj), 0, mode, random), code,
                      flags);
    }
    if (PyLong_Check(obj)) return code_from_int(rt, s, obj, code, flags, mode, random);
    if (PyUnicode_Check(obj) || PyBytes_Check(obj)) {
        if (mode != Rounding::nearest_even) {
            PyObject* as_float = PyFloat_FromString(obj);
            if (as_float == nullptr) return false;
            const bool ok = code_from_real(rt, s, as_float, code, flags, mode, random);
            Py_DECREF(as_float);
            return ok;
        }
        return code_from_text(rt, s, obj, code, flags);
    }
    if (PyArray_IsScalar(obj, Bool)) {
        return finish(encode_from_double(rt.format, s, PyObject_IsTrue(obj) ? 1.0 : 0.0, 0, mode, random),
                      code, flags);
    }
    if (PyArray_IsScalar(obj, Integer)) {
        PyObject* as_int = PyNumber_Index(obj);
        if (as_int == nullptr) return false;
        const bool ok = code_from_int(rt, s, as_int, code, flags, mode, random);
        Py_DECREF(as_int);
        return ok;
    }
    if (PyArray_IsScalar(obj, LongDouble)) {
        const long double v = PyArrayScalar_VAL(obj, LongDouble);
        return finish(encode_from_long_double(rt.format, s, v, mode, random), code, flags);
    }
    if (PyArray_IsScalar(obj, Floating)) {
        // float16/float32 are exact in binary64 (and float64 is a Python float)
        const double v = PyFloat_AsDouble(obj);
        if (v == -1.0 && PyErr_Occurred()) return false;
        return finish(encode_from_double(rt.format, s, v, 0, mode, random), code, flags);
    }
    if (PyComplex_Check(obj) || PyArray_IsScalar(obj, ComplexFloating)) {
        PyErr_Format(PyExc_TypeError, "cannot convert complex value to %s; take .real first",
                     rt.format.row->name);
        return false;
    }
    if (obj == Py_None) {
        // Not NaN, as np.float16 reads it: NumPy hands a converter the NULL
        // slot of an object array an element's __float__ freed as None, and
        // carrying on from it reads freed memory (tests/bad_inputs.py,
        // object_mutates_array: NumPy's float16 crashes there)
        PyErr_Format(PyExc_TypeError,
                     "%s() argument must be a real number or a string, not 'NoneType' (np.nan marks a missing value)",
                     rt.format.row->name);
        return false;
    }
    if (PyArray_Check(obj) && PyArray_NDIM(reinterpret_cast<PyArrayObject*>(obj)) == 0) {
        // Its scalar (not item(), which is a Python float for the formats
        // and would lose a NaN's payload).
        PyArrayObject* array = reinterpret_cast<PyArrayObject*>(obj);
        PyObject* item = PyArray_ToScalar(PyArray_BYTES(array), array);
        if (item == nullptr) return false;
        const bool ok = code_from_object(rt, s, item, code, flags, mode, random);
        Py_DECREF(item);
        return ok;
    }
    if (PyNumber_Check(obj) && !PySequence_Check(obj)) {
        // Fractions, Decimals and other reals: __float__ plus an exact compare.
        return code_from_real(rt, s, obj, code, flags, mode, random);
    }
    PyErr_Format(PyExc_TypeError, "%s() argument must be a real number or a string, not '%s'",
                 rt.format.row->name, type_name(obj).c_str());
    return false;
}

namespace {

// Whether digits * 10^scale is exactly a binary64 value: its odd part (after
// taking out the powers of two in 10^scale) must be an integer below 2^53.
bool decimal_is_binary64(uint64_t digits, int scale) {
    constexpr uint64_t kLimit = uint64_t{1} << 53;
    uint64_t odd_part = digits;
    if (scale >= 0) {
        for (int i = 0; i < scale; i++) {
            if (odd_part >= kLimit) return false;  // checked first: 5 * odd_part stays below 2^56
            odd_part *= 5;
        }
        return odd_part < kLimit;
    }
    for (int i = 0; i < -scale; i++) {
        if (odd_part % 5 != 0) return false;
        odd_part /= 5;
    }
    return odd_part < kLimit;
}

// A positive decimal: significant digits (no leading or trailing zeros) and
// the decimal exponent of the first one.
struct Digits {
    std::string significant;
    int exponent = 0;
};

// float32's shortest round-trip digits of `magnitude` (a float32 value):
// what NumPy's str(np.float32(v)) and repr(np.float32(v)) show.
Digits float32_shortest_digits(float magnitude) {
    // printf's %e rounds correctly and strtof reads back correctly rounded.
    // At each length the nearest decimal comes first, then its neighbours: a
    // power of two's rounding interval is twice as wide above it as below,
    // so a decimal one step above may read back where the nearest does not.
    // (Not std::to_chars: libc++ before LLVM 20 has no floating-point one.)
    for (int precision = 1; precision <= 9; precision++) {
        char text[48];
        std::snprintf(text, sizeof text, "%.*e", precision - 1, static_cast<double>(magnitude));
        std::string digits;
        const char* p = text;
        for (; *p && *p != 'e'; p++) {
            if (*p >= '0' && *p <= '9') digits += *p;  // any locale's decimal point skipped
        }
        const int exponent = std::atoi(p + 1);
        const long long nearest = std::atoll(digits.c_str());
        for (const long long candidate : {nearest, nearest + 1, nearest - 1}) {
            if (candidate <= 0) continue;
            char candidate_text[48];
            std::snprintf(candidate_text, sizeof candidate_text, "%llde%d", candidate,
                          exponent - (precision - 1));
            if (std::strtof(candidate_text, nullptr) != magnitude) continue;
            Digits d;
            d.significant = std::to_string(candidate);
            // 999 + 1 = 1000: one more digit, the exponent of the first moves up
            d.exponent = exponent + static_cast<int>(d.significant.size()) - precision;
            while (d.significant.size() > 1 && d.significant.back() == '0') d.significant.pop_back();
            return d;
        }
    }
    Digits d;  // unreachable: 9 digits always read back for a float32
    d.significant = "0";
    return d;
}

// Fewest significant digits whose decimal rounds back to `code` in the
// format itself, no matter on which side of its binary64 approximation it
// lies. At each length the nearest decimal and its two neighbours are
// candidates: at the bottom of a binade the gap below is half the gap
// above, so the nearest decimal may fail while the one above it still reads
// back.
Digits format_shortest_digits(const FormatRuntime& rt, uint32_t code, double magnitude, bool negative) {
    const auto reads_back = [&](double parsed, bool exact) {
        const double signed_value = negative ? -parsed : parsed;
        // Reading back must not overflow either: a format's max must print
        // as itself, not as a decimal that saturates to it with a warning.
        const Encoded back = encode_from_double(rt.format, rt.default_specials, signed_value, 0);
        if (back.code != code || back.flags != 0) return false;
        // An inexact decimal lies just above or below its binary64 value.
        return exact ||
               (encode_from_double(rt.format, rt.default_specials, signed_value, 1).code == code &&
                encode_from_double(rt.format, rt.default_specials, signed_value, -1).code == code);
    };
    Digits best;
    for (int precision = 1; precision <= 17 && best.significant.empty(); precision++) {
        char nearest[40];
        // printf's %e rounds correctly (as std::to_chars does, which macOS's
        // libc++ lacks for double); the separator may be a locale's comma
        std::snprintf(nearest, sizeof nearest, "%.*e", precision - 1, magnitude);
        uint64_t digits_value = 0;
        const char* p = nearest;
        for (; *p && *p != 'e'; p++) {
            if (*p >= '0' && *p <= '9') digits_value = digits_value * 10 + static_cast<uint64_t>(*p - '0');
        }
        const int scale = std::atoi(p + 1) - (precision - 1);  // value = digits * 10^scale
        double best_distance = INFINITY;
        for (const uint64_t candidate : {digits_value, digits_value - 1, digits_value + 1}) {
            if (candidate == 0) continue;
            char text[48];
            std::snprintf(text, sizeof text, "%llue%d", static_cast<unsigned long long>(candidate), scale);
            const double parsed = std::strtod(text, nullptr);  // correctly rounded; no decimal point
            const double distance = std::fabs(parsed - magnitude);
            if (distance < best_distance && reads_back(parsed, decimal_is_binary64(candidate, scale))) {
                best_distance = distance;
                best.significant = std::to_string(candidate);
                best.exponent = scale + static_cast<int>(best.significant.size()) - 1;
            }
        }
    }
    return best;
}

// Decimal digits a binary format with this many fraction bits carries
// (NumPy's finfo.precision: float32 6, bfloat16 2).
int decimal_precision(int fraction_bits) {
    return static_cast<int>(std::floor(fraction_bits * std::log10(2.0)));
}

// NumPy's float16/float32 scalar str (NumPy 2.3 on): positional from 1e-4
// up to 10**finfo.precision ("448.0", "0.1015625"), scientific outside
// ("1.7014118e+38", "6e-05", "3.3554432e+07" for float32), with at least
// two exponent digits, as Python writes floats.
std::string numpy_scalar_layout(bool negative, Digits d, bool positional) {
    std::string& m = d.significant;
    while (m.size() > 1 && m.back() == '0') m.pop_back();
    std::string text = negative ? "-" : "";
    const int n = static_cast<int>(m.size());
    const int exponent = d.exponent;
    if (!positional) {
        text += m[0];
        if (n > 1) {
            text += '.';
            text += m.substr(1);
        }
        char exp_text[16];
        std::snprintf(exp_text, sizeof exp_text, "e%c%02d", exponent < 0 ? '-' : '+',
                      exponent < 0 ? -exponent : exponent);
        text += exp_text;
    } else if (exponent < 0) {
        text += "0.";
        text.append(static_cast<size_t>(-exponent - 1), '0');
        text += m;
    } else if (exponent + 1 >= n) {
        text += m;
        text.append(static_cast<size_t>(exponent + 1 - n), '0');
        text += ".0";
    } else {
        text += m.substr(0, static_cast<size_t>(exponent + 1));
        text += '.';
        text += m.substr(static_cast<size_t>(exponent + 1));
    }
    return text;
}

}  // namespace

bool prints_exact_value(const Format& format) { return format.bits <= 8; }

bool scalar_repr_text(const FormatRuntime& rt, uint32_t code, char* out, size_t out_size) {
    DefaultFpuModeScope default_modes;  // printf and strtod follow the direction; the text must not
    code &= static_cast<uint32_t>(rt.code_count() - 1);
    const double value = rt.decode_f64[code];
    std::string text;
    if (std::isnan(value)) {
        text = "nan";
    } else if (std::isinf(value)) {
        text = value > 0 ? "inf" : "-inf";
    } else if (value == 0.0) {
        text = std::signbit(value) ? "-0.0" : "0.0";
    } else {
        const bool negative = value < 0;
        const double magnitude = std::fabs(value);
        // Every value of a format of 8 bits or fewer is a float32 value,
        // printed as float32 prints it.
        const bool exact = prints_exact_value(rt.format);
        const Digits digits = exact ? float32_shortest_digits(static_cast<float>(magnitude))
                                    : format_shortest_digits(rt, code, magnitude, negative);
        const int precision = decimal_precision(exact ? std::numeric_limits<float>::digits - 1
                                                      : rt.format.mantissa_bits);
        const bool positional = magnitude >= 1e-4 && magnitude < std::pow(10.0, precision);
        text = numpy_scalar_layout(negative, digits, positional);
    }
    if (text.size() + 1 > out_size) return false;
    std::memcpy(out, text.c_str(), text.size() + 1);
    return true;
}

PyObject* scalar_repr_object(const FormatRuntime& rt, uint32_t code) {
    char text[64];
    if (!scalar_repr_text(rt, code, text, sizeof text)) {
        PyErr_SetString(PyExc_RuntimeError, "minifloat: repr buffer too small");
        return nullptr;
    }
    return PyUnicode_FromString(text);
}

bool weak_comparison_operand(const FormatRuntime& rt, PyObject* number, double* value, uint32_t* flags) {
    // inf and NaN compare as themselves, also in formats without them
    if (PyFloat_Check(number) && !std::isfinite(PyFloat_AS_DOUBLE(number))) {
        *value = PyFloat_AS_DOUBLE(number);
        return true;
    }
    uint32_t code = 0, conversion_flags = 0;
    if (!code_from_object(rt, rt.default_specials, number, &code, &conversion_flags)) return false;
    if (!rt.format.has_inf && (conversion_flags & kFlagOverflow) != 0) {
        PyObject* zero = PyLong_FromLong(0);
        if (zero == nullptr) return false;
        const int negative = PyObject_RichCompareBool(number, zero, Py_LT);
        Py_DECREF(zero);
        if (negative < 0) return false;
        *value = negative ? -HUGE_VAL : HUGE_VAL;
        *flags |= kFlagOverflow;
        return true;
    }
    *value = rt.decode_f64[code];
    *flags |= conversion_flags;
    return true;
}

}  // namespace minifloat
