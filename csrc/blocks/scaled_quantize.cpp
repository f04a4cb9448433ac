#include "scaled_quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "numpy_api.h"

#include "convert_kernels.h"
#include "float_bits.h"
#include "fp_status.h"
#include "format_types.h"
#include "gil_release.h"
#include "registry.h"
#include "simd_dispatch.h"
#include "thread_pool.h"

namespace py = pybind11;

namespace minifloat {

namespace {

// The data seen as (outer, rows, cols), C order; the group of element
// (l, r, c) is l * outer_stride + (r / row_block) * col_groups + c / col_block.
// Per channel along axis k: outer = the axes before k, rows = axis k, cols =
// the axes after it, row_block = 1, col_block = cols, outer_stride = 0; per
// tensor: one group; per tile of (row_block, col_block) over the last two
// axes (or col_block over the last): outer_stride = the groups per outer index.
struct GroupLayout {
    size_t outer, rows, cols, row_block, col_block, outer_stride;
    size_t row_groups() const { return (rows + row_block - 1) / row_block; }
    size_t col_groups() const { return (cols + col_block - 1) / col_block; }
    size_t group(size_t l, size_t r, size_t c) const {
        return l * outer_stride + (r / row_block) * col_groups() + c / col_block;
    }
    size_t groups() const { return outer_stride == 0 ? row_groups() * col_groups() : outer * outer_stride; }
};

GroupLayout layout_from(py::tuple t) {
    if (t.size() != 6) throw py::value_error("the group layout has six entries");
    size_t v[6];
    for (size_t i = 0; i < 6; i++) {
        if (!py::isinstance<py::int_>(t[i])) throw py::type_error("the group layout holds integers");
        const long long x = PyLong_AsLongLong(t[i].ptr());
        if (x == -1 && PyErr_Occurred()) throw py::error_already_set();  // OverflowError
        if (x < 0) throw py::value_error("the group layout's entries must not be negative");
        v[i] = static_cast<size_t>(x);
    }
    GroupLayout g{v[0], v[1], v[2], v[3], v[4], v[5]};
    if (g.row_block == 0 || g.col_block == 0) throw py::value_error("group blocks must be positive");
    size_t size = 0;
    if (__builtin_mul_overflow(g.outer, g.rows, &size) || __builtin_mul_overflow(size, g.cols, &size) ||
        __builtin_mul_overflow(g.outer, g.row_groups() * g.col_groups(), &size)) {
        throw py::value_error("the group layout has more elements than an array can hold");
    }
    // the groups of one outer index are shared by all (channel, tensor) or their own
    if (g.outer_stride != 0 && g.outer_stride != g.row_groups() * g.col_groups()) {
        throw py::value_error("the group layout's outer stride must be 0 or the groups per outer index");
    }
    return g;
}

const float* float32_data(py::handle obj, size_t n, const char* what) {
    if (!PyArray_Check(obj.ptr())) throw py::type_error(std::string(what) + " must be a NumPy array");
    auto* a = reinterpret_cast<PyArrayObject*>(obj.ptr());
    if (PyArray_TYPE(a) != NPY_FLOAT32 || !PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISALIGNED(a) ||
        !PyArray_ISNOTSWAPPED(a) || static_cast<size_t>(PyArray_SIZE(a)) != n) {
        throw py::value_error(std::string(what) + " must be a C-contiguous native float32 array of the layout's size");
    }
    return static_cast<const float*>(PyArray_DATA(a));
}

// Finite magnitudes as their bit patterns (ordered as the values are);
// inf and NaN count as 0 and mark the group instead.
constexpr uint32_t kInfBits = 0x7f800000u;

MINIFLOAT_KERNEL_INLINE uint32_t magnitude_bits(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return bits & 0x7fffffffu;
}

// The plain loops below are compiled for AVX-512, AVX2 and the baseline
// (simd_dispatch.h), each vectorized by the compiler.

// Largest finite magnitude (as bits) of n values, and whether one is not
// finite. The common case is one max reduction, which the compiler
// vectorizes (with the finiteness test inside, GCC made the loop branchy
// and scalar: 1.5 ms of a 4096 x 4096 block recipe's 11); a span holding
// an inf or NaN is read again for its largest finite magnitude.
MINIFLOAT_KERNEL_INLINE uint32_t span_max(const float* __restrict values, size_t n, uint32_t* nonfinite) {
    uint32_t largest = 0;
    for (size_t i = 0; i < n; i++) largest = std::max(largest, magnitude_bits(values[i]));
    *nonfinite = largest >= kInfBits ? 1u : 0u;
    if (largest < kInfBits) return largest;
    uint32_t finite_largest = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t bits = magnitude_bits(values[i]);
        if (bits < kInfBits) finite_largest = std::max(finite_largest, bits);
    }
    return finite_largest;
}

// amax[b] and bad[b] updated with block b of a row of n values (blocks of
// `block`, the last one shorter): one call a row, not one a block (a
// 4096 x 4096 recipe in blocks of (1, 128) made 131072 calls).
MINIFLOAT_SIMD_CLONES void row_blocks_max(const float* __restrict row, size_t n, size_t block,
                                          uint32_t* __restrict amax, uint8_t* __restrict bad) {
    for (size_t b = 0, c0 = 0; c0 < n; b++, c0 += block) {
        uint32_t nonfinite = 0;
        const uint32_t m = span_max(row + c0, std::min(block, n - c0), &nonfinite);
        amax[b] = std::max(amax[b], m);
        bad[b] |= static_cast<uint8_t>(nonfinite);
    }
}

// amax[r] and bad[r] updated with value r of each of Rows runs of n values
// (one group per value; run k at values + k * stride). An inf or NaN
// counts as 0 here and marks its group in a second loop, run only when
// the first met one; amax is read and written once for all Rows runs.
// (Marking each value's byte in the first loop, packing every vector's
// lanes down to bytes, and one run at a time made the maxima pass of a
// 4096 x 4096 recipe per channel along axis 1 take 5.2 ms to axis 0's
// 3.1 ms: Intel Xeon VM, AVX2, one thread.)
template <size_t Rows>
MINIFLOAT_KERNEL_INLINE void columns_max_rows(const float* __restrict values, size_t stride, size_t n,
                                              uint32_t* __restrict amax, uint8_t* __restrict bad) {
    uint32_t nonfinite = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t m = amax[i];
        for (size_t k = 0; k < Rows; k++) {
            const uint32_t bits = magnitude_bits(values[k * stride + i]);
            // all ones where finite, from the sign of bits - kInfBits (both
            // below 2^31): a select GCC turned into compares and blends
            const uint32_t finite = static_cast<uint32_t>(static_cast<int32_t>(bits - kInfBits) >> 31);
            m = std::max(m, bits & finite);
            nonfinite |= ~finite;
        }
        amax[i] = m;
    }
    if (nonfinite == 0) return;
    for (size_t k = 0; k < Rows; k++) {
        const float* run = values + k * stride;
        for (size_t i = 0; i < n; i++) bad[i] |= static_cast<uint8_t>(magnitude_bits(run[i]) >= kInfBits);
    }
}

// Rows of the maxima pass at once where a row's groups are the same for
// the next rows (per channel along a later axis; in a tile's row block):
// amax read and written once for all of them. 4096 x 4096 per channel
// along axis 1, Intel Xeon VM, one thread, AVX2 (AVX-512): 5.2 (4.9) ms
// one row a pass, 3.3 (3.2) four, 2.9 (2.8) eight, 3.0 (3.1) sixteen.
constexpr size_t kColumnRows = 8;

MINIFLOAT_SIMD_CLONES void columns_max(const float* __restrict values, size_t n, uint32_t* __restrict amax,
                                       uint8_t* __restrict bad) {
    columns_max_rows<1>(values, 0, n, amax, bad);
}

MINIFLOAT_SIMD_CLONES void columns_max_of_rows(const float* __restrict values, size_t stride, size_t n,
                                               uint32_t* __restrict amax, uint8_t* __restrict bad) {
    columns_max_rows<kColumnRows>(values, stride, n, amax, bad);
}

// q[i] = x[i] / s, in float64.
MINIFLOAT_SIMD_CLONES void divide_by(const float* __restrict x, float s, size_t n, double* __restrict q) {
    const double d = s;
    for (size_t i = 0; i < n; i++) q[i] = static_cast<double>(x[i]) / d;
}

// q[i] = x[i] / s[i], in float64.
MINIFLOAT_SIMD_CLONES void divide_each(const float* __restrict x, const float* __restrict s, size_t n,
                                       double* __restrict q) {
    for (size_t i = 0; i < n; i++) q[i] = static_cast<double>(x[i]) / static_cast<double>(s[i]);
}

// The same quotients in float32, which divides twice the lanes at a time
// (AVX2's vdivpd takes 4 doubles, vdivps 8 floats). x / s rounded to
// float32 rounds once into the format as the exact quotient does, except
// where it lands on one of the format's rounding boundaries (the midpoints
// between its values: rounding is monotonic and float32 holds each
// boundary). Those have their last 22 - M fraction bits zero (M the
// format's mantissa bits), so a quotient that does is moved one float32
// step toward the exact one; an exact quotient stays (the format's rounding
// takes the tie), and elsewhere the step changes nothing (the next boundary
// is 2^(22 - M) steps away). The side is the sign of x - q * s, which one
// fused multiply-add gives exactly: the product is exact, and the
// difference a nonzero multiple of at least 2^-149 when |x| >= 2^-100 and
// s is normal, so it does not round to zero. Where that bound does not
// hold (x below 2^-100 on such a float) `needs_float64` is set and the
// caller divides in float64 instead. (The element pass of a 4096 x 4096
// recipe per tensor, one thread, on a Zen 5: float64 quotients 7.6 ms with
// AVX2, 5.5 with AVX-512; these 4.6 and 3.5, against 2.8 + 2.0 and
// 2.7 + 1.8 for NumPy's division and the cast after it.)
constexpr uint32_t kScaledTinyBits = 0x0d800000u;  // 2^-100

using float_bits::bit_cast;

// Where a format's rounding boundaries (nearest modes) lie among float32
// patterns: the last 22 - M fraction bits zero (low_mask); in the format's
// normal range (from min_normal_bits) bit 22 - M set as well, since there a
// boundary is a midpoint between two values, and a quotient on a value
// rounds to it whichever side of it the exact one is (the nearest boundary
// is 2^(22 - M) float32 steps away). Every block of a block recipe holds a
// quotient on a value (its largest magnitude over the scale: the format's
// largest value), which the grid alone sent to the second loop each time
// (4096 x 4096 in blocks of (1, 128): 6.7 ms for the element pass against
// 3.8 per tensor, Zen 5).
struct BoundaryGrid {
    uint32_t low_mask, midpoint_bit, min_normal_bits;
};

// Whether a nonzero quotient is on the boundaries' grid (a zero one is
// exact, or the rounding of a quotient below every boundary, which every
// format rounds to zero too: its boundaries are 2^-149 and up).
MINIFLOAT_KERNEL_INLINE uint32_t on_boundary_grid(float q, const BoundaryGrid& grid) {
    const uint32_t bits = bit_cast<uint32_t>(q);
    const uint32_t magnitude = bits & 0x7FFFFFFFu;
    const uint32_t midpoint = static_cast<uint32_t>((bits & grid.midpoint_bit) != 0) |
                              static_cast<uint32_t>(magnitude < grid.min_normal_bits);
    return static_cast<uint32_t>((bits & grid.low_mask) == 0) & static_cast<uint32_t>(magnitude != 0) & midpoint;
}

// (in integer arithmetic on 0/1 values, which the compiler vectorizes)
MINIFLOAT_KERNEL_INLINE float quotient_toward_exact(float x, float s, const BoundaryGrid& grid, uint32_t& needs_float64) {
    const float q = x / s;
    const uint32_t q_bits = bit_cast<uint32_t>(q);
    const uint32_t residual_bits = bit_cast<uint32_t>(std::fma(-q, s, x));  // x - q * s, rounded once
    const uint32_t x_magnitude = magnitude_bits(x);
    const uint32_t on_grid = on_boundary_grid(q, grid);
    const uint32_t moves = on_grid & (x_magnitude < kInfBits) & ((residual_bits << 1) != 0);
    // the exact quotient is above q where the residual and s have one sign;
    // the float above q is the next pattern where q is positive
    const uint32_t up_the_patterns = 1u ^ (residual_bits >> 31) ^ (bit_cast<uint32_t>(s) >> 31) ^ (q_bits >> 31);
    const uint32_t moved_bits = q_bits + moves * (2u * up_the_patterns) - moves;  // +1, -1 or 0
    needs_float64 |= on_grid & (x_magnitude != 0) & (x_magnitude < kScaledTinyBits);
    return bit_cast<float>(moved_bits);
}

// A scale the float32 quotients serve: normal and finite.
inline bool normal_scale(float s) {
    const uint32_t bits = magnitude_bits(s);
    return bits >= 0x00800000u && bits < kInfBits;
}

// q[i] = x[i] / s as above; returns nonzero where float64 is needed. The
// plain quotients first: a run with none on the grid (all but about one
// in 2^(22 - M) quotients of typical data) is done.
MINIFLOAT_SIMD_CLONES uint32_t divide_by_f32(const float* __restrict x, float s, size_t n, const BoundaryGrid& grid,
                                             float* __restrict q) {
    uint32_t any_on_grid = 0;
    for (size_t i = 0; i < n; i++) {
        q[i] = x[i] / s;
        any_on_grid |= on_boundary_grid(q[i], grid);
    }
    if (any_on_grid == 0) return 0;
    uint32_t needs_float64 = 0;
    for (size_t i = 0; i < n; i++) q[i] = quotient_toward_exact(x[i], s, grid, needs_float64);
    return needs_float64;
}

// q[i] = x[i] / s[i] as above (each scale normal: checked by the caller).
MINIFLOAT_KERNEL_INLINE uint32_t divide_each_f32_inline(const float* __restrict x, const float* __restrict s,
                                                        size_t n, const BoundaryGrid& grid, float* __restrict q) {
    uint32_t any_on_grid = 0;
    for (size_t i = 0; i < n; i++) {
        q[i] = x[i] / s[i];
        any_on_grid |= on_boundary_grid(q[i], grid);
    }
    if (any_on_grid == 0) return 0;
    uint32_t needs_float64 = 0;
    for (size_t i = 0; i < n; i++) q[i] = quotient_toward_exact(x[i], s[i], grid, needs_float64);
    return needs_float64;
}

MINIFLOAT_SIMD_CLONES uint32_t divide_each_f32(const float* __restrict x, const float* __restrict s, size_t n,
                                               const BoundaryGrid& grid, float* __restrict q) {
    return divide_each_f32_inline(x, s, n, grid, q);
}

// The most values divide_blocks_f32 takes (a stage of scaled_elements):
// its float32 quotients fill a third of a 48 KB L1 (the element pass per
// tensor, Intel Xeon VM, one thread: 1024 a stage 0.43 ns a value in
// cache and 0.66 for 4096 x 4096, 4096 a stage 0.39-0.41 and 0.60-0.64;
// 8192 no faster).
constexpr size_t kStage = 4096;

// q[i] = x[i] / s[(offset + i) / block] as above, for up to kStage values
// along a row whose blocks' scales are consecutive: each block's scale
// written out per value, then one division loop (a loop per block of 128
// spent more on its ends than on its 8 vectors: the block recipe's element
// pass took 6.7 ms to the tensor recipe's 3.8, 4096 x 4096 on a Zen 5).
MINIFLOAT_SIMD_CLONES uint32_t divide_blocks_f32(const float* __restrict x, const float* __restrict s, size_t block,
                                                 size_t offset, size_t n, const BoundaryGrid& grid,
                                                 float* __restrict q) {
    if (block == 1) return divide_each_f32_inline(x, s, n, grid, q);  // a scale per value already
    alignas(64) float per_value[kStage];
    for (size_t i = 0, b = 0; i < n; b++) {
        const size_t end = std::min(n, (b + 1) * block - offset);
        std::fill(per_value + i, per_value + end, s[b]);
        i = end;
    }
    return divide_each_f32_inline(x, per_value, n, grid, q);
}

// amax[b] and bad[b] updated with the lanes' maxima and marks of a row
// block, col_block lanes a group (the last one shorter).
MINIFLOAT_SIMD_CLONES void lane_blocks_max(const uint32_t* __restrict lane_max, const uint8_t* __restrict lane_bad,
                                           size_t n, size_t block, uint32_t* __restrict amax,
                                           uint8_t* __restrict bad) {
    for (size_t b = 0, c0 = 0; c0 < n; b++, c0 += block) {
        const size_t end = std::min(n, c0 + block);
        uint32_t m = 0;
        uint8_t marked = 0;
        for (size_t c = c0; c < end; c++) {
            m = std::max(m, lane_max[c]);
            marked |= lane_bad[c];
        }
        amax[b] = std::max(amax[b], m);
        bad[b] |= marked;
    }
}

// Rows [q, end) of one row block of a tile recipe: each lane's maximum over
// the rows first (columns_max, kColumnRows rows a pass), then each group's
// span of lanes once: one span reduction a row and group made the maxima
// pass of 4096 x 4096 in tiles of (128, 128) take 3.7 ms to 3.1 per channel
// along axis 0, this 3.0 (Intel Xeon VM, AVX2, one thread).
void tile_rows_max(const GroupLayout& g, const float* x, size_t q, size_t end, uint32_t* amax, uint8_t* bad,
                   std::vector<uint32_t>& lane_max, std::vector<uint8_t>& lane_bad) {
    lane_max.assign(g.cols, 0);
    lane_bad.assign(g.cols, 0);
    for (; q + kColumnRows <= end; q += kColumnRows) {
        columns_max_of_rows(x + q * g.cols, g.cols, g.cols, lane_max.data(), lane_bad.data());
    }
    for (; q < end; q++) columns_max(x + q * g.cols, g.cols, lane_max.data(), lane_bad.data());
    lane_blocks_max(lane_max.data(), lane_bad.data(), g.cols, g.col_block, amax, bad);
}

// amax and non-finite marks of the groups that rows [q0, q1) touch (row q
// is (l, r) = (q / rows, q % rows)), into `amax` and `bad` (by group).
void group_maxima(const GroupLayout& g, const float* x, size_t q0, size_t q1, uint32_t* amax, uint8_t* bad) {
    std::vector<uint32_t> lane_max;  // (tile recipes: tile_rows_max's lanes)
    std::vector<uint8_t> lane_bad;
    for (size_t q = q0; q < q1;) {
        const size_t l = q / g.rows, r = q % g.rows;
        if (g.cols == 1) {
            // one value per row: rows are the inner loop
            const size_t run = std::min(q1 - q, g.rows - r);
            const size_t base = l * g.outer_stride;
            if (g.row_block == 1 && g.outer_stride == 0 && r == 0 && q + kColumnRows * g.rows <= q1) {
                // whole runs of every group, kColumnRows outer indices at once
                columns_max_of_rows(x + q, g.rows, g.rows, amax, bad);
                q += kColumnRows * g.rows;
                continue;
            }
            if (g.row_block == 1) {
                columns_max(x + q, run, amax + base + r, bad + base + r);
            } else {
                for (size_t j = 0; j < run; j++) {
                    const uint32_t b = magnitude_bits(x[q + j]);
                    const bool finite = b < kInfBits;
                    const size_t at = base + (r + j) / g.row_block;
                    amax[at] = std::max(amax[at], finite ? b : 0u);
                    bad[at] |= finite ? 0 : 1;
                }
            }
            q += run;
            continue;
        }
        const size_t base = g.group(l, r, 0);
        if (g.row_block > 1) {
            // to the end of this row block (of this outer index, of the part)
            const size_t end = std::min({q1, q - r % g.row_block + g.row_block, q - r + g.rows});
            tile_rows_max(g, x, q, end, amax + base, bad + base, lane_max, lane_bad);
            q = end;
            continue;
        }
        row_blocks_max(x + q * g.cols, g.cols, g.col_block, amax + base, bad + base);
        q++;
    }
}

// (amax as float32 per group, non-finite mark per group): max and or are
// exact and order-free, so the outer rows split over the threads and their
// partial results merge to the same bits for any thread count.
py::tuple scaled_maxima(py::handle values, py::tuple layout) {
    const GroupLayout g = layout_from(layout);
    const float* x = float32_data(values, g.outer * g.rows * g.cols, "values");
    const size_t groups = g.groups();
    npy_intp dims[1] = {static_cast<npy_intp>(groups)};
    PyObject* amax_obj = PyArray_ZEROS(1, dims, NPY_FLOAT32, 0);
    if (amax_obj == nullptr) throw py::error_already_set();
    py::object amax_array = py::reinterpret_steal<py::object>(amax_obj);
    PyObject* bad_obj = PyArray_ZEROS(1, dims, NPY_BOOL, 0);
    if (bad_obj == nullptr) throw py::error_already_set();
    py::object bad_array = py::reinterpret_steal<py::object>(bad_obj);
    auto* amax = static_cast<uint32_t*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(amax_obj)));
    auto* bad = static_cast<uint8_t*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(bad_obj)));
    {
        const GilReleased released;
        std::mutex merge;
        const size_t rows = g.outer * g.rows;
        parallel_for_items(rows, g.cols, WorkKind::cast, [&](size_t q0, size_t q1) {
            if (q0 == 0 && q1 == rows) {
                group_maxima(g, x, q0, q1, amax, bad);  // not split
                return;
            }
            // parts of a split may share groups: each into its own maxima, then merged
            std::vector<uint32_t> part_amax(groups, 0);
            std::vector<uint8_t> part_bad(groups, 0);
            group_maxima(g, x, q0, q1, part_amax.data(), part_bad.data());
            std::lock_guard<std::mutex> lock(merge);
            for (size_t i = 0; i < groups; i++) {
                amax[i] = std::max(amax[i], part_amax[i]);
                bad[i] |= part_bad[i];
            }
        });
    }
    return py::make_tuple(amax_array, bad_array);
}

// The elements: x / scale of its group rounded once, to nearest even,
// saturating, into the format: through float32 quotients moved toward the
// exact ones (quotient_toward_exact), or where those do not serve through
// float64 (exact to within one rounding: a quotient of two 24-bit
// significands rounded to 53 bits, then once more into the format, is the
// quotient rounded once); a group with a NaN scale gets `bad_code`
// throughout.
py::object scaled_elements(py::handle values, py::handle scales_obj, py::tuple layout, const std::string& format,
                           uint32_t bad_code) {
    const GroupLayout g = layout_from(layout);
    const size_t n = g.outer * g.rows * g.cols;
    const float* x = float32_data(values, n, "values");
    const float* scales = float32_data(scales_obj, g.groups(), "scales");
    const int index = format_index_of_name(format.c_str());
    if (index < 0) throw py::value_error("unknown minifloat format: " + format);
    const FormatRuntime& rt = runtime(index);
    auto* source = reinterpret_cast<PyArrayObject*>(values.ptr());
    PyArray_Descr* descr = &format_types(index).descr->base;
    Py_INCREF(descr);
    PyObject* result = PyArray_NewFromDescr(&PyArray_Type, descr, PyArray_NDIM(source),
                                            PyArray_DIMS(source), nullptr, nullptr, 0, nullptr);
    if (result == nullptr) throw py::error_already_set();
    py::object out = py::reinterpret_steal<py::object>(result);
    auto* codes = static_cast<uint8_t*>(PyArray_DATA(reinterpret_cast<PyArrayObject*>(result)));
    const size_t item = rt.format.storage_bytes;
    const EncodePlan& plan = rt.saturating_plan;
    bool scales_have_nan = false, all_scales_normal = true;
    for (size_t i = 0; i < g.groups(); i++) {
        scales_have_nan |= scales[i] != scales[i];
        all_scales_normal &= normal_scale(scales[i]);
    }
    // the float32 quotients (quotient_toward_exact) need a boundary's bits
    // below float32's 23 fraction bits, every boundary a float32, and the
    // format's normals from float32's on (then float32's subnormal patterns
    // hold the format's boundaries on the same grid)
    const unsigned mantissa_bits = rt.format.mantissa_bits;
    const bool narrow_quotients =
        mantissa_bits <= 20 && rt.format.min_normal_exponent >= -126 && rt.format.min_exponent >= -148;
    BoundaryGrid grid{0, 0, 0};
    if (narrow_quotients) {
        grid.low_mask = (1u << (22 - mantissa_bits)) - 1u;
        grid.midpoint_bit = 1u << (22 - mantissa_bits);
        grid.min_normal_bits = static_cast<uint32_t>(rt.format.min_normal_exponent + 127) << 23;
    }
    {
        const GilReleased released;
        // element-wise: any split gives the same bits
        parallel_for(n, WorkKind::cast, [&](size_t begin, size_t end) {
            DefaultFpuModeScope default_modes;  // (float32 quotients: round to nearest, no flushing)
            alignas(64) double quotient[kStage];
            alignas(64) float quotient32[kStage];
            for (size_t start = begin; start < end; start += kStage) {
                const size_t count = std::min(kStage, end - start);
                // Walks the stage's runs of one scale (or, one value per row,
                // of consecutive rows), dividing each in float32 (Wide false:
                // false when a run needs float64) or float64.
                const auto divide_stage = [&](auto wide) {
                    constexpr bool kWide = decltype(wide)::value;
                    // group of the first value of the stage, then walked along
                    size_t l = start / (g.rows * g.cols), r = start / g.cols % g.rows, c = start % g.cols;
                    if (g.cols == 1) {
                        // one value per row: runs along the rows of one outer index
                        for (size_t i = 0; i < count;) {
                            const size_t run = std::min(count - i, g.rows - r);
                            const float* s = scales + l * g.outer_stride;
                            const float* v = x + start + i;
                            if constexpr (kWide) {
                                if (g.row_block == 1) {
                                    divide_each(v, s + r, run, quotient + i);
                                } else {
                                    for (size_t j = 0; j < run; j++) {
                                        quotient[i + j] =
                                            static_cast<double>(v[j]) / static_cast<double>(s[(r + j) / g.row_block]);
                                    }
                                }
                            } else {
                                if (g.row_block != 1) return false;
                                for (size_t j = 0; !all_scales_normal && j < run; j++) {
                                    if (!normal_scale(s[r + j])) return false;
                                }
                                if (divide_each_f32(v, s + r, run, grid, quotient32 + i) != 0) return false;
                            }
                            i += run;
                            r = 0;
                            l++;
                        }
                    }
                    // `length` values further along the rows
                    const auto advance = [&](size_t& i, size_t length) {
                        i += length;
                        c += length;
                        if (c == g.cols) {
                            c = 0;
                            if (++r == g.rows) {
                                r = 0;
                                l++;
                            }
                        }
                    };
                    for (size_t i = 0; g.cols != 1 && i < count;) {
                        if constexpr (!kWide) {
                            // the rest of the row in this stage, when it spans blocks: one call
                            const size_t rest = std::min(count - i, g.cols - c);
                            if (all_scales_normal && rest > g.col_block - c % g.col_block) {
                                if (divide_blocks_f32(x + start + i, scales + g.group(l, r, c), g.col_block,
                                                      c % g.col_block, rest, grid, quotient32 + i) != 0) {
                                    return false;
                                }
                                advance(i, rest);
                                continue;
                            }
                        }
                        const size_t run = std::min(count - i, std::min(g.cols - c, g.col_block - c % g.col_block));
                        const float s = scales[g.group(l, r, c)];
                        if constexpr (kWide) {
                            divide_by(x + start + i, s, run, quotient + i);
                        } else {
                            if (!normal_scale(s)) return false;
                            if (divide_by_f32(x + start + i, s, run, grid, quotient32 + i) != 0) return false;
                        }
                        advance(i, run);
                    }
                    return true;
                };
                if (narrow_quotients && divide_stage(std::false_type{})) {
                    encode_f32(plan, quotient32, codes + start * item, count);
                } else {
                    divide_stage(std::true_type{});
                    encode_f64(plan, quotient, codes + start * item, count);
                }
                if (!scales_have_nan) continue;
                for (size_t i = start; i < start + count; i++) {
                    const size_t li = i / (g.rows * g.cols), ri = i / g.cols % g.rows, ci = i % g.cols;
                    const float s = scales[g.group(li, ri, ci)];
                    if (s != s) {
                        const uint16_t code = static_cast<uint16_t>(bad_code);
                        std::memcpy(codes + i * item, &code, item);  // little-endian storage
                    }
                }
            }
            return 0u;  // saturating: no overflow; a NaN scale's group is filled, not reported
        });
    }
    return out;
}

}  // namespace

void register_scaled_quantize_bindings(py::module_& m) {
    m.def("scaled_maxima", &scaled_maxima, py::arg("values"), py::arg("layout"),
          "(largest finite magnitude per group as float32, bool: the group holds inf or NaN) of a float32 array "
          "seen as (outer, rows, cols) with groups (row_block, col_block) (mf.quant).");
    m.def("scaled_elements", &scaled_elements, py::arg("values"), py::arg("scales"), py::arg("layout"),
          py::arg("format"), py::arg("bad_code"),
          "Each value over its group's float32 scale, rounded once (nearest even, saturating) into the format; "
          "groups with a NaN scale get bad_code (mf.quant).");
}

}  // namespace minifloat
