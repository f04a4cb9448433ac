// Casts between the formats and NumPy's void DType: raw bytes ('V4') and
// structured dtypes ('i4,f4'). Without casts of its own NumPy falls back to
// the legacy cast table, indexed by a type number these DTypes do not have
// (it read past the table and crashed). Raw bytes are refused with a
// TypeError; structured dtypes behave as for float16: a value goes into
// every field (every element of a subarray field), and a structured value
// with exactly one field converts that field (a subarray field: its first
// element). Field views are cast with NumPy's own machinery (our casts for
// numeric fields), so these loops hold the GIL.
#include <string>

#include "cast_specs.h"
#include "format_types.h"

namespace minifloat {

namespace {

bool is_structured(const PyArray_Descr* descr) { return PyDataType_NAMES(descr) != nullptr; }

int refuse_raw_bytes(const PyArray_Descr* void_descr, const PyArray_Descr* format_descr, bool into_format) {
    const char* format_name = runtime_of(format_descr).format.row->name;
    const std::string bytes = "V" + std::to_string(PyDataType_ELSIZE(void_descr));
    const std::string from = into_format ? bytes + " (raw bytes)" : format_name;
    const std::string to = into_format ? format_name : bytes + " (raw bytes)";
    PyErr_Format(PyExc_TypeError,
                 "cannot cast %s to %s: raw bytes have no value; to reinterpret bytes as codes use "
                 "arr.view(np.uint8).view(<dtype>)",
                 from.c_str(), to.c_str());
    return -1;
}

// (descriptor, byte offset) of field `i` of a structured descriptor.
bool field_at(const PyArray_Descr* descr, Py_ssize_t i, PyArray_Descr** field, npy_intp* offset) {
    PyObject* name = PyTuple_GET_ITEM(PyDataType_NAMES(descr), i);
    PyObject* entry = PyDict_GetItemWithError(PyDataType_FIELDS(descr), name);  // borrowed
    if (entry == nullptr) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "structured dtype without its field");
        return false;
    }
    *field = reinterpret_cast<PyArray_Descr*>(PyTuple_GET_ITEM(entry, 0));
    *offset = PyLong_AsSsize_t(PyTuple_GET_ITEM(entry, 1));
    return !(*offset == -1 && PyErr_Occurred());
}

// A 1-d array of n elements of `descr` over a loop's strided memory, with
// `extra` trailing length-1 axes of stride 0 (to broadcast into subarrays).
PyObject* view_of(PyArray_Descr* descr, char* data, npy_intp n, npy_intp stride, bool writeable, int extra = 0) {
    npy_intp dims[NPY_MAXDIMS], strides[NPY_MAXDIMS];
    dims[0] = n;
    strides[0] = stride;
    for (int d = 1; d <= extra; d++) {
        dims[d] = 1;
        strides[d] = 0;
    }
    Py_INCREF(descr);
    return PyArray_NewFromDescr(&PyArray_Type, descr, 1 + extra, dims, strides, data,
                                writeable ? NPY_ARRAY_WRITEABLE : 0, nullptr);
}

// Copies (with NumPy's unsafe casting) between two views; steals both.
int copy_between(PyObject* destination, PyObject* source) {
    int status = -1;
    if (destination != nullptr && source != nullptr) {
        status = PyArray_CopyInto(reinterpret_cast<PyArrayObject*>(destination),
                                  reinterpret_cast<PyArrayObject*>(source));
    }
    Py_XDECREF(destination);
    Py_XDECREF(source);
    return status;
}

NPY_CASTING void_to_format_resolve(PyArrayMethodObject*, PyArray_DTypeMeta* const dtypes[],
                                   PyArray_Descr* const given[], PyArray_Descr* loop[], npy_intp*) {
    PyArray_Descr* format = &format_types(format_index_of_dtype_class(dtypes[1])).descr->base;
    if (!is_structured(given[0])) return static_cast<NPY_CASTING>(refuse_raw_bytes(given[0], format, true));
    const Py_ssize_t fields = PyTuple_GET_SIZE(PyDataType_NAMES(given[0]));
    if (fields != 1) {
        PyErr_Format(PyExc_TypeError,
                     "cannot cast a structured dtype with %zd fields to %s; cast one field, "
                     "e.g. arr[name].astype(...)",
                     fields, runtime_of(format).format.row->name);
        return static_cast<NPY_CASTING>(-1);
    }
    Py_INCREF(given[0]);
    loop[0] = given[0];
    Py_INCREF(format);
    loop[1] = format;
    return NPY_UNSAFE_CASTING;
}

NPY_CASTING format_to_void_resolve(PyArrayMethodObject*, PyArray_DTypeMeta* const[],
                                   PyArray_Descr* const given[], PyArray_Descr* loop[], npy_intp*) {
    if (given[1] == nullptr || !is_structured(given[1])) {
        if (given[1] == nullptr) {
            PyErr_Format(PyExc_TypeError, "cannot cast %s to raw bytes (void); use .view(np.uint8)",
                         runtime_of(given[0]).format.row->name);
            return static_cast<NPY_CASTING>(-1);
        }
        return static_cast<NPY_CASTING>(refuse_raw_bytes(given[1], given[0], false));
    }
    Py_INCREF(given[0]);
    loop[0] = given[0];
    Py_INCREF(given[1]);
    loop[1] = given[1];
    return NPY_UNSAFE_CASTING;
}

// structured (one field) -> format: the field, or its first element
int void_to_format_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                        const npy_intp strides[], NpyAuxData*) {
    PyArray_Descr* field;
    npy_intp offset;
    if (!field_at(context->descriptors[0], 0, &field, &offset)) return -1;
    if (PyDataType_SUBARRAY(field) != nullptr) field = PyDataType_SUBARRAY(field)->base;
    return copy_between(view_of(context->descriptors[1], data[1], dimensions[0], strides[1], true),
                        view_of(field, data[0] + offset, dimensions[0], strides[0], false));
}

// format -> structured: the value into every field (every subarray element)
int format_to_void_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                        const npy_intp strides[], NpyAuxData*) {
    PyArray_Descr* target = context->descriptors[1];
    const Py_ssize_t fields = PyTuple_GET_SIZE(PyDataType_NAMES(target));
    for (Py_ssize_t i = 0; i < fields; i++) {
        PyArray_Descr* field;
        npy_intp offset;
        if (!field_at(target, i, &field, &offset)) return -1;
        // a subarray descriptor makes the view n x (its shape)
        const PyArray_ArrayDescr* sub = PyDataType_SUBARRAY(field);
        const int extra = sub == nullptr ? 0 : static_cast<int>(PySequence_Size(sub->shape));
        if (extra < 0 || extra >= NPY_MAXDIMS) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "subarray field has too many dimensions");
            return -1;
        }
        if (copy_between(view_of(field, data[1] + offset, dimensions[0], strides[1], true),
                         view_of(context->descriptors[0], data[0], dimensions[0], strides[0], false, extra)) < 0) {
            return -1;
        }
    }
    return 0;
}

std::vector<PyType_Slot> slots_with(void* resolve, PyArrayMethod_StridedLoop* loop) {
    return {{NPY_METH_resolve_descriptors, resolve},
            {NPY_METH_strided_loop, reinterpret_cast<void*>(loop)},
            {NPY_METH_unaligned_strided_loop, reinterpret_cast<void*>(loop)}};
}

}  // namespace

void append_void_cast_specs(int index, std::vector<PyArrayMethod_Spec*>& out) {
    const std::string name = runtime(index).name;
    const auto flags = static_cast<NPY_ARRAYMETHOD_FLAGS>(NPY_METH_SUPPORTS_UNALIGNED | NPY_METH_REQUIRES_PYAPI);
    out.push_back(make_method_spec((name + "_to_void").c_str(), 1, 1, NPY_UNSAFE_CASTING, flags,
                                   {nullptr, &PyArray_VoidDType},
                                   slots_with(reinterpret_cast<void*>(format_to_void_resolve), format_to_void_loop)));
    out.push_back(make_method_spec(("void_to_" + name).c_str(), 1, 1, NPY_UNSAFE_CASTING, flags,
                                   {&PyArray_VoidDType, nullptr},
                                   slots_with(reinterpret_cast<void*>(void_to_format_resolve), void_to_format_loop)));
}

}  // namespace minifloat
