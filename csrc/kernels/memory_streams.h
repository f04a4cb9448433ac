// The order in which a long contiguous loop takes its steps: it depends on
// whether the loop's data fit in the last-level cache, read at run time
// (below).
//
// Beyond the cache, a loop may visit four equal parts of its region in
// turn, a block of each ("memory streams"), so that one core's hardware
// prefetchers keep more requests in flight. It is off by default
// (MINIFLOAT_MEMORY_STREAMS=4 turns it on, for measuring on other
// machines): measured on an AMD EPYC (Zen 5) VM with one thread, the casts
// gained nothing beyond the cache (float64 -> 8-bit at 4M values and
// float32 <-> float8 at 67M: 0.93-1.09x the plain order's time) and the
// stochastic kernels lost (float64 -> float8_e8m0fnu 2.37 against 1.40 ms,
// float32 -> float8_e4m3fn at 67M values 36.4 against 16.7 ms; likely
// because prefetchers do not cross a 4 KB page, so each block starts
// cold); within the cache it was slower
// too (4M values to float32 1.2-1.6x, when streaming started at 1 MiB).
// Elementwise kernels only: the results do not depend on the order.
//
// Stores that bypass the caches (non-temporal) were measured and left out:
// float8_e4m3fn -> float32 at 67M values took 7.5-8.1 ms against 9.5-9.7
// into an existing array (np.copyto), but 20.0-20.8 against 18.4-19.0 ms
// into astype's new one (12.1-16.7 against 10.6-14.0 on 2 threads): the
// kernel has just zeroed a new page, so its lines are still cached, and
// astype is the common case.
#pragma once

#include <cstddef>

#include "simd_dispatch.h"

namespace minifloat {

// The last-level cache's size in bytes: the largest cache of CPU 0 in sysfs,
// else sysconf's level-3 (else level-2) cache, else 32 MiB; read once.
size_t last_level_cache_bytes();
// A loop whose widest array spans at least this many bytes is beyond the
// cache: last_level_cache_bytes() unless set (tests, measuring; 0 restores
// it). Returns the previous value.
size_t beyond_cache_bytes();
size_t set_beyond_cache_bytes(size_t bytes);
inline bool beyond_cache(size_t bytes) { return bytes >= beyond_cache_bytes(); }

// log2 of the number of streams long loops use beyond the cache: 0 (plain
// order) unless MINIFLOAT_MEMORY_STREAMS is set (1, 2, 4 or 8) or
// set_memory_streams.
unsigned memory_stream_shift();
// 1, 2, 4 or 8 (others round down to a power of two); returns the previous count.
unsigned set_memory_streams(unsigned streams);

// A loop over [start, end) in blocks of `block` elements: its first
// streams * length elements are `streams` equal parts (length a multiple of
// block), which the loop visits in turn, one block of each per round:
//     for (j = 0; j < length; j += block)
//         for (s = 0; s < streams; s++) block at start + s * length + j
// and then [end(), end) in order. `bytes_per_element`: what the loop reads
// and writes per element (its arrays' element sizes; the widest one's at
// least); a region within the cache (beyond_cache) is one part. Blocks of 4 KB of the widest array (stream_block) measured best: a
// page of each stream per visit; steps of 256 bytes gained less
// (float64 -> float8_e8m0fnu 0.77 against 0.6 ms), blocks of 16 KB nothing.
struct StreamParts {
    size_t start = 0, length = 0;
    unsigned streams = 1;
    // beyond the cache in plain order: the loop asks for its source
    // kBeyondCachePrefetchBytes ahead as it starts a block (prefetch_ahead)
    bool prefetch = false;
    size_t end() const { return start + streams * length; }
};
StreamParts stream_parts(size_t start, size_t end, size_t block, size_t bytes_per_element);

// Whether a loop over n elements moving `bytes_per_element`, or the whole
// operation it is part of (OperationLengthScope), reaches beyond the cache.
bool operation_beyond_cache(size_t n, size_t bytes_per_element);

// Whether a loop over n elements moving `bytes_per_element` prefetches its
// source (StreamParts::prefetch): beyond the cache, in plain order.
bool prefetches(size_t n, size_t bytes_per_element);

// The elements of the whole operation a loop runs a part of: parallel_for
// (thread_pool.h) sets it on each thread while it runs chunks, and on the
// caller when it runs the whole alone, so that a part of an array beyond the
// cache (a chunk, a row) is too (the cache is shared; 0 outside).
class OperationLengthScope {
public:
    explicit OperationLengthScope(size_t elements);
    ~OperationLengthScope();
    OperationLengthScope(const OperationLengthScope&) = delete;
    OperationLengthScope& operator=(const OperationLengthScope&) = delete;

private:
    size_t previous_;
};

constexpr size_t kStreamBlockBytes = 4096;

// Software prefetch beyond the cache, 16 KB ahead: on the AMD EPYC (Zen 5)
// VM, reading 32 MB of float64 into bytes took 0.80 ms in plain order and
// 0.49 with it (8 KB ahead 0.62, 32-128 KB as 16), float32 at 67M values
// 9.4-11.0 against 8.9 ms; within the cache it cost (16 MB of float32:
// 0.21 against 0.25 ms), so it is off there.
constexpr size_t kBeyondCachePrefetchBytes = 16384;

// Asks for elements [first, first + count) of `source`, moved kBeyondCachePrefetchBytes
// ahead, to be brought into the caches, a cache line at a time (a prefetch
// never faults: the range may run past the array's end).
template <class T>
MINIFLOAT_KERNEL_INLINE void prefetch_ahead(const T* source, size_t first, size_t count) {
    const char* from = reinterpret_cast<const char*>(source + first) + kBeyondCachePrefetchBytes;
    for (size_t offset = 0; offset < count * sizeof(T); offset += 64) __builtin_prefetch(from + offset, 0, 3);
}
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
