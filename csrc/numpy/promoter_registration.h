// Registering ufunc promoters keyed on the abstract MinifloatDType.
#pragma once

#include <vector>

#include "numpy_api.h"

namespace minifloat {

// One promoter for one pattern of DType classes (Py_None matches anything).
int add_promoter(PyObject* ufunc, std::vector<PyObject*> pattern,
                 PyArrayMethod_PromoterFunction* promoter);

// The promoter for every pattern of minifloat inputs (M marks a minifloat
// input, * anything), most specific first: (M, M) before (M, *) and (*, M),
// because NumPy keeps the first of two equally good matches and would call
// (M, *) and (*, M) ambiguous for two minifloat inputs. Ufuncs with many
// inputs (np.frompyfunc allows 32) get the single-input patterns only.
int add_input_promoters(PyObject* ufunc, PyArrayMethod_PromoterFunction* promoter);

}  // namespace minifloat
