// Casts between formats: a copy for the same format, a 256-entry code table
// from 8-bit formats, and decode-to-float32 then encode from 16-bit ones
// (every format is a subset of float32, so that is still one rounding).
#include <cfenv>
#include <cstring>
#include <memory>
#include <string>

#include "cast_specs.h"
#include "codec.h"
#include "decode_blocks.h"
#include "format_translation.h"
#include "format_types.h"
#include "fp_status.h"
#include "lookup_kernels.h"
#include "once_value.h"
#include "per_format.h"
#include "promotion.h"
#include "strided_driver.h"

namespace minifloat {

namespace {

// For every 8-bit source code: the target code and flags (8-bit targets),
// or target code | flags << 16 (16-bit targets). Made on first use of a
// pair (formats made at run time add pairs with every other format).
struct TranslationTable {
    uint8_t codes[256];
    uint8_t flags[256];
    uint32_t wide[256];
};
PerFormat<PerFormat<OnceValue<std::unique_ptr<TranslationTable>>>> g_tables;  // [from][to]

const TranslationTable& translation_table(int from, int to) {
    return *g_tables[from][to].get([&](std::unique_ptr<TranslationTable>& table) {
        table = std::make_unique<TranslationTable>();
        // made inside a cast loop: the FPU flags it may set are not the cast's
        std::fenv_t env;
        std::feholdexcept(&env);
        const FormatRuntime& src = runtime(from);
        const FormatRuntime& dst = runtime(to);
        for (uint32_t code = 0; code < 256; code++) {
            const Encoded e = encode_from_double(dst.format, dst.default_specials, src.decode_f64[code]);
            table->codes[code] = static_cast<uint8_t>(e.code);
            table->flags[code] = static_cast<uint8_t>(e.flags);
            table->wide[code] = e.code | (e.flags << 16);
        }
        std::fesetenv(&env);
    });
}

uint32_t translate_block(const FormatRuntime& src, const FormatRuntime& dst, int from, int to,
                         const char* in, char* out, size_t n) {
    if (src.format.storage_bytes == 1) {
        const uint8_t* codes = reinterpret_cast<const uint8_t*>(in);
        const TranslationTable& table = translation_table(from, to);
        if (dst.format.storage_bytes == 2) {
            return lookup_wide_with_flags(table.wide, codes, reinterpret_cast<uint16_t*>(out), n);
        }
        return lookup_bytes_with_flags(table.codes, table.flags, codes,
                                       reinterpret_cast<uint8_t*>(out), n);
    }
    if (src.format.is_float32_upper_half) {
        return encode_bf16_bits(dst.default_plan, reinterpret_cast<const uint16_t*>(in), out, n);
    }
    constexpr size_t kChunk = 2048;
    float buffer[kChunk];
    uint32_t flags = 0;
    for (size_t start = 0; start < n; start += kChunk) {
        const size_t count = n - start < kChunk ? n - start : kChunk;
        decode_codes_to_f32(src, in + start * src.format.storage_bytes, buffer, count);
        flags |= encode_f32(dst.default_plan, buffer, out + start * dst.format.storage_bytes, count);
    }
    return flags;
}

int format_to_format_loop(PyArrayMethod_Context* context, char* const data[],
                          const npy_intp dimensions[], const npy_intp strides[], NpyAuxData*) {
    translate_codes(format_index_of_descr(context->descriptors[0]),
                    format_index_of_descr(context->descriptors[1]), data, dimensions[0], strides);
    return 0;
}

int copy_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
              const npy_intp strides[], NpyAuxData*) {
    const size_t size = static_cast<size_t>(PyDataType_ELSIZE(context->descriptors[0]));
    const char* in = data[0];
    char* out = data[1];
    if (strides[0] == static_cast<npy_intp>(size) && strides[1] == static_cast<npy_intp>(size)) {
        std::memmove(out, in, size * static_cast<size_t>(dimensions[0]));
        return 0;
    }
    // strided (a[::2].copy(), flips, transposes): fixed-size item copies,
    // front to back as NumPy expects (a memmove per item was 7x ml_dtypes')
    copy_items(in, strides[0], out, strides[1], static_cast<size_t>(dimensions[0]), size);
    return 0;
}

NPY_CASTING same_format_resolve(PyArrayMethodObject*, PyArray_DTypeMeta* const*,
                                PyArray_Descr* const given[], PyArray_Descr* loop[],
                                npy_intp* view_offset) {
    Py_INCREF(given[0]);
    loop[0] = given[0];
    loop[1] = given[1] != nullptr ? given[1] : given[0];
    Py_INCREF(loop[1]);
    *view_offset = 0;
    return NPY_NO_CASTING;
}

}  // namespace

void translate_codes(int from, int to, char* const data[], npy_intp n, const npy_intp strides[]) {
    const FormatRuntime& src = runtime(from);
    const FormatRuntime& dst = runtime(to);
    const size_t in_size = static_cast<size_t>(src.format.storage_bytes);
    const size_t out_size = static_cast<size_t>(dst.format.storage_bytes);
    if (from == to) {  // the same format under two DTypes: the bits are the value
        copy_items(data[0], strides[0], data[1], strides[1], static_cast<size_t>(n), in_size);
        return;
    }
    const Operand in{data[0], strides[0], in_size, in_size};
    const Operand out{data[1], strides[1], out_size, out_size};
    const uint32_t flags = run_unary_strided(in, out, n, [&](const char* i, char* o, size_t count) {
        return translate_block(src, dst, from, to, i, o, count);
    });
    raise_fp_flags(flags);
}

void append_minifloat_cast_specs(int index, std::vector<PyArrayMethod_Spec*>& out) {
    const std::string name = runtime(index).name;
    std::vector<PyType_Slot> self_slots = loop_slots(copy_loop);
    self_slots.push_back({NPY_METH_resolve_descriptors, reinterpret_cast<void*>(same_format_resolve)});
    out.push_back(make_method_spec((name + "_to_" + name).c_str(), 1, 1, NPY_NO_CASTING,
                                   NPY_METH_SUPPORTS_UNALIGNED, {nullptr, nullptr},
                                   std::move(self_slots)));
    for (int other = 0; other < index; other++) {
        PyArray_DTypeMeta* other_dtype = &format_types(other).dtype_class;
        const std::string other_name = runtime(other).name;
        out.push_back(make_method_spec((name + "_to_" + other_name).c_str(), 1, 1,
                                       format_to_format_casting(index, other),
                                       NPY_METH_SUPPORTS_UNALIGNED, {nullptr, other_dtype},
                                       loop_slots(format_to_format_loop)));
        out.push_back(make_method_spec((other_name + "_to_" + name).c_str(), 1, 1,
                                       format_to_format_casting(other, index),
                                       NPY_METH_SUPPORTS_UNALIGNED, {other_dtype, nullptr},
                                       loop_slots(format_to_format_loop)));
    }
}

}  // namespace minifloat
