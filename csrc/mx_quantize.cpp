// Block quantization kernels behind mf.mx: OCP Microscaling (MX v1.0 §6.3)
// with power-of-two E8M0 scales, and NVFP4 with float8_e4m3fn scales. Rows
// of a C-contiguous float32 matrix are cut into blocks along the last axis.
#include "mx_quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "numpy_api.h"

#include "codec.h"
#include "convert_kernels.h"
#include "decode_blocks.h"
#include "registry.h"

namespace py = pybind11;

namespace minifloat {

namespace {

enum class ScaleMode { floor, ceil, even, rceil };

ScaleMode parse_scale_mode(const std::string& name) {
    if (name == "floor") return ScaleMode::floor;
    if (name == "ceil") return ScaleMode::ceil;
    if (name == "even") return ScaleMode::even;
    if (name == "rceil") return ScaleMode::rceil;
    throw py::value_error("scale_mode must be 'floor', 'ceil', 'even' or 'rceil', not '" + name + "'");
}

struct ElementFormat {
    int emax;               // exponent of the largest power of two the element holds
    double max_element;     // largest element magnitude
    int significand_bits;   // mantissa bits + 1 (int8: 7)
};

int floor_log2(double positive) {
    int exponent;
    std::frexp(positive, &exponent);
    return exponent - 1;
}

// The shared exponent of a block whose largest magnitude is `amax` (> 0).
int shared_exponent(double amax, const ElementFormat& e, ScaleMode mode) {
    const int fl = floor_log2(amax);
    int exponent;
    switch (mode) {
        case ScaleMode::floor: exponent = fl - e.emax; break;
        case ScaleMode::ceil: exponent = fl + (std::ldexp(1.0, fl) == amax ? 0 : 1) - e.emax; break;
        case ScaleMode::even: {
            // amax rounded (nearest even) to the element's significand may
            // reach the next binade
            const double scaled = std::ldexp(amax, e.significand_bits - 1 - fl);  // [2^(p-1), 2^p)
            const bool carries = std::nearbyint(scaled) >= std::ldexp(1.0, e.significand_bits);
            exponent = fl + (carries ? 1 : 0) - e.emax;
            break;
        }
        case ScaleMode::rceil: {
            // smallest E with amax <= max_element * 2^E (exact comparisons)
            exponent = fl - floor_log2(e.max_element) - 1;
            while (amax > std::ldexp(e.max_element, exponent)) exponent++;
            break;
        }
    }
    return std::clamp(exponent, -127, 127);
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

uint32_t largest_magnitude_bits(const float* v, npy_intp n) {
    uint32_t amax = 0;
    for (npy_intp i = 0; i < n; i++) {
        uint32_t bits;
        std::memcpy(&bits, v + i, sizeof bits);
        amax = std::max(amax, bits & 0x7FFFFFFFu);  // non-negative floats order as integers
    }
    return amax;
}

constexpr uint32_t kInfBits = 0x7F800000u;

// MX: element_index < 0 means int8 elements (MXINT8).
py::tuple mx_quantize(py::handle values, int element_index, int emax, double max_element,
                      int significand_bits, int block_size, const std::string& scale_mode_name) {
    const ScaleMode mode = parse_scale_mode(scale_mode_name);
    if (block_size <= 0) throw py::value_error("block_size must be positive");
    PyArrayObject* src = require_float32_matrix(values);
    const npy_intp rows = PyArray_DIM(src, 0), cols = PyArray_DIM(src, 1);
    const npy_intp blocks = (cols + block_size - 1) / block_size;
    const ElementFormat element{emax, max_element, significand_bits};
    const int scale_index = format_index_of_name("float8_e8m0fnu");
    const bool int8 = element_index < 0;
    py::object data = int8 ? new_array(PyArray_DescrFromType(NPY_INT8), rows, cols)
                           : new_format_array(element_index, rows, cols);
    py::object scales = new_format_array(scale_index, rows, blocks);
    const float* in = static_cast<const float*>(PyArray_DATA(src));
    char* out = data_of(data);
    uint8_t* scale_codes = reinterpret_cast<uint8_t*>(data_of(scales));
    {
        py::gil_scoped_release release;
        const FormatRuntime* target = int8 ? nullptr : &runtime(element_index);
        // NaN blocks: the element's NaN where it has one, else zero
        const uint8_t nan_fill = (target && target->format.has_nan) ? static_cast<uint8_t>(target->format.nan_code) : 0;
        std::vector<float> scaled(static_cast<size_t>(cols));
        std::vector<uint8_t> non_finite(static_cast<size_t>(blocks));
        for (npy_intp r = 0; r < rows; r++) {
            const float* row = in + r * cols;
            for (npy_intp b = 0; b < blocks; b++) {
                const npy_intp start = b * block_size;
                const npy_intp length = std::min<npy_intp>(block_size, cols - start);
                const uint32_t amax_bits = largest_magnitude_bits(row + start, length);
                non_finite[static_cast<size_t>(b)] = amax_bits >= kInfBits;
                int exponent = -127;  // all-zero blocks: 2^-127
                if (amax_bits >= kInfBits) {
                    scale_codes[r * blocks + b] = 0xFF;
                } else {
                    if (amax_bits != 0) {
                        float amax;
                        std::memcpy(&amax, &amax_bits, sizeof amax);
                        exponent = shared_exponent(amax, element, mode);
                    }
                    scale_codes[r * blocks + b] = static_cast<uint8_t>(exponent + 127);
                }
                // V / 2^E is exact in float32 wherever the element can hold it
                // (2^-E itself fits: |E| <= 127); MXINT8 then counts in 2^-6 steps.
                const float factor = std::ldexp(1.0f, -exponent);
                const float unit = int8 ? 64.0f : 1.0f;
                for (npy_intp i = start; i < start + length; i++) scaled[i] = (row[i] * factor) * unit;
            }
            if (int8) {
                int8_t* codes = reinterpret_cast<int8_t*>(out) + r * cols;
                for (npy_intp i = 0; i < cols; i++) {
                    const float v = std::nearbyint(scaled[i]);  // round half to even
                    codes[i] = static_cast<int8_t>(std::clamp(v, -127.0f, 127.0f));
                }
            } else {
                encode_f32(target->saturating_plan, scaled.data(), out + r * cols, static_cast<size_t>(cols));
            }
            for (npy_intp b = 0; b < blocks; b++) {
                if (!non_finite[static_cast<size_t>(b)]) continue;
                const npy_intp start = b * block_size;
                const npy_intp length = std::min<npy_intp>(block_size, cols - start);
                std::memset(out + r * cols + start, nan_fill, static_cast<size_t>(length));
            }
        }
    }
    return py::make_tuple(data, scales);
}

// NVFP4: float4_e2m1fn elements, float8_e4m3fn scales per block, and a
// float32 tensor scale t: s = e4m3(amax / (6 t)), P = fp4(V / (s t)).
py::tuple nvfp4_quantize(py::handle values, int block_size, double tensor_scale) {
    if (block_size <= 0) throw py::value_error("block_size must be positive");
    if (!(tensor_scale > 0) || !std::isfinite(tensor_scale)) {
        throw py::value_error("tensor_scale must be a positive finite number");
    }
    PyArrayObject* src = require_float32_matrix(values);
    const npy_intp rows = PyArray_DIM(src, 0), cols = PyArray_DIM(src, 1);
    const npy_intp blocks = (cols + block_size - 1) / block_size;
    const int element_index = format_index_of_name("float4_e2m1fn");
    const int scale_index = format_index_of_name("float8_e4m3fn");
    py::object data = new_format_array(element_index, rows, cols);
    py::object scales = new_format_array(scale_index, rows, blocks);
    const float* in = static_cast<const float*>(PyArray_DATA(src));
    char* out = data_of(data);
    uint8_t* scale_codes = reinterpret_cast<uint8_t*>(data_of(scales));
    {
        py::gil_scoped_release release;
        const FormatRuntime& element = runtime(element_index);
        const FormatRuntime& scale = runtime(scale_index);
        const double divisor = 6.0 * tensor_scale;  // exact: tensor_scale is a float32
        std::vector<double> quotients(static_cast<size_t>(block_size));
        for (npy_intp r = 0; r < rows; r++) {
            const float* row = in + r * cols;
            for (npy_intp b = 0; b < blocks; b++) {
                const npy_intp start = b * block_size;
                const npy_intp length = std::min<npy_intp>(block_size, cols - start);
                char* block_out = out + r * cols + start;
                const uint32_t amax_bits = largest_magnitude_bits(row + start, length);
                if (amax_bits >= kInfBits) {
                    scale_codes[r * blocks + b] = static_cast<uint8_t>(scale.format.nan_code);
                    std::memset(block_out, 0, static_cast<size_t>(length));
                    continue;
                }
                float amax;
                std::memcpy(&amax, &amax_bits, sizeof amax);
                // amax / (6 t) rounded once: the sign of the quotient's error decides ties
                const double q = amax / divisor;
                const double error = std::fma(q, divisor, -static_cast<double>(amax));
                const Encoded s = encode_from_double(scale.format, scale.saturating_specials, q,
                                                     error > 0 ? -1 : (error < 0 ? 1 : 0));
                scale_codes[r * blocks + b] = static_cast<uint8_t>(s.code);
                const double block_scale = scale.decode_f64[s.code] * tensor_scale;  // exact
                if (block_scale == 0.0) {
                    std::memset(block_out, 0, static_cast<size_t>(length));
                    continue;
                }
                // float32 / (4-bit x float32) in binary64 never lands on an
                // FP4 rounding boundary unless exactly, so one rounding holds
                for (npy_intp i = 0; i < length; i++) quotients[static_cast<size_t>(i)] = row[start + i] / block_scale;
                encode_f64(element.saturating_plan, quotients.data(), block_out, static_cast<size_t>(length));
            }
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
