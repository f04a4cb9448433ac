// Casts between the sub-byte integers and the float formats, by lookup
// tables computed at import through NumPy's own float64 <-> format casts,
// so they follow each format's rounding exactly without depending on the
// float formats' internals: int -> format rounds the value as float64 ->
// format does; format -> int follows the integer rules of int_casts.cpp
// (truncate; NaN, inf and out of range give 0 and "invalid").
#include <cmath>
#include <cstring>
#include <vector>

#include "cast_specs.h"
#include "fp_status.h"
#include "int_types.h"

namespace minifloat {

PyObject* g_int_module_for_init = nullptr;  // set by init_int_types while it runs

namespace {

struct FormatTables {
    PyArray_DTypeMeta* format_class;
    int code_bytes;                        // 1, or 2 for bfloat16
    uint16_t to_format[kIntFormatCount][256];  // our byte -> format code
    std::vector<uint8_t> to_int[kIntFormatCount];   // format code -> our byte
    std::vector<uint8_t> invalid[kIntFormatCount];  // format code -> 1 if NaN/inf/out of range
};

// Never destroyed (NumPy keeps the casts for the whole process): reached
// through a pointer, so the tables stay reachable after static destructors ran.
std::vector<FormatTables*>& g_tables = *new std::vector<FormatTables*>();

FormatTables* tables_of(const PyArray_Descr* format_descr) {
    for (FormatTables* t : g_tables) {
        if (reinterpret_cast<PyArray_DTypeMeta*>(Py_TYPE(format_descr)) == t->format_class) return t;
    }
    return nullptr;
}

template <class Code>
int int_to_format(PyArrayMethod_Context* ctx, char* const data[], const npy_intp dims[],
                  const npy_intp strides[], NpyAuxData*) {
    const uint16_t* table = tables_of(ctx->descriptors[1])->to_format[int_index_of_descr(ctx->descriptors[0])];
    const char* in = data[0];
    char* out = data[1];
    for (npy_intp i = 0; i < dims[0]; i++, in += strides[0], out += strides[1]) {
        const Code c = static_cast<Code>(table[static_cast<uint8_t>(*in)]);
        std::memcpy(out, &c, sizeof c);
    }
    return 0;
}

template <class Code>
int format_to_int(PyArrayMethod_Context* ctx, char* const data[], const npy_intp dims[],
                  const npy_intp strides[], NpyAuxData*) {
    const FormatTables* t = tables_of(ctx->descriptors[0]);
    const int index = int_index_of_descr(ctx->descriptors[1]);
    const uint8_t* table = t->to_int[index].data();
    const uint8_t* invalid = t->invalid[index].data();
    const char* in = data[0];
    char* out = data[1];
    uint8_t bad = 0;
    for (npy_intp i = 0; i < dims[0]; i++, in += strides[0], out += strides[1]) {
        Code c;
        std::memcpy(&c, in, sizeof c);
        *out = static_cast<char>(table[c]);
        bad |= invalid[c];
    }
    if (bad) raise_fp_flags(kFlagInvalid);
    return 0;
}

// arr.astype(dtype) with NumPy's floating-point warnings silenced (building
// the tables must not warn at import); new reference.
PyObject* quiet_astype(PyObject* numpy, PyObject* array, PyObject* dtype) {
    PyObject* factory = PyObject_GetAttrString(numpy, "errstate");
    if (factory == nullptr) return nullptr;
    PyObject* no_args = PyTuple_New(0);
    PyObject* ignore_all = Py_BuildValue("{s:s}", "all", "ignore");
    PyObject* errstate = (no_args && ignore_all) ? PyObject_Call(factory, no_args, ignore_all) : nullptr;
    Py_DECREF(factory);
    Py_XDECREF(no_args);
    Py_XDECREF(ignore_all);
    if (errstate == nullptr) return nullptr;
    PyObject* entered = PyObject_CallMethod(errstate, "__enter__", "");
    PyObject* result = entered == nullptr ? nullptr : PyObject_CallMethod(array, "astype", "O", dtype);
    Py_XDECREF(entered);
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject* exited = PyObject_CallMethod(errstate, "__exit__", "OOO", Py_None, Py_None, Py_None);
    PyErr_Restore(type, value, tb);
    Py_XDECREF(exited);
    Py_DECREF(errstate);
    return result;
}

// Builds the tables of one float format; -1 with an error set.
int build_tables(PyObject* numpy, PyObject* format_dtype, FormatTables* t) {
    PyArray_Descr* descr = reinterpret_cast<PyArray_Descr*>(format_dtype);
    t->format_class = reinterpret_cast<PyArray_DTypeMeta*>(Py_TYPE(descr));
    t->code_bytes = static_cast<int>(descr->elsize);
    if (t->code_bytes != 1 && t->code_bytes != 2) {
        PyErr_Format(PyExc_RuntimeError, "minifloat: no integer casts for %d-byte formats", t->code_bytes);
        return -1;
    }
    // our values -> format codes: every byte, read as each type's value
    npy_intp n256 = 256;
    PyObject* values = PyArray_SimpleNew(1, &n256, NPY_DOUBLE);
    if (values == nullptr) return -1;
    for (int k = 0; k < kIntFormatCount; k++) {
        const IntTypeRuntime& rt = int_runtime(k);
        double* v = static_cast<double*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(values)));
        for (int b = 0; b < 256; b++) {
            v[b] = wrap_to_int_type(rt.row->is_signed ? static_cast<int8_t>(b) : b, rt.row->bits, rt.row->is_signed);
        }
        PyObject* codes = quiet_astype(numpy, values, format_dtype);
        if (codes == nullptr) {
            Py_DECREF(values);
            return -1;
        }
        const char* c = static_cast<const char*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(codes)));
        for (int b = 0; b < 256; b++) {
            uint16_t code = 0;
            std::memcpy(&code, c + b * t->code_bytes, static_cast<size_t>(t->code_bytes));
            t->to_format[k][b] = code;
        }
        Py_DECREF(codes);
    }
    Py_DECREF(values);

    // format codes -> our values
    npy_intp count = t->code_bytes == 1 ? 256 : 65536;
    PyObject* raw = PyArray_SimpleNew(1, &count, t->code_bytes == 1 ? NPY_UINT8 : NPY_UINT16);
    if (raw == nullptr) return -1;
    for (npy_intp i = 0; i < count; i++) {
        const uint16_t code = static_cast<uint16_t>(i);
        std::memcpy(static_cast<char*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(raw))) + i * t->code_bytes,
                    &code, static_cast<size_t>(t->code_bytes));
    }
    Py_INCREF(descr);
    PyObject* as_format = PyArray_View(reinterpret_cast<PyArrayObject*>(raw), descr, nullptr);
    Py_DECREF(raw);
    if (as_format == nullptr) return -1;
    PyObject* float64 = reinterpret_cast<PyObject*>(PyArray_DescrFromType(NPY_DOUBLE));
    PyObject* decoded = quiet_astype(numpy, as_format, float64);
    Py_DECREF(float64);
    Py_DECREF(as_format);
    if (decoded == nullptr) return -1;
    const double* d = static_cast<const double*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(decoded)));
    for (int k = 0; k < kIntFormatCount; k++) {
        const IntTypeRuntime& rt = int_runtime(k);
        t->to_int[k].resize(static_cast<size_t>(count));
        t->invalid[k].resize(static_cast<size_t>(count));
        for (npy_intp i = 0; i < count; i++) {
            const double x = std::trunc(d[i]);
            const bool ok = x >= rt.min && x <= rt.max;
            t->to_int[k][i] = ok ? int_code_of(static_cast<int>(x)) : 0;
            t->invalid[k][i] = ok ? 0 : 1;
        }
    }
    Py_DECREF(decoded);
    return 0;
}

// Whether every value of type `index` survives the round trip through the format.
bool exact_in_format(const FormatTables* t, int index) {
    const IntTypeRuntime& rt = int_runtime(index);
    for (int v = rt.min; v <= rt.max; v++) {
        const uint8_t b = int_code_of(v);
        const uint16_t code = t->to_format[index][b];
        if (t->invalid[index][code] || t->to_int[index][code] != b) return false;
    }
    return true;
}

}  // namespace

int install_int_float_format_casts(int index, std::vector<PyArrayMethod_Spec*>& out) {
    if (g_int_module_for_init == nullptr) return 0;
    if (index == 0) {  // the tables serve every integer type
        PyObject* numpy = PyImport_ImportModule("numpy");
        if (numpy == nullptr) return -1;
        PyObject* names = PyObject_GetAttrString(g_int_module_for_init, "FORMAT_NAMES");
        if (names == nullptr) {
            Py_DECREF(numpy);
            return -1;
        }
        const Py_ssize_t n = PySequence_Length(names);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject* name = PySequence_GetItem(names, i);
            PyObject* scalar_type = name == nullptr ? nullptr : PyObject_GetAttr(g_int_module_for_init, name);
            Py_XDECREF(name);
            PyArray_Descr* descr = nullptr;
            if (scalar_type == nullptr || PyArray_DescrConverter(scalar_type, &descr) == NPY_FAIL) {
                Py_XDECREF(scalar_type);
                Py_DECREF(names);
                Py_DECREF(numpy);
                return -1;
            }
            Py_DECREF(scalar_type);
            FormatTables* t = new FormatTables();
            const int status = build_tables(numpy, reinterpret_cast<PyObject*>(descr), t);
            Py_DECREF(descr);
            if (status < 0) {
                delete t;
                Py_DECREF(names);
                Py_DECREF(numpy);
                return -1;
            }
            g_tables.push_back(t);
        }
        Py_DECREF(names);
        Py_DECREF(numpy);
    }
    for (FormatTables* t : g_tables) {
        const bool two = t->code_bytes == 2;
        const NPY_ARRAYMETHOD_FLAGS quiet =
            static_cast<NPY_ARRAYMETHOD_FLAGS>(NPY_METH_SUPPORTS_UNALIGNED | NPY_METH_NO_FLOATINGPOINT_ERRORS);
        out.push_back(make_method_spec("int_to_format", 1, 1,
                                       exact_in_format(t, index) ? NPY_SAFE_CASTING : NPY_SAME_KIND_CASTING,
                                       quiet, {nullptr, t->format_class},
                                       loop_slots(two ? int_to_format<uint16_t> : int_to_format<uint8_t>)));
        out.push_back(make_method_spec("format_to_int", 1, 1, NPY_UNSAFE_CASTING, NPY_METH_SUPPORTS_UNALIGNED,
                                       {t->format_class, nullptr},
                                       loop_slots(two ? format_to_int<uint16_t> : format_to_int<uint8_t>)));
    }
    return 0;
}

}  // namespace minifloat
