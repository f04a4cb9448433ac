// DType classes of complex32 and bcomplex32 (kind 'c', itemsize 4,
// alignment 2) under an abstract minifloat.ComplexDType (promoters are keyed
// on it), with promotion and cast safety from exact representability, and
// the legacy array functions NumPy's sort, argmax, nonzero, fill and dot
// paths call. Ordering is NumPy's for complex numbers: lexicographic, NaNs
// last ([R + Rj, R + nanj, nan + Rj, nan + nanj]).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstring>
#include <vector>

#include "cast_specs.h"
#include "complex_types.h"
#include "dtype_core.h"
#include "format_types.h"
#include "promotion.h"
#include "registry.h"
#include "scalar_elements.h"
#include "scalar_type.h"

namespace minifloat {

PyArray_DTypeMeta g_complex_abstract_dtype{};
PyTypeObject g_complex_abstract_scalar{PyVarObject_HEAD_INIT(nullptr, 0)};

namespace {

// ---- promotion -------------------------------------------------------------

// Every value of NumPy's integer type `t` (or bool) is a value of the part
// format: float16 holds integers up to 2048, bfloat16 up to 256, so the
// one-byte types. The decision follows NumPy's int8 + float16 -> float16
// (int16 + float16 -> float32): int8/uint8 + complex32 -> complex32, int16 +
// complex32 -> complex64 (NumPy's int16 + complex64), int32/int64 ->
// complex128.
bool part_holds_integer_type(int t) { return t == NPY_BOOL || t == NPY_BYTE || t == NPY_UBYTE; }

// Every finite value of float format `index` (and its inf/NaN/-0) is a
// value of the part format of `kind`.
bool part_holds_format(int kind, int index) {
    if (kind == kComplex32) return runtime(index).fits_float16;
    return format_is_subset(index, bfloat16_format_index());
}

PyArray_DTypeMeta* complex_dtype_holding_float(PyArray_DTypeMeta* real) {
    // NumPy's own rule for a real type and complex64: float32 -> complex64,
    // float64 -> complex128, longdouble -> clongdouble (float16 -> complex64)
    PyArray_DTypeMeta* result = PyArray_CommonDType(real, &PyArray_CFloatDType);
    if (result == nullptr) {
        PyErr_Clear();
        return not_implemented();
    }
    return result;
}

PyArray_DTypeMeta* complex_common_dtype(PyArray_DTypeMeta* cls, PyArray_DTypeMeta* other) {
    const int kind = complex_kind_of_dtype_class(cls);
    if (other == cls) return new_ref(cls);
    if (complex_kind_of_dtype_class(other) >= 0) return new_ref(&PyArray_CFloatDType);  // complex32 + bcomplex32
    // Python numbers are weak (NEP 50), as for complex64
    if (other == &PyArray_PyFloatDType || other == &PyArray_PyLongDType || other == &PyArray_PyComplexDType) {
        return new_ref(cls);
    }
    const int format = format_index_of_dtype_class(other);
    if (format >= 0) {
        if (part_holds_format(kind, format)) return new_ref(cls);
        return complex_dtype_holding_float(other);  // bfloat16 + complex32 -> complex64
    }
    if (other == &g_complex_abstract_dtype) return not_implemented();
    const int t = other->type_num;
    if (t == NPY_BOOL || PyTypeNum_ISINTEGER(t)) {
        if (part_holds_integer_type(t)) return new_ref(cls);
        return complex_dtype_holding_float(other);
    }
    if (t == NPY_HALF) return new_ref(kind == kComplex32 ? cls : &PyArray_CFloatDType);
    if (PyTypeNum_ISFLOAT(t) || PyTypeNum_ISCOMPLEX(t)) return complex_dtype_holding_float(other);
    return not_implemented();  // minifloat's integers promote through int8 (int_dtypes.cpp), others refuse
}

// ---- items -------------------------------------------------------------------

int complex_setitem(PyArray_Descr* descr, PyObject* value, char* data) {
    const int kind = complex_kind_of_descr(descr);
    double re = 0, im = 0;
    if (complex_from_object(kind, value, &re, &im) < 0) return -1;
    uint16_t parts[2];
    const uint32_t flags = encode_complex_value(kind, re, im, parts);
    std::memcpy(data, parts, 4);
    return report_scalar_fp_flags("cast", flags);
}

static_assert(offsetof(ComplexScalar, parts) == sizeof(PyObject),
              "NumPy copies an element right after the object header");

// item(), tolist() and astype(object): a Python complex (exact: each part
// is a binary64 value), as NumPy's complex64 gives (indexing makes the
// type's scalar: build_scalars_by_copy).
PyObject* complex_getitem(PyArray_Descr* descr, char* data) {
    uint16_t parts[2];
    std::memcpy(parts, data, 4);
    double re = 0, im = 0;
    decode_complex_value(complex_kind_of_descr(descr), parts, &re, &im);
    return PyComplex_FromDoubles(re, im);
}

// Identities and limits (NumPy asks for zero and one in reductions). The
// finfo constants are the part's, as np.finfo(np.complex64) gives float32's.
int get_constant(PyArray_Descr* descr, int id, void* data) {
    const int kind = complex_kind_of_descr(descr);
    double value;
    switch (id) {
        case NPY_CONSTANT_zero: value = 0.0; break;
        case NPY_CONSTANT_one: value = 1.0; break;
        case NPY_CONSTANT_nan: value = std::nan(""); break;
        case NPY_CONSTANT_inf: value = INFINITY; break;
        default: return 0;
    }
    uint16_t parts[2];
    encode_complex_value(kind, value, 0.0, parts);
    std::memcpy(data, parts, 4);
    return 1;
}

// ---- legacy array functions ----------------------------------------------------

// NumPy's complex sort order: [R + Rj, R + nanj, nan + Rj, nan + nanj],
// lexicographic within each group.
bool less(ComplexF32 a, ComplexF32 b) {
    const bool a_nan = std::isnan(a.re), b_nan = std::isnan(b.re);
    if (a_nan != b_nan) return b_nan;
    const bool ai_nan = std::isnan(a.im), bi_nan = std::isnan(b.im);
    if (ai_nan != bi_nan) return bi_nan;
    if (!a_nan && a.re != b.re) return a.re < b.re;
    return !ai_nan && a.im < b.im;
}

template <int Kind>
int compare(const void* a, const void* b, void*) {
    const PartCodec& codec = complex_runtime(Kind).codec;
    const ComplexF32 x = load_complex_f32(codec, static_cast<const char*>(a)), y = load_complex_f32(codec, static_cast<const char*>(b));
    return less(x, y) ? -1 : (less(y, x) ? 1 : 0);
}

struct Keyed {
    ComplexF32 value;
    uint32_t bits;
};

template <int Kind>
int sort(void* start, npy_intp n, void*) {
    const PartCodec& codec = complex_runtime(Kind).codec;
    char* items = static_cast<char*>(start);
    std::vector<Keyed> keyed(static_cast<size_t>(n));
    for (npy_intp i = 0; i < n; i++) {
        keyed[static_cast<size_t>(i)].value = load_complex_f32(codec, items + 4 * i);
        std::memcpy(&keyed[static_cast<size_t>(i)].bits, items + 4 * i, 4);
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) { return less(a.value, b.value); });
    for (npy_intp i = 0; i < n; i++) std::memcpy(items + 4 * i, &keyed[static_cast<size_t>(i)].bits, 4);
    return 0;
}

template <int Kind>
int argsort(void* start, npy_intp* order, npy_intp n, void*) {
    const PartCodec& codec = complex_runtime(Kind).codec;
    const char* items = static_cast<const char*>(start);
    std::vector<ComplexF32> values(static_cast<size_t>(n));
    for (npy_intp i = 0; i < n; i++) values[static_cast<size_t>(i)] = load_complex_f32(codec, items + 4 * i);
    std::stable_sort(order, order + n, [&values](npy_intp a, npy_intp b) {
        return less(values[static_cast<size_t>(a)], values[static_cast<size_t>(b)]);
    });
    return 0;
}

// argmax/argmin: the first NaN (in either part) wins, as for complex64.
template <int Kind, bool Max>
int arg_extreme(void* data, npy_intp n, npy_intp* out, void*) {
    const PartCodec& codec = complex_runtime(Kind).codec;
    const char* items = static_cast<const char*>(data);
    *out = 0;
    if (n <= 0) return 0;
    ComplexF32 best = load_complex_f32(codec, items);
    if (std::isnan(best.re) || std::isnan(best.im)) return 0;
    for (npy_intp i = 1; i < n; i++) {
        const ComplexF32 v = load_complex_f32(codec, items + 4 * i);
        if (std::isnan(v.re) || std::isnan(v.im)) {
            *out = i;
            return 0;
        }
        if (Max ? less(best, v) : less(v, best)) {
            best = v;
            *out = i;
        }
    }
    return 0;
}

npy_bool nonzero(void* data, void*) {
    uint16_t parts[2];
    std::memcpy(parts, data, 4);
    return ((parts[0] | parts[1]) & 0x7FFFu) != 0;
}

// np.arange-style fill: continues the step of the first two elements.
int fill(void* buffer, npy_intp length, void* arr) {
    if (length < 2) return 0;
    const int kind = complex_kind_of_descr(PyArray_DESCR(static_cast<PyArrayObject*>(arr)));
    char* items = static_cast<char*>(buffer);
    double r0, i0, r1, i1;
    uint16_t p[2];
    std::memcpy(p, items, 4);
    decode_complex_value(kind, p, &r0, &i0);
    std::memcpy(p, items + 4, 4);
    decode_complex_value(kind, p, &r1, &i1);
    for (npy_intp i = 2; i < length; i++) {
        encode_complex_value(kind, r0 + i * (r1 - r0), i0 + i * (i1 - i0), p);
        std::memcpy(items + 4 * i, p, 4);
    }
    return 0;
}

int fill_with_scalar(void* buffer, npy_intp length, void* value, void*) {
    char* items = static_cast<char*>(buffer);
    for (npy_intp i = 0; i < length; i++) std::memcpy(items + 4 * i, value, 4);
    return 0;
}

// np.dot's inner product, accumulated in complex64 and rounded once (as
// NumPy's float16 dot accumulates in float32). The kind is a template
// parameter: NumPy >= 2.5 calls this slot without an array.
template <int Kind>
void dot(void* a, npy_intp stride_a, void* b, npy_intp stride_b, void* out, npy_intp n, void*) {
    const PartCodec& codec = complex_runtime(Kind).codec;
    const char* pa = static_cast<const char*>(a);
    const char* pb = static_cast<const char*>(b);
    float re = 0.0f, im = 0.0f;
    for (npy_intp i = 0; i < n; i++, pa += stride_a, pb += stride_b) {
        const ComplexF32 x = load_complex_f32(codec, pa), y = load_complex_f32(codec, pb);
        re += x.re * y.re - x.im * y.im;
        im += x.re * y.im + x.im * y.re;
    }
    store_complex_f32(codec, static_cast<char*>(out), {re, im});
}

template <int Kind>
void append_array_functions(std::vector<PyType_Slot>& slots) {
    slots.push_back({NPY_DT_PyArray_ArrFuncs_compare, reinterpret_cast<void*>(compare<Kind>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_sort, reinterpret_cast<void*>(sort<Kind>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_argsort, reinterpret_cast<void*>(argsort<Kind>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_argmax, reinterpret_cast<void*>(arg_extreme<Kind, true>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_argmin, reinterpret_cast<void*>(arg_extreme<Kind, false>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_nonzero, reinterpret_cast<void*>(nonzero)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_fill, reinterpret_cast<void*>(fill)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_fillwithscalar, reinterpret_cast<void*>(fill_with_scalar)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_dotfunc, reinterpret_cast<void*>(dot<Kind>)});
}

// The complex types as a family of the DType core (dtype_core.h).
struct ComplexFamily {
    static constexpr const char* kAbstractName = "minifloat.ComplexDType";
    static constexpr const char* kAbstractDoc = "Abstract parent of minifloat's complex DType classes.";
    static PyArray_DTypeMeta& abstract_dtype() { return g_complex_abstract_dtype; }
    static PyTypeObject& abstract_scalar_type() { return g_complex_abstract_scalar; }
    static constexpr const char* kMemberDoc = "NumPy DType class of a minifloat complex type.";
    static constexpr const char* kNameDoc = "The type's name.";
    static constexpr Py_ssize_t kDescrSize = sizeof(ComplexDescr);
    static constexpr CastFamily kCasts = CastFamily::complex;
    static constexpr const char* kSwapHint = "to swap the bytes of the parts use arr.byteswap()";

    static int index_of_class(const PyArray_DTypeMeta* cls) { return complex_kind_of_dtype_class(cls); }
    static int index_of_descr(const PyArray_Descr* descr) {
        return reinterpret_cast<const ComplexDescr*>(descr)->complex_kind;
    }
    static PyArray_DTypeMeta& dtype_class(int kind) { return complex_runtime(kind).dtype_class; }
    static PyTypeObject& scalar_type(int kind) { return complex_runtime(kind).scalar_type; }
    static const char* dtype_name(int kind) { return complex_runtime(kind).dtype_qualname.c_str(); }
    static const char* name(int kind) { return complex_runtime(kind).name; }
    static PyObject* repr(int kind) { return PyUnicode_FromString(name(kind)); }
    static PyObject* reduce_value(int) { return nullptr; }

    // two parts of two bytes, each in native order (as the float formats'
    // bfloat16): a byte swap swaps each part
    static char kind(int) { return 'c'; }
    static char type_char(int kind) { return complex_runtime(kind).type_char; }
    static int itemsize(int) { return 4; }
    static int part_bytes(int) { return 2; }
    static void keep_singleton(int kind, PyArray_Descr* descr) {
        reinterpret_cast<ComplexDescr*>(descr)->complex_kind = kind;
        complex_runtime(kind).descr = descr;
    }
    static PyArray_Descr* singleton(int kind) { return complex_runtime(kind).descr; }

    static PyArray_DTypeMeta* common_dtype(PyArray_DTypeMeta* cls, PyArray_DTypeMeta* other) {
        return complex_common_dtype(cls, other);
    }
    static int setitem(PyArray_Descr* descr, PyObject* value, char* data) {
        return complex_setitem(descr, value, data);
    }
    static PyObject* getitem(PyArray_Descr* descr, char* data) { return complex_getitem(descr, data); }
    static int append_casts(int kind, std::vector<PyArrayMethod_Spec*>& out) {
        append_complex_cast_specs(kind, out);
        return 0;
    }
    static void append_slots(int kind, std::vector<PyType_Slot>& out) {
        out.push_back({NPY_DT_get_constant, reinterpret_cast<void*>(get_constant)});
        if (kind == kComplex32) {
            append_array_functions<kComplex32>(out);
        } else {
            append_array_functions<kBComplex32>(out);
        }
    }
    static int finish(int, PyArray_Descr* descr) { return build_scalars_by_copy(descr); }
};

}  // namespace

int init_complex_dtype_classes() {
    if (DTypeCore<ComplexFamily>::init_abstract() < 0) return -1;
    for (int kind = 0; kind < kComplexCount; kind++) {
        if (DTypeCore<ComplexFamily>::init_member(kind) < 0) return -1;
    }
    return 0;
}

}  // namespace minifloat
