#include "ufunc_fallback.h"

#include <set>
#include <string>

#include "format_types.h"
#include "numpy_api.h"
#include "complex_types.h"
#include "promote_by_resolution.h"
#include "promoter_registration.h"
#include "ufunc_linalg.h"
#include "ufunc_loops.h"

namespace py = pybind11;

namespace minifloat {

namespace {

bool is_minifloat(PyArray_DTypeMeta* dtype) {
    return dtype != nullptr && format_index_of_dtype_class(dtype) >= 0;
}

// Every minifloat input becomes `Target`; everything else stays as given, so
// NumPy's own promotion then picks the loop (float32 inputs take a float32
// loop where the ufunc has one, otherwise NumPy casts them further as it
// casts float32). An explicit signature entry wins.
enum class Widening { to_float32, to_object, complex_to_complex64 };

PyArray_Descr* target_descr(Widening widening) {
    switch (widening) {
        case Widening::to_float32: return PyArray_DescrFromType(NPY_FLOAT);
        case Widening::to_object: return PyArray_DescrFromType(NPY_OBJECT);
        case Widening::complex_to_complex64: return PyArray_DescrFromType(NPY_FLOAT);  // (float formats beside)
    }
    return nullptr;
}

// What ufunc.resolve_dtypes takes for one operand: a descriptor, or the
// Python type itself for NumPy's "weak" Python scalars.
PyObject* resolvable_operand(PyArray_DTypeMeta* dtype, Widening widening) {
    if (is_minifloat(dtype)) return reinterpret_cast<PyObject*>(target_descr(widening));
    // complex32/bcomplex32 become complex64 (exact), as float16 becomes float32
    if (widening == Widening::complex_to_complex64 && dtype != nullptr && complex_kind_of_dtype_class(dtype) >= 0) {
        return reinterpret_cast<PyObject*>(PyArray_DescrFromType(NPY_CFLOAT));
    }
    return numpy_stand_in(dtype);
}

// Minifloat inputs become float32 (or object); NumPy's own resolution for
// those operands (ufunc.resolve_dtypes, its legacy loop search included)
// then names the loop, and its DTypes are the answer. Returning plain
// Float32 would not do: NumPy runs its legacy search only before the
// promoters, so a ufunc whose float loops are e.g. complex64 x float32
// (np.fft's) would find nothing. NumPy caches the outcome per DType pattern.
template <Widening To>
int widening_promoter(PyObject* ufunc, PyArray_DTypeMeta* const op_dtypes[],
                      PyArray_DTypeMeta* const signature[], PyArray_DTypeMeta* new_op_dtypes[]) {
    return promote_by_resolution(ufunc, op_dtypes, signature, new_op_dtypes, false,
                                 [](PyArray_DTypeMeta* dtype) { return resolvable_operand(dtype, To); });
}

void add_fallback_promoters(py::handle ufunc, py::handle target) {
    if (!PyObject_TypeCheck(ufunc.ptr(), &PyUFunc_Type)) {
        throw py::type_error("_add_fallback_promoters: expected a NumPy ufunc");
    }
    PyArrayMethod_PromoterFunction* promoter = nullptr;
    if (target.ptr() == reinterpret_cast<PyObject*>(&PyArray_FloatDType)) {
        promoter = widening_promoter<Widening::to_float32>;
    } else if (target.ptr() == reinterpret_cast<PyObject*>(&PyArray_ObjectDType)) {
        promoter = widening_promoter<Widening::to_object>;
    } else if (target.ptr() == reinterpret_cast<PyObject*>(&PyArray_CFloatDType)) {
        // complex32/bcomplex32 inputs, keyed on ComplexDType in each input position
        const PyUFuncObject* u = reinterpret_cast<PyUFuncObject*>(ufunc.ptr());
        for (int i = 0; i < u->nin; i++) {
            std::vector<PyObject*> pattern(static_cast<size_t>(u->nargs), Py_None);
            pattern[static_cast<size_t>(i)] = reinterpret_cast<PyObject*>(&g_complex_abstract_dtype);
            if (add_promoter(ufunc.ptr(), pattern, widening_promoter<Widening::complex_to_complex64>) < 0) {
                throw py::error_already_set();
            }
        }
        return;
    } else {
        throw py::value_error("_add_fallback_promoters: target must be np.dtypes.Float32DType, "
                              "np.dtypes.ObjectDType or np.dtypes.Complex64DType");
    }
    if (add_input_promoters(ufunc.ptr(), promoter) < 0) throw py::error_already_set();
}

py::frozenset ufuncs_with_loops() {
    std::set<std::string> names;
    for (const UfuncLoop& entry : elementwise_loops()) names.insert(entry.ufunc);
    for (const LinalgLoop& entry : linalg_loops()) names.insert(entry.ufunc);
    py::set result;
    for (const std::string& name : names) result.add(py::str(name));
    return py::frozenset(result);
}

}  // namespace

void register_fallback_bindings(py::module_& m) {
    m.def("_add_fallback_promoters", &add_fallback_promoters, py::arg("ufunc"), py::arg("target"),
          "Widen minifloat inputs of `ufunc` to `target` (float32 or object DType class).");
    m.def("_ufuncs_with_loops", &ufuncs_with_loops,
          "Names of the NumPy ufuncs that have minifloat loops.");
}

}  // namespace minifloat
