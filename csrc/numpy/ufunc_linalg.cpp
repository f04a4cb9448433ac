// matmul, vecdot, matvec and vecmat (generalized ufuncs): operands are
// decoded to float32, products are accumulated in float32, and each output
// is rounded once. matmul decodes its operands straight into the packed
// panels of minifloat's own matrix product (matrix_product.h) and rounds
// each finished block of C while it is in cache: no BLAS, no GIL, and the
// work splits over minifloat's threads.
#include "ufunc_linalg.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "codec.h"
#include "decode_blocks.h"
#include "format_types.h"
#include "fp_status.h"
#include "matrix_product.h"
#include "scratch_memory.h"
#include "thread_pool.h"

namespace minifloat {

namespace {

// Decodes `rows` strided rows of `cols` codes into dense float32 rows.
void decode_rows(const FormatRuntime& rt, const char* base, size_t rows, size_t cols, npy_intp row_stride,
                 npy_intp col_stride, float* out) {
    for (size_t r = 0; r < rows; r++) {
        const char* p = base + static_cast<npy_intp>(r) * row_stride;
        float* o = out + r * cols;
        if (col_stride == rt.format.storage_bytes) {
            decode_codes_to_f32(rt, p, o, cols);
            continue;
        }
        for (size_t c = 0; c < cols; c++, p += col_stride) o[c] = rt.decode_f32(load_code(rt, p));
    }
}

// Codes of a strided matrix: element (i, j) at base + i * row_stride + j * col_stride.
struct CodeMatrix {
    const char* base;
    size_t rows, cols;
    npy_intp row_stride, col_stride;
    CodeMatrix transposed() const { return {base, cols, rows, col_stride, row_stride}; }
};

// Columns of X decoded per step of the column-wise packing (16 x a row of
// 2048: 128 KB, in L2).
constexpr size_t kColumnRun = 16;

// Whether X is packed from its columns (contiguous), not its rows.
bool packs_by_columns(const FormatRuntime& rt, const CodeMatrix& x) {
    return x.row_stride == rt.format.storage_bytes && x.col_stride != x.row_stride;
}

// X (rows x k) into panels of `width` of its rows (matrix_product.h),
// split over the threads; true if X holds an inf. Along whichever of X's
// directions is contiguous: its rows (decoded, then turned), or its
// columns (decoded in runs, each run one write per panel).
bool pack_panels(const FormatRuntime& rt, const CodeMatrix& x, size_t width, float* panels) {
    const size_t n = x.rows, k = x.cols;
    if (packs_by_columns(rt, x)) {
        const CodeMatrix columns = x.transposed();
        return parallel_for_items(panels_covering(k, kColumnRun), kColumnRun * n, WorkKind::cast,
                                  [&](size_t first, size_t last) -> uint32_t {
            std::unique_ptr<float[]> run(new float[kColumnRun * n]);
            bool inf = false;
            for (size_t step = first; step < last; step++) {
                const size_t kk0 = step * kColumnRun, count = std::min(kColumnRun, k - kk0);
                decode_rows(rt, columns.base + static_cast<npy_intp>(kk0) * columns.row_stride, count, n,
                            columns.row_stride, columns.col_stride, run.get());
                inf |= pack_panels_from_columns(width, run.get(), count, n, kk0, k, panels);
            }
            return inf ? 1u : 0u;
        }) != 0;
    }
    return parallel_for_items(panels_covering(n, width), width * k, WorkKind::cast,
                              [&](size_t first, size_t last) -> uint32_t {
        std::unique_ptr<float[]> rows(new float[width * k]);
        bool inf = false;
        for (size_t p = first; p < last; p++) {
            const size_t r0 = p * width, count = std::min(width, n - r0);
            decode_rows(rt, x.base + static_cast<npy_intp>(r0) * x.row_stride, count, k, x.row_stride, x.col_stride,
                        rows.get());
            inf |= pack_panel_from_rows(width, rows.get(), count, k, panels + p * width * k);
        }
        return inf ? 1u : 0u;
    }) != 0;
}

// Rounds `rows` x `cols` sums (row stride ldc) once into a strided operand.
uint32_t encode_block(const FormatRuntime& rt, float* values, size_t rows, size_t cols, size_t ldc, char* base,
                      npy_intp row_stride, npy_intp col_stride) {
    const npy_intp item = rt.format.storage_bytes;
    const bool has_inf = rt.format.has_inf;
    if (col_stride == item && row_stride == static_cast<npy_intp>(cols) * item) {
        // whole rows of a contiguous output: one run, one call
        for (size_t r = 1; r < rows; r++) std::memmove(values + r * cols, values + r * ldc, cols * sizeof(float));
        settle_sums(values, rows * cols, has_inf);
        return encode_f32(rt.default_plan, values, base, rows * cols);
    }
    const bool wide = item == 2;
    std::vector<uint16_t> codes;
    std::vector<uint8_t> narrow;
    if (col_stride != item) (wide ? codes.resize(cols) : narrow.resize(cols));
    uint32_t flags = 0;
    for (size_t r = 0; r < rows; r++) {
        float* row = values + r * ldc;
        settle_sums(row, cols, has_inf);
        char* p = base + static_cast<npy_intp>(r) * row_stride;
        if (col_stride == item) {
            flags |= encode_f32(rt.default_plan, row, p, cols);
            continue;
        }
        void* staged = wide ? static_cast<void*>(codes.data()) : static_cast<void*>(narrow.data());
        flags |= encode_f32(rt.default_plan, row, staged, cols);
        for (size_t c = 0; c < cols; c++, p += col_stride) store_code(rt, p, wide ? codes[c] : narrow[c]);
    }
    return flags;
}

// The work items of a product: blocks of C of up to kBlockRows x
// kBlockColumns (multiples of every kernel set's tile), row-major, so a
// thread's consecutive blocks share their rows of A. Their sums (200 KB)
// stay in L2 while they are made and rounded.
constexpr size_t kBlockRows = 96, kBlockColumns = 528;

// Whether B's panels are packed where they are used (see multiply).
bool packed_where_used(const FormatRuntime& rt, const PanelShape& shape, const CodeMatrix& a, const CodeMatrix& b_t) {
    return a.rows <= shape.rows && !packs_by_columns(rt, b_t);
}

// One product a @ b_t' (a: n x k, b_t: m x k, B's transpose), rounded
// into `out` (n x m, strides c_n and c_m).
uint32_t multiply(const FormatRuntime& rt, const PanelShape& shape, const CodeMatrix& a, const CodeMatrix& b_t,
                  char* out, npy_intp c_n, npy_intp c_m, float* a_panels, float* b_panels) {
    const size_t R = shape.rows, C = shape.columns, n = a.rows, m = b_t.rows, k = a.cols;
    const bool a_inf = pack_panels(rt, a, R, a_panels);
    if (packed_where_used(rt, shape, a, b_t)) {
        // one panel of A: each of B's panels is used once, so it is packed
        // where it is used (in L2), not into memory first (by B's rows; by
        // columns, a panel at a time would decode runs too short)
        return parallel_for_items(panels_covering(m, C), R * C * k, WorkKind::matmul, [&](size_t first, size_t last) {
            const auto panel = line_aligned_array<float>(C * k);
            const auto sums = line_aligned_array<float>(R * C);
            uint32_t flags = 0;
            for (size_t q = first; q < last; q++) {
                const size_t columns = std::min(C, m - q * C);
                const CodeMatrix part{b_t.base + static_cast<npy_intp>(q * C) * b_t.row_stride, columns, k,
                                      b_t.row_stride, b_t.col_stride};
                const bool b_inf = pack_panels(rt, part, C, panel.data);  // (nested: on this thread)
                multiply_panels(shape, PanelBlock{a_panels, 1, n, panel.data, 1, columns, k, a_inf, b_inf},
                                sums.data, C);
                flags |= encode_block(rt, sums.data, n, columns, C, out + static_cast<npy_intp>(q * C) * c_m, c_n, c_m);
            }
            return flags;
        });
    }
    const bool b_inf = pack_panels(rt, b_t, C, b_panels);
    const size_t column_blocks = panels_covering(m, kBlockColumns);
    const size_t block_rows = std::min(kBlockRows, panels_covering(n, R) * R);
    const size_t ldc = std::min(kBlockColumns, panels_covering(m, C) * C);
    return parallel_for_items(panels_covering(n, kBlockRows) * column_blocks, kBlockRows * kBlockColumns * k,
                              WorkKind::matmul, [&](size_t first, size_t last) {
        const auto sums = line_aligned_array<float>(block_rows * ldc);
        uint32_t flags = 0;
        for (size_t item = first; item < last; item++) {
            const size_t r0 = item / column_blocks * kBlockRows, c0 = item % column_blocks * kBlockColumns;
            const size_t rows = std::min(kBlockRows, n - r0), cols = std::min(kBlockColumns, m - c0);
            const PanelBlock block{a_panels + r0 * k, panels_covering(rows, R), rows,
                                   b_panels + c0 * k, panels_covering(cols, C), cols, k, a_inf, b_inf};
            multiply_panels(shape, block, sums.data, ldc);
            flags |= encode_block(rt, sums.data, rows, cols, ldc, out + static_cast<npy_intp>(r0) * c_n +
                                  static_cast<npy_intp>(c0) * c_m, c_n, c_m);
        }
        return flags;
    });
}

// Lanes the tiles compute for an n x m product (padding included).
size_t padded_lanes(size_t n, size_t m, const PanelShape& shape) {
    return panels_covering(n, shape.rows) * shape.rows * panels_covering(m, shape.columns) * shape.columns;
}

uint32_t vector_times_matrix(const FormatRuntime& rt, const float* x, size_t k, const char* b, npy_intp b_row,
                             npy_intp b_col, size_t m, char* out, npy_intp out_step);

// matmul: (n,k),(k,m)->(n,m). Runs with the GIL released; a failed
// allocation takes it to raise MemoryError.
int matmul_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                const npy_intp steps[], NpyAuxData*) {
    const FormatRuntime& rt = runtime_of(context->descriptors[0]);
    const size_t outer = static_cast<size_t>(dimensions[0]), n = static_cast<size_t>(dimensions[1]);
    const size_t k = static_cast<size_t>(dimensions[2]), m = static_cast<size_t>(dimensions[3]);
    if (n == 0 || m == 0) return 0;
    DefaultFpuModeScope default_modes;  // round to nearest, no flushing of subnormal sums
    const PanelShape shape = panel_shape();
    uint32_t flags = 0;
    // C' = B' A' (the same sums: each product commutes exactly) where that
    // pads less: a narrow B (m of 1 to 3) is then rows of tiles, not 48-wide
    // columns of them (never when n is 1: turned, a row would pad to 48, not 8).
    const bool turn = padded_lanes(m, n, shape) < padded_lanes(n, m, shape);
    // product o's A and B's transpose (the strides are the same for every o)
    const auto operands = [&](size_t o) {
        const npy_intp i = static_cast<npy_intp>(o);
        return std::make_pair(CodeMatrix{data[0] + i * steps[0], n, k, steps[3], steps[4]},
                              CodeMatrix{data[1] + i * steps[1], k, m, steps[5], steps[6]}.transposed());
    };
    try {
        if (n == 1) {  // a row times B: B's rows streamed, nothing packed (the same sums)
            std::vector<float> row(k);
            for (size_t o = 0; o < outer; o++) {
                const npy_intp i = static_cast<npy_intp>(o);
                decode_rows(rt, data[0] + i * steps[0], 1, k, 0, steps[4], row.data());
                flags |= vector_times_matrix(rt, row.data(), k, data[1] + i * steps[1], steps[5], steps[6], m,
                                             data[2] + i * steps[2], steps[8]);
            }
            raise_fp_flags(flags);
            return 0;
        }
        // (every element is written before it is read: packed, padding included)
        const size_t left = turn ? m : n, right = turn ? n : m;
        const size_t a_floats = panels_covering(left, shape.rows) * shape.rows * k;
        const auto [x0, y0_t] = operands(0);
        const bool in_place = turn ? packed_where_used(rt, shape, y0_t, x0) : packed_where_used(rt, shape, x0, y0_t);
        const size_t b_floats = in_place ? 0 : panels_covering(right, shape.columns) * shape.columns * k;
        // products o in [first, last), on their own scratch
        const auto products = [&](size_t first, size_t last) {
            const auto a = line_aligned_array<float>(a_floats);
            const auto b = line_aligned_array<float>(b_floats);
            uint32_t part = 0;
            for (size_t o = first; o < last; o++) {
                const auto [x, y_t] = operands(o);
                char* out = data[2] + static_cast<npy_intp>(o) * steps[2];
                part |= turn ? multiply(rt, shape, y_t, x, out, steps[8], steps[7], a.data, b.data)
                             : multiply(rt, shape, x, y_t, out, steps[7], steps[8], a.data, b.data);
            }
            return part;
        };
        // a stack of products that are one block of C each: the stack split
        // over the threads (each product then runs on its thread: nested)
        const bool one_block = left <= kBlockRows && right <= kBlockColumns;
        flags = outer > 1 && one_block ? parallel_for_items(outer, n * k * m, WorkKind::matmul, products)
                                       : products(0, outer);
    } catch (const std::bad_alloc&) {
        const PyGILState_STATE gil = PyGILState_Ensure();
        PyErr_NoMemory();
        PyGILState_Release(gil);
        return -1;
    }
    raise_fp_flags(flags);
    return 0;
}

float dot_strided(const FormatRuntime& rt, const char* a, npy_intp a_step, const char* b,
                  npy_intp b_step, npy_intp n) {
    float sum = 0.0f;
    for (npy_intp i = 0; i < n; i++) {
        sum += rt.decode_f32(load_code(rt, a + i * a_step)) * rt.decode_f32(load_code(rt, b + i * b_step));
    }
    return sum;
}

uint32_t store_rounded(const FormatRuntime& rt, char* out, float value) {
    const Encoded e = encode_from_double(rt.format, rt.default_specials, accumulated_value(rt, value));
    store_code(rt, out, e.code);
    return e.flags;
}

// vecdot: (n),(n)->(); the outer loop split over the threads
int vecdot_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                const npy_intp steps[], NpyAuxData*) {
    const FormatRuntime& rt = runtime_of(context->descriptors[0]);
    const uint32_t flags = parallel_for_items(static_cast<size_t>(dimensions[0]), static_cast<size_t>(dimensions[1]),
                                              WorkKind::matmul, [&](size_t first, size_t last) {
        uint32_t part = 0;
        for (npy_intp o = static_cast<npy_intp>(first); o < static_cast<npy_intp>(last); o++) {
            const float sum = dot_strided(rt, data[0] + o * steps[0], steps[3], data[1] + o * steps[1], steps[4],
                                          dimensions[1]);
            part |= store_rounded(rt, data[2] + o * steps[2], sum);
        }
        return part;
    });
    raise_fp_flags(flags);
    return 0;
}

// matvec: (m,n),(n)->(m)
int matvec_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                const npy_intp steps[], NpyAuxData*) {
    const FormatRuntime& rt = runtime_of(context->descriptors[0]);
    const npy_intp m = dimensions[1], n = dimensions[2];
    uint32_t flags = 0;
    for (npy_intp o = 0; o < dimensions[0]; o++) {
        // each output on its own, its sum in a fixed order: rows split over the threads
        flags |= parallel_for_items(static_cast<size_t>(m), static_cast<size_t>(n), WorkKind::matmul,
                                    [&](size_t first, size_t last) {
            uint32_t part = 0;
            for (npy_intp r = static_cast<npy_intp>(first); r < static_cast<npy_intp>(last); r++) {
                const float sum = dot_strided(rt, data[0] + o * steps[0] + r * steps[3], steps[4],
                                              data[1] + o * steps[1], steps[5], n);
                part |= store_rounded(rt, data[2] + o * steps[2] + r * steps[6], sum);
            }
            return part;
        });
    }
    raise_fp_flags(flags);
    return 0;
}

// Columns of a vecmat block: its sums and one decoded row segment stay in L1.
constexpr size_t kVecmatColumns = 512;

// x (k decoded values) @ B (k x m codes), rounded into `out` (stride
// out_step). Walking a column of B touches a cache line per element, so
// blocks of columns are summed along B's rows instead, each sum in the
// order of k by fused multiply-adds (as matrix_product.h's); blocks split
// over the threads.
uint32_t vector_times_matrix(const FormatRuntime& rt, const float* x, size_t k, const char* b, npy_intp b_row,
                             npy_intp b_col, size_t m, char* out, npy_intp out_step) {
    const size_t blocks = panels_covering(m, kVecmatColumns);
    return parallel_for_items(blocks, k * kVecmatColumns, WorkKind::matmul, [&](size_t first, size_t last) {
        float sums[kVecmatColumns], row[kVecmatColumns];
        uint32_t part = 0;
        for (size_t block = first; block < last; block++) {
            const size_t c0 = block * kVecmatColumns, width = std::min(kVecmatColumns, m - c0);
            std::fill(sums, sums + width, 0.0f);
            for (size_t kk = 0; kk < k; kk++) {
                decode_rows(rt, b + static_cast<npy_intp>(kk) * b_row + static_cast<npy_intp>(c0) * b_col, 1, width,
                            b_row, b_col, row);
                add_products(sums, x[kk], row, width);
            }
            for (size_t j = 0; j < width; j++) {
                part |= store_rounded(rt, out + static_cast<npy_intp>(c0 + j) * out_step, sums[j]);
            }
        }
        return part;
    });
}

// vecmat: (n),(n,m)->(m)
int vecmat_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                const npy_intp steps[], NpyAuxData*) {
    const FormatRuntime& rt = runtime_of(context->descriptors[0]);
    const size_t n = static_cast<size_t>(dimensions[1]), m = static_cast<size_t>(dimensions[2]);
    std::vector<float> a(n);
    uint32_t flags = 0;
    for (npy_intp o = 0; o < dimensions[0]; o++) {
        decode_rows(rt, data[0] + o * steps[0], 1, n, 0, steps[3], a.data());
        flags |= vector_times_matrix(rt, a.data(), n, data[1] + o * steps[1], steps[4], steps[5], m,
                                     data[2] + o * steps[2], steps[6]);
    }
    raise_fp_flags(flags);
    return 0;
}

}  // namespace

std::vector<LinalgLoop> linalg_loops() {
    return {
        {"matmul", matmul_loop},
        {"vecdot", vecdot_loop},
        {"matvec", matvec_loop},
        {"vecmat", vecmat_loop},
    };
}

}  // namespace minifloat
