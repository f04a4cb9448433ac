// AVX2 path of fold_codes.h: 64 codes a time are decoded 8 at a time by
// the arithmetic decoder of codec_avx2_vectors.h and folded into eight
// vectors of 8 lanes.
#include "fold_codes.h"

#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_AVX512_KERNELS
#include "codec_avx2_vectors.h"

namespace minifloat {

namespace {

using namespace avx2_codec;

static_assert(kFoldLanes == 64, "one group of codes is eight vectors of 8");

// Whether any of 64 float8_e8m0fnu codes is 0 (2^-127, a float32
// subnormal) or 255 (NaN): the two a shift into float32's exponent field
// does not decode. (code + 1) wraps 255 to 0, so min(code, code + 1) is 0
// exactly for those two.
MINIFLOAT_AVX2_CODEC inline bool any_edge_exponent(const uint8_t* in) {
    const __m256i one = _mm256_set1_epi8(1);
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + 32));
    const __m256i low = _mm256_min_epu8(_mm256_min_epu8(a, _mm256_add_epi8(a, one)),
                                        _mm256_min_epu8(b, _mm256_add_epi8(b, one)));
    const __m256i edge = _mm256_cmpeq_epi8(low, _mm256_setzero_si256());
    return !_mm256_testz_si256(edge, edge);
}

template <BinaryOp Op, bool ExponentOnly>
MINIFLOAT_AVX2_CODEC size_t fold_groups(const DecodePlan& plan, const uint8_t* in, size_t n, float* lanes) {
    const DecodeVectors v = decode_vectors(plan);
    __m256 acc[8];
    for (int q = 0; q < 8; q++) acc[q] = _mm256_loadu_ps(lanes + 8 * q);
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        if (ExponentOnly && !any_edge_exponent(in + i)) {  // every code is 2^(code - 127), a normal float32
            for (int q = 0; q < 8; q++) {
                const __m256 value = _mm256_castsi256_ps(_mm256_slli_epi32(load8_codes(in + i + 8 * q), 23));
                acc[q] = Op == BinaryOp::add ? _mm256_add_ps(acc[q], value) : _mm256_mul_ps(acc[q], value);
            }
            continue;
        }
        if (!ExponentOnly && !any_special_code32(v, in + i) && !any_special_code32(v, in + i + 32)) {
            for (int q = 0; q < 8; q++) {  // no infinity or NaN among these 64 codes
                const __m256 value = _mm256_castsi256_ps(decode8<false>(v, load8_codes(in + i + 8 * q)));
                acc[q] = Op == BinaryOp::add ? _mm256_add_ps(acc[q], value) : _mm256_mul_ps(acc[q], value);
            }
            continue;
        }
        for (int q = 0; q < 8; q++) {
            const __m256i codes = load8_codes(in + i + 8 * q);
            const __m256 value = _mm256_castsi256_ps(ExponentOnly ? decode8_e8m0(codes) : decode8(v, codes));
            acc[q] = Op == BinaryOp::add ? _mm256_add_ps(acc[q], value) : _mm256_mul_ps(acc[q], value);
        }
    }
    for (int q = 0; q < 8; q++) _mm256_storeu_ps(lanes + 8 * q, acc[q]);
    return i;
}

template <BinaryOp Op>
MINIFLOAT_AVX2_CODEC size_t fold_any(const DecodePlan& plan, const uint8_t* in, size_t n, float* lanes) {
    return plan.exponent_only ? fold_groups<Op, true>(plan, in, n, lanes) : fold_groups<Op, false>(plan, in, n, lanes);
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
