// DType classes of the sub-byte integers: the abstract minifloat.IntegerDType
// (promoters are keyed on it) and one concrete class per type, kind 'i'/'u',
// with promotion by exact range and the legacy array functions NumPy's
// sort, argmax, nonzero, fill and dot paths call.
#include <type_traits>
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "cast_specs.h"
#include "dtype_core.h"
#include "int_types.h"
#include "promotion.h"
#include "scalar_elements.h"

namespace minifloat {

PyArray_DTypeMeta g_int_abstract_dtype{};

namespace {

// ---- promotion by exact range ------------------------------------------

struct Range {
    long long min;
    unsigned long long max;
};

// The value range of a bool/integer DType (ours or NumPy's); false otherwise.
bool integer_range_of(PyArray_DTypeMeta* cls, Range* r) {
    const int own = int_index_of_dtype_class(cls);
    if (own >= 0) {
        *r = {int_runtime(own).min, static_cast<unsigned long long>(int_runtime(own).max)};
        return true;
    }
    if (cls == &PyArray_PyLongDType) return false;
    const int num = cls->type_num;
    if (num == NPY_BOOL) {
        *r = {0, 1};
        return true;
    }
    if (!PyTypeNum_ISINTEGER(num)) return false;
    PyArray_Descr* d = PyArray_DescrFromType(num);
    const int bits = static_cast<int>(d->elsize) * 8;
    Py_DECREF(d);
    if (PyTypeNum_ISUNSIGNED(num)) {
        *r = {0, bits == 64 ? ~0ull : (1ull << bits) - 1};
    } else {
        *r = {-(1ll << (bits - 1)), (1ull << (bits - 1)) - 1};
    }
    return true;
}

// The smallest integer DType holding both ranges (ours first, then NumPy's);
// new reference, or nullptr when none does (uint64 with a signed type).
PyArray_DTypeMeta* smallest_integer_holding(Range a, Range b) {
    const long long lo = std::min(a.min, b.min);
    const unsigned long long hi = std::max(a.max, b.max);
    for (int i = 0; i < kIntFormatCount; i++) {
        const IntTypeRuntime& rt = int_runtime(i);
        const bool fits = rt.min <= lo && static_cast<unsigned long long>(rt.max) >= hi;
        if (fits && rt.row->is_signed == (lo < 0)) {
            // the table lists widths in increasing order within each signedness
            return new_ref(&int_runtime(i).dtype_class);
        }
    }
    const int signed_nums[] = {NPY_INT8, NPY_INT16, NPY_INT32, NPY_INT64};
    const int unsigned_nums[] = {NPY_UINT8, NPY_UINT16, NPY_UINT32, NPY_UINT64};
    for (int k = 0; k < 4; k++) {
        const int num = lo < 0 ? signed_nums[k] : unsigned_nums[k];
        PyArray_DTypeMeta* cls = dtype_class_of_type_num(num);
        Range r{};
        integer_range_of(cls, &r);
        if (r.min <= lo && r.max >= hi) return cls;
        Py_DECREF(cls);
    }
    return nullptr;
}

bool is_text_or_time(const PyArray_DTypeMeta* d) {
    switch (d->type_num) {
        case NPY_STRING:
        case NPY_UNICODE:
        case NPY_VSTRING:
        case NPY_VOID:
        case NPY_DATETIME:
        case NPY_TIMEDELTA:
            return true;
        default:  // a number, bool, object or another library's type
            return false;
    }
}

PyArray_DTypeMeta* int_common_dtype(PyArray_DTypeMeta* cls, PyArray_DTypeMeta* other) {
    const IntTypeRuntime& rt = int_runtime(int_index_of_dtype_class(cls));
    if (other == &PyArray_PyLongDType) return new_ref(cls);  // Python ints are weak (NEP 50)
    Range mine{rt.min, static_cast<unsigned long long>(rt.max)}, theirs{};
    if (integer_range_of(other, &theirs)) {
        PyArray_DTypeMeta* result = smallest_integer_holding(mine, theirs);
        if (result != nullptr) return result;
    }
    if (other == &g_int_abstract_dtype || is_text_or_time(other)) {
        // No common type with text, bytes, dates or void: `int4(5) < "10"`
        // raises UFuncTypeError as the float formats and NumPy's int8 do in
        // a ufunc (NumPy's own result_type(int8, str) still says '<U4', a
        // legacy rule kept out of the new types on purpose).
        return not_implemented();
    }
    // Floats, complex, Python floats, the float formats and other libraries'
    // types: promote as NumPy's int8/uint8 of the same signedness does (every
    // value of ours is one of theirs), e.g. int4 + float16 -> float16.
    PyArray_DTypeMeta* stand_in = dtype_class_of_type_num(rt.row->is_signed ? NPY_INT8 : NPY_UINT8);
    PyArray_DTypeMeta* result = PyArray_CommonDType(stand_in, other);
    Py_DECREF(stand_in);
    if (result == nullptr) {
        PyErr_Clear();
        return not_implemented();
    }
    return result;
}

// ---- items -------------------------------------------------------------------

int int_setitem(PyArray_Descr* descr, PyObject* value, char* data) {
    int v = 0;
    if (int_value_from_object(int_runtime(int_index_of_descr(descr)), value, &v) < 0) return -1;
    *data = static_cast<char>(int_code_of(v));
    return 0;
}

static_assert(offsetof(IntScalar, code) == sizeof(PyObject), "NumPy copies an element right after the object header");

// item(), tolist() and astype(object): a Python int, as NumPy's int8 gives
// (indexing makes the type's scalar: build_scalars_by_copy).
PyObject* int_getitem(PyArray_Descr* descr, char* data) {
    return PyLong_FromLong(int_value_of(int_runtime(int_index_of_descr(descr)), static_cast<uint8_t>(*data)));
}

// ---- legacy array functions (sort, argsort, argmax, argmin, nonzero, fill, dot) -------

template <class T>
int compare(const void* a, const void* b, void*) {
    const T x = *static_cast<const T*>(a), y = *static_cast<const T*>(b);
    return x < y ? -1 : (x > y ? 1 : 0);
}

// Stable counting sort: 256 possible bytes.
template <class T>
int sort(void* start, npy_intp n, void*) {
    T* v = static_cast<T*>(start);
    npy_intp counts[256] = {0};
    for (npy_intp i = 0; i < n; i++) counts[static_cast<uint8_t>(v[i])]++;
    npy_intp at = 0;
    for (int k = 0; k < 256; k++) {
        const T value = static_cast<T>(static_cast<uint8_t>(std::is_signed<T>::value ? (k + 128) & 255 : k));
        const npy_intp c = counts[static_cast<uint8_t>(value)];
        for (npy_intp j = 0; j < c; j++) v[at++] = value;
    }
    return 0;
}

template <class T>
int argsort(void* start, npy_intp* order, npy_intp n, void*) {
    const T* v = static_cast<const T*>(start);
    std::stable_sort(order, order + n, [v](npy_intp a, npy_intp b) { return v[a] < v[b]; });
    return 0;
}

template <class T>
int argmax(void* data, npy_intp n, npy_intp* out, void*) {
    const T* v = static_cast<const T*>(data);
    *out = n > 0 ? std::max_element(v, v + n) - v : 0;
    return 0;
}

template <class T>
int argmin(void* data, npy_intp n, npy_intp* out, void*) {
    const T* v = static_cast<const T*>(data);
    *out = n > 0 ? std::min_element(v, v + n) - v : 0;
    return 0;
}

npy_bool nonzero(void* data, void*) { return *static_cast<const char*>(data) != 0; }

// np.arange-style fill: continues the step of the first two elements.
template <class T>
int fill(void* buffer, npy_intp length, void* arr) {
    T* v = static_cast<T*>(buffer);
    if (length < 2) return 0;
    const IntTypeRuntime& rt =
        int_runtime(int_index_of_descr(PyArray_DESCR(static_cast<PyArrayObject*>(arr))));
    const long long start = v[0], delta = static_cast<long long>(v[1]) - v[0];
    for (npy_intp i = 2; i < length; i++) {
        v[i] = static_cast<T>(wrap_to_int_type(start + i * delta, rt.row->bits, rt.row->is_signed));
    }
    return 0;
}

int fill_with_scalar(void* buffer, npy_intp length, void* value, void*) {
    std::memset(buffer, *static_cast<const unsigned char*>(value), static_cast<size_t>(length));
    return 0;
}

// np.dot's inner product: wraps to the type's width, as int8's does. The
// width is a template parameter: NumPy >= 2.5 calls this slot for new-style
// DTypes without an array (its last argument is not one to read).
template <class T, int Bits>
void dot(void* a, npy_intp stride_a, void* b, npy_intp stride_b, void* out, npy_intp n, void*) {
    const char* pa = static_cast<const char*>(a);
    const char* pb = static_cast<const char*>(b);
    long long sum = 0;
    for (npy_intp i = 0; i < n; i++, pa += stride_a, pb += stride_b) {
        sum += static_cast<long long>(*reinterpret_cast<const T*>(pa)) * *reinterpret_cast<const T*>(pb);
    }
    *static_cast<T*>(out) = static_cast<T>(wrap_to_int_type(sum, Bits, std::is_signed<T>::value));
}

template <class T>
void* dot_of_width(int bits) {
    switch (bits) {
        case 1: return reinterpret_cast<void*>(dot<T, 1>);
        case 2: return reinterpret_cast<void*>(dot<T, 2>);
        case 4: return reinterpret_cast<void*>(dot<T, 4>);
        default: return nullptr;  // no such integer type (the table has 1, 2 and 4 bits)
    }
}

template <class T>
void append_array_functions(std::vector<PyType_Slot>& slots, int bits) {
    slots.push_back({NPY_DT_PyArray_ArrFuncs_compare, reinterpret_cast<void*>(compare<T>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_sort, reinterpret_cast<void*>(sort<T>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_argsort, reinterpret_cast<void*>(argsort<T>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_argmax, reinterpret_cast<void*>(argmax<T>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_argmin, reinterpret_cast<void*>(argmin<T>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_nonzero, reinterpret_cast<void*>(nonzero)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_fill, reinterpret_cast<void*>(fill<T>)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_fillwithscalar, reinterpret_cast<void*>(fill_with_scalar)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_dotfunc, dot_of_width<T>(bits)});
}

// The sub-byte integers as a family of the DType core (dtype_core.h).
struct IntFamily {
    static constexpr const char* kAbstractName = "minifloat.IntegerDType";
    static constexpr const char* kAbstractDoc = "Abstract parent of minifloat's sub-byte integer DType classes.";
    static PyArray_DTypeMeta& abstract_dtype() { return g_int_abstract_dtype; }
    static PyTypeObject& abstract_scalar_type() { return g_int_abstract_signed_scalar; }
    static constexpr const char* kMemberDoc = "NumPy DType class of a sub-byte integer type.";
    static constexpr const char* kNameDoc = "The type's name.";
    static constexpr Py_ssize_t kDescrSize = sizeof(IntDescr);
    static constexpr CastFamily kCasts = CastFamily::integers;
    static constexpr const char* kSwapHint = "";  // one byte: never said

    static int index_of_class(const PyArray_DTypeMeta* cls) { return int_index_of_dtype_class(cls); }
    static int index_of_descr(const PyArray_Descr* descr) { return reinterpret_cast<const IntDescr*>(descr)->int_index; }
    static PyArray_DTypeMeta& dtype_class(int index) { return int_runtime(index).dtype_class; }
    static PyTypeObject& scalar_type(int index) { return int_runtime(index).scalar_type; }
    static const char* dtype_name(int index) { return int_runtime(index).dtype_name.c_str(); }
    static const char* name(int index) { return int_runtime(index).row->name; }
    static PyObject* repr(int index) { return PyUnicode_FromString(name(index)); }
    static PyObject* reduce_value(int) { return nullptr; }

    static char kind(int index) { return int_runtime(index).row->is_signed ? 'i' : 'u'; }
    static char type_char(int index) { return int_runtime(index).row->type_char; }
    static int itemsize(int) { return 1; }
    static int part_bytes(int) { return 1; }
    static void keep_singleton(int index, PyArray_Descr* descr) {
        reinterpret_cast<IntDescr*>(descr)->int_index = index;
        int_runtime(index).descr = descr;
    }
    static PyArray_Descr* singleton(int index) { return int_runtime(index).descr; }

    static PyArray_DTypeMeta* common_dtype(PyArray_DTypeMeta* cls, PyArray_DTypeMeta* other) {
        return int_common_dtype(cls, other);
    }
    static int setitem(PyArray_Descr* descr, PyObject* value, char* data) { return int_setitem(descr, value, data); }
    static PyObject* getitem(PyArray_Descr* descr, char* data) { return int_getitem(descr, data); }
    static int append_casts(int index, std::vector<PyArrayMethod_Spec*>& out) {
        append_int_cast_specs(index, out);
        return install_int_float_format_casts(index, out);
    }
    static void append_slots(int index, std::vector<PyType_Slot>& out) {
        const IntFormatRow& row = *int_runtime(index).row;
        if (row.is_signed) {
            append_array_functions<int8_t>(out, row.bits);
        } else {
            append_array_functions<uint8_t>(out, row.bits);
        }
    }
    static int finish(int, PyArray_Descr* descr) { return build_scalars_by_copy(descr); }
};

}  // namespace

int init_int_dtype_classes() {
    if (DTypeCore<IntFamily>::init_abstract() < 0) return -1;
    for (int i = 0; i < kIntFormatCount; i++) {
        if (DTypeCore<IntFamily>::init_member(i) < 0) return -1;
    }
    return 0;
}

}  // namespace minifloat
