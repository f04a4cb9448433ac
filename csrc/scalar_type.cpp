#include "scalar_type.h"

#include <cmath>
#include <cstring>

#include "op_eval.h"
#include "registry.h"
#include "scalar_convert.h"

namespace minifloat {

PyTypeObject g_abstract_scalar_type{PyVarObject_HEAD_INIT(nullptr, 0)};
PyObject* g_scalar_from_code_function = nullptr;

namespace {

MinifloatScalar* as_scalar(PyObject* o) { return reinterpret_cast<MinifloatScalar*>(o); }
const FormatRuntime& runtime_of_scalar(PyObject* o) {
    return runtime(format_index_of_scalar(o));
}
double value_of(PyObject* o) {
    return runtime_of_scalar(o).decode_f64[as_scalar(o)->code];
}

PyObject* numpy_function(const char* name) {
    static PyObject* numpy = nullptr;
    if (numpy == nullptr) {
        numpy = PyImport_ImportModule("numpy");
        if (numpy == nullptr) return nullptr;
    }
    return PyObject_GetAttrString(numpy, name);
}

PyObject* call_numpy(const char* name, PyObject* a, PyObject* b) {
    PyObject* f = numpy_function(name);
    if (f == nullptr) return nullptr;
    PyObject* r = b ? PyObject_CallFunctionObjArgs(f, a, b, nullptr)
                    : PyObject_CallFunctionObjArgs(f, a, nullptr);
    Py_DECREF(f);
    return r;
}

// Python numbers that NumPy treats as "weak": they take the scalar's format.
bool is_weak_python_number(PyObject* o) {
    return PyFloat_CheckExact(o) || PyLong_CheckExact(o) || PyBool_Check(o);
}

// Operands that NumPy's ufunc machinery should handle (mixed formats,
// NumPy scalars, arrays, complex numbers, sequences).
bool defer_to_ufunc(PyObject* o) {
    return PyArray_Check(o) || PyArray_IsScalar(o, Generic) || PyComplex_Check(o) ||
           PyList_Check(o) || PyTuple_Check(o) || PyFloat_Check(o) || PyLong_Check(o);
}

// Codes of both operands in the common format, or -1 when the ufunc path
// (or NotImplemented) must decide.
int common_operands(PyObject* a, PyObject* b, uint32_t* code_a, uint32_t* code_b) {
    const int ia = format_index_of_scalar(a);
    const int ib = format_index_of_scalar(b);
    int index;
    if (ia >= 0 && ib >= 0) {
        if (ia != ib) return -1;
        index = ia;
    } else if (ia >= 0 && is_weak_python_number(b)) {
        index = ia;
    } else if (ib >= 0 && is_weak_python_number(a)) {
        index = ib;
    } else {
        return -1;
    }
    const FormatRuntime& rt = runtime(index);
    uint32_t flags = 0;
    if (!code_from_object(rt, rt.default_specials, a, code_a, &flags)) return -2;
    if (!code_from_object(rt, rt.default_specials, b, code_b, &flags)) return -2;
    if (report_scalar_fp_flags("cast", flags) < 0) return -2;
    return index;
}

PyObject* binary_number(PyObject* a, PyObject* b, BinaryOp op, const char* ufunc_name,
                        const char* operation) {
    uint32_t code_a = 0, code_b = 0;
    const int index = common_operands(a, b, &code_a, &code_b);
    if (index == -2) return nullptr;
    if (index < 0) {
        PyObject* other = format_index_of_scalar(a) >= 0 ? b : a;
        if (format_index_of_scalar(other) >= 0 || defer_to_ufunc(other)) {
            return call_numpy(ufunc_name, a, b);
        }
        Py_RETURN_NOTIMPLEMENTED;
    }
    const FormatRuntime& rt = runtime(index);
    Encoded e;
    {
        FpFlagScope scope;
        e = evaluate_binary(rt, scope, op, code_a, code_b);
    }
    if (report_scalar_fp_flags(operation, e.flags) < 0) return nullptr;
    return new_scalar(index, e.code);
}

PyObject* unary_number(PyObject* a, UnaryOp op, const char* operation) {
    const int index = format_index_of_scalar(a);
    const FormatRuntime& rt = runtime(index);
    Encoded e;
    {
        FpFlagScope scope;
        e = evaluate_unary(rt, scope, op, as_scalar(a)->code);
    }
    if (report_scalar_fp_flags(operation, e.flags) < 0) return nullptr;
    return new_scalar(index, e.code);
}

#define MINIFLOAT_BINARY_SLOT(slot, op, ufunc)                                         \
    PyObject* slot(PyObject* a, PyObject* b) {                                         \
        return binary_number(a, b, BinaryOp::op, ufunc, "scalar " ufunc);              \
    }
MINIFLOAT_BINARY_SLOT(scalar_add, add, "add")
MINIFLOAT_BINARY_SLOT(scalar_subtract, subtract, "subtract")
MINIFLOAT_BINARY_SLOT(scalar_multiply, multiply, "multiply")
MINIFLOAT_BINARY_SLOT(scalar_true_divide, divide, "divide")
MINIFLOAT_BINARY_SLOT(scalar_floor_divide, floor_divide, "floor_divide")
MINIFLOAT_BINARY_SLOT(scalar_remainder, remainder, "remainder")
#undef MINIFLOAT_BINARY_SLOT

PyObject* scalar_power(PyObject* a, PyObject* b, PyObject* modulo) {
    if (modulo != Py_None) {
        PyErr_SetString(PyExc_TypeError, "pow() 3rd argument not allowed for minifloat scalars");
        return nullptr;
    }
    return binary_number(a, b, BinaryOp::power, "power", "scalar power");
}

PyObject* scalar_divmod(PyObject* a, PyObject* b) {
    PyObject* q = scalar_floor_divide(a, b);
    if (q == nullptr || q == Py_NotImplemented) return q;
    PyObject* r = scalar_remainder(a, b);
    if (r == nullptr) {
        Py_DECREF(q);
        return nullptr;
    }
    return Py_BuildValue("(NN)", q, r);
}

PyObject* scalar_negative(PyObject* a) { return unary_number(a, UnaryOp::negative, "scalar negative"); }
PyObject* scalar_positive(PyObject* a) { return unary_number(a, UnaryOp::positive, "scalar positive"); }
PyObject* scalar_absolute(PyObject* a) { return unary_number(a, UnaryOp::absolute, "scalar absolute"); }

int scalar_bool(PyObject* a) { return value_of(a) != 0.0; }
PyObject* scalar_int(PyObject* a) { return PyLong_FromDouble(value_of(a)); }
PyObject* scalar_float(PyObject* a) { return PyFloat_FromDouble(value_of(a)); }

PyNumberMethods g_scalar_number_methods = [] {
    PyNumberMethods m{};
    m.nb_add = scalar_add;
    m.nb_subtract = scalar_subtract;
    m.nb_multiply = scalar_multiply;
    m.nb_remainder = scalar_remainder;
    m.nb_divmod = scalar_divmod;
    m.nb_power = scalar_power;
    m.nb_negative = scalar_negative;
    m.nb_positive = scalar_positive;
    m.nb_absolute = scalar_absolute;
    m.nb_bool = scalar_bool;
    m.nb_int = scalar_int;
    m.nb_float = scalar_float;
    m.nb_floor_divide = scalar_floor_divide;
    m.nb_true_divide = scalar_true_divide;
    return m;
}();

PyObject* scalar_repr(PyObject* self) {
    return shortest_repr(runtime_of_scalar(self), as_scalar(self)->code);
}

Py_hash_t scalar_hash(PyObject* self) {
    PyObject* f = PyFloat_FromDouble(value_of(self));
    if (f == nullptr) return -1;
    const Py_hash_t h = PyObject_Hash(f);
    Py_DECREF(f);
    return h;
}

PyObject* scalar_richcompare(PyObject* self, PyObject* other, int op) {
    // Every minifloat value is exactly a binary64 value, so comparing as
    // Python floats is exact against NumPy numbers and other formats. Python
    // ints and floats are weak (NEP 50), as for arrays: rounded into this
    // format first, except for float8_e8m0fnu (see ufuncs.cpp).
    PyObject* mine = PyFloat_FromDouble(value_of(self));
    if (mine == nullptr) return nullptr;
    const int index = format_index_of_scalar(self);
    PyObject* theirs;
    if (format_index_of_scalar(other) >= 0) {
        theirs = PyFloat_FromDouble(value_of(other));
    } else if ((PyFloat_CheckExact(other) || PyLong_CheckExact(other)) && runtime(index).format.is_signed) {
        const FormatRuntime& rt = runtime(index);
        uint32_t code = 0, flags = 0;
        if (!code_from_object(rt, rt.default_specials, other, &code, &flags) ||
            report_scalar_fp_flags("cast", flags) < 0) {
            Py_DECREF(mine);
            return nullptr;
        }
        theirs = PyFloat_FromDouble(rt.decode_f64[code]);
    } else {
        Py_INCREF(other);
        theirs = other;
    }
    PyObject* result = theirs ? PyObject_RichCompare(mine, theirs, op) : nullptr;
    Py_DECREF(mine);
    Py_XDECREF(theirs);
    return result;
}

PyObject* scalar_new(PyTypeObject* type, PyObject* args, PyObject* kwds) {
    const int index = format_index_of_scalar_type(type);
    if (index < 0) {
        PyErr_SetString(PyExc_TypeError, "cannot create instances of this minifloat type");
        return nullptr;
    }
    if (kwds != nullptr && PyDict_Size(kwds) != 0) {
        PyErr_Format(PyExc_TypeError, "%s() takes no keyword arguments", runtime(index).name.c_str());
        return nullptr;
    }
    const Py_ssize_t nargs = PyTuple_GET_SIZE(args);
    if (nargs > 1) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most 1 argument (%zd given)",
                     runtime(index).name.c_str(), nargs);
        return nullptr;
    }
    if (nargs == 0) return new_scalar(index, 0);
    PyObject* value = PyTuple_GET_ITEM(args, 0);
    const FormatRuntime& rt = runtime(index);
    if (PyList_Check(value) || PyTuple_Check(value) ||
        (PyArray_Check(value) && PyArray_NDIM(reinterpret_cast<PyArrayObject*>(value)) > 0)) {
        // Like np.float32([1, 2]): an array of this format.
        Py_INCREF(rt.descr);
        return PyArray_FromAny(value, &rt.descr->base, 0, 0, NPY_ARRAY_FORCECAST, nullptr);
    }
    uint32_t code = 0, flags = 0;
    if (!code_from_object(rt, rt.default_specials, value, &code, &flags)) return nullptr;
    if (report_scalar_fp_flags("cast", flags) < 0) return nullptr;
    return new_scalar(index, code);
}

PyObject* method_reduce(PyObject* self, PyObject*) {
    const int index = format_index_of_scalar(self);
    const unsigned code = as_scalar(self)->code;
    if (index < kBuiltinFormatCount) {
        return Py_BuildValue("O(sI)", g_scalar_from_code_function, runtime(index).name.c_str(), code);
    }
    // a format made at run time: by its dtype, which pickles by its
    // parameters (a fresh interpreter makes the format again)
    return Py_BuildValue("O(OI)", g_scalar_from_code_function, &runtime(index).descr->base, code);
}

PyObject* method_item(PyObject* self, PyObject* args) {
    if (!PyArg_ParseTuple(args, "")) return nullptr;
    return scalar_float(self);
}

PyObject* call_float_method(PyObject* self, const char* name) {
    PyObject* f = scalar_float(self);
    if (f == nullptr) return nullptr;
    PyObject* r = PyObject_CallMethod(f, name, nullptr);
    Py_DECREF(f);
    return r;
}
PyObject* method_is_integer(PyObject* self, PyObject*) { return call_float_method(self, "is_integer"); }
PyObject* method_as_integer_ratio(PyObject* self, PyObject*) {
    return call_float_method(self, "as_integer_ratio");
}

PyObject* method_round(PyObject* self, PyObject* args) {
    PyObject* ndigits = Py_None;
    if (!PyArg_ParseTuple(args, "|O", &ndigits)) return nullptr;
    PyObject* f = scalar_float(self);
    if (f == nullptr) return nullptr;
    PyObject* rounded = ndigits == Py_None ? PyObject_CallMethod(f, "__round__", nullptr)
                                           : PyObject_CallMethod(f, "__round__", "O", ndigits);
    Py_DECREF(f);
    if (rounded == nullptr || ndigits == Py_None) return rounded;
    PyObject* result = PyObject_CallFunctionObjArgs(reinterpret_cast<PyObject*>(Py_TYPE(self)),
                                                    rounded, nullptr);
    Py_DECREF(rounded);
    return result;
}

PyObject* method_format(PyObject* self, PyObject* args) {
    PyObject* spec;
    if (!PyArg_ParseTuple(args, "U", &spec)) return nullptr;
    if (PyUnicode_GetLength(spec) == 0) return PyObject_Str(self);
    PyObject* f = scalar_float(self);
    if (f == nullptr) return nullptr;
    PyObject* r = PyObject_Format(f, spec);
    Py_DECREF(f);
    return r;
}

PyMethodDef g_scalar_methods[] = {
    {"__reduce__", method_reduce, METH_NOARGS, nullptr},
    {"item", method_item, METH_VARARGS, "The value as a Python float."},
    {"tolist", method_item, METH_VARARGS, "The value as a Python float."},
    {"is_integer", method_is_integer, METH_NOARGS, "True if the value is a whole number."},
    {"as_integer_ratio", method_as_integer_ratio, METH_NOARGS,
     "The exact value as a pair of integers."},
    {"__round__", method_round, METH_VARARGS, nullptr},
    {"__format__", method_format, METH_VARARGS, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

int report_scalar_fp_flags(const char* operation, uint32_t flags) {
    if (flags == 0) return 0;
    int npy_flags = 0;
    if (flags & kFlagDivideByZero) npy_flags |= NPY_FPE_DIVIDEBYZERO;
    if (flags & kFlagOverflow) npy_flags |= NPY_FPE_OVERFLOW;
    if (flags & kFlagUnderflow) npy_flags |= NPY_FPE_UNDERFLOW;
    if (flags & kFlagInvalid) npy_flags |= NPY_FPE_INVALID;
    return PyUFunc_GiveFloatingpointErrors(operation, npy_flags);
}

PyObject* new_scalar(int index, uint32_t code) {
    PyTypeObject* type = &runtime(index).scalar_type;
    PyObject* obj = type->tp_alloc(type, 0);
    if (obj == nullptr) return nullptr;
    as_scalar(obj)->code = static_cast<uint16_t>(code & runtime(index).format.code_mask);
    return obj;
}

PyObject* scalar_from_code(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
    unsigned long code;
    const bool by_descr = nargs == 2 && PyArray_DescrCheck(args[0]) &&
                          format_index_of_descr(reinterpret_cast<PyArray_Descr*>(args[0])) >= 0;
    if (nargs != 2 || !(PyUnicode_Check(args[0]) || by_descr) || !PyLong_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "_scalar_from_code(format name or dtype, code)");
        return nullptr;
    }
    code = PyLong_AsUnsignedLong(args[1]);
    if (code == static_cast<unsigned long>(-1) && PyErr_Occurred()) return nullptr;
    int index;
    if (by_descr) {
        index = format_index_of_descr(reinterpret_cast<PyArray_Descr*>(args[0]));
    } else {
        const char* name = PyUnicode_AsUTF8(args[0]);
        if (name == nullptr) return nullptr;
        index = format_index_of_name(name);
    }
    if (index < 0) {
        PyErr_Format(PyExc_ValueError, "unknown minifloat format %R", args[0]);
        return nullptr;
    }
    const char* name = runtime(index).name.c_str();
    if (code > runtime(index).format.code_mask) {
        PyErr_Format(PyExc_ValueError, "code %lu out of range for %s", code, name);
        return nullptr;
    }
    return new_scalar(index, static_cast<uint32_t>(code));
}

int init_scalar_types() {
    PyTypeObject& abstract = g_abstract_scalar_type;
    abstract.tp_name = "minifloat.floating";
    abstract.tp_doc = "Abstract base of every minifloat scalar type.";
    abstract.tp_basicsize = sizeof(PyObject);
    abstract.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
    abstract.tp_base = &PyFloatingArrType_Type;
    if (PyType_Ready(&abstract) < 0) return -1;
    for (int i = 0; i < kBuiltinFormatCount; i++) {
        if (init_format_scalar_type(i) < 0) return -1;
    }
    return 0;
}

int init_format_scalar_type(int index) {
    FormatRuntime& rt = runtime(index);
    {
        PyTypeObject& t = rt.scalar_type;
        t.ob_base.ob_base.ob_refcnt = 1;
        t.tp_name = rt.scalar_name.c_str();
        t.tp_doc = "A minifloat scalar; see minifloat.format_info for the format.";
        t.tp_basicsize = sizeof(MinifloatScalar);
        t.tp_flags = Py_TPFLAGS_DEFAULT;
        t.tp_base = &g_abstract_scalar_type;
        t.tp_new = scalar_new;
        t.tp_repr = scalar_repr;
        t.tp_str = scalar_repr;
        t.tp_hash = scalar_hash;
        t.tp_richcompare = scalar_richcompare;
        t.tp_as_number = &g_scalar_number_methods;
        t.tp_methods = g_scalar_methods;
        if (PyType_Ready(&t) < 0) return -1;
    }
    return 0;
}

}  // namespace minifloat
