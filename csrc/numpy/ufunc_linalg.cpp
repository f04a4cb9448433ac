// matmul, vecdot, matvec and vecmat (generalized ufuncs): operands are
// decoded to float32, products are accumulated in float32, and each output
// is rounded once. Large matrix products run through NumPy's own float32
// matrix product (BLAS), which is why these loops hold the GIL.
#include "ufunc_linalg.h"

#include <algorithm>
#include <vector>

#include "codec.h"
#include "decode_blocks.h"
#include "format_types.h"
#include "fp_status.h"
#include "scratch_memory.h"
#include "thread_pool.h"

namespace minifloat {

namespace {

// Below this many multiply-adds a plain loop beats the cost of calling BLAS.
constexpr npy_intp kBlasThreshold = 32 * 32 * 32;

// Decodes an (rows x cols) strided operand into a dense row-major float32
// matrix (whole rows at once when they are contiguous).
void decode_matrix(const FormatRuntime& rt, const char* base, npy_intp rows, npy_intp cols,
                   npy_intp row_stride, npy_intp col_stride, float* out) {
    // rows on their own: split over the threads (thread_pool.h)
    parallel_for_items(static_cast<size_t>(rows), static_cast<size_t>(cols), WorkKind::cast, [&](size_t first, size_t last) {
        for (npy_intp r = static_cast<npy_intp>(first); r < static_cast<npy_intp>(last); r++) {
            const char* p = base + r * row_stride;
            if (col_stride == rt.format.storage_bytes) {
                decode_codes_to_f32(rt, p, out + r * cols, static_cast<size_t>(cols));
                continue;
            }
            for (npy_intp c = 0; c < cols; c++, p += col_stride) out[r * cols + c] = rt.decode_f32(load_code(rt, p));
        }
    });
}

// Rounds a dense float32 matrix once into a strided operand.
uint32_t encode_matrix(const FormatRuntime& rt, float* values, npy_intp rows, npy_intp cols,
                       char* base, npy_intp row_stride, npy_intp col_stride) {
    // overflow in formats without inf, and the canonical NaN (decode_blocks.h)
    const bool wide = rt.format.storage_bytes == 2;
    // rows on their own: split over the threads (thread_pool.h)
    return parallel_for_items(static_cast<size_t>(rows), static_cast<size_t>(cols), WorkKind::cast,
                              [&](size_t first, size_t last) {
        for (npy_intp i = static_cast<npy_intp>(first) * cols; i < static_cast<npy_intp>(last) * cols; i++) {
            values[i] = accumulated_value_f32(rt, values[i]);
        }
        std::vector<uint16_t> codes(static_cast<size_t>(cols));
        std::vector<uint8_t> narrow(static_cast<size_t>(cols));
        uint32_t flags = 0;
        for (npy_intp r = static_cast<npy_intp>(first); r < static_cast<npy_intp>(last); r++) {
            char* p = base + r * row_stride;
            const float* row = values + r * cols;
            if (col_stride == rt.format.storage_bytes) {
                flags |= encode_f32(rt.default_plan, row, p, static_cast<size_t>(cols));
                continue;
            }
            void* staged = wide ? static_cast<void*>(codes.data()) : static_cast<void*>(narrow.data());
            flags |= encode_f32(rt.default_plan, row, staged, static_cast<size_t>(cols));
            for (npy_intp c = 0; c < cols; c++, p += col_stride) {
                store_code(rt, p, wide ? codes[static_cast<size_t>(c)] : narrow[static_cast<size_t>(c)]);
            }
        }
        return flags;
    });
}

void small_matmul(const float* a, const float* b, float* c, npy_intp n, npy_intp k, npy_intp m) {
    for (npy_intp i = 0; i < n * m; i++) c[i] = 0.0f;
    for (npy_intp i = 0; i < n; i++) {
        for (npy_intp j = 0; j < k; j++) {
            const float aij = a[i * k + j];
            for (npy_intp l = 0; l < m; l++) c[i * m + l] += aij * b[j * m + l];
        }
    }
}

// C = A @ B through NumPy's float32 matrix product (BLAS sgemm).
int blas_matmul(float* a, float* b, float* c, npy_intp n, npy_intp k, npy_intp m) {
    npy_intp a_shape[2] = {n, k}, b_shape[2] = {k, m}, c_shape[2] = {n, m};
    PyObject* a_array = PyArray_SimpleNewFromData(2, a_shape, NPY_FLOAT32, a);
    PyObject* b_array = PyArray_SimpleNewFromData(2, b_shape, NPY_FLOAT32, b);
    PyObject* c_array = PyArray_SimpleNewFromData(2, c_shape, NPY_FLOAT32, c);
    int status = -1;
    if (a_array && b_array && c_array) {
        PyObject* r = PyArray_MatrixProduct2(a_array, b_array,
                                             reinterpret_cast<PyArrayObject*>(c_array));
        if (r != nullptr) {
            status = 0;
            Py_DECREF(r);
        }
    }
    Py_XDECREF(a_array);
    Py_XDECREF(b_array);
    Py_XDECREF(c_array);
    return status;
}

// matmul: (n,k),(k,m)->(n,m)
int matmul_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                const npy_intp steps[], NpyAuxData*) {
    const FormatRuntime& rt = runtime_of(context->descriptors[0]);
    const npy_intp outer = dimensions[0], n = dimensions[1], k = dimensions[2], m = dimensions[3];
    const npy_intp a_n = steps[3], a_k = steps[4], b_k = steps[5], b_m = steps[6];
    const npy_intp c_n = steps[7], c_m = steps[8];
    // (every element is written before it is read: decoded, or the product)
    const auto a = unfilled_array<float>(static_cast<size_t>(n * k));
    const auto b = unfilled_array<float>(static_cast<size_t>(k * m));
    const auto c = unfilled_array<float>(static_cast<size_t>(n * m));
    uint32_t flags = 0;
    for (npy_intp o = 0; o < outer; o++) {
        decode_matrix(rt, data[0] + o * steps[0], n, k, a_n, a_k, a.get());
        decode_matrix(rt, data[1] + o * steps[1], k, m, b_k, b_m, b.get());
        if (n * k * m >= kBlasThreshold) {
            if (blas_matmul(a.get(), b.get(), c.get(), n, k, m) < 0) return -1;
        } else {
            small_matmul(a.get(), b.get(), c.get(), n, k, m);
        }
        flags |= encode_matrix(rt, c.get(), n, m, data[2] + o * steps[2], c_n, c_m);
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
constexpr npy_intp kVecmatColumns = 512;

// vecmat: (n),(n,m)->(m). Walking a column of the matrix touches a cache
// line per element, so blocks of columns are summed along the rows
// instead, each output still in the order of n; blocks split over the threads.
int vecmat_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                const npy_intp steps[], NpyAuxData*) {
    const FormatRuntime& rt = runtime_of(context->descriptors[0]);
    const npy_intp n = dimensions[1], m = dimensions[2];
    const npy_intp b_row = steps[4], b_col = steps[5];
    std::vector<float> a(static_cast<size_t>(n));
    uint32_t flags = 0;
    for (npy_intp o = 0; o < dimensions[0]; o++) {
        for (npy_intp k = 0; k < n; k++) a[k] = rt.decode_f32(load_code(rt, data[0] + o * steps[0] + k * steps[3]));
        const char* b = data[1] + o * steps[1];
        char* out = data[2] + o * steps[2];
        const npy_intp blocks = (m + kVecmatColumns - 1) / kVecmatColumns;
        flags |= parallel_for_items(static_cast<size_t>(blocks), static_cast<size_t>(n * kVecmatColumns),
                                    WorkKind::matmul, [&](size_t first, size_t last) {
            float sums[kVecmatColumns], row[kVecmatColumns];
            uint32_t part = 0;
            for (npy_intp block = static_cast<npy_intp>(first); block < static_cast<npy_intp>(last); block++) {
                const npy_intp c0 = block * kVecmatColumns, width = std::min(kVecmatColumns, m - c0);
                for (npy_intp j = 0; j < width; j++) sums[j] = 0.0f;
                for (npy_intp k = 0; k < n; k++) {
                    const char* p = b + k * b_row + c0 * b_col;
                    if (b_col == rt.format.storage_bytes) {
                        decode_codes_to_f32(rt, p, row, static_cast<size_t>(width));
                    } else {
                        for (npy_intp j = 0; j < width; j++) row[j] = rt.decode_f32(load_code(rt, p + j * b_col));
                    }
                    const float ak = a[static_cast<size_t>(k)];
                    for (npy_intp j = 0; j < width; j++) sums[j] += ak * row[j];
                }
                for (npy_intp j = 0; j < width; j++) part |= store_rounded(rt, out + (c0 + j) * steps[6], sums[j]);
            }
            return part;
        });
    }
    raise_fp_flags(flags);
    return 0;
}

}  // namespace

std::vector<LinalgLoop> linalg_loops() {
    return {
        {"matmul", matmul_loop, true},
        {"vecdot", vecdot_loop, false},
        {"matvec", matvec_loop, false},
        {"vecmat", vecmat_loop, false},
    };
}

}  // namespace minifloat
