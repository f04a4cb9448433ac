#include "arith_avx2.h"

#include <cstring>

#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_AVX512_KERNELS

#include "codec_avx2_vectors.h"

namespace minifloat {

namespace {

using namespace avx2_codec;

// 8 float32 values of one operand from codes i..i+7 (a broadcast operand:
// its one code); lanes past `live` hold 1.0, which no op raises a flag on.
MINIFLOAT_AVX2_CODEC inline __m256 operand8(const DecodeVectors& v, const uint8_t* p, bool broadcast, size_t i,
                                            size_t live) {
    __m256i codes;
    if (broadcast) {
        codes = _mm256_set1_epi32(*p);
    } else if (live >= 8) {
        codes = load8_codes(p + i);
    } else {
        uint8_t padded[8] = {};
        std::memcpy(padded, p + i, live);
        codes = load8_codes(padded);
    }
    const __m256 x = _mm256_castsi256_ps(decode8(v, codes));
    if (live >= 8) return x;
    const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256 alive = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(live)), index));
    return _mm256_blendv_ps(_mm256_set1_ps(1.0f), x, alive);
}

template <BinaryOp Op>
MINIFLOAT_AVX2_CODEC inline __m256 combine8(__m256 x, __m256 y) {
    __m256 r;
    if constexpr (Op == BinaryOp::add) r = _mm256_add_ps(x, y);
    if constexpr (Op == BinaryOp::subtract) r = _mm256_sub_ps(x, y);
    if constexpr (Op == BinaryOp::multiply) r = _mm256_mul_ps(x, y);
    if constexpr (Op == BinaryOp::divide) r = _mm256_div_ps(x, y);
    // a NaN operand is the result, the first one when both are (quiet
    // compares: no FP exceptions)
    r = _mm256_blendv_ps(r, y, _mm256_cmp_ps(y, y, _CMP_UNORD_Q));
    return _mm256_blendv_ps(r, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

template <BinaryOp Op>
MINIFLOAT_AVX2_CODEC void binary_u8(const DecodePlan& decode,
                                    const FastConstants<uint32_t, float>& k, const uint8_t* a, bool a_broadcast,
                                    const uint8_t* b, bool b_broadcast, uint8_t* out, size_t n, uint32_t& flags) {
    const DecodeVectors dv = decode_vectors(decode);
    const EncodeVectors ev = encode_vectors<Rounding::nearest_even>(k);
    SpecialLanes seen;
    for (size_t i = 0; i < n; i += 32) {
        const size_t live = n - i < 32 ? n - i : 32;
        __m256i u[4], c[4];
        __m256i special = _mm256_setzero_si256();
        for (int q = 0; q < 4; q++) {
            const size_t offset = 8 * static_cast<size_t>(q);
            const size_t lane_live = live > offset ? live - offset : 0;
            u[q] = _mm256_castps_si256(combine8<Op>(operand8(dv, a, a_broadcast, i + offset, lane_live),
                                                    operand8(dv, b, b_broadcast, i + offset, lane_live)));
            c[q] = encode8<Rounding::nearest_even>(ev, u[q], special);
        }
        if (!_mm256_testz_si256(special, special)) {  // overflow, inf or NaN among them
            for (int q = 0; q < 4; q++) c[q] = fix_special8<Rounding::nearest_even>(ev, u[q], c[q], seen);
        }
        const __m256i codes = pack32(c[0], c[1], c[2], c[3]);
        if (live == 32) {
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), codes);
        } else {
            alignas(32) uint8_t last[32];
            _mm256_store_si256(reinterpret_cast<__m256i*>(last), codes);
            std::memcpy(out + i, last, live);
        }
    }
    flags |= special_flags(k, seen);
}

}  // namespace

bool binary_u8_avx2(BinaryOp op, const DecodePlan& decode, const FastConstants<uint32_t, float>& k,
                    const uint8_t* a, bool a_broadcast, const uint8_t* b,
                    bool b_broadcast, uint8_t* out, size_t n, uint32_t& flags) {
    if (!avx2_usable() || decode.storage_bytes != 1 || decode.exponent_only) return false;
    switch (op) {
        case BinaryOp::add:
            binary_u8<BinaryOp::add>(decode, k, a, a_broadcast, b, b_broadcast, out, n, flags);
            return true;
        case BinaryOp::subtract:
            binary_u8<BinaryOp::subtract>(decode, k, a, a_broadcast, b, b_broadcast, out, n, flags);
            return true;
        case BinaryOp::multiply:
            binary_u8<BinaryOp::multiply>(decode, k, a, a_broadcast, b, b_broadcast, out, n, flags);
            return true;
        case BinaryOp::divide:
            binary_u8<BinaryOp::divide>(decode, k, a, a_broadcast, b, b_broadcast, out, n, flags);
            return true;
        default: return false;
    }
}

}  // namespace minifloat

#else

namespace minifloat {
bool binary_u8_avx2(BinaryOp, const DecodePlan&, const FastConstants<uint32_t, float>&,
                    const uint8_t*, bool, const uint8_t*, bool, uint8_t*, size_t, uint32_t&) {
    return false;
}
}  // namespace minifloat

#endif
