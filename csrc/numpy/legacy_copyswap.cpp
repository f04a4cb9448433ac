#include "legacy_copyswap.h"

#include <cstring>

namespace minifloat {

namespace {

// One element of `Bytes` bytes; a swap reverses its bytes (a no-op for the
// one-byte formats, whose "byte order" is '|').
template <int Bytes>
void swap_in_place(char* p) {
    for (int i = 0; i < Bytes / 2; i++) {
        const char t = p[i];
        p[i] = p[Bytes - 1 - i];
        p[Bytes - 1 - i] = t;
    }
}

template <int Bytes>
void copyswap(void* dest, void* src, int swap, void*) {
    // src == NULL means: swap dest where it is.
    if (src != nullptr) std::memmove(dest, src, Bytes);
    if (swap) swap_in_place<Bytes>(static_cast<char*>(dest));
}

template <int Bytes>
void copyswapn(void* dest, npy_intp dest_stride, void* src, npy_intp src_stride, npy_intp n,
               int swap, void*) {
    char* d = static_cast<char*>(dest);
    const char* s = static_cast<const char*>(src);
    for (npy_intp i = 0; i < n; i++, d += dest_stride) {
        if (s != nullptr) {
            std::memmove(d, s, Bytes);
            s += src_stride;
        }
        if (swap) swap_in_place<Bytes>(d);
    }
}

}  // namespace

int install_copyswap(PyArray_Descr* descr, int storage_bytes) {
    PyArray_ArrFuncs* functions = PyDataType_GetArrFuncs(descr);
    if (functions == nullptr) {
        PyErr_SetString(PyExc_RuntimeError, "minifloat: NumPy gave no array functions table");
        return -1;
    }
    if (storage_bytes == 1) {
        functions->copyswap = copyswap<1>;
        functions->copyswapn = copyswapn<1>;
    } else if (storage_bytes == 2) {
        functions->copyswap = copyswap<2>;
        functions->copyswapn = copyswapn<2>;
    } else {
        PyErr_Format(PyExc_RuntimeError, "minifloat: no copyswap for %d-byte elements",
                     storage_bytes);
        return -1;
    }
    return 0;
}

}  // namespace minifloat
