// The extension module minifloat._core: imports NumPy's C API, builds every
// format's runtime state, scalar type and DType class from the format table,
// registers casts and ufunc loops, and exposes the helper functions.
#include "numpy_api.h"

#include <pybind11/pybind11.h>

#include "bindings.h"
#include "casts_ml_dtypes.h"
#include "complex_types.h"
#include "dtype_class.h"
#include "format_types.h"
#include "int_types.h"
#include "promotion.h"
#include "scalar_type.h"
#include "ufuncs.h"

namespace py = pybind11;
using namespace minifloat;

namespace {

PyMethodDef g_scalar_from_code_def = {
    "_scalar_from_code", reinterpret_cast<PyCFunction>(reinterpret_cast<void*>(scalar_from_code)),
    METH_FASTCALL, "Rebuild a minifloat scalar from its format name and code (pickle)."};

void throw_if_failed(int status) {
    if (status < 0) throw py::error_already_set();
}

}  // namespace

PYBIND11_MODULE(_core, m) {
    throw_if_failed(import_numpy_api());

    // ml_dtypes' casts and promotion before any DType is made
    register_ml_dtypes_interop();
    init_format_runtimes();
    throw_if_failed(init_scalar_types());
    throw_if_failed(init_dtype_classes());

    py::object module_name = py::str("minifloat._core");
    g_scalar_from_code_function = PyCFunction_NewEx(&g_scalar_from_code_def, nullptr, module_name.ptr());
    if (g_scalar_from_code_function == nullptr) throw py::error_already_set();
    m.add_object("_scalar_from_code", py::reinterpret_borrow<py::object>(g_scalar_from_code_function));

    py::list names;
    for (int i = 0; i < kBuiltinFormatCount; i++) {
        const FormatRuntime& rt = runtime(i);
        FormatTypes& types = format_types(i);
        m.add_object(rt.name.c_str(),
                     py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(&types.scalar_type)));
        m.add_object(rt.dtype_class_name.c_str(),
                     py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(&types.dtype_class)));
        names.append(rt.name);
    }
    m.add_object("FORMAT_NAMES", py::tuple(names));
    m.add_object("floating", py::reinterpret_borrow<py::object>(
                                 reinterpret_cast<PyObject*>(&g_abstract_scalar_type)));
    m.add_object("MinifloatDType", py::reinterpret_borrow<py::object>(
                                       reinterpret_cast<PyObject*>(&g_abstract_dtype)));
    // The sub-byte integers (int_module.cpp) before the formats' ufunc loops:
    // NumPy takes the first of equally specific promoters in registration
    // order and refuses a later tie, so the integers' (IntegerDType,
    // MinifloatDType) promoters must be registered before the formats'
    // (None, MinifloatDType) ones (see add_mixed_promoters).
    throw_if_failed(init_int_types(m.ptr()));
    // complex32 and bcomplex32 (numpy/complex/): their casts name the float
    // formats' DTypes, and their promoters pair ComplexDType with both
    // families' abstract DTypes
    throw_if_failed(init_complex_types(m.ptr()));
    throw_if_failed(init_ufuncs());
    register_bindings(m);
}
