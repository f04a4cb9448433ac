#include "promotion.h"

#include <atomic>
#include <cmath>

#include "codec.h"
#include "format_types.h"
#include "per_format.h"

namespace minifloat {

PyArray_DTypeMeta* new_ref(PyArray_DTypeMeta* d) {
    Py_INCREF(d);
    return d;
}

PyArray_DTypeMeta* not_implemented() {
    Py_INCREF(Py_NotImplemented);
    return reinterpret_cast<PyArray_DTypeMeta*>(Py_NotImplemented);
}

namespace {

// Whether every finite value of `a` is one of `b` with a's specials: made
// on first use of the pair (0 unknown, 1 no, 2 yes).
PerFormat<PerFormat<std::atomic<int8_t>>> g_subset;

bool same_double(double x, double y) {
    return x == y && std::signbit(x) == std::signbit(y);
}

bool compute_subset(int a, int b) {
    const FormatRuntime& from = runtime(a);
    const FormatRuntime& to = runtime(b);
    if (from.format.has_inf && !to.format.has_inf) return false;
    if (from.format.has_nan && !to.format.has_nan) return false;
    if (from.format.has_negative_zero && !to.format.has_negative_zero) return false;
    for (uint32_t code = 0; code <= from.format.code_mask; code++) {
        const double v = from.decode_f64[code];
        if (!std::isfinite(v)) continue;
        const Encoded e = encode_from_double(to.format, to.default_specials, v);
        if (e.flags != 0 || !same_double(to.decode_f64[e.code], v)) return false;
    }
    return true;
}

// Smallest standard float holding format `index` and a value set that
// needs at least `at_least_bits` of binary width (16, 32 or 64).
PyArray_DTypeMeta* standard_float(int index, int at_least_bits) {
    if (at_least_bits <= 16 && runtime(index).fits_float16) return new_ref(&PyArray_HalfDType);
    if (at_least_bits <= 32) return new_ref(&PyArray_FloatDType);
    return new_ref(&PyArray_DoubleDType);
}

int integer_bits(PyArray_DTypeMeta* d) {
    PyArray_Descr* descr = PyArray_DescrFromType(d->type_num);
    if (descr == nullptr) {
        PyErr_Clear();
        return 64;
    }
    const int bits = static_cast<int>(descr->elsize) * 8;
    Py_DECREF(descr);
    return bits;
}

bool holds_integer_type(const FormatRuntime& rt, PyArray_DTypeMeta* d) {
    const bool is_unsigned = PyTypeNum_ISUNSIGNED(d->type_num);
    switch (integer_bits(d)) {
        case 8: return is_unsigned ? rt.holds_uint8 : rt.holds_int8;
        case 16: return is_unsigned ? rt.holds_uint16 : rt.holds_int16;
        default: return false;
    }
}

}  // namespace

bool format_is_subset(int a, int b) {
    if (a == b) return true;
    std::atomic<int8_t>& known = g_subset[a][b];
    int8_t subset = known.load(std::memory_order_relaxed);
    if (subset == 0) {  // value-initialized: not computed yet
        subset = compute_subset(a, b) ? 2 : 1;
        known.store(subset, std::memory_order_relaxed);  // the same answer from any thread
    }
    return subset == 2;
}

namespace {
ForeignFormatLookup g_foreign_format_lookup = nullptr;  // set at import, under the GIL
}  // namespace

void set_foreign_format_lookup(ForeignFormatLookup lookup) { g_foreign_format_lookup = lookup; }

PyArray_DTypeMeta* common_dtype_with(int index, PyArray_DTypeMeta* other) {
    const FormatRuntime& rt = runtime(index);
    PyArray_DTypeMeta* self = &format_types(index).dtype_class;
    if (other == self) return new_ref(self);
    int other_index = format_index_of_dtype_class(other);
    // ml_dtypes' DType of a format promotes as minifloat's DType of it
    if (other_index < 0 && g_foreign_format_lookup != nullptr) other_index = g_foreign_format_lookup(other);
    if (other_index >= 0) {
        PyArray_DTypeMeta* other_minifloat = &format_types(other_index).dtype_class;  // (for ml_dtypes' class too)
        const bool other_in_self = format_is_subset(other_index, index);
        const bool self_in_other = format_is_subset(index, other_index);
        if (other_in_self && self_in_other) {
            // the same values (binary8p3sf and float8_e5m2fnuz): the first in
            // the registry, whichever side asks
            return new_ref(index < other_index ? self : other_minifloat);
        }
        if (other_in_self) return new_ref(self);
        if (self_in_other) return new_ref(other_minifloat);
        const bool both_fit_half = rt.fits_float16 && runtime(other_index).fits_float16;
        return new_ref(both_fit_half ? &PyArray_HalfDType : &PyArray_FloatDType);
    }
    // Python scalars are weak: they take the format (NEP 50).
    if (other == &PyArray_PyFloatDType || other == &PyArray_PyLongDType) return new_ref(self);
    if (other == &PyArray_PyComplexDType) return new_ref(&PyArray_CFloatDType);
    const int t = other->type_num;
    if (t == NPY_BOOL) {
        return rt.holds_zero_and_one ? new_ref(self) : standard_float(index, 16);
    }
    if (t >= 0 && PyTypeNum_ISINTEGER(t)) {
        if (holds_integer_type(rt, other)) return new_ref(self);
        const int bits = integer_bits(other);
        // Binary widths that hold every integer of that type exactly
        // (int64 goes to float64 as NumPy does, though not exactly).
        return standard_float(index, bits <= 8 ? 16 : (bits <= 16 ? 32 : 64));
    }
    switch (t) {
        case NPY_HALF: return standard_float(index, 16);
        case NPY_FLOAT:
        case NPY_DOUBLE:
        case NPY_LONGDOUBLE:
        case NPY_CFLOAT:
        case NPY_CDOUBLE:
        case NPY_CLONGDOUBLE:
            // Every format here is exactly a subset of float32.
            return new_ref(other);
        default:
            return not_implemented();
    }
}

NPY_CASTING builtin_to_format_casting(int index, PyArray_DTypeMeta* builtin) {
    const FormatRuntime& rt = runtime(index);
    const int t = builtin->type_num;
    if (t == NPY_BOOL) return rt.holds_zero_and_one ? NPY_SAFE_CASTING : NPY_SAME_KIND_CASTING;
    if (PyTypeNum_ISINTEGER(t)) {
        return holds_integer_type(rt, builtin) ? NPY_SAFE_CASTING : NPY_SAME_KIND_CASTING;
    }
    if (PyTypeNum_ISFLOAT(t)) return NPY_SAME_KIND_CASTING;
    return NPY_UNSAFE_CASTING;  // complex, text
}

NPY_CASTING format_to_builtin_casting(int index, PyArray_DTypeMeta* builtin) {
    const int t = builtin->type_num;
    if (t == NPY_HALF) return runtime(index).fits_float16 ? NPY_SAFE_CASTING : NPY_SAME_KIND_CASTING;
    if (PyTypeNum_ISFLOAT(t) || PyTypeNum_ISCOMPLEX(t)) return NPY_SAFE_CASTING;
    return NPY_UNSAFE_CASTING;  // bool, integers
}

NPY_CASTING format_to_format_casting(int from, int to) {
    if (from == to) return NPY_NO_CASTING;
    return format_is_subset(from, to) ? NPY_SAFE_CASTING : NPY_SAME_KIND_CASTING;
}

}  // namespace minifloat
