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
#include "legacy_copyswap.h"
#include "text_scanning.h"
#include "promotion.h"
#include "registry.h"
#include "scalar_convert.h"
#include "scalar_elements.h"
#include "scalar_type.h"

namespace minifloat {

PyArray_DTypeMeta g_abstract_dtype{};

namespace {

// ---- DType slots -------------------------------------------------------

PyArray_Descr* singleton_of(PyArray_DTypeMeta* cls) {
    const int index = format_index_of_dtype_class(cls);
    PyArray_Descr* descr = &runtime(index).descr->base;
    Py_INCREF(descr);
    return descr;
}

PyArray_Descr* default_descr(PyArray_DTypeMeta* cls) { return singleton_of(cls); }

PyArray_Descr* discover_descr_from_pyobject(PyArray_DTypeMeta* cls, PyObject*) {
    return singleton_of(cls);
}

PyArray_Descr* ensure_canonical(PyArray_Descr* descr) {
    PyArray_Descr* canonical = &runtime_of(descr).descr->base;
    Py_INCREF(canonical);
    return canonical;
}

PyArray_DTypeMeta* common_dtype(PyArray_DTypeMeta* cls, PyArray_DTypeMeta* other) {
    return common_dtype_with(format_index_of_dtype_class(cls), other);
}

int setitem(PyArray_Descr* descr, PyObject* value, char* data) {
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

// ---- the DType class as a Python type -------------------------------------

PyObject* dtype_new(PyTypeObject* cls, PyObject* args, PyObject* kwds) {
    if (PyTuple_GET_SIZE(args) != 0 || (kwds != nullptr && PyDict_Size(kwds) != 0)) {
        PyErr_Format(PyExc_TypeError, "%s() takes no arguments", cls->tp_name);
        return nullptr;
    }
    const int index = format_index_of_dtype_class(reinterpret_cast<PyArray_DTypeMeta*>(cls));
    if (index < 0) {
        PyErr_SetString(PyExc_TypeError, "minifloat.MinifloatDType is abstract");
        return nullptr;
    }
    return reinterpret_cast<PyObject*>(singleton_of(reinterpret_cast<PyArray_DTypeMeta*>(cls)));
}

PyObject* dtype_repr(PyObject* self) {
    // Arrays print `dtype=float8_e4m3fn` (formats made at run time:
    // `dtype=float_format(...)`), which evaluates back to this dtype after
    // `from minifloat import *`.
    const FormatRuntime& rt = runtime_of(reinterpret_cast<PyArray_Descr*>(self));
    return PyUnicode_FromString(rt.repr_text.empty() ? rt.name.c_str() : rt.repr_text.c_str());
}

PyObject* dtype_name(PyObject* self, void*) {
    return PyUnicode_FromString(runtime_of(reinterpret_cast<PyArray_Descr*>(self)).name.c_str());
}

PyObject* dtype_typestr(PyObject* self, void*) {
    // Code that rebuilds a dtype from `.str` (structured dtypes' `.descr`,
    // np.save headers of structured arrays, dask.distributed's array frames)
    // must get this format back, not NumPy's raw-bytes reading of a "|V1".
    // The package registers this spelling with np.dtype() on import, under a
    // key ml_dtypes (which owns "float8_e4m3fn" once imported after us)
    // cannot take; without minifloat imported, np.dtype() raises instead of
    // silently returning bytes.
    const Format& f = runtime_of(reinterpret_cast<PyArray_Descr*>(self)).format;
    return PyUnicode_FromFormat("minifloat.%s", f.row->name);
}

PyObject* dtype_reduce(PyObject* self, PyObject*) {
    const FormatRuntime& rt = runtime_of(reinterpret_cast<PyArray_Descr*>(self));
    if (rt.reduce_value != nullptr) {  // made at run time: by its parameters
        Py_INCREF(rt.reduce_value);
        return rt.reduce_value;
    }
    PyObject* numpy = PyImport_ImportModule("numpy");
    if (numpy == nullptr) return nullptr;
    PyObject* dtype_type = PyObject_GetAttrString(numpy, "dtype");
    Py_DECREF(numpy);
    if (dtype_type == nullptr) return nullptr;
    PyObject* scalar_type =
        reinterpret_cast<PyObject*>(&runtime_of(reinterpret_cast<PyArray_Descr*>(self)).scalar_type);
    return Py_BuildValue("(N(O))", dtype_type, scalar_type);
}

// dtype.newbyteorder: NumPy's own refuses new-style DTypes outright. A
// one-byte format has no byte order ('|'), so every order is this dtype, as
// for np.uint8. bfloat16 arrays exist in native order only: asking for the
// native order is fine, the other one raises (the codes can be swapped with
// ndarray.byteswap()).
PyObject* dtype_newbyteorder(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    if (nargs > 1) {
        PyErr_SetString(PyExc_TypeError, "newbyteorder() takes at most 1 argument");
        return nullptr;
    }
    char order = 'S';
    if (nargs == 1) {
        Py_ssize_t length = 0;
        const char* text = PyUnicode_Check(args[0]) ? PyUnicode_AsUTF8AndSize(args[0], &length) : nullptr;
        if (text == nullptr || length < 1) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "newbyteorder: expected one of 'S', '<', '>', '=', '|', "
                                              "'L', 'B', 'N', 'I' (or a word starting with one)");
            return nullptr;
        }
        order = text[0];
    }
    const bool little = PY_LITTLE_ENDIAN != 0;
    bool native;
    switch (order) {
        case 'S': case 's': native = false; break;
        case '=': case '|': case 'N': case 'n': case 'I': case 'i': native = true; break;
        case '<': case 'L': case 'l': native = little; break;
        case '>': case 'B': case 'b': native = !little; break;
        default:
            PyErr_Format(PyExc_ValueError, "newbyteorder: %c is an unrecognized byte order", order);
            return nullptr;
    }
    const Format& f = runtime_of(reinterpret_cast<PyArray_Descr*>(self)).format;
    if (f.storage_bytes > 1 && !native) {
        PyErr_Format(PyExc_TypeError,
                     "%s exists in native byte order only; to swap the bytes of the codes use "
                     "arr.byteswap() (or arr.view(np.uint16).byteswap())",
                     f.row->name);
        return nullptr;
    }
    Py_INCREF(self);
    return self;
}

PyMethodDef g_dtype_methods[] = {
    {"__reduce__", dtype_reduce, METH_NOARGS, nullptr},
    {"newbyteorder", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(dtype_newbyteorder)),
     METH_FASTCALL, "This dtype for every byte order a one-byte format allows; see the docs."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef g_dtype_getset[] = {
    {"name", dtype_name, nullptr, "The format's name.", nullptr},
    {"str", dtype_typestr, nullptr, "\"minifloat.<format>\": np.dtype() of it is this dtype.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

// ---- the abstract parent ---------------------------------------------------

PyArray_Descr* abstract_ensure_canonical(PyArray_Descr* descr) {
    Py_INCREF(descr);
    return descr;
}
int abstract_setitem(PyArray_Descr*, PyObject*, char*) {
    PyErr_SetString(PyExc_TypeError, "minifloat.MinifloatDType is abstract");
    return -1;
}
PyObject* abstract_getitem(PyArray_Descr*, char*) {
    PyErr_SetString(PyExc_TypeError, "minifloat.MinifloatDType is abstract");
    return nullptr;
}
int abstract_copy(PyArrayMethod_Context*, char* const*, const npy_intp*, const npy_intp*,
                  NpyAuxData*) {
    PyErr_SetString(PyExc_TypeError, "minifloat.MinifloatDType is abstract");
    return -1;
}

int init_abstract_dtype() {
    PyTypeObject* t = reinterpret_cast<PyTypeObject*>(&g_abstract_dtype);
    Py_SET_TYPE(t, &PyArrayDTypeMeta_Type);
    Py_SET_REFCNT(t, 1);
    t->tp_name = "minifloat.MinifloatDType";
    t->tp_doc = "Abstract parent of every minifloat DType class (used for promotion).";
    t->tp_basicsize = sizeof(MinifloatDescr);
    t->tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
    t->tp_base = &PyArrayDescr_Type;
    t->tp_new = dtype_new;
    t->tp_repr = dtype_repr;
    t->tp_str = dtype_repr;
    if (PyType_Ready(t) < 0) return -1;
    PyArrayMethod_Spec* casts[] = {
        make_method_spec("abstract_copy", 1, 1, NPY_NO_CASTING, NPY_METH_SUPPORTS_UNALIGNED,
                         {nullptr, nullptr},
                         {{NPY_METH_strided_loop, reinterpret_cast<void*>(abstract_copy)},
                          {NPY_METH_unaligned_strided_loop, reinterpret_cast<void*>(abstract_copy)}}),
        nullptr};
    PyType_Slot slots[] = {
        {NPY_DT_ensure_canonical, reinterpret_cast<void*>(abstract_ensure_canonical)},
        {NPY_DT_setitem, reinterpret_cast<void*>(abstract_setitem)},
        {NPY_DT_getitem, reinterpret_cast<void*>(abstract_getitem)},
        {0, nullptr},
    };
    PyArrayDTypeMeta_Spec spec{};
    spec.typeobj = &g_abstract_scalar_type;
    spec.flags = NPY_DT_ABSTRACT | NPY_DT_NUMERIC;
    spec.casts = casts;
    spec.slots = slots;
    return PyArrayInitDTypeMeta_FromSpec(&g_abstract_dtype, &spec);
}

}  // namespace

int init_format_dtype(int index) {
    FormatRuntime& rt = runtime(index);
    PyTypeObject* t = reinterpret_cast<PyTypeObject*>(&rt.dtype_class);
    Py_SET_TYPE(t, &PyArrayDTypeMeta_Type);
    Py_SET_REFCNT(t, 1);
    t->tp_name = rt.dtype_name.c_str();
    t->tp_doc = "NumPy DType class of a minifloat format.";
    t->tp_basicsize = sizeof(MinifloatDescr);
    t->tp_flags = Py_TPFLAGS_DEFAULT;
    t->tp_base = reinterpret_cast<PyTypeObject*>(&g_abstract_dtype);
    t->tp_new = dtype_new;
    t->tp_repr = dtype_repr;
    t->tp_str = dtype_repr;
    t->tp_methods = g_dtype_methods;
    t->tp_getset = g_dtype_getset;
    if (PyType_Ready(t) < 0) return -1;

    std::vector<PyArrayMethod_Spec*> casts;
    append_minifloat_cast_specs(index, casts);
    append_numeric_cast_specs(index, casts);
    append_text_cast_specs(index, casts);
    append_void_cast_specs(index, casts);
    if (append_ml_dtypes_cast_specs(index, casts) < 0) return -1;
    append_format_complex_cast_specs(index, casts);  // formats made after the complex types
    casts.push_back(nullptr);

    std::vector<PyType_Slot> slots = {
        {NPY_DT_discover_descr_from_pyobject, reinterpret_cast<void*>(discover_descr_from_pyobject)},
        {NPY_DT_default_descr, reinterpret_cast<void*>(default_descr)},
        {NPY_DT_common_dtype, reinterpret_cast<void*>(common_dtype)},
        {NPY_DT_ensure_canonical, reinterpret_cast<void*>(ensure_canonical)},
        {NPY_DT_setitem, reinterpret_cast<void*>(setitem)},
        {NPY_DT_getitem, reinterpret_cast<void*>(element_as_python_float)},
        {NPY_DT_get_constant, reinterpret_cast<void*>(get_constant)},
    };
    append_array_function_slots(index, slots);
    append_text_scanning_slots(slots);
    slots.push_back({0, nullptr});

    PyArrayDTypeMeta_Spec spec{};
    spec.typeobj = &rt.scalar_type;
    spec.flags = NPY_DT_NUMERIC;
    spec.casts = casts.data();
    spec.slots = slots.data();
    if (PyArrayInitDTypeMeta_FromSpec(&rt.dtype_class, &spec) < 0) return -1;

    PyArray_Descr* descr = reinterpret_cast<PyArray_Descr*>(
        PyArrayDescr_Type.tp_new(t, nullptr, nullptr));
    if (descr == nullptr) return -1;
    const FormatRow& row = *rt.format.row;
    descr->elsize = rt.format.storage_bytes;
    descr->alignment = rt.format.storage_bytes;
    descr->kind = 'f';
    descr->type = row.type_char;
    descr->byteorder = rt.format.storage_bytes == 1 ? '|' : '=';
    reinterpret_cast<MinifloatDescr*>(descr)->format_index = index;
    rt.descr = reinterpret_cast<MinifloatDescr*>(descr);
    // copyswap first: once getitem no longer builds scalars, indexing does it
    // with copyswap (scalar_elements.h)
    if (install_copyswap(descr, rt.format.storage_bytes) < 0 || build_scalars_by_copy(index) < 0 ||
        attach_dtype_to_scalar_type(index) < 0) {
        return -1;
    }
    return 0;
}

int init_dtype_classes() {
    if (init_abstract_dtype() < 0) return -1;
    for (int i = 0; i < kBuiltinFormatCount; i++) {
        if (init_format_dtype(i) < 0) return -1;
    }
    return 0;
}

}  // namespace minifloat
