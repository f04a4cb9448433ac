#include "cast_array.h"

#include <string>
#include <vector>

#include "numpy_api.h"

#include "codec.h"
#include "convert_kernels.h"
#include "decode_blocks.h"
#include "format_types.h"
#include "gil_release.h"
#include "scalar_convert.h"
#include "scalar_type.h"
#include "thread_pool.h"

namespace py = pybind11;

namespace minifloat {

Rounding parse_rounding(const std::string& name) {
    if (name == "nearest_even" || name == "nearest") return Rounding::nearest_even;
    if (name == "nearest_away") return Rounding::nearest_away;
    if (name == "toward_zero") return Rounding::toward_zero;
    if (name == "up") return Rounding::up;
    if (name == "down") return Rounding::down;
    if (name == "stochastic") return Rounding::stochastic;
    throw py::value_error("rounding must be one of 'nearest_even', 'nearest_away', 'toward_zero', "
                          "'up', 'down', 'stochastic' (or 'nearest'), not '" + name + "'");
}

PyArrayObject* require_contiguous(py::handle obj, const char* what) {
    if (!PyArray_Check(obj.ptr())) throw py::type_error(std::string(what) + " must be a NumPy array");
    PyArrayObject* array = reinterpret_cast<PyArrayObject*>(obj.ptr());
    if (!PyArray_IS_C_CONTIGUOUS(array) || !PyArray_ISALIGNED(array) || !PyArray_ISNOTSWAPPED(array)) {
        throw py::value_error(std::string(what) + " must be a C-contiguous, aligned, native array");
    }
    return array;
}

namespace {

// Element-by-element exact rounding for sources the bulk kernels do not
// take (int64/uint64 beyond 2^53, long double).
template <class Source, class Encode>
uint32_t encode_each(const FormatRuntime& rt, const Source* in, const uint64_t* random, char* out,
                     npy_intp n, Encode&& encode) {
    const npy_intp item = rt.format.storage_bytes;
    return parallel_for(static_cast<size_t>(n), WorkKind::exact_math, [&](size_t begin, size_t end) {
        uint32_t flags = 0;
        for (size_t i = begin; i < end; i++) {
            const Encoded e = encode(in[i], random ? random[i] : 0);
            store_code(rt, out + static_cast<npy_intp>(i) * item, e.code);
            flags |= e.flags;
        }
        return flags;
    });
}

// What both entry points check and allocate: the format, the rounding
// mode, the source, one uint64 draw per element for stochastic rounding,
// and the result array of the source's shape.
struct CastJob {
    const FormatRuntime* rt;
    Rounding mode;
    PyArrayObject* src;
    npy_intp n;
    const uint64_t* random;
    py::object out;
    char* out_data;
};

CastJob prepare_cast(py::handle source, const std::string& format_name, const std::string& rounding_name,
                     py::handle random_obj) {
    const int index = format_index_of_name(format_name.c_str());
    if (index < 0) throw py::value_error("unknown minifloat format: " + format_name);
    CastJob job;
    job.mode = parse_rounding(rounding_name);
    job.src = require_contiguous(source, "source");
    job.n = PyArray_SIZE(job.src);
    job.random = nullptr;
    if (job.mode == Rounding::stochastic) {
        PyArrayObject* draws = require_contiguous(random_obj, "random draws");
        if (PyArray_TYPE(draws) != NPY_UINT64 || PyArray_SIZE(draws) != job.n) {
            throw py::value_error("stochastic rounding needs one uint64 draw per element");
        }
        job.random = static_cast<const uint64_t*>(PyArray_DATA(draws));
    }
    job.rt = &runtime(index);
    PyArray_Descr* descr = &format_types(index).descr->base;
    Py_INCREF(descr);
    PyObject* result = PyArray_NewFromDescr(&PyArray_Type, descr, PyArray_NDIM(job.src),
                                            PyArray_DIMS(job.src), nullptr, nullptr, 0, nullptr);
    if (result == nullptr) throw py::error_already_set();
    job.out = py::reinterpret_steal<py::object>(result);
    job.out_data = static_cast<char*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(result)));
    return job;
}

py::object encode_array(py::handle source, const std::string& format_name, bool saturate,
                        const std::string& rounding_name, py::handle random_obj) {
    CastJob job = prepare_cast(source, format_name, rounding_name, random_obj);
    const FormatRuntime& rt = *job.rt;
    const Rounding mode = job.mode;
    PyArrayObject* src = job.src;
    const npy_intp n = job.n;
    const uint64_t* random = job.random;
    const SpecialCodes& specials = saturate ? rt.saturating_specials : rt.default_specials;
    const EncodePlan& plan = saturate ? rt.saturating_plan : rt.default_plan;
    char* out_data = job.out_data;
    const void* in = PyArray_DATA(src);
    const size_t count = static_cast<size_t>(n);
    const size_t item = rt.format.storage_bytes;
    const WorkKind cast_kind = random != nullptr ? WorkKind::stochastic : WorkKind::cast;
    uint32_t flags = 0;
    const int type = PyArray_TYPE(src);
    {
        const GilReleased released;
        const Format& f = rt.format;
        switch (type) {
            // element-wise, the draws given per element: any split gives the same bits
            case NPY_FLOAT32:
                flags = parallel_for(count, cast_kind, [&](size_t begin, size_t end) {
                    return encode_f32_rounding(plan, mode, static_cast<const float*>(in) + begin,
                                               random ? random + begin : nullptr, out_data + begin * item, end - begin);
                });
                break;
            case NPY_FLOAT64:
                flags = parallel_for(count, cast_kind, [&](size_t begin, size_t end) {
                    return encode_f64_rounding(plan, mode, static_cast<const double*>(in) + begin,
                                               random ? random + begin : nullptr, out_data + begin * item, end - begin);
                });
                break;
            case NPY_INT64:
                flags = encode_each(rt, static_cast<const int64_t*>(in), random, out_data, n,
                                    [&](int64_t v, uint64_t r) { return encode_from_int64(f, specials, v, mode, r); });
                break;
            case NPY_UINT64:
                flags = encode_each(rt, static_cast<const uint64_t*>(in), random, out_data, n,
                                    [&](uint64_t v, uint64_t r) { return encode_from_uint64(f, specials, v, mode, r); });
                break;
            case NPY_LONGDOUBLE:
                flags = encode_each(rt, static_cast<const long double*>(in), random, out_data, n,
                                    [&](long double v, uint64_t r) {
                                        return encode_from_long_double(f, specials, v, mode, r);
                                    });
                break;
            default:
                flags = ~0u;
        }
    }
    if (flags == ~0u) throw py::type_error("source must be float32, float64, int64, uint64 or longdouble");
    if (report_scalar_fp_flags("cast", flags) < 0) throw py::error_already_set();
    return job.out;
}

// Python numbers of any size (object arrays): exact, one element at a time.
py::object encode_objects(py::handle source, const std::string& format_name, bool saturate,
                          const std::string& rounding_name, py::handle random_obj) {
    if (PyArray_Check(source.ptr()) && PyArray_TYPE(reinterpret_cast<PyArrayObject*>(source.ptr())) != NPY_OBJECT) {
        throw py::type_error("source must be an object array");
    }
    CastJob job = prepare_cast(source, format_name, rounding_name, random_obj);
    const FormatRuntime& rt = *job.rt;
    const SpecialCodes& specials = saturate ? rt.saturating_specials : rt.default_specials;
    const uint64_t* random = job.random;
    const npy_intp n = job.n;
    char* out_data = job.out_data;
    // A reference to every element first: an element's __float__ may
    // replace elements or resize the array, freeing what `items` points to.
    PyObject* const* items = static_cast<PyObject* const*>(PyArray_DATA(job.src));
    std::vector<py::object> held;
    held.reserve(static_cast<size_t>(n));
    for (npy_intp i = 0; i < n; i++) {
        held.push_back(py::reinterpret_borrow<py::object>(items[i] != nullptr ? items[i] : Py_None));
    }
    uint32_t flags = 0;
    for (npy_intp i = 0; i < n; i++) {
        PyObject* item = held[static_cast<size_t>(i)].ptr();
        if (item == Py_None || PyComplex_Check(item) || PyArray_IsScalar(item, ComplexFloating) ||
            PyUnicode_Check(item) || PyBytes_Check(item)) {
            throw py::type_error(std::string("mf.cast needs real numbers, not '") + Py_TYPE(item)->tp_name + "'");
        }
        uint32_t code = 0;
        if (!code_from_object(rt, specials, item, &code, &flags, job.mode, random ? random[i] : 0)) {
            throw py::error_already_set();
        }
        store_code(rt, out_data + i * rt.format.storage_bytes, code);
    }
    if (report_scalar_fp_flags("cast", flags) < 0) throw py::error_already_set();
    return job.out;
}

}  // namespace

void register_cast_bindings(py::module_& m) {
    m.def("encode_objects", &encode_objects, py::arg("source"), py::arg("format"), py::arg("saturate"),
          py::arg("rounding"), py::arg("random"),
          "Round every Python number of a C-contiguous object array once into a format.");
    m.def("encode_array", &encode_array, py::arg("source"), py::arg("format"), py::arg("saturate"),
          py::arg("rounding"), py::arg("random"),
          "Round a C-contiguous float32/float64/int64/uint64/longdouble array once into a format.");
}

}  // namespace minifloat
