#include "memory_streams.h"

#include <atomic>
#include <cstdlib>

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
        if (value == nullptr || *value == '\0') return 2u;
        return shift_for(std::strtoul(value, nullptr, 10));
    }()};
    return shift;
}

}  // namespace

unsigned memory_stream_shift() { return stream_shift().load(std::memory_order_relaxed); }

unsigned set_memory_streams(unsigned streams) {
    return 1u << stream_shift().exchange(shift_for(streams), std::memory_order_relaxed);
}

StreamParts stream_parts(size_t start, size_t end, size_t block, size_t widest_element_bytes) {
    StreamParts parts;
    parts.start = start;
    const size_t blocks = end > start ? (end - start) / block : 0;
    parts.length = blocks * block;
    if (parts.length * widest_element_bytes < kStreamingBytes) return parts;
    const unsigned shift = memory_stream_shift();
    parts.streams = 1u << shift;
    parts.length = (blocks >> shift) * block;
    return parts;
}

}  // namespace minifloat
