// Scalar types of the sub-byte integers: subclasses of np.signedinteger /
// np.unsignedinteger holding the value; arithmetic goes through NumPy's
// generic scalar methods, which run the ufunc loops of int_ufuncs.cpp.
#include <cmath>
#include <cstring>

#include "int_kernels.h"
#include "int_types.h"

namespace minifloat {

PyTypeObject g_int_abstract_signed_scalar{PyVarObject_HEAD_INIT(nullptr, 0)};
PyTypeObject g_int_abstract_unsigned_scalar{PyVarObject_HEAD_INIT(nullptr, 0)};

namespace {

IntTypeRuntime g_int_runtimes[kIntFormatCount];

IntScalar* as_int_scalar(PyObject* o) { return reinterpret_cast<IntScalar*>(o); }

int scalar_index(PyObject* o) { return int_index_of_scalar_type(Py_TYPE(o)); }

long scalar_value(PyObject* o) { return int_value_of(g_int_runtimes[scalar_index(o)], as_int_scalar(o)->code); }

int raise_out_of_bounds(const IntTypeRuntime& rt, PyObject* obj) {
    PyErr_Format(PyExc_OverflowError,
                 "Python integer %R out of bounds for %s (range %d to %d); wrap it first "
                 "(np.array(x).astype(%s) wraps as NumPy's int64 -> int8 does)",
                 obj, rt.row->name, rt.min, rt.max, rt.row->name);
    return -1;
}

int value_from_python_int(const IntTypeRuntime& rt, PyObject* integer, int* value) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(integer, &overflow);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (overflow != 0 || v < rt.min || v > rt.max) return raise_out_of_bounds(rt, integer);
    *value = static_cast<int>(v);
    return 0;
}

int value_from_double(const IntTypeRuntime& rt, double d, int* value) {
    if (std::isnan(d)) {
        PyErr_Format(PyExc_ValueError, "cannot convert float NaN to %s", rt.row->name);
        return -1;
    }
    const double t = std::trunc(d);
    if (!(t >= rt.min && t <= rt.max)) {
        PyErr_Format(PyExc_OverflowError, "%R out of bounds for %s (range %d to %d)",
                     PyFloat_FromDouble(d), rt.row->name, rt.min, rt.max);
        return -1;
    }
    *value = static_cast<int>(t);
    return 0;
}

PyObject* scalar_new(PyTypeObject* type, PyObject* args, PyObject* kwds) {
    const int index = int_index_of_scalar_type(type);
    if (index < 0) {
        PyErr_SetString(PyExc_TypeError, "minifloat integer scalar base types are abstract");
        return nullptr;
    }
    PyObject* value_obj = nullptr;
    static const char* keywords[] = {"value", nullptr};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O", const_cast<char**>(keywords), &value_obj)) {
        return nullptr;
    }
    int value = 0;
    if (value_obj != nullptr && int_value_from_object(g_int_runtimes[index], value_obj, &value) < 0) {
        return nullptr;
    }
    return new_int_scalar(index, value);
}

PyObject* scalar_str(PyObject* self) { return PyUnicode_FromFormat("%ld", scalar_value(self)); }

PyObject* scalar_repr(PyObject* self) {
    return PyUnicode_FromFormat("%s(%ld)", g_int_runtimes[scalar_index(self)].row->name,
                                scalar_value(self));
}

Py_hash_t scalar_hash(PyObject* self) {
    // equal to hash(int(x)), as for NumPy's integer scalars
    const long v = scalar_value(self);
    return v == -1 ? -2 : static_cast<Py_hash_t>(v);
}

PyObject* scalar_int(PyObject* self) { return PyLong_FromLong(scalar_value(self)); }
PyObject* scalar_float(PyObject* self) { return PyFloat_FromDouble(static_cast<double>(scalar_value(self))); }
int scalar_bool(PyObject* self) { return scalar_value(self) != 0; }

PyObject* method_item(PyObject* self, PyObject* args) {
    if (PyTuple_GET_SIZE(args) != 0) {
        PyErr_SetString(PyExc_ValueError, "item() of a scalar takes no index");
        return nullptr;
    }
    return scalar_int(self);
}

PyObject* method_reduce(PyObject* self, PyObject*) {
    return Py_BuildValue("(O(l))", reinterpret_cast<PyObject*>(Py_TYPE(self)), scalar_value(self));
}

PyObject* method_is_integer(PyObject*, PyObject*) { Py_RETURN_TRUE; }

// Arithmetic and comparisons of scalars run the array ufuncs on 0-d arrays
// (NumPy's own generic scalar methods decline Python ints for these types),
// so scalars and arrays share every rule.
PyObject* as_array_operand(PyObject* o) {
    if (int_index_of_scalar_type(Py_TYPE(o)) < 0) {
        Py_INCREF(o);
        return o;
    }
    return PyArray_FromAny(o, nullptr, 0, 0, 0, nullptr);
}

// f(x, y) on both operands as arrays; nullptr where one could not be made.
template <class F>
PyObject* on_array_operands(PyObject* a, PyObject* b, F f) {
    PyObject* x = as_array_operand(a);
    PyObject* y = as_array_operand(b);
    PyObject* r = (x && y) ? f(x, y) : nullptr;
    Py_XDECREF(x);
    Py_XDECREF(y);
    return r;
}

// A 0-d array result as NumPy's scalar.
PyObject* scalar_result(PyObject* r) {
    if (r != nullptr && PyArray_Check(r)) return PyArray_Return(reinterpret_cast<PyArrayObject*>(r));
    return r;
}

// NumPy's integer scalars warn "overflow encountered in scalar add" where
// its array loops wrap silently; these scalars do the same: the wrapped
// result is compared with the exact one of the two integer operands.
// (floor_divide and divmod need no check: their loop reports int4(-8) // -1
// and x // 0 itself, for arrays and scalars alike.)
enum class Checked { none, add, subtract, multiply, negative, absolute };

const char* checked_name(Checked c) {
    switch (c) {
        case Checked::none: return "";
        case Checked::add: return "scalar add";
        case Checked::subtract: return "scalar subtract";
        case Checked::multiply: return "scalar multiply";
        case Checked::negative: return "scalar negative";
        case Checked::absolute: return "scalar absolute";
    }
    return "";
}

// The exact value of an integer operand (ours, Python's, NumPy's or a bool).
bool exact_integer(PyObject* o, long long* v) {
    if (int_index_of_scalar_type(Py_TYPE(o)) >= 0) {
        *v = scalar_value(o);
        return true;
    }
    if (!PyLong_Check(o) && !PyArray_IsScalar(o, Integer) && !PyArray_IsScalar(o, Bool)) return false;
    PyObject* integer = PyNumber_Index(o);
    if (integer == nullptr) {
        PyErr_Clear();
        return false;
    }
    int overflow = 0;
    *v = PyLong_AsLongLongAndOverflow(integer, &overflow);
    Py_DECREF(integer);
    if (*v == -1 && PyErr_Occurred()) PyErr_Clear();
    return overflow == 0;
}

// The exact result; false where it does not fit 64 bits.
bool exact_result(Checked c, long long x, long long y, long long* r) {
    switch (c) {
        case Checked::none: return false;
        case Checked::add: return !__builtin_add_overflow(x, y, r);
        case Checked::subtract: return !__builtin_sub_overflow(x, y, r);
        case Checked::multiply: return !__builtin_mul_overflow(x, y, r);
        case Checked::negative: return !__builtin_sub_overflow(0LL, x, r);
        case Checked::absolute: return x >= 0 ? (*r = x, true) : !__builtin_sub_overflow(0LL, x, r);
    }
    return false;
}

// 0, or -1 where np.errstate(over="raise") turned the warning into an error.
int report_wrapped(Checked c, PyObject* a, PyObject* b, PyObject* result) {
    if (c == Checked::none || result == nullptr || int_index_of_scalar_type(Py_TYPE(result)) < 0) return 0;
    long long x = 0, y = 0, exact = 0;
    if (!exact_integer(a, &x) || (b != nullptr && !exact_integer(b, &y))) return 0;
    if (!exact_result(c, x, y, &exact)) return 0;
    if (exact == scalar_value(result)) return 0;
    return PyUFunc_GiveFloatingpointErrors(checked_name(c), NPY_FPE_OVERFLOW);
}

PyObject* checked(Checked c, PyObject* a, PyObject* b, PyObject* result) {
    if (report_wrapped(c, a, b, result) < 0) {
        Py_DECREF(result);
        return nullptr;
    }
    return result;
}

// Two scalars of one type, + - *: the ufunc loop's own byte kernel on one
// element (int_kernels.h), without the 0-d arrays and the ufunc dispatch
// (0.63 us of int4(3) + int4(2); np.int8's: 0.07). nullptr with no error
// set where this is not such a pair.
PyObject* same_type_wrapped(Checked c, PyObject* a, PyObject* b) {
    const int index = scalar_index(a);
    if (index < 0 || scalar_index(b) != index) return nullptr;
    WrappedBinary op;
    switch (c) {
        case Checked::add: op = WrappedBinary::add; break;
        case Checked::subtract: op = WrappedBinary::subtract; break;
        case Checked::multiply: op = WrappedBinary::multiply; break;
        case Checked::none:
        case Checked::negative:
        case Checked::absolute: return nullptr;
    }
    const IntTypeRuntime& rt = g_int_runtimes[index];
    const uint8_t x = as_int_scalar(a)->code, y = as_int_scalar(b)->code;
    uint8_t r = 0;
    wrapped_binary(op, &x, &y, &r, 1, int_format_sign_bit(*rt.row), int_format_mask(*rt.row));
    return new_int_scalar(index, int_value_of(rt, r));
}

template <PyObject* (*Op)(PyObject*, PyObject*), Checked C = Checked::none>
PyObject* scalar_binary(PyObject* a, PyObject* b) {
    if (PyObject* r = same_type_wrapped(C, a, b)) return checked(C, a, b, r);
    if (PyErr_Occurred()) return nullptr;
    PyObject* x = as_array_operand(a);
    if (x == nullptr) return nullptr;
    PyObject* y = as_array_operand(b);
    if (y == nullptr) {
        Py_DECREF(x);
        return nullptr;
    }
    PyObject* r = Op(x, y);
    Py_DECREF(x);
    Py_DECREF(y);
    return checked(C, a, b, scalar_result(r));
}

template <PyObject* (*Op)(PyObject*), Checked C = Checked::none>
PyObject* scalar_unary(PyObject* a) {
    PyObject* x = as_array_operand(a);
    if (x == nullptr) return nullptr;
    PyObject* r = Op(x);
    Py_DECREF(x);
    return checked(C, a, nullptr, scalar_result(r));
}

// `"ab" * int4(2)` and `[1] * int4(2)` repeat the sequence, as they do with
// np.int8 and Python ints: declining lets Python call the sequence's repeat
// with our __index__ (a list is otherwise an array operand).
bool repeats_sequence(PyObject* o) {
    const PySequenceMethods* sequence = Py_TYPE(o)->tp_as_sequence;
    return sequence != nullptr && sequence->sq_repeat != nullptr && !PyArray_Check(o) &&
           !PyArray_IsScalar(o, Generic);
}

PyObject* scalar_multiply(PyObject* a, PyObject* b) {
    if (repeats_sequence(a) || repeats_sequence(b)) Py_RETURN_NOTIMPLEMENTED;
    return scalar_binary<PyNumber_Multiply, Checked::multiply>(a, b);
}

PyObject* scalar_power(PyObject* a, PyObject* b, PyObject* m) {
    return scalar_result(on_array_operands(a, b, [m](PyObject* x, PyObject* y) { return PyNumber_Power(x, y, m); }));
}

PyObject* scalar_divmod(PyObject* a, PyObject* b) {
    PyObject* r = on_array_operands(a, b, PyNumber_Divmod);
    if (r == nullptr || !PyTuple_Check(r)) return r;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(r); i++) {
        PyObject* item = PyTuple_GET_ITEM(r, i);
        if (PyArray_Check(item)) {
            Py_INCREF(item);
            PyObject* scalar = PyArray_Return(reinterpret_cast<PyArrayObject*>(item));
            if (scalar == nullptr) {
                Py_DECREF(r);
                return nullptr;
            }
            PyTuple_SetItem(r, i, scalar);
        }
    }
    return r;
}

PyObject* scalar_richcompare(PyObject* a, PyObject* b, int op) {
    return scalar_result(
        on_array_operands(a, b, [op](PyObject* x, PyObject* y) { return PyObject_RichCompare(x, y, op); }));
}

PyMethodDef g_int_scalar_methods[] = {
    {"item", method_item, METH_VARARGS, "The value as a Python int."},
    {"tolist", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(scalar_int)), METH_NOARGS,
     "The value as a Python int."},
    {"__reduce__", method_reduce, METH_NOARGS, nullptr},
    {"is_integer", method_is_integer, METH_NOARGS, "Always True."},
    {nullptr, nullptr, 0, nullptr},
};

PyNumberMethods g_int_number_methods{};

int ready_abstract(PyTypeObject& t, const char* name, PyTypeObject* base) {
    t.tp_name = name;
    t.tp_doc = "Abstract base of minifloat's sub-byte integer scalar types.";
    t.tp_basicsize = sizeof(PyObject);
    t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
    t.tp_base = base;
    return PyType_Ready(&t);
}

}  // namespace

IntTypeRuntime& int_runtime(int index) { return g_int_runtimes[index]; }

int int_index_of_dtype_class(const PyArray_DTypeMeta* cls) {
    for (int i = 0; i < kIntFormatCount; i++) {
        if (&g_int_runtimes[i].dtype_class == cls) return i;
    }
    return -1;
}

int int_index_of_scalar_type(const PyTypeObject* type) {
    for (int i = 0; i < kIntFormatCount; i++) {
        if (&g_int_runtimes[i].scalar_type == type) return i;
    }
    return -1;
}

PyObject* new_int_scalar(int index, int value) {
    PyTypeObject* type = &g_int_runtimes[index].scalar_type;
    PyObject* obj = type->tp_alloc(type, 0);
    if (obj == nullptr) return nullptr;
    as_int_scalar(obj)->code = int_code_of(value);
    return obj;
}

int int_value_from_object(const IntTypeRuntime& rt, PyObject* obj, int* value) {
    const int bits = rt.row->bits;
    const bool is_signed = rt.row->is_signed;
    const int own = int_index_of_scalar_type(Py_TYPE(obj));
    if (own >= 0) {  // another integer type: NumPy's integer casts wrap
        *value = wrap_to_int_type(scalar_value(obj), bits, is_signed);
        return 0;
    }
    if (PyBool_Check(obj)) {
        *value = wrap_to_int_type(obj == Py_True ? 1 : 0, bits, is_signed);
        return 0;
    }
    if (PyLong_Check(obj)) return value_from_python_int(rt, obj, value);
    if (PyArray_IsScalar(obj, Integer) || PyArray_IsScalar(obj, Bool)) {
        PyObject* integer = PyNumber_Index(obj);
        if (integer == nullptr) return -1;
        const long long v = PyLong_AsLongLong(integer);  // NumPy integers fit 64 bits
        const bool failed = v == -1 && PyErr_Occurred();
        if (failed) {  // uint64 above int64's range: only its low bits matter
            PyErr_Clear();
            const unsigned long long u = PyLong_AsUnsignedLongLongMask(integer);
            *value = wrap_to_int_type(static_cast<int64_t>(u), bits, is_signed);
        } else {
            *value = wrap_to_int_type(v, bits, is_signed);
        }
        Py_DECREF(integer);
        return 0;
    }
    if (PyFloat_Check(obj) || PyArray_IsScalar(obj, Floating)) {
        const double d = PyFloat_AsDouble(obj);
        if (d == -1.0 && PyErr_Occurred()) return -1;
        return value_from_double(rt, d, value);
    }
    if (PyUnicode_Check(obj) || PyBytes_Check(obj)) {
        PyObject* text = PyUnicode_Check(obj) ? (Py_INCREF(obj), obj)
                                              : PyUnicode_FromEncodedObject(obj, "ascii", "strict");
        if (text == nullptr) return -1;
        PyObject* integer = PyLong_FromUnicodeObject(text, 10);
        Py_DECREF(text);
        if (integer == nullptr) return -1;
        const int status = value_from_python_int(rt, integer, value);
        Py_DECREF(integer);
        return status;
    }
    PyObject* integer = PyNumber_Index(obj);
    if (integer == nullptr) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "%s expects an integer, a float or a numeric string, not %.200s", rt.row->name,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    const int status = value_from_python_int(rt, integer, value);
    Py_DECREF(integer);
    return status;
}

int init_int_scalar_types() {
    if (ready_abstract(g_int_abstract_signed_scalar, "minifloat.signedinteger",
                       &PySignedIntegerArrType_Type) < 0 ||
        ready_abstract(g_int_abstract_unsigned_scalar, "minifloat.unsignedinteger",
                       &PyUnsignedIntegerArrType_Type) < 0) {
        return -1;
    }
    g_int_number_methods.nb_add = scalar_binary<PyNumber_Add, Checked::add>;
    g_int_number_methods.nb_subtract = scalar_binary<PyNumber_Subtract, Checked::subtract>;
    g_int_number_methods.nb_multiply = scalar_multiply;
    g_int_number_methods.nb_remainder = scalar_binary<PyNumber_Remainder>;
    g_int_number_methods.nb_divmod = scalar_divmod;
    g_int_number_methods.nb_power = scalar_power;
    g_int_number_methods.nb_negative = scalar_unary<PyNumber_Negative, Checked::negative>;
    g_int_number_methods.nb_positive = scalar_unary<PyNumber_Positive>;
    g_int_number_methods.nb_absolute = scalar_unary<PyNumber_Absolute, Checked::absolute>;
    g_int_number_methods.nb_invert = scalar_unary<PyNumber_Invert>;
    g_int_number_methods.nb_lshift = scalar_binary<PyNumber_Lshift>;
    g_int_number_methods.nb_rshift = scalar_binary<PyNumber_Rshift>;
    g_int_number_methods.nb_and = scalar_binary<PyNumber_And>;
    g_int_number_methods.nb_xor = scalar_binary<PyNumber_Xor>;
    g_int_number_methods.nb_or = scalar_binary<PyNumber_Or>;
    g_int_number_methods.nb_floor_divide = scalar_binary<PyNumber_FloorDivide>;
    g_int_number_methods.nb_true_divide = scalar_binary<PyNumber_TrueDivide>;
    g_int_number_methods.nb_matrix_multiply = scalar_binary<PyNumber_MatrixMultiply>;
    g_int_number_methods.nb_int = scalar_int;
    g_int_number_methods.nb_index = scalar_int;
    g_int_number_methods.nb_float = scalar_float;
    g_int_number_methods.nb_bool = scalar_bool;
    for (int i = 0; i < kIntFormatCount; i++) {
        IntTypeRuntime& rt = g_int_runtimes[i];
        rt.row = &kIntFormatTable[i];
        rt.min = int_format_min(*rt.row);
        rt.max = int_format_max(*rt.row);
        rt.scalar_name = std::string("minifloat.") + rt.row->name;
        rt.dtype_name = std::string("minifloat.") + rt.row->dtype_class;
        PyTypeObject& t = rt.scalar_type;
        Py_SET_REFCNT(&t, 1);
        t.tp_name = rt.scalar_name.c_str();
        t.tp_doc = "A sub-byte integer scalar (one value per byte, as ml_dtypes stores it).";
        // (slot by slot like the float formats' scalar type in scalar_type.cpp:
        // the same fields, each family's own functions and base)
        t.tp_basicsize = sizeof(IntScalar);
        t.tp_flags = Py_TPFLAGS_DEFAULT;
        t.tp_base = rt.row->is_signed ? &g_int_abstract_signed_scalar : &g_int_abstract_unsigned_scalar;
        t.tp_new = scalar_new;
        t.tp_repr = scalar_repr;
        t.tp_str = scalar_str;
        t.tp_hash = scalar_hash;
        t.tp_richcompare = scalar_richcompare;
        t.tp_as_number = &g_int_number_methods;
        t.tp_methods = g_int_scalar_methods;
        if (PyType_Ready(&t) < 0) return -1;
    }
    return 0;
}

}  // namespace minifloat
