#include "scalar_elements.h"

#include <cstddef>
#include <cstring>

#include "decode_blocks.h"
#include "registry.h"

namespace minifloat {

static_assert(offsetof(MinifloatScalar, storage) == sizeof(PyObject),
              "NumPy copies a scalar's element right after the object header");

namespace {

void swap_two_bytes(char* p) {
    const char first = p[0];
    p[0] = p[1];
    p[1] = first;
}

// NumPy's copyswap: copy one element (none when src is null) and swap its
// bytes when asked.
template <int Bytes>
void copy_swap_one(void* dest, void* src, int swap, void*) {
    if (src != nullptr) std::memcpy(dest, src, Bytes);
    if (Bytes == 2 && swap) swap_two_bytes(static_cast<char*>(dest));
}

// NumPy's copyswapn: the same over n strided elements.
template <int Bytes>
void copy_swap_many(void* dest, npy_intp dest_stride, void* src, npy_intp src_stride, npy_intp n, int swap,
                    void*) {
    char* out = static_cast<char*>(dest);
    const char* in = static_cast<const char*>(src);
    for (npy_intp i = 0; i < n; i++, out += dest_stride) {
        if (in != nullptr) {
            std::memmove(out, in, Bytes);
            in += src_stride;
        }
        if (Bytes == 2 && swap) swap_two_bytes(out);
    }
}

}  // namespace

PyObject* element_as_python_float(PyArray_Descr* descr, char* data) {
    const FormatRuntime& rt = runtime_of(descr);
    return PyFloat_FromDouble(rt.decode_f64[load_code(rt, data)]);
}

int build_scalars_by_copy(int index) {
    FormatRuntime& rt = runtime(index);
    PyArray_Descr* descr = &rt.descr->base;
    PyArray_ArrFuncs* functions = PyDataType_GetArrFuncs(descr);
    if (functions == nullptr) return -1;
    if (rt.format.storage_bytes == 1) {
        functions->copyswap = copy_swap_one<1>;
        functions->copyswapn = copy_swap_many<1>;
    } else {
        functions->copyswap = copy_swap_one<2>;
        functions->copyswapn = copy_swap_many<2>;
    }
    descr->flags &= ~static_cast<npy_uint64>(NPY_USE_GETITEM);
    return 0;
}

}  // namespace minifloat
