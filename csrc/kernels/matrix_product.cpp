#include "matrix_product.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "decode_blocks.h"
#include "float_bits.h"
#include "matrix_tile_avx2.h"
#include "matrix_tile_avx512.h"
#include "simd_dispatch.h"

namespace minifloat {

namespace {

constexpr size_t kPortableRows = 4, kPortableColumns = 16;
// The largest tile of any kernel set (the exact tile's sums live on the stack).
constexpr size_t kMaxTileValues = kAvx512TileRows * kAvx512TileColumns;

// Whether any of the n values is +-inf (as a flag the compiler keeps in
// vector lanes).
MINIFLOAT_KERNEL_INLINE bool any_inf(const float* v, size_t n) {
    uint32_t found = 0;
    for (size_t i = 0; i < n; i++) {
        found |= static_cast<uint32_t>((float_bits::bit_cast<uint32_t>(v[i]) & 0x7FFFFFFFu) == 0x7F800000u);
    }
    return found != 0;
}

// The real `rows` x `columns` of a tile, in the order the register tiles
// use (each sum by fused multiply-adds in the order of k): the portable
// kernel, and the edge tiles whose padding lanes could raise a flag.
MINIFLOAT_SIMD_CLONES
void tile_exact(const float* a, size_t panel_rows, const float* b, size_t panel_columns, size_t kc, size_t rows,
                size_t columns, float* c, size_t ldc, bool first) {
    float sum[kMaxTileValues];
    for (size_t r = 0; r < rows; r++) {
        for (size_t col = 0; col < columns; col++) sum[r * panel_columns + col] = first ? 0.0f : c[r * ldc + col];
    }
    for (size_t kk = 0; kk < kc; kk++) {
        for (size_t r = 0; r < rows; r++) {
            const float av = a[kk * panel_rows + r];
            float* s = sum + r * panel_columns;
            const float* bk = b + kk * panel_columns;
            for (size_t col = 0; col < columns; col++) s[col] = std::fma(av, bk[col], s[col]);
        }
    }
    for (size_t r = 0; r < rows; r++) std::memcpy(c + r * ldc, sum + r * panel_columns, columns * sizeof(float));
}

}  // namespace

PanelShape panel_shape() {
#ifdef MINIFLOAT_HAVE_X86_KERNELS
    if (avx512_bw_usable()) return {TileKernel::avx512, kAvx512TileRows, kAvx512TileColumns, 512};
    // x86-64-v3 (AVX2 with FMA): the CPUs the AVX2 kernel set is for
    if (avx2_usable() && __builtin_cpu_supports("fma")) return {TileKernel::avx2, kAvx2TileRows, kAvx2TileColumns, 256};
#endif
    return {TileKernel::portable, kPortableRows, kPortableColumns, 256};
}

// A line of each row at a time: rows a multiple of 4 KB apart share an L1
// set, so walking k across all of them at once evicts every line it loads
// (48 rows of 2048: 4 ms for 4M values; by lines: under 1).
MINIFLOAT_SIMD_CLONES
bool pack_panel_from_rows(size_t width, const float* rows, size_t count, size_t k, float* panel) {
    constexpr size_t kLine = 16;
    for (size_t kk0 = 0; kk0 < k; kk0 += kLine) {
        const size_t line = std::min(kLine, k - kk0);
        for (size_t r = 0; r < count; r++) {
            const float* in = rows + r * k + kk0;
            float* out = panel + kk0 * width + r;
            for (size_t j = 0; j < line; j++) out[j * width] = in[j];
        }
        for (size_t j = 0; j < line; j++) std::fill(panel + (kk0 + j) * width + count, panel + (kk0 + j + 1) * width, 0.0f);
    }
    return any_inf(rows, count * k);
}

// Each panel gets `count` consecutive rows of its layout: one run of
// count x width floats, not a scattered line per panel and column of X.
MINIFLOAT_SIMD_CLONES
bool pack_panels_from_columns(size_t width, const float* columns, size_t count, size_t n, size_t kk0, size_t k,
                              float* panels) {
    for (size_t q = 0; q * width < n; q++) {
        const size_t real = std::min(width, n - q * width);
        for (size_t g = 0; g < count; g++) {
            float* out = panels + (q * k + kk0 + g) * width;
            std::memcpy(out, columns + g * n + q * width, real * sizeof(float));
            std::fill(out + real, out + width, 0.0f);
        }
    }
    return any_inf(columns, count * n);
}

MINIFLOAT_SIMD_CLONES
void settle_sums(float* values, size_t n, bool has_inf) {
    for (size_t i = 0; i < n; i++) values[i] = accumulated_value_f32(values[i], has_inf);
}

MINIFLOAT_SIMD_CLONES
void add_products(float* sums, float a, const float* row, size_t n) {
    for (size_t j = 0; j < n; j++) sums[j] = std::fma(a, row[j], sums[j]);
}

// Slices of k outermost (C's block is visited once per slice), then A's
// panels (one stays in L1), then B's (the block's slice stays in L2).
// A padding lane computes 0 x (a real value): that raises "invalid" when
// the value is inf, a flag the real sums did not raise. So an edge tile
// whose padding meets an operand with an inf takes the exact tile, which
// computes only the real lanes (the same bits).
void multiply_panels(const PanelShape& shape, const PanelBlock& block, float* c, size_t ldc) {
    const size_t R = shape.rows, C = shape.columns, k = block.k;
    if (k == 0) {  // sums of nothing
        for (size_t r = 0; r < block.row_panels * R; r++) std::fill(c + r * ldc, c + r * ldc + block.column_panels * C, 0.0f);
        return;
    }
    for (size_t k0 = 0; k0 < k; k0 += shape.depth) {
        const size_t kc = std::min(shape.depth, k - k0);
        const bool first = k0 == 0;
        for (size_t p = 0; p < block.row_panels; p++) {
            const float* a = block.a + (p * k + k0) * R;
            const size_t rows = std::min(R, block.rows - p * R);
            for (size_t q = 0; q < block.column_panels; q++) {
                const float* b = block.b + (q * k + k0) * C;
                const size_t columns = std::min(C, block.columns - q * C);
                float* tile = c + p * R * ldc + q * C;
                const bool padding_is_quiet = (rows == R || !block.b_has_inf) && (columns == C || !block.a_has_inf);
                const TileKernel kernel = padding_is_quiet ? shape.kernel : TileKernel::portable;
                switch (kernel) {
                    case TileKernel::avx512:
                        matrix_tile_avx512(a, b, kc, tile, ldc, first);
                        break;
                    case TileKernel::avx2:
                        matrix_tile_avx2(a, b, kc, tile, ldc, first);
                        break;
                    case TileKernel::portable:
                        tile_exact(a, R, b, C, kc, rows, columns, tile, ldc, first);
                        break;
                }
            }
        }
    }
}

}  // namespace minifloat
