// Casts of the sub-byte integers with themselves, bool, NumPy's integer and
// float types, str/bytes, and the float formats. NumPy's integer rules:
// integers wrap to the width (as int64 -> int8 does); floats truncate toward
// zero, and NaN, inf and values out of range give 0 with NumPy's "invalid
// value encountered in cast" warning. Object casts come from NumPy through
// getitem/setitem.
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <cstring>
#include <vector>

#include "cast_specs.h"
#include "fp_status.h"
#include "int_kernels.h"
#include "int_types.h"

namespace minifloat {

namespace {

using Loop = int(PyArrayMethod_Context*, char* const*, const npy_intp*, const npy_intp*, NpyAuxData*);

// Width parameters of the output integer type of a cast or ufunc loop.
struct Wrap {
    int shift;      // 8 - bits (signed types)
    uint8_t mask;   // (1 << bits) - 1 (unsigned types)
    bool is_signed;
    int min, max;
    uint8_t operator()(uint8_t low_byte) const {
        return is_signed ? static_cast<uint8_t>(static_cast<int8_t>(static_cast<uint8_t>(low_byte << shift)) >> shift)
                         : static_cast<uint8_t>(low_byte & mask);
    }
};

Wrap wrap_of(const PyArray_Descr* d) {
    const IntTypeRuntime& rt = int_runtime(int_index_of_descr(d));
    return {8 - rt.row->bits, static_cast<uint8_t>(int_format_mask(*rt.row)), rt.row->is_signed, rt.min, rt.max};
}

// binary16 -> float, every code (exact).
const float* half_values() {
    static std::vector<float> table = [] {
        std::vector<float> t(65536);
        for (uint32_t h = 0; h < 65536; h++) {
            const int e = (h >> 10) & 31, m = h & 1023;
            float v;
            if (e == 31) v = m ? NAN : INFINITY;
            else if (e == 0) v = std::ldexp(static_cast<float>(m), -24);
            else v = std::ldexp(static_cast<float>(m | 1024), e - 25);
            t[h] = (h & 0x8000) ? -v : v;
        }
        return t;
    }();
    return table.data();
}

// Exact binary16 code of a small integer (|v| < 2048).
uint16_t half_of_int(int v) {
    if (v == 0) return 0;
    const uint16_t sign = v < 0 ? 0x8000 : 0;
    const unsigned m = static_cast<unsigned>(v < 0 ? -v : v);
    int e = 0;
    while ((m >> (e + 1)) != 0) e++;
    return static_cast<uint16_t>(sign | ((e + 15) << 10) | ((m << (10 - e)) & 0x3ff));
}

// ---- the strided driver -----------------------------------------------------

// Both sides packed and aligned: the bulk kernels of int_kernels.h apply.
template <class In, class Out>
bool is_contiguous(char* const data[], const npy_intp strides[]) {
    return strides[0] == sizeof(In) && strides[1] == sizeof(Out) &&
           reinterpret_cast<uintptr_t>(data[0]) % alignof(In) == 0 &&
           reinterpret_cast<uintptr_t>(data[1]) % alignof(Out) == 0;
}

template <class In, class Out, class Convert>
int run_cast(char* const data[], const npy_intp dims[], const npy_intp strides[], Convert convert) {
    const npy_intp n = dims[0];
    const char* in = data[0];
    char* out = data[1];
    if (strides[0] == sizeof(In) && strides[1] == sizeof(Out)) {
        const In* src = reinterpret_cast<const In*>(in);
        Out* dst = reinterpret_cast<Out*>(out);
        for (npy_intp i = 0; i < n; i++) dst[i] = convert(src[i]);
        return 0;
    }
    for (npy_intp i = 0; i < n; i++, in += strides[0], out += strides[1]) {
        In v;
        std::memcpy(&v, in, sizeof v);
        const Out r = convert(v);
        std::memcpy(out, &r, sizeof r);
    }
    return 0;
}

// integer (or bool) -> ours: the low byte wrapped to the width
template <class In>
int integer_to_int(PyArrayMethod_Context* ctx, char* const data[], const npy_intp dims[],
                   const npy_intp strides[], NpyAuxData*) {
    const Wrap w = wrap_of(ctx->descriptors[1]);
    if (is_contiguous<In, uint8_t>(data, strides)) {
        const unsigned sign = w.is_signed ? (w.mask + 1u) >> 1 : 0u;
        const npy_intp n = dims[0];
        uint8_t* dst = reinterpret_cast<uint8_t*>(data[1]);
        if constexpr (std::is_integral_v<In> && sizeof(In) == 4) {
            int32_to_codes(reinterpret_cast<const int32_t*>(data[0]), dst, n, sign, w.mask);
            return 0;
        } else if constexpr (std::is_integral_v<In> && sizeof(In) == 8) {
            int64_to_codes(reinterpret_cast<const int64_t*>(data[0]), dst, n, sign, w.mask);
            return 0;
        }
    }
    return run_cast<In, uint8_t>(data, dims, strides,
                                 [w](In v) { return w(static_cast<uint8_t>(v)); });
}

// float -> ours: truncate; NaN, inf, out of range -> 0 and "invalid".
// trunc(x) is in [min, max] exactly when min - 1 < x < max + 1 (NaN fails
// both tests), and an x inside converts with C++'s truncating conversion; no
// trunc() call (a library call without SSE4.1) keeps the loop vectorized.
template <class Work>
struct FloatToInt {
    Work below, above;  // min - 1, max + 1: exclusive bounds
    uint8_t convert(Work x, uint8_t& bad) const {
        const bool ok = (x > below) & (x < above);
        bad |= static_cast<uint8_t>(!ok);
        return static_cast<uint8_t>(static_cast<int>(ok ? x : Work(0)));
    }
};


template <class In, class Work, class Read>
int float_to_int_with(PyArrayMethod_Context* ctx, char* const data[], const npy_intp dims[],
                      const npy_intp strides[], Read read) {
    const Wrap w = wrap_of(ctx->descriptors[1]);
    const FloatToInt<Work> f{static_cast<Work>(w.min - 1), static_cast<Work>(w.max + 1)};
    const npy_intp n = dims[0];
    uint8_t bad = 0;
    if (strides[0] == sizeof(In) && strides[1] == 1 && reinterpret_cast<uintptr_t>(data[0]) % alignof(In) == 0) {
        const In* __restrict src = reinterpret_cast<const In*>(data[0]);
        uint8_t* __restrict dst = reinterpret_cast<uint8_t*>(data[1]);
        if constexpr (std::is_same_v<In, float>) {
            bad = float32_to_codes(src, dst, n, f.below, f.above);
        } else if constexpr (std::is_same_v<In, double>) {
            bad = float64_to_codes(src, dst, n, f.below, f.above);
        } else {
            for (npy_intp i = 0; i < n; i++) dst[i] = f.convert(read(src[i]), bad);
        }
    } else {
        const char* in = data[0];
        char* out = data[1];
        for (npy_intp i = 0; i < n; i++, in += strides[0], out += strides[1]) {
            In v;
            std::memcpy(&v, in, sizeof v);
            *reinterpret_cast<uint8_t*>(out) = f.convert(read(v), bad);
        }
    }
    if (bad) raise_fp_flags(kFlagInvalid);
    return 0;
}

template <class In, class Work>
int float_to_int(PyArrayMethod_Context* ctx, char* const data[], const npy_intp dims[],
                 const npy_intp strides[], NpyAuxData*) {
    return float_to_int_with<In, Work>(ctx, data, dims, strides, [](In v) { return static_cast<Work>(v); });
}

int half_to_int(PyArrayMethod_Context* ctx, char* const data[], const npy_intp dims[],
                const npy_intp strides[], NpyAuxData*) {
    const float* values = half_values();
    return float_to_int_with<uint16_t, float>(ctx, data, dims, strides, [values](uint16_t h) { return values[h]; });
}

// ---- complex ------------------------------------------------------------------

template <class Part>
struct ComplexValue {
    Part real, imag;
};

template <class Stored, class Part>
int int_to_complex(PyArrayMethod_Context*, char* const data[], const npy_intp dims[], const npy_intp strides[],
                   NpyAuxData*) {
    return run_cast<Stored, ComplexValue<Part>>(
        data, dims, strides, [](Stored v) { return ComplexValue<Part>{static_cast<Part>(v), Part(0)}; });
}

// complex -> ours: the real part, as a float of that precision converts
template <class Part>
int complex_to_int(PyArrayMethod_Context* ctx, char* const data[], const npy_intp dims[], const npy_intp strides[],
                   NpyAuxData*) {
    return float_to_int_with<ComplexValue<Part>, Part>(ctx, data, dims, strides,
                                                       [](ComplexValue<Part> v) { return v.real; });
}

// ours -> NumPy's types: our bytes are the int8/uint8 of the same values
template <class Stored, class Out>
int int_to_number(PyArrayMethod_Context*, char* const data[], const npy_intp dims[],
                  const npy_intp strides[], NpyAuxData*) {
    if (is_contiguous<Stored, Out>(data, strides)) {
        const Stored* src = reinterpret_cast<const Stored*>(data[0]);
        constexpr bool is_signed = std::is_signed_v<Stored>;
        if constexpr (std::is_same_v<Out, float>) {
            float* dst = reinterpret_cast<float*>(data[1]);
            if constexpr (is_signed) int_codes_to_float32(src, dst, dims[0]);
            else uint_codes_to_float32(src, dst, dims[0]);
            return 0;
        } else if constexpr (std::is_integral_v<Out> && sizeof(Out) == 4) {
            // int32 and uint32 alike: the same bits as C's conversion of the value
            int32_t* dst = reinterpret_cast<int32_t*>(data[1]);
            if constexpr (is_signed) int_codes_to_int32(src, dst, dims[0]);
            else uint_codes_to_int32(src, dst, dims[0]);
            return 0;
        } else if constexpr (std::is_integral_v<Out> && sizeof(Out) == 8) {
            int64_t* dst = reinterpret_cast<int64_t*>(data[1]);
            if constexpr (is_signed) int_codes_to_int64(src, dst, dims[0]);
            else uint_codes_to_int64(src, dst, dims[0]);
            return 0;
        }
    }
    return run_cast<Stored, Out>(data, dims, strides, [](Stored v) { return static_cast<Out>(v); });
}

template <class Stored>
int int_to_bool(PyArrayMethod_Context*, char* const data[], const npy_intp dims[],
                const npy_intp strides[], NpyAuxData*) {
    return run_cast<Stored, npy_bool>(data, dims, strides,
                                      [](Stored v) { return static_cast<npy_bool>(v != 0); });
}

template <class Stored>
int int_to_half(PyArrayMethod_Context*, char* const data[], const npy_intp dims[],
                const npy_intp strides[], NpyAuxData*) {
    static const std::vector<uint16_t> table = [] {
        std::vector<uint16_t> t(256);
        for (int b = 0; b < 256; b++) t[b] = half_of_int(static_cast<Stored>(static_cast<uint8_t>(b)));
        return t;
    }();
    return run_cast<uint8_t, uint16_t>(data, dims, strides, [](uint8_t b) { return table[b]; });
}

// ours -> ours (and copies): wrap the value to the output's width
int int_to_int(PyArrayMethod_Context* ctx, char* const data[], const npy_intp dims[],
               const npy_intp strides[], NpyAuxData*) {
    const Wrap w = wrap_of(ctx->descriptors[1]);
    return run_cast<uint8_t, uint8_t>(data, dims, strides, [w](uint8_t v) { return w(v); });
}

// ---- str / bytes ----------------------------------------------------------

constexpr int kTextChars = 2;  // "-8", "15": the longest value of any type

NPY_CASTING to_text_descriptors(PyArrayMethodObject*, PyArray_DTypeMeta* const dtypes[2],
                                PyArray_Descr* const given[2], PyArray_Descr* loop[2], npy_intp*) {
    const int unit = dtypes[1]->type_num == NPY_UNICODE ? 4 : 1;
    Py_INCREF(given[0]);
    loop[0] = given[0];
    if (given[1] == nullptr) {
        loop[1] = PyArray_DescrNewFromType(dtypes[1]->type_num);
        if (loop[1] == nullptr) return static_cast<NPY_CASTING>(-1);
        loop[1]->elsize = kTextChars * unit;
    } else {
        Py_INCREF(given[1]);
        loop[1] = given[1];
    }
    return loop[1]->elsize >= kTextChars * unit ? NPY_SAFE_CASTING : NPY_SAME_KIND_CASTING;
}

NPY_CASTING from_text_descriptors(PyArrayMethodObject*, PyArray_DTypeMeta* const dtypes[2],
                                  PyArray_Descr* const given[2], PyArray_Descr* loop[2], npy_intp*) {
    Py_INCREF(given[0]);
    loop[0] = given[0];
    loop[1] = int_runtime(int_index_of_dtype_class(dtypes[1])).descr;
    Py_INCREF(loop[1]);
    return NPY_UNSAFE_CASTING;
}

template <class Stored, bool Unicode>
int int_to_text(PyArrayMethod_Context* ctx, char* const data[], const npy_intp dims[],
                const npy_intp strides[], NpyAuxData*) {
    const npy_intp width = ctx->descriptors[1]->elsize;
    const char* in = data[0];
    char* out = data[1];
    for (npy_intp i = 0; i < dims[0]; i++, in += strides[0], out += strides[1]) {
        char digits[8];
        const int len = std::snprintf(digits, sizeof digits, "%d", static_cast<int>(*reinterpret_cast<const Stored*>(in)));
        if (Unicode) {
            const npy_intp chars = width / 4;
            for (npy_intp k = 0; k < chars; k++) {
                const Py_UCS4 c = k < len ? static_cast<Py_UCS4>(digits[k]) : 0;
                std::memcpy(out + 4 * k, &c, 4);
            }
        } else {
            for (npy_intp k = 0; k < width; k++) out[k] = k < len ? digits[k] : 0;
        }
    }
    return 0;
}

// Parsing goes through Python's int(): the same accepted spellings and the
// same OverflowError as setting an element from a string.
template <bool Unicode>
int text_to_int(PyArrayMethod_Context* ctx, char* const data[], const npy_intp dims[],
                const npy_intp strides[], NpyAuxData*) {
    const IntTypeRuntime& rt = int_runtime(int_index_of_descr(ctx->descriptors[1]));
    const npy_intp width = ctx->descriptors[0]->elsize;
    const char* in = data[0];
    char* out = data[1];
    for (npy_intp i = 0; i < dims[0]; i++, in += strides[0], out += strides[1]) {
        PyObject* text = text_item_object(in, width, Unicode);
        if (text == nullptr) return -1;
        int value = 0;
        const int status = int_value_from_object(rt, text, &value);
        Py_DECREF(text);
        if (status < 0) return -1;
        *out = static_cast<char>(int_code_of(value));
    }
    return 0;
}

// ---- spec helpers ------------------------------------------------------------

void add_pair(std::vector<PyArrayMethod_Spec*>& out, PyArray_DTypeMeta* mine, PyArray_DTypeMeta* other,
              Loop* to_other, NPY_CASTING to_level, Loop* from_other, NPY_CASTING from_level,
              NPY_ARRAYMETHOD_FLAGS from_flags) {
    out.push_back(make_method_spec("int_to_numpy", 1, 1, to_level,
                                   static_cast<NPY_ARRAYMETHOD_FLAGS>(NPY_METH_SUPPORTS_UNALIGNED | NPY_METH_NO_FLOATINGPOINT_ERRORS),
                                   {mine, other}, loop_slots(to_other)));
    out.push_back(make_method_spec("numpy_to_int", 1, 1, from_level,
                                   static_cast<NPY_ARRAYMETHOD_FLAGS>(NPY_METH_SUPPORTS_UNALIGNED | from_flags),
                                   {other, mine}, loop_slots(from_other)));
}

bool range_holds(int min_outer, long long max_outer, int min_inner, int max_inner) {
    return min_outer <= min_inner && max_outer >= max_inner;
}

template <class Stored>
void append_numpy_casts(int index, std::vector<PyArrayMethod_Spec*>& out) {
    IntTypeRuntime& rt = int_runtime(index);
    PyArray_DTypeMeta* mine = nullptr;  // this DType, in its own spec
    const NPY_ARRAYMETHOD_FLAGS quiet = NPY_METH_NO_FLOATINGPOINT_ERRORS;
    const NPY_ARRAYMETHOD_FLAGS warns = static_cast<NPY_ARRAYMETHOD_FLAGS>(0);
    // bool holds 0 and 1: int1 cannot hold 1
    add_pair(out, mine, &PyArray_BoolDType, int_to_bool<Stored>, NPY_UNSAFE_CASTING,
             integer_to_int<npy_bool>, rt.max >= 1 ? NPY_SAFE_CASTING : NPY_SAME_KIND_CASTING, quiet);

    struct IntegerTarget {
        int type_num;
        Loop* to;
        Loop* from;
    };
    const IntegerTarget integers[] = {
        {NPY_BYTE, int_to_number<Stored, npy_byte>, integer_to_int<npy_byte>},
        {NPY_UBYTE, int_to_number<Stored, npy_ubyte>, integer_to_int<npy_ubyte>},
        {NPY_SHORT, int_to_number<Stored, npy_short>, integer_to_int<npy_short>},
        {NPY_USHORT, int_to_number<Stored, npy_ushort>, integer_to_int<npy_ushort>},
        {NPY_INT, int_to_number<Stored, npy_int>, integer_to_int<npy_int>},
        {NPY_UINT, int_to_number<Stored, npy_uint>, integer_to_int<npy_uint>},
        {NPY_LONG, int_to_number<Stored, npy_long>, integer_to_int<npy_long>},
        {NPY_ULONG, int_to_number<Stored, npy_ulong>, integer_to_int<npy_ulong>},
        {NPY_LONGLONG, int_to_number<Stored, npy_longlong>, integer_to_int<npy_longlong>},
        {NPY_ULONGLONG, int_to_number<Stored, npy_ulonglong>, integer_to_int<npy_ulonglong>},
    };
    for (const IntegerTarget& t : integers) {
        PyArray_DTypeMeta* other = dtype_class_of_type_num(t.type_num);  // lives as long as NumPy
        PyArray_Descr* d = PyArray_DescrFromType(t.type_num);
        const int bits = static_cast<int>(d->elsize) * 8;
        Py_DECREF(d);
        const bool is_unsigned = PyTypeNum_ISUNSIGNED(t.type_num);
        const long long other_min = is_unsigned ? 0 : -(1ll << std::min(bits - 1, 62));
        const long long other_max = bits >= 63 ? (1ll << 62) : (is_unsigned ? (1ll << bits) - 1 : (1ll << (bits - 1)) - 1);
        const bool to_safe = other_min <= rt.min && other_max >= rt.max;
        const bool from_safe = rt.min <= other_min && rt.max >= other_max;
        add_pair(out, mine, other, t.to, to_safe ? NPY_SAFE_CASTING : NPY_SAME_KIND_CASTING, t.from,
                 from_safe ? NPY_SAFE_CASTING : NPY_SAME_KIND_CASTING, quiet);
        Py_DECREF(other);
    }
    add_pair(out, mine, &PyArray_HalfDType, int_to_half<Stored>, NPY_SAFE_CASTING, half_to_int,
             NPY_UNSAFE_CASTING, warns);
    add_pair(out, mine, &PyArray_FloatDType, int_to_number<Stored, float>, NPY_SAFE_CASTING,
             float_to_int<float, float>, NPY_UNSAFE_CASTING, warns);
    add_pair(out, mine, &PyArray_DoubleDType, int_to_number<Stored, double>, NPY_SAFE_CASTING,
             float_to_int<double, double>, NPY_UNSAFE_CASTING, warns);
    add_pair(out, mine, &PyArray_LongDoubleDType, int_to_number<Stored, long double>, NPY_SAFE_CASTING,
             float_to_int<long double, long double>, NPY_UNSAFE_CASTING, warns);

    // complex: ours -> complex is exact; back takes the real part (with
    // NumPy's ComplexWarning) and truncates it as from the float type
    struct ComplexKind {
        PyArray_DTypeMeta* dtype;
        Loop* to;
        Loop* from;
        void* get_loop;
    };
    const ComplexKind complexes[] = {
        {&PyArray_CFloatDType, int_to_complex<Stored, float>, complex_to_int<float>,
         reinterpret_cast<void*>(complex_to_real_get_loop<complex_to_int<float>>)},
        {&PyArray_CDoubleDType, int_to_complex<Stored, double>, complex_to_int<double>,
         reinterpret_cast<void*>(complex_to_real_get_loop<complex_to_int<double>>)},
        {&PyArray_CLongDoubleDType, int_to_complex<Stored, long double>, complex_to_int<long double>,
         reinterpret_cast<void*>(complex_to_real_get_loop<complex_to_int<long double>>)},
    };
    for (const ComplexKind& c : complexes) {
        out.push_back(make_method_spec("int_to_complex", 1, 1, NPY_SAFE_CASTING,
                                       static_cast<NPY_ARRAYMETHOD_FLAGS>(NPY_METH_SUPPORTS_UNALIGNED | NPY_METH_NO_FLOATINGPOINT_ERRORS),
                                       {mine, c.dtype}, loop_slots(c.to)));
        std::vector<PyType_Slot> from = loop_slots(c.from);
        from.push_back({NPY_METH_get_loop, c.get_loop});
        out.push_back(make_method_spec("complex_to_int", 1, 1, NPY_UNSAFE_CASTING, NPY_METH_SUPPORTS_UNALIGNED,
                                       {c.dtype, mine}, from));
    }

    // str and bytes
    const NPY_ARRAYMETHOD_FLAGS text_flags =
        static_cast<NPY_ARRAYMETHOD_FLAGS>(NPY_METH_SUPPORTS_UNALIGNED | NPY_METH_REQUIRES_PYAPI | NPY_METH_NO_FLOATINGPOINT_ERRORS);
    struct TextKind {
        PyArray_DTypeMeta* dtype;
        Loop* to;
        Loop* from;
    };
    const TextKind texts[] = {{&PyArray_UnicodeDType, int_to_text<Stored, true>, text_to_int<true>},
                              {&PyArray_BytesDType, int_to_text<Stored, false>, text_to_int<false>}};
    for (const TextKind& t : texts) {
        std::vector<PyType_Slot> to = loop_slots(t.to);
        to.push_back({NPY_METH_resolve_descriptors, reinterpret_cast<void*>(to_text_descriptors)});
        out.push_back(make_method_spec("int_to_text", 1, 1, NPY_SAFE_CASTING, text_flags, {mine, t.dtype}, to));
        std::vector<PyType_Slot> from = loop_slots(t.from);
        from.push_back({NPY_METH_resolve_descriptors, reinterpret_cast<void*>(from_text_descriptors)});
        out.push_back(make_method_spec("text_to_int", 1, 1, NPY_UNSAFE_CASTING, text_flags, {t.dtype, mine}, from));
    }
}

}  // namespace

void append_int_cast_specs(int index, std::vector<PyArrayMethod_Spec*>& out) {
    IntTypeRuntime& rt = int_runtime(index);
    const NPY_ARRAYMETHOD_FLAGS quiet =
        static_cast<NPY_ARRAYMETHOD_FLAGS>(NPY_METH_SUPPORTS_UNALIGNED | NPY_METH_NO_FLOATINGPOINT_ERRORS);
    out.push_back(make_method_spec("int_copy", 1, 1, NPY_NO_CASTING, quiet, {nullptr, nullptr},
                                   loop_slots(int_to_int)));
    for (int j = 0; j < index; j++) {  // both directions with the types registered before
        const IntTypeRuntime& other = int_runtime(j);
        const bool to_safe = range_holds(other.min, other.max, rt.min, rt.max);
        const bool from_safe = range_holds(rt.min, rt.max, other.min, other.max);
        out.push_back(make_method_spec("int_to_int", 1, 1, to_safe ? NPY_SAFE_CASTING : NPY_SAME_KIND_CASTING,
                                       quiet, {nullptr, &int_runtime(j).dtype_class}, loop_slots(int_to_int)));
        out.push_back(make_method_spec("int_to_int", 1, 1, from_safe ? NPY_SAFE_CASTING : NPY_SAME_KIND_CASTING,
                                       quiet, {&int_runtime(j).dtype_class, nullptr}, loop_slots(int_to_int)));
    }
    if (rt.row->is_signed) {
        append_numpy_casts<int8_t>(index, out);
    } else {
        append_numpy_casts<uint8_t>(index, out);
    }
}

}  // namespace minifloat
