// The ArrayMethod specs of every cast that involves format `index`,
// appended to `out` for PyArrayInitDTypeMeta_FromSpec. Specs live for the
// whole process (NumPy keeps pointers to their DType lists).
#pragma once

#include <vector>

#include "numpy_api.h"

namespace minifloat {

// format <-> NumPy's bool, integer, float and complex DTypes
void append_numeric_cast_specs(int index, std::vector<PyArrayMethod_Spec*>& out);
// format <-> str_ and bytes_
void append_text_cast_specs(int index, std::vector<PyArrayMethod_Spec*>& out);
// A str_ (`unicode`) or bytes_ item of `size` bytes as a Python str or
// bytes, its trailing NULs dropped (as NumPy reads it); new reference.
PyObject* text_item_object(const char* item, npy_intp size, bool unicode);
// format <-> void: raw bytes refused, structured dtypes field by field
void append_void_cast_specs(int index, std::vector<PyArrayMethod_Spec*>& out);
// format -> itself, and both directions with every format registered before it
void append_minifloat_cast_specs(int index, std::vector<PyArrayMethod_Spec*>& out);

// The DType families whose casts a later layer extends.
enum class CastFamily { floats, integers, complex };
// Casts with another library's DTypes (interop/: ml_dtypes'), added at
// import before the DTypes are made (module.cpp) and appended for every
// DType of `family` made from then on, in the order added. A source returns
// -1 with a Python error set.
using CastSpecSource = int (*)(int index, std::vector<PyArrayMethod_Spec*>& out);
void add_cast_spec_source(CastFamily family, CastSpecSource source);
int append_added_cast_specs(CastFamily family, int index, std::vector<PyArrayMethod_Spec*>& out);

// The slots of a loop that handles any stride and alignment: it serves as
// NumPy's strided, contiguous and unaligned loops alike.
std::vector<PyType_Slot> loop_slots(PyArrayMethod_StridedLoop* loop);

// NumPy's ComplexWarning ("Casting complex values to real discards the
// imaginary part"): -1 where that raised.
int warn_complex_to_real();

// get_loop of a cast from a complex type to a real one: warns once per cast
// when it is set up, as NumPy does, then hands out `Loop`.
template <PyArrayMethod_StridedLoop* Loop>
int complex_to_real_get_loop(PyArrayMethod_Context*, int, int, const npy_intp*, PyArrayMethod_StridedLoop** out_loop,
                             NpyAuxData** out_transferdata, NPY_ARRAYMETHOD_FLAGS* flags) {
    if (warn_complex_to_real() < 0) return -1;
    *out_loop = Loop;
    *out_transferdata = nullptr;
    *flags = static_cast<NPY_ARRAYMETHOD_FLAGS>(0);
    return 0;
}

// Owns a spec with its DType list and slots.
PyArrayMethod_Spec* make_method_spec(const char* name, int nin, int nout, NPY_CASTING casting,
                                     NPY_ARRAYMETHOD_FLAGS flags,
                                     std::vector<PyArray_DTypeMeta*> dtypes,
                                     std::vector<PyType_Slot> slots);

}  // namespace minifloat
