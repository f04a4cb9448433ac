#include "promoter_registration.h"

#include <algorithm>
#include <bitset>

#include "format_types.h"

namespace minifloat {

namespace {
// Beyond this many inputs, 2^nin patterns would cost more than they help.
constexpr int kMaxInputsForEveryPattern = 8;
}  // namespace

int add_promoter(PyObject* ufunc, std::vector<PyObject*> pattern,
                 PyArrayMethod_PromoterFunction* promoter) {
    PyObject* key = PyTuple_New(static_cast<Py_ssize_t>(pattern.size()));
    if (key == nullptr) return -1;
    for (size_t i = 0; i < pattern.size(); i++) {
        Py_INCREF(pattern[i]);
        PyTuple_SET_ITEM(key, static_cast<Py_ssize_t>(i), pattern[i]);
    }
    PyObject* capsule = PyCapsule_New(reinterpret_cast<void*>(promoter), "numpy._ufunc_promoter", nullptr);
    if (capsule == nullptr) {
        Py_DECREF(key);
        return -1;
    }
    const int status = PyUFunc_AddPromoter(ufunc, key, capsule);
    Py_DECREF(key);
    Py_DECREF(capsule);
    return status;
}

int add_input_promoters(PyObject* ufunc, PyArrayMethod_PromoterFunction* promoter) {
    const PyUFuncObject* u = reinterpret_cast<PyUFuncObject*>(ufunc);
    PyObject* abstract = reinterpret_cast<PyObject*>(&g_abstract_dtype);
    const int nin = u->nin;
    std::vector<unsigned long> masks;
    if (nin <= kMaxInputsForEveryPattern) {
        for (unsigned long mask = 1; mask < (1ul << nin); mask++) masks.push_back(mask);
    } else {
        for (int i = 0; i < nin; i++) masks.push_back(1ul << i);
    }
    std::stable_sort(masks.begin(), masks.end(), [](unsigned long a, unsigned long b) {
        return std::bitset<32>(a).count() > std::bitset<32>(b).count();
    });
    for (unsigned long mask : masks) {
        std::vector<PyObject*> pattern;
        for (int i = 0; i < nin; i++) pattern.push_back((mask >> i) & 1ul ? abstract : Py_None);
        pattern.resize(static_cast<size_t>(u->nargs), Py_None);
        if (add_promoter(ufunc, pattern, promoter) < 0) return -1;
    }
    return 0;
}

}  // namespace minifloat
