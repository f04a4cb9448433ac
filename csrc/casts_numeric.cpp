// Casts between the formats and NumPy's bool, integer, floating and complex
// types. Every direction converts contiguous blocks; strides, alignment and
// byte order are handled around the blocks (byte-swapped inputs are made
// native by NumPy before they reach these loops, via ensure_canonical).
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <type_traits>

#include "cast_specs.h"
#include "codec.h"
#include "decode_blocks.h"
#include "fp_status.h"
#include "half_float.h"
#include "promotion.h"
#include "registry.h"
#include "strided_driver.h"

namespace minifloat {

namespace {

constexpr size_t kChunk = 512;

using BlockFn = uint32_t (*)(const FormatRuntime&, const char* in, char* out, size_t n);

// NumPy's bool, as a type of its own (npy_bool is the same C type as npy_ubyte).
struct Bool {
    npy_bool value;
};

// NumPy's float16, as a type of its own (npy_half is the same C type as npy_ushort).
struct Half {
    npy_half bits;
};
static_assert(sizeof(Half) == sizeof(npy_half), "Half must alias npy_half storage");

// ---- into a format -------------------------------------------------------

template <class Src>
uint32_t encode_block(const FormatRuntime& rt, const char* in_bytes, char* out, size_t n) {
    const Src* in = reinterpret_cast<const Src*>(in_bytes);
    const size_t out_size = static_cast<size_t>(rt.format.storage_bytes);
    uint32_t flags = 0;
    if constexpr (std::is_same_v<Src, float>) {
        flags = encode_f32(rt.default_plan, in, out, n);
    } else if constexpr (std::is_same_v<Src, double>) {
        flags = encode_f64(rt.default_plan, in, out, n);
    } else if constexpr (std::is_same_v<Src, long double>) {
        for (size_t i = 0; i < n; i++) {
            const Encoded e = encode_from_long_double(rt.format, rt.default_specials, in[i]);
            store_code(rt, out + i * out_size, e.code);
            flags |= e.flags;
        }
    } else if constexpr (std::is_same_v<Src, Half>) {
        float buffer[kChunk];
        for (size_t start = 0; start < n; start += kChunk) {
            const size_t count = n - start < kChunk ? n - start : kChunk;
            half_to_float(&in[start].bits, buffer, count);
            flags |= encode_f32(rt.default_plan, buffer, out + start * out_size, count);
        }
    } else if constexpr (std::is_same_v<Src, Bool>) {
        float buffer[kChunk];
        for (size_t start = 0; start < n; start += kChunk) {
            const size_t count = n - start < kChunk ? n - start : kChunk;
            for (size_t i = 0; i < count; i++) buffer[i] = in[start + i].value ? 1.0f : 0.0f;
            flags |= encode_f32(rt.default_plan, buffer, out + start * out_size, count);
        }
    } else {
        static_assert(std::is_integral_v<Src>, "integer source expected");
        // Integers up to 2^53 are exact in binary64; wider ones are redone
        // exactly (their binary64 rounding could create a false tie).
        double buffer[kChunk];
        for (size_t start = 0; start < n; start += kChunk) {
            const size_t count = n - start < kChunk ? n - start : kChunk;
            bool any_wide = false;
            for (size_t i = 0; i < count; i++) {
                buffer[i] = static_cast<double>(in[start + i]);
                if constexpr (sizeof(Src) == 8) {
                    any_wide |= std::fabs(buffer[i]) > 9007199254740992.0;
                }
            }
            char* block_out = out + start * out_size;
            flags |= encode_f64(rt.default_plan, buffer, block_out, count);
            if constexpr (sizeof(Src) == 8) {
                if (any_wide) {
                    for (size_t i = 0; i < count; i++) {
                        if (std::fabs(buffer[i]) <= 9007199254740992.0) continue;
                        const Encoded e =
                            std::is_signed_v<Src>
                                ? encode_from_int64(rt.format, rt.default_specials,
                                                    static_cast<int64_t>(in[start + i]))
                                : encode_from_uint64(rt.format, rt.default_specials,
                                                     static_cast<uint64_t>(in[start + i]));
                        store_code(rt, block_out + i * out_size, e.code);
                    }
                }
            }
        }
    }
    return flags;
}

// Complex sources keep the real part (NumPy warns once, in get_loop).
template <class Real>
uint32_t encode_complex_block(const FormatRuntime& rt, const char* in_bytes, char* out, size_t n) {
    const Real* in = reinterpret_cast<const Real*>(in_bytes);
    const size_t out_size = static_cast<size_t>(rt.format.storage_bytes);
    Real buffer[kChunk];
    uint32_t flags = 0;
    for (size_t start = 0; start < n; start += kChunk) {
        const size_t count = n - start < kChunk ? n - start : kChunk;
        for (size_t i = 0; i < count; i++) buffer[i] = in[2 * (start + i)];
        flags |= encode_block<Real>(rt, reinterpret_cast<const char*>(buffer),
                                    out + start * out_size, count);
    }
    return flags;
}

// ---- out of a format -----------------------------------------------------

// NumPy's float-to-integer casts are C conversions; on x86-64 a value the
// conversion cannot represent gives the "integer indefinite" and raises
// invalid. Narrow targets convert through 32 bits, uint32 through 64 bits.
template <class Int>
Int double_to_integer(double d, uint32_t& flags) {
    if constexpr (sizeof(Int) < 4 || (sizeof(Int) == 4 && std::is_signed_v<Int>)) {
        if (!(d > -2147483649.0 && d < 2147483648.0)) {
            flags |= kFlagInvalid;
            return static_cast<Int>(std::numeric_limits<int32_t>::min());
        }
        return static_cast<Int>(static_cast<int32_t>(d));
    } else if constexpr (std::is_signed_v<Int> || sizeof(Int) == 4) {
        if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
            flags |= kFlagInvalid;
            return static_cast<Int>(std::numeric_limits<int64_t>::min());
        }
        return static_cast<Int>(static_cast<int64_t>(d));
    } else {
        if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
            return static_cast<Int>(static_cast<int64_t>(d));
        }
        if (d >= 9223372036854775808.0 && d < 18446744073709551616.0) {
            return static_cast<Int>(d);
        }
        flags |= kFlagInvalid;
        return static_cast<Int>(uint64_t{1} << 63);
    }
}

template <class Dst>
uint32_t decode_block(const FormatRuntime& rt, const char* in, char* out_bytes, size_t n) {
    Dst* out = reinterpret_cast<Dst*>(out_bytes);
    const size_t in_size = static_cast<size_t>(rt.format.storage_bytes);
    uint32_t flags = 0;
    if constexpr (std::is_same_v<Dst, float>) {
        decode_codes_to_f32(rt, in, out, n);
    } else if constexpr (std::is_same_v<Dst, double>) {
        decode_codes_to_f64(rt, in, out, n);
    } else if constexpr (std::is_same_v<Dst, Half>) {
        float buffer[kChunk];
        for (size_t start = 0; start < n; start += kChunk) {
            const size_t count = n - start < kChunk ? n - start : kChunk;
            decode_codes_to_f32(rt, in + start * in_size, buffer, count);
            flags |= encode_f32(half_float_codec().plan, buffer, reinterpret_cast<char*>(out + start), count);
        }
    } else if constexpr (std::is_same_v<Dst, Bool>) {
        float buffer[kChunk];
        for (size_t start = 0; start < n; start += kChunk) {
            const size_t count = n - start < kChunk ? n - start : kChunk;
            decode_codes_to_f32(rt, in + start * in_size, buffer, count);
            // on the bits: a float compare would flag bfloat16's signaling NaNs
            const uint32_t* bits = reinterpret_cast<const uint32_t*>(buffer);
            for (size_t i = 0; i < count; i++) out[start + i].value = (bits[i] & 0x7FFFFFFFu) != 0;
        }
    } else {
        double buffer[kChunk];
        for (size_t start = 0; start < n; start += kChunk) {
            const size_t count = n - start < kChunk ? n - start : kChunk;
            decode_codes_to_f64(rt, in + start * in_size, buffer, count);
            for (size_t i = 0; i < count; i++) {
                if constexpr (std::is_same_v<Dst, long double>) {
                    out[start + i] = static_cast<long double>(buffer[i]);
                } else {
                    out[start + i] = double_to_integer<Dst>(buffer[i], flags);
                }
            }
        }
    }
    return flags;
}

template <class Real>
uint32_t decode_complex_block(const FormatRuntime& rt, const char* in, char* out_bytes, size_t n) {
    Real* out = reinterpret_cast<Real*>(out_bytes);
    const size_t in_size = static_cast<size_t>(rt.format.storage_bytes);
    double buffer[kChunk];
    for (size_t start = 0; start < n; start += kChunk) {
        const size_t count = n - start < kChunk ? n - start : kChunk;
        decode_codes_to_f64(rt, in + start * in_size, buffer, count);
        for (size_t i = 0; i < count; i++) {
            out[2 * (start + i)] = static_cast<Real>(buffer[i]);
            out[2 * (start + i) + 1] = Real(0);
        }
    }
    return 0;
}

// ---- loops ---------------------------------------------------------------

Operand operand(char* data, npy_intp stride, const PyArray_Descr* descr) {
    return {data, stride, static_cast<size_t>(PyDataType_ELSIZE(descr)),
            static_cast<size_t>(PyDataType_ALIGNMENT(descr))};
}

template <BlockFn Block, int FormatSide>
int cast_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
              const npy_intp strides[], NpyAuxData*) {
    const FormatRuntime& rt = runtime_of(context->descriptors[FormatSide]);
    const Operand in = operand(data[0], strides[0], context->descriptors[0]);
    const Operand out = operand(data[1], strides[1], context->descriptors[1]);
    const uint32_t flags = run_unary_strided(in, out, dimensions[0],
                                             [&rt](const char* i, char* o, size_t n) {
                                                 return Block(rt, i, o, n);
                                             });
    raise_fp_flags(flags);
    return 0;
}

template <PyArrayMethod_StridedLoop* Loop>
int complex_source_get_loop(PyArrayMethod_Context*, int, int, const npy_intp*,
                            PyArrayMethod_StridedLoop** out_loop, NpyAuxData** out_transferdata,
                            NPY_ARRAYMETHOD_FLAGS* flags) {
    static PyObject* complex_warning = nullptr;
    if (complex_warning == nullptr) {
        PyObject* exceptions = PyImport_ImportModule("numpy.exceptions");
        if (exceptions == nullptr) return -1;
        complex_warning = PyObject_GetAttrString(exceptions, "ComplexWarning");
        Py_DECREF(exceptions);
        if (complex_warning == nullptr) return -1;
    }
    if (PyErr_WarnEx(complex_warning,
                     "Casting complex values to real discards the imaginary part", 1) < 0) {
        return -1;
    }
    *out_loop = Loop;
    *out_transferdata = nullptr;
    *flags = static_cast<NPY_ARRAYMETHOD_FLAGS>(0);
    return 0;
}

std::vector<PyType_Slot> loop_slots(PyArrayMethod_StridedLoop* loop) {
    // The loop itself handles any stride and alignment.
    return {{NPY_METH_strided_loop, reinterpret_cast<void*>(loop)},
            {NPY_METH_contiguous_loop, reinterpret_cast<void*>(loop)},
            {NPY_METH_unaligned_strided_loop, reinterpret_cast<void*>(loop)},
            {NPY_METH_unaligned_contiguous_loop, reinterpret_cast<void*>(loop)}};
}

struct NumericCast {
    PyArray_DTypeMeta* dtype;
    PyArrayMethod_StridedLoop* into_format;
    PyArrayMethod_StridedLoop* out_of_format;
    PyArrayMethod_GetLoop* into_get_loop;  // complex sources warn
};

template <class C>
NumericCast real_cast(PyArray_DTypeMeta* dtype) {
    return {dtype, cast_loop<encode_block<C>, 1>, cast_loop<decode_block<C>, 0>, nullptr};
}

template <class Real>
NumericCast complex_cast(PyArray_DTypeMeta* dtype) {
    constexpr PyArrayMethod_StridedLoop* into = cast_loop<encode_complex_block<Real>, 1>;
    return {dtype, into, cast_loop<decode_complex_block<Real>, 0>,
            complex_source_get_loop<into>};
}

std::vector<NumericCast> numeric_casts() {
    return {
        real_cast<Bool>(&PyArray_BoolDType),
        real_cast<npy_byte>(&PyArray_ByteDType),
        real_cast<npy_ubyte>(&PyArray_UByteDType),
        real_cast<npy_short>(&PyArray_ShortDType),
        real_cast<npy_ushort>(&PyArray_UShortDType),
        real_cast<npy_int>(&PyArray_IntDType),
        real_cast<npy_uint>(&PyArray_UIntDType),
        real_cast<npy_long>(&PyArray_LongDType),
        real_cast<npy_ulong>(&PyArray_ULongDType),
        real_cast<npy_longlong>(&PyArray_LongLongDType),
        real_cast<npy_ulonglong>(&PyArray_ULongLongDType),
        real_cast<Half>(&PyArray_HalfDType),
        real_cast<float>(&PyArray_FloatDType),
        real_cast<double>(&PyArray_DoubleDType),
        real_cast<long double>(&PyArray_LongDoubleDType),
        complex_cast<float>(&PyArray_CFloatDType),
        complex_cast<double>(&PyArray_CDoubleDType),
        complex_cast<long double>(&PyArray_CLongDoubleDType),
    };
}

}  // namespace

void append_numeric_cast_specs(int index, std::vector<PyArrayMethod_Spec*>& out) {
    const std::string name = kFormatTable[index].name;
    for (const NumericCast& c : numeric_casts()) {
        const std::string other = reinterpret_cast<PyTypeObject*>(c.dtype)->tp_name;
        std::vector<PyType_Slot> into_slots = loop_slots(c.into_format);
        if (c.into_get_loop != nullptr) {
            into_slots.push_back({NPY_METH_get_loop, reinterpret_cast<void*>(c.into_get_loop)});
        }
        out.push_back(make_method_spec((other + "_to_" + name).c_str(), 1, 1,
                                       builtin_to_format_casting(index, c.dtype),
                                       NPY_METH_SUPPORTS_UNALIGNED, {c.dtype, nullptr},
                                       std::move(into_slots)));
        out.push_back(make_method_spec((name + "_to_" + other).c_str(), 1, 1,
                                       format_to_builtin_casting(index, c.dtype),
                                       NPY_METH_SUPPORTS_UNALIGNED, {nullptr, c.dtype},
                                       loop_slots(c.out_of_format)));
    }
}

}  // namespace minifloat
