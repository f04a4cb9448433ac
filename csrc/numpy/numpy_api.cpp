// Owns NumPy's C-API tables for the whole extension: every other file
// includes numpy_api.h without MINIFLOAT_IMPORT_NUMPY and shares them.
#define MINIFLOAT_IMPORT_NUMPY
#include "numpy_api.h"

namespace minifloat {

int import_numpy_api() {
    if (_import_array() < 0) return -1;
    return _import_umath();
}

}  // namespace minifloat
