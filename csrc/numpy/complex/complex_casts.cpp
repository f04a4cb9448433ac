// Casts of complex32 and bcomplex32 with NumPy's bool, integer, float and
// complex types, the float formats, each other, ml_dtypes' complex types,
// str and bytes. Every value passes through binary64 pairs that hold it
// exactly (integers past 2^53 and long doubles rounded to odd, so the part
// rounds once); complex64 and complex128 are part arrays of 2n values and
// convert directly. Complex to real keeps the real part with NumPy's
// ComplexWarning, as complex64 -> float32 does.
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "cast_specs.h"
#include "complex_types.h"
#include "format_types.h"
#include "decode_blocks.h"
#include "float_to_integer.h"
#include "fp_status.h"
#include "half_float.h"
#include "int_types.h"
#include "promotion.h"
#include "registry.h"
#include "strided_driver.h"

namespace minifloat {

namespace {

constexpr size_t kChunk = 256;  // elements per block: 2 * 256 doubles on the stack

// f(start, count) over [0, n) in chunks of at most kChunk; the FpFlag bits
// f returns, or-ed.
template <class F>
uint32_t by_chunks(size_t n, F&& f) {
    uint32_t flags = 0;
    for (size_t start = 0; start < n; start += kChunk) flags |= f(start, n - start < kChunk ? n - start : kChunk);
    return flags;
}

struct Bool {
    npy_bool value;
};
struct Half {
    npy_half bits;
};

// ---- element types ------------------------------------------------------------

// Tags for the types that are not one C type: a float format's codes, the
// other complex type's parts. `other` (below) is the format's index / the
// other complex kind.
struct FormatCode {};
struct OtherComplex {};

template <class T>
size_t itemsize_of(int other) {
    if constexpr (std::is_same_v<T, FormatCode>) {
        return static_cast<size_t>(runtime(other).format.storage_bytes);
    } else if constexpr (std::is_same_v<T, OtherComplex>) {
        (void)other;
        return 4;
    } else {
        (void)other;
        return sizeof(T);
    }
}

template <class T>
constexpr bool is_complex_v = std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>> ||
                              std::is_same_v<T, std::complex<long double>> || std::is_same_v<T, OtherComplex>;

// ---- into a complex type -------------------------------------------------------

template <class Src>
void to_pairs(int other, const char* in_bytes, double* pairs, size_t n) {
    if constexpr (std::is_same_v<Src, FormatCode>) {
        double values[kChunk];
        decode_codes_to_f64(runtime(other), in_bytes, values, n);
        for (size_t i = 0; i < n; i++) {
            pairs[2 * i] = values[i];
            pairs[2 * i + 1] = 0.0;
        }
    } else if constexpr (std::is_same_v<Src, OtherComplex>) {
        decode_parts_f64(complex_runtime(other).codec, reinterpret_cast<const uint16_t*>(in_bytes), pairs, 2 * n);
    } else {
        const Src* in = reinterpret_cast<const Src*>(in_bytes);
        for (size_t i = 0; i < n; i++) {
            double re = 0.0, im = 0.0;
            if constexpr (std::is_same_v<Src, Bool>) {
                re = in[i].value ? 1.0 : 0.0;
            } else if constexpr (std::is_same_v<Src, Half>) {
                float f;
                half_to_float(&in[i].bits, &f, 1);
                re = f;
            } else if constexpr (std::is_same_v<Src, long double>) {
                re = long_double_for_parts(in[i]);
            } else if constexpr (std::is_same_v<Src, std::complex<long double>>) {
                re = long_double_for_parts(in[i].real());
                im = long_double_for_parts(in[i].imag());
            } else if constexpr (std::is_integral_v<Src> && sizeof(Src) == 8 && std::is_signed_v<Src>) {
                re = int64_for_parts(static_cast<int64_t>(in[i]));
            } else if constexpr (std::is_integral_v<Src> && sizeof(Src) == 8) {
                re = uint64_for_parts(static_cast<uint64_t>(in[i]));
            } else {
                re = static_cast<double>(in[i]);
            }
            pairs[2 * i] = re;
            pairs[2 * i + 1] = im;
        }
    }
}

template <class Src>
uint32_t into_complex(int kind, int other, const char* in, char* out, size_t n) {
    const PartCodec& codec = complex_runtime(kind).codec;
    uint16_t* parts = reinterpret_cast<uint16_t*>(out);
    if constexpr (std::is_same_v<Src, std::complex<float>>) {
        return encode_parts_f32(codec, reinterpret_cast<const float*>(in), parts, 2 * n);
    } else if constexpr (std::is_same_v<Src, std::complex<double>>) {
        return encode_parts_f64(codec, reinterpret_cast<const double*>(in), parts, 2 * n);
    } else if constexpr (std::is_same_v<Src, float>) {
        float values[2 * kChunk];
        const float* src = reinterpret_cast<const float*>(in);
        return by_chunks(n, [&](size_t start, size_t count) {
            for (size_t i = 0; i < count; i++) {
                values[2 * i] = src[start + i];
                values[2 * i + 1] = 0.0f;
            }
            return encode_parts_f32(codec, values, parts + 2 * start, 2 * count);
        });
    } else {
        double pairs[2 * kChunk];
        const size_t item = itemsize_of<Src>(other);
        return by_chunks(n, [&](size_t start, size_t count) {
            to_pairs<Src>(other, in + start * item, pairs, count);
            return encode_parts_f64(codec, pairs, parts + 2 * start, 2 * count);
        });
    }
}

// ---- out of a complex type ------------------------------------------------------

template <class Dst>
uint32_t out_of_complex(int kind, int other, const char* in, char* out_bytes, size_t n) {
    const PartCodec& codec = complex_runtime(kind).codec;
    const uint16_t* parts = reinterpret_cast<const uint16_t*>(in);
    if constexpr (std::is_same_v<Dst, std::complex<float>>) {
        decode_parts_f32(codec, parts, reinterpret_cast<float*>(out_bytes), 2 * n);
        return 0;
    } else if constexpr (std::is_same_v<Dst, std::complex<double>>) {
        decode_parts_f64(codec, parts, reinterpret_cast<double*>(out_bytes), 2 * n);
        return 0;
    } else if constexpr (std::is_same_v<Dst, Bool>) {
        Bool* out = reinterpret_cast<Bool*>(out_bytes);
        for (size_t i = 0; i < n; i++) out[i].value = ((parts[2 * i] | parts[2 * i + 1]) & 0x7FFFu) != 0;
        return 0;
    } else if constexpr (std::is_same_v<Dst, Half>) {
        uint16_t* out = reinterpret_cast<uint16_t*>(out_bytes);
        if (kind == kComplex32) {
            for (size_t i = 0; i < n; i++) out[i] = parts[2 * i];
            return 0;
        }
        float values[2 * kChunk], reals[kChunk];
        return by_chunks(n, [&](size_t start, size_t count) {
            decode_parts_f32(codec, parts + 2 * start, values, 2 * count);
            for (size_t i = 0; i < count; i++) reals[i] = values[2 * i];
            const uint32_t flags = encode_f32(half_float_codec().plan, reals, out + start, count);
            return flags | float16_underflow(reals, out + start, count);  // (reads the halves just written)
        });
    } else {
        // through float32 pairs (exact for both part formats)
        float values[2 * kChunk];
        const size_t item = itemsize_of<Dst>(other);
        return by_chunks(n, [&](size_t start, size_t count) {
            uint32_t flags = 0;
            decode_parts_f32(codec, parts + 2 * start, values, 2 * count);
            char* dst = out_bytes + start * item;
            if constexpr (std::is_same_v<Dst, OtherComplex>) {
                flags |= encode_parts_f32(complex_runtime(other).codec, values, reinterpret_cast<uint16_t*>(dst),
                                          2 * count);
            } else if constexpr (std::is_same_v<Dst, std::complex<long double>>) {
                auto* o = reinterpret_cast<std::complex<long double>*>(dst);
                for (size_t i = 0; i < count; i++) o[i] = {values[2 * i], values[2 * i + 1]};
            } else {
                float reals[kChunk];
                for (size_t i = 0; i < count; i++) reals[i] = values[2 * i];
                if constexpr (std::is_same_v<Dst, FormatCode>) {
                    flags |= encode_f32(runtime(other).default_plan, reals, dst, count);
                } else if constexpr (std::is_floating_point_v<Dst>) {
                    Dst* o = reinterpret_cast<Dst*>(dst);
                    for (size_t i = 0; i < count; i++) o[i] = static_cast<Dst>(reals[i]);
                } else {
                    flags |= floats_to_integers(integer_kind_of<Dst>(), reals, dst, count);
                }
            }
            return flags;
        });
    }
}

// ---- loops -------------------------------------------------------------------------

// The index a format/complex descriptor stands for (its format or kind).
int other_of(const PyArray_Descr* d) {
    const int kind = complex_kind_of_descr(d);
    return kind >= 0 ? kind : format_index_of_descr(d);
}

Operand operand(char* data, npy_intp stride, const PyArray_Descr* descr) {
    return {data, stride, static_cast<size_t>(PyDataType_ELSIZE(descr)),
            static_cast<size_t>(PyDataType_ALIGNMENT(descr))};
}

using Block = uint32_t (*)(int kind, int other, const char* in, char* out, size_t n);

// ComplexSide: which operand is the complex32/bcomplex32 one.
template <Block B, int ComplexSide>
int cast_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
              const npy_intp strides[], NpyAuxData*) {
    const int kind = complex_kind_of_descr(context->descriptors[ComplexSide]);
    const int other = other_of(context->descriptors[1 - ComplexSide]);
    const Operand in = operand(data[0], strides[0], context->descriptors[0]);
    const Operand out = operand(data[1], strides[1], context->descriptors[1]);
    raise_fp_flags(run_unary_strided(in, out, dimensions[0], [kind, other](const char* i, char* o, size_t n) {
        return B(kind, other, i, o, n);
    }));
    return 0;
}

int copy_loop(PyArrayMethod_Context*, char* const data[], const npy_intp dimensions[], const npy_intp strides[],
              NpyAuxData*) {
    const char* in = data[0];
    char* out = data[1];
    for (npy_intp i = 0; i < dimensions[0]; i++, in += strides[0], out += strides[1]) std::memcpy(out, in, 4);
    return 0;
}

NPY_CASTING same_type_resolve(PyObject*, PyArray_DTypeMeta* const[], PyArray_Descr* const given[],
                              PyArray_Descr* loop[], npy_intp* view_offset) {
    Py_INCREF(given[0]);
    loop[0] = given[0];
    PyArray_Descr* out = given[1] != nullptr ? given[1] : given[0];
    Py_INCREF(out);
    loop[1] = out;
    *view_offset = 0;
    return NPY_NO_CASTING;
}

// Same layout, other library's type (ml_dtypes): the same bytes, a view.
NPY_CASTING same_layout_resolve(PyObject*, PyArray_DTypeMeta* const dtypes[], PyArray_Descr* const given[],
                                PyArray_Descr* loop[], npy_intp* view_offset) {
    for (int i = 0; i < 2; i++) {
        loop[i] = given[i] != nullptr ? given[i] : PyArray_GetDefaultDescr(dtypes[i]);
        if (given[i] != nullptr) Py_INCREF(given[i]);
        if (loop[i] == nullptr) return static_cast<NPY_CASTING>(-1);
    }
    *view_offset = 0;
    return NPY_EQUIV_CASTING;
}

// Both directions with one other type. `in_others_spec`: the specs go into
// the other DType's own spec (a format made by mf.float_format after the
// complex types exist), where nullptr stands for that DType instead.
template <class T>
void append_pair(int kind, PyArray_DTypeMeta* other_class, const std::string& other_name, NPY_CASTING into,
                 NPY_CASTING out_of, std::vector<PyArrayMethod_Spec*>& out, bool in_others_spec = false) {
    const std::string name = complex_runtime(kind).name;
    constexpr PyArrayMethod_StridedLoop* into_loop = cast_loop<into_complex<T>, 1>;
    constexpr PyArrayMethod_StridedLoop* out_loop = cast_loop<out_of_complex<T>, 0>;
    const auto flags = static_cast<NPY_ARRAYMETHOD_FLAGS>(NPY_METH_SUPPORTS_UNALIGNED);
    PyArray_DTypeMeta* self_class = nullptr;
    if (in_others_spec) {
        self_class = &complex_runtime(kind).dtype_class;
        other_class = nullptr;
    }
    out.push_back(make_method_spec((other_name + "_to_" + name).c_str(), 1, 1, into, flags, {other_class, self_class},
                                   loop_slots(into_loop)));
    // widening into NumPy's float and complex types is exact: no FP error
    // (a signalling NaN part widens silently, as float16 -> float64 does)
    constexpr bool widening = std::is_floating_point_v<T> || std::is_same_v<T, std::complex<float>> ||
                              std::is_same_v<T, std::complex<double>> ||
                              std::is_same_v<T, std::complex<long double>>;
    const auto out_flags =
        widening ? static_cast<NPY_ARRAYMETHOD_FLAGS>(flags | NPY_METH_NO_FLOATINGPOINT_ERRORS) : flags;
    std::vector<PyType_Slot> slots = loop_slots(out_loop);
    // complex -> bool keeps both parts (nonzero either way): no warning, as complex64 -> bool
    if constexpr (!is_complex_v<T> && !std::is_same_v<T, Bool>) {
        slots.push_back({NPY_METH_get_loop, reinterpret_cast<void*>(complex_to_real_get_loop<out_loop>)});
    }
    out.push_back(make_method_spec((name + "_to_" + other_name).c_str(), 1, 1, out_of, out_flags, {self_class, other_class},
                                   std::move(slots)));
}

// ---- minifloat's sub-byte integers --------------------------------------------------

// int1..uint4 (one byte each, signed ones sign-extended) hold small integers,
// exact in either part type: into a complex type is safe. Back, the real
// part is truncated as a float converts into these types (NaN, inf and
// values out of range give 0 and "invalid"), after NumPy's ComplexWarning.
int int_type_into_complex(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                          const npy_intp strides[], NpyAuxData*) {
    const int kind = complex_kind_of_descr(context->descriptors[1]);
    const IntTypeRuntime& rt = int_runtime(int_index_of_descr(context->descriptors[0]));
    const char* in = data[0];
    char* out = data[1];
    for (npy_intp i = 0; i < dimensions[0]; i++, in += strides[0], out += strides[1]) {
        uint16_t parts[2];
        encode_complex_value(kind, int_value_of(rt, *reinterpret_cast<const uint8_t*>(in)), 0.0, parts);
        std::memcpy(out, parts, 4);
    }
    return 0;
}

int complex_into_int_type(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                          const npy_intp strides[], NpyAuxData*) {
    const int kind = complex_kind_of_descr(context->descriptors[0]);
    const IntTypeRuntime& rt = int_runtime(int_index_of_descr(context->descriptors[1]));
    const double below = rt.min - 1.0, above = rt.max + 1.0;
    const char* in = data[0];
    char* out = data[1];
    bool invalid = false;
    for (npy_intp i = 0; i < dimensions[0]; i++, in += strides[0], out += strides[1]) {
        uint16_t parts[2];
        std::memcpy(parts, in, 4);
        double re = 0, im = 0;
        decode_complex_value(kind, parts, &re, &im);
        const bool inside = re > below && re < above;  // (false for NaN)
        invalid |= !inside;
        *reinterpret_cast<uint8_t*>(out) = inside ? int_code_of(static_cast<int>(re)) : uint8_t{0};
    }
    if (invalid) raise_fp_flags(kFlagInvalid);
    return 0;
}

void append_int_types(int kind, std::vector<PyArrayMethod_Spec*>& out) {
    const std::string name = complex_runtime(kind).name;
    for (int j = 0; j < kIntFormatCount; j++) {
        PyArray_DTypeMeta* cls = &int_runtime(j).dtype_class;
        const std::string other = int_runtime(j).row->name;
        out.push_back(make_method_spec(
            (other + "_to_" + name).c_str(), 1, 1, NPY_SAFE_CASTING,
            static_cast<NPY_ARRAYMETHOD_FLAGS>(NPY_METH_SUPPORTS_UNALIGNED | NPY_METH_NO_FLOATINGPOINT_ERRORS),
            {cls, nullptr}, loop_slots(int_type_into_complex)));
        std::vector<PyType_Slot> slots = loop_slots(complex_into_int_type);
        slots.push_back({NPY_METH_get_loop, reinterpret_cast<void*>(complex_to_real_get_loop<complex_into_int_type>)});
        out.push_back(make_method_spec((name + "_to_" + other).c_str(), 1, 1, NPY_UNSAFE_CASTING,
                                       NPY_METH_SUPPORTS_UNALIGNED, {nullptr, cls}, std::move(slots)));
    }
}

// ---- casting safety from exact representability -----------------------------------

NPY_CASTING into_casting(int kind, int type_num) {
    if (type_num == NPY_BOOL || type_num == NPY_BYTE || type_num == NPY_UBYTE) return NPY_SAFE_CASTING;
    if (type_num == NPY_HALF) return kind == kComplex32 ? NPY_SAFE_CASTING : NPY_SAME_KIND_CASTING;
    return NPY_SAME_KIND_CASTING;  // wider integers, floats, complex
}

NPY_CASTING out_of_casting(int type_num) {
    // complex64 holds every float16 and bfloat16 pair; complex to real is unsafe
    return PyTypeNum_ISCOMPLEX(type_num) ? NPY_SAFE_CASTING : NPY_UNSAFE_CASTING;
}

template <class T>
void append_builtin(int kind, PyArray_DTypeMeta* cls, std::vector<PyArrayMethod_Spec*>& out) {
    append_pair<T>(kind, cls, reinterpret_cast<PyTypeObject*>(cls)->tp_name, into_casting(kind, cls->type_num),
                   out_of_casting(cls->type_num), out);
}

// ---- text ----------------------------------------------------------------------------

// str/bytes items hold the scalar's text (its str()); from text, complex()
// of the string, rounded once per part. Through Python objects: text casts
// are not the fast path of anything.
template <bool Unicode>
int to_text_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                 const npy_intp strides[], NpyAuxData*) {
    const int kind = complex_kind_of_descr(context->descriptors[0]);
    const size_t out_size = static_cast<size_t>(PyDataType_ELSIZE(context->descriptors[1]));
    const char* in = data[0];
    char* out = data[1];
    for (npy_intp i = 0; i < dimensions[0]; i++, in += strides[0], out += strides[1]) {
        uint16_t parts[2];
        std::memcpy(parts, in, 4);
        PyObject* text = complex_str(kind, parts);
        if (text == nullptr) return -1;
        std::memset(out, 0, out_size);
        if constexpr (Unicode) {
            const Py_ssize_t length = PyUnicode_GET_LENGTH(text);
            const size_t capacity = out_size / 4;
            for (Py_ssize_t k = 0; k < length && static_cast<size_t>(k) < capacity; k++) {
                const Py_UCS4 c = PyUnicode_READ_CHAR(text, k);
                std::memcpy(out + 4 * k, &c, 4);
            }
        } else {
            Py_ssize_t length = 0;
            const char* utf8 = PyUnicode_AsUTF8AndSize(text, &length);
            if (utf8 == nullptr) {
                Py_DECREF(text);
                return -1;
            }
            std::memcpy(out, utf8, std::min(static_cast<size_t>(length), out_size));
        }
        Py_DECREF(text);
    }
    return 0;
}

template <bool Unicode>
int from_text_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                   const npy_intp strides[], NpyAuxData*) {
    const int kind = complex_kind_of_descr(context->descriptors[1]);
    const size_t in_size = static_cast<size_t>(PyDataType_ELSIZE(context->descriptors[0]));
    const char* in = data[0];
    char* out = data[1];
    uint32_t flags = 0;
    for (npy_intp i = 0; i < dimensions[0]; i++, in += strides[0], out += strides[1]) {
        PyObject* text;
        if constexpr (Unicode) {
            text = text_item_object(in, static_cast<npy_intp>(in_size), true);
        } else {  // as str: complex() takes no bytes
            size_t length = in_size;
            while (length > 0 && in[length - 1] == 0) length--;
            text = PyUnicode_DecodeASCII(in, static_cast<Py_ssize_t>(length), "strict");
        }
        if (text == nullptr) return -1;
        double re = 0, im = 0;
        const int status = complex_from_object(kind, text, &re, &im);
        Py_DECREF(text);
        if (status < 0) return -1;
        uint16_t parts[2];
        flags |= encode_complex_value(kind, re, im, parts);
        std::memcpy(out, parts, 4);
    }
    raise_fp_flags(flags);
    return 0;
}

constexpr npy_intp kTextLength = 48;  // room for "(-6.1035156e-05-6.1035156e-05j)" and bfloat16's

template <bool Unicode>
NPY_CASTING to_text_resolve(PyObject*, PyArray_DTypeMeta* const dtypes[], PyArray_Descr* const given[],
                            PyArray_Descr* loop[], npy_intp*) {
    Py_INCREF(given[0]);
    loop[0] = given[0];
    if (given[1] != nullptr) {
        Py_INCREF(given[1]);
        loop[1] = given[1];
    } else {
        PyArray_Descr* d = PyArray_DescrNewFromType(Unicode ? NPY_UNICODE : NPY_STRING);
        if (d == nullptr) return static_cast<NPY_CASTING>(-1);
        d->elsize = Unicode ? 4 * kTextLength : kTextLength;
        loop[1] = d;
    }
    (void)dtypes;
    // as NumPy's complex64 -> str: safe when long enough, else same-kind
    return PyDataType_ELSIZE(loop[1]) >= (Unicode ? 4 : 1) * kTextLength ? NPY_SAFE_CASTING : NPY_SAME_KIND_CASTING;
}

NPY_CASTING from_text_resolve(PyObject*, PyArray_DTypeMeta* const dtypes[], PyArray_Descr* const given[],
                              PyArray_Descr* loop[], npy_intp*) {
    Py_INCREF(given[0]);
    loop[0] = given[0];
    loop[1] = given[1] != nullptr ? given[1] : PyArray_GetDefaultDescr(dtypes[1]);
    if (given[1] != nullptr) Py_INCREF(given[1]);
    return NPY_UNSAFE_CASTING;
}

template <bool Unicode>
void append_text(int kind, std::vector<PyArrayMethod_Spec*>& out) {
    const std::string name = complex_runtime(kind).name;
    PyArray_DTypeMeta* cls = Unicode ? &PyArray_UnicodeDType : &PyArray_BytesDType;
    const std::string other = Unicode ? "str" : "bytes";
    const auto flags = static_cast<NPY_ARRAYMETHOD_FLAGS>(NPY_METH_SUPPORTS_UNALIGNED | NPY_METH_REQUIRES_PYAPI);
    std::vector<PyType_Slot> to = loop_slots(to_text_loop<Unicode>);
    to.push_back({NPY_METH_resolve_descriptors, reinterpret_cast<void*>(to_text_resolve<Unicode>)});
    // the text of a NaN part comes from float16's str, which can leave the
    // invalid flag set; writing text raises no FP error (as complex64's)
    const auto to_flags = static_cast<NPY_ARRAYMETHOD_FLAGS>(flags | NPY_METH_NO_FLOATINGPOINT_ERRORS);
    out.push_back(make_method_spec((name + "_to_" + other).c_str(), 1, 1, NPY_SAFE_CASTING, to_flags, {nullptr, cls},
                                   std::move(to)));
    std::vector<PyType_Slot> from = loop_slots(from_text_loop<Unicode>);
    from.push_back({NPY_METH_resolve_descriptors, reinterpret_cast<void*>(from_text_resolve)});
    out.push_back(make_method_spec((other + "_to_" + name).c_str(), 1, 1, NPY_UNSAFE_CASTING, flags, {cls, nullptr},
                                   std::move(from)));
}

// ---- ml_dtypes ------------------------------------------------------------------------

// ml_dtypes' DType class of its type of the same name (complex32,
// bcomplex32), when ml_dtypes is installed and not skipped
// (MINIFLOAT_NO_ML_DTYPES); new reference or nullptr.
PyArray_DTypeMeta* ml_dtypes_class(int kind) {
    const char* skip = std::getenv("MINIFLOAT_NO_ML_DTYPES");
    if (skip != nullptr && skip[0] != '\0' && std::strcmp(skip, "0") != 0) return nullptr;
    PyObject* module = PyImport_ImportModule("ml_dtypes");
    if (module == nullptr) {
        PyErr_Clear();
        return nullptr;
    }
    PyObject* scalar_type = PyObject_GetAttrString(module, complex_runtime(kind).name);
    Py_DECREF(module);
    if (scalar_type == nullptr) {  // ml_dtypes before 0.6
        PyErr_Clear();
        return nullptr;
    }
    PyArray_Descr* descr = nullptr;
    const bool converted = PyArray_DescrConverter(scalar_type, &descr) == NPY_SUCCEED;
    Py_DECREF(scalar_type);
    if (!converted) {
        PyErr_Clear();
        return nullptr;
    }
    PyArray_DTypeMeta* cls = reinterpret_cast<PyArray_DTypeMeta*>(Py_TYPE(descr));
    const bool usable = PyDataType_ELSIZE(descr) == 4 && descr->type_num >= NPY_USERDEF &&
                        complex_kind_of_dtype_class(cls) < 0;
    Py_DECREF(descr);
    if (!usable) return nullptr;
    Py_INCREF(cls);
    return cls;
}

int copy_to_ml_loop(PyArrayMethod_Context* c, char* const d[], const npy_intp n[], const npy_intp s[],
                    NpyAuxData* a) {
    return copy_loop(c, d, n, s, a);
}

// ml_dtypes' complex type of kind MlKind with ours of the other kind:
// ComplexSide 1 reads ml_dtypes' parts into ours, 0 writes ours into its.
template <int MlKind, int ComplexSide>
int cross_ml_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                  const npy_intp strides[], NpyAuxData*) {
    const int kind = complex_kind_of_descr(context->descriptors[ComplexSide]);
    const Operand in = operand(data[0], strides[0], context->descriptors[0]);
    const Operand out = operand(data[1], strides[1], context->descriptors[1]);
    raise_fp_flags(run_unary_strided(in, out, dimensions[0], [kind](const char* i, char* o, size_t n) {
        return ComplexSide == 1 ? into_complex<OtherComplex>(kind, MlKind, i, o, n)
                                : out_of_complex<OtherComplex>(kind, MlKind, i, o, n);
    }));
    return 0;
}

void append_ml_dtypes(int kind, std::vector<PyArrayMethod_Spec*>& out) {
    const std::string name = complex_runtime(kind).name;
    for (int k = 0; k < kComplexCount; k++) {
        PyArray_DTypeMeta* cls = ml_dtypes_class(k);
        if (cls == nullptr) continue;
        const std::string ml_name = std::string("ml_dtypes.") + complex_runtime(k).name;
        const auto flags = static_cast<NPY_ARRAYMETHOD_FLAGS>(NPY_METH_SUPPORTS_UNALIGNED);
        if (k == kind) {  // the same bits: a copy, or a view
            const auto copy_flags = static_cast<NPY_ARRAYMETHOD_FLAGS>(flags | NPY_METH_NO_FLOATINGPOINT_ERRORS);
            for (int direction = 0; direction < 2; direction++) {
                std::vector<PyType_Slot> slots = loop_slots(copy_to_ml_loop);
                slots.push_back({NPY_METH_resolve_descriptors, reinterpret_cast<void*>(same_layout_resolve)});
                out.push_back(make_method_spec(
                    (direction == 0 ? ml_name + "_to_" + name : name + "_to_" + ml_name).c_str(), 1, 1,
                    NPY_EQUIV_CASTING, copy_flags,
                    direction == 0 ? std::vector<PyArray_DTypeMeta*>{cls, nullptr}
                                   : std::vector<PyArray_DTypeMeta*>{nullptr, cls},
                    std::move(slots)));
            }
        }
        if (k != kind) {
            // ml_dtypes' other complex type: its parts are those of our other
            // kind, each rounded once into ours (as between mf.complex32 and
            // mf.bcomplex32)
            const auto into = k == kComplex32 ? cross_ml_loop<kComplex32, 1> : cross_ml_loop<kBComplex32, 1>;
            const auto out_of = k == kComplex32 ? cross_ml_loop<kComplex32, 0> : cross_ml_loop<kBComplex32, 0>;
            out.push_back(make_method_spec((ml_name + "_to_" + name).c_str(), 1, 1, NPY_SAME_KIND_CASTING, flags,
                                           {cls, nullptr}, loop_slots(into)));
            out.push_back(make_method_spec((name + "_to_" + ml_name).c_str(), 1, 1, NPY_SAME_KIND_CASTING, flags,
                                           {nullptr, cls}, loop_slots(out_of)));
        }
    }
}

}  // namespace

void append_complex_cast_specs(int kind, std::vector<PyArrayMethod_Spec*>& out) {
    const std::string name = complex_runtime(kind).name;
    {
        std::vector<PyType_Slot> slots = loop_slots(copy_loop);
        slots.push_back({NPY_METH_resolve_descriptors, reinterpret_cast<void*>(same_type_resolve)});
        out.push_back(make_method_spec((name + "_copy").c_str(), 1, 1, NPY_NO_CASTING,
                                       static_cast<NPY_ARRAYMETHOD_FLAGS>(NPY_METH_SUPPORTS_UNALIGNED |
                                                                          NPY_METH_NO_FLOATINGPOINT_ERRORS),
                                       {nullptr, nullptr}, std::move(slots)));
    }
    append_builtin<Bool>(kind, &PyArray_BoolDType, out);
    append_builtin<npy_byte>(kind, &PyArray_ByteDType, out);
    append_builtin<npy_ubyte>(kind, &PyArray_UByteDType, out);
    append_builtin<npy_short>(kind, &PyArray_ShortDType, out);
    append_builtin<npy_ushort>(kind, &PyArray_UShortDType, out);
    append_builtin<npy_int>(kind, &PyArray_IntDType, out);
    append_builtin<npy_uint>(kind, &PyArray_UIntDType, out);
    append_builtin<npy_long>(kind, &PyArray_LongDType, out);
    append_builtin<npy_ulong>(kind, &PyArray_ULongDType, out);
    append_builtin<npy_longlong>(kind, &PyArray_LongLongDType, out);
    append_builtin<npy_ulonglong>(kind, &PyArray_ULongLongDType, out);
    append_builtin<Half>(kind, &PyArray_HalfDType, out);
    append_builtin<float>(kind, &PyArray_FloatDType, out);
    append_builtin<double>(kind, &PyArray_DoubleDType, out);
    append_builtin<long double>(kind, &PyArray_LongDoubleDType, out);
    append_builtin<std::complex<float>>(kind, &PyArray_CFloatDType, out);
    append_builtin<std::complex<double>>(kind, &PyArray_CDoubleDType, out);
    append_builtin<std::complex<long double>>(kind, &PyArray_CLongDoubleDType, out);
    // the other complex type (registered by the second one, both directions)
    if (kind == kBComplex32) {
        append_pair<OtherComplex>(kind, &complex_runtime(kComplex32).dtype_class, complex_runtime(kComplex32).name,
                                  NPY_SAME_KIND_CASTING, NPY_SAME_KIND_CASTING, out);
    }
    // every built-in float format: its values as the real part
    for (int f = 0; f < kBuiltinFormatCount; f++) {
        const bool holds = kind == kComplex32 ? runtime(f).fits_float16 : format_is_subset(f, bfloat16_format_index());
        append_pair<FormatCode>(kind, &format_types(f).dtype_class, runtime(f).name,
                                holds ? NPY_SAFE_CASTING : NPY_SAME_KIND_CASTING, NPY_UNSAFE_CASTING, out);
    }
    append_int_types(kind, out);
    append_text<true>(kind, out);
    append_text<false>(kind, out);
    append_ml_dtypes(kind, out);
}

void append_format_complex_cast_specs(int format_index, std::vector<PyArrayMethod_Spec*>& out) {
    for (int kind = 0; kind < kComplexCount; kind++) {
        if (complex_runtime(kind).descr == nullptr) return;  // (the built-in formats: registered by the complex side)
        const bool holds = kind == kComplex32 ? runtime(format_index).fits_float16
                                              : format_is_subset(format_index, bfloat16_format_index());
        append_pair<FormatCode>(kind, &format_types(format_index).dtype_class, runtime(format_index).name,
                                holds ? NPY_SAFE_CASTING : NPY_SAME_KIND_CASTING, NPY_UNSAFE_CASTING, out, true);
    }
}

}  // namespace minifloat
