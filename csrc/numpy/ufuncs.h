// Registration of minifloat loops and promoters on NumPy's ufuncs.
#pragma once

#include "numpy_api.h"

namespace minifloat {

// Every built-in format's loops, and the promoters (keyed on the abstract
// MinifloatDType, so they serve formats made later too).
int init_ufuncs();

// The loops of format `index`, made at run time.
int add_format_ufunc_loops(int index);

}  // namespace minifloat
