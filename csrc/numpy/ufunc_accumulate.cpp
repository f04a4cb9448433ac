#include "ufunc_accumulate.h"
#include "threaded_loops.h"

#include <cstring>
#include <new>
#include <unordered_map>

#include "codec.h"
#include "decode_blocks.h"
#include "format_types.h"
#include "fp_status.h"
#include "matrix_product.h"
#include "ufunc_loops.h"

namespace minifloat {

namespace {

// Set by get_reduction_initial, which NumPy calls for reductions just before
// asking the same method for its loop; ufunc calls and ufunc.at never set it.
thread_local const void* t_reduction_announced = nullptr;

void free_aux(NpyAuxData* aux) { delete reinterpret_cast<AccumulationAux*>(aux); }

NpyAuxData* clone_aux(NpyAuxData* aux) {
    auto* copy = new (std::nothrow) AccumulationAux(*reinterpret_cast<AccumulationAux*>(aux));
    return copy ? &copy->base : nullptr;
}

}  // namespace

void announce_reduction(PyArrayMethod_Context* context) { t_reduction_announced = context->method; }

int get_accumulating_loop(PyArrayMethod_Context* context, PyArrayMethod_StridedLoop* loop,
                          PyArrayMethod_StridedLoop** out_loop, NpyAuxData** out_transferdata,
                          NPY_ARRAYMETHOD_FLAGS* flags) {
    auto* aux = new (std::nothrow) AccumulationAux();
    if (aux == nullptr) {
        PyErr_NoMemory();
        return -1;
    }
    aux->base.free = free_aux;
    aux->base.clone = clone_aux;
    aux->reduction = t_reduction_announced == context->method;
    t_reduction_announced = nullptr;
    *out_loop = loop;
    *out_transferdata = &aux->base;
    *flags = static_cast<NPY_ARRAYMETHOD_FLAGS>(0);
    return 0;
}

AccumulationAux* reduction_step(NpyAuxData* aux_base, char* const data[], const npy_intp strides[]) {
    auto* aux = reinterpret_cast<AccumulationAux*>(aux_base);
    const bool step = aux != nullptr && aux->reduction && data[0] == data[2] && strides[0] == strides[2];
    return step ? aux : nullptr;
}

AccumulatorRow& accumulator_row(AccumulationAux& aux, char* out, npy_intp stride, npy_intp length,
                                npy_intp values_per_item) {
    AccumulatorRow& row = aux.rows[out];
    if (row.stride != stride || static_cast<npy_intp>(row.values.size()) != values_per_item * length) {
        row.stride = stride;
        row.values.assign(static_cast<size_t>(values_per_item * length), 0.0f);
        row.written.assign(static_cast<size_t>(length), ~0u);
        row.written_bytes.clear();
    }
    return row;
}

namespace {

// A reduction step: out[j] (op)= in[j] for a row (stride != 0), or
// out (op)= sum of all in (stride 0), continuing from the float32 value
// kept for that output unless someone else changed the output since.
// A contiguous output row (x.sum(axis=0): one call per row of x): the row's
// bytes as last written are kept, so one memcmp tells that nobody changed
// them (else the changed values are taken from the output); the values are
// decoded, combined and rounded a chunk at a time by the bulk kernels
// (value by value, bfloat16 1000x1000 took 28 ms).
template <BinaryOp Op>
void reduce_into_contiguous_row(const FormatRuntime& rt, AccumulatorRow& row, char* const data[], npy_intp n,
                                const npy_intp strides[]) {
    const size_t item = static_cast<size_t>(rt.format.storage_bytes);
    const size_t bytes = static_cast<size_t>(n) * item;
    char* out = data[2];
    if (row.written_bytes.size() != bytes) {  // the first call: the output holds the start
        decode_codes_to_f32(rt, out, row.values.data(), static_cast<size_t>(n));
    } else if (std::memcmp(row.written_bytes.data(), out, bytes) != 0) {
        for (npy_intp j = 0; j < n; j++) {
            const uint32_t code = load_code(rt, out + j * static_cast<npy_intp>(item));
            if (code != load_code(rt, row.written_bytes.data() + j * static_cast<npy_intp>(item))) {
                row.values[static_cast<size_t>(j)] = rt.decode_f32(code);
            }
        }
    }
    constexpr npy_intp kChunk = 1024;
    alignas(64) float values[kChunk];
    uint32_t flags = 0;
    for (npy_intp start = 0; start < n; start += kChunk) {
        const size_t count = static_cast<size_t>(n - start < kChunk ? n - start : kChunk);
        const char* in = data[1] + start * strides[1];
        if (strides[1] == static_cast<npy_intp>(item)) {
            decode_codes_to_f32(rt, in, values, count);
        } else {
            for (size_t i = 0; i < count; i++) {
                values[i] = rt.decode_f32(load_code(rt, in + static_cast<npy_intp>(i) * strides[1]));
            }
        }
        float* acc = row.values.data() + start;
        for (size_t i = 0; i < count; i++) values[i] = acc[i] = combine<Op>(acc[i], values[i]);
        settle_sums(values, count, rt.format.has_inf);
        flags |= encode_f32(rt.default_plan, values, out + start * static_cast<npy_intp>(item), count);
    }
    row.written_bytes.assign(out, out + bytes);
    raise_fp_flags(flags);
}

// A reduction step: out[j] (op)= in[j] for a row (stride != 0), or
// out (op)= sum of all in (stride 0), continuing from the float32 value
// kept for that output unless someone else changed the output since.
template <BinaryOp Op>
int reduce_into_row(const FormatRuntime& rt, AccumulationAux& aux, char* const data[], npy_intp n,
                    const npy_intp strides[]) {
    const bool single_output = strides[2] == 0;
    const npy_intp length = single_output ? 1 : n;
    AccumulatorRow& row = accumulator_row(aux, data[2], strides[2], length, 1);
    if (!single_output && strides[2] == rt.format.storage_bytes) {
        reduce_into_contiguous_row<Op>(rt, row, data, n, strides);
        return 0;
    }
    for (npy_intp j = 0; j < length; j++) {
        const uint32_t code = load_code(rt, data[2] + j * strides[2]);
        if (code != row.written[static_cast<size_t>(j)]) row.values[static_cast<size_t>(j)] = rt.decode_f32(code);
    }
    if (single_output) {
        row.values[0] = fold_codes(Op, rt, data[1], strides[1], n, row.values[0]);
    } else {
        for (npy_intp i = 0; i < n; i++) {
            float& acc = row.values[static_cast<size_t>(i)];
            acc = combine<Op>(acc, rt.decode_f32(load_code(rt, data[1] + i * strides[1])));
        }
    }
    uint32_t flags = 0;
    for (npy_intp j = 0; j < length; j++) {
        const Encoded e = encode_from_double(rt.format, rt.default_specials,
                                             accumulated_value(rt, row.values[static_cast<size_t>(j)]));
        store_code(rt, data[2] + j * strides[2], e.code);
        row.written[static_cast<size_t>(j)] = e.code;
        flags |= e.flags;
    }
    raise_fp_flags(flags);
    return 0;
}

template <BinaryOp Op>
int accumulating_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                      const npy_intp strides[], NpyAuxData* aux_base) {
    if (AccumulationAux* aux = reduction_step(aux_base, data, strides)) {
        return reduce_into_row<Op>(runtime_of(context->descriptors[0]), *aux, data, dimensions[0], strides);
    }
    // element-wise: split over the threads (threaded_loops.h)
    return run_split_loop(plain_binary_loop(Op), 2, 1, context, data, dimensions, strides, aux_base);
}

template <BinaryOp Op>
int reduction_initial(PyArrayMethod_Context* context, npy_bool reduction_is_empty, void* initial) {
    announce_reduction(context);
    const FormatRuntime& rt = runtime_of(context->descriptors[0]);
    // Like NumPy's floats: a sum starts from -0 (so sum([-0.0]) is -0.0) but
    // an empty sum is +0; products start from 1.
    const bool negative_zero = rt.format.has_negative_zero && !reduction_is_empty;
    const double identity = Op == BinaryOp::add ? (negative_zero ? -0.0 : 0.0) : 1.0;
    const Encoded e = encode_from_double(rt.format, rt.default_specials, identity);
    if (e.flags != 0) return 0;  // float8_e8m0fnu has no zero
    store_code(rt, static_cast<char*>(initial), e.code);
    return 1;
}

// ufunc.at: every touched element accumulates in float32 and is rounded once.
template <BinaryOp Op>
int indexed_loop(PyArrayMethod_Context* context, char* const* args, const npy_intp* dimensions,
                 const npy_intp* steps, NpyAuxData*) {
    const FormatRuntime& rt = runtime_of(context->descriptors[0]);
    char* base = args[0];
    const char* indices = args[1];
    const char* values = args[2];
    const npy_intp n = dimensions[0], shape = steps[3];
    std::unordered_map<npy_intp, float> totals;
    for (npy_intp i = 0; i < n; i++) {
        npy_intp index;
        std::memcpy(&index, indices + i * steps[1], sizeof index);
        if (index < 0) index += shape;
        auto it = totals.find(index);
        if (it == totals.end()) {
            it = totals.emplace(index, rt.decode_f32(load_code(rt, base + index * steps[0]))).first;
        }
        it->second = combine<Op>(it->second, rt.decode_f32(load_code(rt, values + i * steps[2])));
    }
    uint32_t flags = 0;
    for (const auto& [index, total] : totals) {
        const Encoded e = encode_from_double(rt.format, rt.default_specials, accumulated_value(rt, total));
        store_code(rt, base + index * steps[0], e.code);
        flags |= e.flags;
    }
    raise_fp_flags(flags);
    return 0;
}

template <BinaryOp Op>
std::vector<PyType_Slot> slots_for() {
    return {{NPY_METH_get_loop, reinterpret_cast<void*>(accumulating_get_loop<accumulating_loop<Op>>)},
            {NPY_METH_get_reduction_initial, reinterpret_cast<void*>(reduction_initial<Op>)},
            {NPY_METH_contiguous_indexed_loop, reinterpret_cast<void*>(indexed_loop<Op>)}};
}

}  // namespace

std::vector<PyType_Slot> accumulation_slots(BinaryOp op) {
    if (op == BinaryOp::add) return slots_for<BinaryOp::add>();
    if (op == BinaryOp::multiply) return slots_for<BinaryOp::multiply>();
    return {};
}

}  // namespace minifloat
