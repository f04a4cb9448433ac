// Strided loops of the element-wise ufuncs, and the catalog that says which
// NumPy ufunc each serves. Each loop finds its format through the loop
// descriptors, so one compiled loop serves every format.
#pragma once

#include <vector>

#include "math_ops.h"
#include "numpy_api.h"

namespace minifloat {

// Operand signature of a loop, in the format T (or as stated).
enum class LoopKind {
    binary,             // T, T -> T
    binary_two_outputs, // T, T -> T, T (divmod)
    ternary,            // T, T, T -> T (clip)
    unary,              // T -> T
    unary_two_outputs,  // T -> T, T (modf)
    compare,            // T, T -> bool
    predicate,          // T -> bool
    frexp,              // T -> T, int32
    ldexp_int32,        // T, int32 -> T
    ldexp_int64,        // T, int64 -> T
};

struct UfuncLoop {
    const char* ufunc;
    LoopKind kind;
    PyArrayMethod_StridedLoop* loop;
    bool reorderable;   // reductions may regroup (add, multiply, max, ...)
    bool accumulates = false;  // add/multiply: float32 accumulation (ufunc_accumulate.h)
};

std::vector<UfuncLoop> elementwise_loops();

struct FormatRuntime;

// Sum (add) or product (multiply) of n codes folded into `initial`, in
// float32 with 16 partial results (vectorized decoding and combining).
float fold_codes(BinaryOp op, const FormatRuntime& rt, const char* data, npy_intp stride, npy_intp n,
                 float initial);

// The element-wise loop of add or multiply (also handles single-call
// reductions and accumulations in float32).
PyArrayMethod_StridedLoop* plain_binary_loop(BinaryOp op);

}  // namespace minifloat
