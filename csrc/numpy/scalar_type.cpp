#include "scalar_type.h"

#include <cmath>
#include <cstring>

#include "format_types.h"
#include "op_eval.h"
#include "op_tables.h"
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
    return runtime_of_scalar(o).decode_f64[scalar_code(o)];
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

// -x, +x and abs(x) are the ufuncs' tables: exact results, and NaN payloads
// kept where the sign bit is a pure sign (IEEE 754 5.5.1, see op_tables.cpp).
PyObject* unary_number(PyObject* a, UnaryOp op, const char* operation) {
    const int index = format_index_of_scalar(a);
    const uint32_t entry = unary_table(index, op)[scalar_code(a)];
    if (report_scalar_fp_flags(operation, entry >> 16) < 0) return nullptr;
    return new_scalar(index, entry & 0xFFFFu);
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
    return scalar_repr_object(runtime_of_scalar(self), scalar_code(self));
}

// As for float: equal values hash alike (hash(x) == hash(float(x)), both
// zeros 0), and a NaN hashes by identity, so it stays the same for the
// object's life.
Py_hash_t scalar_hash(PyObject* self) {
    const double value = value_of(self);
    if (std::isnan(value)) {
#if PY_VERSION_HEX >= 0x030D0000
        return Py_HashPointer(self);
#else
        return _Py_HashPointer(self);
#endif
    }
    PyObject* f = PyFloat_FromDouble(value);
    if (f == nullptr) return -1;
    const Py_hash_t h = PyObject_Hash(f);
    Py_DECREF(f);
    return h;
}

CompareOp compare_op(int op) {
    switch (op) {
        case Py_LT: return CompareOp::less;
        case Py_LE: return CompareOp::less_equal;
        case Py_EQ: return CompareOp::equal;
        case Py_NE: return CompareOp::not_equal;
        case Py_GT: return CompareOp::greater;
        default: return CompareOp::greater_equal;
    }
}

PyObject* numpy_bool(bool value) { PyArrayScalar_RETURN_BOOL_FROM_LONG(value); }

// Comparisons give np.bool_, as NumPy's scalars do. Every minifloat value is
// exactly a binary64 value, so comparing as doubles is exact between
// formats. Python ints, floats and bools are weak (NEP 50), as for arrays:
// rounded into this format first, except for float8_e8m0fnu, which holds
// neither 0 nor negatives (see ufuncs.cpp). Arrays, sequences, NumPy scalars,
// complex numbers and text compare as NumPy's scalars do, through a 0-d
// array, which broadcasts (x == [1.0, 2.0] is array([ True, False]));
// anything else (Fraction, Decimal, None) compares as the Python float of
// the value, as float16's do.
PyObject* scalar_richcompare(PyObject* self, PyObject* other, int op) {
    const int index = format_index_of_scalar(self);
    const FormatRuntime& rt = runtime(index);
    const double mine = value_of(self);
    double theirs;
    if (format_index_of_scalar(other) >= 0) {
        theirs = value_of(other);
    } else if ((PyFloat_CheckExact(other) || PyLong_CheckExact(other) || PyBool_Check(other)) &&
               rt.format.is_signed) {
        uint32_t flags = 0;
        if (!weak_comparison_operand(rt, other, &theirs, &flags) || report_scalar_fp_flags("cast", flags) < 0) {
            return nullptr;
        }
    } else if (PyArray_Check(other) || PyList_Check(other) || PyTuple_Check(other) ||
               PyArray_IsScalar(other, Generic) || PyComplex_Check(other) || PyUnicode_Check(other) ||
               PyBytes_Check(other)) {
        // As NumPy's own scalars do: compare as a 0-d array (broadcasting;
        // == and != of types without a loop are False/True, not errors).
        MinifloatDescr* descr = format_types(index).descr;
        Py_INCREF(descr);
        PyObject* array = PyArray_FromAny(self, &descr->base, 0, 0, 0, nullptr);
        if (array == nullptr) return nullptr;
        PyObject* result = PyObject_RichCompare(array, other, op);
        Py_DECREF(array);
        if (result != nullptr && PyArray_Check(result) &&
            PyArray_NDIM(reinterpret_cast<PyArrayObject*>(result)) == 0) {
            return PyArray_Return(reinterpret_cast<PyArrayObject*>(result));
        }
        return result;
    } else {
        PyObject* as_float = PyFloat_FromDouble(mine);
        if (as_float == nullptr) return nullptr;
        PyObject* result = PyObject_RichCompare(as_float, other, op);
        Py_DECREF(as_float);
        if (result == nullptr || (!PyBool_Check(other) && !PyLong_Check(other) && !PyFloat_Check(other))) {
            return result;
        }
        // float8_e8m0fnu against a Python number: exact, but still np.bool_
        const int truth = PyObject_IsTrue(result);
        Py_DECREF(result);
        return truth < 0 ? nullptr : numpy_bool(truth != 0);
    }
    return numpy_bool(compare_values(compare_op(op), mine, theirs));
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
        MinifloatDescr* descr = format_types(index).descr;
        Py_INCREF(descr);
        return PyArray_FromAny(value, &descr->base, 0, 0, NPY_ARRAY_FORCECAST, nullptr);
    }
    uint32_t code = 0, flags = 0;
    if (!code_from_object(rt, rt.default_specials, value, &code, &flags)) return nullptr;
    if (report_scalar_fp_flags("cast", flags) < 0) return nullptr;
    return new_scalar(index, code);
}

PyObject* method_reduce(PyObject* self, PyObject*) {
    const int index = format_index_of_scalar(self);
    const unsigned code = static_cast<unsigned>(scalar_code(self));
    if (index < kBuiltinFormatCount) {
        return Py_BuildValue("O(sI)", g_scalar_from_code_function, runtime(index).name.c_str(), code);
    }
    // a format made at run time: by its dtype, which pickles by its
    // parameters (a fresh interpreter makes the format again)
    return Py_BuildValue("O(OI)", g_scalar_from_code_function, &format_types(index).descr->base, code);
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

PyMethodDef g_scalar_methods[] = {
    {"__reduce__", method_reduce, METH_NOARGS, nullptr},
    {"item", method_item, METH_VARARGS, "The value as a Python float."},
    {"tolist", method_item, METH_VARARGS, "The value as a Python float."},
    {"is_integer", method_is_integer, METH_NOARGS, "True if the value is a whole number."},
    {"as_integer_ratio", method_as_integer_ratio, METH_NOARGS,
     "The exact value as a pair of integers."},
    {"__round__", method_round, METH_VARARGS, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

// The imaginary part of a real number: +0 of the format (NumPy's generic
// version builds it through getitem with no array, which new-style DTypes
// cannot serve). float8_e8m0fnu has no zero: a float32 0, the narrowest
// NumPy type holding its values.
PyObject* scalar_imag(PyObject* self, void*) {
    const int index = format_index_of_scalar(self);
    if (runtime(index).format.has_zero) return new_scalar(index, 0);  // code 0 is +0
    PyObject* zero = PyFloat_FromDouble(0.0);
    if (zero == nullptr) return nullptr;
    PyObject* result = call_numpy("float32", zero, nullptr);
    Py_DECREF(zero);
    return result;
}

PyGetSetDef g_scalar_getset[] = {
    {"imag", scalar_imag, nullptr, "The imaginary part: zero.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

}  // namespace

uint32_t scalar_code(PyObject* scalar) {
    const MinifloatScalar* s = as_scalar(scalar);
    return runtime(format_index_of_scalar(scalar)).format.storage_bytes == 1 ? s->storage.byte
                                                                             : s->storage.half;
}

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
    PyTypeObject* type = &format_types(index).scalar_type;
    PyObject* obj = type->tp_alloc(type, 0);
    if (obj == nullptr) return nullptr;
    code &= runtime(index).format.code_mask;
    if (runtime(index).format.storage_bytes == 1) {
        as_scalar(obj)->storage.byte = static_cast<uint8_t>(code);
    } else {
        as_scalar(obj)->storage.half = static_cast<uint16_t>(code);
    }
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
    FormatTypes& types = format_types(index);
    types.scalar_name = "minifloat." + runtime(index).name;
    types.scalar_type.format_index = index;
    {
        PyTypeObject& t = types.scalar_type;
        t.ob_base.ob_base.ob_refcnt = 1;
        t.tp_name = types.scalar_name.c_str();
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
        t.tp_getset = g_scalar_getset;
        if (PyType_Ready(&t) < 0) return -1;
    }
    return 0;
}

}  // namespace minifloat
