// The order in which a long contiguous loop takes its steps. One core reads
// and writes memory faster as several concurrent sequential streams than as
// one (the hardware prefetchers keep more requests in flight). Measured on
// an AMD EPYC (Zen 4) VM with plain loops, 4 streams read 32 MB of float64
// in 0.6-0.75 ms against 0.85-1.1 ms and wrote 16 MB of float32 in
// 0.23-0.25 ms against 0.29-0.41 ms (8 streams were slower again); in the
// kernels, 4M codes to float32 took 0.25-0.33 ms against 0.31-0.42, bfloat16
// to float32 0.34-0.43 against 0.42-0.51, float64 to float8_e8m0fnu 0.55-0.9
// against 0.9-1.0. So a loop over a large region visits four equal parts of
// it in turn, a block of each. Loops that already stream two inputs and an
// output (comparisons, arithmetic) gained nothing, the compute-bound MX
// quantizers lost, and both keep plain order. Elementwise kernels only: the
// results do not depend on the order.
#pragma once

#include <cstddef>

#include "simd_dispatch.h"

namespace minifloat {

// log2 of the number of streams long loops use: 2 (four streams) unless
// MINIFLOAT_MEMORY_STREAMS=1 (for measuring) or set_memory_streams.
unsigned memory_stream_shift();
// 1, 2, 4 or 8 (others round down to a power of two); returns the previous count.
unsigned set_memory_streams(unsigned streams);

// A loop over [start, end) in blocks of `block` elements: its first
// streams * length elements are `streams` equal parts (length a multiple of
// block), which the loop visits in turn, one block of each per round:
//     for (j = 0; j < length; j += block)
//         for (s = 0; s < streams; s++) block at start + s * length + j
// and then [end(), end) in order. `widest_element_bytes`: the element size of
// the loop's widest array; a region spanning less than kStreamingBytes of it
// is one part. Blocks of 4 KB of the widest array (stream_block) measured
// best: a page of each stream per visit; steps of 256 bytes gained less
// (float64 -> float8_e8m0fnu 0.77 against 0.6 ms), blocks of 16 KB nothing.
constexpr size_t kStreamingBytes = size_t{1} << 20;
struct StreamParts {
    size_t start = 0, length = 0;
    unsigned streams = 1;
    size_t end() const { return start + streams * length; }
};
StreamParts stream_parts(size_t start, size_t end, size_t block, size_t widest_element_bytes);

constexpr size_t kStreamBlockBytes = 4096;
// Elements per block of an array of `element_bytes` elements (a multiple of
// every kernel's step: 512 float64 to 2048 bfloat16).
constexpr size_t stream_block(size_t element_bytes) { return kStreamBlockBytes / element_bytes; }

// Calls run(start, count) over [0, n) in the block order above, for
// kernels with little set-up per call. Inlined, so a cloned kernel may call
// it (simd_dispatch.h).
template <class Run>
MINIFLOAT_KERNEL_INLINE void for_each_streamed_block(size_t n, size_t widest_element_bytes, Run&& run) {
    const size_t block = stream_block(widest_element_bytes);
    const StreamParts parts = stream_parts(0, n, block, widest_element_bytes);
    if (parts.streams == 1) {
        run(size_t{0}, n);
        return;
    }
    for (size_t j = 0; j < parts.length; j += block) {
        for (unsigned s = 0; s < parts.streams; s++) run(s * parts.length + j, block);
    }
    if (parts.end() < n) run(parts.end(), n - parts.end());
}

}  // namespace minifloat
