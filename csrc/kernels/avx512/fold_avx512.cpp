// AVX-512 VBMI path of fold_codes.h: 64 codes a time are decoded by two
// byte-table permutes into the upper halves of 64 floats (all 8-bit
// formats' float32 values have zero lower halves) and folded into four
// vectors of 16 lanes.
#include "fold_codes.h"

#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#include "byte_lookup_avx512.h"

namespace minifloat {

namespace {

static_assert(kFoldLanes == 64, "one group of codes is one 64-byte vector");

// LowBytes: formats with values below float32's normals, whose lower
// halves come from two more tables (DecodePlan::has_low_byte_tables).
template <BinaryOp Op, bool LowBytes>
MINIFLOAT_BYTE_LOOKUP size_t fold_groups(const DecodePlan& plan, const uint8_t* in, size_t n, float* lanes) {
    const ByteTable byte2s = load_table(plan.byte2);
    const ByteTable byte3s = load_table(plan.byte3);
    ByteTable byte0s{}, byte1s{};
    if constexpr (LowBytes) {
        byte0s = load_table(plan.byte0);
        byte1s = load_table(plan.byte1);
    }
    __m512i pattern[4];
    upper_halves_patterns(pattern);
    __m512 acc[4];
    for (int q = 0; q < 4; q++) acc[q] = _mm512_loadu_ps(lanes + 16 * q);
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const __m512i codes = _mm512_loadu_si512(in + i);
        const __m512i b2 = lookup64(byte2s, codes);
        const __m512i b3 = lookup64(byte3s, codes);
        __m512i b0 = b2, b1 = b3;
        if constexpr (LowBytes) {
            b0 = lookup64(byte0s, codes);
            b1 = lookup64(byte1s, codes);
        }
        for (int q = 0; q < 4; q++) {
            const __m512 value = LowBytes ? floats_from_four_bytes(b0, b1, b2, pattern[q], b3)
                                          : floats_from_upper_halves(b2, pattern[q], b3);
            acc[q] = Op == BinaryOp::add ? _mm512_add_ps(acc[q], value) : _mm512_mul_ps(acc[q], value);
        }
    }
    for (int q = 0; q < 4; q++) _mm512_storeu_ps(lanes + 16 * q, acc[q]);
    return i;
}

}  // namespace

size_t fold_u8_codes_avx512(BinaryOp op, const DecodePlan& plan, const uint8_t* in, size_t n, float* lanes) {
    if (!(plan.has_byte_tables || plan.has_low_byte_tables) || !avx512_vbmi_usable()) return 0;
    if (plan.has_low_byte_tables) {
        if (op == BinaryOp::add) return fold_groups<BinaryOp::add, true>(plan, in, n, lanes);
        if (op == BinaryOp::multiply) return fold_groups<BinaryOp::multiply, true>(plan, in, n, lanes);
        return 0;
    }
    if (op == BinaryOp::add) return fold_groups<BinaryOp::add, false>(plan, in, n, lanes);
    if (op == BinaryOp::multiply) return fold_groups<BinaryOp::multiply, false>(plan, in, n, lanes);
    return 0;
}

}  // namespace minifloat

#else

namespace minifloat {
size_t fold_u8_codes_avx512(BinaryOp, const DecodePlan&, const uint8_t*, size_t, float*) { return 0; }
}  // namespace minifloat

#endif
