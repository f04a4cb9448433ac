#include "simd_dispatch.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace minifloat {

namespace {

bool enabled_by_environment(const char* disabling_variable) {
    const char* value = std::getenv(disabling_variable);
    return value == nullptr || std::strcmp(value, "") == 0 || std::strcmp(value, "0") == 0;
}

std::atomic<bool>& enabled_flag() {
    static std::atomic<bool> flag{enabled_by_environment("MINIFLOAT_DISABLE_AVX512")};
    return flag;
}

std::atomic<bool>& avx2_enabled_flag() {
    static std::atomic<bool> flag{enabled_by_environment("MINIFLOAT_DISABLE_AVX2")};
    return flag;
}

}  // namespace

bool avx512_kernels_enabled() { return enabled_flag().load(std::memory_order_relaxed); }

void set_avx512_kernels_enabled(bool enabled) { enabled_flag().store(enabled, std::memory_order_relaxed); }

bool avx2_kernels_enabled() { return avx2_enabled_flag().load(std::memory_order_relaxed); }

void set_avx2_kernels_enabled(bool enabled) { avx2_enabled_flag().store(enabled, std::memory_order_relaxed); }

#ifdef MINIFLOAT_HAVE_X86_KERNELS
bool cpu_has_avx512_bw() {
    static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                            __builtin_cpu_supports("avx512vl");
    return has;
}

bool cpu_has_avx512_vbmi() {
    static const bool has = cpu_has_avx512_bw() && __builtin_cpu_supports("avx512vbmi");
    return has;
}

bool cpu_has_avx2() {
    static const bool has = __builtin_cpu_supports("avx2");
    return has;
}
#else
bool cpu_has_avx512_bw() { return false; }
bool cpu_has_avx512_vbmi() { return false; }
bool cpu_has_avx2() { return false; }
#endif

bool avx512_bw_usable() { return cpu_has_avx512_bw() && avx512_kernels_enabled(); }
bool avx512_vbmi_usable() { return cpu_has_avx512_vbmi() && avx512_kernels_enabled(); }
bool avx2_usable() { return cpu_has_avx2() && avx2_kernels_enabled(); }

}  // namespace minifloat
