// Registration of minifloat loops and promoters on NumPy's ufuncs.
#pragma once

#include "numpy_api.h"

namespace minifloat {

int init_ufuncs();

}  // namespace minifloat
