#include "array_functions.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <utility>

#include "byte_broadcast.h"
#include "codec.h"
#include "decode_blocks.h"
#include "op_tables.h"
#include "registry.h"

namespace minifloat {

namespace {

// Every slot below is instantiated per format (Index) and never reads its
// `arr` argument: NumPy may pass NULL there (np.dot's PyArray_MatrixProduct2
// calls dotfunc with arr == NULL since NumPy 2.5, numpy/numpy#30931).

std::vector<uint16_t> g_order_keys[kFormatCount];

void build_order_keys(int index) {
    const FormatRuntime& rt = runtime(index);
    const size_t count = rt.code_count();
    std::vector<uint32_t> codes(count);
    std::iota(codes.begin(), codes.end(), 0u);
    auto value = [&rt](uint32_t c) { return rt.decode_f64[c]; };
    std::stable_sort(codes.begin(), codes.end(), [&](uint32_t a, uint32_t b) {
        const double x = value(a), y = value(b);
        if (std::isnan(x)) return false;
        if (std::isnan(y)) return true;
        return x < y;
    });
    std::vector<uint16_t>& keys = g_order_keys[index];
    keys.assign(count, 0);
    uint32_t rank = 0;
    for (size_t i = 0; i < count; i++) {
        if (i > 0) {
            const double prev = value(codes[i - 1]), cur = value(codes[i]);
            const bool same = (std::isnan(prev) && std::isnan(cur)) || prev == cur;
            if (!same) rank++;
        }
        keys[codes[i]] = static_cast<uint16_t>(rank);
    }
}

template <class Code>
Code load(const void* p) {
    Code c;
    std::memcpy(&c, p, sizeof c);
    return c;
}

template <class Code, int Index>
int compare(const void* a, const void* b, void*) {
    const std::vector<uint16_t>& keys = g_order_keys[Index];
    const uint16_t ka = keys[load<Code>(a)], kb = keys[load<Code>(b)];
    return ka < kb ? -1 : (ka > kb ? 1 : 0);
}

// Stable counting sort of `n` codes by rank (ranks < key_count).
template <class Code>
void counting_sort(Code* codes, npy_intp n, const std::vector<uint16_t>& keys) {
    const size_t key_count = static_cast<size_t>(*std::max_element(keys.begin(), keys.end())) + 1;
    std::vector<npy_intp> start(key_count + 1, 0);
    for (npy_intp i = 0; i < n; i++) start[keys[codes[i]] + 1]++;
    for (size_t k = 0; k < key_count; k++) start[k + 1] += start[k];
    std::vector<Code> sorted(static_cast<size_t>(n));
    for (npy_intp i = 0; i < n; i++) sorted[start[keys[codes[i]]]++] = codes[i];
    std::memcpy(codes, sorted.data(), sizeof(Code) * static_cast<size_t>(n));
}

template <class Code, int Index>
int sort(void* start, npy_intp n, void*) {
    const std::vector<uint16_t>& keys = g_order_keys[Index];
    Code* codes = static_cast<Code*>(start);
    if (n > static_cast<npy_intp>(keys.size() / 4)) {
        counting_sort(codes, n, keys);
    } else {
        std::stable_sort(codes, codes + n,
                         [&keys](Code a, Code b) { return keys[a] < keys[b]; });
    }
    return 0;
}

template <class Code, int Index>
int argsort(void* start, npy_intp* order, npy_intp n, void*) {
    const std::vector<uint16_t>& keys = g_order_keys[Index];
    const Code* codes = static_cast<const Code*>(start);
    std::stable_sort(order, order + n,
                     [&](npy_intp a, npy_intp b) { return keys[codes[a]] < keys[codes[b]]; });
    return 0;
}

// argmax: the first NaN if any (its rank is the largest), else the first maximum.
template <class Code, int Index>
int argmax(void* data, npy_intp n, npy_intp* out, void*) {
    if constexpr (sizeof(Code) == 1) {  // byte lookups and scans
        if (n > 0) {
            constexpr int index = Index;
            *out = static_cast<npy_intp>(select_position(KeySelection::maximum, order_key_bytes(index),
                                                         nan_lowest_key_bytes(index), static_cast<const uint8_t*>(data),
                                                         static_cast<size_t>(n)));
            return 0;
        }
    }
    const std::vector<uint16_t>& keys = g_order_keys[Index];
    const Code* codes = static_cast<const Code*>(data);
    npy_intp best = 0;
    for (npy_intp i = 1; i < n; i++) {
        if (keys[codes[i]] > keys[codes[best]]) best = i;
    }
    *out = best;
    return 0;
}

template <class Code, int Index>
int argmin(void* data, npy_intp n, npy_intp* out, void*) {
    constexpr int index = Index;
    if constexpr (sizeof(Code) == 1) {  // the first NaN, else the first minimum
        if (n > 0) {
            *out = static_cast<npy_intp>(select_position(KeySelection::minimum, order_key_bytes(index),
                                                         nan_lowest_key_bytes(index), static_cast<const uint8_t*>(data),
                                                         static_cast<size_t>(n)));
            return 0;
        }
    }
    const FormatRuntime& rt = runtime(index);
    const std::vector<uint16_t>& keys = g_order_keys[index];
    const Code* codes = static_cast<const Code*>(data);
    npy_intp best = 0;
    for (npy_intp i = 0; i < n; i++) {
        if (rt.format.code_is_nan(codes[i])) {
            *out = i;
            return 0;
        }
        if (keys[codes[i]] < keys[codes[best]]) best = i;
    }
    *out = best;
    return 0;
}

template <class Code, int Index>
npy_bool nonzero(void* data, void*) {
    const FormatRuntime& rt = runtime(Index);
    return rt.decode_f64[load<Code>(data)] != 0.0;
}

template <class Code, int Index>
int fill(void* buffer, npy_intp length, void*) {
    const FormatRuntime& rt = runtime(Index);
    Code* codes = static_cast<Code*>(buffer);
    const double start = rt.decode_f64[codes[0]];
    const double delta = rt.decode_f64[codes[1]] - start;
    for (npy_intp i = 2; i < length; i++) {
        codes[i] = static_cast<Code>(
            encode_from_double(rt.format, rt.default_specials, start + static_cast<double>(i) * delta).code);
    }
    return 0;
}

template <class Code, int Index>
int fill_with_scalar(void* buffer, npy_intp length, void* value, void*) {
    Code* codes = static_cast<Code*>(buffer);
    const Code v = load<Code>(value);
    for (npy_intp i = 0; i < length; i++) codes[i] = v;
    return 0;
}

// np.dot's inner product: products and sum in float32, one rounding at the end.
template <class Code, int Index>
void dot(void* a, npy_intp stride_a, void* b, npy_intp stride_b, void* out, npy_intp n,
         void*) {
    const FormatRuntime& rt = runtime(Index);
    const char* pa = static_cast<const char*>(a);
    const char* pb = static_cast<const char*>(b);
    float sum = 0.0f;
    for (npy_intp i = 0; i < n; i++, pa += stride_a, pb += stride_b) {
        sum += rt.decode_f32(load<Code>(pa)) * rt.decode_f32(load<Code>(pb));
    }
    const Code code = static_cast<Code>(
        encode_from_double(rt.format, rt.default_specials, accumulated_value(rt, sum)).code);
    std::memcpy(out, &code, sizeof code);
}

template <class Code, int Index>
void append_slots(std::vector<PyType_Slot>& slots) {
    slots.push_back({NPY_DT_PyArray_ArrFuncs_compare, reinterpret_cast<void*>(compare<Code, Index>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_sort, reinterpret_cast<void*>(sort<Code, Index>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_argsort, reinterpret_cast<void*>(argsort<Code, Index>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_argmax, reinterpret_cast<void*>(argmax<Code, Index>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_argmin, reinterpret_cast<void*>(argmin<Code, Index>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_nonzero, reinterpret_cast<void*>(nonzero<Code, Index>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_fill, reinterpret_cast<void*>(fill<Code, Index>)});
    slots.push_back(
        {NPY_DT_PyArray_ArrFuncs_fillwithscalar, reinterpret_cast<void*>(fill_with_scalar<Code, Index>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_dotfunc, reinterpret_cast<void*>(dot<Code, Index>)});
}

template <int Index>
void append_format_slots(std::vector<PyType_Slot>& slots) {
    using Code = std::conditional_t<(kFormatTable[Index].bits > 8), uint16_t, uint8_t>;
    append_slots<Code, Index>(slots);
}

template <size_t... Indexes>
void append_slots_of(int index, std::vector<PyType_Slot>& slots, std::index_sequence<Indexes...>) {
    ((static_cast<int>(Indexes) == index ? append_format_slots<static_cast<int>(Indexes)>(slots) : void()), ...);
}

}  // namespace

const std::vector<uint16_t>& order_keys(int index) { return g_order_keys[index]; }

void dot_through_slot(int index, const void* a, npy_intp stride_a, const void* b, npy_intp stride_b, void* out,
                      npy_intp n) {
    PyArray_DotFunc* dot = PyDataType_GetArrFuncs(&runtime(index).descr->base)->dotfunc;
    dot(const_cast<void*>(a), stride_a, const_cast<void*>(b), stride_b, out, n, nullptr);
}

void append_array_function_slots(int index, std::vector<PyType_Slot>& slots) {
    build_order_keys(index);
    append_slots_of(index, slots, std::make_index_sequence<kFormatCount>());
}

}  // namespace minifloat
