#include "arith_avx512.h"
#include "fp_status.h"

#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#include "avx512_intrinsics.h"

#include "byte_lookup_avx512.h"
#include "codec_avx512_vectors.h"

namespace minifloat {

namespace {

using namespace avx512_encoder;

// 64 codes of one operand: loaded, or one code repeated.
MINIFLOAT_AVX512_ENCODER inline __m512i operand_codes(const uint8_t* p, bool broadcast, size_t i, __mmask64 lanes) {
    if (broadcast) return _mm512_set1_epi8(static_cast<char>(*p));
    return _mm512_maskz_loadu_epi8(lanes, p + i);
}

template <BinaryOp Op>
MINIFLOAT_AVX512_ENCODER inline __m512 combine16(__mmask16 lanes, __m512 x, __m512 y) {
    // masked-off lanes compute nothing, so raise no FP exceptions
    __m512 r;
    if constexpr (Op == BinaryOp::add) r = _mm512_maskz_add_ps(lanes, x, y);
    if constexpr (Op == BinaryOp::subtract) r = _mm512_maskz_sub_ps(lanes, x, y);
    if constexpr (Op == BinaryOp::multiply) r = _mm512_maskz_mul_ps(lanes, x, y);
    if constexpr (Op == BinaryOp::divide) r = _mm512_maskz_div_ps(lanes, x, y);
    // a NaN operand is the result, the first one when both are (quiet
    // compares: no FP exceptions)
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(y, y, _CMP_UNORD_Q), y);
    return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x);
}

template <BinaryOp Op>
MINIFLOAT_AVX512_ENCODER void binary_u8(const DecodePlan& decode, const FastConstants<uint32_t, float>& k,
                                        const uint8_t* a, bool a_broadcast, const uint8_t* b, bool b_broadcast,
                                        uint8_t* out, size_t n, uint32_t& flags) {
    const Vectors v = broadcast<Rounding::nearest_even>(k);
    const ByteTable byte2 = load_table(decode.byte2);
    const ByteTable byte3 = load_table(decode.byte3);
    __m512i pattern[4];
    upper_halves_patterns(pattern);
    const __m512i pack_pattern = low_byte_pattern();
    SpecialLanes seen;
    for (size_t i = 0; i < n; i += 64) {
        const __mmask64 lanes = n - i >= 64 ? ~__mmask64{0} : (__mmask64{1} << (n - i)) - 1;
        const __m512i ia = operand_codes(a, a_broadcast, i, lanes);
        const __m512i ib = operand_codes(b, b_broadcast, i, lanes);
        const __m512i a2 = lookup64(byte2, ia), a3 = lookup64(byte3, ia);
        const __m512i b2 = lookup64(byte2, ib), b3 = lookup64(byte3, ib);
        __m512i u[4], c[4];
        __mmask16 special = 0;
        for (int q = 0; q < 4; q++) {
            const __mmask16 quarter = static_cast<__mmask16>(lanes >> (16 * q));
            const __m512 r = combine16<Op>(quarter, floats_from_upper_halves(a2, pattern[q], a3),
                                           floats_from_upper_halves(b2, pattern[q], b3));
            u[q] = _mm512_castps_si512(r);
            c[q] = encode16<Rounding::nearest_even>(v, u[q], special);
        }
        if (special != 0) {
            for (int q = 0; q < 4; q++) c[q] = fix_special16<Rounding::nearest_even>(v, u[q], c[q], seen);
        }
        _mm512_mask_storeu_epi8(out + i, lanes, pack64(pack_pattern, c[0], c[1], c[2], c[3]));
    }
    if (seen.overflow != 0) flags |= k.overflow_flags;
    if (seen.inf != 0) flags |= k.inf_flags;
    if (seen.nan != 0) flags |= k.nan_flags;
}

}  // namespace

bool fused_u8_arith_serves(const DecodePlan& decode) {
    return decode.has_byte_tables && !decode.exponent_only && avx512_vbmi_usable();
}

bool binary_u8_avx512(BinaryOp op, const DecodePlan& decode, const FastConstants<uint32_t, float>& k,
                      const uint8_t* a, bool a_broadcast, const uint8_t* b, bool b_broadcast, uint8_t* out,
                      size_t n, uint32_t& flags) {
    if (!fused_u8_arith_serves(decode)) return false;
    DefaultFpuModeScope default_modes;  // the encoder rounds the subnormal range by the FPU
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
        default:
            return false;
    }
}

}  // namespace minifloat

#else

namespace minifloat {
bool fused_u8_arith_serves(const DecodePlan&) { return false; }
bool binary_u8_avx512(BinaryOp, const DecodePlan&, const FastConstants<uint32_t, float>&, const uint8_t*, bool,
                      const uint8_t*, bool, uint8_t*, size_t, uint32_t&) {
    return false;
}
}  // namespace minifloat

#endif
