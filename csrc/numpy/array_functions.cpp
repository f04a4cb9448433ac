#include "array_functions.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <utility>

#include "byte_broadcast.h"
#include "codec.h"
#include "decode_blocks.h"
#include "format_types.h"
#include "op_tables.h"
#include "per_format.h"

namespace minifloat {

namespace {

// NumPy may call these slots with arr == NULL (np.dot's
// PyArray_MatrixProduct2 calls dotfunc so since NumPy 2.5,
// numpy/numpy#30931), so no slot reads `arr`: each format index has its own
// entry points (a pool of kMaxFormats, instantiated below) that know it.

PerFormat<std::vector<uint16_t>> g_order_keys;  // made with the DType class

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

template <class Code>
int compare(int index, const void* a, const void* b) {
    const std::vector<uint16_t>& keys = g_order_keys[index];
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

template <class Code>
int sort(int index, void* start, npy_intp n) {
    const std::vector<uint16_t>& keys = g_order_keys[index];
    Code* codes = static_cast<Code*>(start);
    if (n > static_cast<npy_intp>(keys.size() / 4)) {
        counting_sort(codes, n, keys);
    } else {
        std::stable_sort(codes, codes + n,
                         [&keys](Code a, Code b) { return keys[a] < keys[b]; });
    }
    return 0;
}

template <class Code>
int argsort(int index, void* start, npy_intp* order, npy_intp n) {
    const std::vector<uint16_t>& keys = g_order_keys[index];
    const Code* codes = static_cast<const Code*>(start);
    std::stable_sort(order, order + n,
                     [&](npy_intp a, npy_intp b) { return keys[codes[a]] < keys[codes[b]]; });
    return 0;
}

// argmax: the first NaN if any (its rank is the largest), else the first maximum.
template <class Code>
int argmax(int index, void* data, npy_intp n, npy_intp* out) {
    if constexpr (sizeof(Code) == 1) {  // byte lookups and scans
        if (n > 0) {
            *out = static_cast<npy_intp>(select_position(KeySelection::maximum, order_key_bytes(index),
                                                         nan_lowest_key_bytes(index), static_cast<const uint8_t*>(data),
                                                         static_cast<size_t>(n)));
            return 0;
        }
    }
    const std::vector<uint16_t>& keys = g_order_keys[index];
    const Code* codes = static_cast<const Code*>(data);
    npy_intp best = 0;
    for (npy_intp i = 1; i < n; i++) {
        if (keys[codes[i]] > keys[codes[best]]) best = i;
    }
    *out = best;
    return 0;
}

template <class Code>
int argmin(int index, void* data, npy_intp n, npy_intp* out) {
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

template <class Code>
npy_bool nonzero(int index, void* data) {
    const FormatRuntime& rt = runtime(index);
    return rt.decode_f64[load<Code>(data)] != 0.0;
}

template <class Code>
int fill(int index, void* buffer, npy_intp length) {
    const FormatRuntime& rt = runtime(index);
    Code* codes = static_cast<Code*>(buffer);
    const double start = rt.decode_f64[codes[0]];
    const double delta = rt.decode_f64[codes[1]] - start;
    for (npy_intp i = 2; i < length; i++) {
        codes[i] = static_cast<Code>(
            encode_from_double(rt.format, rt.default_specials, start + static_cast<double>(i) * delta).code);
    }
    return 0;
}

template <class Code>
int fill_with_scalar(void* buffer, npy_intp length, void* value) {
    Code* codes = static_cast<Code*>(buffer);
    const Code v = load<Code>(value);
    for (npy_intp i = 0; i < length; i++) codes[i] = v;
    return 0;
}

// np.dot's inner product: products and sum in float32, one rounding at the end.
template <class Code>
void dot(int index, void* a, npy_intp stride_a, void* b, npy_intp stride_b, void* out, npy_intp n) {
    const FormatRuntime& rt = runtime(index);
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

// The slots of any format: its code type chosen at run time.
bool one_byte(int index) { return runtime(index).format.storage_bytes == 1; }
int compare_any(int index, const void* a, const void* b) {
    return one_byte(index) ? compare<uint8_t>(index, a, b) : compare<uint16_t>(index, a, b);
}
int sort_any(int index, void* start, npy_intp n) {
    return one_byte(index) ? sort<uint8_t>(index, start, n) : sort<uint16_t>(index, start, n);
}
int argsort_any(int index, void* start, npy_intp* order, npy_intp n) {
    return one_byte(index) ? argsort<uint8_t>(index, start, order, n) : argsort<uint16_t>(index, start, order, n);
}
int argmax_any(int index, void* data, npy_intp n, npy_intp* out) {
    return one_byte(index) ? argmax<uint8_t>(index, data, n, out) : argmax<uint16_t>(index, data, n, out);
}
int argmin_any(int index, void* data, npy_intp n, npy_intp* out) {
    return one_byte(index) ? argmin<uint8_t>(index, data, n, out) : argmin<uint16_t>(index, data, n, out);
}
npy_bool nonzero_any(int index, void* data) {
    return one_byte(index) ? nonzero<uint8_t>(index, data) : nonzero<uint16_t>(index, data);
}
int fill_any(int index, void* buffer, npy_intp length) {
    return one_byte(index) ? fill<uint8_t>(index, buffer, length) : fill<uint16_t>(index, buffer, length);
}
int fill_with_scalar_any(int index, void* buffer, npy_intp length, void* value) {
    return one_byte(index) ? fill_with_scalar<uint8_t>(buffer, length, value)
                           : fill_with_scalar<uint16_t>(buffer, length, value);
}
void dot_any(int index, void* a, npy_intp stride_a, void* b, npy_intp stride_b, void* out, npy_intp n) {
    if (one_byte(index)) {
        dot<uint8_t>(index, a, stride_a, b, stride_b, out, n);
    } else {
        dot<uint16_t>(index, a, stride_a, b, stride_b, out, n);
    }
}

// The entry points NumPy calls for the format at Index.
template <int Index>
struct Slots {
    static int compare(const void* a, const void* b, void*) { return compare_any(Index, a, b); }
    static int sort(void* start, npy_intp n, void*) { return sort_any(Index, start, n); }
    static int argsort(void* start, npy_intp* order, npy_intp n, void*) { return argsort_any(Index, start, order, n); }
    static int argmax(void* data, npy_intp n, npy_intp* out, void*) { return argmax_any(Index, data, n, out); }
    static int argmin(void* data, npy_intp n, npy_intp* out, void*) { return argmin_any(Index, data, n, out); }
    static npy_bool nonzero(void* data, void*) { return nonzero_any(Index, data); }
    static int fill(void* buffer, npy_intp length, void*) { return fill_any(Index, buffer, length); }
    static int fill_with_scalar(void* buffer, npy_intp length, void* value, void*) {
        return fill_with_scalar_any(Index, buffer, length, value);
    }
    static void dot(void* a, npy_intp stride_a, void* b, npy_intp stride_b, void* out, npy_intp n, void*) {
        dot_any(Index, a, stride_a, b, stride_b, out, n);
    }
};

using SlotAppender = void (*)(std::vector<PyType_Slot>&);

template <int Index>
void append_slots(std::vector<PyType_Slot>& slots) {
    using S = Slots<Index>;
    slots.push_back({NPY_DT_PyArray_ArrFuncs_compare, reinterpret_cast<void*>(S::compare)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_sort, reinterpret_cast<void*>(S::sort)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_argsort, reinterpret_cast<void*>(S::argsort)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_argmax, reinterpret_cast<void*>(S::argmax)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_argmin, reinterpret_cast<void*>(S::argmin)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_nonzero, reinterpret_cast<void*>(S::nonzero)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_fill, reinterpret_cast<void*>(S::fill)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_fillwithscalar, reinterpret_cast<void*>(S::fill_with_scalar)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_dotfunc, reinterpret_cast<void*>(S::dot)});
}

template <size_t... Indexes>
constexpr std::array<SlotAppender, sizeof...(Indexes)> slot_appenders(std::index_sequence<Indexes...>) {
    return {append_slots<static_cast<int>(Indexes)>...};
}

// One set of entry points per possible format index.
constexpr std::array<SlotAppender, kMaxFormats> kSlotAppenders = slot_appenders(std::make_index_sequence<kMaxFormats>());

}  // namespace

const std::vector<uint16_t>& order_keys(int index) { return g_order_keys[index]; }

void dot_through_slot(int index, const void* a, npy_intp stride_a, const void* b, npy_intp stride_b, void* out,
                      npy_intp n) {
    PyArray_DotFunc* dot = PyDataType_GetArrFuncs(&format_types(index).descr->base)->dotfunc;
    dot(const_cast<void*>(a), stride_a, const_cast<void*>(b), stride_b, out, n, nullptr);
}

void append_array_function_slots(int index, std::vector<PyType_Slot>& slots) {
    build_order_keys(index);
    kSlotAppenders[static_cast<size_t>(index)](slots);
}

}  // namespace minifloat
