// Storage for ArrayMethod specs built at import, and the slots and warning
// casts share.
#include <deque>
#include <string>

#include "cast_specs.h"

namespace minifloat {

namespace {
struct OwnedSpec {
    std::string name;
    std::vector<PyArray_DTypeMeta*> dtypes;
    std::vector<PyType_Slot> slots;
    PyArrayMethod_Spec spec{};
};
std::deque<OwnedSpec> g_specs;  // deque: elements never move

// by family, added at import under the GIL
std::vector<CastSpecSource> g_float_sources, g_int_sources, g_complex_sources;

std::vector<CastSpecSource>& sources_of(CastFamily family) {
    switch (family) {
        case CastFamily::floats: return g_float_sources;
        case CastFamily::integers: return g_int_sources;
        case CastFamily::complex: return g_complex_sources;
    }
    return g_float_sources;  // not reached: every family is a case above
}
}  // namespace

void add_cast_spec_source(CastFamily family, CastSpecSource source) { sources_of(family).push_back(source); }

int append_added_cast_specs(CastFamily family, int index, std::vector<PyArrayMethod_Spec*>& out) {
    for (CastSpecSource source : sources_of(family)) {
        if (source(index, out) < 0) return -1;
    }
    return 0;
}

std::vector<PyType_Slot> loop_slots(PyArrayMethod_StridedLoop* loop) {
    return {{NPY_METH_strided_loop, reinterpret_cast<void*>(loop)},
            {NPY_METH_contiguous_loop, reinterpret_cast<void*>(loop)},
            {NPY_METH_unaligned_strided_loop, reinterpret_cast<void*>(loop)},
            {NPY_METH_unaligned_contiguous_loop, reinterpret_cast<void*>(loop)}};
}

int warn_complex_to_real() {
    static PyObject* category = nullptr;  // numpy.exceptions.ComplexWarning, kept
    if (category == nullptr) {
        PyObject* exceptions = PyImport_ImportModule("numpy.exceptions");
        if (exceptions == nullptr) return -1;
        category = PyObject_GetAttrString(exceptions, "ComplexWarning");
        Py_DECREF(exceptions);
        if (category == nullptr) return -1;
    }
    return PyErr_WarnEx(category, "Casting complex values to real discards the imaginary part", 1);
}

PyArrayMethod_Spec* make_method_spec(const char* name, int nin, int nout, NPY_CASTING casting,
                                     NPY_ARRAYMETHOD_FLAGS flags,
                                     std::vector<PyArray_DTypeMeta*> dtypes,
                                     std::vector<PyType_Slot> slots) {
    g_specs.emplace_back();
    OwnedSpec& owned = g_specs.back();
    owned.name = name;
    owned.dtypes = std::move(dtypes);
    owned.slots = std::move(slots);
    owned.slots.push_back({0, nullptr});
    owned.spec.name = owned.name.c_str();
    owned.spec.nin = nin;
    owned.spec.nout = nout;
    owned.spec.casting = casting;
    owned.spec.flags = flags;
    owned.spec.dtypes = owned.dtypes.data();
    owned.spec.slots = owned.slots.data();
    return &owned.spec;
}

}  // namespace minifloat
