// DType classes of complex32 and bcomplex32 (kind 'c', itemsize 4,
// alignment 2) under an abstract minifloat.ComplexDType (promoters are keyed
// on it), with promotion and cast safety from exact representability, and
// the legacy array functions NumPy's sort, argmax, nonzero, fill and dot
// paths call. Ordering is NumPy's for complex numbers: lexicographic, NaNs
// last ([R + Rj, R + nanj, nan + Rj, nan + nanj]).
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <vector>

#include "cast_specs.h"
#include "complex_types.h"
#include "format_types.h"
#include "promotion.h"
#include "registry.h"
#include "scalar_type.h"

namespace minifloat {

PyArray_DTypeMeta g_complex_abstract_dtype{};
PyTypeObject g_complex_abstract_scalar{PyVarObject_HEAD_INIT(nullptr, 0)};

namespace {

PyArray_DTypeMeta* new_ref(PyArray_DTypeMeta* d) {
    Py_INCREF(d);
    return d;
}
PyArray_DTypeMeta* not_implemented() {
    Py_INCREF(Py_NotImplemented);
    return reinterpret_cast<PyArray_DTypeMeta*>(Py_NotImplemented);
}

PyArray_Descr* singleton_of(PyArray_DTypeMeta* cls) {
    PyArray_Descr* d = complex_runtime(complex_kind_of_dtype_class(cls)).descr;
    Py_INCREF(d);
    return d;
}
PyArray_Descr* default_descr(PyArray_DTypeMeta* cls) { return singleton_of(cls); }
PyArray_Descr* discover_descr(PyArray_DTypeMeta* cls, PyObject*) { return singleton_of(cls); }
PyArray_Descr* ensure_canonical(PyArray_Descr* d) {
    return singleton_of(reinterpret_cast<PyArray_DTypeMeta*>(Py_TYPE(d)));
}

// ---- promotion -------------------------------------------------------------

// Every value of NumPy's integer type `t` (or bool) is a value of the part
// format: float16 holds integers up to 2048, bfloat16 up to 256, so the
// one-byte types. The decision follows NumPy's int8 + float16 -> float16
// (int16 + float16 -> float32): int8/uint8 + complex32 -> complex32, int16 +
// complex32 -> complex64 (NumPy's int16 + complex64), int32/int64 ->
// complex128.
bool part_holds_integer_type(int t) { return t == NPY_BOOL || t == NPY_BYTE || t == NPY_UBYTE; }

// Every finite value of float format `index` (and its inf/NaN/-0) is a
// value of the part format of `kind`.
bool part_holds_format(int kind, int index) {
    if (kind == kComplex32) return runtime(index).fits_float16;
    return format_is_subset(index, bfloat16_format_index());
}

PyArray_DTypeMeta* complex_dtype_holding_float(PyArray_DTypeMeta* real) {
    // NumPy's own rule for a real type and complex64: float32 -> complex64,
    // float64 -> complex128, longdouble -> clongdouble (float16 -> complex64)
    PyArray_DTypeMeta* result = PyArray_CommonDType(real, &PyArray_CFloatDType);
    if (result == nullptr) {
        PyErr_Clear();
        return not_implemented();
    }
    return result;
}

PyArray_DTypeMeta* common_dtype(PyArray_DTypeMeta* cls, PyArray_DTypeMeta* other) {
    const int kind = complex_kind_of_dtype_class(cls);
    if (other == cls) return new_ref(cls);
    if (complex_kind_of_dtype_class(other) >= 0) return new_ref(&PyArray_CFloatDType);  // complex32 + bcomplex32
    // Python numbers are weak (NEP 50), as for complex64
    if (other == &PyArray_PyFloatDType || other == &PyArray_PyLongDType || other == &PyArray_PyComplexDType) {
        return new_ref(cls);
    }
    const int format = format_index_of_dtype_class(other);
    if (format >= 0) {
        if (part_holds_format(kind, format)) return new_ref(cls);
        return complex_dtype_holding_float(other);  // bfloat16 + complex32 -> complex64
    }
    if (other == &g_complex_abstract_dtype) return not_implemented();
    const int t = other->type_num;
    if (t == NPY_BOOL || PyTypeNum_ISINTEGER(t)) {
        if (part_holds_integer_type(t)) return new_ref(cls);
        return complex_dtype_holding_float(other);
    }
    if (t == NPY_HALF) return new_ref(kind == kComplex32 ? cls : &PyArray_CFloatDType);
    if (PyTypeNum_ISFLOAT(t) || PyTypeNum_ISCOMPLEX(t)) return complex_dtype_holding_float(other);
    return not_implemented();  // minifloat's integers promote through int8 (int_dtypes.cpp), others refuse
}

// ---- items -------------------------------------------------------------------

int setitem(PyArray_Descr* descr, PyObject* value, char* data) {
    const int kind = complex_kind_of_descr(descr);
    double re = 0, im = 0;
    if (complex_from_object(kind, value, &re, &im) < 0) return -1;
    uint16_t parts[2];
    const uint32_t flags = encode_complex_value(kind, re, im, parts);
    std::memcpy(data, parts, 4);
    return report_scalar_fp_flags("cast", flags);
}

PyObject* getitem(PyArray_Descr* descr, char* data) {
    uint16_t parts[2];
    std::memcpy(parts, data, 4);
    return new_complex_scalar(complex_kind_of_descr(descr), parts);
}

// Identities and limits (NumPy asks for zero and one in reductions). The
// finfo constants are the part's, as np.finfo(np.complex64) gives float32's.
int get_constant(PyArray_Descr* descr, int id, void* data) {
    const int kind = complex_kind_of_descr(descr);
    double value;
    switch (id) {
        case NPY_CONSTANT_zero: value = 0.0; break;
        case NPY_CONSTANT_one: value = 1.0; break;
        case NPY_CONSTANT_nan: value = std::nan(""); break;
        case NPY_CONSTANT_inf: value = INFINITY; break;
        default: return 0;
    }
    uint16_t parts[2];
    encode_complex_value(kind, value, 0.0, parts);
    std::memcpy(data, parts, 4);
    return 1;
}

// ---- legacy array functions ----------------------------------------------------

struct Parts {
    float re, im;
};

Parts decode_item(const PartCodec& codec, const char* item) {
    uint16_t codes[2];
    std::memcpy(codes, item, 4);
    float values[2];
    decode_parts_f32(codec, codes, values, 2);
    return {values[0], values[1]};
}

// NumPy's complex sort order: [R + Rj, R + nanj, nan + Rj, nan + nanj],
// lexicographic within each group.
bool less(Parts a, Parts b) {
    const bool a_nan = std::isnan(a.re), b_nan = std::isnan(b.re);
    if (a_nan != b_nan) return b_nan;
    const bool ai_nan = std::isnan(a.im), bi_nan = std::isnan(b.im);
    if (ai_nan != bi_nan) return bi_nan;
    if (!a_nan && a.re != b.re) return a.re < b.re;
    return !ai_nan && a.im < b.im;
}

template <int Kind>
int compare(const void* a, const void* b, void*) {
    const PartCodec& codec = complex_runtime(Kind).codec;
    const Parts x = decode_item(codec, static_cast<const char*>(a)), y = decode_item(codec, static_cast<const char*>(b));
    return less(x, y) ? -1 : (less(y, x) ? 1 : 0);
}

struct Keyed {
    Parts value;
    uint32_t bits;
};

template <int Kind>
int sort(void* start, npy_intp n, void*) {
    const PartCodec& codec = complex_runtime(Kind).codec;
    char* items = static_cast<char*>(start);
    std::vector<Keyed> keyed(static_cast<size_t>(n));
    for (npy_intp i = 0; i < n; i++) {
        keyed[static_cast<size_t>(i)].value = decode_item(codec, items + 4 * i);
        std::memcpy(&keyed[static_cast<size_t>(i)].bits, items + 4 * i, 4);
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) { return less(a.value, b.value); });
    for (npy_intp i = 0; i < n; i++) std::memcpy(items + 4 * i, &keyed[static_cast<size_t>(i)].bits, 4);
    return 0;
}

template <int Kind>
int argsort(void* start, npy_intp* order, npy_intp n, void*) {
    const PartCodec& codec = complex_runtime(Kind).codec;
    const char* items = static_cast<const char*>(start);
    std::vector<Parts> values(static_cast<size_t>(n));
    for (npy_intp i = 0; i < n; i++) values[static_cast<size_t>(i)] = decode_item(codec, items + 4 * i);
    std::stable_sort(order, order + n, [&values](npy_intp a, npy_intp b) {
        return less(values[static_cast<size_t>(a)], values[static_cast<size_t>(b)]);
    });
    return 0;
}

// argmax/argmin: the first NaN (in either part) wins, as for complex64.
template <int Kind, bool Max>
int arg_extreme(void* data, npy_intp n, npy_intp* out, void*) {
    const PartCodec& codec = complex_runtime(Kind).codec;
    const char* items = static_cast<const char*>(data);
    *out = 0;
    if (n <= 0) return 0;
    Parts best = decode_item(codec, items);
    if (std::isnan(best.re) || std::isnan(best.im)) return 0;
    for (npy_intp i = 1; i < n; i++) {
        const Parts v = decode_item(codec, items + 4 * i);
        if (std::isnan(v.re) || std::isnan(v.im)) {
            *out = i;
            return 0;
        }
        if (Max ? less(best, v) : less(v, best)) {
            best = v;
            *out = i;
        }
    }
    return 0;
}

npy_bool nonzero(void* data, void*) {
    uint16_t parts[2];
    std::memcpy(parts, data, 4);
    return ((parts[0] | parts[1]) & 0x7FFFu) != 0;
}

// np.arange-style fill: continues the step of the first two elements.
int fill(void* buffer, npy_intp length, void* arr) {
    if (length < 2) return 0;
    const int kind = complex_kind_of_descr(PyArray_DESCR(static_cast<PyArrayObject*>(arr)));
    char* items = static_cast<char*>(buffer);
    double r0, i0, r1, i1;
    uint16_t p[2];
    std::memcpy(p, items, 4);
    decode_complex_value(kind, p, &r0, &i0);
    std::memcpy(p, items + 4, 4);
    decode_complex_value(kind, p, &r1, &i1);
    for (npy_intp i = 2; i < length; i++) {
        encode_complex_value(kind, r0 + i * (r1 - r0), i0 + i * (i1 - i0), p);
        std::memcpy(items + 4 * i, p, 4);
    }
    return 0;
}

int fill_with_scalar(void* buffer, npy_intp length, void* value, void*) {
    char* items = static_cast<char*>(buffer);
    for (npy_intp i = 0; i < length; i++) std::memcpy(items + 4 * i, value, 4);
    return 0;
}

// np.dot's inner product, accumulated in complex64 and rounded once (as
// NumPy's float16 dot accumulates in float32). The kind is a template
// parameter: NumPy >= 2.5 calls this slot without an array.
template <int Kind>
void dot(void* a, npy_intp stride_a, void* b, npy_intp stride_b, void* out, npy_intp n, void*) {
    const PartCodec& codec = complex_runtime(Kind).codec;
    const char* pa = static_cast<const char*>(a);
    const char* pb = static_cast<const char*>(b);
    float re = 0.0f, im = 0.0f;
    for (npy_intp i = 0; i < n; i++, pa += stride_a, pb += stride_b) {
        const Parts x = decode_item(codec, pa), y = decode_item(codec, pb);
        re += x.re * y.re - x.im * y.im;
        im += x.re * y.im + x.im * y.re;
    }
    const float values[2] = {re, im};
    uint16_t parts[2];
    encode_parts_f32(codec, values, parts, 2);
    std::memcpy(out, parts, 4);
}

template <int Kind>
void append_array_functions(std::vector<PyType_Slot>& slots) {
    slots.push_back({NPY_DT_PyArray_ArrFuncs_compare, reinterpret_cast<void*>(compare<Kind>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_sort, reinterpret_cast<void*>(sort<Kind>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_argsort, reinterpret_cast<void*>(argsort<Kind>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_argmax, reinterpret_cast<void*>(arg_extreme<Kind, true>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_argmin, reinterpret_cast<void*>(arg_extreme<Kind, false>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_nonzero, reinterpret_cast<void*>(nonzero)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_fill, reinterpret_cast<void*>(fill)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_fillwithscalar, reinterpret_cast<void*>(fill_with_scalar)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_dotfunc, reinterpret_cast<void*>(dot<Kind>)});
}

// copyswap: each part swapped on its own (ndarray.byteswap, np.place).
void swap_parts(char* p) {
    std::swap(p[0], p[1]);
    std::swap(p[2], p[3]);
}
void copyswap(void* dest, void* src, int swap, void*) {
    if (src != nullptr) std::memmove(dest, src, 4);
    if (swap) swap_parts(static_cast<char*>(dest));
}
void copyswapn(void* dest, npy_intp dest_stride, void* src, npy_intp src_stride, npy_intp n, int swap, void*) {
    char* d = static_cast<char*>(dest);
    const char* s = static_cast<const char*>(src);
    for (npy_intp i = 0; i < n; i++, d += dest_stride) {
        if (s != nullptr) {
            std::memmove(d, s, 4);
            s += src_stride;
        }
        if (swap) swap_parts(d);
    }
}

// ---- the DType class as a Python type -----------------------------------------

PyObject* dtype_new(PyTypeObject* cls, PyObject* args, PyObject* kwds) {
    if (PyTuple_GET_SIZE(args) != 0 || (kwds != nullptr && PyDict_Size(kwds) != 0)) {
        PyErr_Format(PyExc_TypeError, "%s() takes no arguments", cls->tp_name);
        return nullptr;
    }
    if (complex_kind_of_dtype_class(reinterpret_cast<PyArray_DTypeMeta*>(cls)) < 0) {
        PyErr_SetString(PyExc_TypeError, "minifloat.ComplexDType is abstract");
        return nullptr;
    }
    return reinterpret_cast<PyObject*>(singleton_of(reinterpret_cast<PyArray_DTypeMeta*>(cls)));
}

const ComplexTypeRuntime& runtime_of_self(PyObject* self) {
    return complex_runtime(complex_kind_of_descr(reinterpret_cast<PyArray_Descr*>(self)));
}
PyObject* dtype_repr(PyObject* self) { return PyUnicode_FromString(runtime_of_self(self).name); }
PyObject* dtype_name(PyObject* self, void*) { return dtype_repr(self); }
PyObject* dtype_typestr(PyObject* self, void*) {
    // np.dtype("minifloat.complex32") is registered by the package: a dtype
    // rebuilt from .str (structured dtypes, np.save headers) is this one
    return PyUnicode_FromFormat("minifloat.%s", runtime_of_self(self).name);
}

PyObject* dtype_reduce(PyObject* self, PyObject*) {
    PyObject* numpy = PyImport_ImportModule("numpy");
    if (numpy == nullptr) return nullptr;
    PyObject* dtype_type = PyObject_GetAttrString(numpy, "dtype");
    Py_DECREF(numpy);
    if (dtype_type == nullptr) return nullptr;
    return Py_BuildValue("(N(O))", dtype_type, &complex_runtime(complex_kind_of_descr(
                                                    reinterpret_cast<PyArray_Descr*>(self))).scalar_type);
}

// Native byte order only (as the float formats' bfloat16): swap the parts'
// bytes with arr.byteswap().
PyObject* dtype_newbyteorder(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    if (nargs > 1) {
        PyErr_SetString(PyExc_TypeError, "newbyteorder() takes at most 1 argument");
        return nullptr;
    }
    char order = 'S';
    if (nargs == 1) {
        const char* text = PyUnicode_Check(args[0]) ? PyUnicode_AsUTF8(args[0]) : nullptr;
        if (text == nullptr || text[0] == '\0') {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "newbyteorder: expected one of 'S', '<', '>', '=', '|'");
            return nullptr;
        }
        order = text[0];
    }
    const bool little = PY_LITTLE_ENDIAN != 0;
    const bool native = order == '=' || order == '|' || order == 'N' || order == 'n' || order == 'I' ||
                        order == 'i' || ((order == '<' || order == 'L' || order == 'l') && little) ||
                        ((order == '>' || order == 'B' || order == 'b') && !little);
    if (!native) {
        PyErr_Format(PyExc_TypeError,
                     "%s exists in native byte order only; to swap the bytes of the parts use arr.byteswap()",
                     runtime_of_self(self).name);
        return nullptr;
    }
    Py_INCREF(self);
    return self;
}

PyMethodDef g_dtype_methods[] = {
    {"__reduce__", dtype_reduce, METH_NOARGS, nullptr},
    {"newbyteorder", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(dtype_newbyteorder)), METH_FASTCALL,
     "This dtype for the native byte order; others raise."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef g_dtype_getset[] = {
    {"name", dtype_name, nullptr, "The type's name.", nullptr},
    {"str", dtype_typestr, nullptr, "\"minifloat.<type>\": np.dtype() of it is this dtype.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyArray_Descr* abstract_ensure_canonical(PyArray_Descr* d) {
    Py_INCREF(d);
    return d;
}
int abstract_setitem(PyArray_Descr*, PyObject*, char*) {
    PyErr_SetString(PyExc_TypeError, "minifloat.ComplexDType is abstract");
    return -1;
}
PyObject* abstract_getitem(PyArray_Descr*, char*) {
    PyErr_SetString(PyExc_TypeError, "minifloat.ComplexDType is abstract");
    return nullptr;
}
int abstract_copy(PyArrayMethod_Context*, char* const*, const npy_intp*, const npy_intp*, NpyAuxData*) {
    PyErr_SetString(PyExc_TypeError, "minifloat.ComplexDType is abstract");
    return -1;
}
PyObject* abstract_repr(PyObject*) { return PyUnicode_FromString("ComplexDType"); }

int init_abstract() {
    PyTypeObject* t = reinterpret_cast<PyTypeObject*>(&g_complex_abstract_dtype);
    Py_SET_TYPE(t, &PyArrayDTypeMeta_Type);
    Py_SET_REFCNT(t, 1);
    t->tp_name = "minifloat.ComplexDType";
    t->tp_doc = "Abstract parent of minifloat's complex DType classes.";
    t->tp_basicsize = sizeof(ComplexDescr);
    t->tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
    t->tp_base = &PyArrayDescr_Type;
    t->tp_new = dtype_new;
    t->tp_repr = abstract_repr;
    t->tp_str = abstract_repr;
    if (PyType_Ready(t) < 0) return -1;
    PyType_Slot slots[] = {
        {NPY_DT_ensure_canonical, reinterpret_cast<void*>(abstract_ensure_canonical)},
        {NPY_DT_setitem, reinterpret_cast<void*>(abstract_setitem)},
        {NPY_DT_getitem, reinterpret_cast<void*>(abstract_getitem)},
        {0, nullptr},
    };
    PyArrayMethod_Spec* casts[] = {
        make_method_spec("abstract_complex_copy", 1, 1, NPY_NO_CASTING, NPY_METH_SUPPORTS_UNALIGNED,
                         {nullptr, nullptr},
                         {{NPY_METH_strided_loop, reinterpret_cast<void*>(abstract_copy)},
                          {NPY_METH_unaligned_strided_loop, reinterpret_cast<void*>(abstract_copy)}}),
        nullptr};
    PyArrayDTypeMeta_Spec spec{};
    spec.typeobj = &g_complex_abstract_scalar;
    spec.flags = NPY_DT_ABSTRACT | NPY_DT_NUMERIC;
    spec.casts = casts;
    spec.slots = slots;
    return PyArrayInitDTypeMeta_FromSpec(&g_complex_abstract_dtype, &spec);
}

template <int Kind>
int init_concrete() {
    ComplexTypeRuntime& rt = complex_runtime(Kind);
    PyTypeObject* t = reinterpret_cast<PyTypeObject*>(&rt.dtype_class);
    Py_SET_TYPE(t, &PyArrayDTypeMeta_Type);
    Py_SET_REFCNT(t, 1);
    t->tp_name = rt.dtype_qualname.c_str();
    t->tp_doc = "NumPy DType class of a minifloat complex type.";
    t->tp_basicsize = sizeof(ComplexDescr);
    t->tp_flags = Py_TPFLAGS_DEFAULT;
    t->tp_base = reinterpret_cast<PyTypeObject*>(&g_complex_abstract_dtype);
    t->tp_new = dtype_new;
    t->tp_repr = dtype_repr;
    t->tp_str = dtype_repr;
    t->tp_methods = g_dtype_methods;
    t->tp_getset = g_dtype_getset;
    if (PyType_Ready(t) < 0) return -1;

    std::vector<PyArrayMethod_Spec*> casts;
    append_complex_cast_specs(Kind, casts);
    casts.push_back(nullptr);

    std::vector<PyType_Slot> slots = {
        {NPY_DT_discover_descr_from_pyobject, reinterpret_cast<void*>(discover_descr)},
        {NPY_DT_default_descr, reinterpret_cast<void*>(default_descr)},
        {NPY_DT_common_dtype, reinterpret_cast<void*>(common_dtype)},
        {NPY_DT_ensure_canonical, reinterpret_cast<void*>(ensure_canonical)},
        {NPY_DT_setitem, reinterpret_cast<void*>(setitem)},
        {NPY_DT_getitem, reinterpret_cast<void*>(getitem)},
        {NPY_DT_get_constant, reinterpret_cast<void*>(get_constant)},
    };
    append_array_functions<Kind>(slots);
    slots.push_back({0, nullptr});

    PyArrayDTypeMeta_Spec spec{};
    spec.typeobj = &rt.scalar_type;
    spec.flags = NPY_DT_NUMERIC;
    spec.casts = casts.data();
    spec.slots = slots.data();
    if (PyArrayInitDTypeMeta_FromSpec(&rt.dtype_class, &spec) < 0) return -1;

    PyArray_Descr* descr = reinterpret_cast<PyArray_Descr*>(PyArrayDescr_Type.tp_new(t, nullptr, nullptr));
    if (descr == nullptr) return -1;
    descr->elsize = 4;
    descr->alignment = 2;
    descr->kind = 'c';
    descr->type = rt.type_char;
    descr->byteorder = '=';
    reinterpret_cast<ComplexDescr*>(descr)->complex_kind = Kind;
    rt.descr = descr;
    PyArray_ArrFuncs* functions = PyDataType_GetArrFuncs(descr);
    if (functions == nullptr) {
        PyErr_SetString(PyExc_RuntimeError, "minifloat: NumPy gave no array functions table");
        return -1;
    }
    // NumPy 2.4's DType API has no slot for these and leaves them NULL, yet
    // ndarray.byteswap and np.place call them (see legacy_copyswap.h)
    functions->copyswap = copyswap;
    functions->copyswapn = copyswapn;
    // mf.complex32.dtype is the dtype, as for the float formats
    if (PyDict_SetItemString(rt.scalar_type.tp_dict, "dtype", reinterpret_cast<PyObject*>(descr)) < 0) return -1;
    PyType_Modified(&rt.scalar_type);
    return 0;
}

}  // namespace

int init_complex_dtype_classes() {
    if (init_abstract() < 0) return -1;
    if (init_concrete<kComplex32>() < 0 || init_concrete<kBComplex32>() < 0) return -1;
    return 0;
}

}  // namespace minifloat
