// Comparisons of a format without infinities with Python numbers beyond its
// range (exact, as float16's comparisons with the infinity it rounds them to).
#pragma once

#include "numpy_api.h"
#include "op_tables.h"

namespace minifloat {

// Registers the loops of ==, !=, <, <=, >, >= between format `index` and
// Python floats and ints, both orders (nothing for formats with infinities
// or unsigned ones).
int add_python_number_comparisons(int index);

// NumPy's name of a comparison ufunc ("less", ...); "" for the logical ones.
const char* comparison_name(CompareOp op);

}  // namespace minifloat
