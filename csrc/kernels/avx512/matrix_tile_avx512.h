// The AVX-512 register tile of the float32 matrix product
// (matrix_product.h): 8 rows of A times 48 columns of B, its 24 sums in
// registers for a whole slice of k.
#pragma once

#include <cstddef>

namespace minifloat {

constexpr size_t kAvx512TileRows = 8;
constexpr size_t kAvx512TileColumns = 48;

// c (8 x 48, row stride ldc) = (first ? +0 : c) + the panels' products over
// kc values of k: a is an A panel (8 floats per kk), b a B panel (48 per
// kk), both at the slice's first kk. Needs AVX-512F (the caller checks).
void matrix_tile_avx512(const float* a, const float* b, size_t kc, float* c, size_t ldc, bool first);

}  // namespace minifloat
