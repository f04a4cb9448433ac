// Casts between minifloat's DTypes and ml_dtypes' DTypes of the formats both
// libraries have, so `ml_array.astype(mf.T)` and `mf_array.astype(ml.T)` work
// without a `.view` detour.
//
// NumPy looks a cast up only in the source DType's table, and its public API
// can add casts only while a DType is being made; but a cast listed in that
// DType's spec may have any DType at its other end, and NumPy files it under
// its source. So ml_dtypes is imported before minifloat's DTypes are made and
// each format's spec lists casts from and to every ml_dtypes DType. ml_dtypes
// imported later would get none: minifloat imports it when it is installed.
//
// ml_dtypes stores each format in the same bits as minifloat (bfloat16 as two
// bytes, the rest one byte, FP6/FP4 in the low bits), so the same format is a
// copy and two formats go through minifloat's own format-to-format kernels.
// The casts use NumPy's default descriptor resolution: a given descriptor is
// made canonical (native byte order), a missing one is the DType's default,
// which for ml_dtypes' legacy DTypes is their one descriptor.
#include "casts_ml_dtypes.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "cast_specs.h"
#include "format_translation.h"
#include "format_types.h"
#include "promotion.h"

namespace minifloat {

namespace {

struct MlDtypesClasses {
    bool looked_up = false;
    // Strong references, kept for the life of the process (NumPy's cast
    // tables point at them too).
    PyArray_DTypeMeta* by_format[kBuiltinFormatCount] = {};  // ml_dtypes names built-in formats only
};
MlDtypesClasses g_ml_dtypes;

bool skipped_by_environment() {
    const char* value = std::getenv("MINIFLOAT_NO_ML_DTYPES");
    return value != nullptr && value[0] != '\0' && std::strcmp(value, "0") != 0;
}

// ml_dtypes is installed but something about it failed: minifloat still
// works, without these casts, and says why. -1 only when the warning itself
// is turned into an error (-W error).
int warn_unusable(const char* what) {
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    const int status = PyErr_WarnFormat(
        PyExc_RuntimeWarning, 1,
        "minifloat: %s (%S); casts between ml_dtypes and minifloat arrays are not available "
        "(set MINIFLOAT_NO_ML_DTYPES=1 to skip ml_dtypes)",
        what, value != nullptr ? value : Py_None);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(traceback);
    return status;
}

// Legacy user types number from NPY_USERDEF up, new-style DTypes have -1.
bool is_numpy_own_type(int type_num) {
    return (type_num >= 0 && type_num < NPY_USERDEF) || type_num == NPY_VSTRING;
}

// ml_dtypes' DType class for format `index`, or nullptr (new reference).
// A class is taken only when its descriptor is ml_dtypes' own scalar type of
// the format's size, and is not one of NumPy's (which have their casts
// already) nor taken by another format; the tests check that every code
// means the same.
PyArray_DTypeMeta* ml_dtypes_class_of(PyObject* module, int index, bool* failed) {
    PyObject* scalar_type = PyObject_GetAttrString(module, kFormatTable[index].name);
    if (scalar_type == nullptr) {
        // an older ml_dtypes without this format
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) PyErr_Clear();
        else *failed = true;
        return nullptr;
    }
    PyArray_Descr* descr = nullptr;
    if (PyArray_DescrConverter(scalar_type, &descr) != NPY_SUCCEED) {
        Py_DECREF(scalar_type);
        *failed = true;
        return nullptr;
    }
    PyArray_DTypeMeta* cls = reinterpret_cast<PyArray_DTypeMeta*>(Py_TYPE(descr));
    const bool usable = descr->typeobj == reinterpret_cast<PyTypeObject*>(scalar_type) &&
                        PyDataType_ELSIZE(descr) == runtime(index).format.storage_bytes &&
                        !is_numpy_own_type(descr->type_num) &&
                        (cls->flags & NPY_DT_PARAMETRIC) == 0 &&
                        format_index_of_dtype_class(cls) < 0 &&
                        format_index_of_ml_dtypes_class(cls) < 0;
    Py_DECREF(scalar_type);
    if (usable) Py_INCREF(cls);
    Py_DECREF(descr);
    return usable ? cls : nullptr;
}

// The pending error says ml_dtypes itself is missing (not a module it needs).
bool ml_dtypes_not_installed() {
    if (!PyErr_ExceptionMatches(PyExc_ModuleNotFoundError)) return false;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    bool missing = false;
    if (PyObject* name = value != nullptr ? PyObject_GetAttrString(value, "name") : nullptr) {
        missing = PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, "ml_dtypes") == 0;
        Py_DECREF(name);
    } else {
        PyErr_Clear();
    }
    PyErr_Restore(type, value, traceback);
    return missing;
}

int look_up_ml_dtypes_classes() {
    if (g_ml_dtypes.looked_up) return 0;
    g_ml_dtypes.looked_up = true;
    if (skipped_by_environment()) return 0;
    PyObject* module = PyImport_ImportModule("ml_dtypes");
    if (module == nullptr) {
        if (ml_dtypes_not_installed()) {
            PyErr_Clear();  // nothing to link
            return 0;
        }
        return warn_unusable("importing ml_dtypes failed");
    }
    for (int i = 0; i < kBuiltinFormatCount; i++) {
        bool failed = false;
        g_ml_dtypes.by_format[i] = ml_dtypes_class_of(module, i, &failed);
        if (failed && warn_unusable("reading an ml_dtypes type failed") < 0) {
            Py_DECREF(module);
            return -1;
        }
    }
    Py_DECREF(module);
    return 0;
}

int format_of_descr(const PyArray_Descr* descr) {
    const int own = format_index_of_descr(descr);
    if (own >= 0) return own;
    return format_index_of_ml_dtypes_class(reinterpret_cast<const PyArray_DTypeMeta*>(Py_TYPE(descr)));
}

int ml_dtypes_cast_loop(PyArrayMethod_Context* context, char* const data[],
                        const npy_intp dimensions[], const npy_intp strides[], NpyAuxData*) {
    translate_codes(format_of_descr(context->descriptors[0]),
                    format_of_descr(context->descriptors[1]), data, dimensions[0], strides);
    return 0;
}

// The same format under both DTypes is "equiv": the same values in the same
// bits, as NumPy calls a byte-order change; two formats are as safe as the
// cast between minifloat's own DTypes of them.
NPY_CASTING ml_dtypes_casting(int from, int to) {
    return from == to ? NPY_EQUIV_CASTING : format_to_format_casting(from, to);
}

}  // namespace

int format_index_of_ml_dtypes_class(const PyArray_DTypeMeta* cls) {
    if (cls == nullptr) return -1;
    for (int i = 0; i < kBuiltinFormatCount; i++) {
        if (g_ml_dtypes.by_format[i] == cls) return i;
    }
    return -1;
}

void register_ml_dtypes_interop() {
    add_cast_spec_source(CastFamily::floats, append_ml_dtypes_cast_specs);
    add_cast_spec_source(CastFamily::integers, append_int_ml_dtypes_cast_specs);
    set_foreign_format_lookup(format_index_of_ml_dtypes_class);
}

int append_ml_dtypes_cast_specs(int index, std::vector<PyArrayMethod_Spec*>& out) {
    if (look_up_ml_dtypes_classes() < 0) return -1;
    const std::string name = runtime(index).name;
    for (int other = 0; other < kBuiltinFormatCount; other++) {
        PyArray_DTypeMeta* ml_class = g_ml_dtypes.by_format[other];
        if (ml_class == nullptr) continue;
        const std::string ml_name = std::string("ml_dtypes.") + kFormatTable[other].name;
        // a copy raises no floating-point flags: NumPy can skip checking them
        const NPY_ARRAYMETHOD_FLAGS flags = static_cast<NPY_ARRAYMETHOD_FLAGS>(
            NPY_METH_SUPPORTS_UNALIGNED | (other == index ? NPY_METH_NO_FLOATINGPOINT_ERRORS : 0));
        out.push_back(make_method_spec((ml_name + "_to_" + name).c_str(), 1, 1,
                                       ml_dtypes_casting(other, index), flags,
                                       {ml_class, nullptr}, loop_slots(ml_dtypes_cast_loop)));
        out.push_back(make_method_spec((name + "_to_" + ml_name).c_str(), 1, 1,
                                       ml_dtypes_casting(index, other), flags,
                                       {nullptr, ml_class}, loop_slots(ml_dtypes_cast_loop)));
    }
    return 0;
}

}  // namespace minifloat
