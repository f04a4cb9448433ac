// Casts between the sub-byte integers and ml_dtypes' int1/int2/int4/uint1/
// uint2/uint4, both ways, so `ml_array.astype(mf.int4)` and
// `mf_array.astype(ml_dtypes.int4)` work.
//
// The storage differs for the signed types: minifloat sign-extends a value
// to the whole byte (int4 -1 is 0xFF, the int8 of the same value), ml_dtypes
// keeps only the type's low bits (int4 -1 is 0x0F) and ignores the others
// when it reads. So the same type is a copy of the value, not of the byte,
// and two widths follow NumPy's integer rules (wrap to the target's width,
// as int16 -> int8 does). Unsigned types are stored alike in both.
//
// As for the float formats (casts_ml_dtypes.cpp), NumPy files a cast under
// its source DType and takes new casts only while a DType is being made, so
// each of our DTypes lists the casts from and to every ml_dtypes int DType.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cast_specs.h"
#include "casts_ml_dtypes.h"
#include "int_types.h"

namespace minifloat {

namespace {

struct MlIntClasses {
    bool looked_up = false;
    // Strong references for the life of the process (NumPy's tables hold them).
    PyArray_DTypeMeta* by_type[kIntFormatCount] = {};
};
MlIntClasses g_ml_ints;

bool skipped_by_environment() {
    const char* value = std::getenv("MINIFLOAT_NO_ML_DTYPES");
    return value != nullptr && value[0] != '\0' && std::strcmp(value, "0") != 0;
}

// ml_dtypes' DType class of our type `index`, or nullptr when ml_dtypes has
// no such type or it is not a one-byte legacy type of its own (new ref).
PyArray_DTypeMeta* ml_class_of(PyObject* module, int index) {
    PyObject* scalar_type = PyObject_GetAttrString(module, kIntFormatTable[index].name);
    if (scalar_type == nullptr) {
        PyErr_Clear();  // an older ml_dtypes without this type
        return nullptr;
    }
    PyArray_Descr* descr = nullptr;
    if (!PyType_Check(scalar_type) || PyArray_DescrConverter(scalar_type, &descr) != NPY_SUCCEED) {
        PyErr_Clear();
        Py_DECREF(scalar_type);
        return nullptr;
    }
    PyArray_DTypeMeta* cls = reinterpret_cast<PyArray_DTypeMeta*>(Py_TYPE(descr));
    const bool usable = descr->typeobj == reinterpret_cast<PyTypeObject*>(scalar_type) &&
                        PyDataType_ELSIZE(descr) == 1 && descr->type_num >= NPY_USERDEF &&
                        int_index_of_dtype_class(cls) < 0;
    Py_DECREF(scalar_type);
    if (usable) Py_INCREF(cls);
    Py_DECREF(descr);
    return usable ? cls : nullptr;
}

void fill_translations();

// Imports ml_dtypes (when installed and not skipped) and finds its classes.
// Failures other than "not installed" only cost these casts.
void look_up_ml_int_classes() {
    if (g_ml_ints.looked_up) return;
    g_ml_ints.looked_up = true;
    if (skipped_by_environment()) return;
    PyObject* module = PyImport_ImportModule("ml_dtypes");
    if (module == nullptr) {
        PyErr_Clear();  // absent or broken: the float formats' lookup already said which
        return;
    }
    for (int i = 0; i < kIntFormatCount; i++) g_ml_ints.by_type[i] = ml_class_of(module, i);
    Py_DECREF(module);
    fill_translations();
}

int ml_index_of_class(const PyArray_DTypeMeta* cls) {
    for (int i = 0; i < kIntFormatCount; i++) {
        if (g_ml_ints.by_type[i] == cls) return i;
    }
    return -1;
}

// One end of a cast: which type, and whose storage convention.
struct IntEnd {
    int index;
    bool is_ml_dtypes;
};

IntEnd end_of(const PyArray_Descr* d) {
    const int own = int_index_of_descr(d);
    if (own >= 0) return {own, false};
    return {ml_index_of_class(reinterpret_cast<const PyArray_DTypeMeta*>(Py_TYPE(d))), true};
}

int value_of_byte(IntEnd end, uint8_t byte) {
    const IntFormatRow& row = kIntFormatTable[end.index];
    // ml_dtypes reads only the low bits; ours are already sign-extended, and
    // reading them the same way gives the same value
    return wrap_to_int_type(byte, row.bits, row.is_signed);
}

uint8_t byte_of_value(IntEnd end, int value) {
    const IntFormatRow& row = kIntFormatTable[end.index];
    const int wrapped = wrap_to_int_type(value, row.bits, row.is_signed);
    return end.is_ml_dtypes ? static_cast<uint8_t>(wrapped & ((1 << row.bits) - 1)) : int_code_of(wrapped);
}

// 256-entry byte translation for every (source, target) pair, filled once
// at import (loops may run without the GIL, so nothing is filled lazily).
uint8_t g_tables[2][kIntFormatCount][2][kIntFormatCount][256];

void fill_translations() {
    for (int fm = 0; fm < 2; fm++)
        for (int fi = 0; fi < kIntFormatCount; fi++)
            for (int tm = 0; tm < 2; tm++)
                for (int ti = 0; ti < kIntFormatCount; ti++)
                    for (int b = 0; b < 256; b++)
                        g_tables[fm][fi][tm][ti][b] =
                            byte_of_value({ti, tm == 1}, value_of_byte({fi, fm == 1}, static_cast<uint8_t>(b)));
}

const uint8_t* translation(IntEnd from, IntEnd to) {
    return g_tables[from.is_ml_dtypes][from.index][to.is_ml_dtypes][to.index];
}

int ml_int_cast_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                     const npy_intp strides[], NpyAuxData*) {
    const uint8_t* table = translation(end_of(context->descriptors[0]), end_of(context->descriptors[1]));
    const char* in = data[0];
    char* out = data[1];
    const npy_intp n = dimensions[0];
    if (strides[0] == 1 && strides[1] == 1) {
        const uint8_t* src = reinterpret_cast<const uint8_t*>(in);
        uint8_t* dst = reinterpret_cast<uint8_t*>(out);
        for (npy_intp i = 0; i < n; i++) dst[i] = table[src[i]];
        return 0;
    }
    for (npy_intp i = 0; i < n; i++, in += strides[0], out += strides[1]) {
        *reinterpret_cast<uint8_t*>(out) = table[*reinterpret_cast<const uint8_t*>(in)];
    }
    return 0;
}

// Same type, unsigned: the same bits ("equiv", as a byte-order change is).
// Same type, signed: the same values in other bits ("safe"). Otherwise safe
// when the target's range holds the source's, else same_kind.
NPY_CASTING casting_between(int from, int to) {
    const IntTypeRuntime &a = int_runtime(from), &b = int_runtime(to);
    if (from == to) return a.row->is_signed ? NPY_SAFE_CASTING : NPY_EQUIV_CASTING;
    return (b.min <= a.min && b.max >= a.max) ? NPY_SAFE_CASTING : NPY_SAME_KIND_CASTING;
}

}  // namespace

int append_int_ml_dtypes_cast_specs(int index, std::vector<PyArrayMethod_Spec*>& out) {
    look_up_ml_int_classes();
    const std::string name = kIntFormatTable[index].name;
    const NPY_ARRAYMETHOD_FLAGS flags =
        static_cast<NPY_ARRAYMETHOD_FLAGS>(NPY_METH_SUPPORTS_UNALIGNED | NPY_METH_NO_FLOATINGPOINT_ERRORS);
    for (int other = 0; other < kIntFormatCount; other++) {
        PyArray_DTypeMeta* ml_class = g_ml_ints.by_type[other];
        if (ml_class == nullptr) continue;
        const std::string ml_name = std::string("ml_dtypes.") + kIntFormatTable[other].name;
        out.push_back(make_method_spec((ml_name + "_to_" + name).c_str(), 1, 1, casting_between(other, index), flags,
                                       {ml_class, nullptr}, loop_slots(ml_int_cast_loop)));
        out.push_back(make_method_spec((name + "_to_" + ml_name).c_str(), 1, 1, casting_between(index, other), flags,
                                       {nullptr, ml_class}, loop_slots(ml_int_cast_loop)));
    }
    return 0;
}

}  // namespace minifloat
