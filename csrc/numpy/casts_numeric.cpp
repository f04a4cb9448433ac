// Casts between the formats and NumPy's bool, integer, floating and complex
// types. Every direction converts contiguous blocks; strides, alignment and
// byte order are handled around the blocks (byte-swapped inputs are made
// native by NumPy before they reach these loops, via ensure_canonical).
#include <cfenv>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "cast_specs.h"
#include "codec.h"
#include "decode_blocks.h"
#include "float_to_integer.h"
#include "format_types.h"
#include "fp_status.h"
#include "half_float.h"
#include "lookup_kernels.h"
#include "once_value.h"
#include "per_format.h"
#include "promotion.h"
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

// The general rule for every format: decode to float32 (exact for every
// format), then convert.
template <class Dst>
uint32_t decode_block_general(const FormatRuntime& rt, const char* in, char* out_bytes, size_t n) {
    Dst* out = reinterpret_cast<Dst*>(out_bytes);
    const size_t in_size = static_cast<size_t>(rt.format.storage_bytes);
    uint32_t flags = 0;
    if constexpr (std::is_same_v<Dst, float>) {
        decode_codes_to_f32(rt, in, out, n);
    } else if constexpr (std::is_same_v<Dst, double>) {
        decode_codes_to_f64(rt, in, out, n);
    } else if constexpr (std::is_same_v<Dst, long double>) {
        double buffer[kChunk];
        for (size_t start = 0; start < n; start += kChunk) {
            const size_t count = n - start < kChunk ? n - start : kChunk;
            decode_codes_to_f64(rt, in + start * in_size, buffer, count);
            for (size_t i = 0; i < count; i++) out[start + i] = static_cast<long double>(buffer[i]);
        }
    } else {
        float buffer[kChunk];
        for (size_t start = 0; start < n; start += kChunk) {
            const size_t count = n - start < kChunk ? n - start : kChunk;
            decode_codes_to_f32(rt, in + start * in_size, buffer, count);
            if constexpr (std::is_same_v<Dst, Half>) {
                uint16_t* halves = reinterpret_cast<uint16_t*>(out + start);
                flags |= encode_f32(half_float_codec().plan, buffer, reinterpret_cast<char*>(halves), count);
                flags |= float16_underflow(buffer, halves, count);
            } else if constexpr (std::is_same_v<Dst, Bool>) {
                // on the bits: a float compare would flag bfloat16's signaling NaNs
                const uint32_t* bits = reinterpret_cast<const uint32_t*>(buffer);
                for (size_t i = 0; i < count; i++) out[start + i].value = (bits[i] & 0x7FFFFFFFu) != 0;
            } else {
                flags |= floats_to_integers(integer_kind_of<Dst>(), buffer, out + start, count);
            }
        }
    }
    return flags;
}

// 8-bit formats into NumPy's one- and two-byte types (bool, int8, uint8,
// int16, uint16, float16) are one table lookup per code. Each table entry
// is the general rule's own answer for that code (result | flags << 16),
// so the two agree by construction; made on first use, for every format.
template <class Dst>
struct SmallTargetTable {
    uint32_t entries[256];  // result bits | flags << 16
    uint8_t bytes[256];     // the result, for one-byte targets
    uint8_t flags[256];
};

template <class Dst>
const SmallTargetTable<Dst>& small_target_table(const FormatRuntime& rt) {
    static_assert(sizeof(Dst) <= 2, "one- and two-byte targets");
    static PerFormat<OnceValue<std::unique_ptr<SmallTargetTable<Dst>>>> tables;
    return *tables[rt.format.index].get([&](std::unique_ptr<SmallTargetTable<Dst>>& table) {
        // The conversions below may set the FPU's flags (as a cast would);
        // they are not this cast's, so they are put back as they were.
        std::fenv_t env;
        std::feholdexcept(&env);
        table = std::make_unique<SmallTargetTable<Dst>>();
        for (uint32_t code = 0; code < 256; code++) {
            const char byte = static_cast<char>(code);
            Dst value{};
            const uint32_t flags = decode_block_general<Dst>(rt, &byte, reinterpret_cast<char*>(&value), 1);
            uint16_t bits = 0;
            std::memcpy(&bits, &value, sizeof value);
            table->entries[code] = bits | flags << 16;
            table->bytes[code] = static_cast<uint8_t>(bits);
            table->flags[code] = static_cast<uint8_t>(flags);
        }
        std::fesetenv(&env);
    });
}

template <class Dst>
uint32_t decode_block(const FormatRuntime& rt, const char* in, char* out, size_t n) {
    if constexpr (sizeof(Dst) <= 2) {
        if (rt.format.storage_bytes == 1) {
            const SmallTargetTable<Dst>& table = small_target_table<Dst>(rt);
            const uint8_t* codes = reinterpret_cast<const uint8_t*>(in);
            if constexpr (sizeof(Dst) == 1) {
                return lookup_bytes_with_flags(table.bytes, table.flags, codes, reinterpret_cast<uint8_t*>(out), n);
            } else {
                return lookup_wide_with_flags(table.entries, codes, reinterpret_cast<uint16_t*>(out), n);
            }
        }
    }
    return decode_block_general<Dst>(rt, in, out, n);
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
            complex_to_real_get_loop<into>};
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
    const std::string name = runtime(index).name;
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
