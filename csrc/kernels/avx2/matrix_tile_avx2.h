// The AVX2 register tile of the float32 matrix product (matrix_product.h):
// 4 rows of A times 24 columns of B, its 12 sums in registers for a whole
// slice of k (with B's 3 vectors and A's broadcast: 16 registers).
#pragma once

#include <cstddef>

namespace minifloat {

constexpr size_t kAvx2TileRows = 4;
constexpr size_t kAvx2TileColumns = 24;

// As matrix_tile_avx512 (matrix_tile_avx512.h) for 4 x 24 panels. Needs
// AVX2 and FMA (the caller checks).
void matrix_tile_avx2(const float* a, const float* b, size_t kc, float* c, size_t ldc, bool first);

}  // namespace minifloat
