// Runs a contiguous block kernel over arbitrary strided, possibly unaligned
// one-dimensional data: contiguous aligned operands go straight through,
// anything else is staged through small aligned buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "memory_overlap.h"
#include "numpy_api.h"
#include "thread_pool.h"

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

template <class Item>
inline void copy_strided(const char* src, npy_intp src_stride, char* dst, npy_intp dst_stride, size_t n) {
    // every other item (a [::2] view) into a buffer: a constant stride the
    // compiler turns into vector loads and shuffles
    if (src_stride == 0) {  // one item everywhere: read once, so the stores vectorize
        Item v;
        std::memcpy(&v, src, sizeof v);
        if (dst_stride == static_cast<npy_intp>(sizeof(Item))) {
            for (size_t i = 0; i < n; i++) std::memcpy(dst + i * sizeof(Item), &v, sizeof v);
            return;
        }
        for (size_t i = 0; i < n; i++, dst += dst_stride) std::memcpy(dst, &v, sizeof v);
        return;
    }
    if (src_stride == 2 * static_cast<npy_intp>(sizeof(Item)) && dst_stride == static_cast<npy_intp>(sizeof(Item))) {
        for (size_t i = 0; i < n; i++) std::memcpy(dst + i * sizeof(Item), src + 2 * i * sizeof(Item), sizeof(Item));
        return;
    }
    for (size_t i = 0; i < n; i++, src += src_stride, dst += dst_stride) {
        Item v;
        std::memcpy(&v, src, sizeof v);
        std::memcpy(dst, &v, sizeof v);
    }
}

// Copies n items between strided places; fixed-size copies for the common
// item sizes so the compiler emits plain loads and stores.
inline void copy_items(const char* src, npy_intp src_stride, char* dst, npy_intp dst_stride,
                       size_t n, size_t itemsize) {
    if (src_stride == static_cast<npy_intp>(itemsize) && dst_stride == src_stride) {
        std::memmove(dst, src, n * itemsize);  // (a same-format cast between libraries: 4.8x a copy, item by item)
        return;
    }
    switch (itemsize) {
        case 1: return copy_strided<uint8_t>(src, src_stride, dst, dst_stride, n);
        case 2: return copy_strided<uint16_t>(src, src_stride, dst, dst_stride, n);
        case 4: return copy_strided<uint32_t>(src, src_stride, dst, dst_stride, n);
        case 8: return copy_strided<uint64_t>(src, src_stride, dst, dst_stride, n);
        default:
            for (size_t i = 0; i < n; i++, src += src_stride, dst += dst_stride) std::memcpy(dst, src, itemsize);
    }
}

// Gathers `n` items starting at element `first` into `buffer` (contiguous).
inline void gather(const Operand& op, npy_intp first, size_t n, char* buffer) {
    copy_items(op.data + first * op.stride, op.stride, buffer, static_cast<npy_intp>(op.itemsize), n,
               op.itemsize);
}

inline void scatter(const Operand& op, npy_intp first, size_t n, const char* buffer) {
    copy_items(buffer, static_cast<npy_intp>(op.itemsize), op.data + first * op.stride, op.stride, n,
               op.itemsize);
}

// `kernel(const char* in, char* out, size_t n) -> uint32_t flags` must accept
// any n. Items are at most 32 bytes (complex long double).
template <class Kernel>
uint32_t run_unary_strided(const Operand& in, const Operand& out, npy_intp n, Kernel&& kernel) {
    // Operands that share memory (other than exactly, in place) go through
    // the staged loop below, on this thread, front to back (memory_overlap.h):
    // each chunk's inputs are copied out before its outputs are written, as
    // a kernel may read a block again after writing it (the portable
    // encoder redoes a block with subnormal lanes).
    const bool in_place = in.data == out.data && in.itemsize == out.itemsize;
    const bool overlapping = !in_place && spans_overlap(byte_span(in.data, in.stride, n, in.itemsize),
                                                        byte_span(out.data, out.stride, n, out.itemsize));
    if (in.contiguous_aligned() && out.contiguous_aligned() && !overlapping) {
        // element-wise: any split gives the same bits (thread_pool.h)
        return parallel_for(static_cast<size_t>(n), WorkKind::cast, [&](size_t begin, size_t end) {
            return kernel(in.data + begin * in.itemsize, out.data + begin * out.itemsize, end - begin);
        });
    }
    alignas(64) char in_stage[kStageElements * 32];
    alignas(64) char out_stage[kStageElements * 32];
    if (in.stride == 0 && n > 1) {
        // one value everywhere (np.full, a[...] = 0.5): converted once (the
        // same flags), its bytes copied out
        gather(in, 0, 1, in_stage);
        const uint32_t flags = kernel(in_stage, out_stage, 1);
        copy_items(out_stage, 0, out.data, out.stride, static_cast<size_t>(n), out.itemsize);
        return flags;
    }
    uint32_t flags = 0;
    for (npy_intp start = 0; start < n; start += kStageElements) {
        const size_t count = static_cast<size_t>(
            n - start < static_cast<npy_intp>(kStageElements) ? n - start : kStageElements);
        const bool direct_in = in.contiguous_aligned() && !overlapping;
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
