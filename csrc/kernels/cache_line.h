// How many elements of an array come before its next 64-byte cache line
// boundary. NumPy's buffers are 16-byte aligned, so a kernel moving 64 bytes
// per step straddles two lines on every step (about twice the cost on some
// cores) unless it first handles this many elements on their own.
#pragma once

#include <cstddef>
#include <cstdint>

namespace minifloat {

// At most n; 0 when p is not aligned to its element size (no element
// boundary is a line boundary then).
template <class T>
inline size_t elements_before_cache_line(const T* p, size_t n) {
    const uintptr_t address = reinterpret_cast<uintptr_t>(p);
    if (address % sizeof(T) != 0) return 0;
    const size_t count = (64 - address % 64) % 64 / sizeof(T);
    return count < n ? count : n;
}

}  // namespace minifloat
