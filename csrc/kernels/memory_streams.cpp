#include "memory_streams.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

namespace minifloat {

namespace {

unsigned shift_for(unsigned long streams) {
    unsigned shift = 0;
    while (shift < 3 && (2ul << shift) <= streams) shift++;
    return shift;
}

std::atomic<unsigned>& stream_shift() {
    static std::atomic<unsigned> shift{[] {
        const char* value = std::getenv("MINIFLOAT_MEMORY_STREAMS");
        if (value == nullptr || *value == '\0') return 0u;
        return shift_for(std::strtoul(value, nullptr, 10));
    }()};
    return shift;
}

// The largest "size" of /sys/devices/system/cpu/cpu0/cache/index*/ (Linux);
// 0 when there is none.
size_t largest_cache_in_sysfs() {
    size_t largest = 0;
    for (int index = 0; index < 8; index++) {
        char path[80];
        std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
        std::FILE* file = std::fopen(path, "r");
        if (file == nullptr) continue;
        unsigned long value = 0;
        char unit = 0;
        const int fields = std::fscanf(file, "%lu%c", &value, &unit);
        std::fclose(file);
        if (fields < 1) continue;
        const size_t bytes = value << (unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0);
        if (bytes > largest) largest = bytes;
    }
    return largest;
}

// The kernel's view first: glibc's sysconf computes the level-3 size from
// CPUID, which in a VM can describe the host (an AMD EPYC VM with 32 MiB of
// L3 got 384 MiB, the host's twelve caches).
size_t read_last_level_cache_bytes() {
    const size_t from_sysfs = largest_cache_in_sysfs();
    if (from_sysfs != 0) return from_sysfs;
#if defined(_SC_LEVEL3_CACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
    for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
        const long bytes = sysconf(name);
        if (bytes > 0) return static_cast<size_t>(bytes);
    }
#endif
    return size_t{32} << 20;
}

std::atomic<size_t>& beyond_cache_setting() {
    static std::atomic<size_t> bytes{0};  // 0: the last-level cache's size
    return bytes;
}

}  // namespace

size_t last_level_cache_bytes() {
    static const size_t bytes = read_last_level_cache_bytes();
    return bytes;
}

size_t beyond_cache_bytes() {
    const size_t set = beyond_cache_setting().load(std::memory_order_relaxed);
    return set != 0 ? set : last_level_cache_bytes();
}

size_t set_beyond_cache_bytes(size_t bytes) {
    return beyond_cache_setting().exchange(bytes, std::memory_order_relaxed);
}

unsigned memory_stream_shift() { return stream_shift().load(std::memory_order_relaxed); }

unsigned set_memory_streams(unsigned streams) {
    return 1u << stream_shift().exchange(shift_for(streams), std::memory_order_relaxed);
}

namespace {
thread_local size_t t_operation_length = 0;
}  // namespace

OperationLengthScope::OperationLengthScope(size_t elements) : previous_(t_operation_length) {
    t_operation_length = elements;
}
OperationLengthScope::~OperationLengthScope() { t_operation_length = previous_; }

bool operation_beyond_cache(size_t n, size_t bytes_per_element) {
    return beyond_cache((n > t_operation_length ? n : t_operation_length) * bytes_per_element);
}

bool prefetches(size_t n, size_t bytes_per_element) {
    return memory_stream_shift() == 0 && operation_beyond_cache(n, bytes_per_element);
}

StreamParts stream_parts(size_t start, size_t end, size_t block, size_t bytes_per_element) {
    StreamParts parts;
    parts.start = start;
    const size_t blocks = end > start ? (end - start) / block : 0;
    parts.length = blocks * block;
    if (!operation_beyond_cache(parts.length, bytes_per_element)) return parts;
    const unsigned shift = memory_stream_shift();
    parts.prefetch = shift == 0;
    parts.streams = 1u << shift;
    parts.length = (blocks >> shift) * block;
    return parts;
}

}  // namespace minifloat
