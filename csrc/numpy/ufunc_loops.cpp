#include "ufunc_loops.h"

#include <cfenv>
#include <cmath>
#include <algorithm>
#include <cstring>
#include <mutex>

#include "arith_avx512.h"
#include "arith_kernels.h"
#include "array_functions.h"
#include "byte_broadcast.h"
#include "codec.h"
#include "decode_blocks.h"
#include "exponent_arith.h"
#include "fold_codes.h"
#include "format_types.h"
#include "fp_status.h"
#include "lookup_kernels.h"
#include "matrix_product.h"
#include "op_eval.h"
#include "op_tables.h"
#include "pair_kernel_choice.h"
#include "per_format.h"
#include "sign_magnitude_kernels.h"
#include "strided_driver.h"

namespace minifloat {

namespace {

constexpr npy_intp kChunk = 1024;
static_assert(kChunk % kFoldLanes == 0, "fold lanes must tile a chunk");

const FormatRuntime& format_of(PyArrayMethod_Context* context, int operand, int* index) {
    *index = format_index_of_descr(context->descriptors[operand]);
    return runtime(*index);
}

npy_intp chunk_size(npy_intp n, npy_intp start) { return n - start < kChunk ? n - start : kChunk; }

// A binary 8-bit loop call with a contiguous output, one contiguous
// operand and one broadcast, long enough for a row lookup (byte_broadcast.h).
bool one_contiguous_one_broadcast(const npy_intp s[], npy_intp n) {
    const bool first_broadcast = s[0] == 0 && s[1] == 1, second_broadcast = s[0] == 1 && s[1] == 0;
    return s[2] == 1 && (first_broadcast || second_broadcast) && static_cast<size_t>(n) >= kBroadcastRowMinimum;
}

// Loads `count` codes of a strided operand into a contiguous buffer.
void gather_codes(const FormatRuntime& rt, const char* base, npy_intp stride, npy_intp start,
                  npy_intp count, uint16_t* codes) {
    const char* p = base + start * stride;
    for (npy_intp i = 0; i < count; i++, p += stride) codes[i] = static_cast<uint16_t>(load_code(rt, p));
}


// Decodes staged codes (always held as uint16) of any format.
void decode_staged(const FormatRuntime& rt, const uint16_t* codes, float* out, npy_intp count) {
    for (npy_intp i = 0; i < count; i++) out[i] = rt.decode_f32(codes[i]);
}

// ---- sums and products: float32 accumulation, one rounding -------------

// Folds n values into `initial`: decoded a chunk at a time, combined into
// kFoldLanes float32 partial results (vectorized), which are combined pairwise.
// Contiguous 8-bit codes are decoded in registers (fold_codes.h) where the
// CPU allows, into the same lanes in the same order.
template <BinaryOp Op>
float fold(const FormatRuntime& rt, const char* data, npy_intp stride, npy_intp n, float initial) {
    // -0 is the identity of a float sum (a +0 would turn sum([-0.0]) into +0)
    const float identity = Op == BinaryOp::add ? -0.0f : 1.0f;
    alignas(64) float lanes[kFoldLanes];
    for (float& l : lanes) l = identity;
    alignas(64) float values[kChunk];
    alignas(64) uint16_t codes[kChunk];
    const npy_intp item = rt.format.storage_bytes;
    npy_intp folded = 0;  // a multiple of kFoldLanes: later chunks start at lanes[0]
    if (item == 1 && stride == 1) {
        folded = static_cast<npy_intp>(fold_u8_codes(Op, rt.decode_plan, reinterpret_cast<const uint8_t*>(data),
                                                     static_cast<size_t>(n), lanes));
    }
    for (npy_intp start = folded; start < n; start += kChunk) {
        const npy_intp count = chunk_size(n, start);
        if (stride == item) {
            decode_codes_to_f32(rt, data + start * stride, values, static_cast<size_t>(count));
        } else {
            gather_codes(rt, data, stride, start, count, codes);
            decode_staged(rt, codes, values, count);
        }
        // chunks are a multiple of the lane count, so lane i % kFoldLanes
        // holds every element at that position
        fold_f32_lanes(Op, values, static_cast<size_t>(count), lanes);
    }
    for (size_t width = kFoldLanes / 2; width >= 1; width /= 2) {
        for (size_t l = 0; l < width; l++) lanes[l] = combine<Op>(lanes[l], lanes[l + width]);
    }
    return combine<Op>(initial, lanes[0]);
}

// Handles NumPy's reduce (out is in0, both with stride 0) and accumulate
// (out is in0 shifted by one element) calls of add and multiply.
template <BinaryOp Op>
bool reduce_or_accumulate(const FormatRuntime& rt, char* const data[], npy_intp n,
                          const npy_intp strides[]) {
    if (data[0] == data[2] && strides[0] == 0 && strides[2] == 0) {
        const float total = fold<Op>(rt, data[1], strides[1], n, rt.decode_f32(load_code(rt, data[0])));
        const Encoded e = encode_from_double(rt.format, rt.default_specials, accumulated_value(rt, total));
        store_code(rt, data[2], e.code);
        raise_fp_flags(e.flags);
        return true;
    }
    if (n > 0 && strides[0] == strides[2] && strides[0] != 0 && data[2] == data[0] + strides[0]) {
        float running = rt.decode_f32(load_code(rt, data[0]));
        uint32_t flags = 0;
        const npy_intp item = rt.format.storage_bytes;
        const bool in_place = data[1] == data[2] && strides[1] == strides[2];
        if (in_place || !spans_overlap(byte_span(data[1], strides[1], n, static_cast<size_t>(item)),
                                       byte_span(data[2], strides[2], n, static_cast<size_t>(item)))) {
            // the running float32 values of a chunk, then rounded by the bulk
            // encoder (value by value, bfloat16 cumsum was 3.8x ml_dtypes')
            constexpr npy_intp kChunk = 1024;
            alignas(64) float sums[kChunk];
            alignas(64) char staged[kChunk * 2];
            for (npy_intp start = 0; start < n; start += kChunk) {
                const npy_intp count = n - start < kChunk ? n - start : kChunk;
                for (npy_intp i = 0; i < count; i++) {
                    running = combine<Op>(running, rt.decode_f32(load_code(rt, data[1] + (start + i) * strides[1])));
                    sums[i] = running;
                }
                settle_sums(sums, static_cast<size_t>(count), rt.format.has_inf);
                const bool direct = strides[2] == item;
                char* out = direct ? data[2] + start * strides[2] : staged;
                flags |= encode_f32(rt.default_plan, sums, out, static_cast<size_t>(count));
                if (!direct) {
                    copy_items(staged, item, data[2] + start * strides[2], strides[2], static_cast<size_t>(count),
                               static_cast<size_t>(item));
                }
            }
            raise_fp_flags(flags);
            return true;
        }
        for (npy_intp i = 0; i < n; i++) {
            running = combine<Op>(running, rt.decode_f32(load_code(rt, data[1] + i * strides[1])));
            const Encoded e = encode_from_double(rt.format, rt.default_specials, accumulated_value(rt, running));
            store_code(rt, data[2] + i * strides[2], e.code);
            flags |= e.flags;
        }
        raise_fp_flags(flags);
        return true;
    }
    return false;
}

// ---- table-driven element-wise loops (8-bit formats) ---------------------

uint32_t table_binary(const uint16_t* table, char* const data[], npy_intp n,
                      const npy_intp s[]) {
    const uint8_t* a = reinterpret_cast<const uint8_t*>(data[0]);
    const uint8_t* b = reinterpret_cast<const uint8_t*>(data[1]);
    uint8_t* out = reinterpret_cast<uint8_t*>(data[2]);
    if (s[0] == 1 && s[1] == 1 && s[2] == 1) {
        return lookup_pairs(table, a, b, out, static_cast<size_t>(n));
    }
    uint32_t flags = 0;
    if (s[0] == 1 && s[1] == 0 && s[2] == 1) {
        const uint16_t* column = table + b[0];
        for (npy_intp i = 0; i < n; i++) {
            const uint16_t e = column[a[i] << 8];
            out[i] = static_cast<uint8_t>(e);
            flags |= e;
        }
    } else if (s[0] == 0 && s[1] == 1 && s[2] == 1) {
        const uint16_t* row = table + (a[0] << 8);
        for (npy_intp i = 0; i < n; i++) {
            const uint16_t e = row[b[i]];
            out[i] = static_cast<uint8_t>(e);
            flags |= e;
        }
    } else {
        for (npy_intp i = 0; i < n; i++) {
            const uint16_t e = table[a[i * s[0]] << 8 | b[i * s[1]]];
            out[i * s[2]] = static_cast<uint8_t>(e);
            flags |= e;
        }
    }
    return flags >> 8;
}

// `byte_map` (8-bit formats: 256 codes then 256 flags) serves contiguous data.
uint32_t table_unary(const FormatRuntime& rt, const uint32_t* table, const uint8_t* byte_map,
                     char* const data[], npy_intp n, const npy_intp s[]) {
    if (byte_map != nullptr && s[0] == 1 && s[1] == 1) {
        return lookup_bytes_with_flags(byte_map, byte_map + 256,
                                       reinterpret_cast<const uint8_t*>(data[0]),
                                       reinterpret_cast<uint8_t*>(data[1]), static_cast<size_t>(n));
    }
    uint32_t flags = 0;
    for (npy_intp i = 0; i < n; i++) {
        const uint32_t e = table[load_code(rt, data[0] + i * s[0])];
        store_code(rt, data[1] + i * s[1], e & 0xFFFFu);
        flags |= e;
    }
    return flags >> 16;
}

// ---- decode, compute in float, encode ------------------------------------

// + - * / are computed in float32 where that is exact enough for the
// format (Format::arithmetic_in_float32: 24 >= 2p + 2 and float32's range
// does not change the result; not float8_e8m0fnu, whose 2^+-127 operands
// need binary64), otherwise in binary64.
template <BinaryOp Op>
constexpr bool computed_in_float32() {
    return Op == BinaryOp::add || Op == BinaryOp::subtract || Op == BinaryOp::multiply ||
           Op == BinaryOp::divide;
}

// The fused AVX-512 + - * / (arith_avx512.h) serves an 8-bit format whose
// float32 results round correctly and whose encoder the hand-written
// float32 kernels are.
bool fused_arith_applies(const FormatRuntime& rt) {
    return rt.format.storage_bytes == 1 && rt.format.kernel_kind == KernelKind::sign_magnitude &&
           rt.format.arithmetic_in_float32 && fused_u8_arith_serves(rt.decode_plan);
}

// Decodes `count` values of operand `k` starting at `start` into `out`.
void load_operand(const FormatRuntime& rt, const char* base, npy_intp stride, npy_intp start,
                  npy_intp count, float* out, uint16_t* scratch) {
    if (stride == rt.format.storage_bytes) {
        decode_codes_to_f32(rt, base + start * stride, out, static_cast<size_t>(count));
    } else if (stride == 0) {
        const float v = rt.decode_f32(load_code(rt, base));
        for (npy_intp i = 0; i < count; i++) out[i] = v;
    } else {
        gather_codes(rt, base, stride, start, count, scratch);
        decode_staged(rt, scratch, out, count);
    }
}

template <BinaryOp Op>
uint32_t float_binary(const FormatRuntime& rt, char* const data[], npy_intp n, const npy_intp s[]) {
    alignas(64) float fa[kChunk], fb[kChunk], fr[kChunk];
    alignas(64) double dr[kChunk];
    alignas(64) uint16_t scratch[kChunk];
    alignas(64) char staged[kChunk * 2];  // codes in the format's storage width
    const npy_intp item = rt.format.storage_bytes;
    const bool direct_out = s[2] == item;
    uint32_t flags = 0;
    for (npy_intp start = 0; start < n; start += kChunk) {
        const npy_intp count = chunk_size(n, start);
        load_operand(rt, data[0], s[0], start, count, fa, scratch);
        load_operand(rt, data[1], s[1], start, count, fb, scratch);
        void* out = direct_out ? static_cast<void*>(data[2] + start * s[2]) : static_cast<void*>(staged);
        if (computed_in_float32<Op>() && rt.format.arithmetic_in_float32) {
            arith_f32(Op, fa, fb, fr, static_cast<size_t>(count));
            flags |= encode_f32(rt.default_plan, fr, out, static_cast<size_t>(count));
        } else {
            if constexpr (computed_in_float32<Op>()) {
                arith_f64(Op, fa, fb, dr, static_cast<size_t>(count));
            } else {
                for (npy_intp i = 0; i < count; i++) dr[i] = apply_binary(Op, fa[i], fb[i]);
            }
            flags |= encode_f64(rt.default_plan, dr, out, static_cast<size_t>(count));
            if constexpr (Op == BinaryOp::arctan2 || Op == BinaryOp::power || Op == BinaryOp::float_power ||
                          Op == BinaryOp::logaddexp || Op == BinaryOp::logaddexp2) {
                // A result rounded onto a boundary of the format: decide the
                // side with the exact value (see op_eval.h).
                for (npy_intp i = 0; i < count; i++) {
                    if (!is_rounding_boundary(rt, dr[i])) continue;
                    const int residual = transcendental_residual(Op, fa[i], fb[i], dr[i]);
                    const Encoded e = encode_from_double(rt.format, rt.default_specials, dr[i], residual);
                    store_code(rt, static_cast<char*>(out) + i * item, e.code);
                }
            }
        }
        if (!direct_out) {
            copy_items(staged, item, data[2] + start * s[2], s[2], static_cast<size_t>(count),
                       static_cast<size_t>(item));
        }
    }
    // float32's own underflow on the way (formats with values below its
    // normals, binary8p1ue's 2^-127) is not the format's: underflow is never
    // reported, as by the table-driven kernels, and NumPy would read it
    std::feclearexcept(FE_UNDERFLOW);
    return flags;
}

// Whether a broadcast operand's row not yet made (256 exact evaluations,
// some microseconds) pays for itself: always when the other path is the
// pair table (which would make all 64K entries), else for long runs only.
constexpr npy_intp kNewRowMinimum = 65536;

template <BinaryOp Op>
bool row_worth_making(const FormatRuntime& rt, npy_intp n) {
    if (n >= kNewRowMinimum) return true;
    if constexpr (!computed_in_float32<Op>()) {
        return true;
    } else {
        return !fused_arith_applies(rt) && pair_lookups_vectorized();
    }
}

// Contiguous + - * / by pair-table gathers instead of the fused kernel:
// where they measured faster (pair_kernel_choice.h), for a run long enough
// to have asked, or once the op's table exists.
bool gathers_serve_long_run(int format, BinaryOp op, npy_intp n) {
    if (!pair_lookups_vectorized()) return false;
    if (n >= static_cast<npy_intp>(kPairChoiceMinimum)) return pair_gathers_beat_fused();
    return static_cast<size_t>(n) >= kBroadcastRowMinimum && pair_choice_made() && pair_gathers_beat_fused() &&
           binary_table_made(format, op);
}

template <BinaryOp Op>
int binary_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                const npy_intp strides[], NpyAuxData*) {
    int index;
    const FormatRuntime& rt = format_of(context, 0, &index);
    const npy_intp n = dimensions[0];
    if constexpr (Op == BinaryOp::add || Op == BinaryOp::multiply) {
        if (reduce_or_accumulate<Op>(rt, data, n, strides)) return 0;
    }
    if (rt.format.storage_bytes == 1 && one_contiguous_one_broadcast(strides, n)) {  // x op scalar, scalar op x
        const bool first = strides[0] == 0;
        const uint8_t c = static_cast<uint8_t>(*data[first ? 0 : 1]);
        if (row_worth_making<Op>(rt, n) || binary_row_ready(index, Op, c, first)) {
            uint16_t row[256];
            binary_row(index, Op, c, first, row);
            raise_fp_flags(lookup_entry_row(row, reinterpret_cast<const uint8_t*>(data[first ? 1 : 0]),
                                            reinterpret_cast<uint8_t*>(data[2]), static_cast<size_t>(n)));
            return 0;
        }
    }
    if constexpr (computed_in_float32<Op>()) {
        if (rt.format.kernel_kind == KernelKind::e8m0 && strides[0] == 1 && strides[1] == 1 && strides[2] == 1) {
            raise_fp_flags(exponent_arith(Op, reinterpret_cast<const uint8_t*>(data[0]),
                                          reinterpret_cast<const uint8_t*>(data[1]),
                                          reinterpret_cast<uint8_t*>(data[2]), static_cast<size_t>(n)));
            return 0;
        }
    }
    if constexpr (computed_in_float32<Op>()) {
        // contiguous or broadcast 8-bit operands: decoded, combined and
        // encoded in registers
        const bool unit_or_zero = (strides[0] == 0 || strides[0] == 1) && (strides[1] == 0 || strides[1] == 1);
        uint32_t flags = 0;
        const bool contiguous = strides[0] == 1 && strides[1] == 1 && strides[2] == 1;
        if (fused_arith_applies(rt) && unit_or_zero && strides[2] == 1 &&
            !(contiguous && gathers_serve_long_run(index, Op, n))) {
            const auto& k = rt.default_plan.fast32;
            const uint8_t* a = reinterpret_cast<const uint8_t*>(data[0]);
            const uint8_t* b = reinterpret_cast<const uint8_t*>(data[1]);
            uint8_t* out = reinterpret_cast<uint8_t*>(data[2]);
            const size_t count = static_cast<size_t>(n);
            if (binary_u8_avx512(Op, rt.decode_plan, k, a, strides[0] == 0, b, strides[1] == 0, out, count, flags)) {
                raise_fp_flags(flags);
                return 0;
            }
        }
    }
    // 8-bit formats look results up in a 64K table, except the cheap float32
    // operations where the lookups are scalar (vectorized decode, compute,
    // encode is faster than that; AVX2 gathers are faster than it).
    const bool in_float =
        rt.format.storage_bytes == 2 || (computed_in_float32<Op>() && !pair_lookups_vectorized());
    const uint32_t flags = in_float ? float_binary<Op>(rt, data, n, strides)
                                    : table_binary(binary_table(index, Op), data, n, strides);
    raise_fp_flags(flags);
    return 0;
}

// copysign, negative and absolute act on the sign bit alone (IEEE 754
// 5.5.1), so where the sign bit is a pure sign (formats with -0) each result
// is the operand's other bits with a chosen sign bit, NaN payloads included:
// no decoding, no flags. `keep` selects the operand's bits kept, `sign_from`
// gives the sign bit of element i.
template <class Code>
Code load_element(const char* base, npy_intp stride, npy_intp i) {
    Code c;
    std::memcpy(&c, base + i * stride, sizeof c);
    return c;
}

// Contiguous output; each operand contiguous (Step 1) or broadcast (Step 0):
// written so that the compiler vectorizes it.
template <class Code, int XStep, int YStep>
void copy_sign_bits_unit(const char* x, const char* y, char* out, npy_intp n, Code sign) {
    for (npy_intp i = 0; i < n; i++) {
        const Code a = load_element<Code>(x, sizeof(Code), i * XStep);
        const Code b = load_element<Code>(y, sizeof(Code), i * YStep);
        const Code r = static_cast<Code>((a & static_cast<Code>(~sign)) | (b & sign));
        std::memcpy(out + i * static_cast<npy_intp>(sizeof(Code)), &r, sizeof r);
    }
}

template <class Code>
void copy_sign_bits(const char* x, npy_intp x_stride, const char* y, npy_intp y_stride, char* out,
                    npy_intp out_stride, npy_intp n, Code sign) {
    constexpr npy_intp item = sizeof(Code);
    if (out_stride == item) {
        if (x_stride == item && y_stride == item) return copy_sign_bits_unit<Code, 1, 1>(x, y, out, n, sign);
        if (x_stride == item && y_stride == 0) return copy_sign_bits_unit<Code, 1, 0>(x, y, out, n, sign);
        if (x_stride == 0 && y_stride == item) return copy_sign_bits_unit<Code, 0, 1>(x, y, out, n, sign);
    }
    for (npy_intp i = 0; i < n; i++) {  // strided, reductions (out aliases x) included
        const Code a = load_element<Code>(x, x_stride, i), b = load_element<Code>(y, y_stride, i);
        const Code r = static_cast<Code>((a & static_cast<Code>(~sign)) | (b & sign));
        std::memcpy(out + i * out_stride, &r, sizeof r);
    }
}

// negative flips the sign bit, absolute clears it.
template <class Code, UnaryOp Op>
void sign_bit_unary(const char* x, npy_intp x_stride, char* out, npy_intp out_stride, npy_intp n, Code sign) {
    static_assert(Op == UnaryOp::negative || Op == UnaryOp::absolute, "a sign-bit operation");
    constexpr npy_intp item = sizeof(Code);
    const auto apply = [sign](Code a) {
        return static_cast<Code>(Op == UnaryOp::negative ? a ^ sign : a & static_cast<Code>(~sign));
    };
    if (x_stride == item && out_stride == item) {
        for (npy_intp i = 0; i < n; i++) {  // vectorizes
            const Code r = apply(load_element<Code>(x, item, i));
            std::memcpy(out + i * item, &r, sizeof r);
        }
        return;
    }
    for (npy_intp i = 0; i < n; i++) {
        const Code r = apply(load_element<Code>(x, x_stride, i));
        std::memcpy(out + i * out_stride, &r, sizeof r);
    }
}

// Formats without -0 keep the value rule (fnuz: the one NaN is the -0 code
// and stays NaN; float8_e8m0fnu has no sign bit).
int copysign_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                  const npy_intp strides[], NpyAuxData* aux) {
    int index;
    const FormatRuntime& rt = format_of(context, 0, &index);
    if (!rt.format.has_negative_zero) {
        return binary_loop<BinaryOp::copysign>(context, data, dimensions, strides, aux);
    }
    if (rt.format.storage_bytes == 1) {
        copy_sign_bits<uint8_t>(data[0], strides[0], data[1], strides[1], data[2], strides[2], dimensions[0],
                                static_cast<uint8_t>(rt.format.sign_bit));
    } else {
        copy_sign_bits<uint16_t>(data[0], strides[0], data[1], strides[1], data[2], strides[2], dimensions[0],
                                 static_cast<uint16_t>(rt.format.sign_bit));
    }
    return 0;
}

template <UnaryOp Op>
int unary_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
               const npy_intp strides[], NpyAuxData*) {
    int index;
    const FormatRuntime& rt = format_of(context, 0, &index);
    const bool bytes = rt.format.storage_bytes == 1;
    if constexpr (Op == UnaryOp::negative || Op == UnaryOp::absolute) {
        // bit operations where the sign bit is a pure sign (as the tables
        // give, op_tables.cpp): bfloat16 without 64K-entry lookups
        if (rt.format.has_negative_zero) {
            if (bytes) {
                sign_bit_unary<uint8_t, Op>(data[0], strides[0], data[1], strides[1], dimensions[0],
                                            static_cast<uint8_t>(rt.format.sign_bit));
            } else {
                sign_bit_unary<uint16_t, Op>(data[0], strides[0], data[1], strides[1], dimensions[0],
                                             static_cast<uint16_t>(rt.format.sign_bit));
            }
            return 0;
        }
    }
    raise_fp_flags(table_unary(rt, unary_table(index, Op), bytes ? unary_byte_map(index, Op) : nullptr,
                               data, dimensions[0], strides));
    return 0;
}

int spacing_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                 const npy_intp strides[], NpyAuxData*) {
    int index;
    const FormatRuntime& rt = format_of(context, 0, &index);
    const bool bytes = rt.format.storage_bytes == 1;
    raise_fp_flags(table_unary(rt, spacing_table(index), bytes ? spacing_byte_map(index) : nullptr,
                               data, dimensions[0], strides));
    return 0;
}

// A 16-bit kernel over contiguous runs, kernel(a, b, out, count), on any
// strides: operands staged in chunks, a broadcast one (x op scalar: ReLU's
// np.maximum(x, 0.0)) filled once, so that only contiguous bfloat16 missed
// the per-element loop (35x slower). false for a reduction, or an output
// sharing memory with an input other than in place: those need NumPy's
// element order.
template <size_t OutSize, class Kernel>
bool staged_binary16(char* const data[], npy_intp n, const npy_intp s[], const Kernel& kernel) {
    if (s[2] == 0) return false;
    const auto out_span = byte_span(data[2], s[2], n, OutSize);
    for (int k = 0; k < 2; k++) {
        if (OutSize == 2 && data[k] == data[2] && s[k] == s[2]) continue;
        if (spans_overlap(byte_span(data[k], s[k], n, 2), out_span)) return false;
    }
    constexpr npy_intp kStage = 1024;
    alignas(64) uint16_t in_stage[2][kStage];
    alignas(64) char out_stage[kStage * OutSize];
    for (int k = 0; k < 2; k++) {
        if (s[k] != 0) continue;
        uint16_t code;
        std::memcpy(&code, data[k], sizeof code);
        std::fill_n(in_stage[k], kStage, code);
    }
    for (npy_intp start = 0; start < n; start += kStage) {
        const size_t count = static_cast<size_t>(std::min(kStage, n - start));
        const uint16_t* in[2];
        for (int k = 0; k < 2; k++) {
            if (s[k] == 2) {
                in[k] = reinterpret_cast<const uint16_t*>(data[k] + start * 2);
                continue;
            }
            if (s[k] != 0) copy_items(data[k] + start * s[k], s[k], reinterpret_cast<char*>(in_stage[k]), 2, count, 2);
            in[k] = in_stage[k];
        }
        const bool direct = s[2] == static_cast<npy_intp>(OutSize);
        char* out = direct ? data[2] + start * s[2] : out_stage;
        kernel(in[0], in[1], out, count);
        if (!direct) copy_items(out_stage, OutSize, data[2] + start * s[2], s[2], count, OutSize);
    }
    return true;
}

// The order-key comparison computing Op, or -1 (logical ops).
template <CompareOp Op>
constexpr int key_comparison() {
    switch (Op) {
        case CompareOp::equal: return static_cast<int>(KeyComparison::equal);
        case CompareOp::not_equal: return static_cast<int>(KeyComparison::not_equal);
        case CompareOp::less: return static_cast<int>(KeyComparison::less);
        case CompareOp::less_equal: return static_cast<int>(KeyComparison::less_equal);
        case CompareOp::greater: return static_cast<int>(KeyComparison::greater);
        case CompareOp::greater_equal: return static_cast<int>(KeyComparison::greater_equal);
        default: return -1;
    }
}

template <CompareOp Op>
int compare_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                 const npy_intp s[], NpyAuxData*) {
    int index;
    const FormatRuntime& rt = format_of(context, 0, &index);
    const npy_intp n = dimensions[0];
    npy_bool* out = reinterpret_cast<npy_bool*>(data[2]);
    if (rt.format.storage_bytes == 1) {
        const uint8_t* table = compare_table(index, Op);
        const uint8_t* a = reinterpret_cast<const uint8_t*>(data[0]);
        const uint8_t* b = reinterpret_cast<const uint8_t*>(data[1]);
        if (s[0] == 1 && s[1] == 1 && s[2] == 1 && key_comparison<Op>() >= 0) {
            compare_by_keys(static_cast<KeyComparison>(key_comparison<Op>()), order_key_bytes(index),
                            signed_key_rule(index),
                            a, b, reinterpret_cast<uint8_t*>(out), static_cast<size_t>(n));
        } else if (one_contiguous_one_broadcast(s, n)) {  // x op scalar, scalar op x
            const bool first = s[0] == 0;
            lookup_pair_row(table, first ? a[0] : b[0], first, first ? b : a, reinterpret_cast<uint8_t*>(out),
                            static_cast<size_t>(n));
        } else {
            for (npy_intp i = 0; i < n; i++) {
                *reinterpret_cast<npy_bool*>(data[2] + i * s[2]) = table[a[i * s[0]] << 8 | b[i * s[1]]];
            }
        }
        return 0;
    }
    if constexpr (key_comparison<Op>() >= 0) {
        if (rt.format.storage_bytes == 2 && rt.format.has_inf &&
            staged_binary16<1>(data, n, s, [&](const uint16_t* a, const uint16_t* b, char* result, size_t count) {
                compare_sign_magnitude16(static_cast<KeyComparison>(key_comparison<Op>()),
                                         static_cast<uint16_t>(rt.format.inf_magnitude), a, b,
                                         reinterpret_cast<uint8_t*>(result), count);
            })) {
            return 0;
        }
    }
    for (npy_intp i = 0; i < n; i++) {
        const double x = rt.decode_f64[load_code(rt, data[0] + i * s[0])];
        const double y = rt.decode_f64[load_code(rt, data[1] + i * s[1])];
        *reinterpret_cast<npy_bool*>(data[2] + i * s[2]) = compare_values(Op, x, y);
    }
    return 0;
}

template <Predicate P>
int predicate_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                   const npy_intp s[], NpyAuxData*) {
    int index;
    const FormatRuntime& rt = format_of(context, 0, &index);
    const uint8_t* table = predicate_table(index, P);
    if (rt.format.storage_bytes == 1 && s[0] == 1 && s[1] == 1) {
        lookup_bytes(table, reinterpret_cast<const uint8_t*>(data[0]),
                     reinterpret_cast<uint8_t*>(data[1]), static_cast<size_t>(dimensions[0]));
        return 0;
    }
    for (npy_intp i = 0; i < dimensions[0]; i++) {
        *reinterpret_cast<npy_bool*>(data[1] + i * s[1]) = table[load_code(rt, data[0] + i * s[0])];
    }
    return 0;
}

int nextafter_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                   const npy_intp s[], NpyAuxData*) {
    int index;
    const FormatRuntime& rt = format_of(context, 0, &index);
    const npy_intp n = dimensions[0];
    uint32_t flags = 0;
    if (rt.format.storage_bytes == 1) {
        flags = table_binary(nextafter_table(index), data, n, s);
    } else {
        for (npy_intp i = 0; i < n; i++) {
            const uint32_t a = load_code(rt, data[0] + i * s[0]);
            const uint32_t b = load_code(rt, data[1] + i * s[1]);
            store_code(rt, data[2] + i * s[2], next_code_toward(index, a, b, &flags));
        }
    }
    raise_fp_flags(flags);
    return 0;
}

int divmod_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                const npy_intp s[], NpyAuxData* aux) {
    char* const quotient_args[3] = {data[0], data[1], data[2]};
    const npy_intp quotient_strides[3] = {s[0], s[1], s[2]};
    char* const remainder_args[3] = {data[0], data[1], data[3]};
    const npy_intp remainder_strides[3] = {s[0], s[1], s[3]};
    if (binary_loop<BinaryOp::floor_divide>(context, quotient_args, dimensions, quotient_strides, aux) < 0) {
        return -1;
    }
    return binary_loop<BinaryOp::remainder>(context, remainder_args, dimensions, remainder_strides, aux);
}

int modf_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
              const npy_intp s[], NpyAuxData* aux) {
    char* const fraction_args[2] = {data[0], data[1]};
    const npy_intp fraction_strides[2] = {s[0], s[1]};
    char* const whole_args[2] = {data[0], data[2]};
    const npy_intp whole_strides[2] = {s[0], s[2]};
    if (unary_loop<UnaryOp::modf_fraction>(context, fraction_args, dimensions, fraction_strides, aux) < 0) {
        return -1;
    }
    return unary_loop<UnaryOp::trunc>(context, whole_args, dimensions, whole_strides, aux);
}

int frexp_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
               const npy_intp s[], NpyAuxData*) {
    int index;
    const FormatRuntime& rt = format_of(context, 0, &index);
    for (npy_intp i = 0; i < dimensions[0]; i++) {
        const double x = rt.decode_f64[load_code(rt, data[0] + i * s[0])];
        int exponent = 0;
        const double mantissa = std::isfinite(x) ? std::frexp(x, &exponent) : x;
        const Encoded e = encode_from_double(rt.format, rt.default_specials, mantissa);
        store_code(rt, data[1] + i * s[1], e.code);
        const npy_int exponent_out = exponent;
        std::memcpy(data[2] + i * s[2], &exponent_out, sizeof exponent_out);
    }
    return 0;
}

template <class Int>
int ldexp_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
               const npy_intp s[], NpyAuxData*) {
    int index;
    const FormatRuntime& rt = format_of(context, 0, &index);
    uint32_t flags = 0;
    for (npy_intp i = 0; i < dimensions[0]; i++) {
        const double x = rt.decode_f64[load_code(rt, data[0] + i * s[0])];
        Int exponent;
        std::memcpy(&exponent, data[1] + i * s[1], sizeof exponent);
        // Any exponent beyond +-2200 over- or underflows every format anyway.
        const int e = exponent > 2200 ? 2200 : (exponent < -2200 ? -2200 : static_cast<int>(exponent));
        // a non-zero x scaled below binary64 is still non-zero (see op_eval.h)
        const double scaled = keep_underflow_nonzero(std::ldexp(x, e), x != 0.0 && std::isfinite(x));
        const Encoded r = encode_from_double(rt.format, rt.default_specials, scaled);
        store_code(rt, data[2] + i * s[2], r.code);
        flags |= r.flags;
    }
    raise_fp_flags(flags);
    return 0;
}

// Per format, made on first use: whether it has more than one NaN code, and
// for 8-bit formats each code with the NaN codes replaced by the canonical NaN.
struct CanonicalNaNs {
    std::once_flag made;
    bool several = false;
    uint8_t bytes[256] = {};
};
PerFormat<CanonicalNaNs> g_canonical_nans;

const CanonicalNaNs& canonical_nans(int index) {
    CanonicalNaNs& t = g_canonical_nans[index];
    std::call_once(t.made, [&t, index] {
        const Format& format = runtime(index).format;
        int count = 0;
        for (uint32_t c = 0; c < runtime(index).code_count(); c++) count += format.code_is_nan(c);
        t.several = count > 1;
        for (uint32_t c = 0; c < 256; c++) {
            t.bytes[c] = static_cast<uint8_t>(format.storage_bytes == 1 && format.code_is_nan(c) ? format.nan_code : c);
        }
    });
    return t;
}

// fmax/fmin of two NaNs give the format's canonical NaN, whichever NaN codes
// they were, so fmax.reduce/fmin.reduce (and nanmax/nanmin) of all-NaN data
// do not depend on its order. Their result is NaN only then, so this maps
// every NaN the selection wrote.
template <KeySelection Op>
void canonical_nan_pairs(const FormatRuntime& rt, int index, char* out, npy_intp stride, npy_intp n) {
    if constexpr (Op == KeySelection::fmax || Op == KeySelection::fmin) {
        const CanonicalNaNs& nans = canonical_nans(index);
        if (!nans.several) return;
        if (rt.format.storage_bytes == 1) {
            uint8_t* codes = reinterpret_cast<uint8_t*>(out);
            if (stride == 1) {
                lookup_bytes(nans.bytes, codes, codes, static_cast<size_t>(n));
            } else {
                for (npy_intp i = 0; i < n; i++) codes[i * stride] = nans.bytes[codes[i * stride]];
            }
            return;
        }
        for (npy_intp i = 0; i < n; i++) {
            if (rt.format.code_is_nan(load_code(rt, out + i * stride))) store_code(rt, out + i * stride, rt.format.nan_code);
        }
    }
}

// maximum, minimum, fmax, fmin: a choice between the input codes by value
// order (see lookup_kernels.h), so results are the operands bit for bit
// (fmax/fmin of two NaNs: the canonical NaN).
template <KeySelection Op>
int select_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                const npy_intp s[], NpyAuxData*) {
    int index;
    const FormatRuntime& rt = format_of(context, 0, &index);
    const npy_intp n = dimensions[0];
    if (rt.format.storage_bytes == 1) {
        const uint8_t* keys = order_key_bytes(index);
        const uint8_t* a = reinterpret_cast<const uint8_t*>(data[0]);
        const uint8_t* b = reinterpret_cast<const uint8_t*>(data[1]);
        uint8_t* out = reinterpret_cast<uint8_t*>(data[2]);
        if (s[0] == 1 && s[1] == 1 && s[2] == 1) {
            select_by_keys(Op, keys, signed_key_rule(index), a, b, out, static_cast<size_t>(n));
        } else if (s[0] == 0 && s[2] == 0 && data[0] == data[2] && s[1] == 1) {  // x.max() and the like
            out[0] = reduce_select(Op, keys, nan_lowest_key_bytes(index), a[0], b, static_cast<size_t>(n));
            canonical_nan_pairs<Op>(rt, index, data[2], 0, 1);
            return 0;
        } else if (one_contiguous_one_broadcast(s, n)) {  // with a scalar
            const bool first = s[0] == 0;
            select_with_broadcast(Op, keys, first ? a[0] : b[0], first, first ? b : a, out, static_cast<size_t>(n));
        } else {
            for (npy_intp i = 0; i < n; i++) {
                const uint8_t ca = a[i * s[0]], cb = b[i * s[1]];
                out[i * s[2]] = first_is_selected(Op, keys[ca], keys[cb], 255) ? ca : cb;
            }
        }
        canonical_nan_pairs<Op>(rt, index, data[2], s[2], s[2] == 0 ? 1 : n);
        return 0;
    }
    if (rt.format.storage_bytes == 2 && rt.format.has_inf &&
        staged_binary16<2>(data, n, s, [&](const uint16_t* a, const uint16_t* b, char* result, size_t count) {
            select_sign_magnitude16(Op, static_cast<uint16_t>(rt.format.inf_magnitude), a, b,
                                    reinterpret_cast<uint16_t*>(result), count);
        })) {
        canonical_nan_pairs<Op>(rt, index, data[2], s[2], n);
        return 0;
    }
    const std::vector<uint16_t>& keys = order_keys(index);
    const unsigned nan_key = rt.format.has_nan ? keys[rt.format.nan_code] : 0x10000u;
    for (npy_intp i = 0; i < n; i++) {
        const uint32_t ca = load_code(rt, data[0] + i * s[0]);
        const uint32_t cb = load_code(rt, data[1] + i * s[1]);
        store_code(rt, data[2] + i * s[2], first_is_selected(Op, keys[ca], keys[cb], nan_key) ? ca : cb);
    }
    canonical_nan_pairs<Op>(rt, index, data[2], s[2], s[2] == 0 ? 1 : n);
    return 0;
}

// clip of 8-bit codes with contiguous x and out, bounds contiguous or
// scalars: maximum with the low bound, then minimum with the high one
// (the rules of clip_loop below). A scalar bound is a 256-entry row made
// once; two scalar bounds compose into one row.
void clip_bytes(int index, char* const data[], npy_intp n, const npy_intp s[]) {
    const uint8_t* keys = order_key_bytes(index);
    const SignedKeyRule* rule = signed_key_rule(index);
    const uint8_t* x = reinterpret_cast<const uint8_t*>(data[0]);
    const uint8_t* low = reinterpret_cast<const uint8_t*>(data[1]);
    const uint8_t* high = reinterpret_cast<const uint8_t*>(data[2]);
    uint8_t* out = reinterpret_cast<uint8_t*>(data[3]);
    uint8_t low_row[256], high_row[256];
    if (s[1] == 0) selection_row(KeySelection::maximum, keys, low[0], false, low_row);
    if (s[2] == 0) selection_row(KeySelection::minimum, keys, high[0], false, high_row);
    if (s[1] == 0 && s[2] == 0) {
        uint8_t both[256];
        for (unsigned v = 0; v < 256; v++) both[v] = high_row[low_row[v]];
        lookup_bytes(both, x, out, static_cast<size_t>(n));
        return;
    }
    alignas(64) uint8_t above_low[kChunk];
    for (npy_intp start = 0; start < n; start += kChunk) {
        const size_t count = static_cast<size_t>(chunk_size(n, start));
        if (s[1] == 0) {
            lookup_bytes(low_row, x + start, above_low, count);
        } else {
            select_by_keys(KeySelection::maximum, keys, rule, x + start, low + start, above_low, count);
        }
        if (s[2] == 0) {
            lookup_bytes(high_row, above_low, out + start, count);
        } else {
            select_by_keys(KeySelection::minimum, keys, rule, above_low, high + start, out + start, count);
        }
    }
}

// clip(x, low, high) as NumPy defines it for float16: min(max(x, low),
// high) where max/min keep their first operand on ties and NaN there, and
// a NaN bound propagates. The result is always one of the inputs, so its
// code is copied unchanged.
int clip_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
              const npy_intp s[], NpyAuxData*) {
    int index;
    const FormatRuntime& rt = format_of(context, 0, &index);
    if (rt.format.storage_bytes == 1 && s[0] == 1 && s[3] == 1 && (s[1] == 0 || s[1] == 1) &&
        (s[2] == 0 || s[2] == 1) && static_cast<size_t>(dimensions[0]) >= kBroadcastRowMinimum) {
        clip_bytes(index, data, dimensions[0], s);
        return 0;
    }
    for (npy_intp i = 0; i < dimensions[0]; i++) {
        const uint32_t x = load_code(rt, data[0] + i * s[0]);
        const uint32_t low = load_code(rt, data[1] + i * s[1]);
        const uint32_t high = load_code(rt, data[2] + i * s[2]);
        const double vx = rt.decode_f64[x], vl = rt.decode_f64[low], vh = rt.decode_f64[high];
        const uint32_t above_low = std::isnan(vx) || std::isgreaterequal(vx, vl) ? x : low;
        const double va = rt.decode_f64[above_low];
        store_code(rt, data[3] + i * s[3], std::isnan(va) || std::islessequal(va, vh) ? above_low : high);
    }
    return 0;
}

}  // namespace

float fold_codes(BinaryOp op, const FormatRuntime& rt, const char* data, npy_intp stride, npy_intp n,
                 float initial) {
    return op == BinaryOp::add ? fold<BinaryOp::add>(rt, data, stride, n, initial)
                               : fold<BinaryOp::multiply>(rt, data, stride, n, initial);
}

PyArrayMethod_StridedLoop* plain_binary_loop(BinaryOp op) {
    return op == BinaryOp::add ? binary_loop<BinaryOp::add> : binary_loop<BinaryOp::multiply>;
}

std::vector<UfuncLoop> elementwise_loops() {
    using K = LoopKind;
    return {
        {"add", K::binary, binary_loop<BinaryOp::add>, true, true},
        {"subtract", K::binary, binary_loop<BinaryOp::subtract>, false},
        {"multiply", K::binary, binary_loop<BinaryOp::multiply>, true, true},
        {"divide", K::binary, binary_loop<BinaryOp::divide>, false},
        {"floor_divide", K::binary, binary_loop<BinaryOp::floor_divide>, false},
        {"remainder", K::binary, binary_loop<BinaryOp::remainder>, false},
        {"fmod", K::binary, binary_loop<BinaryOp::fmod>, false},
        {"power", K::binary, binary_loop<BinaryOp::power>, false},
        // float_power has no loop: as for float16, NumPy computes it in float64
        // (the fallback promoter widens the inputs exactly).
        {"copysign", K::binary, copysign_loop, false},
        {"arctan2", K::binary, binary_loop<BinaryOp::arctan2>, false},
        {"hypot", K::binary, binary_loop<BinaryOp::hypot>, false},
        {"logaddexp", K::binary, binary_loop<BinaryOp::logaddexp>, false},
        {"logaddexp2", K::binary, binary_loop<BinaryOp::logaddexp2>, false},
        {"heaviside", K::binary, binary_loop<BinaryOp::heaviside>, false},
        {"maximum", K::binary, select_loop<KeySelection::maximum>, true},
        {"minimum", K::binary, select_loop<KeySelection::minimum>, true},
        {"fmax", K::binary, select_loop<KeySelection::fmax>, true},
        {"fmin", K::binary, select_loop<KeySelection::fmin>, true},
        {"nextafter", K::binary, nextafter_loop, false},
        {"divmod", K::binary_two_outputs, divmod_loop, false},
        {"clip", K::ternary, clip_loop, false},

        {"negative", K::unary, unary_loop<UnaryOp::negative>, false},
        {"positive", K::unary, unary_loop<UnaryOp::positive>, false},
        {"absolute", K::unary, unary_loop<UnaryOp::absolute>, false},
        {"fabs", K::unary, unary_loop<UnaryOp::absolute>, false},
        {"conjugate", K::unary, unary_loop<UnaryOp::positive>, false},
        {"sign", K::unary, unary_loop<UnaryOp::sign>, false},
        {"reciprocal", K::unary, unary_loop<UnaryOp::reciprocal>, false},
        {"square", K::unary, unary_loop<UnaryOp::square>, false},
        {"sqrt", K::unary, unary_loop<UnaryOp::sqrt>, false},
        {"cbrt", K::unary, unary_loop<UnaryOp::cbrt>, false},
        {"rint", K::unary, unary_loop<UnaryOp::rint>, false},
        {"floor", K::unary, unary_loop<UnaryOp::floor>, false},
        {"ceil", K::unary, unary_loop<UnaryOp::ceil>, false},
        {"trunc", K::unary, unary_loop<UnaryOp::trunc>, false},
        {"exp", K::unary, unary_loop<UnaryOp::exp>, false},
        {"exp2", K::unary, unary_loop<UnaryOp::exp2>, false},
        {"expm1", K::unary, unary_loop<UnaryOp::expm1>, false},
        {"log", K::unary, unary_loop<UnaryOp::log>, false},
        {"log2", K::unary, unary_loop<UnaryOp::log2>, false},
        {"log10", K::unary, unary_loop<UnaryOp::log10>, false},
        {"log1p", K::unary, unary_loop<UnaryOp::log1p>, false},
        {"sin", K::unary, unary_loop<UnaryOp::sin>, false},
        {"cos", K::unary, unary_loop<UnaryOp::cos>, false},
        {"tan", K::unary, unary_loop<UnaryOp::tan>, false},
        {"arcsin", K::unary, unary_loop<UnaryOp::arcsin>, false},
        {"arccos", K::unary, unary_loop<UnaryOp::arccos>, false},
        {"arctan", K::unary, unary_loop<UnaryOp::arctan>, false},
        {"sinh", K::unary, unary_loop<UnaryOp::sinh>, false},
        {"cosh", K::unary, unary_loop<UnaryOp::cosh>, false},
        {"tanh", K::unary, unary_loop<UnaryOp::tanh>, false},
        {"arcsinh", K::unary, unary_loop<UnaryOp::arcsinh>, false},
        {"arccosh", K::unary, unary_loop<UnaryOp::arccosh>, false},
        {"arctanh", K::unary, unary_loop<UnaryOp::arctanh>, false},
        {"deg2rad", K::unary, unary_loop<UnaryOp::deg2rad>, false},
        {"radians", K::unary, unary_loop<UnaryOp::deg2rad>, false},
        {"rad2deg", K::unary, unary_loop<UnaryOp::rad2deg>, false},
        {"degrees", K::unary, unary_loop<UnaryOp::rad2deg>, false},
        {"spacing", K::unary, spacing_loop, false},
        {"modf", K::unary_two_outputs, modf_loop, false},
        {"frexp", K::frexp, frexp_loop, false},
        {"ldexp", K::ldexp_int32, ldexp_loop<npy_int>, false},
        {"ldexp", K::ldexp_int64, ldexp_loop<npy_long>, false},

        {"equal", K::compare, compare_loop<CompareOp::equal>, false},
        {"not_equal", K::compare, compare_loop<CompareOp::not_equal>, false},
        {"less", K::compare, compare_loop<CompareOp::less>, false},
        {"less_equal", K::compare, compare_loop<CompareOp::less_equal>, false},
        {"greater", K::compare, compare_loop<CompareOp::greater>, false},
        {"greater_equal", K::compare, compare_loop<CompareOp::greater_equal>, false},
        {"logical_and", K::compare, compare_loop<CompareOp::logical_and>, true},
        {"logical_or", K::compare, compare_loop<CompareOp::logical_or>, true},
        {"logical_xor", K::compare, compare_loop<CompareOp::logical_xor>, true},
        {"logical_not", K::predicate, predicate_loop<Predicate::logical_not>, false},
        {"isnan", K::predicate, predicate_loop<Predicate::isnan>, false},
        {"isinf", K::predicate, predicate_loop<Predicate::isinf>, false},
        {"isfinite", K::predicate, predicate_loop<Predicate::isfinite>, false},
        {"signbit", K::predicate, predicate_loop<Predicate::signbit>, false},
    };
}

}  // namespace minifloat
