// Scratch arrays that the threads fill (the float32 operands of matrix
// products): not zeroed first on the calling thread, as std::vector would,
// and asking for huge pages where the OS offers them on request (Linux's
// transparent huge pages in "madvise" mode, which NumPy asks for its own
// large arrays too): a new 16 MB operand then takes a few page faults, not
// 4096 (a float8 2048x2048 matmul on one thread of a Zen 5 VM: 170 -> 148
// ms, against 140 for NumPy's float32 product that it calls).
#pragma once

#include <cstddef>
#include <memory>

#include "cache_line.h"

namespace minifloat {

// Advice only: the pages behave the same whether or not it is taken.
void advise_huge_pages(void* data, size_t bytes);

template <class T>
std::unique_ptr<T[]> unfilled_array(size_t n) {
    std::unique_ptr<T[]> array(new T[n]);
    advise_huge_pages(array.get(), n * sizeof(T));
    return array;
}

// Unfilled scratch whose `data` starts a 64-byte cache line (`new` gives
// 16 bytes): the matrix tiles load whole lines of their panels per step,
// and a panel 16 bytes off a line splits one load in three (AVX2) or every
// load (AVX-512) over two lines.
template <class T>
struct LineAlignedArray {
    std::unique_ptr<T[]> storage;
    T* data;
};

template <class T>
LineAlignedArray<T> line_aligned_array(size_t n) {
    constexpr size_t kSlack = 64 / sizeof(T);
    LineAlignedArray<T> array{unfilled_array<T>(n + kSlack), nullptr};
    array.data = array.storage.get() + elements_before_cache_line(array.storage.get(), kSlack);
    return array;
}

}  // namespace minifloat
