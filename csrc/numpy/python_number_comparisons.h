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

// resolve_descriptors of a comparison loop between a dtype and a Python
// number on side NumberSide (0: `1000 > a`, 1: `a < 1000`): the dtype's
// descriptor as given, the number as NumPy type NumberType (NPY_DOUBLE,
// NPY_INT64), a bool result. The integer types' loops use it too.
template <int NumberSide, int NumberType>
NPY_CASTING resolve_python_number_as(PyArrayMethodObject*, PyArray_DTypeMeta* const*, PyArray_Descr* const* given,
                                     PyArray_Descr** loop_descrs, npy_intp*) {
    constexpr int kTypeSide = 1 - NumberSide;
    Py_INCREF(given[kTypeSide]);
    loop_descrs[kTypeSide] = given[kTypeSide];
    loop_descrs[NumberSide] = PyArray_DescrFromType(NumberType);
    loop_descrs[2] = PyArray_DescrFromType(NPY_BOOL);
    return NPY_NO_CASTING;
}

}  // namespace minifloat
