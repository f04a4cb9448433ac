// mf.cast(rounding="stochastic") with the draws made in C++ from one key
// (counter_random.h), mf.cast(packed=True) (rounding and packing one chunk
// at a time, the codes never leaving L1), and the packing kernels behind
// mf.pack / mf.unpack (pack_kernels.h).
#include "cast_extras.h"

#include <algorithm>
#include <string>

#include "numpy_api.h"

#include "cast_array.h"
#include "convert_kernels.h"
#include "counter_random.h"
#include "format_types.h"
#include "gil_release.h"
#include "pack_kernels.h"
#include "scalar_type.h"
#include "stochastic_rounding.h"
#include "scratch_memory.h"
#include "thread_pool.h"

namespace py = pybind11;

namespace minifloat {

namespace {


PyArrayObject* float_source(py::handle obj) {
    PyArrayObject* a = require_contiguous(obj, "source");
    const int type = PyArray_TYPE(a);
    if (type != NPY_FLOAT32 && type != NPY_FLOAT64) throw py::type_error("source must be float32 or float64");
    return a;
}

const FormatRuntime& runtime_named(const std::string& name) {
    const int index = format_index_of_name(name.c_str());
    if (index < 0) throw py::value_error("unknown minifloat format: " + name);
    return runtime(index);
}

py::object new_bytes(size_t n) {
    npy_intp dims[1] = {static_cast<npy_intp>(n)};
    PyObject* a = PyArray_SimpleNew(1, dims, NPY_UINT8);
    if (a == nullptr) throw py::error_already_set();
    // (before its pages are first touched; NumPy asks from 4 MB, packed FP6 of 4M codes is 3 MB)
    advise_huge_pages(PyArray_DATA(reinterpret_cast<PyArrayObject*>(a)), n);
    return py::reinterpret_steal<py::object>(a);
}

uint8_t* bytes_of(const py::object& a) {
    return static_cast<uint8_t*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(a.ptr())));
}

// Rounds n values, elements `first`.. of the source `in`, into codes.
uint32_t encode_range(const EncodePlan& plan, Rounding mode, uint64_t key, uint64_t first, const void* in,
                      bool float64, void* out, size_t n) {
    const void* start = static_cast<const char*>(in) + first * (float64 ? sizeof(double) : sizeof(float));
    if (mode == Rounding::stochastic) return encode_stochastic_part(plan, key, first, start, float64, out, n);
    if (float64) {
        const double* values = static_cast<const double*>(start);
        return mode == Rounding::nearest_even ? encode_f64(plan, values, out, n)
                                              : encode_f64_rounding(plan, mode, values, nullptr, out, n);
    }
    const float* values = static_cast<const float*>(start);
    return mode == Rounding::nearest_even ? encode_f32(plan, values, out, n)
                                          : encode_f32_rounding(plan, mode, values, nullptr, out, n);
}

// mf.cast(x, dtype, rounding="stochastic") of a float32/float64 array, the
// draws of `key`.
py::object encode_stochastic(py::handle source, const std::string& format_name, bool saturate, uint64_t key) {
    PyArrayObject* src = float_source(source);
    const FormatRuntime& rt = runtime_named(format_name);
    PyArray_Descr* descr = &format_types(rt.format.index).descr->base;
    Py_INCREF(descr);
    PyObject* result = PyArray_NewFromDescr(&PyArray_Type, descr, PyArray_NDIM(src), PyArray_DIMS(src),
                                            nullptr, nullptr, 0, nullptr);
    if (result == nullptr) throw py::error_already_set();
    py::object out = py::reinterpret_steal<py::object>(result);
    const EncodePlan& plan = saturate ? rt.saturating_plan : rt.default_plan;
    const size_t n = static_cast<size_t>(PyArray_SIZE(src));
    void* out_data = PyArray_DATA(reinterpret_cast<PyArrayObject*>(result));
    const void* in = PyArray_DATA(src);
    const bool float64 = PyArray_TYPE(src) == NPY_FLOAT64;
    uint32_t flags;
    {
        const GilReleased released;
        // the draws are tied to element positions (counter_random.h): any split gives the same bits
        const size_t source_item = float64 ? sizeof(double) : sizeof(float);
        const size_t item = rt.format.storage_bytes;
        flags = parallel_for(n, WorkKind::stochastic, [&](size_t begin, size_t end) {
            return encode_stochastic_part(plan, key, begin, static_cast<const char*>(in) + begin * source_item,
                                          float64, static_cast<char*>(out_data) + begin * item, end - begin);
        });
    }
    if (report_scalar_fp_flags("cast", flags) < 0) throw py::error_already_set();
    return out;
}

// For tests: the codes of a C-contiguous float32/float64 array as elements
// first.. of a longer one (their draws d_first..), one call of the kernels
// (mf.cast's threads split at multiples of 64 elements; this reaches any
// `first`).
py::object encode_stochastic_part_of(py::handle source, const std::string& format_name, bool saturate, uint64_t key,
                                     uint64_t first) {
    PyArrayObject* src = float_source(source);
    const FormatRuntime& rt = runtime_named(format_name);
    const EncodePlan& plan = saturate ? rt.saturating_plan : rt.default_plan;
    const size_t n = static_cast<size_t>(PyArray_SIZE(src));
    py::object out = new_bytes(n * static_cast<size_t>(rt.format.storage_bytes));
    uint32_t flags;
    {
        const GilReleased released;
        flags = encode_stochastic_part(plan, key, first, PyArray_DATA(src), PyArray_TYPE(src) == NPY_FLOAT64,
                                       bytes_of(out), n);
    }
    if (report_scalar_fp_flags("cast", flags) < 0) throw py::error_already_set();
    return out;
}

// The draws of elements 0 .. n-1 widened for the exact element-wise
// encoders (int64/uint64 beyond 2^53, long double, Python objects).
py::object stochastic_draws(uint64_t key, npy_intp n) {
    if (n < 0) throw py::value_error("n must not be negative");
    npy_intp dims[1] = {n};
    PyObject* a = PyArray_SimpleNew(1, dims, NPY_UINT64);
    if (a == nullptr) throw py::error_already_set();
    py::object draws = py::reinterpret_steal<py::object>(a);
    uint64_t* out = static_cast<uint64_t*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(a)));
    constexpr npy_intp kChunk = 2048;
    uint32_t narrow[kChunk];
    for (npy_intp start = 0; start < n; start += kChunk) {
        const npy_intp count = n - start < kChunk ? n - start : kChunk;
        fill_draws32(key, static_cast<uint64_t>(start), narrow, static_cast<size_t>(count));
        for (npy_intp i = 0; i < count; i++) out[start + i] = widened_draw(narrow[i]);
    }
    return draws;
}

// mf.cast(x, dtype, packed=True): the codes of a float32/float64 array as
// mf.pack writes them. Sub-byte formats round a chunk into an L1 buffer and
// pack it; 8- and 16-bit formats round straight into the bytes (their
// packed form is their little-endian storage).
py::object encode_packed(py::handle source, const std::string& format_name, bool saturate,
                         const std::string& rounding_name, uint64_t key) {
    PyArrayObject* src = float_source(source);
    const FormatRuntime& rt = runtime_named(format_name);
    const Rounding mode = parse_rounding(rounding_name);
    const EncodePlan& plan = saturate ? rt.saturating_plan : rt.default_plan;
    const size_t n = static_cast<size_t>(PyArray_SIZE(src));
    const int bits = rt.format.bits;
    const bool whole_bytes = rt.format.storage_bytes == 2 || bits == 8;
    const size_t out_bytes = whole_bytes ? n * rt.format.storage_bytes : packed_byte_count(n, bits);
    py::object out = new_bytes(out_bytes);
    uint8_t* packed = bytes_of(out);
    const void* in = PyArray_DATA(src);
    const bool float64 = PyArray_TYPE(src) == NPY_FLOAT64;
    uint32_t flags = 0;
    {
        const GilReleased released;
        const WorkKind kind = mode == Rounding::stochastic ? WorkKind::stochastic : WorkKind::cast;
        if (whole_bytes) {
            const size_t item = rt.format.storage_bytes;
            flags = parallel_for(n, kind, [&](size_t begin, size_t end) {
                return encode_range(plan, mode, key, begin, in, float64, packed + begin * item, end - begin);
            });
        } else {
            // a multiple of 8 values: every chunk starts on a byte of the stream; 128K
            // values a call, the codes staying in L2 between the two steps (float32 ->
            // float6_e2m3fn packed, 4M values: 16K a call 0.58 ms, 128K 0.47, the
            // astype alone 0.39; each encoder call costs its set-up)
            constexpr size_t kChunk = 131072;
            flags = parallel_for(n, kind, kChunk, [&](size_t first, size_t last) {
                uint32_t part_flags = 0;
                // float32 to nearest: rounded and packed in one pass where the kernels can
                if (!float64 && mode == Rounding::nearest_even &&
                    encode_f32_packed(plan, static_cast<const float*>(in) + first, last - first, bits,
                                      packed + first / 8 * static_cast<size_t>(bits), part_flags)) {
                    return part_flags;
                }
                const auto codes = unfilled_array<uint8_t>(std::min(kChunk, last - first));
                for (size_t start = first; start < last; start += kChunk) {
                    const size_t count = last - start < kChunk ? last - start : kChunk;
                    part_flags |= encode_range(plan, mode, key, start, in, float64, codes.get(), count);
                    pack_codes(codes.get(), count, bits, packed + start / 8 * static_cast<size_t>(bits));
                }
                return part_flags;
            });
        }
    }
    if (report_scalar_fp_flags("cast", flags) < 0) throw py::error_already_set();
    return out;
}

// mf.pack of a C-contiguous array of a format of 1-byte storage.
py::object pack_array(py::handle codes_obj, int bits) {
    PyArrayObject* a = require_contiguous(codes_obj, "codes");
    if (PyArray_ITEMSIZE(a) != 1) throw py::type_error("codes must have one byte per element");
    if (bits < 1 || bits > 8) throw py::value_error("bits must be between 1 and 8");
    const size_t n = static_cast<size_t>(PyArray_SIZE(a));
    py::object out = new_bytes(packed_byte_count(n, bits));
    const uint8_t* codes = static_cast<const uint8_t*>(PyArray_DATA(a));
    uint8_t* packed = bytes_of(out);
    {
        const GilReleased released;
        // 64 codes fill whole bytes of the stream at any width
        parallel_for(n, WorkKind::packing, [&](size_t begin, size_t end) {
            pack_codes(codes + begin, end - begin, bits, packed + begin / 8 * static_cast<size_t>(bits));
        });
    }
    return out;
}

// mf.unpack's codes: `count` codes from a 1-D uint8 buffer.
py::object unpack_array(py::handle packed_obj, npy_intp count, int bits) {
    PyArrayObject* a = require_contiguous(packed_obj, "buffer");
    if (PyArray_TYPE(a) != NPY_UINT8) throw py::type_error("buffer must be uint8");
    if (bits < 1 || bits > 8) throw py::value_error("bits must be between 1 and 8");
    if (count < 0) throw py::value_error("count must not be negative");
    const size_t n = static_cast<size_t>(count);
    if (static_cast<size_t>(PyArray_SIZE(a)) != packed_byte_count(n, bits)) {
        throw py::value_error("buffer size does not match the count");
    }
    py::object out = new_bytes(n);
    const uint8_t* packed = static_cast<const uint8_t*>(PyArray_DATA(a));
    uint8_t* codes = bytes_of(out);
    {
        const GilReleased released;
        parallel_for(n, WorkKind::packing, [&](size_t begin, size_t end) {
            unpack_codes(packed + begin / 8 * static_cast<size_t>(bits), end - begin, bits, codes + begin);
        });
    }
    return out;
}

}  // namespace

void register_cast_extra_bindings(py::module_& m) {
    m.def("encode_stochastic", &encode_stochastic, py::arg("source"), py::arg("format"), py::arg("saturate"),
          py::arg("key"),
          "Stochastic rounding of a C-contiguous float32/float64 array, draws from the counter generator of `key`.");
    m.def("_encode_stochastic_part", &encode_stochastic_part_of, py::arg("source"), py::arg("format"),
          py::arg("saturate"), py::arg("key"), py::arg("first"),
          "For tests: stochastic rounding of a C-contiguous float32/float64 array as elements first.. of a "
          "longer one (its codes as bytes, little-endian).");
    m.def("stochastic_draws", &stochastic_draws, py::arg("key"), py::arg("n"),
          "The draws d_i of `key` for elements 0..n-1 as d_i * 2**32 + 2**32 - 1 (uint64).");
    m.def("encode_packed", &encode_packed, py::arg("source"), py::arg("format"), py::arg("saturate"),
          py::arg("rounding"), py::arg("key"),
          "Round a C-contiguous float32/float64 array into a format and return its packed bytes.");
    m.def("pack_codes", &pack_array, py::arg("codes"), py::arg("bits"),
          "The low `bits` bits of every code byte as one little-endian bitstream (1-D uint8).");
    m.def("unpack_codes", &unpack_array, py::arg("buffer"), py::arg("count"), py::arg("bits"),
          "`count` codes of `bits` bits from a bitstream written by pack_codes (1-D uint8).");
}

}  // namespace minifloat
