#include "dtype_class.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "array_functions.h"
#include "cast_specs.h"
#include "codec.h"
#include "complex_types.h"
#include "decode_blocks.h"
#include "dtype_core.h"
#include "format_types.h"
#include "promotion.h"
#include "scalar_convert.h"
#include "scalar_elements.h"
#include "scalar_type.h"
#include "text_scanning.h"

namespace minifloat {

PyArray_DTypeMeta g_abstract_dtype{};

namespace {

// ---- DType slots -------------------------------------------------------

int format_setitem(PyArray_Descr* descr, PyObject* value, char* data) {
    const FormatRuntime& rt = runtime_of(descr);
    uint32_t code = 0, flags = 0;
    if (!code_from_object(rt, rt.default_specials, value, &code, &flags)) return -1;
    store_code(rt, data, code);
    return report_scalar_fp_flags("cast", flags);
}

int get_constant(PyArray_Descr* descr, int id, void* data) {
    const FormatRuntime& rt = runtime_of(descr);
    const Format& f = rt.format;
    auto code_of = [&rt](double v) {
        return encode_from_double(rt.format, rt.default_specials, v).code;
    };
    uint32_t code;
    switch (id) {
        case NPY_CONSTANT_zero:
            if (!f.has_zero) return 0;
            code = 0;
            break;
        case NPY_CONSTANT_one: code = code_of(1.0); break;
        case NPY_CONSTANT_maximum_finite: code = f.max_magnitude; break;
        case NPY_CONSTANT_minimum_finite:
            // float8_e8m0fnu has no negative numbers: its smallest is 2^-127
            code = f.is_signed ? (f.max_magnitude | f.sign_bit) : 0u;
            break;
        case NPY_CONSTANT_inf:
            if (!f.has_inf) return 0;
            code = f.inf_magnitude;
            break;
        case NPY_CONSTANT_ninf:
            if (!f.has_inf) return 0;
            code = f.inf_magnitude | f.sign_bit;
            break;
        case NPY_CONSTANT_nan:
            if (!f.has_nan) return 0;
            code = f.nan_code;
            break;
        case NPY_CONSTANT_finfo_radix: code = code_of(2.0); break;
        case NPY_CONSTANT_finfo_eps:
            // the spacing above 1: 2^-M, unless 1 lies in the subnormal range
            code = code_of(std::ldexp(1.0, std::max(0, f.min_normal_exponent) - f.mantissa_bits));
            break;
        case NPY_CONSTANT_finfo_smallest_normal:
            code = code_of(std::ldexp(1.0, f.min_normal_exponent));
            break;
        case NPY_CONSTANT_finfo_smallest_subnormal: code = f.smallest_code; break;
        case NPY_CONSTANT_finfo_nmant: {
            const npy_intp v = f.mantissa_bits;
            std::memcpy(data, &v, sizeof v);
            return 1;
        }
        case NPY_CONSTANT_finfo_min_exp: {
            const npy_intp v = f.min_normal_exponent;
            std::memcpy(data, &v, sizeof v);
            return 1;
        }
        case NPY_CONSTANT_finfo_max_exp: {
            const npy_intp v = f.max_exponent + 1;  // first power of two that overflows
            std::memcpy(data, &v, sizeof v);
            return 1;
        }
        case NPY_CONSTANT_finfo_decimal_digits: {
            // NumPy's definition: floor(-log10(eps))
            const npy_intp v = static_cast<npy_intp>(std::floor(f.mantissa_bits * std::log10(2.0)));
            std::memcpy(data, &v, sizeof v);
            return 1;
        }
        default:
            return 0;
    }
    store_code(rt, static_cast<char*>(data), code);
    return 1;
}

// The float formats as a family of the DType core (dtype_core.h).
struct FloatFamily {
    static constexpr const char* kAbstractName = "minifloat.MinifloatDType";
    static constexpr const char* kAbstractDoc = "Abstract parent of every minifloat DType class (used for promotion).";
    static PyArray_DTypeMeta& abstract_dtype() { return g_abstract_dtype; }
    static PyTypeObject& abstract_scalar_type() { return g_abstract_scalar_type; }
    static constexpr const char* kMemberDoc = "NumPy DType class of a minifloat format.";
    static constexpr const char* kNameDoc = "The format's name.";
    static constexpr Py_ssize_t kDescrSize = sizeof(MinifloatDescr);
    static constexpr CastFamily kCasts = CastFamily::floats;
    static constexpr const char* kSwapHint =
        "to swap the bytes of the codes use arr.byteswap() (or arr.view(np.uint16).byteswap())";

    static int index_of_class(const PyArray_DTypeMeta* cls) { return format_index_of_dtype_class(cls); }
    static int index_of_descr(const PyArray_Descr* descr) {
        return reinterpret_cast<const MinifloatDescr*>(descr)->format_index;
    }
    static PyArray_DTypeMeta& dtype_class(int index) { return format_types(index).dtype_class; }
    static PyTypeObject& scalar_type(int index) { return format_types(index).scalar_type; }
    static const char* dtype_name(int index) { return format_types(index).dtype_name.c_str(); }
    static const char* name(int index) { return runtime(index).name.c_str(); }
    // Arrays print `dtype=float8_e4m3fn` (formats made at run time:
    // `dtype=float_format(...)`), which evaluates back to this dtype after
    // `from minifloat import *`.
    static PyObject* repr(int index) {
        const std::string& text = format_types(index).repr_text;
        return PyUnicode_FromString(text.empty() ? name(index) : text.c_str());
    }
    static PyObject* reduce_value(int index) { return format_types(index).reduce_value; }

    static char kind(int) { return 'f'; }
    static char type_char(int index) { return runtime(index).row.type_char; }
    static int itemsize(int index) { return runtime(index).format.storage_bytes; }
    static int part_bytes(int index) { return itemsize(index); }
    static void keep_singleton(int index, PyArray_Descr* descr) {
        reinterpret_cast<MinifloatDescr*>(descr)->format_index = index;
        format_types(index).descr = reinterpret_cast<MinifloatDescr*>(descr);
    }
    static PyArray_Descr* singleton(int index) { return &format_types(index).descr->base; }

    static PyArray_DTypeMeta* common_dtype(PyArray_DTypeMeta* cls, PyArray_DTypeMeta* other) {
        return common_dtype_with(format_index_of_dtype_class(cls), other);
    }
    static int setitem(PyArray_Descr* descr, PyObject* value, char* data) { return format_setitem(descr, value, data); }
    static PyObject* getitem(PyArray_Descr* descr, char* data) { return element_as_python_float(descr, data); }
    static int append_casts(int index, std::vector<PyArrayMethod_Spec*>& out) {
        append_minifloat_cast_specs(index, out);
        append_numeric_cast_specs(index, out);
        append_text_cast_specs(index, out);
        append_void_cast_specs(index, out);
        append_format_complex_cast_specs(index, out);  // formats made after the complex types
        return 0;
    }
    static void append_slots(int index, std::vector<PyType_Slot>& out) {
        out.push_back({NPY_DT_get_constant, reinterpret_cast<void*>(get_constant)});
        append_array_function_slots(index, out);
        append_text_scanning_slots(out);
    }
    // after copyswap (the core installs it first): once getitem no longer
    // builds scalars, indexing does it with copyswap (scalar_elements.h)
    static int finish(int, PyArray_Descr* descr) { return build_scalars_by_copy(descr); }
};

}  // namespace

int init_format_dtype(int index) {
    FormatTypes& types = format_types(index);
    types.dtype_name = "minifloat." + runtime(index).dtype_class_name;
    types.dtype_class.format_index = index;
    return DTypeCore<FloatFamily>::init_member(index);
}

int init_dtype_classes() {
    if (DTypeCore<FloatFamily>::init_abstract() < 0) return -1;
    for (int i = 0; i < kBuiltinFormatCount; i++) {
        if (init_format_dtype(i) < 0) return -1;
    }
    return 0;
}

}  // namespace minifloat
