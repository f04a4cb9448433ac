// Ufunc loops of complex32 and bcomplex32, the set NumPy has for complex64.
// Every result is defined the same way: both operands decoded exactly to
// binary64, what NumPy's complex128 ufunc computes, each part rounded once
// (to nearest even, overflow to inf, NaN stays NaN). The transcendental
// functions, division, power, comparisons, maximum/minimum and absolute call
// NumPy's own complex128 inner loop (found through the public PyUFuncObject
// fields ntypes/types/functions/data) on decoded chunks, so they are NumPy's
// complex128 bit for bit; +, - and * are computed here (complex_arith.h).
// Sums and products accumulate in complex64 across NumPy's loop calls and
// round once (as the float formats do in float32, ufunc_accumulate.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "cast_specs.h"
#include "complex_arith.h"
#include "complex_types.h"
#include "format_types.h"
#include "fp_status.h"
#include "promoter_registration.h"
#include "registry.h"
#include "threaded_loops.h"
#include "ufunc_accumulate.h"

namespace minifloat {

extern PyArray_DTypeMeta g_complex_abstract_dtype;
extern PyArray_DTypeMeta g_int_abstract_dtype;

namespace {

constexpr npy_intp kChunk = 256;

// ---- NumPy's complex128 loops ---------------------------------------------------

enum class Out { complex, part, boolean };

struct NumpyLoop {
    PyUFuncGenericFunction function = nullptr;
    void* data = nullptr;
};

// One slot per ufunc we borrow a loop from (filled at import).
enum Borrowed : int {
    b_divide, b_power, b_maximum, b_minimum, b_fmax, b_fmin,
    b_sqrt, b_exp, b_log, b_reciprocal, b_square, b_sign,
    b_sin, b_cos, b_tan, b_arcsin, b_arccos, b_arctan,
    b_sinh, b_cosh, b_tanh, b_arcsinh, b_arccosh, b_arctanh,
    b_exp2, b_expm1, b_log2, b_log10, b_log1p,
    b_absolute, b_isnan, b_isinf, b_isfinite,
    b_equal, b_not_equal, b_less, b_less_equal, b_greater, b_greater_equal,
    b_count
};
NumpyLoop g_loops[b_count];

PyObject* umath(const char* name) {
    PyObject* module = PyImport_ImportModule("numpy");
    if (module == nullptr) return nullptr;
    PyObject* attr = PyObject_GetAttrString(module, name);
    Py_DECREF(module);
    return attr;
}

// Element pointers of a chunk: gather strided 4-byte items to `codes`.
void gather4(const char* src, npy_intp stride, npy_intp n, uint16_t* codes) {
    if (stride == 4) {
        std::memcpy(codes, src, static_cast<size_t>(4 * n));
        return;
    }
    for (npy_intp i = 0; i < n; i++) std::memcpy(codes + 2 * i, src + i * stride, 4);
}
void scatter4(const uint16_t* codes, char* dst, npy_intp stride, npy_intp n) {
    if (stride == 4) {
        std::memcpy(dst, codes, static_cast<size_t>(4 * n));
        return;
    }
    for (npy_intp i = 0; i < n; i++) std::memcpy(dst + i * stride, codes + 2 * i, 4);
}

template <int B, int Nin, Out O>
int via_complex128(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                   const npy_intp strides[], NpyAuxData*) {
    const PartCodec& codec = complex_runtime(complex_kind_of_descr(context->descriptors[0])).codec;
    const NumpyLoop& loop = g_loops[B];
    const npy_intp n = dimensions[0];
    alignas(64) uint16_t codes[2 * kChunk];
    alignas(64) double in[Nin][2 * kChunk];
    alignas(64) double out[2 * kChunk];
    alignas(64) npy_bool truth[kChunk];
    uint32_t flags = 0;
    for (npy_intp start = 0; start < n; start += kChunk) {
        const npy_intp count = n - start < kChunk ? n - start : kChunk;
        char* args[Nin + 1];
        npy_intp steps[Nin + 1];
        for (int j = 0; j < Nin; j++) {
            gather4(data[j] + start * strides[j], strides[j], count, codes);
            decode_parts_f64(codec, codes, in[j], static_cast<size_t>(2 * count));
            args[j] = reinterpret_cast<char*>(in[j]);
            steps[j] = 16;
        }
        args[Nin] = O == Out::boolean ? reinterpret_cast<char*>(truth) : reinterpret_cast<char*>(out);
        steps[Nin] = O == Out::complex ? 16 : (O == Out::part ? 8 : 1);
        npy_intp length = count;
        loop.function(args, &length, steps, loop.data);
        char* dst = data[Nin] + start * strides[Nin];
        if constexpr (O == Out::complex) {
            flags |= encode_parts_f64(codec, out, codes, static_cast<size_t>(2 * count));
            scatter4(codes, dst, strides[Nin], count);
        } else if constexpr (O == Out::part) {
            flags |= encode_parts_f64(codec, out, codes, static_cast<size_t>(count));
            for (npy_intp i = 0; i < count; i++) std::memcpy(dst + i * strides[Nin], codes + i, 2);
        } else {
            for (npy_intp i = 0; i < count; i++) dst[i * strides[Nin]] = static_cast<char>(truth[i]);
        }
    }
    raise_fp_flags(flags);
    return 0;
}

// absolute: complex32's blocks by the hand-written kernel where it gives
// NumPy's complex128 result rounded once (complex_arith.h), the others and
// bcomplex32 through NumPy's loop.
int absolute_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                  const npy_intp strides[], NpyAuxData* aux) {
    constexpr auto numpy_absolute = via_complex128<b_absolute, 1, Out::part>;
    if (complex_kind_of_descr(context->descriptors[0]) != kComplex32) {
        return numpy_absolute(context, data, dimensions, strides, aux);
    }
    alignas(64) uint16_t codes[2 * kChunk], result[kChunk];
    uint32_t flags = 0;
    for (npy_intp start = 0; start < dimensions[0]; start += kChunk) {
        const size_t count = static_cast<size_t>(std::min(dimensions[0] - start, kChunk));
        gather4(data[0] + start * strides[0], strides[0], static_cast<npy_intp>(count), codes);
        size_t done = 0;
        while (done < count) {
            size_t by_hand = 0;
            const bool served = complex32_abs_by_hand(codes + 2 * done, result + done, count - done, by_hand, flags);
            done += by_hand;
            if (done == count) break;
            // NumPy's loop on the next block (or all the rest, without the kernel)
            const size_t rest = served ? std::min<size_t>(16, count - done) : count - done;
            char* block[2] = {reinterpret_cast<char*>(codes + 2 * done), reinterpret_cast<char*>(result + done)};
            const npy_intp block_n[1] = {static_cast<npy_intp>(rest)};
            const npy_intp block_strides[2] = {4, 2};
            if (numpy_absolute(context, block, block_n, block_strides, aux) < 0) return -1;
            done += rest;
        }
        char* dst = data[1] + start * strides[1];
        if (strides[1] == 2) {
            std::memcpy(dst, result, 2 * count);
        } else {
            for (size_t i = 0; i < count; i++) std::memcpy(dst + static_cast<npy_intp>(i) * strides[1], result + i, 2);
        }
    }
    raise_fp_flags(flags);
    return 0;
}

// ---- loops on the codes themselves ------------------------------------------------

enum class Sign { negative, positive, conjugate };

template <Sign S>
int sign_loop(PyArrayMethod_Context*, char* const data[], const npy_intp dimensions[], const npy_intp strides[],
              NpyAuxData*) {
    const uint32_t mask = S == Sign::negative ? 0x80008000u : (S == Sign::conjugate ? 0x80000000u : 0u);
    const char* in = data[0];
    char* out = data[1];
    if (strides[0] == 4 && strides[1] == 4) {
        const uint32_t* a = reinterpret_cast<const uint32_t*>(in);  // (unaligned-safe: memcpy below otherwise)
        uint32_t* o = reinterpret_cast<uint32_t*>(out);
        if ((reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out)) % 4 == 0) {
            for (npy_intp i = 0; i < dimensions[0]; i++) o[i] = a[i] ^ mask;
            return 0;
        }
    }
    for (npy_intp i = 0; i < dimensions[0]; i++, in += strides[0], out += strides[1]) {
        uint32_t v;
        std::memcpy(&v, in, 4);
        v ^= mask;  // little endian: the imaginary part is the upper half
        std::memcpy(out, &v, 4);
    }
    return 0;
}

// +, -, *: decoded to binary32, computed (complex_arith.h), rounded once.

template <ComplexArith A>
uint32_t arith_chunk(const PartCodec& codec, const uint16_t* a, const uint16_t* b, uint16_t* out, npy_intp count) {
    return complex_arith_parts(codec, A, a, b, out, static_cast<size_t>(count));
}

// ufunc.accumulate (np.cumsum, np.cumprod): NumPy passes the output shifted
// by one element as the first input, so each element needs the one before.
// The running value stays in complex64 within the call and is rounded into
// each output element.
template <ComplexArith A>
int accumulate_in_place(const PartCodec& codec, char* const data[], npy_intp n, const npy_intp strides[]) {
    float acc[2];
    uint16_t parts[2];
    std::memcpy(parts, data[0], 4);
    decode_parts_f32(codec, parts, acc, 2);
    uint32_t flags = 0;
    for (npy_intp i = 0; i < n; i++) {
        float x[2];
        std::memcpy(parts, data[1] + i * strides[1], 4);
        decode_parts_f32(codec, parts, x, 2);
        if constexpr (A == ComplexArith::multiply) {
            const double r = static_cast<double>(acc[0]) * x[0] - static_cast<double>(acc[1]) * x[1];
            const double m = static_cast<double>(acc[0]) * x[1] + static_cast<double>(acc[1]) * x[0];
            acc[0] = static_cast<float>(r);
            acc[1] = static_cast<float>(m);
        } else if constexpr (A == ComplexArith::add) {
            acc[0] += x[0];
            acc[1] += x[1];
        } else {
            acc[0] -= x[0];
            acc[1] -= x[1];
        }
        flags |= encode_parts_f32(codec, acc, parts, 2);
        std::memcpy(data[2] + i * strides[2], parts, 4);
    }
    raise_fp_flags(flags);
    return 0;
}

template <ComplexArith A>
int arith_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
               const npy_intp strides[], NpyAuxData*) {
    const PartCodec& codec = complex_runtime(complex_kind_of_descr(context->descriptors[0])).codec;
    const npy_intp n = dimensions[0];
    if (n > 1 && strides[0] == strides[2] && strides[0] != 0 && data[2] == data[0] + strides[0]) {
        return accumulate_in_place<A>(codec, data, n, strides);
    }
    alignas(64) uint16_t a[2 * kChunk], b[2 * kChunk], r[2 * kChunk];
    const bool contiguous = strides[0] == 4 && strides[1] == 4 && strides[2] == 4 &&
                            ((reinterpret_cast<uintptr_t>(data[0]) | reinterpret_cast<uintptr_t>(data[1]) |
                              reinterpret_cast<uintptr_t>(data[2])) % 2) == 0;
    uint32_t flags = 0;
    for (npy_intp start = 0; start < n; start += kChunk) {
        const npy_intp count = n - start < kChunk ? n - start : kChunk;
        if (contiguous) {
            // straight into the output: in place (a += b) is fine, each block
            // is read before it is written (NumPy copies partly overlapping
            // operands first; the accumulation's overlap is handled above)
            flags |= arith_chunk<A>(codec, reinterpret_cast<const uint16_t*>(data[0]) + 2 * start,
                                    reinterpret_cast<const uint16_t*>(data[1]) + 2 * start,
                                    reinterpret_cast<uint16_t*>(data[2]) + 2 * start, count);
            continue;
        }
        gather4(data[0] + start * strides[0], strides[0], count, a);
        gather4(data[1] + start * strides[1], strides[1], count, b);
        flags |= arith_chunk<A>(codec, a, b, r, count);
        scatter4(r, data[2] + start * strides[2], strides[2], count);
    }
    raise_fp_flags(flags);
    return 0;
}

// ---- sums and products: complex64 across calls -------------------------------------

template <ComplexArith A>
void combine(float& re, float& im, float xr, float xi) {
    if constexpr (A == ComplexArith::add) {
        re += xr;
        im += xi;
    } else {
        const float r = re * xr - im * xi;
        im = re * xi + im * xr;
        re = r;
    }
}

template <ComplexArith A>
int reduce_into_row(const PartCodec& codec, AccumulationAux& aux, char* const data[], npy_intp n,
                    const npy_intp strides[]) {
    const bool single_output = strides[2] == 0;
    const npy_intp length = single_output ? 1 : n;
    AccumulatorRow& row = accumulator_row(aux, data[2], strides[2], length, 2);  // complex64 pairs
    for (npy_intp j = 0; j < length; j++) {
        uint32_t code;
        std::memcpy(&code, data[2] + j * strides[2], 4);
        if (code != row.written[static_cast<size_t>(j)]) {
            uint16_t parts[2];
            std::memcpy(parts, &code, 4);
            decode_parts_f32(codec, parts, &row.values[static_cast<size_t>(2 * j)], 2);
        }
    }
    alignas(64) uint16_t codes[2 * kChunk];
    alignas(64) float x[2 * kChunk];
    for (npy_intp start = 0; start < n; start += kChunk) {
        const npy_intp count = n - start < kChunk ? n - start : kChunk;
        gather4(data[1] + start * strides[1], strides[1], count, codes);
        decode_parts_f32(codec, codes, x, static_cast<size_t>(2 * count));
        if (single_output) {
            float re = row.values[0], im = row.values[1];
            if constexpr (A == ComplexArith::add) {
                // eight running sums per part, combined at the end of the chunk
                float lanes[16] = {};
                npy_intp i = 0;
                for (; i + 8 <= count; i += 8) {
                    for (int l = 0; l < 16; l++) lanes[l] += x[2 * i + l];
                }
                float sr = 0, si = 0;
                for (int l = 0; l < 16; l += 2) {
                    sr += lanes[l];
                    si += lanes[l + 1];
                }
                for (; i < count; i++) {
                    sr += x[2 * i];
                    si += x[2 * i + 1];
                }
                re += sr;
                im += si;
            } else {
                for (npy_intp i = 0; i < count; i++) combine<A>(re, im, x[2 * i], x[2 * i + 1]);
            }
            row.values[0] = re;
            row.values[1] = im;
        } else {
            float* acc = row.values.data() + 2 * start;
            for (npy_intp i = 0; i < count; i++) combine<A>(acc[2 * i], acc[2 * i + 1], x[2 * i], x[2 * i + 1]);
        }
    }
    uint32_t flags = 0;
    for (npy_intp j = 0; j < length; j++) {
        uint16_t parts[2];
        flags |= encode_parts_f32(codec, &row.values[static_cast<size_t>(2 * j)], parts, 2);
        std::memcpy(data[2] + j * strides[2], parts, 4);
        std::memcpy(&row.written[static_cast<size_t>(j)], parts, 4);
    }
    raise_fp_flags(flags);
    return 0;
}

template <ComplexArith A>
int accumulating_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                      const npy_intp strides[], NpyAuxData* aux_base) {
    if (AccumulationAux* aux = reduction_step(aux_base, data, strides)) {
        const PartCodec& codec = complex_runtime(complex_kind_of_descr(context->descriptors[0])).codec;
        return reduce_into_row<A>(codec, *aux, data, dimensions[0], strides);
    }
    // element-wise: split over the threads (threaded_loops.h)
    return run_split_loop(arith_loop<A>, 2, 1, context, data, dimensions, strides, aux_base);
}

template <ComplexArith A>
int reduction_initial(PyArrayMethod_Context* context, npy_bool reduction_is_empty, void* initial) {
    announce_reduction(context);
    const int kind = complex_kind_of_descr(context->descriptors[0]);
    // as NumPy's complex: a sum starts from -0 (sum([-0j]) keeps the sign), an empty sum is +0
    const double identity = A == ComplexArith::add ? (reduction_is_empty ? 0.0 : -0.0) : 1.0;
    uint16_t parts[2];
    encode_complex_value(kind, identity, A == ComplexArith::add ? identity : 0.0, parts);
    std::memcpy(initial, parts, 4);
    return 1;
}

// ---- matmul and vecdot: complex64 sums of products, rounded once -------------------------

// matmul: (n,k),(k,m)->(n,m)
int matmul_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                const npy_intp steps[], NpyAuxData*) {
    const PartCodec& codec = complex_runtime(complex_kind_of_descr(context->descriptors[0])).codec;
    const npy_intp n = dimensions[1], k = dimensions[2], m = dimensions[3];
    std::vector<ComplexF32> a(static_cast<size_t>(n * k)), b(static_cast<size_t>(k * m));
    uint32_t flags = 0;
    for (npy_intp o = 0; o < dimensions[0]; o++) {
        for (npy_intp i = 0; i < n; i++) {
            for (npy_intp j = 0; j < k; j++) a[i * k + j] = load_complex_f32(codec, data[0] + o * steps[0] + i * steps[3] + j * steps[4]);
        }
        for (npy_intp i = 0; i < k; i++) {
            for (npy_intp j = 0; j < m; j++) b[i * m + j] = load_complex_f32(codec, data[1] + o * steps[1] + i * steps[5] + j * steps[6]);
        }
        for (npy_intp i = 0; i < n; i++) {
            for (npy_intp j = 0; j < m; j++) {
                float re = 0, im = 0;
                for (npy_intp t = 0; t < k; t++) {
                    const ComplexF32 x = a[i * k + t], y = b[t * m + j];
                    re += x.re * y.re - x.im * y.im;
                    im += x.re * y.im + x.im * y.re;
                }
                flags |= store_complex_f32(codec, data[2] + o * steps[2] + i * steps[7] + j * steps[8], {re, im});
            }
        }
    }
    raise_fp_flags(flags);
    return 0;
}

// vecdot: (n),(n)->(), the first operand conjugated (as np.vecdot does)
int vecdot_loop(PyArrayMethod_Context* context, char* const data[], const npy_intp dimensions[],
                const npy_intp steps[], NpyAuxData*) {
    const PartCodec& codec = complex_runtime(complex_kind_of_descr(context->descriptors[0])).codec;
    uint32_t flags = 0;
    for (npy_intp o = 0; o < dimensions[0]; o++) {
        float re = 0, im = 0;
        for (npy_intp t = 0; t < dimensions[1]; t++) {
            const ComplexF32 x = load_complex_f32(codec, data[0] + o * steps[0] + t * steps[3]);
            const ComplexF32 y = load_complex_f32(codec, data[1] + o * steps[1] + t * steps[4]);
            re += x.re * y.re + x.im * y.im;
            im += x.re * y.im - x.im * y.re;
        }
        flags |= store_complex_f32(codec, data[2] + o * steps[2], {re, im});
    }
    raise_fp_flags(flags);
    return 0;
}

// ---- .real and .imag (NumPy >= 2.5) ---------------------------------------------------

// NumPy 2.5 implements ndarray.real/.imag (and so np.real, np.imag, np.angle
// and complex printing) through the ufuncs numpy._core.umath.real/imag,
// whose loops a DType may add (numpy/numpy#30984): a loop whose descriptor
// resolution gives a view offset makes the attribute a view of the part.
// NumPy 2.4 has neither: its .real returns the array itself and .imag
// zeros for any DType it does not know as complex.
template <int Part>
NPY_CASTING part_resolve(PyObject*, PyArray_DTypeMeta* const[], PyArray_Descr* const given[], PyArray_Descr* loop[],
                         npy_intp* view_offset) {
    Py_INCREF(given[0]);
    loop[0] = given[0];
    PyArray_Descr* part = given[1] != nullptr ? given[1] : complex_runtime(complex_kind_of_descr(given[0])).part_descr;
    Py_INCREF(part);
    loop[1] = part;
    *view_offset = 2 * Part;
    return NPY_NO_CASTING;
}

template <int Part>
int part_loop(PyArrayMethod_Context*, char* const data[], const npy_intp dimensions[], const npy_intp strides[],
              NpyAuxData*) {
    const char* in = data[0] + 2 * Part;
    char* out = data[1];
    for (npy_intp i = 0; i < dimensions[0]; i++, in += strides[0], out += strides[1]) std::memcpy(out, in, 2);
    return 0;
}

int add_part_loops(int kind) {
    PyObject* umath_module = PyImport_ImportModule("numpy._core.umath");
    if (umath_module == nullptr) return -1;
    const bool available = PyObject_HasAttrString(umath_module, "real") && PyObject_HasAttrString(umath_module, "imag");
    Py_DECREF(umath_module);
    if (!available) return 0;  // NumPy 2.4
    ComplexTypeRuntime& rt = complex_runtime(kind);
    PyArray_DTypeMeta* part = reinterpret_cast<PyArray_DTypeMeta*>(Py_TYPE(rt.part_descr));
    const auto flags = static_cast<NPY_ARRAYMETHOD_FLAGS>(NPY_METH_NO_FLOATINGPOINT_ERRORS);
    PyUFunc_LoopSlot slots[] = {
        {"numpy._core.umath:real",
         make_method_spec((std::string(rt.name) + "_real").c_str(), 1, 1, NPY_NO_CASTING, flags, {&rt.dtype_class, part},
                          {{NPY_METH_resolve_descriptors, reinterpret_cast<void*>(part_resolve<0>)},
                           {NPY_METH_strided_loop, reinterpret_cast<void*>(part_loop<0>)}})},
        {"numpy._core.umath:imag",
         make_method_spec((std::string(rt.name) + "_imag").c_str(), 1, 1, NPY_NO_CASTING, flags, {&rt.dtype_class, part},
                          {{NPY_METH_resolve_descriptors, reinterpret_cast<void*>(part_resolve<1>)},
                           {NPY_METH_strided_loop, reinterpret_cast<void*>(part_loop<1>)}})},
        {nullptr, nullptr},
    };
    return PyUFunc_AddLoopsFromSpecs(slots);
}

// ---- registration -------------------------------------------------------------------------

int find_loop(const char* ufunc_name, std::vector<int> types, Borrowed slot) {
    PyObject* ufunc = umath(ufunc_name);
    if (ufunc == nullptr) return -1;
    g_loops[slot].function = numpy_loop(ufunc, types, &g_loops[slot].data);
    Py_DECREF(ufunc);
    if (g_loops[slot].function == nullptr) {
        PyErr_Format(PyExc_RuntimeError, "minifloat: NumPy's %s has no complex128 loop", ufunc_name);
        return -1;
    }
    return 0;
}

PyArray_DTypeMeta* new_ref(PyArray_DTypeMeta* d) {
    Py_XINCREF(d);
    return d;
}

PyArray_DTypeMeta* common_of(PyArray_DTypeMeta* const dtypes[], int count) {
    PyArray_DTypeMeta* present[8];
    int n = 0;
    for (int i = 0; i < count && n < 8; i++) {
        if (dtypes[i] != nullptr) present[n++] = dtypes[i];
    }
    return PyArray_PromoteDTypeSequence(n, present);
}

int homogeneous_promoter(PyObject* ufunc, PyArray_DTypeMeta* const op_dtypes[], PyArray_DTypeMeta* const signature[],
                         PyArray_DTypeMeta* new_op_dtypes[]) {
    const PyUFuncObject* u = reinterpret_cast<PyUFuncObject*>(ufunc);
    bool has_signature = false;
    for (int i = 0; i < u->nargs; i++) has_signature |= signature[i] != nullptr;
    PyArray_DTypeMeta* common = has_signature ? common_of(signature, u->nargs) : common_of(op_dtypes, u->nin);
    if (common == nullptr) return -1;
    for (int i = 0; i < u->nargs; i++) new_op_dtypes[i] = new_ref(common);
    Py_DECREF(common);
    return 0;
}

int comparison_promoter(PyObject* ufunc, PyArray_DTypeMeta* const op_dtypes[], PyArray_DTypeMeta* const signature[],
                        PyArray_DTypeMeta* new_op_dtypes[]) {
    const PyUFuncObject* u = reinterpret_cast<PyUFuncObject*>(ufunc);
    bool has_signature = false;
    for (int i = 0; i < u->nin; i++) has_signature |= signature[i] != nullptr;
    PyArray_DTypeMeta* common = has_signature ? common_of(signature, u->nin) : common_of(op_dtypes, u->nin);
    if (common == nullptr) return -1;
    for (int i = 0; i < u->nin; i++) new_op_dtypes[i] = new_ref(common);
    for (int i = u->nin; i < u->nargs; i++) new_op_dtypes[i] = new_ref(signature[i]);
    Py_DECREF(common);
    return 0;
}

// Binary ufuncs with a complex32/bcomplex32 operand go to the common type.
// The patterns pairing ComplexDType with the float formats' and the
// integers' abstract DTypes are more specific than either family's
// (X, None) promoters, so neither family's is ever tied with ours.
int add_binary_promoters(PyObject* ufunc, PyArrayMethod_PromoterFunction* promoter) {
    PyObject* c = reinterpret_cast<PyObject*>(&g_complex_abstract_dtype);
    PyObject* m = reinterpret_cast<PyObject*>(&g_abstract_dtype);
    PyObject* i = reinterpret_cast<PyObject*>(&g_int_abstract_dtype);
    const std::vector<std::vector<PyObject*>> patterns = {
        {c, c, Py_None}, {c, m, Py_None}, {m, c, Py_None}, {c, i, Py_None},
        {i, c, Py_None}, {c, Py_None, Py_None}, {Py_None, c, Py_None},
    };
    for (const auto& p : patterns) {
        if (add_promoter(ufunc, p, promoter) < 0) return -1;
    }
    return 0;
}

struct LoopEntry {
    const char* ufunc;
    int nin;
    Out out;
    PyArrayMethod_StridedLoop* loop;
    std::vector<PyType_Slot> extra;
};

int add_loop(int kind, const LoopEntry& e) {
    PyObject* ufunc = umath(e.ufunc);
    if (ufunc == nullptr) return -1;
    ComplexTypeRuntime& rt = complex_runtime(kind);
    PyArray_DTypeMeta* self = &rt.dtype_class;
    PyArray_DTypeMeta* part = reinterpret_cast<PyArray_DTypeMeta*>(Py_TYPE(rt.part_descr));
    std::vector<PyArray_DTypeMeta*> dtypes(static_cast<size_t>(e.nin), self);
    dtypes.push_back(e.out == Out::complex ? self : (e.out == Out::part ? part : &PyArray_BoolDType));
    // element-wise loops, split over the threads for large calls
    PyArrayMethod_StridedLoop* loop = threaded_loop(e.loop, e.nin, 1, e.ufunc);
    std::vector<PyType_Slot> slots = {{NPY_METH_strided_loop, reinterpret_cast<void*>(loop)}};
    for (const PyType_Slot& s : e.extra) slots.push_back(s);
    // add and multiply reduce over several axes at once, as complex64's do
    // (the complex64 accumulator rows follow the output element, whatever the
    // order NumPy visits the inputs in)
    const bool reorderable = std::strcmp(e.ufunc, "add") == 0 || std::strcmp(e.ufunc, "multiply") == 0;
    PyArrayMethod_Spec* spec = make_method_spec((std::string(rt.name) + "_" + e.ufunc).c_str(), e.nin, 1,
                                                NPY_NO_CASTING,
                                                static_cast<NPY_ARRAYMETHOD_FLAGS>(reorderable ? NPY_METH_IS_REORDERABLE : 0),
                                                std::move(dtypes), std::move(slots));
    const int status = PyUFunc_AddLoopFromSpec(ufunc, spec);
    Py_DECREF(ufunc);
    return status;
}

int add_gufunc_loop(int kind, const char* name, PyArrayMethod_StridedLoop* loop) {
    PyObject* ufunc = umath(name);
    if (ufunc == nullptr) {
        PyErr_Clear();  // (vecdot is new in NumPy 2.0; always there here)
        return 0;
    }
    PyArray_DTypeMeta* self = &complex_runtime(kind).dtype_class;
    PyArrayMethod_Spec* spec = make_method_spec((std::string(complex_runtime(kind).name) + "_" + name).c_str(), 2, 1,
                                                NPY_NO_CASTING, static_cast<NPY_ARRAYMETHOD_FLAGS>(0),
                                                {self, self, self},
                                                {{NPY_METH_strided_loop, reinterpret_cast<void*>(loop)}});
    const int status = PyUFunc_AddLoopFromSpec(ufunc, spec);
    Py_DECREF(ufunc);
    return status;
}

std::vector<LoopEntry> loop_table() {
    const int D = NPY_CDOUBLE, R = NPY_DOUBLE;
    (void)D;
    (void)R;
    std::vector<LoopEntry> t = {
        {"add", 2, Out::complex, arith_loop<ComplexArith::add>,
         {{NPY_METH_get_loop, reinterpret_cast<void*>(accumulating_get_loop<accumulating_loop<ComplexArith::add>>)},
          {NPY_METH_get_reduction_initial, reinterpret_cast<void*>(reduction_initial<ComplexArith::add>)}}},
        {"subtract", 2, Out::complex, arith_loop<ComplexArith::subtract>, {}},
        {"multiply", 2, Out::complex, arith_loop<ComplexArith::multiply>,
         {{NPY_METH_get_loop, reinterpret_cast<void*>(accumulating_get_loop<accumulating_loop<ComplexArith::multiply>>)},
          {NPY_METH_get_reduction_initial, reinterpret_cast<void*>(reduction_initial<ComplexArith::multiply>)}}},
        {"negative", 1, Out::complex, sign_loop<Sign::negative>, {}},
        {"positive", 1, Out::complex, sign_loop<Sign::positive>, {}},
        {"conjugate", 1, Out::complex, sign_loop<Sign::conjugate>, {}},
        {"true_divide", 2, Out::complex, via_complex128<b_divide, 2, Out::complex>, {}},
        {"power", 2, Out::complex, via_complex128<b_power, 2, Out::complex>, {}},
        {"maximum", 2, Out::complex, via_complex128<b_maximum, 2, Out::complex>, {}},
        {"minimum", 2, Out::complex, via_complex128<b_minimum, 2, Out::complex>, {}},
        {"fmax", 2, Out::complex, via_complex128<b_fmax, 2, Out::complex>, {}},
        {"fmin", 2, Out::complex, via_complex128<b_fmin, 2, Out::complex>, {}},
        {"sqrt", 1, Out::complex, via_complex128<b_sqrt, 1, Out::complex>, {}},
        {"exp", 1, Out::complex, via_complex128<b_exp, 1, Out::complex>, {}},
        {"log", 1, Out::complex, via_complex128<b_log, 1, Out::complex>, {}},
        {"exp2", 1, Out::complex, via_complex128<b_exp2, 1, Out::complex>, {}},
        {"expm1", 1, Out::complex, via_complex128<b_expm1, 1, Out::complex>, {}},
        {"log2", 1, Out::complex, via_complex128<b_log2, 1, Out::complex>, {}},
        {"log10", 1, Out::complex, via_complex128<b_log10, 1, Out::complex>, {}},
        {"log1p", 1, Out::complex, via_complex128<b_log1p, 1, Out::complex>, {}},
        {"reciprocal", 1, Out::complex, via_complex128<b_reciprocal, 1, Out::complex>, {}},
        {"square", 1, Out::complex, via_complex128<b_square, 1, Out::complex>, {}},
        {"sign", 1, Out::complex, via_complex128<b_sign, 1, Out::complex>, {}},
        {"sin", 1, Out::complex, via_complex128<b_sin, 1, Out::complex>, {}},
        {"cos", 1, Out::complex, via_complex128<b_cos, 1, Out::complex>, {}},
        {"tan", 1, Out::complex, via_complex128<b_tan, 1, Out::complex>, {}},
        {"arcsin", 1, Out::complex, via_complex128<b_arcsin, 1, Out::complex>, {}},
        {"arccos", 1, Out::complex, via_complex128<b_arccos, 1, Out::complex>, {}},
        {"arctan", 1, Out::complex, via_complex128<b_arctan, 1, Out::complex>, {}},
        {"sinh", 1, Out::complex, via_complex128<b_sinh, 1, Out::complex>, {}},
        {"cosh", 1, Out::complex, via_complex128<b_cosh, 1, Out::complex>, {}},
        {"tanh", 1, Out::complex, via_complex128<b_tanh, 1, Out::complex>, {}},
        {"arcsinh", 1, Out::complex, via_complex128<b_arcsinh, 1, Out::complex>, {}},
        {"arccosh", 1, Out::complex, via_complex128<b_arccosh, 1, Out::complex>, {}},
        {"arctanh", 1, Out::complex, via_complex128<b_arctanh, 1, Out::complex>, {}},
        {"absolute", 1, Out::part, absolute_loop, {}},
        {"isnan", 1, Out::boolean, via_complex128<b_isnan, 1, Out::boolean>, {}},
        {"isinf", 1, Out::boolean, via_complex128<b_isinf, 1, Out::boolean>, {}},
        {"isfinite", 1, Out::boolean, via_complex128<b_isfinite, 1, Out::boolean>, {}},
        {"equal", 2, Out::boolean, via_complex128<b_equal, 2, Out::boolean>, {}},
        {"not_equal", 2, Out::boolean, via_complex128<b_not_equal, 2, Out::boolean>, {}},
        {"less", 2, Out::boolean, via_complex128<b_less, 2, Out::boolean>, {}},
        {"less_equal", 2, Out::boolean, via_complex128<b_less_equal, 2, Out::boolean>, {}},
        {"greater", 2, Out::boolean, via_complex128<b_greater, 2, Out::boolean>, {}},
        {"greater_equal", 2, Out::boolean, via_complex128<b_greater_equal, 2, Out::boolean>, {}},
    };
    return t;
}

struct BorrowSpec {
    const char* ufunc;
    std::vector<int> types;
    Borrowed slot;
};

std::vector<BorrowSpec> borrowed_loops() {
    const int D = NPY_CDOUBLE, d = NPY_DOUBLE, b = NPY_BOOL;
    return {
        {"true_divide", {D, D, D}, b_divide}, {"power", {D, D, D}, b_power},
        {"maximum", {D, D, D}, b_maximum}, {"minimum", {D, D, D}, b_minimum},
        {"fmax", {D, D, D}, b_fmax}, {"fmin", {D, D, D}, b_fmin},
        {"sqrt", {D, D}, b_sqrt}, {"exp", {D, D}, b_exp}, {"log", {D, D}, b_log},
        {"exp2", {D, D}, b_exp2}, {"expm1", {D, D}, b_expm1}, {"log2", {D, D}, b_log2},
        {"log10", {D, D}, b_log10}, {"log1p", {D, D}, b_log1p},
        {"reciprocal", {D, D}, b_reciprocal}, {"square", {D, D}, b_square}, {"sign", {D, D}, b_sign},
        {"sin", {D, D}, b_sin}, {"cos", {D, D}, b_cos}, {"tan", {D, D}, b_tan},
        {"arcsin", {D, D}, b_arcsin}, {"arccos", {D, D}, b_arccos}, {"arctan", {D, D}, b_arctan},
        {"sinh", {D, D}, b_sinh}, {"cosh", {D, D}, b_cosh}, {"tanh", {D, D}, b_tanh},
        {"arcsinh", {D, D}, b_arcsinh}, {"arccosh", {D, D}, b_arccosh}, {"arctanh", {D, D}, b_arctanh},
        {"absolute", {D, d}, b_absolute},
        {"isnan", {D, b}, b_isnan}, {"isinf", {D, b}, b_isinf}, {"isfinite", {D, b}, b_isfinite},
        {"equal", {D, D, b}, b_equal}, {"not_equal", {D, D, b}, b_not_equal},
        {"less", {D, D, b}, b_less}, {"less_equal", {D, D, b}, b_less_equal},
        {"greater", {D, D, b}, b_greater}, {"greater_equal", {D, D, b}, b_greater_equal},
    };
}

bool is_comparison(const char* name) {
    for (const char* c : {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}) {
        if (std::strcmp(name, c) == 0) return true;
    }
    return false;
}

}  // namespace

PyUFuncGenericFunction numpy_loop(PyObject* ufunc, const std::vector<int>& types, void** data) {
    const PyUFuncObject* u = reinterpret_cast<PyUFuncObject*>(ufunc);
    if (static_cast<size_t>(u->nargs) != types.size() || u->types == nullptr || u->functions == nullptr) {
        return nullptr;
    }
    for (int i = 0; i < u->ntypes; i++) {
        bool match = true;
        for (int j = 0; j < u->nargs; j++) match &= u->types[i * u->nargs + j] == types[static_cast<size_t>(j)];
        if (match && u->functions[i] != nullptr) {
            *data = u->data != nullptr ? u->data[i] : nullptr;
            return u->functions[i];
        }
    }
    return nullptr;
}

int init_complex_ufuncs() {
    for (const BorrowSpec& b : borrowed_loops()) {
        if (find_loop(b.ufunc, b.types, b.slot) < 0) return -1;
    }
    const std::vector<LoopEntry> table = loop_table();
    for (int kind = 0; kind < kComplexCount; kind++) {
        for (const LoopEntry& e : table) {
            if (add_loop(kind, e) < 0) return -1;
        }
        if (add_part_loops(kind) < 0) return -1;
        if (add_gufunc_loop(kind, "matmul", matmul_loop) < 0 || add_gufunc_loop(kind, "vecdot", vecdot_loop) < 0) {
            return -1;
        }
    }
    for (const LoopEntry& e : table) {
        if (e.nin != 2) continue;
        PyObject* ufunc = umath(e.ufunc);
        if (ufunc == nullptr) return -1;
        const int status = add_binary_promoters(ufunc, is_comparison(e.ufunc) ? comparison_promoter : homogeneous_promoter);
        Py_DECREF(ufunc);
        if (status < 0) return -1;
    }
    for (const char* name : {"matmul", "vecdot"}) {
        PyObject* ufunc = umath(name);
        if (ufunc == nullptr) return -1;
        const int status = add_binary_promoters(ufunc, homogeneous_promoter);
        Py_DECREF(ufunc);
        if (status < 0) return -1;
    }
    return 0;
}

}  // namespace minifloat
