// The AVX2 cast kernels between float32/float64 and 8-bit codes (see
// codec_avx2.h), built on the vector pieces of codec_avx2_vectors.h.
#include "codec_avx2.h"

#include <cfenv>
#include <cstring>
#include <type_traits>

#include "memory_streams.h"
#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_X86_KERNELS

#include "codec_avx2_vectors.h"

namespace minifloat {

namespace {

using namespace avx2_codec;

MINIFLOAT_AVX2_INLINE __m256i load8(const float* in) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
}

// 32 bfloat16 codes (the upper halves of float32 bit patterns) as float32
// bit patterns in even/odd order (avx2_pack.h):
// u[0] and u[2] the even elements of 16 (each dword's low code shifted up),
// u[1] and u[3] the odd ones (each dword's high code, masked), with no
// shuffle; widening each 8 took one (vpmovzxwd) on the port the packing's
// shuffles use (bfloat16 -> float8_e4m3fn, standard normals, 4M values,
// AVX2 on an Intel Xeon VM: see docs/kernels.md).
MINIFLOAT_AVX2_INLINE void load32_even_odd(const uint16_t* in, __m256i u[4]) {
    const __m256i high = _mm256_set1_epi32(static_cast<int>(0xFFFF0000u));
    for (int h = 0; h < 2; h++) {
        const __m256i codes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + 16 * h));
        u[2 * h] = _mm256_slli_epi32(codes, 16);
        u[2 * h + 1] = _mm256_and_si256(codes, high);
    }
}

// 1.0 in each source type: what a partial step is padded with
template <class Source>
constexpr Source one_of() {
    if constexpr (std::is_same_v<Source, uint16_t>) {
        return 0x3F80;  // bfloat16 1.0
    } else {
        return Source(1);
    }
}

// What the encoder makes, fixed at compile time: float8_e8m0fnu's biased
// exponents (ExponentOnly), or codes laid out as L (sign and magnitude, or
// the magnitude alone for unsigned formats), for a format whose normals
// may start at float32's or below (LowNormals: from 2^-126 or 2^-127, see
// encode8).
template <bool ExponentOnly, Layout L = Layout::signed_with_zero, bool LowNormals = false>
struct Codes {
    static constexpr bool exponent_only = ExponentOnly;
    static constexpr Layout layout = L;
    static constexpr bool low_normals = LowNormals;
};

// What the encoder carries from one block of 32 to the next.
struct EncodeState {
    E8m0Declined declined;  // lanes this kernel declines (float8_e8m0fnu's)
    SpecialLanes seen;      // overflow, inf, NaN and invalid lanes, for the flags
    int subnormal_blocks;   // blocks with a lane below the normal range, in this group
    MINIFLOAT_AVX2_CODEC EncodeState() : subnormal_blocks(0) {}
};

// Codes for the 32 source bit patterns of u[0..3] (float32's, or float64
// upper halves when UpperHalves), as C says (Codes). TryNormal: a block whose lanes are
// all normal skips the subnormal rounding, behind a branch on the data (see
// encode_groups for when that pays). Returns whether the codes still lack
// their sign bits (signed formats, no lane to fix: the packing adds them,
// see pack32_with_signs).
template <class C, Rounding Mode, bool TryNormal, bool UpperHalves = false>
MINIFLOAT_AVX2_INLINE bool encode32_codes(const EncodeVectors& v, const __m256i u[4], __m256i c[4],
                                          EncodeState& state) {
    if constexpr (C::exponent_only) {
        for (int q = 0; q < 4; q++) c[q] = encode8_e8m0<Mode>(u[q], state.declined);
        return false;
    } else {
        constexpr bool kWithoutZero = !has_zero(C::layout);
        __m256i largest = _mm256_setzero_si256();
        const bool normal = all_normal(v, u);
        state.subnormal_blocks += static_cast<int>(!normal);
        // the magnitudes (the signs come with the packing or the fix-up below)
        if (TryNormal && normal) {
            for (int q = 0; q < 4; q++) c[q] = encode8<Mode, false, false, false>(v, u[q], largest);
        } else {
            for (int q = 0; q < 4; q++) {
                c[q] = encode8<Mode, true, UpperHalves, false, kWithoutZero, C::low_normals>(v, u[q], largest);
            }
        }
        // lanes that may be invalid (fix_special8 tells): zeros without
        // zero, an unsigned format's negative lanes; one test a block
        bool suspect = false;
        if constexpr (is_unsigned(C::layout)) {
            const __m256i signs = _mm256_or_si256(_mm256_or_si256(u[0], u[1]), _mm256_or_si256(u[2], u[3]));
            suspect = _mm256_movemask_ps(_mm256_castsi256_ps(signs)) != 0;
        }
        if constexpr (kWithoutZero) {
            const __m256i smallest =
                _mm256_min_epu32(_mm256_min_epu32(_mm256_and_si256(u[0], v.abs_mask), _mm256_and_si256(u[1], v.abs_mask)),
                                 _mm256_min_epu32(_mm256_and_si256(u[2], v.abs_mask), _mm256_and_si256(u[3], v.abs_mask)));
            const __m256i zero = _mm256_cmpeq_epi32(smallest, _mm256_setzero_si256());
            suspect |= !_mm256_testz_si256(zero, zero);
        }
        if (!any_special(v, largest) && !suspect) return !is_unsigned(C::layout);
        // every lane finite: all magnitudes (as integers) below inf's bits
        const bool finite = _mm256_testc_si256(_mm256_cmpgt_epi32(v.inf_bits, largest), _mm256_set1_epi32(-1));
        if constexpr (C::layout == Layout::signed_with_zero) {
            // narrow formats overflow in most blocks of unscaled data: one
            // minimum per 8 lanes instead of the fix-up (float32 standard
            // normals -> binary8p7sf, 4M values, AVX2 on a Zen 5: 0.56 ->
            // 0.46 ms; float6_e2m3fn, 4 x its largest: 0.42 -> 0.29 ms)
            if (finite && v.clamps_overflow) {
                for (int q = 0; q < 4; q++) c[q] = _mm256_min_epi32(c[q], v.overflow_magnitude);
                state.seen.overflow = _mm256_or_si256(state.seen.overflow, _mm256_cmpgt_epi32(largest, v.special_below));
                return true;
            }
        }
        for (int q = 0; q < 4; q++) {
            // the fix-up replaces whole codes (some formats flip a NaN's sign), so the rest get theirs first
            const __m256i negative = _mm256_srai_epi32(u[q], 31);
            const __m256i code =
                is_unsigned(C::layout) ? c[q] : _mm256_or_si256(c[q], sign_of<Mode>(v, u[q], c[q], negative));
            c[q] = finite ? fix_special8<Mode, C::layout, true>(v, u[q], code, state.seen)
                          : fix_special8<Mode, C::layout>(v, u[q], code, state.seen);
        }
        return false;
    }
}

// Codes c[0..3] packed into bytes with the signs of u[0..3] (see
// pack32_bytes_with_signs); formats without -0 (fnuz: its code is NaN or
// absent) then take zero where a negative value rounded to it: one byte
// compare for 32 codes, where signing each code as rounded took four
// operations per 8 (float32 -> binary8p5sf, all blocks with subnormal
// lanes, AVX2 on a Zen 5: 0.65 -> 0.61 ms for 4M values).
MINIFLOAT_AVX2_INLINE __m256i pack32_with_signs(const EncodeVectors& v, const __m256i c[4], const __m256i u[4]) {
    const __m256i bytes = pack32_bytes_with_signs(c[0], c[1], c[2], c[3], u, v.sign_byte);
    if (!v.zero_drops_sign) return bytes;
    return _mm256_andnot_si256(_mm256_cmpeq_epi8(bytes, v.sign_byte), bytes);
}

// 32 codes from float32 or bfloat16 sources (bfloat16: rounded in even/odd
// order, the bytes put back in element order at the end).
template <class C, Rounding Mode, bool TryNormal, class Source>
MINIFLOAT_AVX2_INLINE __m256i encode32(const EncodeVectors& v, const Source* in, EncodeState& state) {
    constexpr bool kEvenOdd = std::is_same_v<Source, uint16_t>;
    __m256i u[4], c[4];
    if constexpr (kEvenOdd) {
        load32_even_odd(in, u);
    } else {
        for (int q = 0; q < 4; q++) u[q] = load8(in + 8 * q);
    }
    const __m256i bytes = encode32_codes<C, Mode, TryNormal>(v, u, c, state) ? pack32_with_signs(v, c, u)
                                                                                 : pack32_bytes(c[0], c[1], c[2], c[3]);
    return kEvenOdd ? from_even_odd_order(bytes) : bytes;
}

// The upper halves of 8 doubles in lanes 0 1 4 5 | 2 3 6 7 (the order
// vshufps gathers them in; pack32_bytes_from_pair_order undoes it), with
// bit 0 set where the lower half is not zero when Sticky.
template <bool Sticky>
MINIFLOAT_AVX2_INLINE __m256i upper_halves8(const double* in) {
    const __m256 low4 = _mm256_castpd_ps(_mm256_loadu_pd(in));
    const __m256 high4 = _mm256_castpd_ps(_mm256_loadu_pd(in + 4));
    const __m256i upper = _mm256_castps_si256(_mm256_shuffle_ps(low4, high4, _MM_SHUFFLE(3, 1, 3, 1)));
    if constexpr (!Sticky) return upper;
    const __m256i lower = _mm256_castps_si256(_mm256_shuffle_ps(low4, high4, _MM_SHUFFLE(2, 0, 2, 0)));
    return _mm256_or_si256(upper, _mm256_min_epu32(lower, _mm256_set1_epi32(1)));
}

// 32 codes from doubles, with integer operations on their upper halves, the
// lower halves folded into bit 0 (rounding to odd at 20 fraction bits, see
// DoubleHighWordTraits): `v` holds the constants of those halves
// (upper_half_vectors).
template <class C, Rounding Mode, bool TryNormal>
MINIFLOAT_AVX2_INLINE __m256i encode32(const EncodeVectors& v, const double* in, EncodeState& state) {
    __m256i u[4], c[4];
    if constexpr (C::exponent_only) {
        // the sticky bit only matters rounding up: the nearest modes look at the fraction's first bit alone
        for (int q = 0; q < 4; q++) {
            c[q] = encode8_e8m0<Mode, 20>(upper_halves8<Mode == Rounding::up>(in + 8 * q), state.declined);
        }
    } else {
        for (int q = 0; q < 4; q++) u[q] = upper_halves8<true>(in + 8 * q);
        if (encode32_codes<C, Mode, TryNormal, true>(v, u, c, state)) {
            return from_pair_order(pack32_with_signs(v, c, u));
        }
    }
    return pack32_bytes_from_pair_order(c[0], c[1], c[2], c[3]);
}

MINIFLOAT_AVX2_INLINE void store32(uint8_t* out, __m256i codes) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), codes);
}

// Codes for [first, end) (whole blocks of 32) in groups of 8 blocks: after a
// group where 2 or more blocks had a lane below the normal range, the next
// one rounds every block in full (`try_normal` carries that from one call
// to the next). That branch on the data would mispredict more than the
// subnormal rounding it skips costs (measured: the worst mix of blocks took
// twice as long).
template <class C, Rounding Mode, class Source>
MINIFLOAT_AVX2_INLINE void encode_groups(const EncodeVectors& v, const Source* in, uint8_t* out, size_t first,
                                               size_t end, EncodeState& state, bool& try_normal) {
    constexpr size_t kGroup = 8 * 32;
    for (size_t group = first; group < end; group += kGroup) {
        const size_t group_end = end - group < kGroup ? end : group + kGroup;
        state.subnormal_blocks = 0;
        for (size_t i = group; i < group_end; i += 32) {
            if (try_normal) {
                store32(out + i, encode32<C, Mode, true>(v, in + i, state));
            } else {
                store32(out + i, encode32<C, Mode, false>(v, in + i, state));
            }
        }
        try_normal = state.subnormal_blocks < 2;
    }
}

// The whole block in one rounding mode, fixed at compile time.
template <class C, Rounding Mode, class Source>
MINIFLOAT_AVX2_CODEC bool encode_in_mode(const EncodePlan& plan, const Source* in, uint8_t* out, size_t n,
                                         uint32_t& flags) {
    EncodeVectors v;
    if constexpr (std::is_same_v<Source, double>) {
        v = upper_half_vectors<Mode>(plan.fast64_high, plan.fast32);
    } else {
        v = encode_vectors<Mode>(plan.fast32);
    }
    constexpr size_t kBlock = stream_block(sizeof(Source));
    EncodeState state;
    bool try_normal = true;
    const StreamParts parts = stream_parts(0, n, kBlock, sizeof(Source) + 1);
    for (size_t j = 0; j < parts.length; j += kBlock) {
        for (unsigned s = 0; s < parts.streams; s++) {
            const size_t first = s * parts.length + j;
            if (parts.prefetch) prefetch_ahead(in, first, kBlock);
            encode_groups<C, Mode>(v, in, out, first, first + kBlock, state, try_normal);
        }
        // declined: stop early, the caller redoes the values
        if (C::exponent_only && state.declined.any()) return false;
    }
    size_t i = parts.end() + (n - parts.end()) / 32 * 32;
    encode_groups<C, Mode>(v, in, out, parts.end(), i, state, try_normal);
    if (i < n) {  // the rest through a buffer padded with ones (a plain value in every format)
        Source padded[32];
        for (Source& x : padded) x = one_of<Source>();
        std::memcpy(padded, in + i, (n - i) * sizeof(Source));
        alignas(32) uint8_t codes[32];
        _mm256_store_si256(reinterpret_cast<__m256i*>(codes), encode32<C, Mode, false>(v, padded, state));
        std::memcpy(out + i, codes, n - i);
    }
    if (C::exponent_only && state.declined.any()) return false;
    flags |= special_flags(plan.fast32, state.seen);
    return true;
}

// The block in `mode`: picks encode_in_mode's instantiation for it.
template <class Source>
MINIFLOAT_AVX2_CODEC bool encode_choosing_mode(const EncodePlan& plan, Rounding mode, const Source* in, uint8_t* out, size_t n,
                                               uint32_t& flags) {
    return with_deterministic_mode(mode, [&](auto mode_constant) {
        constexpr Rounding M = decltype(mode_constant)::value;
        if (plan.kind == KernelKind::e8m0) return encode_in_mode<Codes<true>, M>(plan, in, out, n, flags);
        return with_layout(plan.fast32, [&](auto layout_constant) {
            constexpr Layout L = decltype(layout_constant)::value;
            // (float64 sources: their upper halves serve formats whose values are 2^-124 or more)
            if (plan.min_normal_exponent <= -126 && !std::is_same_v<Source, double>) {
                return encode_in_mode<Codes<false, L, true>, M>(plan, in, out, n, flags);
            }
            return encode_in_mode<Codes<false, L>, M>(plan, in, out, n, flags);
        });
    });
}

// 16 16-bit codes from 16 floats, in order (the pack works per 128-bit half).
MINIFLOAT_AVX2_INLINE __m256i encode16_u16(const EncodeVectors& v, const float* x, SpecialLanes& seen) {
    __m256i largest = _mm256_setzero_si256();
    const __m256i u0 = load8(x), u1 = load8(x + 8);
    __m256i c0 = encode8<Rounding::nearest_even>(v, u0, largest);
    __m256i c1 = encode8<Rounding::nearest_even>(v, u1, largest);
    if (any_special(v, largest)) {
        c0 = fix_special8<Rounding::nearest_even>(v, u0, c0, seen);
        c1 = fix_special8<Rounding::nearest_even>(v, u1, c1, seen);
    }
    return _mm256_permute4x64_epi64(_mm256_packus_epi32(c0, c1), 0xD8);
}

MINIFLOAT_AVX2_CODEC void encode_u16(const FastConstants<uint32_t, float>& k, const float* in, uint16_t* out,
                                     size_t n, uint32_t& flags) {
    const EncodeVectors v = encode_vectors<Rounding::nearest_even>(k);
    SpecialLanes seen;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), encode16_u16(v, in + i, seen));
    if (i < n) {
        float padded[16];
        for (float& x : padded) x = 1.0f;
        std::memcpy(padded, in + i, (n - i) * sizeof(float));
        alignas(32) uint16_t codes[16];
        _mm256_store_si256(reinterpret_cast<__m256i*>(codes), encode16_u16(v, padded, seen));
        std::memcpy(out + i, codes, (n - i) * sizeof(uint16_t));
    }
    flags |= special_flags(k, seen);
}

// Deep: the plan's values below float32's normals (see decode8).
template <bool ExponentOnly, bool Deep = false>
MINIFLOAT_AVX2_CODEC void decode_all(const DecodePlan& plan, const uint8_t* in, float* out, size_t n) {
    const DecodeVectors v = decode_vectors(plan);
    __m256i* vectors_out = reinterpret_cast<__m256i*>(out);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        if (!needs_special_decode32<ExponentOnly, Deep>(v, in + i)) {  // the common block: no code needing special care
            for (int q = 0; q < 4; q++) {
                _mm256_storeu_si256(vectors_out + i / 8 + q, decode8_from<ExponentOnly, false>(v, in + i + 8 * q));
            }
        } else {
            for (int q = 0; q < 4; q++) {
                _mm256_storeu_si256(vectors_out + i / 8 + q, decode8_from<ExponentOnly, true, Deep>(v, in + i + 8 * q));
            }
        }
    }
    for (; i < n; i += 8) {
        uint8_t codes[8] = {};
        const size_t count = n - i < 8 ? n - i : 8;
        std::memcpy(codes, in + i, count);
        alignas(32) float values[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(values), decode8_from<ExponentOnly, true, Deep>(v, codes));
        std::memcpy(out + i, values, count * sizeof(float));
    }
}

}  // namespace

bool encode_u8_avx2_serves(const EncodePlan& plan, bool float64_source) {
    switch (plan.kind) {
        case KernelKind::sign_magnitude: return !float64_source || plan.fast64_high_usable;
        case KernelKind::e8m0: return true;
        case KernelKind::general:
            // the AVX-512 encoder's layouts, but formats whose normals start
            // below 2^-127 (float32 sources: encode8 does not scale them up)
            // and those whose upper-half constants are not usable (float64)
            return plan.avx512_layouts && (float64_source ? plan.avx512_layouts_float64 && plan.fast64_high_usable
                                                          : !plan.fast32.deep_normals);
    }
    return false;
}

template <class Source>
bool encode_u8_block_avx2(const EncodePlan& plan, Rounding mode, const Source* in, uint8_t* out, size_t n,
                          uint32_t& flags) {
    if (!avx2_usable() || !encode_u8_avx2_serves(plan, std::is_same_v<Source, double>)) return false;
    return encode_choosing_mode(plan, mode, in, out, n, flags);
}

bool encode_f32_u16_avx2(const FastConstants<uint32_t, float>& k, const float* in, uint16_t* out, size_t n,
                         uint32_t& flags) {
    if (!avx2_usable()) return false;
    for_each_streamed_block(n, sizeof(float), [&](size_t start, size_t count) {
        encode_u16(k, in + start, out + start, count, flags);
    });
    return true;
}

bool decode_u8_to_f32_avx2(const DecodePlan& plan, const uint8_t* in, float* out, size_t n) {
    if (!avx2_usable() || plan.storage_bytes != 1) return false;
    switch (plan.kind) {
        case DecodeKind::e8m0:
        case DecodeKind::sign_magnitude: break;
        case DecodeKind::table:
            if (plan.avx2_arithmetic) break;
            return false;  // (a gather from the table measured slower than the portable loop)
        case DecodeKind::float32_upper_half: return false;
    }
    DefaultFpuModeScope default_modes;  // subnormal values from the FPU must not flush to zero
    for_each_streamed_block(n, sizeof(float), [&](size_t start, size_t count) {
        if (plan.exponent_only) {
            decode_all<true>(plan, in + start, out + start, count);
        } else if (plan.deep_values) {
            decode_all<false, true>(plan, in + start, out + start, count);
        } else {
            decode_all<false>(plan, in + start, out + start, count);
        }
    });
    return true;
}

bool decode_arithmetic_avx2_exact(const DecodePlan& plan) {
    if (!cpu_has_avx2() || plan.storage_bytes != 1 || plan.table == nullptr) return false;
    alignas(32) uint8_t codes[256];
    alignas(32) uint32_t bits[256];
    for (uint32_t c = 0; c < 256; c++) codes[c] = static_cast<uint8_t>(c);
    // exact and without a flag: the caller's flags are kept apart
    std::fenv_t caller;
    std::feholdexcept(&caller);
    bool exact;
    {
        DefaultFpuModeScope default_modes;
        if (plan.deep_values) {
            decode_all<false, true>(plan, codes, reinterpret_cast<float*>(bits), 256);
        } else {
            decode_all<false>(plan, codes, reinterpret_cast<float*>(bits), 256);
        }
        exact = std::fetestexcept(FE_ALL_EXCEPT) == 0;
    }
    std::fesetenv(&caller);
    for (uint32_t c = 0; c < 256 && exact; c++) exact = bits[c] == plan.table[c & plan.code_mask];
    return exact;
}

}  // namespace minifloat

#else

namespace minifloat {
bool encode_u8_avx2_serves(const EncodePlan&, bool) { return false; }
template <class Source>
bool encode_u8_block_avx2(const EncodePlan&, Rounding, const Source*, uint8_t*, size_t, uint32_t&) {
    return false;
}
bool encode_f32_u16_avx2(const FastConstants<uint32_t, float>&, const float*, uint16_t*, size_t, uint32_t&) {
    return false;
}
bool decode_u8_to_f32_avx2(const DecodePlan&, const uint8_t*, float*, size_t) { return false; }
bool decode_arithmetic_avx2_exact(const DecodePlan&) { return false; }
}  // namespace minifloat

#endif

// The sources the encoder serves (defined above for either build).
namespace minifloat {
template bool encode_u8_block_avx2<float>(const EncodePlan&, Rounding, const float*, uint8_t*, size_t, uint32_t&);
template bool encode_u8_block_avx2<double>(const EncodePlan&, Rounding, const double*, uint8_t*, size_t, uint32_t&);
template bool encode_u8_block_avx2<uint16_t>(const EncodePlan&, Rounding, const uint16_t*, uint8_t*, size_t,
                                             uint32_t&);
}  // namespace minifloat
