// Runs a contiguous block kernel over arbitrary strided, possibly unaligned
// one-dimensional data: contiguous aligned operands go straight through,
// anything else is staged through small aligned buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "numpy_api.h"

namespace minifloat {

inline constexpr size_t kStageElements = 512;

struct Operand {
    char* data;
    npy_intp stride;
    size_t itemsize;
    size_t alignment;

    bool contiguous_aligned() const {
        return stride == static_cast<npy_intp>(itemsize) &&
               reinterpret_cast<uintptr_t>(data) % alignment == 0;
    }
};

// Gathers `n` items starting at element `first` into `buffer` (contiguous).
inline void gather(const Operand& op, npy_intp first, size_t n, char* buffer) {
    const char* src = op.data + first * op.stride;
    if (op.stride == static_cast<npy_intp>(op.itemsize)) {
        std::memcpy(buffer, src, n * op.itemsize);
        return;
    }
    for (size_t i = 0; i < n; i++, src += op.stride) std::memcpy(buffer + i * op.itemsize, src, op.itemsize);
}

inline void scatter(const Operand& op, npy_intp first, size_t n, const char* buffer) {
    char* dst = op.data + first * op.stride;
    if (op.stride == static_cast<npy_intp>(op.itemsize)) {
        std::memcpy(dst, buffer, n * op.itemsize);
        return;
    }
    for (size_t i = 0; i < n; i++, dst += op.stride) std::memcpy(dst, buffer + i * op.itemsize, op.itemsize);
}

// `kernel(const char* in, char* out, size_t n) -> uint32_t flags` must accept
// any n. Items are at most 32 bytes (complex long double).
template <class Kernel>
uint32_t run_unary_strided(const Operand& in, const Operand& out, npy_intp n, Kernel&& kernel) {
    if (in.contiguous_aligned() && out.contiguous_aligned()) {
        return kernel(in.data, out.data, static_cast<size_t>(n));
    }
    alignas(64) char in_stage[kStageElements * 32];
    alignas(64) char out_stage[kStageElements * 32];
    uint32_t flags = 0;
    for (npy_intp start = 0; start < n; start += kStageElements) {
        const size_t count = static_cast<size_t>(
            n - start < static_cast<npy_intp>(kStageElements) ? n - start : kStageElements);
        const bool direct_in = in.contiguous_aligned();
        const bool direct_out = out.contiguous_aligned();
        const char* src = direct_in ? in.data + start * in.stride : in_stage;
        char* dst = direct_out ? out.data + start * out.stride : out_stage;
        if (!direct_in) gather(in, start, count, in_stage);
        flags |= kernel(src, dst, count);
        if (!direct_out) scatter(out, start, count, out_stage);
    }
    return flags;
}

}  // namespace minifloat
