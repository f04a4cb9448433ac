#include "thread_bindings.h"

#include <string>

#include "gil_release.h"
#include "thread_pool.h"

namespace py = pybind11;

namespace minifloat {

void register_thread_bindings(py::module_& m) {
    m.def("_set_num_threads", [](int n) {
        if (n < 1 || n > kMaxThreads) {
            throw py::value_error("the thread count must be 1 to " + std::to_string(kMaxThreads));
        }
        set_num_threads(n);
    });
    m.attr("_MAX_THREADS") = kMaxThreads;
    m.def("_get_num_threads", []() { return num_threads(); });
    // at interpreter exit (atexit): no thread is left waiting for the GIL
    // (gil_release.h), the workers are joined, later calls run serially
    m.def("_shutdown_threads", []() {
        exiting_now(1000);
        const GilReleased released;  // a caller in another thread may be finishing its chunks
        shutdown_thread_pool();
    });
    // for tests: every kind's minimum chunk (0: the measured ones), and the
    // threads the last split call used
    m.def("_set_thread_min_chunk", [](size_t elements) { set_min_chunk_override(elements); });
    m.def("_thread_min_chunk_override", []() { return min_chunk_override(); });
    m.def("_last_parallel_threads", []() { return last_parallel_threads(); });
    m.def("_thread_min_chunks", []() {
        py::dict d;
        d["cast"] = min_chunk(WorkKind::cast);
        d["stochastic"] = min_chunk(WorkKind::stochastic);
        d["elementwise"] = min_chunk(WorkKind::elementwise);
        d["exact_math"] = min_chunk(WorkKind::exact_math);
        d["blocks"] = min_chunk(WorkKind::blocks);
        d["packing"] = min_chunk(WorkKind::packing);
        d["matmul"] = min_chunk(WorkKind::matmul);
        return d;
    });
}

}  // namespace minifloat

// threadpoolctl finds the loaded module by its file name (_core...) and
// these two symbols, and calls them through ctypes (python/minifloat/_threads.py).
#if defined(_WIN32)
#define MINIFLOAT_EXPORT extern "C" __declspec(dllexport)
#else
#define MINIFLOAT_EXPORT extern "C" __attribute__((visibility("default")))
#endif

MINIFLOAT_EXPORT int minifloat_get_num_threads() { return minifloat::num_threads(); }

MINIFLOAT_EXPORT void minifloat_set_num_threads(int n) { minifloat::set_num_threads(n); }
