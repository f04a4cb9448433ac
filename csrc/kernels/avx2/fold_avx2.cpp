// AVX2 path of fold_codes.h: 64 codes a time are decoded 8 at a time by
// the arithmetic decoder of codec_avx2_vectors.h and folded into eight
// vectors of 8 lanes.
#include "fold_codes.h"

#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#include "codec_avx2_vectors.h"

namespace minifloat {

namespace {

using namespace avx2_codec;

static_assert(kFoldLanes == 64, "one group of codes is eight vectors of 8");

// acc op= the float32 of `bits`.
template <BinaryOp Op>
MINIFLOAT_AVX2_INLINE void fold_into(__m256& acc, __m256i bits) {
    const __m256 value = _mm256_castsi256_ps(bits);
    acc = Op == BinaryOp::add ? _mm256_add_ps(acc, value) : _mm256_mul_ps(acc, value);
}

template <BinaryOp Op, bool ExponentOnly>
MINIFLOAT_AVX2_CODEC size_t fold_groups(const DecodePlan& plan, const uint8_t* in, size_t n, float* lanes) {
    const DecodeVectors v = decode_vectors(plan);
    __m256 acc[8];
    for (int q = 0; q < 8; q++) acc[q] = _mm256_loadu_ps(lanes + 8 * q);
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        if (!needs_special_decode32<ExponentOnly>(v, in + i) && !needs_special_decode32<ExponentOnly>(v, in + i + 32)) {
            for (int q = 0; q < 8; q++) fold_into<Op>(acc[q], decode8_from<ExponentOnly, false>(v, in + i + 8 * q));
        } else {
            for (int q = 0; q < 8; q++) fold_into<Op>(acc[q], decode8_from<ExponentOnly>(v, in + i + 8 * q));
        }
    }
    for (int q = 0; q < 8; q++) _mm256_storeu_ps(lanes + 8 * q, acc[q]);
    return i;
}

template <BinaryOp Op>
MINIFLOAT_AVX2_CODEC size_t fold_any(const DecodePlan& plan, const uint8_t* in, size_t n, float* lanes) {
    switch (plan.kind) {
        case DecodeKind::e8m0: return fold_groups<Op, true>(plan, in, n, lanes);
        case DecodeKind::sign_magnitude: return fold_groups<Op, false>(plan, in, n, lanes);
        case DecodeKind::float32_upper_half:
        case DecodeKind::table: return 0;  // not an arithmetic 8-bit decode: the caller folds
    }
    return 0;
}

}  // namespace

size_t fold_u8_codes_avx2(BinaryOp op, const DecodePlan& plan, const uint8_t* in, size_t n, float* lanes) {
    if (plan.storage_bytes != 1 || !avx2_usable()) return 0;
    if (op == BinaryOp::add) return fold_any<BinaryOp::add>(plan, in, n, lanes);
    if (op == BinaryOp::multiply) return fold_any<BinaryOp::multiply>(plan, in, n, lanes);
    return 0;
}

}  // namespace minifloat

#else

namespace minifloat {
size_t fold_u8_codes_avx2(BinaryOp, const DecodePlan&, const uint8_t*, size_t, float*) { return 0; }
}  // namespace minifloat

#endif
