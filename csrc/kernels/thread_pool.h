// The worker threads that bulk operations split their work over.
//
// One pool per process, shared by every caller: `parallel_for(n, kind, body)`
// cuts [0, n) into chunks and runs `body(begin, end)` on them, the calling
// thread taking chunks too. Chunks are position-based, so every kernel that
// is element-wise, or whose random draws are tied to element positions,
// gives the same bits for any thread count.
//
// Rules (docs: python/minifloat/_threads.py):
// - work below the kind's measured minimum, a call from inside a chunk
//   (nested), and a call that finds the pool busy with another caller's work
//   run serially on the calling thread: threads never multiply;
// - a call uses at most num_threads - (other callers running big work at
//   that moment) threads, so that dask's threaded scheduler or a user's own
//   thread pool keeps the machine at its own thread count;
// - the chunks run under the caller's floating-point modes (fenv), and the
//   hardware status flags each worker raised are raised on the caller
//   afterwards (np.errstate sees overflow in any chunk); the uint32 flag
//   sets the chunks return are OR-ed;
// - an exception thrown by a chunk is rethrown on the caller;
// - after fork() the child starts with a fresh pool (made at its first
//   parallel call); shutdown_thread_pool() (at interpreter exit) joins the
//   workers, and later calls run serially.
// No NumPy or Python here: the bindings and the NumPy loops call it with the
// GIL released or held (workers never touch Python).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace minifloat {

// Kinds of bulk work; each has the smallest chunk worth handing to another
// thread (thread_pool.cpp says how they were chosen).
enum class WorkKind {
    cast,          // astype and mf.cast of float32/float64 <-> 8/16-bit codes (~0.2-1 ns per value)
    stochastic,    // stochastic rounding (a counter-based draw per value)
    elementwise,   // ufuncs served by tables or fused SIMD kernels
    exact_math,    // ufuncs evaluated exactly per value (exp, sin, power, ...; tables where they exist)
    blocks,        // MX/NVFP4 quantize and dequantize, counted in values
    packing,       // pack/unpack of sub-byte codes
    matmul,        // counted in multiply-adds
};

// The most threads a count may ask for: past it a pool only waits (100,000
// asked for once made 1,525 threads, of which 25 got work).
inline constexpr int kMaxThreads = 1024;

// The configured thread count (1..kMaxThreads), and setting it (clamped).
int num_threads();
void set_num_threads(int n);

// For tests: every kind's minimum chunk replaced by `elements` (0: the
// measured ones); while it is set, a caller waits for its helpers to join
// before it takes chunks itself, so that small jobs really run on them.
void set_min_chunk_override(size_t elements);
size_t min_chunk_override();
size_t min_chunk(WorkKind kind);

// Joins the workers; later calls run serially. Idempotent.
void shutdown_thread_pool();

// How many threads the last parallel_for of this process used (tests).
int last_parallel_threads();

// body(args...) as FpFlag bits: its result, or 0 for a body returning void.
template <class Body, class... Args>
uint32_t flags_of_call(const Body& body, Args... args) {
    if constexpr (std::is_void_v<decltype(body(args...))>) {
        body(args...);
        return 0u;
    } else {
        return static_cast<uint32_t>(body(args...));
    }
}

namespace detail {

// A type-erased reference to `uint32_t body(size_t begin, size_t end)`.
struct ChunkBody {
    const void* object;
    uint32_t (*call)(const void*, size_t, size_t);
    uint32_t operator()(size_t begin, size_t end) const { return call(object, begin, end); }
};

uint32_t parallel_for_erased(size_t n, WorkKind kind, size_t align, size_t weight, ChunkBody body);

template <class Body>
ChunkBody erase(const Body& body) {
    return ChunkBody{&body, [](const void* object, size_t begin, size_t end) -> uint32_t {
                         return flags_of_call(*static_cast<const Body*>(object), begin, end);
                     }};
}

}  // namespace detail

// Runs body(begin, end) over [0, n) in chunks whose starts are multiples of
// `align` (elements); returns the OR of the bodies' results (a body
// returning void counts as 0).
template <class Body>
uint32_t parallel_for(size_t n, WorkKind kind, size_t align, const Body& body) {
    return detail::parallel_for_erased(n, kind, align, 1, detail::erase(body));
}

// The same over n items (rows, blocks) each worth `weight` elements of
// `kind`, chunks of whole items.
template <class Body>
uint32_t parallel_for_items(size_t n, size_t weight, WorkKind kind, const Body& body) {
    return detail::parallel_for_erased(n, kind, 1, weight < 1 ? 1 : weight, detail::erase(body));
}

template <class Body>
uint32_t parallel_for(size_t n, WorkKind kind, const Body& body) {
    return parallel_for(n, kind, 64, body);
}

}  // namespace minifloat
