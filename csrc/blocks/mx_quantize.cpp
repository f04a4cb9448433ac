// The Python side of block quantization (mf.mx): OCP Microscaling (MX v1.0
// §6.3) with power-of-two E8M0 scales, and NVFP4 with float8_e4m3fn scales.
// Rows of a C-contiguous float32 matrix are cut into blocks along the last
// axis; the row kernels are in mx_kernels.cpp.
#include "mx_quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "numpy_api.h"

#include "mx_kernels.h"
#include "registry.h"

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

npy_intp block_count(npy_intp cols, npy_intp block) { return cols == 0 ? 0 : (cols - 1) / block + 1; }

py::object new_array(PyArray_Descr* descr, npy_intp rows, npy_intp cols) {
    npy_intp dims[2] = {rows, cols};
    PyObject* a = PyArray_NewFromDescr(&PyArray_Type, descr, 2, dims, nullptr, nullptr, 0, nullptr);
    if (a == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(a);
}

py::object new_format_array(int index, npy_intp rows, npy_intp cols) {
    PyArray_Descr* descr = &runtime(index).descr->base;
    Py_INCREF(descr);
    return new_array(descr, rows, cols);
}

char* data_of(const py::object& a) {
    return static_cast<char*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(a.ptr())));
}

// The element parameters the row kernels rely on: an 8-bit element format
// (or -1 for int8), a largest element that is a positive float32, a
// significand of 1..24 bits and an emax the shared exponent cannot
// overflow with.
void check_mx_element(int element_index, int emax, double max_element, int significand_bits) {
    if (element_index < -1 || element_index >= kFormatCount) {
        throw py::value_error("element_index must be -1 (int8) or a format index below " +
                              std::to_string(kFormatCount) + ", not " + std::to_string(element_index));
    }
    if (element_index >= 0 && runtime(element_index).format.storage_bytes != 1) {
        throw py::value_error(std::string("MX elements must be an 8-bit or narrower format, not ") +
                              kFormatTable[element_index].name);
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
        py::gil_scoped_release release;
        for (npy_intp r = 0; r < rows; r++) {
            mx_quantize_row(in + r * cols, static_cast<size_t>(cols), static_cast<size_t>(block), element, mode,
                            out + r * cols, scale_codes + r * blocks);
        }
    }
    return py::make_tuple(data, scales);
}

// NVFP4: float4_e2m1fn elements, float8_e4m3fn scales per block, and a
// float32 tensor scale t: s = e4m3(amax / (6 t)), P = fp4(V / (s t)).
py::tuple nvfp4_quantize(py::handle values, npy_intp block_size, double tensor_scale) {
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
    {
        py::gil_scoped_release release;
        const FormatRuntime& scale = runtime(scale_index);
        const Nvfp4Scales scaling = nvfp4_scales(scale, tensor_scale);
        for (npy_intp r = 0; r < rows; r++) {
            nvfp4_quantize_row(in + r * cols, static_cast<size_t>(cols), static_cast<size_t>(block), scaling,
                               scale, out + r * cols, scale_codes + r * blocks);
        }
    }
    return py::make_tuple(data, scales);
}

}  // namespace

void register_mx_bindings(py::module_& m) {
    m.def("mx_quantize", &mx_quantize, py::arg("values"), py::arg("element_index"), py::arg("emax"),
          py::arg("max_element"), py::arg("significand_bits"), py::arg("block_size"),
          py::arg("scale_mode"),
          "MX block quantization of a float32 matrix along its rows -> (elements, e8m0 scales).");
    m.def("nvfp4_quantize", &nvfp4_quantize, py::arg("values"), py::arg("block_size"),
          py::arg("tensor_scale"),
          "NVFP4 block quantization of a float32 matrix along its rows -> (elements, e4m3 scales).");
    m.def("format_index", [](const std::string& name) { return format_index_of_name(name.c_str()); });
}

}  // namespace minifloat
