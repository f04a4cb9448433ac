// Scalar types of complex32 and bcomplex32: subclasses of np.complexfloating
// holding the two part codes. Arithmetic and comparisons are NumPy's generic
// scalar methods, which run the ufunc loops of complex_ufuncs.cpp; .real and
// .imag are scalars of the part type (np.float16, minifloat's bfloat16).
#include <cmath>
#include <cstring>

#include "cast_specs.h"
#include "complex_arith.h"
#include "complex_types.h"
#include "format_types.h"
#include "fp_status.h"
#include "half_float.h"
#include "op_eval.h"
#include "registry.h"
#include "scalar_type.h"

namespace minifloat {

extern PyTypeObject g_complex_abstract_scalar;

namespace {

ComplexTypeRuntime g_complex_runtimes[kComplexCount] = {
    {"complex32", "Complex32DType", "float16", '2'},
    {"bcomplex32", "BComplex32DType", "bfloat16", '3'},
};

ComplexScalar* as_complex_scalar(PyObject* o) { return reinterpret_cast<ComplexScalar*>(o); }
int kind_of(PyObject* o) { return complex_kind_of_scalar_type(Py_TYPE(o)); }

void value_of(PyObject* o, double* re, double* im) {
    decode_complex_value(kind_of(o), as_complex_scalar(o)->parts, re, im);
}

// float(x) and int(x) keep the real part with NumPy's ComplexWarning, as
// np.complex64's do.
PyObject* scalar_float(PyObject* self) {
    if (warn_complex_to_real() < 0) return nullptr;
    double re, im;
    value_of(self, &re, &im);
    return PyFloat_FromDouble(re);
}

PyObject* scalar_int(PyObject* self) {
    if (warn_complex_to_real() < 0) return nullptr;
    double re, im;
    value_of(self, &re, &im);
    return PyLong_FromDouble(re);  // ValueError for NaN, OverflowError for inf (as float's int())
}

int scalar_bool(PyObject* self) {
    const uint16_t* p = as_complex_scalar(self)->parts;
    return ((p[0] | p[1]) & 0x7FFFu) != 0;  // both parts +-0 is False
}

PyObject* scalar_complex(PyObject* self, PyObject*) {
    double re, im;
    value_of(self, &re, &im);
    return PyComplex_FromDoubles(re, im);
}

PyObject* part_scalar(PyObject* self, int which) {
    const int kind = kind_of(self);
    const uint16_t code = as_complex_scalar(self)->parts[which];
    if (kind == kComplex32) {
        return PyArray_Scalar(const_cast<uint16_t*>(&code), complex_runtime(kind).part_descr, nullptr);
    }
    return new_scalar(bfloat16_format_index(), code);
}
PyObject* scalar_real(PyObject* self, void*) { return part_scalar(self, 0); }
PyObject* scalar_imag(PyObject* self, void*) { return part_scalar(self, 1); }

PyObject* scalar_str(PyObject* self) { return complex_str(kind_of(self), as_complex_scalar(self)->parts); }

Py_hash_t scalar_hash(PyObject* self) {
    double re, im;
    value_of(self, &re, &im);
    if (std::isnan(re) || std::isnan(im)) {
#if PY_VERSION_HEX >= 0x030D0000
        return Py_HashPointer(self);
#else
        return _Py_HashPointer(self);
#endif
    }
    PyObject* c = PyComplex_FromDoubles(re, im);  // equal values hash alike (hash(x) == hash(complex(x)))
    if (c == nullptr) return -1;
    const Py_hash_t h = PyObject_Hash(c);
    Py_DECREF(c);
    return h;
}

// Comparisons as NumPy's complex scalars make them: through a 0-d array of
// this type and the ufunc loops (Python numbers weak, others promoted).
PyObject* scalar_richcompare(PyObject* self, PyObject* other, int op) {
    PyArray_Descr* descr = complex_runtime(kind_of(self)).descr;
    Py_INCREF(descr);
    PyObject* array = PyArray_FromAny(self, descr, 0, 0, 0, nullptr);
    if (array == nullptr) return nullptr;
    PyObject* result = PyObject_RichCompare(array, other, op);
    Py_DECREF(array);
    if (result != nullptr && PyArray_Check(result) && PyArray_NDIM(reinterpret_cast<PyArrayObject*>(result)) == 0) {
        return PyArray_Return(reinterpret_cast<PyArrayObject*>(result));
    }
    return result;
}

PyObject* scalar_new(PyTypeObject* type, PyObject* args, PyObject* kwds) {
    const int kind = complex_kind_of_scalar_type(type);
    if (kind < 0) {
        PyErr_SetString(PyExc_TypeError, "cannot create instances of this minifloat complex type");
        return nullptr;
    }
    const ComplexTypeRuntime& rt = complex_runtime(kind);
    if (kwds != nullptr && PyDict_Size(kwds) != 0) {
        PyErr_Format(PyExc_TypeError, "%s() takes no keyword arguments", rt.name);
        return nullptr;
    }
    const Py_ssize_t nargs = PyTuple_GET_SIZE(args);
    if (nargs > 1) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most 1 argument (%zd given); for real and imaginary "
                     "parts write %s(re + im * 1j) or %s(complex(re, im))", rt.name, nargs, rt.name, rt.name);
        return nullptr;
    }
    const uint16_t zero[2] = {0, 0};
    if (nargs == 0) return new_complex_scalar(kind, zero);
    PyObject* value = PyTuple_GET_ITEM(args, 0);
    if (PyList_Check(value) || PyTuple_Check(value) ||
        (PyArray_Check(value) && PyArray_NDIM(reinterpret_cast<PyArrayObject*>(value)) > 0)) {
        Py_INCREF(rt.descr);  // like np.complex64([1, 2]): an array of this type
        return PyArray_FromAny(value, rt.descr, 0, 0, NPY_ARRAY_FORCECAST, nullptr);
    }
    double re = 0, im = 0;
    if (complex_from_object(kind, value, &re, &im) < 0) return nullptr;
    uint16_t parts[2];
    const uint32_t flags = encode_complex_value(kind, re, im, parts);
    if (report_scalar_fp_flags("cast", flags) < 0) return nullptr;
    return new_complex_scalar(kind, parts);
}

PyObject* method_reduce(PyObject* self, PyObject*) {
    static PyObject* rebuild = nullptr;
    if (rebuild == nullptr) {
        PyObject* core = PyImport_ImportModule("minifloat._core");
        if (core == nullptr) return nullptr;
        rebuild = PyObject_GetAttrString(core, "_complex_from_codes");
        Py_DECREF(core);
        if (rebuild == nullptr) return nullptr;
    }
    const uint16_t* p = as_complex_scalar(self)->parts;
    return Py_BuildValue("O(sII)", rebuild, complex_runtime(kind_of(self)).name, static_cast<unsigned>(p[0]),
                         static_cast<unsigned>(p[1]));
}

PyMethodDef g_scalar_methods[] = {
    {"__complex__", scalar_complex, METH_NOARGS, "The value as a Python complex (exact)."},
    {"__reduce__", method_reduce, METH_NOARGS, nullptr},
    {"item", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(scalar_complex)), METH_NOARGS,
     "The value as a Python complex."},
    {"tolist", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(scalar_complex)), METH_NOARGS,
     "The value as a Python complex."},
    {nullptr, nullptr, 0, nullptr},
};

PyGetSetDef g_scalar_getset[] = {
    {"real", scalar_real, nullptr, "The real part (np.float16 for complex32, minifloat.bfloat16 for bcomplex32).",
     nullptr},
    {"imag", scalar_imag, nullptr, "The imaginary part (np.float16 / minifloat.bfloat16).", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

// + - * of two scalars of one type: the ufunc loop's own kernel
// (complex_arith_parts) on one element, its flags and the hardware's
// reported under the ufunc's name as the ufunc would (1.6 us of
// complex32 a * b through 0-d arrays and the ufunc). Any other operands:
// NumPy's generic scalar slot, which runs the ufunc.
constexpr const char* ufunc_name(ComplexArith op) {
    switch (op) {
        case ComplexArith::add: return "add";
        case ComplexArith::subtract: return "subtract";
        case ComplexArith::multiply: return "multiply";
    }
    return "";
}

template <ComplexArith A>
PyObject* scalar_arith(PyObject* a, PyObject* b) {
    const int kind = complex_kind_of_scalar_type(Py_TYPE(a));
    if (kind < 0 || complex_kind_of_scalar_type(Py_TYPE(b)) != kind) {
        const PyNumberMethods* generic = g_complex_abstract_scalar.tp_as_number;
        switch (A) {
            case ComplexArith::add: return generic->nb_add(a, b);
            case ComplexArith::subtract: return generic->nb_subtract(a, b);
            case ComplexArith::multiply: return generic->nb_multiply(a, b);
        }
        Py_RETURN_NOTIMPLEMENTED;
    }
    uint16_t parts[2];
    uint32_t flags;
    {
        FpFlagScope scope;
        flags = complex_arith_parts(complex_runtime(kind).codec, A, as_complex_scalar(a)->parts,
                                    as_complex_scalar(b)->parts, parts, 1);
        flags |= hardware_fp_flags();
    }
    if (report_scalar_fp_flags(ufunc_name(A), flags) < 0) return nullptr;  // (the ufunc's words: "in multiply")
    return new_complex_scalar(kind, parts);
}

PyNumberMethods g_number_methods = [] {
    PyNumberMethods m{};
    m.nb_add = scalar_arith<ComplexArith::add>;
    m.nb_subtract = scalar_arith<ComplexArith::subtract>;
    m.nb_multiply = scalar_arith<ComplexArith::multiply>;
    m.nb_bool = scalar_bool;
    m.nb_int = scalar_int;
    m.nb_float = scalar_float;
    return m;
}();

}  // namespace

ComplexTypeRuntime& complex_runtime(int kind) { return g_complex_runtimes[kind]; }

int complex_kind_of_scalar_type(const PyTypeObject* type) {
    for (int k = 0; k < kComplexCount; k++) {
        if (type == &g_complex_runtimes[k].scalar_type) return k;
    }
    return -1;
}

int complex_kind_of_dtype_class(const PyArray_DTypeMeta* cls) {
    for (int k = 0; k < kComplexCount; k++) {
        if (cls == &g_complex_runtimes[k].dtype_class) return k;
    }
    return -1;
}

int bfloat16_format_index() {
    static const int index = format_index_of_name("bfloat16");
    return index;
}

uint32_t encode_complex_value(int kind, double re, double im, uint16_t parts[2]) {
    const double values[2] = {re, im};
    return encode_parts_f64(complex_runtime(kind).codec, values, parts, 2);
}

void decode_complex_value(int kind, const uint16_t parts[2], double* re, double* im) {
    double values[2];
    decode_parts_f64(complex_runtime(kind).codec, parts, values, 2);
    *re = values[0];
    *im = values[1];
}

PyObject* new_complex_scalar(int kind, const uint16_t parts[2]) {
    PyTypeObject* type = &complex_runtime(kind).scalar_type;
    PyObject* obj = type->tp_alloc(type, 0);
    if (obj == nullptr) return nullptr;
    std::memcpy(as_complex_scalar(obj)->parts, parts, 4);
    return obj;
}

int complex_from_object(int kind, PyObject* obj, double* re, double* im) {
    const int own = complex_kind_of_scalar_type(Py_TYPE(obj));
    if (own >= 0) {
        decode_complex_value(own, as_complex_scalar(obj)->parts, re, im);
        return 0;
    }
    if (obj == Py_None) {
        PyErr_Format(PyExc_TypeError, "cannot convert None to %s (use np.nan + 0j for a missing value)",
                     complex_runtime(kind).name);
        return -1;
    }
    if (PyUnicode_Check(obj) || PyBytes_Check(obj)) {
        PyObject* text = PyBytes_Check(obj) ? PyUnicode_FromEncodedObject(obj, "ascii", "strict") : obj;
        if (text == nullptr) return -1;
        if (text == obj) Py_INCREF(text);
        PyObject* parsed = PyObject_CallOneArg(reinterpret_cast<PyObject*>(&PyComplex_Type), text);
        Py_DECREF(text);
        if (parsed == nullptr) return -1;
        *re = PyComplex_RealAsDouble(parsed);
        *im = PyComplex_ImagAsDouble(parsed);
        Py_DECREF(parsed);
        return 0;
    }
    // Integers: exact, or rounded to odd past 2^53 so the part rounds once.
    if (PyLong_Check(obj) || PyArray_IsScalar(obj, Integer) || PyArray_IsScalar(obj, Bool)) {
        PyObject* integer = PyNumber_Index(obj);
        if (integer == nullptr) {
            PyErr_Clear();  // np.bool_ has no __index__
            integer = PyLong_FromLong(PyObject_IsTrue(obj));
        }
        if (integer == nullptr) return -1;
        int overflow = 0;
        const long long v = PyLong_AsLongLongAndOverflow(integer, &overflow);
        if (overflow > 0) {
            const unsigned long long u = PyLong_AsUnsignedLongLong(integer);
            if (!PyErr_Occurred()) {
                Py_DECREF(integer);
                *re = uint64_for_parts(u);
                *im = 0;
                return 0;
            }
            PyErr_Clear();
        }
        if (overflow != 0) {
            *re = PyLong_AsDouble(integer);  // OverflowError past binary64, as float(int) raises
            Py_DECREF(integer);
            *im = 0;
            return *re == -1.0 && PyErr_Occurred() ? -1 : 0;
        }
        Py_DECREF(integer);
        if (v == -1 && PyErr_Occurred()) return -1;
        *re = int64_for_parts(v);
        *im = 0;
        return 0;
    }
    if (PyArray_IsScalar(obj, LongDouble)) {
        *re = long_double_for_parts(PyArrayScalar_VAL(obj, LongDouble));
        *im = 0;
        return 0;
    }
    if (PyArray_IsScalar(obj, CLongDouble)) {
        const npy_clongdouble v = PyArrayScalar_VAL(obj, CLongDouble);
        *re = long_double_for_parts(npy_creall(v));
        *im = long_double_for_parts(npy_cimagl(v));
        return 0;
    }
    const Py_complex c = PyComplex_AsCComplex(obj);
    if (c.real == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s(): expected a number or a string of one, not %.200s",
                     complex_runtime(kind).name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    *re = c.real;
    *im = c.imag;
    return 0;
}

PyObject* complex_str(int kind, const uint16_t parts[2]) {
    PyObject* texts[2] = {nullptr, nullptr};
    for (int i = 0; i < 2; i++) {
        PyObject* part = nullptr;
        if (kind == kComplex32) {
            uint16_t code = parts[i];
            part = PyArray_Scalar(&code, complex_runtime(kind).part_descr, nullptr);
        } else {
            part = new_scalar(bfloat16_format_index(), parts[i]);
        }
        if (part == nullptr) return nullptr;
        PyObject* text = PyObject_Str(part);
        Py_DECREF(part);
        if (text == nullptr) {
            Py_XDECREF(texts[0]);
            return nullptr;
        }
        // Python's complex style: "1" not "1.0" (NumPy prints complex64 so)
        Py_ssize_t length = 0;
        const char* utf8 = PyUnicode_AsUTF8AndSize(text, &length);
        if (utf8 != nullptr && length > 2 && std::strcmp(utf8 + length - 2, ".0") == 0) {
            PyObject* cut = PyUnicode_Substring(text, 0, length - 2);
            Py_DECREF(text);
            text = cut;
        }
        if (text == nullptr) {
            Py_XDECREF(texts[0]);
            return nullptr;
        }
        texts[i] = text;
    }
    const uint16_t magnitude = parts[1] & 0x7FFFu;
    const bool imag_is_nan = magnitude > (kind == kComplex32 ? 0x7C00u : 0x7F80u);
    const bool imag_negative = (parts[1] & 0x8000u) != 0 && !imag_is_nan;  // NumPy prints "+nanj"
    const bool real_is_plus_zero = parts[0] == 0;
    PyObject* result;
    if (real_is_plus_zero) {
        result = PyUnicode_FromFormat("%Uj", texts[1]);
    } else if (imag_negative) {
        result = PyUnicode_FromFormat("(%U%Uj)", texts[0], texts[1]);
    } else {
        result = PyUnicode_FromFormat("(%U+%Uj)", texts[0], texts[1]);
    }
    Py_DECREF(texts[0]);
    Py_DECREF(texts[1]);
    return result;
}

int init_complex_scalar_types() {
    PyTypeObject& abstract = g_complex_abstract_scalar;
    abstract.tp_name = "minifloat.complexfloating";
    abstract.tp_doc = "Abstract base of minifloat's complex scalar types (complex32, bcomplex32).";
    abstract.tp_basicsize = sizeof(PyObject);
    abstract.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
    abstract.tp_base = &PyComplexFloatingArrType_Type;
    if (PyType_Ready(&abstract) < 0) return -1;
    for (int k = 0; k < kComplexCount; k++) {
        ComplexTypeRuntime& rt = g_complex_runtimes[k];
        rt.scalar_qualname = std::string("minifloat.") + rt.name;
        rt.dtype_qualname = std::string("minifloat.") + rt.dtype_name;
        if (k == kComplex32) {
            rt.codec = {PartFormat::float16, &half_float_codec().plan};
            rt.part_descr = PyArray_DescrFromType(NPY_HALF);
        } else {
            rt.codec = {PartFormat::bfloat16, &runtime(bfloat16_format_index()).default_plan};
            rt.part_descr = &format_types(bfloat16_format_index()).descr->base;
            Py_INCREF(rt.part_descr);
        }
        PyTypeObject& t = rt.scalar_type;
        Py_SET_REFCNT(&t, 1);
        t.tp_name = rt.scalar_qualname.c_str();
        t.tp_doc = k == kComplex32 ? "A complex number of two float16 parts (real first), as ml_dtypes' and "
                                     "torch's complex32."
                                   : "A complex number of two bfloat16 parts (real first), as ml_dtypes' "
                                     "bcomplex32.";
        // (slot by slot like the float formats' scalar type in scalar_type.cpp:
        // the same fields, each family's own functions and base)
        t.tp_basicsize = sizeof(ComplexScalar);
        t.tp_flags = Py_TPFLAGS_DEFAULT;
        t.tp_base = &g_complex_abstract_scalar;
        t.tp_new = scalar_new;
        t.tp_repr = scalar_str;
        t.tp_str = scalar_str;
        t.tp_hash = scalar_hash;
        t.tp_richcompare = scalar_richcompare;
        t.tp_methods = g_scalar_methods;
        t.tp_getset = g_scalar_getset;
        // the rest of the number protocol (+, *, ==, ...) is inherited from
        // np.generic (PyType_Ready fills the empty slots): it makes arrays of
        // the operands and calls the ufunc loops
        t.tp_as_number = &g_number_methods;
        if (PyType_Ready(&t) < 0) return -1;
    }
    return 0;
}

}  // namespace minifloat
