// The Python side of block quantization (mf.mx): OCP Microscaling (MX v1.0
// §6.3) with power-of-two E8M0 scales, and NVFP4 with float8_e4m3fn scales.
// Rows of a C-contiguous float32 matrix are cut into blocks along the last
// axis; the row kernels are in mx_kernels.cpp. Dequantization
// (dequantize_kernels.cpp) and MX matrix products (mx_matmul.cpp) too.
#include "mx_quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>

#include "numpy_api.h"

#include "dequantize_kernels.h"
#include "format_types.h"
#include "gil_release.h"
#include "mx_kernels.h"
#include "mx_matmul.h"
#include "scalar_type.h"
#include "thread_pool.h"

namespace py = pybind11;

namespace minifloat {

namespace {

ScaleMode parse_scale_mode(const std::string& name) {
    if (name == "floor") return ScaleMode::floor;
    if (name == "ceil") return ScaleMode::ceil;
    if (name == "even") return ScaleMode::even;
    if (name == "rceil") return ScaleMode::rceil;
    throw py::value_error("scale_mode must be 'floor', 'ceil', 'even' or 'rceil', not '" + name + "'");
}

PyArrayObject* require_float32_matrix(py::handle obj) {
    if (!PyArray_Check(obj.ptr())) throw py::type_error("values must be a NumPy array");
    PyArrayObject* a = reinterpret_cast<PyArrayObject*>(obj.ptr());
    if (PyArray_TYPE(a) != NPY_FLOAT32 || PyArray_NDIM(a) != 2 || !PyArray_IS_C_CONTIGUOUS(a) ||
        !PyArray_ISALIGNED(a) || !PyArray_ISNOTSWAPPED(a)) {
        throw py::value_error("values must be a C-contiguous native float32 matrix");
    }
    return a;
}

// A block longer than the row is one block of the row's length: the same
// scales and elements, with work and memory that follow the data.
npy_intp block_within(npy_intp block_size, npy_intp cols) { return std::min(block_size, std::max<npy_intp>(cols, 1)); }

npy_intp block_count(npy_intp cols, npy_intp block) {
    return static_cast<npy_intp>(blocks_covering(static_cast<size_t>(cols), static_cast<size_t>(block)));
}

py::object new_array(PyArray_Descr* descr, npy_intp rows, npy_intp cols) {
    npy_intp dims[2] = {rows, cols};
    PyObject* a = PyArray_NewFromDescr(&PyArray_Type, descr, 2, dims, nullptr, nullptr, 0, nullptr);
    if (a == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(a);
}

py::object new_format_array(int index, npy_intp rows, npy_intp cols) {
    PyArray_Descr* descr = &format_types(index).descr->base;
    Py_INCREF(descr);
    return new_array(descr, rows, cols);
}

char* data_of(const py::object& a) {
    return static_cast<char*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(a.ptr())));
}

// body(start, end, first_scale) over runs of whole blocks: the elements
// [start, end) of the matrix read as one array and the index of their
// first block's scale, the runs split over the threads (a block is
// quantized on its own). A run stays within a row, unless every row is
// whole blocks: then the rows are one array of blocks (a 64x32 matrix in
// blocks of 32 was 64 calls of the row kernel, most of its time). Returns
// the OR of the bodies' results (FpFlag bits; a void body counts as 0).
template <class Body>
uint32_t for_block_runs(npy_intp rows, npy_intp cols, npy_intp block, const Body& body) {
    if (rows > 1 && cols % block == 0) {
        cols *= rows;
        rows = 1;
    }
    const npy_intp blocks = block_count(cols, block);
    if (blocks == 0) return 0;
    return parallel_for_items(
        static_cast<size_t>(rows * blocks), static_cast<size_t>(block), WorkKind::blocks, [&](size_t begin, size_t end) {
            uint32_t flags = 0;
            for (size_t u = begin; u < end;) {
                const npy_intp r = static_cast<npy_intp>(u) / blocks;
                const npy_intp first = static_cast<npy_intp>(u) % blocks;
                const npy_intp last = std::min<npy_intp>(blocks, first + static_cast<npy_intp>(end - u));
                const npy_intp start = r * cols + first * block;
                const size_t run_start = static_cast<size_t>(start);
                const size_t run_end = static_cast<size_t>(r * cols + std::min(cols, last * block));
                const size_t first_scale = static_cast<size_t>(r * blocks + first);
                flags |= flags_of_call(body, run_start, run_end, first_scale);
                u += static_cast<size_t>(last - first);
            }
            return flags;
        });
}

// The element parameters the row kernels rely on: an 8-bit element format
// (or -1 for int8), a largest element that is a positive float32, a
// significand of 1..24 bits and an emax the shared exponent cannot
// overflow with.
void check_mx_element(int element_index, int emax, double max_element, int significand_bits) {
    if (element_index < -1 || element_index >= format_count()) {
        throw py::value_error("element_index must be -1 (int8) or a format index below " +
                              std::to_string(format_count()) + ", not " + std::to_string(element_index));
    }
    if (element_index >= 0 && runtime(element_index).format.storage_bytes != 1) {
        throw py::value_error(std::string("MX elements must be an 8-bit or narrower format, not ") +
                              runtime(element_index).name);
    }
    const float max_float = static_cast<float>(max_element);
    if (!(max_float > 0.0f) || !std::isfinite(max_float)) {
        throw py::value_error("max_element must be a positive finite float32 value");
    }
    if (significand_bits < 1 || significand_bits > 24) {
        throw py::value_error("significand_bits must be 1..24, not " + std::to_string(significand_bits));
    }
    if (emax < -255 || emax > 255) throw py::value_error("emax must be -255..255, not " + std::to_string(emax));
}

// MX: element_index -1 means int8 elements (MXINT8).
py::tuple mx_quantize(py::handle values, int element_index, int emax, double max_element,
                      int significand_bits, npy_intp block_size, const std::string& scale_mode_name) {
    const ScaleMode mode = parse_scale_mode(scale_mode_name);
    if (block_size <= 0) throw py::value_error("block_size must be positive");
    check_mx_element(element_index, emax, max_element, significand_bits);
    PyArrayObject* src = require_float32_matrix(values);
    const npy_intp rows = PyArray_DIM(src, 0), cols = PyArray_DIM(src, 1);
    const npy_intp block = block_within(block_size, cols);
    const npy_intp blocks = block_count(cols, block);
    const bool int8 = element_index < 0;
    const FormatRuntime* target = int8 ? nullptr : &runtime(element_index);
    const float max_float = static_cast<float>(max_element);
    uint32_t max_bits;
    std::memcpy(&max_bits, &max_float, sizeof max_bits);
    // NaN blocks: the element's NaN where it has one, else zero
    const uint8_t nan_fill = (target && target->format.has_nan) ? static_cast<uint8_t>(target->format.nan_code) : 0;
    const MxElement element{emax, max_bits, significand_bits, target ? &target->saturating_plan : nullptr, nan_fill};
    py::object data = int8 ? new_array(PyArray_DescrFromType(NPY_INT8), rows, cols)
                           : new_format_array(element_index, rows, cols);
    py::object scales = new_format_array(format_index_of_name("float8_e8m0fnu"), rows, blocks);
    const float* in = static_cast<const float*>(PyArray_DATA(src));
    uint8_t* out = reinterpret_cast<uint8_t*>(data_of(data));
    uint8_t* scale_codes = reinterpret_cast<uint8_t*>(data_of(scales));
    {
        const GilReleased released;
        // every block on its own: runs of whole blocks split over the threads
        for_block_runs(rows, cols, block, [&](size_t start, size_t end, size_t first_scale) {
            mx_quantize_row(in + start, end - start, static_cast<size_t>(block), element, mode, out + start,
                            scale_codes + first_scale);
        });
    }
    return py::make_tuple(data, scales);
}

// NVFP4: float4_e2m1fn elements, float8_e4m3fn scales per block, and a
// float32 tensor scale t: s = e4m3(amax / (6 t)), P = fp4(V / (s t)).
// `what` names the block scales in NumPy's overflow/underflow message.
py::tuple nvfp4_quantize(py::handle values, npy_intp block_size, double tensor_scale, const std::string& what) {
    if (block_size <= 0) throw py::value_error("block_size must be positive");
    if (!(tensor_scale > 0) || !std::isfinite(tensor_scale) ||
        static_cast<double>(static_cast<float>(tensor_scale)) != tensor_scale) {
        throw py::value_error("tensor_scale must be a positive finite float32 value");
    }
    PyArrayObject* src = require_float32_matrix(values);
    const npy_intp rows = PyArray_DIM(src, 0), cols = PyArray_DIM(src, 1);
    const npy_intp block = block_within(block_size, cols);
    const npy_intp blocks = block_count(cols, block);
    const int element_index = format_index_of_name("float4_e2m1fn");
    const int scale_index = format_index_of_name("float8_e4m3fn");
    py::object data = new_format_array(element_index, rows, cols);
    py::object scales = new_format_array(scale_index, rows, blocks);
    const float* in = static_cast<const float*>(PyArray_DATA(src));
    uint8_t* out = reinterpret_cast<uint8_t*>(data_of(data));
    uint8_t* scale_codes = reinterpret_cast<uint8_t*>(data_of(scales));
    uint32_t flags = 0;
    {
        const GilReleased released;
        const FormatRuntime& scale = runtime(scale_index);
        const Nvfp4Scales scaling = nvfp4_scales(scale, tensor_scale);
        flags = for_block_runs(rows, cols, block, [&](size_t start, size_t end, size_t first_scale) {
            return nvfp4_quantize_row(in + start, end - start, static_cast<size_t>(block), scaling, scale,
                                      out + start, scale_codes + first_scale);
        });
    }
    // block scales beyond float8_e4m3fn clip their blocks, scales that
    // underflow to 0 zero theirs: NumPy's floating-point errors (np.errstate)
    if (report_scalar_fp_flags(what.c_str(), flags) < 0) {
        throw py::error_already_set();
    }
    return py::make_tuple(data, scales);
}

// A C-contiguous array of 1-byte codes (any dtype of itemsize 1).
PyArrayObject* require_code_array(py::handle obj, const char* what) {
    if (!PyArray_Check(obj.ptr())) throw py::type_error(std::string(what) + " must be a NumPy array");
    PyArrayObject* a = reinterpret_cast<PyArrayObject*>(obj.ptr());
    if (PyArray_ITEMSIZE(a) != 1 || !PyArray_IS_C_CONTIGUOUS(a)) {
        throw py::value_error(std::string(what) + " must be a C-contiguous array of 1-byte codes");
    }
    return a;
}

const FormatRuntime& format_at(int index, const char* what) {
    if (index < 0 || index >= format_count()) throw py::value_error(std::string("unknown ") + what + " format");
    return runtime(index);
}

// How MX element codes (one byte each) decode: int8 for a negative index,
// else the format's plan. A 16-bit format is refused: its decoder would read
// two bytes per code, past the array.
ElementDecoding byte_element_decoding(int element_index) {
    if (element_index < 0) return ElementDecoding{nullptr};
    const FormatRuntime& rt = format_at(element_index, "element");
    if (rt.format.storage_bytes != 1) {
        throw py::value_error(std::string("MX elements must be an 8-bit or narrower format, not ") +
                              rt.format.row->name);
    }
    return ElementDecoding{&rt.decode_plan};
}

// MXArray.dequantize: element codes (element_index < 0: int8 in 2^-6
// units) in the layout (outer, count, inner), blocks of block_size along
// count, scale codes of format scale_index; float32 or float64 out.
py::object mx_dequantize(py::handle data_obj, py::handle scales_obj, int element_index, int scale_index,
                         npy_intp block_size, npy_intp outer, npy_intp count, npy_intp inner, double tensor_scale,
                         bool float64) {
    PyArrayObject* data = require_code_array(data_obj, "data");
    PyArrayObject* scales = require_code_array(scales_obj, "scales");
    if (block_size <= 0 || outer < 0 || count < 0 || inner < 0) throw py::value_error("bad block layout");
    // the sizes below must not wrap around (they are checked against the arrays')
    npy_intp elements = 0;
    if (__builtin_mul_overflow(outer, count, &elements) || __builtin_mul_overflow(elements, inner, &elements)) {
        throw py::value_error("the block layout has more elements than an array can hold");
    }
    const BlockLayout layout{static_cast<size_t>(outer), static_cast<size_t>(count), static_cast<size_t>(inner),
                             static_cast<size_t>(block_within(block_size, count))};
    if (static_cast<size_t>(PyArray_SIZE(data)) != layout.size() ||
        static_cast<size_t>(PyArray_SIZE(scales)) != layout.outer * layout.blocks() * layout.inner) {
        throw py::value_error("data and scales do not match the block layout");
    }
    const FormatRuntime& scale = format_at(scale_index, "scale");
    // the codes are read one byte each: a 16-bit format would read past them
    if (scale.format.storage_bytes != 1) {
        throw py::value_error(std::string("MX scales must be an 8-bit format, not ") + scale.format.row->name);
    }
    const ElementDecoding element = byte_element_decoding(element_index);
    const double unit = element_index < 0 ? 1.0 / 64.0 : 1.0;  // MXINT8 counts 2^-6 steps
    PyObject* result = PyArray_SimpleNew(PyArray_NDIM(data), PyArray_DIMS(data), float64 ? NPY_FLOAT64 : NPY_FLOAT32);
    if (result == nullptr) throw py::error_already_set();
    py::object out = py::reinterpret_steal<py::object>(result);
    const uint8_t* codes = static_cast<const uint8_t*>(PyArray_DATA(data));
    const uint8_t* scale_codes = static_cast<const uint8_t*>(PyArray_DATA(scales));
    void* out_data = PyArray_DATA(reinterpret_cast<PyArrayObject*>(result));
    {
        const GilReleased released;
        // split into runs of whole blocks, each dequantized as a layout of its own
        const auto parts = [&](auto&& run) {
            const npy_intp blocks = static_cast<npy_intp>(layout.blocks());
            const npy_intp per_block = static_cast<npy_intp>(layout.block * layout.inner);
            parallel_for_items(layout.outer * layout.blocks(), static_cast<size_t>(per_block), WorkKind::blocks,
                               [&](size_t begin, size_t end) {
                                   for (size_t u = begin; u < end;) {
                                       const npy_intp o = static_cast<npy_intp>(u) / blocks;
                                       const npy_intp first = static_cast<npy_intp>(u) % blocks;
                                       const npy_intp last = std::min<npy_intp>(blocks, first + static_cast<npy_intp>(end - u));
                                       const npy_intp count = std::min<npy_intp>(static_cast<npy_intp>(layout.count), last * static_cast<npy_intp>(layout.block)) -
                                                              first * static_cast<npy_intp>(layout.block);
                                       const BlockLayout part{1, static_cast<size_t>(count), layout.inner, layout.block};
                                       const size_t at = (static_cast<size_t>(o) * layout.count + static_cast<size_t>(first) * layout.block) * layout.inner;
                                       run(part, codes + at, scale_codes + (static_cast<size_t>(o) * layout.blocks() + static_cast<size_t>(first)) * layout.inner, at);
                                       u += static_cast<size_t>(last - first);
                                   }
                               });
        };
        if (float64) {
            double scale_of[256];
            for (uint32_t c = 0; c < 256; c++) scale_of[c] = scale.decode_f64[c & (scale.code_count() - 1)] * unit;
            parts([&](const BlockLayout& part, const uint8_t* c, const uint8_t* s, size_t at) {
                dequantize_f64(element, scale_of, tensor_scale, part, c, s, static_cast<double*>(out_data) + at);
            });
        } else {
            float scale_of[256];  // exact: 2^E * 2^-6 >= 2^-133, float8_e4m3fn values
            for (uint32_t c = 0; c < 256; c++) {
                scale_of[c] = static_cast<float>(scale.decode_f64[c & (scale.code_count() - 1)] * unit);
            }
            parts([&](const BlockLayout& part, const uint8_t* c, const uint8_t* s, size_t at) {
                dequantize_f32(element, scale_of, static_cast<float>(tensor_scale), part, c, s,
                               static_cast<float*>(out_data) + at);
            });
        }
    }
    return out;
}

// mf.mx.matmul: A (M x K, blocks along K in rows) times B (K x N, blocks
// along K in columns), E8M0 scales; element_index < 0: int8 elements.
py::object mx_matmul_codes(py::handle a_codes, py::handle a_scales, int a_element, py::handle b_codes,
                           py::handle b_scales, int b_element, npy_intp block_size) {
    PyArrayObject* ac = require_code_array(a_codes, "A's codes");
    PyArrayObject* as = require_code_array(a_scales, "A's scales");
    PyArrayObject* bc = require_code_array(b_codes, "B's codes");
    PyArrayObject* bs = require_code_array(b_scales, "B's scales");
    if (PyArray_NDIM(ac) != 2 || PyArray_NDIM(as) != 2 || PyArray_NDIM(bc) != 2 || PyArray_NDIM(bs) != 2) {
        throw py::value_error("mx_matmul takes matrices");
    }
    if (block_size <= 0) throw py::value_error("block_size must be positive");
    const npy_intp m = PyArray_DIM(ac, 0), k = PyArray_DIM(ac, 1), n = PyArray_DIM(bc, 1);
    block_size = block_within(block_size, k);
    const npy_intp blocks = block_count(k, block_size);
    if (PyArray_DIM(bc, 0) != k || PyArray_DIM(as, 0) != m || PyArray_DIM(as, 1) != blocks ||
        PyArray_DIM(bs, 0) != blocks || PyArray_DIM(bs, 1) != n) {
        throw py::value_error("the operands' shapes and scales do not match");
    }
    const MxOperand a{static_cast<const uint8_t*>(PyArray_DATA(ac)), static_cast<const uint8_t*>(PyArray_DATA(as)),
                      byte_element_decoding(a_element)};
    const MxOperand b{static_cast<const uint8_t*>(PyArray_DATA(bc)), static_cast<const uint8_t*>(PyArray_DATA(bs)),
                      byte_element_decoding(b_element)};
    npy_intp dims[2] = {m, n};
    PyObject* result = PyArray_SimpleNew(2, dims, NPY_FLOAT32);
    if (result == nullptr) throw py::error_already_set();
    py::object out = py::reinterpret_steal<py::object>(result);
    float* c = static_cast<float*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(result)));
    {
        const GilReleased released;
        mx_matmul(a, b, static_cast<size_t>(m), static_cast<size_t>(n), static_cast<size_t>(k),
                  static_cast<size_t>(block_size), c);
    }
    return out;
}

}  // namespace

void register_mx_bindings(py::module_& m) {
    m.def("mx_quantize", &mx_quantize, py::arg("values"), py::arg("element_index"), py::arg("emax"),
          py::arg("max_element"), py::arg("significand_bits"), py::arg("block_size"),
          py::arg("scale_mode"),
          "MX block quantization of a float32 matrix along its rows -> (elements, e8m0 scales).");
    m.def("nvfp4_quantize", &nvfp4_quantize, py::arg("values"), py::arg("block_size"),
          py::arg("tensor_scale"), py::arg("what") = "nvfp4 block scales",
          "NVFP4 block quantization of a float32 matrix along its rows -> (elements, e4m3 scales).");
    m.def("mx_dequantize", &mx_dequantize, py::arg("data"), py::arg("scales"), py::arg("element_index"),
          py::arg("scale_index"), py::arg("block_size"), py::arg("outer"), py::arg("count"), py::arg("inner"),
          py::arg("tensor_scale"), py::arg("float64"),
          "Block-scaled element codes times their scales, as float32 or float64.");
    m.def("mx_matmul", &mx_matmul_codes, py::arg("a_codes"), py::arg("a_scales"), py::arg("a_element"),
          py::arg("b_codes"), py::arg("b_scales"), py::arg("b_element"), py::arg("block_size"),
          "MX matrix product (OCP MX v1.0 6.2) in float32, in the order mx_matmul.h states.");
    m.def("format_index", [](const std::string& name) { return format_index_of_name(name.c_str()); });
}

}  // namespace minifloat
