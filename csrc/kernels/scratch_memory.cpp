#include "scratch_memory.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace minifloat {

void advise_huge_pages(void* data, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr size_t kWorthIt = size_t{2} << 20;  // one huge page (NumPy asks from 4 MB)
    if (bytes < kWorthIt) return;
    const long page_size = sysconf(_SC_PAGESIZE);
    if (page_size <= 0) return;
    const uintptr_t page = static_cast<uintptr_t>(page_size);
    const uintptr_t first = reinterpret_cast<uintptr_t>(data);
    const uintptr_t begin = (first + page - 1) & ~(page - 1);
    const uintptr_t end = (first + bytes) & ~(page - 1);
    // (whole pages inside the array only; a refusal leaves ordinary pages)
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
    (void)data;
    (void)bytes;
#endif
}

}  // namespace minifloat
