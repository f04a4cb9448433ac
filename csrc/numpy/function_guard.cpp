#include "function_guard.h"

#include <vector>

#include "complex_types.h"
#include "format_types.h"
#include "int_types.h"
#include "numpy_api.h"

namespace py = pybind11;

namespace minifloat {

namespace {

struct FunctionGuard {
    PyObject_HEAD
    PyObject* original;
    PyObject* handler;
    vectorcallfunc vectorcall;
};

bool is_own_dtype_class(PyObject* cls) {
    return PyType_Check(cls) &&
           (PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &g_abstract_dtype.super.ht_type) ||
            PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &g_int_abstract_dtype.super.ht_type) ||
            PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), &g_complex_abstract_dtype.super.ht_type));
}

bool is_own_scalar_type(PyTypeObject* type) {
    return PyType_IsSubtype(type, &g_abstract_scalar_type) || PyType_IsSubtype(type, &g_complex_abstract_scalar) ||
           PyType_IsSubtype(type, &g_int_abstract_signed_scalar) ||
           PyType_IsSubtype(type, &g_int_abstract_unsigned_scalar);
}

bool plainly_not_an_array(PyObject* value) {
    return value == Py_None || PyLong_CheckExact(value) || PyFloat_CheckExact(value) || PyBool_Check(value) ||
           PyUnicode_Check(value) || PyComplex_CheckExact(value) || PySlice_Check(value) ||
           PyFunction_Check(value) || PyCFunction_Check(value) || PyObject_TypeCheck(value, &PyUFunc_Type);
}

// The type (or a base) defines `name` (an interned string): a look through
// the MRO's dicts, no attribute lookup on the instance, no exception for a
// missing name and no string made per call.
bool type_defines(PyTypeObject* type, PyObject* name) {
    PyObject* mro = type->tp_mro;
    if (mro == nullptr || !PyTuple_Check(mro)) return false;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(mro); i++) {
        PyObject* dict = reinterpret_cast<PyTypeObject*>(PyTuple_GET_ITEM(mro, i))->tp_dict;
        if (dict != nullptr && PyDict_GetItemWithError(dict, name) != nullptr) return true;
        if (PyErr_Occurred()) PyErr_Clear();
    }
    return false;
}

PyObject* interned(const char* text) {
    PyObject* name = PyUnicode_InternFromString(text);  // kept for the process
    if (name == nullptr) throw pybind11::error_already_set();
    return name;
}

// Whether instances of `type` may hold an array NumPy would convert without
// dispatching: __array__ and no __array_function__. The verdicts of the
// last few types are kept (with a reference, so the address stays theirs,
// and Python's version tag where the type has one, which changes when the
// type is modified): NumPy's keyword defaults (np._NoValue) come with every
// call, and the look-up through the MRO need not.
bool may_hold_an_array(PyTypeObject* type) {
    struct Verdict {
        PyTypeObject* type;
        unsigned int version;
        bool may_hold;
    };
    static Verdict verdicts[8] = {};
    static unsigned next = 0;
    const unsigned int version = PyType_HasFeature(type, Py_TPFLAGS_VALID_VERSION_TAG) ? type->tp_version_tag : 0;
    for (const Verdict& v : verdicts) {
        if (v.type == type && v.version == version) return v.may_hold;
    }
    static PyObject* const array_name = interned("__array__");
    static PyObject* const array_function_name = interned("__array_function__");
    const bool may_hold = type_defines(type, array_name) && !type_defines(type, array_function_name);
    Verdict& slot = verdicts[next++ % 8];
    Py_INCREF(type);
    Py_XDECREF(slot.type);
    slot = {type, version, may_hold};
    return may_hold;
}

// 1: the value is minifloat's (array, scalar, descriptor, scalar type or
// DType class), or may hold one: a list or tuple with such an element or a
// nested sequence, or an object NumPy would convert through __array__
// without dispatching (np.poly1d); the handler looks closer. 0: it is not
// (objects with __array_function__, such as dask arrays, dispatch through
// NumPy's original as before).
int is_own(PyObject* value, bool look_inside) {
    if (value == Py_None) return 0;
    if (PyArray_Check(value)) return is_own_dtype_class(reinterpret_cast<PyObject*>(Py_TYPE(PyArray_DESCR(
                                         reinterpret_cast<PyArrayObject*>(value)))));
    if (PyArray_DescrCheck(value)) return is_own_dtype_class(reinterpret_cast<PyObject*>(Py_TYPE(value)));
    if (PyType_Check(value)) {
        return is_own_scalar_type(reinterpret_cast<PyTypeObject*>(value)) || is_own_dtype_class(value);
    }
    if (PyArray_IsScalar(value, Generic)) return is_own_scalar_type(Py_TYPE(value));
    if (PyList_CheckExact(value) || PyTuple_CheckExact(value)) {
        if (!look_inside) return 1;
        const Py_ssize_t n = PySequence_Fast_GET_SIZE(value);
        PyObject** elements = PySequence_Fast_ITEMS(value);
        for (Py_ssize_t i = 0; i < n; i++) {
            if (is_own(elements[i], false)) return 1;
        }
        return 0;
    }
    if (plainly_not_an_array(value)) return 0;
    return may_hold_an_array(Py_TYPE(value));
}

PyObject* guard_vectorcall(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
    auto* guard = reinterpret_cast<FunctionGuard*>(self);
    const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    const Py_ssize_t nkw = kwnames == nullptr ? 0 : PyTuple_GET_SIZE(kwnames);
    bool own = false;
    for (Py_ssize_t i = 0; i < nargs + nkw && !own; i++) own = is_own(args[i], true) != 0;
    if (!own) return PyObject_Vectorcall(guard->original, args, nargsf, kwnames);
    // handler(original, *args, **kwargs)
    std::vector<PyObject*> stack(static_cast<size_t>(nargs + nkw + 1));
    stack[0] = guard->original;
    for (Py_ssize_t i = 0; i < nargs + nkw; i++) stack[static_cast<size_t>(i) + 1] = args[i];
    return PyObject_Vectorcall(guard->handler, stack.data(), static_cast<size_t>(nargs + 1), kwnames);
}

void guard_dealloc(PyObject* self) {
    auto* guard = reinterpret_cast<FunctionGuard*>(self);
    PyObject_GC_UnTrack(self);
    Py_CLEAR(guard->original);
    Py_CLEAR(guard->handler);
    Py_TYPE(self)->tp_free(self);
}

int guard_traverse(PyObject* self, visitproc visit, void* arg) {
    auto* guard = reinterpret_cast<FunctionGuard*>(self);
    Py_VISIT(guard->original);
    Py_VISIT(guard->handler);
    return 0;
}

// The original's identity: name, docstring, module, signature and every
// other attribute, __wrapped__ included (tools that unwrap one level, as
// dask's getargspec does, find what they found before), except what says
// it is guarded.
PyObject* guard_getattro(PyObject* self, PyObject* name) {
    auto* guard = reinterpret_cast<FunctionGuard*>(self);
    if (PyUnicode_CompareWithASCIIString(name, "__minifloat_original__") == 0) {
        Py_INCREF(guard->original);
        return guard->original;
    }
    if (PyUnicode_CompareWithASCIIString(name, "__minifloat_handler__") == 0) {
        Py_INCREF(guard->handler);
        return guard->handler;
    }
    if (PyUnicode_CompareWithASCIIString(name, "__class__") == 0 ||
        PyUnicode_CompareWithASCIIString(name, "__reduce__") == 0 ||
        PyUnicode_CompareWithASCIIString(name, "__reduce_ex__") == 0) {
        return PyObject_GenericGetAttr(self, name);
    }
    return PyObject_GetAttr(guard->original, name);
}

// pickle: by reference, module and qualified name, as functions pickle
PyObject* guard_reduce(PyObject* self, PyObject*) {
    return PyObject_GetAttrString(reinterpret_cast<FunctionGuard*>(self)->original, "__qualname__");
}

PyObject* guard_reduce_ex(PyObject* self, PyObject*) { return guard_reduce(self, nullptr); }

PyObject* guard_repr(PyObject* self) { return PyObject_Repr(reinterpret_cast<FunctionGuard*>(self)->original); }

PyObject* guard_get(PyObject* self, PyObject* instance, PyObject*) {
    // a plain function in a class body binds; the original may not (builtins)
    if (instance == nullptr || instance == Py_None || !PyFunction_Check(reinterpret_cast<FunctionGuard*>(self)->original)) {
        Py_INCREF(self);
        return self;
    }
    return PyMethod_New(self, instance);
}

PyMethodDef g_guard_methods[] = {
    {"__reduce__", guard_reduce, METH_NOARGS, nullptr},
    {"__reduce_ex__", guard_reduce_ex, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

PyTypeObject g_guard_type = [] {
    PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
    t.tp_name = "minifloat.FunctionGuard";
    t.tp_basicsize = sizeof(FunctionGuard);
    t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL;
    t.tp_dealloc = guard_dealloc;
    t.tp_traverse = guard_traverse;
    t.tp_vectorcall_offset = offsetof(FunctionGuard, vectorcall);
    t.tp_call = PyVectorcall_Call;
    t.tp_getattro = guard_getattro;
    t.tp_repr = guard_repr;
    t.tp_descr_get = guard_get;
    t.tp_methods = g_guard_methods;
    return t;
}();

py::object make_guard(py::object original, py::object handler) {
    if (!PyCallable_Check(original.ptr()) || !PyCallable_Check(handler.ptr())) {
        throw py::type_error("_function_guard(original, handler) takes two callables");
    }
    if (PyType_Ready(&g_guard_type) < 0) throw py::error_already_set();
    auto* guard = PyObject_GC_New(FunctionGuard, &g_guard_type);
    if (guard == nullptr) throw py::error_already_set();
    guard->original = original.inc_ref().ptr();
    guard->handler = handler.inc_ref().ptr();
    guard->vectorcall = guard_vectorcall;
    PyObject_GC_Track(reinterpret_cast<PyObject*>(guard));
    return py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(guard));
}

}  // namespace

void register_function_guard_bindings(py::module_& m) {
    m.def("_function_guard", &make_guard, py::arg("original"), py::arg("handler"),
          "A NumPy function that calls handler(original, *args, **kwargs) when an argument is "
          "minifloat's and original(*args, **kwargs) otherwise, at C speed.");
}

}  // namespace minifloat
