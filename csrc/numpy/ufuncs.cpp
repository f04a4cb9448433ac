// Adds every format's loops to NumPy's ufuncs and registers promoters, so
// mixed operands follow the promotion rules of promotion.cpp: promoters
// are keyed on the abstract MinifloatDType, which all formats subclass.
#include "ufuncs.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "cast_specs.h"
#include "format_types.h"
#include "promote_by_resolution.h"
#include "promoter_registration.h"
#include "python_number_comparisons.h"
#include "threaded_loops.h"
#include "ufunc_accumulate.h"
#include "ufunc_linalg.h"
#include "ufunc_loops.h"

namespace minifloat {

namespace {


// The common DType of the given (non-NULL) DTypes; new reference.
PyArray_DTypeMeta* common_of(PyArray_DTypeMeta* const dtypes[], int count) {
    PyArray_DTypeMeta* present[8];
    int n = 0;
    for (int i = 0; i < count; i++) {
        if (dtypes[i] != nullptr) present[n++] = dtypes[i];
    }
    if (n == 0) {
        PyErr_SetString(PyExc_TypeError, "minifloat: no operand DTypes to promote");
        return nullptr;
    }
    return PyArray_PromoteDTypeSequence(n, present);
}

// Operands and results share one type (add, maximum, matmul, divmod, ...).
// An explicit signature or dtype= decides it, otherwise the inputs' common
// type does.
int homogeneous_promoter(PyObject* ufunc, PyArray_DTypeMeta* const op_dtypes[],
                         PyArray_DTypeMeta* const signature[], PyArray_DTypeMeta* new_op_dtypes[]) {
    const PyUFuncObject* u = reinterpret_cast<PyUFuncObject*>(ufunc);
    bool has_signature = false;
    for (int i = 0; i < u->nargs; i++) has_signature |= signature[i] != nullptr;
    PyArray_DTypeMeta* common =
        has_signature ? common_of(signature, u->nargs) : common_of(op_dtypes, u->nin);
    if (common == nullptr) return -1;
    for (int i = 0; i < u->nargs; i++) new_op_dtypes[i] = new_dtype_ref(common);
    Py_DECREF(common);
    return 0;
}

// Python numbers are weak (NEP 50): `x < 0.1` rounds 0.1 into x's format
// and compares there, as NumPy does for float16 and ml_dtypes for its types.
// float8_e8m0fnu is the exception: it holds neither 0 nor negatives, so a
// weak 0 would turn into NaN and `x > 0` would be False everywhere. Its
// comparisons with Python numbers run exactly in float64 (every value of it
// is a float64).
bool compares_e8m0_with_python_number(const PyUFuncObject* u, PyArray_DTypeMeta* const op_dtypes[]) {
    bool python_number = false, unsigned_format = false;
    for (int i = 0; i < u->nin; i++) {
        python_number |= op_dtypes[i] == &PyArray_PyFloatDType || op_dtypes[i] == &PyArray_PyLongDType;
        const int index = op_dtypes[i] == nullptr ? -1 : format_index_of_dtype_class(op_dtypes[i]);
        unsigned_format |= index >= 0 && !runtime(index).format.is_signed;
    }
    return python_number && unsigned_format;
}

// Inputs share a type; outputs keep what they are (bool for comparisons).
int comparison_promoter(PyObject* ufunc, PyArray_DTypeMeta* const op_dtypes[],
                        PyArray_DTypeMeta* const signature[], PyArray_DTypeMeta* new_op_dtypes[]) {
    const PyUFuncObject* u = reinterpret_cast<PyUFuncObject*>(ufunc);
    bool has_input_signature = false;
    for (int i = 0; i < u->nin; i++) has_input_signature |= signature[i] != nullptr;
    PyArray_DTypeMeta* common;
    if (!has_input_signature && compares_e8m0_with_python_number(u, op_dtypes)) {
        common = new_dtype_ref(&PyArray_DoubleDType);
    } else {
        common = has_input_signature ? common_of(signature, u->nin) : common_of(op_dtypes, u->nin);
    }
    if (common == nullptr) return -1;
    for (int i = 0; i < u->nin; i++) new_op_dtypes[i] = new_dtype_ref(common);
    for (int i = u->nin; i < u->nargs; i++) new_op_dtypes[i] = new_dtype_ref(signature[i]);
    Py_DECREF(common);
    return 0;
}

// ldexp(T, integer): the exponent becomes int64 (int32 stays int32).
int ldexp_promoter(PyObject*, PyArray_DTypeMeta* const op_dtypes[],
                   PyArray_DTypeMeta* const signature[], PyArray_DTypeMeta* new_op_dtypes[]) {
    PyArray_DTypeMeta* mantissa = signature[0] != nullptr ? signature[0] : op_dtypes[0];
    PyArray_DTypeMeta* exponent = op_dtypes[1] == &PyArray_IntDType ? &PyArray_IntDType
                                                                     : &PyArray_LongDType;
    new_op_dtypes[0] = new_dtype_ref(mantissa);
    new_op_dtypes[1] = new_dtype_ref(exponent);
    new_op_dtypes[2] = new_dtype_ref(signature[2] != nullptr ? signature[2] : mantissa);
    return 0;
}

std::vector<PyArray_DTypeMeta*> operand_dtypes(LoopKind kind, PyArray_DTypeMeta* t) {
    switch (kind) {
        case LoopKind::binary: return {t, t, t};
        case LoopKind::binary_two_outputs: return {t, t, t, t};
        case LoopKind::ternary: return {t, t, t, t};
        case LoopKind::unary: return {t, t};
        case LoopKind::unary_two_outputs: return {t, t, t};
        case LoopKind::compare: return {t, t, &PyArray_BoolDType};
        case LoopKind::predicate: return {t, &PyArray_BoolDType};
        case LoopKind::frexp: return {t, t, &PyArray_IntDType};
        case LoopKind::ldexp_int32: return {t, &PyArray_IntDType, t};
        case LoopKind::ldexp_int64: return {t, &PyArray_LongDType, t};
    }
    return {};
}

int add_loop(PyObject* ufunc, const std::string& name, std::vector<PyArray_DTypeMeta*> dtypes,
             PyArrayMethod_StridedLoop* loop, NPY_ARRAYMETHOD_FLAGS flags,
             std::vector<PyType_Slot> extra_slots = {}) {
    const PyUFuncObject* u = reinterpret_cast<PyUFuncObject*>(ufunc);
    std::vector<PyType_Slot> slots = {{NPY_METH_strided_loop, reinterpret_cast<void*>(loop)}};
    slots.insert(slots.end(), extra_slots.begin(), extra_slots.end());
    PyArrayMethod_Spec* spec = make_method_spec(name.c_str(), u->nin, u->nout, NPY_NO_CASTING, flags,
                                                std::move(dtypes), std::move(slots));
    return PyUFunc_AddLoopFromSpec(ufunc, spec);
}

const NPY_ARRAYMETHOD_FLAGS kNoFlags = static_cast<NPY_ARRAYMETHOD_FLAGS>(0);

// The loop of one format on one ufunc.
int add_elementwise_loop(PyObject* ufunc, const UfuncLoop& entry, int index) {
    const NPY_ARRAYMETHOD_FLAGS flags = entry.reorderable ? NPY_METH_IS_REORDERABLE : kNoFlags;
    const std::string name = runtime(index).name + "_" + entry.ufunc;
    const PyUFuncObject* u = reinterpret_cast<PyUFuncObject*>(ufunc);
    PyArrayMethod_StridedLoop* loop = threaded_loop(entry.loop, u->nin, u->nout, entry.ufunc);
    return add_loop(ufunc, name, operand_dtypes(entry.kind, &format_types(index).dtype_class), loop, flags,
                    entry.accumulates ? accumulation_slots(entry.ufunc == std::string("add") ? BinaryOp::add
                                                                                               : BinaryOp::multiply)
                                      : std::vector<PyType_Slot>{});
}

int add_linalg_loop(PyObject* ufunc, const LinalgLoop& entry, int index) {
    PyArray_DTypeMeta* t = &format_types(index).dtype_class;
    return add_loop(ufunc, runtime(index).name + "_" + entry.ufunc, {t, t, t}, entry.loop, kNoFlags);
}

// The promoters of one ufunc, keyed on the abstract MinifloatDType (so they
// serve formats made later too).
int add_elementwise_promoters(PyObject* ufunc, const UfuncLoop& entry) {
    switch (entry.kind) {
        case LoopKind::binary:
        case LoopKind::binary_two_outputs:
        case LoopKind::ternary:
        case LoopKind::unary:  // np.sqrt(x, dtype=np.float32) takes float32's loop
        case LoopKind::unary_two_outputs:
            return add_input_promoters(ufunc, homogeneous_promoter);
        case LoopKind::compare:
            // logical_and/or/xor keep NumPy's own promoter, which casts
            // every input to bool
            if (std::string(entry.ufunc).rfind("logical_", 0) != 0) {
                return add_input_promoters(ufunc, comparison_promoter);
            }
            return 0;
        case LoopKind::ldexp_int32:
        case LoopKind::ldexp_int64: {
            PyObject* abstract = reinterpret_cast<PyObject*>(&g_abstract_dtype);
            return add_promoter(ufunc, {abstract, Py_None, Py_None}, ldexp_promoter);
        }
        case LoopKind::predicate:
        case LoopKind::frexp:
            return 0;
    }
    return 0;
}

// Calls add(ufunc object, entry) for every elementwise and linalg entry.
template <class Elementwise, class Linalg>
int for_each_ufunc(Elementwise&& elementwise, Linalg&& linalg) {
    for (const UfuncLoop& entry : elementwise_loops()) {
        PyObject* ufunc = numpy_ufunc_named(entry.ufunc);
        if (ufunc == nullptr) return -1;
        const int status = elementwise(ufunc, entry);
        Py_DECREF(ufunc);
        if (status < 0) return -1;
    }
    for (const LinalgLoop& entry : linalg_loops()) {
        PyObject* ufunc = numpy_ufunc_named(entry.ufunc);
        if (ufunc == nullptr) return -1;  // vecdot/matvec/vecmat need NumPy >= 2.2 (always true for >= 2.4)
        const int status = linalg(ufunc, entry);
        Py_DECREF(ufunc);
        if (status < 0) return -1;
    }
    return 0;
}

}  // namespace

int init_ufuncs() {
    std::set<std::string> promoted;
    const int status = for_each_ufunc(
        [&](PyObject* ufunc, const UfuncLoop& entry) {
            for (int i = 0; i < kBuiltinFormatCount; i++) {
                if (add_elementwise_loop(ufunc, entry, i) < 0) return -1;
            }
            return promoted.insert(entry.ufunc).second ? add_elementwise_promoters(ufunc, entry) : 0;
        },
        [](PyObject* ufunc, const LinalgLoop& entry) {
            for (int i = 0; i < kBuiltinFormatCount; i++) {
                if (add_linalg_loop(ufunc, entry, i) < 0) return -1;
            }
            return add_input_promoters(ufunc, homogeneous_promoter);
        });
    if (status < 0) return -1;
    for (int i = 0; i < kBuiltinFormatCount; i++) {
        if (add_python_number_comparisons(i) < 0) return -1;
    }
    return 0;
}

int add_format_ufunc_loops(int index) {
    const int status =
        for_each_ufunc([index](PyObject* ufunc, const UfuncLoop& entry) { return add_elementwise_loop(ufunc, entry, index); },
                       [index](PyObject* ufunc, const LinalgLoop& entry) { return add_linalg_loop(ufunc, entry, index); });
    return status < 0 ? -1 : add_python_number_comparisons(index);
}

}  // namespace minifloat
