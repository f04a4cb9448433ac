#include "pair_kernel_choice.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "arith_avx512.h"
#include "lookup_kernels.h"
#include "op_eval.h"
#include "once_value.h"
#include "op_tables.h"
#include "registry.h"

namespace minifloat {

namespace {

// The best time of each of two callables, measured in alternating rounds:
// a burst of other work on the machine (a VM neighbour, another process)
// then slows both kernels' rounds alike instead of all of one kernel's.
template <class RunA, class RunB>
void best_seconds_alternating(RunA&& run_a, RunB&& run_b, int rounds, double& best_a, double& best_b) {
    best_a = best_b = 1e30;
    const auto time_one = [](auto& run, double& best) {
        const auto start = std::chrono::steady_clock::now();
        run();
        const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - start;
        best = std::min(best, spent.count());
    };
    for (int r = 0; r < rounds; r++) {
        time_one(run_a, best_a);
        time_one(run_b, best_b);
    }
}

// The measurement's format: the most used one, whose kernels stand for all.
const FormatRuntime* measured_format() {
    const int format = format_index_of_name("float8_e4m3fn");
    return format < 0 ? nullptr : &runtime(format);
}

bool both_kernels_usable() {
    const FormatRuntime* rt = measured_format();
    return rt != nullptr && fused_u8_arith_serves(rt->decode_plan) && pair_lookups_vectorized();
}

bool measure_gathers_faster() {
    if (!both_kernels_usable()) return false;
    const FormatRuntime& rt = *measured_format();
    const int format = rt.format.index;
    constexpr size_t kCodes = size_t{1} << 18;
    std::vector<uint8_t> a(kCodes), b(kCodes), out(kCodes);
    uint32_t state = 12345;  // a fixed linear congruential sequence: the same inputs every process
    for (size_t i = 0; i < kCodes; i++) {
        state = state * 1664525u + 1013904223u;
        a[i] = static_cast<uint8_t>(state >> 24);
        b[i] = static_cast<uint8_t>(state >> 16);
    }
    const uint16_t* table = binary_table(format, BinaryOp::multiply);
    FpFlagScope scope;  // the kernels' FP flags (overflow, NaN inputs) are not the caller's
    double fused = 0, gathers = 0;
    best_seconds_alternating(
        [&] {
            uint32_t flags = 0;
            binary_u8_avx512(BinaryOp::multiply, rt.decode_plan, rt.default_plan.fast32, a.data(), false, b.data(),
                             false, out.data(), kCodes, flags);
        },
        [&] { lookup_pairs(table, a.data(), b.data(), out.data(), kCodes); }, 9, fused, gathers);
    // by a clear margin only, so that a noisy measurement keeps the kernel
    // that needs no table
    return gathers < 0.8 * fused;
}

bool choose_gathers() {
    const char* forced = std::getenv("MINIFLOAT_PAIR_KERNEL");
    if (forced != nullptr && std::strcmp(forced, "fused") == 0) return false;
    if (forced != nullptr && std::strcmp(forced, "gathers") == 0) return both_kernels_usable();
    return measure_gathers_faster();
}

OnceValue<bool> g_gathers;

}  // namespace

bool pair_choice_made() { return g_gathers.made(); }

bool pair_gathers_beat_fused() {
    return g_gathers.get([](bool& gathers) { gathers = choose_gathers(); });
}

}  // namespace minifloat
