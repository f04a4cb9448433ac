// Ufunc loops of the sub-byte integers, as NumPy's int8 has them: results
// wrap to the type's width (int4: 7 + 1 == -8); integer division and
// remainder by zero give 0 with NumPy's "divide by zero" warning, and
// min // -1 wraps with its "overflow" warning. Promoters keyed on the
// abstract IntegerDType send mixed operands to the common type.
#include <algorithm>
#include <cstring>
#include <set>
#include <type_traits>
#include <utility>
#include <string>
#include <vector>

#include "cast_specs.h"
#include "format_types.h"
#include "fp_status.h"
#include "int_kernels.h"
#include "int_types.h"
#include "promote_by_resolution.h"
#include "promoter_registration.h"
#include "python_number_comparisons.h"

namespace minifloat {

namespace {

// The compile-time shape of type `Index` of kIntFormatTable: loops are
// instantiated per type so the width is a constant and the element
// operations are plain byte arithmetic the compiler vectorizes.
template <int Index>
struct Type {
    static constexpr IntFormatRow row = kIntFormatTable[Index];
    using Stored = std::conditional_t<row.is_signed, int8_t, uint8_t>;
    static constexpr int bits = row.bits;
    static constexpr int min = int_format_min(row), max = int_format_max(row);
    static constexpr unsigned mask = int_format_mask(row);
    static constexpr unsigned sign = int_format_sign_bit(row);
    // The type's value of a result's low byte (two's complement wrap, as
    // int64 -> int8 does): bias the sign bit to 0, keep the width, unbias.
    static uint8_t wrap(unsigned low_byte) {
        return static_cast<uint8_t>(((low_byte + sign) & mask) - sign);
    }
};

enum class Binary { add, subtract, multiply, bit_and, bit_or, bit_xor, minimum, maximum, left_shift, right_shift };
enum class Division { floor_divide, remainder, fmod };
enum class Compare { eq, ne, lt, le, gt, ge, logical_and, logical_or, logical_xor };
enum class Unary { negative, positive, absolute, sign, invert, square };
enum class Predicate { logical_not, isnan, isinf, isfinite };

// One element of a binary op, on the stored bytes. Sums, differences and
// products are right modulo 256 and so after the wrap; min, max and the
// bitwise ops of in-range values are in range (sign-extended bits combine
// like the sign bit), so they need no wrap.
template <int Index, Binary Op>
uint8_t binary_element(uint8_t a_byte, uint8_t b_byte) {
    using T = Type<Index>;
    using S = typename T::Stored;
    const S a = static_cast<S>(a_byte), b = static_cast<S>(b_byte);
    switch (Op) {
        case Binary::add: return T::wrap(static_cast<uint8_t>(a_byte + b_byte));
        case Binary::subtract: return T::wrap(static_cast<uint8_t>(a_byte - b_byte));
        case Binary::multiply: return T::wrap(static_cast<uint8_t>(a_byte * b_byte));
        case Binary::bit_and: return a_byte & b_byte;
        case Binary::bit_or: return a_byte | b_byte;
        case Binary::bit_xor: return a_byte ^ b_byte;
        case Binary::minimum: return static_cast<uint8_t>(a < b ? a : b);
        case Binary::maximum: return static_cast<uint8_t>(a > b ? a : b);
        // shifts by the byte's width or more (or negative) give 0 / the sign
        case Binary::left_shift:
            // shifted as unsigned: a negative value's left shift is undefined before C++20
            return T::wrap(static_cast<uint8_t>((b < 0 || b >= 8) ? 0u : static_cast<unsigned>(a) << b));
        case Binary::right_shift:
            return T::wrap(static_cast<uint8_t>((b < 0 || b >= 8) ? (a < 0 ? -1 : 0) : a >> b));
    }
    return 0;
}

template <int Index, Binary Op>
int binary_loop(PyArrayMethod_Context*, char* const data[], const npy_intp dims[], const npy_intp strides[],
                NpyAuxData*) {
    const npy_intp n = dims[0];
    if (strides[0] == 1 && strides[1] == 1 && strides[2] == 1) {
        // NumPy's in-place forms (a += b) alias the output with an input
        // exactly, which element-by-element code handles; partial overlap is
        // resolved by NumPy before the loop runs.
        const uint8_t* a = reinterpret_cast<const uint8_t*>(data[0]);
        const uint8_t* b = reinterpret_cast<const uint8_t*>(data[1]);
        uint8_t* c = reinterpret_cast<uint8_t*>(data[2]);
        if constexpr (Op == Binary::add || Op == Binary::subtract || Op == Binary::multiply) {
            constexpr WrappedBinary kernel_op = Op == Binary::add        ? WrappedBinary::add
                                                : Op == Binary::subtract ? WrappedBinary::subtract
                                                                         : WrappedBinary::multiply;
            wrapped_binary(kernel_op, a, b, c, n, Type<Index>::sign, Type<Index>::mask);
            return 0;
        }
        for (npy_intp i = 0; i < n; i++) c[i] = binary_element<Index, Op>(a[i], b[i]);
        return 0;
    }
    const uint8_t* x = reinterpret_cast<const uint8_t*>(data[0]);
    const uint8_t* y = reinterpret_cast<const uint8_t*>(data[1]);
    uint8_t* z = reinterpret_cast<uint8_t*>(data[2]);
    // with a scalar (a * 2, a == 3 goes below), read once so that the loop
    // vectorizes: the per-element loop was 10x ml_dtypes'
    if (strides[2] == 1 && strides[0] == 1 && strides[1] == 0) {
        const uint8_t scalar = y[0];
        for (npy_intp i = 0; i < n; i++) z[i] = binary_element<Index, Op>(x[i], scalar);
        return 0;
    }
    if (strides[2] == 1 && strides[0] == 0 && strides[1] == 1) {
        const uint8_t scalar = x[0];
        for (npy_intp i = 0; i < n; i++) z[i] = binary_element<Index, Op>(scalar, y[i]);
        return 0;
    }
    if (data[0] == data[2] && strides[0] == 0 && strides[2] == 0 && strides[1] == 1) {  // a.max() and the like
        using S = typename Type<Index>::Stored;
        if constexpr (Op == Binary::maximum || Op == Binary::minimum) {
            // as unsigned bytes, a signed type's sign bit flipped (order kept):
            // SSE2 has unsigned byte max/min only
            constexpr uint8_t flip = std::is_signed_v<S> ? 0x80 : 0x00;
            uint8_t best = static_cast<uint8_t>(z[0] ^ flip);
            for (npy_intp i = 0; i < n; i++) {
                const uint8_t v = static_cast<uint8_t>(y[i] ^ flip);
                best = Op == Binary::maximum ? std::max(best, v) : std::min(best, v);
            }
            z[0] = static_cast<uint8_t>(best ^ flip);
            return 0;
        }
        uint8_t total = z[0];
        for (npy_intp i = 0; i < n; i++) total = binary_element<Index, Op>(total, y[i]);
        z[0] = total;
        return 0;
    }
    const char *a = data[0], *b = data[1];
    char* c = data[2];
    for (npy_intp i = 0; i < n; i++, a += strides[0], b += strides[1], c += strides[2]) {
        *reinterpret_cast<uint8_t*>(c) =
            binary_element<Index, Op>(*reinterpret_cast<const uint8_t*>(a), *reinterpret_cast<const uint8_t*>(b));
    }
    return 0;
}

// ---- division: one table per type and op ---------------------------------------
//
// Integer division does not vectorize, but a type has at most 16 values, so
// every (a, b) pair is one entry of a table indexed by the two values' low
// bits: the result byte and the floating-point flags it raises (divide by
// zero gives 0 with NumPy's "divide by zero" warning; min // -1 wraps with
// its "overflow" warning, as int8's does).

struct DivisionEntry {
    uint8_t result;
    uint8_t flags;  // kFlagDivideByZero, kFlagOverflow (they fit a byte)
};

constexpr int kDivisionOps = 3;
DivisionEntry g_division[kIntFormatCount][kDivisionOps][256];

// Calls fn(t, row, index, a, b) for every pair of values (a, b) of every
// integer type t, `index` the pair's entry in a table of 2^(2 bits).
template <class Fn>
void for_each_value_pair(Fn&& fn) {
    for (int t = 0; t < kIntFormatCount; t++) {
        const IntFormatRow& row = kIntFormatTable[t];
        const int count = 1 << row.bits;
        for (int i = 0; i < count; i++) {
            for (int j = 0; j < count; j++) {
                fn(t, row, (i << row.bits) | j, wrap_to_int_type(i, row.bits, row.is_signed),
                   wrap_to_int_type(j, row.bits, row.is_signed));
            }
        }
    }
}

void fill_division_tables() {
    for_each_value_pair([](int t, const IntFormatRow& row, int index, int a, int b) {
        for (int op = 0; op < kDivisionOps; op++) {
            DivisionEntry e{0, 0};
            if (b == 0) {
                e.flags = kFlagDivideByZero;
            } else {
                int q = a / b, r = a % b;
                if (op != static_cast<int>(Division::fmod) && r != 0 && ((r < 0) != (b < 0))) {
                    q -= 1;  // floor the quotient, give the remainder the divisor's sign
                    r += b;
                }
                const int value = op == static_cast<int>(Division::floor_divide) ? q : r;
                e.result = int_code_of(wrap_to_int_type(value, row.bits, row.is_signed));
                const bool quotient_overflows = q > int_format_max(row);
                if (op == static_cast<int>(Division::floor_divide) && quotient_overflows) e.flags = kFlagOverflow;
            }
            g_division[t][op][index] = e;
        }
    });
    static_assert((kFlagDivideByZero | kFlagOverflow) <= 0xff, "division flags are stored in a byte");
}

template <int Index>
inline int pair_index(uint8_t a, uint8_t b) {
    return ((a & Type<Index>::mask) << Type<Index>::bits) | (b & Type<Index>::mask);
}

template <int Index, Division Op, bool TwoOutputs>
int division_loop(PyArrayMethod_Context*, char* const data[], const npy_intp dims[], const npy_intp strides[],
                  NpyAuxData*) {
    const DivisionEntry* first = g_division[Index][static_cast<int>(TwoOutputs ? Division::floor_divide : Op)];
    const DivisionEntry* second = g_division[Index][static_cast<int>(Division::remainder)];
    const char *a = data[0], *b = data[1];
    char* c = data[2];
    char* d = TwoOutputs ? data[3] : nullptr;
    unsigned flags = 0;
    for (npy_intp i = 0; i < dims[0]; i++, a += strides[0], b += strides[1], c += strides[2]) {
        const int k = pair_index<Index>(static_cast<uint8_t>(*a), static_cast<uint8_t>(*b));
        *reinterpret_cast<uint8_t*>(c) = first[k].result;
        flags |= first[k].flags;
        if (TwoOutputs) {
            *reinterpret_cast<uint8_t*>(d) = second[k].result;
            d += strides[3];
        }
    }
    // divmod(min, -1) overflows like min // -1 (its quotient is the first table)
    raise_fp_flags(flags);
    return 0;
}

// ---- power: a table per type, as for division ------------------------------------
//
// a ** b wraps to the width (int4: 2 ** 3 == -8, as int8's 2 ** 7 == -128);
// a negative exponent raises NumPy's ValueError for integer arrays.

struct PowerEntry {
    uint8_t result;
    bool negative_exponent;
};
PowerEntry g_power[kIntFormatCount][256];

void fill_power_tables() {
    for_each_value_pair([](int t, const IntFormatRow& row, int index, int a, int b) {
        int64_t value = 1;  // 0 ** 0 == 1, as NumPy's
        for (int k = 0; k < b; k++) value = wrap_to_int_type(value * a, row.bits, row.is_signed);
        // wrapped once more for b == 0: int1 holds no 1, so 1 wraps to -1
        g_power[t][index] = {int_code_of(wrap_to_int_type(value, row.bits, row.is_signed)), b < 0};
    });
}

template <int Index>
int power_loop(PyArrayMethod_Context*, char* const data[], const npy_intp dims[], const npy_intp strides[],
               NpyAuxData*) {
    const PowerEntry* table = g_power[Index];
    const char *a = data[0], *b = data[1];
    char* c = data[2];
    bool negative_exponent = false;
    for (npy_intp i = 0; i < dims[0]; i++, a += strides[0], b += strides[1], c += strides[2]) {
        const PowerEntry& e = table[pair_index<Index>(static_cast<uint8_t>(*a), static_cast<uint8_t>(*b))];
        *reinterpret_cast<uint8_t*>(c) = e.result;
        negative_exponent |= e.negative_exponent;
    }
    if (negative_exponent) {
        // the loop may run without the GIL (NumPy releases it for loops
        // that do not ask for the Python API)
        const PyGILState_STATE gil = PyGILState_Ensure();
        PyErr_SetString(PyExc_ValueError, "Integers to negative integer powers are not allowed.");
        PyGILState_Release(gil);
        return -1;
    }
    return 0;
}

template <Compare Op, class S>
uint8_t compare_element(S a, S b) {
    switch (Op) {
        case Compare::eq: return a == b;
        case Compare::ne: return a != b;
        case Compare::lt: return a < b;
        case Compare::le: return a <= b;
        case Compare::gt: return a > b;
        case Compare::ge: return a >= b;
        case Compare::logical_and: return (a != 0) & (b != 0);
        case Compare::logical_or: return (a != 0) | (b != 0);
        case Compare::logical_xor: return (a != 0) != (b != 0);
    }
    return 0;
}

template <int Index, Compare Op>
int compare_loop(PyArrayMethod_Context*, char* const data[], const npy_intp dims[], const npy_intp strides[],
                 NpyAuxData*) {
    using S = typename Type<Index>::Stored;
    const npy_intp n = dims[0];
    if (strides[0] == 1 && strides[1] == 1 && strides[2] == 1) {
        const S* __restrict x = reinterpret_cast<const S*>(data[0]);
        const S* __restrict y = reinterpret_cast<const S*>(data[1]);
        uint8_t* __restrict c = reinterpret_cast<uint8_t*>(data[2]);  // bool: a separate array
        for (npy_intp i = 0; i < n; i++) c[i] = compare_element<Op>(x[i], y[i]);
        return 0;
    }
    const char *a = data[0], *b = data[1];
    char* c = data[2];
    for (npy_intp i = 0; i < n; i++, a += strides[0], b += strides[1], c += strides[2]) {
        *reinterpret_cast<npy_bool*>(c) =
            compare_element<Op>(*reinterpret_cast<const S*>(a), *reinterpret_cast<const S*>(b));
    }
    return 0;
}

// Comparisons with a Python int, as NumPy 2 compares int8 with one: exact
// for any value, so `a < 16` of a uint4 array is True where 16 is beyond the
// type (its own loop would need the int as a uint4 first, which raises).
// The int reaches the loop as int64 (resolve_python_number_as; NumPy's hook
// that sees the Python object itself is private, numpy/numpy#24915): one
// beyond int64 raises OverflowError, as for the float formats.
template <int Index, Compare Op, int NumberSide>
int compare_with_python_int_loop(PyArrayMethod_Context*, char* const data[], const npy_intp dims[],
                                 const npy_intp strides[], NpyAuxData*) {
    using S = typename Type<Index>::Stored;
    constexpr int kTypeSide = 1 - NumberSide;
    const npy_intp n = dims[0];
    const char* values = data[kTypeSide];
    const char* numbers = data[NumberSide];
    char* out = data[2];
    if (strides[NumberSide] == 0 && strides[kTypeSide] == 1 && strides[2] == 1) {
        // one number (a == 3): clamped to one past the type's range, which
        // changes no comparison with its values, then compared as ints (vectorizes)
        int64_t number;
        std::memcpy(&number, numbers, sizeof number);
        const int64_t low = Type<Index>::min, high = Type<Index>::max;
        // (in 16-bit lanes, where both fit)
        const int16_t clamped =
            static_cast<int16_t>(number < low - 1 ? low - 1 : (number > high + 1 ? high + 1 : number));
        const S* typed = reinterpret_cast<const S*>(values);
        uint8_t* result = reinterpret_cast<uint8_t*>(out);  // bool: a separate array
        for (npy_intp i = 0; i < n; i++) {
            const int16_t value = typed[i];
            result[i] = static_cast<uint8_t>(NumberSide == 1 ? compare_element<Op>(value, clamped)
                                                             : compare_element<Op>(clamped, value));
        }
        return 0;
    }
    for (npy_intp i = 0; i < n; i++) {
        const int64_t value = *reinterpret_cast<const S*>(values + i * strides[kTypeSide]);
        int64_t number;
        std::memcpy(&number, numbers + i * strides[NumberSide], sizeof number);
        *reinterpret_cast<npy_bool*>(out + i * strides[2]) =
            NumberSide == 1 ? compare_element<Op>(value, number) : compare_element<Op>(number, value);
    }
    return 0;
}

template <int Index, Compare Op, int NumberSide>
int add_python_int_comparison(const char* ufunc_name) {
    PyObject* ufunc = numpy_ufunc_named(ufunc_name);
    if (ufunc == nullptr) return -1;
    PyArray_DTypeMeta* t = &int_runtime(Index).dtype_class;
    std::vector<PyArray_DTypeMeta*> dtypes = NumberSide == 1
                                                 ? std::vector<PyArray_DTypeMeta*>{t, &PyArray_PyLongDType, &PyArray_BoolDType}
                                                 : std::vector<PyArray_DTypeMeta*>{&PyArray_PyLongDType, t, &PyArray_BoolDType};
    PyArrayMethod_Spec* spec = make_method_spec(
        (std::string("int_") + ufunc_name + "_python_int").c_str(), 2, 1, NPY_NO_CASTING,
        NPY_METH_NO_FLOATINGPOINT_ERRORS, std::move(dtypes),
        {{NPY_METH_resolve_descriptors, reinterpret_cast<void*>(resolve_python_number_as<NumberSide, NPY_INT64>)},
         {NPY_METH_strided_loop, reinterpret_cast<void*>(compare_with_python_int_loop<Index, Op, NumberSide>)}});
    const int status = PyUFunc_AddLoopFromSpec(ufunc, spec);
    Py_DECREF(ufunc);
    return status;
}

template <int Index, Compare Op>
int add_python_int_comparisons(const char* ufunc_name) {
    return add_python_int_comparison<Index, Op, 0>(ufunc_name) | add_python_int_comparison<Index, Op, 1>(ufunc_name);
}

template <int Index, Unary Op>
uint8_t unary_element(uint8_t byte) {
    using T = Type<Index>;
    const int a = static_cast<typename T::Stored>(byte);
    switch (Op) {
        case Unary::negative: return T::wrap(static_cast<uint8_t>(-a));
        case Unary::positive: return byte;
        case Unary::absolute: return T::wrap(static_cast<uint8_t>(a < 0 ? -a : a));
        case Unary::sign: return static_cast<uint8_t>((a > 0) - (a < 0));
        case Unary::invert: return T::wrap(static_cast<uint8_t>(~a));
        case Unary::square: return T::wrap(static_cast<uint8_t>(a * a));
    }
    return 0;
}

template <int Index, Unary Op>
int unary_loop(PyArrayMethod_Context*, char* const data[], const npy_intp dims[], const npy_intp strides[],
               NpyAuxData*) {
    const npy_intp n = dims[0];
    if (strides[0] == 1 && strides[1] == 1) {
        const uint8_t* a = reinterpret_cast<const uint8_t*>(data[0]);
        uint8_t* c = reinterpret_cast<uint8_t*>(data[1]);
        if constexpr (Op == Unary::negative || Op == Unary::absolute || Op == Unary::square ||
                      Op == Unary::invert) {
            constexpr WrappedUnary kernel_op = Op == Unary::negative   ? WrappedUnary::negative
                                               : Op == Unary::absolute ? WrappedUnary::absolute
                                               : Op == Unary::square   ? WrappedUnary::square
                                                                       : WrappedUnary::invert;
            wrapped_unary(kernel_op, a, c, n, Type<Index>::sign, Type<Index>::mask);
            return 0;
        }
        for (npy_intp i = 0; i < n; i++) c[i] = unary_element<Index, Op>(a[i]);
        return 0;
    }
    const char* a = data[0];
    char* c = data[1];
    for (npy_intp i = 0; i < n; i++, a += strides[0], c += strides[1]) {
        *reinterpret_cast<uint8_t*>(c) = unary_element<Index, Op>(*reinterpret_cast<const uint8_t*>(a));
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


// How a promoter picks the DTypes of a ufunc's operands.
enum class OutputRule {
    common_type,        // outputs take the inputs' common type (add, minimum, ...)
    fixed_by_loop,      // the loop fixes the output (less -> bool, matmul -> int32)
    widens_reductions,  // common_type, but sum/prod accumulate in intp/uintp
};

// A DType given for an output (dtype=np.int64) decides the loop for every
// operand, as NumPy's own integer loops do (int8 + int8 with dtype=int64 adds
// in int64); only a bool fixed by a comparison leaves the inputs alone.
PyArray_DTypeMeta* fixed_output_dtype(const PyUFuncObject* u, PyArray_DTypeMeta* const signature[]) {
    for (int i = u->nin; i < u->nargs; i++) {
        if (signature[i] != nullptr && signature[i] != &PyArray_BoolDType) return signature[i];
    }
    return nullptr;
}

// NumPy sums and multiplies its small integers in the platform integer
// (int8 -> int64, uint8 -> uint64), but decides that before promotion, from
// legacy type numbers our DTypes do not have. A reduction (or accumulation)
// without dtype= and out= reaches the promoter with no first operand: that
// is where the same rule is applied here.
PyArray_DTypeMeta* reduction_accumulator(PyArray_DTypeMeta* const op_dtypes[]) {
    const int own = int_index_of_dtype_class(op_dtypes[1]);
    if (own < 0) return nullptr;
    return dtype_class_of_type_num(int_runtime(own).row->is_signed ? NPY_INTP : NPY_UINTP);
}

template <OutputRule Rule>
int promoter(PyObject* ufunc, PyArray_DTypeMeta* const op_dtypes[], PyArray_DTypeMeta* const signature[],
             PyArray_DTypeMeta* new_op_dtypes[]) {
    const PyUFuncObject* u = reinterpret_cast<PyUFuncObject*>(ufunc);
    PyArray_DTypeMeta* everything = fixed_output_dtype(u, signature);
    if (everything != nullptr) {
        Py_INCREF(everything);
    } else if (Rule == OutputRule::widens_reductions && op_dtypes[0] == nullptr && u->nin == 2) {
        everything = reduction_accumulator(op_dtypes);
    }
    if (everything != nullptr) {
        for (int i = 0; i < u->nargs; i++) new_op_dtypes[i] = new_dtype_ref(everything);
        Py_DECREF(everything);
        return 0;
    }
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
    for (int i = 0; i < u->nin; i++) new_op_dtypes[i] = new_dtype_ref(common);
    for (int i = u->nin; i < u->nargs; i++) {
        PyArray_DTypeMeta* out = signature[i];
        if (out == nullptr && Rule != OutputRule::fixed_by_loop) out = common;
        new_op_dtypes[i] = new_dtype_ref(out);
    }
    Py_DECREF(common);
    return 0;
}

int add_promoters(PyObject* ufunc, PyArrayMethod_PromoterFunction* fn) {
    const PyUFuncObject* u = reinterpret_cast<PyUFuncObject*>(ufunc);
    PyObject* abstract = reinterpret_cast<PyObject*>(&g_int_abstract_dtype);
    // the key with every input abstract first: NumPy compares each matching
    // promoter with the best so far and gives up on a tie between (I, None)
    // and (None, I), which np.matmul(a, b, dtype=np.int64) would meet
    for (unsigned mask = (1u << u->nin) - 1; mask >= 1; mask--) {
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

// The ufuncs given loops of ours (the rest get the stand-in promoter); by
// object, since names differ from attribute names (true_divide is "divide").
std::set<const PyObject*>& ufuncs_with_int_loops() {
    static std::set<const PyObject*> ufuncs;  // NumPy's ufuncs live as long as the process
    return ufuncs;
}

struct Registrar {
    PyArray_DTypeMeta* type;
    int add(const char* ufunc_name, std::vector<PyArray_DTypeMeta*> dtypes, void* loop, NPY_ARRAYMETHOD_FLAGS flags) {
        PyObject* ufunc = numpy_ufunc_named(ufunc_name);
        if (ufunc == nullptr) return -1;
        const PyUFuncObject* u = reinterpret_cast<PyUFuncObject*>(ufunc);
        PyArrayMethod_Spec* spec = make_method_spec((std::string("int_") + ufunc_name).c_str(), u->nin, u->nout,
                                                    NPY_NO_CASTING, flags, std::move(dtypes),
                                                    {{NPY_METH_strided_loop, loop}});
        const int status = PyUFunc_AddLoopFromSpec(ufunc, spec);
        ufuncs_with_int_loops().insert(ufunc);
        Py_DECREF(ufunc);
        return status;
    }
};

// Flags of a loop: whether it may set floating-point flags, and whether
// NumPy may reduce in any order (associative and commutative on the
// wrapped values, as int8's add and multiply are), which sum(axis=None) of a
// 2-D array and reductions over several axes need.
constexpr NPY_ARRAYMETHOD_FLAGS kQuiet = NPY_METH_NO_FLOATINGPOINT_ERRORS;
constexpr NPY_ARRAYMETHOD_FLAGS kReorderable =
    static_cast<NPY_ARRAYMETHOD_FLAGS>(NPY_METH_NO_FLOATINGPOINT_ERRORS | NPY_METH_IS_REORDERABLE);
constexpr NPY_ARRAYMETHOD_FLAGS kWarns = static_cast<NPY_ARRAYMETHOD_FLAGS>(0);

template <int Index>
int register_type() {
    using T = typename Type<Index>::Stored;
    PyArray_DTypeMeta* t = &int_runtime(Index).dtype_class;
    Registrar r{t};
    PyArray_DTypeMeta* b = &PyArray_BoolDType;
    const std::vector<PyArray_DTypeMeta*> ttt = {t, t, t};
    const std::vector<PyArray_DTypeMeta*> ttb = {t, t, b};
    const std::vector<PyArray_DTypeMeta*> tt = {t, t};
    const std::vector<PyArray_DTypeMeta*> tb = {t, b};
    auto L = [](auto f) { return reinterpret_cast<void*>(f); };
    int s = 0;
    s |= r.add("add", ttt, L(binary_loop<Index, Binary::add>), kReorderable);
    s |= r.add("subtract", ttt, L(binary_loop<Index, Binary::subtract>), kQuiet);
    s |= r.add("multiply", ttt, L(binary_loop<Index, Binary::multiply>), kReorderable);
    s |= r.add("bitwise_and", ttt, L(binary_loop<Index, Binary::bit_and>), kReorderable);
    s |= r.add("bitwise_or", ttt, L(binary_loop<Index, Binary::bit_or>), kReorderable);
    s |= r.add("bitwise_xor", ttt, L(binary_loop<Index, Binary::bit_xor>), kReorderable);
    s |= r.add("minimum", ttt, L(binary_loop<Index, Binary::minimum>), kReorderable);
    s |= r.add("maximum", ttt, L(binary_loop<Index, Binary::maximum>), kReorderable);
    s |= r.add("fmin", ttt, L(binary_loop<Index, Binary::minimum>), kReorderable);
    s |= r.add("fmax", ttt, L(binary_loop<Index, Binary::maximum>), kReorderable);
    s |= r.add("left_shift", ttt, L(binary_loop<Index, Binary::left_shift>), kQuiet);
    s |= r.add("right_shift", ttt, L(binary_loop<Index, Binary::right_shift>), kQuiet);
    s |= r.add("power", ttt, L(power_loop<Index>), kQuiet);
    s |= r.add("floor_divide", ttt, L(division_loop<Index, Division::floor_divide, false>), kWarns);
    s |= r.add("remainder", ttt, L(division_loop<Index, Division::remainder, false>), kWarns);
    s |= r.add("fmod", ttt, L(division_loop<Index, Division::fmod, false>), kWarns);
    s |= r.add("divmod", {t, t, t, t}, L(division_loop<Index, Division::remainder, true>), kWarns);
    s |= r.add("equal", ttb, L(compare_loop<Index, Compare::eq>), kQuiet);
    s |= r.add("not_equal", ttb, L(compare_loop<Index, Compare::ne>), kQuiet);
    s |= r.add("less", ttb, L(compare_loop<Index, Compare::lt>), kQuiet);
    s |= r.add("less_equal", ttb, L(compare_loop<Index, Compare::le>), kQuiet);
    s |= r.add("greater", ttb, L(compare_loop<Index, Compare::gt>), kQuiet);
    s |= r.add("greater_equal", ttb, L(compare_loop<Index, Compare::ge>), kQuiet);
    s |= add_python_int_comparisons<Index, Compare::eq>("equal");
    s |= add_python_int_comparisons<Index, Compare::ne>("not_equal");
    s |= add_python_int_comparisons<Index, Compare::lt>("less");
    s |= add_python_int_comparisons<Index, Compare::le>("less_equal");
    s |= add_python_int_comparisons<Index, Compare::gt>("greater");
    s |= add_python_int_comparisons<Index, Compare::ge>("greater_equal");
    s |= r.add("logical_and", ttb, L(compare_loop<Index, Compare::logical_and>), kReorderable);
    s |= r.add("logical_or", ttb, L(compare_loop<Index, Compare::logical_or>), kReorderable);
    s |= r.add("logical_xor", ttb, L(compare_loop<Index, Compare::logical_xor>), kReorderable);
    s |= r.add("negative", tt, L(unary_loop<Index, Unary::negative>), kQuiet);
    s |= r.add("positive", tt, L(unary_loop<Index, Unary::positive>), kQuiet);
    s |= r.add("absolute", tt, L(unary_loop<Index, Unary::absolute>), kQuiet);
    s |= r.add("sign", tt, L(unary_loop<Index, Unary::sign>), kQuiet);
    s |= r.add("invert", tt, L(unary_loop<Index, Unary::invert>), kQuiet);
    s |= r.add("square", tt, L(unary_loop<Index, Unary::square>), kQuiet);
    s |= r.add("logical_not", tb, L(predicate_loop<T, Predicate::logical_not>), kQuiet);
    s |= r.add("isnan", tb, L(predicate_loop<T, Predicate::isnan>), kQuiet);
    s |= r.add("isinf", tb, L(predicate_loop<T, Predicate::isinf>), kQuiet);
    s |= r.add("isfinite", tb, L(predicate_loop<T, Predicate::isfinite>), kQuiet);
    s |= r.add("true_divide", {t, t, &PyArray_DoubleDType}, L(true_divide_loop<T>), kWarns);
    s |= r.add("matmul", {t, t, &PyArray_Int32DType}, L(matmul_loop<T>), kQuiet);
    return s < 0 ? -1 : 0;
}

// ---- every other ufunc: NumPy's int8 rules ------------------------------------------
//
// For a ufunc without loops of ours (np.sqrt, np.floor, np.gcd, np.clip, ...)
// each operand of ours stands in as int8 (uint8 for unsigned types), which
// holds every value exactly, and NumPy's own resolution of those operands
// (ufunc.resolve_dtypes, its legacy loop search included) names the loop:
// the result is what the same values as int8 give (np.sqrt -> float16,
// np.gcd -> int8). A reduction's missing first operand is its input's.
PyObject* stand_in_operand(PyArray_DTypeMeta* dtype) {
    const int own = int_index_of_dtype_class(dtype);
    if (own >= 0) return reinterpret_cast<PyObject*>(PyArray_DescrFromType(int_runtime(own).row->is_signed ? NPY_BYTE : NPY_UBYTE));
    return numpy_stand_in(dtype);
}

int stand_in_promoter(PyObject* ufunc, PyArray_DTypeMeta* const op_dtypes[], PyArray_DTypeMeta* const signature[],
                      PyArray_DTypeMeta* new_op_dtypes[]) {
    return promote_by_resolution(ufunc, op_dtypes, signature, new_op_dtypes, true, stand_in_operand);
}

// An integer of ours with a float format (int4 + float8_e4m3fn): the float
// formats' promoters (keyed on MinifloatDType) and ours (on IntegerDType)
// match such a call equally well, which NumPy refuses as ambiguous. A key
// naming both is more specific than either: the inputs take their common
// type (float16 for these, holding both exactly) and NumPy's loops for it run.
int mixed_with_formats_promoter(PyObject* ufunc, PyArray_DTypeMeta* const op_dtypes[],
                                PyArray_DTypeMeta* const signature[], PyArray_DTypeMeta* new_op_dtypes[]) {
    const PyUFuncObject* u = reinterpret_cast<PyUFuncObject*>(ufunc);
    PyArray_DTypeMeta* inputs[2] = {signature[0] != nullptr ? signature[0] : op_dtypes[0],
                                    signature[1] != nullptr ? signature[1] : op_dtypes[1]};
    PyArray_DTypeMeta* common = PyArray_PromoteDTypeSequence(2, inputs);
    if (common == nullptr) return -1;
    new_op_dtypes[0] = new_dtype_ref(common);
    new_op_dtypes[1] = new_dtype_ref(common);
    for (int i = 2; i < u->nargs; i++) new_op_dtypes[i] = new_dtype_ref(signature[i]);
    Py_DECREF(common);
    return 0;
}

int add_mixed_promoters(PyObject* ufunc) {
    PyObject* ints = reinterpret_cast<PyObject*>(&g_int_abstract_dtype);
    PyObject* formats = reinterpret_cast<PyObject*>(&g_abstract_dtype);
    const size_t nargs = static_cast<size_t>(reinterpret_cast<PyUFuncObject*>(ufunc)->nargs);
    // NumPy walks the registered promoters in registration order and gives up
    // at the first two that tie, so these keys naming both must be registered
    // before the formats' (None, MinifloatDType): module.cpp builds the
    // integers before the formats' ufunc loops.
    for (std::vector<PyObject*> pattern : {std::vector<PyObject*>{ints, formats}, std::vector<PyObject*>{formats, ints}}) {
        pattern.resize(nargs, Py_None);
        if (add_promoter(ufunc, pattern, mixed_with_formats_promoter) < 0) return -1;
    }
    return 0;
}

int add_stand_in_promoters() {
    PyObject* umath = PyImport_ImportModule("numpy._core.umath");
    if (umath == nullptr) return -1;
    PyObject* names = PyObject_Dir(umath);
    if (names == nullptr) {
        Py_DECREF(umath);
        return -1;
    }
    int status = 0;
    std::set<PyObject*> done;  // the module has aliases (conj, conjugate)
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(names) && status == 0; k++) {
        PyObject* value = PyObject_GetAttr(umath, PyList_GET_ITEM(names, k));
        if (value == nullptr) {
            status = -1;
            break;
        }
        if (PyObject_TypeCheck(value, &PyUFunc_Type) && done.insert(value).second) {
            const PyUFuncObject* u = reinterpret_cast<PyUFuncObject*>(value);
            const bool skip = u->nin < 1 || u->nin > 3 || ufuncs_with_int_loops().count(value) > 0;
            if (!skip) status = add_promoters(value, stand_in_promoter);
            if (status == 0 && u->nin == 2 && u->core_enabled == 0) status = add_mixed_promoters(value);
        }
        Py_DECREF(value);
    }
    Py_DECREF(names);
    Py_DECREF(umath);
    return status;
}

template <size_t... Index>
int register_types(std::index_sequence<Index...>) {
    const int statuses[] = {register_type<static_cast<int>(Index)>()...};
    for (int status : statuses) {
        if (status < 0) return -1;
    }
    return 0;
}

}  // namespace

int init_int_ufuncs() {
    fill_division_tables();
    fill_power_tables();
    if (register_types(std::make_index_sequence<kIntFormatCount>{}) < 0) return -1;
    const char* widening[] = {"add", "multiply"};
    const char* sharing[] = {"subtract", "power", "bitwise_and", "bitwise_or", "bitwise_xor",
                             "minimum", "maximum", "fmin", "fmax", "left_shift", "right_shift",
                             "floor_divide", "remainder", "fmod", "divmod", "negative", "positive",
                             "absolute", "sign", "invert", "square"};
    // logical_* keep NumPy's own promoter (everything to bool), which a
    // second one keyed on IntegerDType would make ambiguous (x.any()).
    const char* fixed_output[] = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
                                  "isnan",
                                  "isinf", "isfinite", "true_divide", "matmul"};
    struct Family {
        const char* const* names;
        size_t count;
        PyArrayMethod_PromoterFunction* promoter;
    };
    const Family families[] = {
        {widening, sizeof widening / sizeof *widening, promoter<OutputRule::widens_reductions>},
        {sharing, sizeof sharing / sizeof *sharing, promoter<OutputRule::common_type>},
        {fixed_output, sizeof fixed_output / sizeof *fixed_output, promoter<OutputRule::fixed_by_loop>},
    };
    if (add_stand_in_promoters() < 0) return -1;
    for (const Family& family : families) {
        for (size_t k = 0; k < family.count; k++) {
            PyObject* u = numpy_ufunc_named(family.names[k]);
            if (u == nullptr) return -1;
            const int status = add_promoters(u, family.promoter);
            Py_DECREF(u);
            if (status < 0) return -1;
        }
    }
    return 0;
}

}  // namespace minifloat
