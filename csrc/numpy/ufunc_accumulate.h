// Float32 accumulation for add and multiply across NumPy's loop calls.
//
// NumPy runs a reduction as many inner-loop calls that add into the output
// in place (one per row of a non-innermost axis, or per buffer), so rounding
// the output to the format after each call would round many times (ml_dtypes
// sums 300 ones to 16 in float8_e4m3fn). These loops keep each output's
// running float32 value in the loop's auxdata between calls and write its
// rounding every time: the final output is the once-rounded float32 result.
// ufunc.at gets an indexed loop that does the same per touched element (NumPy
// uses it when the values already have the format's dtype; other values go
// through a promoted loop, e.g. float64 for int values, as for float16).
// The complex types keep complex64 values the same way (complex_ufuncs.cpp)
// through the shared pieces below.
#pragma once

#include <unordered_map>
#include <vector>

#include "math_ops.h"
#include "numpy_api.h"

namespace minifloat {

// The running float32 values of one output row (several per element for a
// complex one) and the codes last written from them.
struct AccumulatorRow {
    npy_intp stride = 0;
    std::vector<float> values;
    std::vector<uint32_t> written;
    std::vector<char> written_bytes;  // a contiguous row's: the output's bytes as last written
};

// A loop's auxdata: the rows by output address, kept across NumPy's calls.
struct AccumulationAux {
    NpyAuxData base;
    bool reduction = false;  // the loop serves a reduction (announced below)
    std::unordered_map<char*, AccumulatorRow> rows;
};

// get_reduction_initial calls this: NumPy asks the same method for its loop
// next, for a reduction (ufunc calls and ufunc.at never announce one).
void announce_reduction(PyArrayMethod_Context* context);

// get_loop of an accumulating method: `loop` with a fresh AccumulationAux,
// marked as a reduction's where one was announced. -1 with an error set.
int get_accumulating_loop(PyArrayMethod_Context* context, PyArrayMethod_StridedLoop* loop,
                          PyArrayMethod_StridedLoop** out_loop, NpyAuxData** out_transferdata,
                          NPY_ARRAYMETHOD_FLAGS* flags);
template <PyArrayMethod_StridedLoop* Loop>
int accumulating_get_loop(PyArrayMethod_Context* context, int, int, const npy_intp*,
                          PyArrayMethod_StridedLoop** out_loop, NpyAuxData** out_transferdata,
                          NPY_ARRAYMETHOD_FLAGS* flags) {
    return get_accumulating_loop(context, Loop, out_loop, out_transferdata, flags);
}

// The auxdata when this call is a reduction step (out (op)= in, the output
// being the first operand), else nullptr: the call is element-wise.
AccumulationAux* reduction_step(NpyAuxData* aux, char* const data[], const npy_intp strides[]);

// The row kept for the `length` outputs at `out` (`values_per_item` floats
// each), its values reset where the stride or length changed.
AccumulatorRow& accumulator_row(AccumulationAux& aux, char* out, npy_intp stride, npy_intp length,
                                npy_intp values_per_item);

// Extra ArrayMethod slots (get_loop, get_reduction_initial, indexed loop)
// for BinaryOp::add or BinaryOp::multiply.
std::vector<PyType_Slot> accumulation_slots(BinaryOp op);

}  // namespace minifloat
