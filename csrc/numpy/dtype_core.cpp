#include "dtype_core.h"

#include <cstring>
#include <string>
#include <utility>

namespace minifloat {

PyObject* reduce_by_scalar_type(PyTypeObject* scalar_type) {
    PyObject* numpy = PyImport_ImportModule("numpy");
    if (numpy == nullptr) return nullptr;
    PyObject* dtype_type = PyObject_GetAttrString(numpy, "dtype");
    Py_DECREF(numpy);
    if (dtype_type == nullptr) return nullptr;
    return Py_BuildValue("(N(O))", dtype_type, reinterpret_cast<PyObject*>(scalar_type));
}

// NumPy's own newbyteorder refuses new-style DTypes outright.
PyObject* newbyteorder(PyObject* self, PyObject* const* args, Py_ssize_t nargs, const char* name, int itemsize,
                       const char* swap_hint) {
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
    if (itemsize > 1 && !native) {
        PyErr_Format(PyExc_TypeError, "%s exists in native byte order only; %s", name, swap_hint);
        return nullptr;
    }
    Py_INCREF(self);
    return self;
}

namespace {

// The abstract parent's slots: it has no instances, so none of them runs
// on data; NumPy requires them of every DType.
PyArray_Descr* abstract_ensure_canonical(PyArray_Descr* descr) {
    Py_INCREF(descr);
    return descr;
}
int abstract_setitem(PyArray_Descr* descr, PyObject*, char*) {
    PyErr_Format(PyExc_TypeError, "%s is abstract", Py_TYPE(descr)->tp_name);
    return -1;
}
PyObject* abstract_getitem(PyArray_Descr* descr, char*) {
    PyErr_Format(PyExc_TypeError, "%s is abstract", Py_TYPE(descr)->tp_name);
    return nullptr;
}
// NumPy requires a repr of every DType class, though no descriptor of the
// abstract one exists: its class name ("IntegerDType").
PyObject* abstract_repr(PyObject* self) {
    const char* name = Py_TYPE(self)->tp_name;
    const char* dot = std::strrchr(name, '.');
    return PyUnicode_FromString(dot != nullptr ? dot + 1 : name);
}
int abstract_copy(PyArrayMethod_Context*, char* const*, const npy_intp*, const npy_intp*, NpyAuxData*) {
    PyErr_SetString(PyExc_TypeError, "an abstract minifloat DType holds no data");
    return -1;
}

}  // namespace

int init_abstract_dtype(PyArray_DTypeMeta* cls, const char* name, const char* doc, Py_ssize_t descr_size,
                        PyTypeObject* scalar_type, newfunc new_function) {
    PyTypeObject* t = reinterpret_cast<PyTypeObject*>(cls);
    Py_SET_TYPE(t, &PyArrayDTypeMeta_Type);
    Py_SET_REFCNT(t, 1);
    t->tp_name = name;
    t->tp_doc = doc;
    t->tp_basicsize = descr_size;
    t->tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
    t->tp_base = &PyArrayDescr_Type;
    t->tp_new = new_function;
    t->tp_repr = abstract_repr;
    t->tp_str = abstract_repr;
    if (PyType_Ready(t) < 0) return -1;
    PyArrayMethod_Spec* casts[] = {
        make_method_spec((std::string(name) + "_abstract_copy").c_str(), 1, 1, NPY_NO_CASTING,
                         NPY_METH_SUPPORTS_UNALIGNED, {nullptr, nullptr},
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
    spec.typeobj = scalar_type;
    spec.flags = NPY_DT_ABSTRACT | NPY_DT_NUMERIC;
    spec.casts = casts;
    spec.slots = slots;
    return PyArrayInitDTypeMeta_FromSpec(cls, &spec);
}

PyArray_Descr* init_member_dtype(PyArray_DTypeMeta* cls, PyTypeObject* scalar_type, CastFamily family, int index,
                                 std::vector<PyArrayMethod_Spec*> casts, std::vector<PyType_Slot> slots,
                                 int itemsize, int part_bytes, char kind, char type_char) {
    if (append_added_cast_specs(family, index, casts) < 0) return nullptr;
    casts.push_back(nullptr);
    slots.push_back({0, nullptr});
    PyArrayDTypeMeta_Spec spec{};
    spec.typeobj = scalar_type;
    spec.flags = NPY_DT_NUMERIC;
    spec.casts = casts.data();
    spec.slots = slots.data();
    if (PyArrayInitDTypeMeta_FromSpec(cls, &spec) < 0) return nullptr;

    PyTypeObject* t = reinterpret_cast<PyTypeObject*>(cls);
    PyArray_Descr* descr = reinterpret_cast<PyArray_Descr*>(PyArrayDescr_Type.tp_new(t, nullptr, nullptr));
    if (descr == nullptr) return nullptr;
    descr->elsize = itemsize;
    descr->alignment = part_bytes;
    descr->kind = kind;
    descr->type = type_char;
    descr->byteorder = itemsize == 1 ? '|' : '=';
    return descr;
}

int attach_dtype_to_scalar_type(PyTypeObject* scalar_type, PyArray_Descr* descr) {
    if (PyDict_SetItemString(scalar_type->tp_dict, "dtype", reinterpret_cast<PyObject*>(descr)) < 0) return -1;
    PyType_Modified(scalar_type);
    return 0;
}

}  // namespace minifloat
