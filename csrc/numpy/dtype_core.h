// One core for every family of minifloat's DType classes (the float
// formats: dtype_class.cpp; the sub-byte integers: integers/int_dtypes.cpp;
// the complex types: complex/complex_dtypes.cpp).
// A family is an abstract parent (NumPy's promoters key on it; it has no
// instances) and one concrete class per member, each with one singleton
// descriptor. What every family does alike is written here once: the
// descriptor slots, the class as a Python type (no-argument constructor,
// name, str, __reduce__, newbyteorder), the abstract parent, the assembly
// of a member's cast specs and slots, its legacy copyswap and the scalar
// type's `dtype` attribute. What differs is a family's traits, a struct of
// static members the templates below read at compile time (no indirection
// in any slot):
//
//   struct MyFamily {
//       // the abstract parent: its tp_name (errors name it) and doc; where
//       // the parent lives; its scalar type (ready before)
//       static constexpr const char* kAbstractName = "minifloat.MyDType";
//       static constexpr const char* kAbstractDoc = "...";
//       static PyArray_DTypeMeta& abstract_dtype();
//       static PyTypeObject& abstract_scalar_type();
//       // a member class's tp_doc, the `name` property's doc; the size of
//       // the family's descriptor struct (PyArray_Descr first, then its index)
//       static constexpr const char* kMemberDoc = "...";
//       static constexpr const char* kNameDoc = "...";
//       static constexpr Py_ssize_t kDescrSize = sizeof(MyDescr);
//       // whose casts other layers add (cast_specs.h)
//       static constexpr CastFamily kCasts = CastFamily::...;
//       // how newbyteorder's error for a wider type says to swap the bytes
//       static constexpr const char* kSwapHint = "to swap the bytes of the codes use arr.byteswap()";
//       // members by index: -1 for a class that is not one (the parent)
//       static int index_of_class(const PyArray_DTypeMeta* cls);
//       static int index_of_descr(const PyArray_Descr* descr);  // a member's
//       static PyArray_DTypeMeta& dtype_class(int index);        // storage
//       static PyTypeObject& scalar_type(int index);              // ready before
//       static const char* dtype_name(int index);  // tp_name, lives forever
//       static const char* name(int index);        // dtype.name: "float8_e4m3fn"
//       static PyObject* repr(int index);          // new reference
//       static PyObject* reduce_value(int index);  // borrowed; nullptr: np.dtype(scalar type)
//       // the singleton: its kind and type characters, where it is kept
//       // (with the index written into it)
//       static char kind(int index);
//       static char type_char(int index);
//       static int itemsize(int index);
//       // one part's width: the alignment, and what a byte swap reverses
//       // (the whole element, or each part of a complex one)
//       static int part_bytes(int index);
//       static void keep_singleton(int index, PyArray_Descr* descr);
//       static PyArray_Descr* singleton(int index);  // borrowed
//       // the family's own slots and casts
//       static PyArray_DTypeMeta* common_dtype(PyArray_DTypeMeta* cls, PyArray_DTypeMeta* other);
//       static int setitem(PyArray_Descr* descr, PyObject* value, char* data);
//       static PyObject* getitem(PyArray_Descr* descr, char* data);
//       static int append_casts(int index, std::vector<PyArrayMethod_Spec*>& out);  // -1: error set
//       static void append_slots(int index, std::vector<PyType_Slot>& out);         // beyond the core's
//       // after the class, its singleton and copyswap are made, before the
//       // scalar type gets its `dtype`; -1: error set
//       static int finish(int index, PyArray_Descr* singleton);
//   };
//
// then DTypeCore<MyFamily>::init_abstract() once and
// DTypeCore<MyFamily>::init_member(index) for each member.
#pragma once

#include <vector>

#include "cast_specs.h"
#include "legacy_copyswap.h"
#include "numpy_api.h"

namespace minifloat {

// ---- shared by every family (dtype_core.cpp) ------------------------------

// __reduce__ of a member's descriptor: (np.dtype, (scalar_type,)).
PyObject* reduce_by_scalar_type(PyTypeObject* scalar_type);

// dtype.newbyteorder(order) for a member named `name` stored in `itemsize`
// bytes: a one-byte type has no byte order ('|'), so every order is this
// dtype (as for np.uint8); a wider one exists in native order only (the
// other raises TypeError, ending in `swap_hint`).
PyObject* newbyteorder(PyObject* self, PyObject* const* args, Py_ssize_t nargs, const char* name, int itemsize,
                       const char* swap_hint);

// Makes the abstract parent `cls` (tp_name `name`) of a family whose
// descriptors are `descr_size` bytes, its scalar type `scalar_type`.
int init_abstract_dtype(PyArray_DTypeMeta* cls, const char* name, const char* doc, Py_ssize_t descr_size,
                        PyTypeObject* scalar_type, newfunc new_function);

// Makes the concrete class `cls` (a PyType_Ready'd type) a NumPy DType with
// `casts` (the family's own; the ones added for `family` are appended) and
// the slots `slots`, then its singleton descriptor (aligned to `part_bytes`);
// nullptr with an error set.
PyArray_Descr* init_member_dtype(PyArray_DTypeMeta* cls, PyTypeObject* scalar_type, CastFamily family, int index,
                                 std::vector<PyArrayMethod_Spec*> casts, std::vector<PyType_Slot> slots,
                                 int itemsize, int part_bytes, char kind, char type_char);

// `scalar_type.dtype` is the member's descriptor (as ml_dtypes' types have
// it; a class attribute, so instances find it too). -1 with an error set.
int attach_dtype_to_scalar_type(PyTypeObject* scalar_type, PyArray_Descr* descr);

// ---- one family -------------------------------------------------------------

template <class F>
struct DTypeCore {
    // The descriptor slots: every member has exactly one descriptor.
    static PyArray_Descr* singleton_of(PyArray_DTypeMeta* cls) {
        PyArray_Descr* descr = F::singleton(F::index_of_class(cls));
        Py_INCREF(descr);
        return descr;
    }
    static PyArray_Descr* default_descr(PyArray_DTypeMeta* cls) { return singleton_of(cls); }
    static PyArray_Descr* discover_descr(PyArray_DTypeMeta* cls, PyObject*) { return singleton_of(cls); }
    static PyArray_Descr* ensure_canonical(PyArray_Descr* descr) {
        PyArray_Descr* canonical = F::singleton(F::index_of_descr(descr));
        Py_INCREF(canonical);
        return canonical;
    }

    // The class as a Python type: np.dtype(cls) and cls() give the singleton.
    static PyObject* dtype_new(PyTypeObject* cls, PyObject* args, PyObject* kwds) {
        if (PyTuple_GET_SIZE(args) != 0 || (kwds != nullptr && PyDict_Size(kwds) != 0)) {
            PyErr_Format(PyExc_TypeError, "%s() takes no arguments", cls->tp_name);
            return nullptr;
        }
        if (F::index_of_class(reinterpret_cast<PyArray_DTypeMeta*>(cls)) < 0) {
            PyErr_Format(PyExc_TypeError, "%s is abstract", F::kAbstractName);
            return nullptr;
        }
        return reinterpret_cast<PyObject*>(singleton_of(reinterpret_cast<PyArray_DTypeMeta*>(cls)));
    }
    static int index_of(PyObject* self) { return F::index_of_descr(reinterpret_cast<PyArray_Descr*>(self)); }
    static PyObject* repr(PyObject* self) { return F::repr(index_of(self)); }
    static PyObject* name(PyObject* self, void*) { return PyUnicode_FromString(F::name(index_of(self))); }
    // Code that rebuilds a dtype from `.str` (structured dtypes' `.descr`,
    // np.save headers of structured arrays, dask.distributed's array frames)
    // must get this type back, not NumPy's raw-bytes reading of a "|V1".
    // The package registers this spelling with np.dtype() on import, under a
    // key ml_dtypes (which owns "float8_e4m3fn" once imported after us)
    // cannot take; without minifloat imported, np.dtype() raises instead of
    // silently returning bytes.
    static PyObject* typestr(PyObject* self, void*) {
        return PyUnicode_FromFormat("minifloat.%s", F::name(index_of(self)));
    }
    static PyObject* reduce(PyObject* self, PyObject*) {
        const int index = index_of(self);
        if (PyObject* value = F::reduce_value(index)) {  // made at run time: by its parameters
            Py_INCREF(value);
            return value;
        }
        return reduce_by_scalar_type(&F::scalar_type(index));
    }
    static PyObject* byteorder(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
        const int index = index_of(self);
        return newbyteorder(self, args, nargs, F::name(index), F::itemsize(index), F::kSwapHint);
    }

    static inline PyMethodDef methods[] = {
        {"__reduce__", reduce, METH_NOARGS, nullptr},
        {"newbyteorder", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(byteorder)), METH_FASTCALL,
         "This dtype for every byte order its width allows: a one-byte type has none; a wider one exists "
         "in native order only."},
        {nullptr, nullptr, 0, nullptr},
    };
    static inline PyGetSetDef getset[] = {
        {"name", name, nullptr, F::kNameDoc, nullptr},
        {"str", typestr, nullptr, "\"minifloat.<name>\": np.dtype() of it is this dtype.", nullptr},
        {nullptr, nullptr, nullptr, nullptr, nullptr},
    };

    static int init_abstract() {
        return init_abstract_dtype(&F::abstract_dtype(), F::kAbstractName, F::kAbstractDoc, F::kDescrSize,
                                   &F::abstract_scalar_type(), dtype_new);
    }

    // The concrete class of member `index`, its casts and slots, and its
    // singleton descriptor.
    static int init_member(int index) {
        PyTypeObject* t = reinterpret_cast<PyTypeObject*>(&F::dtype_class(index));
        Py_SET_TYPE(t, &PyArrayDTypeMeta_Type);
        Py_SET_REFCNT(t, 1);
        t->tp_name = F::dtype_name(index);
        t->tp_doc = F::kMemberDoc;
        t->tp_basicsize = F::kDescrSize;
        t->tp_flags = Py_TPFLAGS_DEFAULT;
        t->tp_base = reinterpret_cast<PyTypeObject*>(&F::abstract_dtype());
        t->tp_new = dtype_new;
        t->tp_repr = repr;
        t->tp_str = repr;
        t->tp_methods = methods;
        t->tp_getset = getset;
        if (PyType_Ready(t) < 0) return -1;

        std::vector<PyArrayMethod_Spec*> casts;
        if (F::append_casts(index, casts) < 0) return -1;
        std::vector<PyType_Slot> slots = {
            {NPY_DT_discover_descr_from_pyobject, reinterpret_cast<void*>(discover_descr)},
            {NPY_DT_default_descr, reinterpret_cast<void*>(default_descr)},
            {NPY_DT_common_dtype, reinterpret_cast<void*>(F::common_dtype)},
            {NPY_DT_ensure_canonical, reinterpret_cast<void*>(ensure_canonical)},
            {NPY_DT_setitem, reinterpret_cast<void*>(F::setitem)},
            {NPY_DT_getitem, reinterpret_cast<void*>(F::getitem)},
        };
        F::append_slots(index, slots);
        PyArray_Descr* descr = init_member_dtype(&F::dtype_class(index), &F::scalar_type(index), F::kCasts, index,
                                                 std::move(casts), std::move(slots), F::itemsize(index),
                                                 F::part_bytes(index), F::kind(index), F::type_char(index));
        if (descr == nullptr) return -1;
        F::keep_singleton(index, descr);
        if (install_copyswap(descr, F::itemsize(index), F::part_bytes(index)) < 0) return -1;
        if (F::finish(index, descr) < 0) return -1;
        return attach_dtype_to_scalar_type(&F::scalar_type(index), descr);
    }
};

}  // namespace minifloat
