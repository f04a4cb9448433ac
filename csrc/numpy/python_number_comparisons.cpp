// Comparison loops for an array of a format without infinities against a
// Python number (float or int). The number is weak (NEP 50): it is rounded
// into the array's format, as NumPy does for float16. A number float16 would
// round to an infinity has no code in these formats (their overflow result
// is NaN or the largest value, which would make `a < 1000` False or
// `a == 1000` True), so such a number is compared as that infinity.
// NumPy's per-value hook (resolve_descriptors_with_scalars) is private
// (numpy/numpy#24915), so the loop takes the number as float64 and rounds it
// itself: once for the broadcast scalar, then the format's own comparison
// kernel runs against its code.
#include "python_number_comparisons.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "cast_specs.h"
#include "codec.h"
#include "format_table.h"
#include "format_types.h"
#include "fp_status.h"
#include "op_tables.h"
#include "ufunc_loops.h"

namespace minifloat {
namespace {

struct ComparisonUfunc {
    const char* name;
    CompareOp op;
};

constexpr ComparisonUfunc kComparisons[] = {
    {"equal", CompareOp::equal},           {"not_equal", CompareOp::not_equal},
    {"less", CompareOp::less},             {"less_equal", CompareOp::less_equal},
    {"greater", CompareOp::greater},       {"greater_equal", CompareOp::greater_equal},
};

// The number reaches the loop as float64 (exact for a Python float; a
// Python int is exact up to 2^53, far beyond these formats' ranges).

// The number as the comparison sees it: rounded into the format, or +-inf
// where it is infinite or rounds beyond the range (see the top of the file),
// NaN where it is NaN.
// `code` gets its code when it has one.
double weak_number_value(const FormatRuntime& rt, double number, uint32_t& code, bool& has_code, uint32_t& flags) {
    has_code = false;
    // NaN compares as NaN even in formats without one (float6/float4)
    if (!std::isfinite(number)) return number;
    const Encoded e = encode_from_double(rt.format, rt.default_specials, number);
    if ((e.flags & kFlagOverflow) != 0) {
        flags |= kFlagOverflow;
        return number < 0 ? -HUGE_VAL : HUGE_VAL;
    }
    flags |= e.flags;
    code = e.code;
    has_code = true;
    return rt.decode_f64[code];
}

uint32_t load_code_at(const FormatRuntime& rt, const char* p) {
    if (rt.format.storage_bytes == 1) return static_cast<uint8_t>(*p);
    uint16_t code;
    std::memcpy(&code, p, sizeof code);
    return code;
}

PyArrayMethod_StridedLoop* format_comparison_loop(CompareOp op);

template <CompareOp Op, int NumberSide>
int compare_with_number(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                        const npy_intp strides[], NpyAuxData* auxdata) {
    constexpr int kFormatSide = 1 - NumberSide;
    const FormatRuntime& rt = runtime_of(context->descriptors[kFormatSide]);
    const npy_intp n = dimensions[0];
    uint32_t flags = 0;
    if (strides[NumberSide] == 0 && n > 0) {  // the usual case: one Python number
        double number;
        std::memcpy(&number, data[NumberSide], sizeof number);
        uint32_t code = 0;
        bool has_code = false;
        const double value = weak_number_value(rt, number, code, has_code, flags);
        static PyArrayMethod_StridedLoop* const format_loop = format_comparison_loop(Op);
        if (has_code && format_loop != nullptr) {
            // the format's own kernel, against the number's code
            alignas(8) char code_bytes[8] = {};
            std::memcpy(code_bytes, &code, static_cast<size_t>(rt.format.storage_bytes));  // little-endian
            PyArray_Descr* const descriptors[3] = {context->descriptors[kFormatSide],
                                                   context->descriptors[kFormatSide], context->descriptors[2]};
            PyArrayMethod_Context format_context = *context;
            format_context.descriptors = descriptors;
            char* const format_data[3] = {NumberSide == 1 ? data[0] : code_bytes,
                                          NumberSide == 1 ? code_bytes : data[1], data[2]};
            const npy_intp format_strides[3] = {NumberSide == 1 ? strides[0] : 0,
                                                NumberSide == 1 ? 0 : strides[1], strides[2]};
            if (format_loop(&format_context, format_data, dimensions, format_strides, auxdata) < 0) return -1;
            raise_fp_flags(flags);
            return 0;
        }
        for (npy_intp i = 0; i < n; i++) {
            const double code_value = rt.decode_f64[load_code_at(rt, data[kFormatSide] + i * strides[kFormatSide])];
            *reinterpret_cast<npy_bool*>(data[2] + i * strides[2]) =
                NumberSide == 1 ? compare_values(Op, code_value, value) : compare_values(Op, value, code_value);
        }
        raise_fp_flags(flags);
        return 0;
    }
    for (npy_intp i = 0; i < n; i++) {
        double number;
        std::memcpy(&number, data[NumberSide] + i * strides[NumberSide], sizeof number);
        uint32_t code = 0;
        bool has_code = false;
        const double value = weak_number_value(rt, number, code, has_code, flags);
        const double code_value = rt.decode_f64[load_code_at(rt, data[kFormatSide] + i * strides[kFormatSide])];
        *reinterpret_cast<npy_bool*>(data[2] + i * strides[2]) =
            NumberSide == 1 ? compare_values(Op, code_value, value) : compare_values(Op, value, code_value);
    }
    raise_fp_flags(flags);
    return 0;
}

PyArrayMethod_StridedLoop* format_comparison_loop(CompareOp op) {
    for (const UfuncLoop& entry : elementwise_loops()) {
        if (std::string(entry.ufunc) == comparison_name(op)) return entry.loop;
    }
    return nullptr;
}

template <CompareOp Op, int NumberSide>
int add_one(PyObject* ufunc, const char* ufunc_name, int index, PyArray_DTypeMeta* number_dtype) {
    PyArray_DTypeMeta* format = &format_types(index).dtype_class;
    std::vector<PyArray_DTypeMeta*> dtypes = NumberSide == 1
                                                 ? std::vector<PyArray_DTypeMeta*>{format, number_dtype, &PyArray_BoolDType}
                                                 : std::vector<PyArray_DTypeMeta*>{number_dtype, format, &PyArray_BoolDType};
    const std::string name = runtime(index).name + "_" + ufunc_name + "_python_number";
    PyArrayMethod_Spec* spec = make_method_spec(
        name.c_str(), 2, 1, NPY_NO_CASTING, static_cast<NPY_ARRAYMETHOD_FLAGS>(0), std::move(dtypes),
        {{NPY_METH_resolve_descriptors, reinterpret_cast<void*>(resolve_python_number_as<NumberSide, NPY_DOUBLE>)},
         {NPY_METH_strided_loop, reinterpret_cast<void*>(compare_with_number<Op, NumberSide>)}});
    return PyUFunc_AddLoopFromSpec(ufunc, spec);
}

template <CompareOp Op>
int add_both_sides(PyObject* ufunc, const char* ufunc_name, int index) {
    for (PyArray_DTypeMeta* number : {&PyArray_PyFloatDType, &PyArray_PyLongDType}) {
        if (add_one<Op, 0>(ufunc, ufunc_name, index, number) < 0) return -1;
        if (add_one<Op, 1>(ufunc, ufunc_name, index, number) < 0) return -1;
    }
    return 0;
}

int add_for_op(PyObject* ufunc, const ComparisonUfunc& c, int index) {
    switch (c.op) {
        case CompareOp::equal: return add_both_sides<CompareOp::equal>(ufunc, c.name, index);
        case CompareOp::not_equal: return add_both_sides<CompareOp::not_equal>(ufunc, c.name, index);
        case CompareOp::less: return add_both_sides<CompareOp::less>(ufunc, c.name, index);
        case CompareOp::less_equal: return add_both_sides<CompareOp::less_equal>(ufunc, c.name, index);
        case CompareOp::greater: return add_both_sides<CompareOp::greater>(ufunc, c.name, index);
        case CompareOp::greater_equal: return add_both_sides<CompareOp::greater_equal>(ufunc, c.name, index);
        case CompareOp::logical_and:
        case CompareOp::logical_or:
        case CompareOp::logical_xor:
        case CompareOp::count:
            break;
    }
    return 0;
}

}  // namespace

const char* comparison_name(CompareOp op) {
    for (const ComparisonUfunc& c : kComparisons) {
        if (c.op == op) return c.name;
    }
    return "";
}

int add_python_number_comparisons(int index) {
    const FormatRuntime& rt = runtime(index);
    // formats with infinities already behave as float16 (the number rounds
    // to +-inf); unsigned formats compare with Python numbers in float64
    // (ufuncs.cpp's comparison promoter)
    if (rt.format.has_inf || !rt.format.is_signed) return 0;
    PyObject* numpy = PyImport_ImportModule("numpy");
    if (numpy == nullptr) return -1;
    int status = 0;
    for (const ComparisonUfunc& c : kComparisons) {
        PyObject* ufunc = PyObject_GetAttrString(numpy, c.name);
        if (ufunc == nullptr) {
            status = -1;
            break;
        }
        status = add_for_op(ufunc, c, index);
        Py_DECREF(ufunc);
        if (status < 0) break;
    }
    Py_DECREF(numpy);
    return status;
}

}  // namespace minifloat
