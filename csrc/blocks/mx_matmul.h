// Matrix products of MX arrays (OCP MX v1.0 §6.2: the dot product of two
// MX vectors is the sum of the elements' exact products, times both shared
// scales; blocks' results accumulate in float32). A (M x K) is blocked along
// K in its rows, B (K x N) along K in its columns, with the same block size.
//
// C[m, n] is computed in exactly this order (the tests reproduce it):
//     acc = +0
//     for each block kb of K, in order:
//         t = +0
//         for k in the block, ascending:  t = fl32(t + a[m,k] * b[k,n])   (exact product: one FMA)
//         acc = fl32(acc + fl32(t * 2^(Ea[m,kb] + Eb[kb,n])))
// with a, b the element values (MXINT8: int8 / 64) and Ea, Eb the E8M0
// exponents; C[m, n] is NaN when row m of A or column n of B has a NaN
// scale.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dequantize_kernels.h"

namespace minifloat {

struct MxOperand {
    const uint8_t* codes;   // element codes, row-major
    const uint8_t* scales;  // E8M0 scale codes, row-major
    ElementDecoding element;
};

// A: codes M x K, scales M x ceil(K / block); B: codes K x N, scales
// ceil(K / block) x N; out: M x N. Splits runs of rows over the thread pool
// (the same bits for any thread count: each output has one order of sums).
void mx_matmul(const MxOperand& a, const MxOperand& b, size_t m, size_t n, size_t k, size_t block, float* out);

}  // namespace minifloat
