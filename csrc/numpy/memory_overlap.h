// Whether two strided operands share memory: a loop split over threads
// must not run where they do, since NumPy hands its loops overlapping 1-d
// operands (np.copyto from a float32 buffer into its own first bytes as
// float8) and relies on the elements being done front to back.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "numpy_api.h"

namespace minifloat {

// The lowest and one past the highest byte that n items of `itemsize`
// bytes touch, from `data` every `stride` bytes.
inline std::pair<uintptr_t, uintptr_t> byte_span(const char* data, npy_intp stride, npy_intp n, size_t itemsize) {
    const uintptr_t first = reinterpret_cast<uintptr_t>(data);
    const npy_intp reach = stride * (n - 1);
    const uintptr_t last = reach >= 0 ? first + static_cast<uintptr_t>(reach) : first - static_cast<uintptr_t>(-reach);
    return {std::min(first, last), std::max(first, last) + itemsize};
}

inline bool spans_overlap(const std::pair<uintptr_t, uintptr_t>& a, const std::pair<uintptr_t, uintptr_t>& b) {
    return a.first < b.second && b.first < a.second;
}

}  // namespace minifloat
