// Ufunc loops of the sub-byte integers, as NumPy's int8 has them: results
// wrap to the type's width (int4: 7 + 1 == -8); integer division and
// remainder by zero give 0 with NumPy's "divide by zero" warning, and
// min // -1 wraps with its "overflow" warning. Promoters keyed on the
// abstract IntegerDType send mixed operands to the common type.
#include <cstring>
#include <string>
#include <vector>

#include "cast_specs.h"
#include "fp_status.h"
#include "int_types.h"

namespace minifloat {

namespace {

struct Width {
    int shift;
    int mask;
    bool is_signed;
    int min;
    int wrap(int v) const {
        return is_signed ? static_cast<int>(static_cast<int8_t>(static_cast<uint8_t>(v << shift))) >> shift
                         : (v & mask);
    }
};

Width width_of(const PyArray_Descr* d) {
    const IntTypeRuntime& rt = int_runtime(int_index_of_descr(d));
    return {8 - rt.row->bits, (1 << rt.row->bits) - 1, rt.row->is_signed, rt.min};
}

enum class Binary { add, subtract, multiply, bit_and, bit_or, bit_xor, minimum, maximum, left_shift, right_shift };
enum class Division { floor_divide, remainder, fmod };
enum class Compare { eq, ne, lt, le, gt, ge, logical_and, logical_or, logical_xor };
enum class Unary { negative, positive, absolute, sign, invert, square };
enum class Predicate { logical_not, isnan, isinf, isfinite };

template <Binary Op>
int eval_binary(int a, int b) {
    switch (Op) {
        case Binary::add: return a + b;
        case Binary::subtract: return a - b;
        case Binary::multiply: return a * b;
        case Binary::bit_and: return a & b;
        case Binary::bit_or: return a | b;
        case Binary::bit_xor: return a ^ b;
        case Binary::minimum: return a < b ? a : b;
        case Binary::maximum: return a > b ? a : b;
        // shifts by the byte's width or more (or negative) give 0 / the sign
        case Binary::left_shift: return (b < 0 || b >= 8) ? 0 : a << b;
        case Binary::right_shift: return (b < 0 || b >= 8) ? (a < 0 ? -1 : 0) : a >> b;
    }
    return 0;
}

template <class T, Binary Op>
int binary_loop(PyArrayMethod_Context* ctx, char* const data[], const npy_intp dims[],
                const npy_intp strides[], NpyAuxData*) {
    const Width w = width_of(ctx->descriptors[2]);
    const npy_intp n = dims[0];
    if (strides[0] == 1 && strides[1] == 1 && strides[2] == 1) {
        const T* a = reinterpret_cast<const T*>(data[0]);
        const T* b = reinterpret_cast<const T*>(data[1]);
        T* c = reinterpret_cast<T*>(data[2]);
        for (npy_intp i = 0; i < n; i++) c[i] = static_cast<T>(w.wrap(eval_binary<Op>(a[i], b[i])));
        return 0;
    }
    const char *a = data[0], *b = data[1];
    char* c = data[2];
    for (npy_intp i = 0; i < n; i++, a += strides[0], b += strides[1], c += strides[2]) {
        *reinterpret_cast<T*>(c) =
            static_cast<T>(w.wrap(eval_binary<Op>(*reinterpret_cast<const T*>(a), *reinterpret_cast<const T*>(b))));
    }
    return 0;
}

// Floor division and both remainders; flags divide-by-zero and overflow.
struct Quotient {
    int quotient, remainder;
};
template <Division Op>
Quotient divide(int a, int b) {
    int q = a / b, r = a % b;
    if (Op != Division::fmod && r != 0 && ((r < 0) != (b < 0))) {
        q -= 1;
        r += b;
    }
    return {q, r};
}

template <class T, Division Op, bool TwoOutputs>
int division_loop(PyArrayMethod_Context* ctx, char* const data[], const npy_intp dims[],
                  const npy_intp strides[], NpyAuxData*) {
    const Width w = width_of(ctx->descriptors[2]);
    const char *a = data[0], *b = data[1];
    char* c = data[2];
    char* d = TwoOutputs ? data[3] : nullptr;
    uint32_t flags = 0;
    for (npy_intp i = 0; i < dims[0]; i++, a += strides[0], b += strides[1], c += strides[2]) {
        const int x = *reinterpret_cast<const T*>(a), y = *reinterpret_cast<const T*>(b);
        Quotient qr{0, 0};
        if (y == 0) {
            flags |= kFlagDivideByZero;
        } else {
            qr = divide<Op>(x, y);
            if (w.is_signed && x == w.min && y == -1 && Op == Division::floor_divide) flags |= kFlagOverflow;
        }
        const int first = (Op == Division::floor_divide || TwoOutputs) ? qr.quotient : qr.remainder;
        *reinterpret_cast<T*>(c) = static_cast<T>(w.wrap(first));
        if (TwoOutputs) {
            *reinterpret_cast<T*>(d) = static_cast<T>(w.wrap(qr.remainder));
            d += strides[3];
        }
    }
    raise_fp_flags(flags);
    return 0;
}

template <Compare Op>
bool eval_compare(int a, int b) {
    switch (Op) {
        case Compare::eq: return a == b;
        case Compare::ne: return a != b;
        case Compare::lt: return a < b;
        case Compare::le: return a <= b;
        case Compare::gt: return a > b;
        case Compare::ge: return a >= b;
        case Compare::logical_and: return a != 0 && b != 0;
        case Compare::logical_or: return a != 0 || b != 0;
        case Compare::logical_xor: return (a != 0) != (b != 0);
    }
    return false;
}

template <class T, Compare Op>
int compare_loop(PyArrayMethod_Context*, char* const data[], const npy_intp dims[], const npy_intp strides[],
                 NpyAuxData*) {
    const char *a = data[0], *b = data[1];
    char* c = data[2];
    if (strides[0] == 1 && strides[1] == 1 && strides[2] == 1) {
        const T* x = reinterpret_cast<const T*>(a);
        const T* y = reinterpret_cast<const T*>(b);
        for (npy_intp i = 0; i < dims[0]; i++) c[i] = eval_compare<Op>(x[i], y[i]);
        return 0;
    }
    for (npy_intp i = 0; i < dims[0]; i++, a += strides[0], b += strides[1], c += strides[2]) {
        *reinterpret_cast<npy_bool*>(c) = eval_compare<Op>(*reinterpret_cast<const T*>(a), *reinterpret_cast<const T*>(b));
    }
    return 0;
}

template <Unary Op>
int eval_unary(int a) {
    switch (Op) {
        case Unary::negative: return -a;
        case Unary::positive: return a;
        case Unary::absolute: return a < 0 ? -a : a;
        case Unary::sign: return (a > 0) - (a < 0);
        case Unary::invert: return ~a;
        case Unary::square: return a * a;
    }
    return 0;
}

template <class T, Unary Op>
int unary_loop(PyArrayMethod_Context* ctx, char* const data[], const npy_intp dims[], const npy_intp strides[],
               NpyAuxData*) {
    const Width w = width_of(ctx->descriptors[1]);
    const char* a = data[0];
    char* c = data[1];
    for (npy_intp i = 0; i < dims[0]; i++, a += strides[0], c += strides[1]) {
        *reinterpret_cast<T*>(c) = static_cast<T>(w.wrap(eval_unary<Op>(*reinterpret_cast<const T*>(a))));
    }
    return 0;
}

template <class T, Predicate Op>
int predicate_loop(PyArrayMethod_Context*, char* const data[], const npy_intp dims[], const npy_intp strides[],
                   NpyAuxData*) {
    const char* a = data[0];
    char* c = data[1];
    for (npy_intp i = 0; i < dims[0]; i++, a += strides[0], c += strides[1]) {
        const T v = *reinterpret_cast<const T*>(a);
        bool r = false;
        switch (Op) {
            case Predicate::logical_not: r = v == 0; break;
            case Predicate::isnan: r = false; break;
            case Predicate::isinf: r = false; break;
            case Predicate::isfinite: r = true; break;
        }
        *reinterpret_cast<npy_bool*>(c) = r;
    }
    return 0;
}

// Integer true division runs in float64, as NumPy's int8 / int8 does.
template <class T>
int true_divide_loop(PyArrayMethod_Context*, char* const data[], const npy_intp dims[], const npy_intp strides[],
                     NpyAuxData*) {
    const char *a = data[0], *b = data[1];
    char* c = data[2];
    for (npy_intp i = 0; i < dims[0]; i++, a += strides[0], b += strides[1], c += strides[2]) {
        *reinterpret_cast<double*>(c) =
            static_cast<double>(*reinterpret_cast<const T*>(a)) / static_cast<double>(*reinterpret_cast<const T*>(b));
    }
    return 0;
}

// matmul "(n?,k),(k,m?)->(n?,m?)": products accumulate exactly in int32
// (the result type), as quantized int4 weight kernels do.
template <class T>
int matmul_loop(PyArrayMethod_Context*, char* const data[], const npy_intp dims[], const npy_intp strides[],
                NpyAuxData*) {
    const npy_intp outer = dims[0], n = dims[1], k = dims[2], m = dims[3];
    for (npy_intp o = 0; o < outer; o++) {
        const char* A = data[0] + o * strides[0];
        const char* B = data[1] + o * strides[1];
        char* C = data[2] + o * strides[2];
        for (npy_intp i = 0; i < n; i++) {
            for (npy_intp j = 0; j < m; j++) {
                int32_t sum = 0;
                for (npy_intp p = 0; p < k; p++) {
                    sum += static_cast<int32_t>(*reinterpret_cast<const T*>(A + i * strides[3] + p * strides[4])) *
                           *reinterpret_cast<const T*>(B + p * strides[5] + j * strides[6]);
                }
                *reinterpret_cast<int32_t*>(C + i * strides[7] + j * strides[8]) = sum;
            }
        }
    }
    return 0;
}

// ---- registration ---------------------------------------------------------------

PyObject* ufunc_named(const char* name) {
    PyObject* umath = PyImport_ImportModule("numpy._core.umath");
    if (umath == nullptr) return nullptr;
    PyObject* u = PyObject_GetAttrString(umath, name);
    Py_DECREF(umath);
    return u;
}

PyArray_DTypeMeta* new_ref(PyArray_DTypeMeta* d) {
    Py_XINCREF(d);
    return d;
}

// Inputs take their common type (an explicit signature wins); outputs take
// it too, unless the loop fixes them (bool, float64, int32): then NULL.
template <bool OutputsShareType>
int promoter(PyObject* ufunc, PyArray_DTypeMeta* const op_dtypes[], PyArray_DTypeMeta* const signature[],
             PyArray_DTypeMeta* new_op_dtypes[]) {
    const PyUFuncObject* u = reinterpret_cast<PyUFuncObject*>(ufunc);
    PyArray_DTypeMeta* present[8];
    int count = 0;
    for (int i = 0; i < u->nin; i++) {
        PyArray_DTypeMeta* d = signature[i] != nullptr ? signature[i] : op_dtypes[i];
        if (d != nullptr) present[count++] = d;
    }
    if (count == 0) {
        PyErr_SetString(PyExc_TypeError, "minifloat: no operand types to promote");
        return -1;
    }
    PyArray_DTypeMeta* common = PyArray_PromoteDTypeSequence(count, present);
    if (common == nullptr) return -1;
    for (int i = 0; i < u->nin; i++) new_op_dtypes[i] = new_ref(common);
    for (int i = u->nin; i < u->nargs; i++) {
        new_op_dtypes[i] = new_ref(signature[i] != nullptr ? signature[i] : (OutputsShareType ? common : nullptr));
    }
    Py_DECREF(common);
    return 0;
}

int add_promoters(PyObject* ufunc, PyArrayMethod_PromoterFunction* fn) {
    const PyUFuncObject* u = reinterpret_cast<PyUFuncObject*>(ufunc);
    PyObject* abstract = reinterpret_cast<PyObject*>(&g_int_abstract_dtype);
    for (unsigned mask = 1; mask < (1u << u->nin); mask++) {
        PyObject* key = PyTuple_New(u->nargs);
        if (key == nullptr) return -1;
        for (int i = 0; i < u->nargs; i++) {
            PyObject* item = (i < u->nin && (mask >> i) & 1) ? abstract : Py_None;
            Py_INCREF(item);
            PyTuple_SET_ITEM(key, i, item);
        }
        PyObject* capsule = PyCapsule_New(reinterpret_cast<void*>(fn), "numpy._ufunc_promoter", nullptr);
        const int status = capsule == nullptr ? -1 : PyUFunc_AddPromoter(ufunc, key, capsule);
        Py_DECREF(key);
        Py_XDECREF(capsule);
        if (status < 0) return -1;
    }
    return 0;
}

struct Registrar {
    PyArray_DTypeMeta* type;
    int add(const char* ufunc_name, std::vector<PyArray_DTypeMeta*> dtypes, void* loop, bool may_warn) {
        PyObject* ufunc = ufunc_named(ufunc_name);
        if (ufunc == nullptr) return -1;
        const PyUFuncObject* u = reinterpret_cast<PyUFuncObject*>(ufunc);
        const NPY_ARRAYMETHOD_FLAGS flags = may_warn ? static_cast<NPY_ARRAYMETHOD_FLAGS>(0) : NPY_METH_NO_FLOATINGPOINT_ERRORS;
        PyArrayMethod_Spec* spec = make_method_spec((std::string("int_") + ufunc_name).c_str(), u->nin, u->nout,
                                                    NPY_NO_CASTING, flags, std::move(dtypes),
                                                    {{NPY_METH_strided_loop, loop}});
        const int status = PyUFunc_AddLoopFromSpec(ufunc, spec);
        Py_DECREF(ufunc);
        return status;
    }
};

template <class T>
int register_type(PyArray_DTypeMeta* t) {
    Registrar r{t};
    PyArray_DTypeMeta* b = &PyArray_BoolDType;
    const std::vector<PyArray_DTypeMeta*> ttt = {t, t, t};
    const std::vector<PyArray_DTypeMeta*> ttb = {t, t, b};
    const std::vector<PyArray_DTypeMeta*> tt = {t, t};
    const std::vector<PyArray_DTypeMeta*> tb = {t, b};
    auto L = [](auto f) { return reinterpret_cast<void*>(f); };
    int s = 0;
    s |= r.add("add", ttt, L(binary_loop<T, Binary::add>), false);
    s |= r.add("subtract", ttt, L(binary_loop<T, Binary::subtract>), false);
    s |= r.add("multiply", ttt, L(binary_loop<T, Binary::multiply>), false);
    s |= r.add("bitwise_and", ttt, L(binary_loop<T, Binary::bit_and>), false);
    s |= r.add("bitwise_or", ttt, L(binary_loop<T, Binary::bit_or>), false);
    s |= r.add("bitwise_xor", ttt, L(binary_loop<T, Binary::bit_xor>), false);
    s |= r.add("minimum", ttt, L(binary_loop<T, Binary::minimum>), false);
    s |= r.add("maximum", ttt, L(binary_loop<T, Binary::maximum>), false);
    s |= r.add("fmin", ttt, L(binary_loop<T, Binary::minimum>), false);
    s |= r.add("fmax", ttt, L(binary_loop<T, Binary::maximum>), false);
    s |= r.add("left_shift", ttt, L(binary_loop<T, Binary::left_shift>), false);
    s |= r.add("right_shift", ttt, L(binary_loop<T, Binary::right_shift>), false);
    s |= r.add("floor_divide", ttt, L(division_loop<T, Division::floor_divide, false>), true);
    s |= r.add("remainder", ttt, L(division_loop<T, Division::remainder, false>), true);
    s |= r.add("fmod", ttt, L(division_loop<T, Division::fmod, false>), true);
    s |= r.add("divmod", {t, t, t, t}, L(division_loop<T, Division::remainder, true>), true);
    s |= r.add("equal", ttb, L(compare_loop<T, Compare::eq>), false);
    s |= r.add("not_equal", ttb, L(compare_loop<T, Compare::ne>), false);
    s |= r.add("less", ttb, L(compare_loop<T, Compare::lt>), false);
    s |= r.add("less_equal", ttb, L(compare_loop<T, Compare::le>), false);
    s |= r.add("greater", ttb, L(compare_loop<T, Compare::gt>), false);
    s |= r.add("greater_equal", ttb, L(compare_loop<T, Compare::ge>), false);
    s |= r.add("logical_and", ttb, L(compare_loop<T, Compare::logical_and>), false);
    s |= r.add("logical_or", ttb, L(compare_loop<T, Compare::logical_or>), false);
    s |= r.add("logical_xor", ttb, L(compare_loop<T, Compare::logical_xor>), false);
    s |= r.add("negative", tt, L(unary_loop<T, Unary::negative>), false);
    s |= r.add("positive", tt, L(unary_loop<T, Unary::positive>), false);
    s |= r.add("absolute", tt, L(unary_loop<T, Unary::absolute>), false);
    s |= r.add("sign", tt, L(unary_loop<T, Unary::sign>), false);
    s |= r.add("invert", tt, L(unary_loop<T, Unary::invert>), false);
    s |= r.add("square", tt, L(unary_loop<T, Unary::square>), false);
    s |= r.add("logical_not", tb, L(predicate_loop<T, Predicate::logical_not>), false);
    s |= r.add("isnan", tb, L(predicate_loop<T, Predicate::isnan>), false);
    s |= r.add("isinf", tb, L(predicate_loop<T, Predicate::isinf>), false);
    s |= r.add("isfinite", tb, L(predicate_loop<T, Predicate::isfinite>), false);
    s |= r.add("true_divide", {t, t, &PyArray_DoubleDType}, L(true_divide_loop<T>), true);
    s |= r.add("matmul", {t, t, &PyArray_Int32DType}, L(matmul_loop<T>), false);
    return s < 0 ? -1 : 0;
}

}  // namespace

int init_int_ufuncs() {
    for (int i = 0; i < kIntFormatCount; i++) {
        IntTypeRuntime& rt = int_runtime(i);
        const int status = rt.row->is_signed ? register_type<int8_t>(&rt.dtype_class)
                                             : register_type<uint8_t>(&rt.dtype_class);
        if (status < 0) return -1;
    }
    const char* sharing[] = {"add", "subtract", "multiply", "bitwise_and", "bitwise_or", "bitwise_xor",
                             "minimum", "maximum", "fmin", "fmax", "left_shift", "right_shift",
                             "floor_divide", "remainder", "fmod", "divmod", "negative", "positive",
                             "absolute", "sign", "invert", "square"};
    // logical_* keep NumPy's own promoter (everything to bool), which a
    // second one keyed on IntegerDType would make ambiguous (x.any()).
    const char* fixed_output[] = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
                                  "isnan",
                                  "isinf", "isfinite", "true_divide", "matmul"};
    for (const char* name : sharing) {
        PyObject* u = ufunc_named(name);
        if (u == nullptr || add_promoters(u, promoter<true>) < 0) return -1;
        Py_DECREF(u);
    }
    for (const char* name : fixed_output) {
        PyObject* u = ufunc_named(name);
        if (u == nullptr || add_promoters(u, promoter<false>) < 0) return -1;
        Py_DECREF(u);
    }
    return 0;
}

}  // namespace minifloat
