#include "threaded_loops.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <utility>

#include "memory_overlap.h"
#include "thread_pool.h"

namespace minifloat {

namespace {

constexpr int kMaxOperands = 4;

struct LoopSlot {
    PyArrayMethod_StridedLoop* inner;
    int nin, nout;
    WorkKind kind;
};

// NumPy takes a plain function pointer per loop: one trampoline per slot,
// each reading its own slot (written once at import, before any call).
constexpr int kSlots = 256;
LoopSlot g_slots[kSlots];
int g_used = 0;

// (Items are at most 16 bytes in these loops.)
constexpr size_t kLargestItem = 16;

// Whether the elements are independent: no output is a reduction's, and
// each output either is exactly an input (in place) or shares no byte with
// any (an accumulate's output is its input shifted by one element).
bool elements_independent(const LoopSlot& s, char* const data[], const npy_intp strides[], npy_intp n) {
    for (int o = s.nin; o < s.nin + s.nout; o++) {
        if (strides[o] == 0) return false;
        const auto out = byte_span(data[o], strides[o], n, kLargestItem);
        for (int i = 0; i < s.nin + s.nout; i++) {
            if (i == o) continue;
            if (data[i] == data[o] && strides[i] == strides[o]) continue;
            if (spans_overlap(byte_span(data[i], strides[i], n, kLargestItem), out)) return false;
        }
    }
    return true;
}

int run_split(const LoopSlot& s, PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
              const npy_intp strides[], NpyAuxData* aux) {
    const npy_intp n = dimensions[0];
    if (n < static_cast<npy_intp>(2 * min_chunk(s.kind)) || num_threads() <= 1 ||
        !elements_independent(s, data, strides, n)) {
        return s.inner(context, data, dimensions, strides, aux);
    }
    std::atomic<bool> failed{false};
    const int operands = s.nin + s.nout;
    parallel_for(static_cast<size_t>(n), s.kind, [&](size_t begin, size_t end) {
        char* part[kMaxOperands];
        for (int k = 0; k < operands; k++) part[k] = data[k] + static_cast<npy_intp>(begin) * strides[k];
        const npy_intp count[1] = {static_cast<npy_intp>(end - begin)};
        if (s.inner(context, part, count, strides, aux) < 0) failed.store(true);
        return 0u;
    });
    return failed.load() ? -1 : 0;
}

template <int I>
int trampoline(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
               const npy_intp strides[], NpyAuxData* aux) {
    return run_split(g_slots[I], context, data, dimensions, strides, aux);
}

template <int... I>
constexpr auto make_trampolines(std::integer_sequence<int, I...>) {
    return std::array<PyArrayMethod_StridedLoop*, sizeof...(I)>{trampoline<I>...};
}

// Ufuncs evaluated exactly in binary64 per value where no table serves the
// format (the 64K-entry tables of 16-bit formats still cost 0.7 ns per
// value): split from smaller sizes than the table and SIMD loops.
bool computed_exactly(const char* ufunc) {
    static const char* const names[] = {
        "power", "arctan2", "hypot", "logaddexp", "logaddexp2", "remainder", "fmod", "floor_divide",
        "divmod", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin",
        "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "cbrt", "modf"};
    for (const char* name : names) {
        if (std::strcmp(name, ufunc) == 0) return true;
    }
    return false;
}

}  // namespace

int run_split_loop(PyArrayMethod_StridedLoop* inner, int nin, int nout, PyArrayMethod_Context* context,
                   char* const data[], const npy_intp dimensions[], const npy_intp strides[], NpyAuxData* aux) {
    if (nin + nout > kMaxOperands) return inner(context, data, dimensions, strides, aux);
    const LoopSlot slot{inner, nin, nout, WorkKind::elementwise};
    return run_split(slot, context, data, dimensions, strides, aux);
}

PyArrayMethod_StridedLoop* threaded_loop(PyArrayMethod_StridedLoop* inner, int nin, int nout, const char* ufunc) {
    static const auto trampolines = make_trampolines(std::make_integer_sequence<int, kSlots>{});
    if (nin + nout > kMaxOperands) return inner;
    const WorkKind kind = computed_exactly(ufunc) ? WorkKind::exact_math : WorkKind::elementwise;
    for (int i = 0; i < g_used; i++) {
        const LoopSlot& s = g_slots[i];
        if (s.inner == inner && s.nin == nin && s.nout == nout && s.kind == kind) return trampolines[i];
    }
    if (g_used == kSlots) return inner;  // more loops than slots: the rest stay serial
    g_slots[g_used] = {inner, nin, nout, kind};
    return trampolines[g_used++];
}

}  // namespace minifloat
