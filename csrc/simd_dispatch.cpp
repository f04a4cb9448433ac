#include "simd_dispatch.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace minifloat {

namespace {

bool enabled_by_environment() {
    const char* value = std::getenv("MINIFLOAT_DISABLE_AVX512");
    return value == nullptr || std::strcmp(value, "") == 0 || std::strcmp(value, "0") == 0;
}

std::atomic<bool>& enabled_flag() {
    static std::atomic<bool> flag{enabled_by_environment()};
    return flag;
}

}  // namespace

bool avx512_kernels_enabled() { return enabled_flag().load(std::memory_order_relaxed); }

void set_avx512_kernels_enabled(bool enabled) { enabled_flag().store(enabled, std::memory_order_relaxed); }

#ifdef MINIFLOAT_HAVE_AVX512_KERNELS
bool avx512_bw_usable() {
    static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                            __builtin_cpu_supports("avx512vl");
    return has && avx512_kernels_enabled();
}

bool avx512_vbmi_usable() {
    static const bool has = __builtin_cpu_supports("avx512vbmi");
    return has && avx512_bw_usable();
}
#else
bool avx512_bw_usable() { return false; }
bool avx512_vbmi_usable() { return false; }
#endif

}  // namespace minifloat
