// DType classes of the sub-byte integers: the abstract minifloat.IntegerDType
// (promoters are keyed on it) and one concrete class per type, kind 'i'/'u',
// with promotion by exact range and the legacy array functions NumPy's
// sort, argmax, nonzero, fill and dot paths call.
#include <type_traits>
#include <algorithm>
#include <cstring>
#include <vector>

#include "cast_specs.h"
#include "int_types.h"
#include "legacy_copyswap.h"

namespace minifloat {

PyArray_DTypeMeta g_int_abstract_dtype{};

namespace {

PyArray_Descr* singleton_of(PyArray_DTypeMeta* cls) {
    PyArray_Descr* d = int_runtime(int_index_of_dtype_class(cls)).descr;
    Py_INCREF(d);
    return d;
}
PyArray_Descr* default_descr(PyArray_DTypeMeta* cls) { return singleton_of(cls); }
PyArray_Descr* discover_descr(PyArray_DTypeMeta* cls, PyObject*) { return singleton_of(cls); }
PyArray_Descr* ensure_canonical(PyArray_Descr* d) {
    return singleton_of(reinterpret_cast<PyArray_DTypeMeta*>(Py_TYPE(d)));
}

// ---- promotion by exact range ------------------------------------------

struct Range {
    long long min;
    unsigned long long max;
};

// The value range of a bool/integer DType (ours or NumPy's); false otherwise.
bool integer_range_of(PyArray_DTypeMeta* cls, Range* r) {
    const int own = int_index_of_dtype_class(cls);
    if (own >= 0) {
        *r = {int_runtime(own).min, static_cast<unsigned long long>(int_runtime(own).max)};
        return true;
    }
    if (cls == &PyArray_PyLongDType) return false;
    const int num = cls->type_num;
    if (num == NPY_BOOL) {
        *r = {0, 1};
        return true;
    }
    if (!PyTypeNum_ISINTEGER(num)) return false;
    PyArray_Descr* d = PyArray_DescrFromType(num);
    const int bits = static_cast<int>(d->elsize) * 8;
    Py_DECREF(d);
    if (PyTypeNum_ISUNSIGNED(num)) {
        *r = {0, bits == 64 ? ~0ull : (1ull << bits) - 1};
    } else {
        *r = {-(1ll << (bits - 1)), (1ull << (bits - 1)) - 1};
    }
    return true;
}

// The smallest integer DType holding both ranges (ours first, then NumPy's);
// new reference, or nullptr when none does (uint64 with a signed type).
PyArray_DTypeMeta* smallest_integer_holding(Range a, Range b) {
    const long long lo = std::min(a.min, b.min);
    const unsigned long long hi = std::max(a.max, b.max);
    for (int i = 0; i < kIntFormatCount; i++) {
        const IntTypeRuntime& rt = int_runtime(i);
        const bool fits = rt.min <= lo && static_cast<unsigned long long>(rt.max) >= hi;
        if (fits && rt.row->is_signed == (lo < 0)) {
            // the table lists widths in increasing order within each signedness
            PyArray_DTypeMeta* cls = &int_runtime(i).dtype_class;
            Py_INCREF(cls);
            return cls;
        }
    }
    const int signed_nums[] = {NPY_INT8, NPY_INT16, NPY_INT32, NPY_INT64};
    const int unsigned_nums[] = {NPY_UINT8, NPY_UINT16, NPY_UINT32, NPY_UINT64};
    for (int k = 0; k < 4; k++) {
        const int num = lo < 0 ? signed_nums[k] : unsigned_nums[k];
        PyArray_DTypeMeta* cls = dtype_class_of_type_num(num);
        Range r{};
        integer_range_of(cls, &r);
        if (r.min <= lo && r.max >= hi) return cls;
        Py_DECREF(cls);
    }
    return nullptr;
}

PyArray_DTypeMeta* common_dtype(PyArray_DTypeMeta* cls, PyArray_DTypeMeta* other) {
    const IntTypeRuntime& rt = int_runtime(int_index_of_dtype_class(cls));
    if (other == &PyArray_PyLongDType) {  // Python ints are weak (NEP 50)
        Py_INCREF(cls);
        return cls;
    }
    Range mine{rt.min, static_cast<unsigned long long>(rt.max)}, theirs{};
    if (integer_range_of(other, &theirs)) {
        PyArray_DTypeMeta* result = smallest_integer_holding(mine, theirs);
        if (result != nullptr) return result;
    }
    if (other == &g_int_abstract_dtype) {
        Py_INCREF(Py_NotImplemented);
        return reinterpret_cast<PyArray_DTypeMeta*>(Py_NotImplemented);
    }
    // Floats, complex, Python floats, the float formats and other libraries'
    // types: promote as NumPy's int8/uint8 of the same signedness does (every
    // value of ours is one of theirs), e.g. int4 + float16 -> float16.
    PyArray_DTypeMeta* stand_in = dtype_class_of_type_num(rt.row->is_signed ? NPY_INT8 : NPY_UINT8);
    PyArray_DTypeMeta* result = PyArray_CommonDType(stand_in, other);
    Py_DECREF(stand_in);
    if (result == nullptr) {
        PyErr_Clear();
        Py_INCREF(Py_NotImplemented);
        return reinterpret_cast<PyArray_DTypeMeta*>(Py_NotImplemented);
    }
    return result;
}

// ---- items -------------------------------------------------------------------

int setitem(PyArray_Descr* descr, PyObject* value, char* data) {
    int v = 0;
    if (int_value_from_object(int_runtime(int_index_of_descr(descr)), value, &v) < 0) return -1;
    *data = static_cast<char>(int_code_of(v));
    return 0;
}

PyObject* getitem(PyArray_Descr* descr, char* data) {
    const int index = int_index_of_descr(descr);
    return new_int_scalar(index, int_value_of(int_runtime(index), static_cast<uint8_t>(*data)));
}

// ---- legacy array functions (sort, argsort, argmax, argmin, nonzero, fill, dot) -------

template <class T>
int compare(const void* a, const void* b, void*) {
    const T x = *static_cast<const T*>(a), y = *static_cast<const T*>(b);
    return x < y ? -1 : (x > y ? 1 : 0);
}

// Stable counting sort: 256 possible bytes.
template <class T>
int sort(void* start, npy_intp n, void*) {
    T* v = static_cast<T*>(start);
    npy_intp counts[256] = {0};
    for (npy_intp i = 0; i < n; i++) counts[static_cast<uint8_t>(v[i])]++;
    npy_intp at = 0;
    for (int k = 0; k < 256; k++) {
        const T value = static_cast<T>(static_cast<uint8_t>(std::is_signed<T>::value ? (k + 128) & 255 : k));
        const npy_intp c = counts[static_cast<uint8_t>(value)];
        for (npy_intp j = 0; j < c; j++) v[at++] = value;
    }
    return 0;
}

template <class T>
int argsort(void* start, npy_intp* order, npy_intp n, void*) {
    const T* v = static_cast<const T*>(start);
    std::stable_sort(order, order + n, [v](npy_intp a, npy_intp b) { return v[a] < v[b]; });
    return 0;
}

template <class T>
int argmax(void* data, npy_intp n, npy_intp* out, void*) {
    const T* v = static_cast<const T*>(data);
    *out = n > 0 ? std::max_element(v, v + n) - v : 0;
    return 0;
}

template <class T>
int argmin(void* data, npy_intp n, npy_intp* out, void*) {
    const T* v = static_cast<const T*>(data);
    *out = n > 0 ? std::min_element(v, v + n) - v : 0;
    return 0;
}

npy_bool nonzero(void* data, void*) { return *static_cast<const char*>(data) != 0; }

// np.arange-style fill: continues the step of the first two elements.
template <class T>
int fill(void* buffer, npy_intp length, void* arr) {
    T* v = static_cast<T*>(buffer);
    if (length < 2) return 0;
    const IntTypeRuntime& rt =
        int_runtime(int_index_of_descr(PyArray_DESCR(static_cast<PyArrayObject*>(arr))));
    const long long start = v[0], delta = static_cast<long long>(v[1]) - v[0];
    for (npy_intp i = 2; i < length; i++) {
        v[i] = static_cast<T>(wrap_to_int_type(start + i * delta, rt.row->bits, rt.row->is_signed));
    }
    return 0;
}

int fill_with_scalar(void* buffer, npy_intp length, void* value, void*) {
    std::memset(buffer, *static_cast<const unsigned char*>(value), static_cast<size_t>(length));
    return 0;
}

// np.dot's inner product: wraps to the type's width, as int8's does. The
// width is a template parameter: NumPy >= 2.5 calls this slot for new-style
// DTypes without an array (its last argument is not one to read).
template <class T, int Bits>
void dot(void* a, npy_intp stride_a, void* b, npy_intp stride_b, void* out, npy_intp n, void*) {
    const char* pa = static_cast<const char*>(a);
    const char* pb = static_cast<const char*>(b);
    long long sum = 0;
    for (npy_intp i = 0; i < n; i++, pa += stride_a, pb += stride_b) {
        sum += static_cast<long long>(*reinterpret_cast<const T*>(pa)) * *reinterpret_cast<const T*>(pb);
    }
    *static_cast<T*>(out) = static_cast<T>(wrap_to_int_type(sum, Bits, std::is_signed<T>::value));
}

template <class T>
void* dot_of_width(int bits) {
    switch (bits) {
        case 1: return reinterpret_cast<void*>(dot<T, 1>);
        case 2: return reinterpret_cast<void*>(dot<T, 2>);
        case 4: return reinterpret_cast<void*>(dot<T, 4>);
        default: return nullptr;  // no such integer type (the table has 1, 2 and 4 bits)
    }
}

template <class T>
void append_array_functions(std::vector<PyType_Slot>& slots, int bits) {
    slots.push_back({NPY_DT_PyArray_ArrFuncs_compare, reinterpret_cast<void*>(compare<T>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_sort, reinterpret_cast<void*>(sort<T>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_argsort, reinterpret_cast<void*>(argsort<T>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_argmax, reinterpret_cast<void*>(argmax<T>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_argmin, reinterpret_cast<void*>(argmin<T>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_nonzero, reinterpret_cast<void*>(nonzero)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_fill, reinterpret_cast<void*>(fill<T>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_fillwithscalar, reinterpret_cast<void*>(fill_with_scalar)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_dotfunc, dot_of_width<T>(bits)});
}

// ---- the DType class as a Python type -----------------------------------------

PyObject* dtype_new(PyTypeObject* cls, PyObject* args, PyObject* kwds) {
    if (PyTuple_GET_SIZE(args) != 0 || (kwds != nullptr && PyDict_Size(kwds) != 0)) {
        PyErr_Format(PyExc_TypeError, "%s() takes no arguments", cls->tp_name);
        return nullptr;
    }
    if (int_index_of_dtype_class(reinterpret_cast<PyArray_DTypeMeta*>(cls)) < 0) {
        PyErr_SetString(PyExc_TypeError, "minifloat.IntegerDType is abstract");
        return nullptr;
    }
    return reinterpret_cast<PyObject*>(singleton_of(reinterpret_cast<PyArray_DTypeMeta*>(cls)));
}

PyObject* dtype_repr(PyObject* self) {
    return PyUnicode_FromString(int_runtime(int_index_of_descr(reinterpret_cast<PyArray_Descr*>(self))).row->name);
}
PyObject* dtype_name(PyObject* self, void*) { return dtype_repr(self); }
PyObject* dtype_typestr(PyObject* self, void*) {
    // np.dtype("minifloat.int4") is registered by the package: code that
    // rebuilds a dtype from .str gets this type back, never raw bytes.
    return PyUnicode_FromFormat("minifloat.%s",
                                int_runtime(int_index_of_descr(reinterpret_cast<PyArray_Descr*>(self))).row->name);
}

PyObject* dtype_reduce(PyObject* self, PyObject*) {
    PyObject* numpy = PyImport_ImportModule("numpy");
    if (numpy == nullptr) return nullptr;
    PyObject* dtype_type = PyObject_GetAttrString(numpy, "dtype");
    Py_DECREF(numpy);
    if (dtype_type == nullptr) return nullptr;
    PyObject* scalar_type = reinterpret_cast<PyObject*>(
        &int_runtime(int_index_of_descr(reinterpret_cast<PyArray_Descr*>(self))).scalar_type);
    return Py_BuildValue("(N(O))", dtype_type, scalar_type);
}

// One byte has no byte order ('|'): every order is this dtype, as for np.int8.
PyObject* dtype_newbyteorder(PyObject* self, PyObject* const*, Py_ssize_t nargs) {
    if (nargs > 1) {
        PyErr_SetString(PyExc_TypeError, "newbyteorder() takes at most 1 argument");
        return nullptr;
    }
    Py_INCREF(self);
    return self;
}

PyMethodDef g_dtype_methods[] = {
    {"__reduce__", dtype_reduce, METH_NOARGS, nullptr},
    {"newbyteorder", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(dtype_newbyteorder)),
     METH_FASTCALL, "This dtype (one byte has no byte order)."},
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
    PyErr_SetString(PyExc_TypeError, "minifloat.IntegerDType is abstract");
    return -1;
}
PyObject* abstract_getitem(PyArray_Descr*, char*) {
    PyErr_SetString(PyExc_TypeError, "minifloat.IntegerDType is abstract");
    return nullptr;
}

int abstract_copy(PyArrayMethod_Context*, char* const*, const npy_intp*, const npy_intp*, NpyAuxData*) {
    PyErr_SetString(PyExc_TypeError, "minifloat.IntegerDType is abstract");
    return -1;
}

PyObject* abstract_repr(PyObject*) { return PyUnicode_FromString("IntegerDType"); }

int init_abstract() {
    PyTypeObject* t = reinterpret_cast<PyTypeObject*>(&g_int_abstract_dtype);
    Py_SET_TYPE(t, &PyArrayDTypeMeta_Type);
    Py_SET_REFCNT(t, 1);
    t->tp_name = "minifloat.IntegerDType";
    t->tp_doc = "Abstract parent of minifloat's sub-byte integer DType classes.";
    t->tp_basicsize = sizeof(IntDescr);
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
        make_method_spec("abstract_int_copy", 1, 1, NPY_NO_CASTING, NPY_METH_SUPPORTS_UNALIGNED,
                         {nullptr, nullptr},
                         {{NPY_METH_strided_loop, reinterpret_cast<void*>(abstract_copy)},
                          {NPY_METH_unaligned_strided_loop, reinterpret_cast<void*>(abstract_copy)}}),
        nullptr};
    PyArrayDTypeMeta_Spec spec{};
    spec.typeobj = &g_int_abstract_signed_scalar;
    spec.flags = NPY_DT_ABSTRACT | NPY_DT_NUMERIC;
    spec.casts = casts;
    spec.slots = slots;
    return PyArrayInitDTypeMeta_FromSpec(&g_int_abstract_dtype, &spec);
}

int init_concrete(int index) {
    IntTypeRuntime& rt = int_runtime(index);
    PyTypeObject* t = reinterpret_cast<PyTypeObject*>(&rt.dtype_class);
    Py_SET_TYPE(t, &PyArrayDTypeMeta_Type);
    Py_SET_REFCNT(t, 1);
    t->tp_name = rt.dtype_name.c_str();
    t->tp_doc = "NumPy DType class of a sub-byte integer type.";
    t->tp_basicsize = sizeof(IntDescr);
    t->tp_flags = Py_TPFLAGS_DEFAULT;
    t->tp_base = reinterpret_cast<PyTypeObject*>(&g_int_abstract_dtype);
    t->tp_new = dtype_new;
    t->tp_repr = dtype_repr;
    t->tp_str = dtype_repr;
    t->tp_methods = g_dtype_methods;
    t->tp_getset = g_dtype_getset;
    if (PyType_Ready(t) < 0) return -1;

    std::vector<PyArrayMethod_Spec*> casts;
    append_int_cast_specs(index, casts);
    if (install_int_float_format_casts(index, casts) < 0) return -1;
    if (append_added_cast_specs(CastFamily::integers, index, casts) < 0) return -1;
    casts.push_back(nullptr);

    std::vector<PyType_Slot> slots = {
        {NPY_DT_discover_descr_from_pyobject, reinterpret_cast<void*>(discover_descr)},
        {NPY_DT_default_descr, reinterpret_cast<void*>(default_descr)},
        {NPY_DT_common_dtype, reinterpret_cast<void*>(common_dtype)},
        {NPY_DT_ensure_canonical, reinterpret_cast<void*>(ensure_canonical)},
        {NPY_DT_setitem, reinterpret_cast<void*>(setitem)},
        {NPY_DT_getitem, reinterpret_cast<void*>(getitem)},
    };
    if (rt.row->is_signed) {
        append_array_functions<int8_t>(slots, rt.row->bits);
    } else {
        append_array_functions<uint8_t>(slots, rt.row->bits);
    }
    slots.push_back({0, nullptr});

    PyArrayDTypeMeta_Spec spec{};
    spec.typeobj = &rt.scalar_type;
    spec.flags = NPY_DT_NUMERIC;
    spec.casts = casts.data();
    spec.slots = slots.data();
    if (PyArrayInitDTypeMeta_FromSpec(&rt.dtype_class, &spec) < 0) return -1;

    PyArray_Descr* descr = reinterpret_cast<PyArray_Descr*>(PyArrayDescr_Type.tp_new(t, nullptr, nullptr));
    if (descr == nullptr) return -1;
    descr->elsize = 1;
    descr->alignment = 1;
    descr->kind = rt.row->is_signed ? 'i' : 'u';
    descr->type = rt.row->type_char;
    descr->byteorder = '|';
    reinterpret_cast<IntDescr*>(descr)->int_index = index;
    rt.descr = descr;
    return install_copyswap(descr, 1);
}

}  // namespace

int init_int_dtype_classes() {
    if (init_abstract() < 0) return -1;
    for (int i = 0; i < kIntFormatCount; i++) {
        if (init_concrete(i) < 0) return -1;
    }
    return 0;
}

}  // namespace minifloat
