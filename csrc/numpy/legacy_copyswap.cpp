#include "legacy_copyswap.h"

#include <cstring>

namespace minifloat {

namespace {

// One element of `Bytes` bytes in parts of `Part`; a swap reverses each
// part's bytes (a no-op for the one-byte types, whose "byte order" is '|').
template <int Bytes, int Part>
void swap_in_place(char* p) {
    for (int at = 0; at < Bytes; at += Part) {
        for (int i = 0; i < Part / 2; i++) {
            const char t = p[at + i];
            p[at + i] = p[at + Part - 1 - i];
            p[at + Part - 1 - i] = t;
        }
    }
}

template <int Bytes, int Part>
void copyswap(void* dest, void* src, int swap, void*) {
    // src == NULL means: swap dest where it is.
    if (src != nullptr) std::memmove(dest, src, Bytes);
    if (swap) swap_in_place<Bytes, Part>(static_cast<char*>(dest));
}

template <int Bytes, int Part>
void copyswapn(void* dest, npy_intp dest_stride, void* src, npy_intp src_stride, npy_intp n,
               int swap, void*) {
    char* d = static_cast<char*>(dest);
    const char* s = static_cast<const char*>(src);
    for (npy_intp i = 0; i < n; i++, d += dest_stride) {
        if (s != nullptr) {
            std::memmove(d, s, Bytes);
            s += src_stride;
        }
        if (swap) swap_in_place<Bytes, Part>(d);
    }
}

template <int Bytes, int Part>
void install(PyArray_ArrFuncs* functions) {
    functions->copyswap = copyswap<Bytes, Part>;
    functions->copyswapn = copyswapn<Bytes, Part>;
}

}  // namespace

int install_copyswap(PyArray_Descr* descr, int storage_bytes, int part_bytes) {
    PyArray_ArrFuncs* functions = PyDataType_GetArrFuncs(descr);
    if (functions == nullptr) {
        PyErr_SetString(PyExc_RuntimeError, "minifloat: NumPy gave no array functions table");
        return -1;
    }
    if (storage_bytes == 1 && part_bytes == 1) {
        install<1, 1>(functions);
    } else if (storage_bytes == 2 && part_bytes == 2) {
        install<2, 2>(functions);
    } else if (storage_bytes == 4 && part_bytes == 2) {  // the complex types
        install<4, 2>(functions);
    } else {
        PyErr_Format(PyExc_RuntimeError, "minifloat: no copyswap for %d-byte elements in %d-byte parts",
                     storage_bytes, part_bytes);
        return -1;
    }
    return 0;
}

}  // namespace minifloat
