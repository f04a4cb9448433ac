#include "bindings.h"

#include "array_functions.h"
#include "cast_array.h"
#include "cast_extras.h"
#include "dlpack_interop.h"
#include "format_types.h"
#include "fp_status.h"
#include "function_guard.h"
#include "memory_streams.h"
#include "mx_quantize.h"
#include "numpy_api.h"
#include "op_tables.h"
#include "pair_kernel_choice.h"
#include "scaled_quantize.h"
#include "simd_dispatch.h"
#include "stochastic_avx2.h"
#include "thread_bindings.h"
#include "ufunc_fallback.h"
#include "user_formats.h"

namespace py = pybind11;

namespace minifloat {

void register_bindings(py::module_& m) {
    register_cast_bindings(m);
    register_mx_bindings(m);
    register_cast_extra_bindings(m);
    register_dlpack_bindings(m);
    register_fallback_bindings(m);
    register_function_guard_bindings(m);
    register_user_format_bindings(m);
    register_thread_bindings(m);
    register_scaled_quantize_bindings(m);
    // For tests: the portable kernels must give the same bits as the
    // hand-written AVX-512 ones. Returns the previous setting.
    m.def("_set_avx512_kernels", [](bool enabled) {
        const bool previous = avx512_kernels_enabled();
        set_avx512_kernels_enabled(enabled);
        return previous;
    });
    m.def("_set_avx2_kernels", [](bool enabled) {
        const bool previous = avx2_kernels_enabled();
        set_avx2_kernels_enabled(enabled);
        return previous;
    });
    // For tests: the AVX2 stochastic kernel's draws by VAES (where the CPU
    // has it) or by AES-NI; returns the previous setting.
    m.def("_set_stochastic_avx2_vaes", [](bool enabled) { return set_stochastic_avx2_vaes(enabled); });
    // For tests and measuring: how many memory streams long elementwise
    // loops use (memory_streams.h); returns the previous count.
    m.def("_set_memory_streams", [](unsigned streams) { return set_memory_streams(streams); });
    // For tests and measuring: from how many bytes a loop's widest array is
    // beyond the cache (memory_streams.h; 0: the last-level cache's size);
    // returns the previous setting.
    m.def("_set_beyond_cache_bytes", [](size_t bytes) { return set_beyond_cache_bytes(bytes); });
    m.def("_last_level_cache_bytes", [] { return last_level_cache_bytes(); });
    // For tests: sets or clears MXCSR's flush-to-zero and denormals-are-zero
    // bits in this thread (as torch.set_flush_denormal does); returns the
    // previous setting, or None where there is no MXCSR.
    m.def("_set_flush_to_zero", [](bool enabled) -> py::object {
#if MINIFLOAT_FP_STATUS_X86
        constexpr unsigned kFlush = 0x8000u | 0x0040u;
        const unsigned csr = _mm_getcsr();
        _mm_setcsr(enabled ? (csr | kFlush) : (csr & ~kFlush));
        return py::bool_((csr & kFlush) != 0);
#else
        (void)enabled;
        return py::none();
#endif
    });
    // The hand-written kernel set the bulk kernels use now: "avx512", "avx2"
    // or "portable" (the compiler-vectorized clones only).
    m.def("_active_kernels", []() {
        if (avx512_vbmi_usable()) return std::string("avx512");
        if (avx2_usable()) return std::string("avx2");
        return std::string("portable");
    });
    // Which kernel serves long contiguous 8-bit + - * / (pair_kernel_choice.h):
    // "gathers" (pair-table lookups) or "computed" (decoded, combined and
    // encoded in registers by the active set) once chosen; "" before the
    // first long run, and without the AVX-512 kernels (nothing to choose).
    m.def("_pair_kernel", []() {
        if (!pair_choice_made()) return std::string();
        return std::string(pair_gathers_beat_fused() ? "gathers" : "computed");
    });
    // For tests: whether the 8-bit comparisons and maximum/minimum of the
    // format run on order keys computed by byte arithmetic (order_avx2.h)
    // rather than the scalar table loop.
    m.def("_has_order_rule", [](const std::string& name) {
        const int index = format_index_of_name(name.c_str());
        if (index >= 0) return signed_key_rule(index) != nullptr;
        throw py::value_error("unknown minifloat format: " + name);
    });
    // For tests: the dotfunc slot of two 1-d arrays of one format, called
    // with arr == NULL as NumPy 2.5's np.dot does; returns the result code.
    m.def("_dot_through_slot", [](py::handle a_obj, py::handle b_obj) {
        if (!PyArray_Check(a_obj.ptr()) || !PyArray_Check(b_obj.ptr())) {
            throw py::type_error("_dot_through_slot needs two NumPy arrays");
        }
        auto* a = reinterpret_cast<PyArrayObject*>(a_obj.ptr());
        auto* b = reinterpret_cast<PyArrayObject*>(b_obj.ptr());
        const int index = format_index_of_descr(PyArray_DESCR(a));
        if (index < 0 || format_index_of_descr(PyArray_DESCR(b)) != index) {
            throw py::type_error("_dot_through_slot needs two arrays of one minifloat format");
        }
        if (PyArray_NDIM(a) != 1 || PyArray_NDIM(b) != 1 || PyArray_DIM(a, 0) != PyArray_DIM(b, 0) ||
            !PyArray_ISALIGNED(a) || !PyArray_ISALIGNED(b) || !PyArray_ISNOTSWAPPED(a) || !PyArray_ISNOTSWAPPED(b)) {
            throw py::value_error("_dot_through_slot needs two aligned, native 1-d arrays of one length");
        }
        uint16_t code = 0;  // one or two bytes of it are written
        dot_through_slot(index, PyArray_DATA(a), PyArray_STRIDE(a, 0), PyArray_DATA(b), PyArray_STRIDE(b, 0), &code,
                         PyArray_DIM(a, 0));
        return runtime(index).format.storage_bytes == 1 ? static_cast<unsigned>(code & 0xFFu) : static_cast<unsigned>(code);
    });
    // Which hand-written kernel sets this CPU can run (not whether enabled).
    m.def("_cpu_kernel_sets", []() {
        py::list sets;
        if (cpu_has_avx512_vbmi()) sets.append("avx512");
        if (cpu_has_avx2()) sets.append("avx2");
        return sets;
    });
}

}  // namespace minifloat
