// float32 matrix products on packed panels: the blocked algorithm of Goto
// and van de Geijn ("Anatomy of high-performance matrix multiplication",
// ACM TOMS 2008), with minifloat's own register tiles. matmul's operands
// are decoded straight into the packed layout, so the product needs no
// BLAS, holds no GIL and splits over minifloat's own threads.
//
// Every sum starts from +0 and takes its products in the order of k, one
// fused multiply-add each (C is stored in float32 between slices of k and
// loaded back, which changes nothing): the bits are the same for every
// kernel set, block size and thread count.
#pragma once

#include <cstddef>

namespace minifloat {

// Which register tile runs (simd_dispatch.h's kernel sets).
enum class TileKernel { avx512, avx2, portable };

// The register tile in use: `rows` of A times `columns` of B per call, and
// `depth` values of k between visits of C (A's panel of rows x depth stays
// in L1, B's panels of depth x columns in L2).
struct PanelShape {
    TileKernel kernel;
    size_t rows, columns, depth;
};

// By the CPU and the enabled kernel sets: AVX-512 8 x 48 (24 accumulator
// registers of 32), AVX2 with FMA 4 x 24 (12 of 16), else 4 x 16.
PanelShape panel_shape();

// Packed layouts, k-major within a panel and zero-padded to whole panels:
//   A (n x k): panel p holds rows [p * rows, p * rows + rows),
//              element (r, kk) at [(p * k + kk) * rows + r - p * rows];
//   B (k x m): panel q holds columns [q * columns, q * columns + columns),
//              element (kk, c) at [(q * k + kk) * columns + c - q * columns].
inline size_t panels_covering(size_t count, size_t per_panel) { return (count + per_panel - 1) / per_panel; }

// The two ways into that layout, for an operand X (rows x k) packed in
// panels of `width` of its rows (A: X = A, width `rows`; B: X = B's
// transpose, width `columns`). Both return true if a value is +-inf.
//
// From X's rows: `count` (<= width) dense rows of k values become the
// panel at `panel`.
bool pack_panel_from_rows(size_t width, const float* rows, size_t count, size_t k, float* panel);

// From X's columns: `count` dense columns of X (column kk0 + g holds the n
// values at columns + g * n) go to their place in every panel.
bool pack_panels_from_columns(size_t width, const float* columns, size_t count, size_t n, size_t kk0, size_t k,
                              float* panels);

// A block of the product: row panels [0, row_panels) of `a` (the first of
// them at `a`) times column panels [0, column_panels) of `b`, of which the
// first `rows` rows and `columns` columns are real.
struct PanelBlock {
    const float* a;
    size_t row_panels, rows;
    const float* b;
    size_t column_panels, columns;
    size_t k;
    bool a_has_inf, b_has_inf;  // then a padding lane could compute 0 x inf (see matrix_product.cpp)
};

// c[r * ldc + col] = the block's sums, for r < row_panels * shape.rows and
// col < column_panels * shape.columns (the padding lanes hold garbage).
void multiply_panels(const PanelShape& shape, const PanelBlock& block, float* c, size_t ldc);

// sums[j] = fma(a, row[j], sums[j]) for j < n: a vector times a matrix,
// one row of the matrix at a time, in the order the tiles use.
void add_products(float* sums, float a, const float* row, size_t n);

// accumulated_value_f32 (decode_blocks.h) over a run of sums, in vector
// lanes: NaN becomes the positive quiet NaN and, in a format without inf
// (has_inf false), +-inf becomes +-FLT_MAX (an overflow when rounded).
void settle_sums(float* values, size_t n, bool has_inf);

}  // namespace minifloat
