#include "complex_parts.h"

#include <cmath>
#include <cstring>

#include "fp_status.h"
#include "half_float.h"
#include "simd_dispatch.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define MINIFLOAT_COMPLEX_F16C 1
#else
#define MINIFLOAT_COMPLEX_F16C 0
#endif

namespace minifloat {

namespace {

MINIFLOAT_SIMD_CLONES
void bfloat16_to_f32(const uint16_t* in, float* out, size_t n) {
    uint32_t* bits = reinterpret_cast<uint32_t*>(out);
    for (size_t i = 0; i < n; i++) bits[i] = static_cast<uint32_t>(in[i]) << 16;
}

// binary64 -> binary32 rounded to odd: truncated toward zero, the last bit
// set when anything was dropped (past binary32's range: its largest value,
// odd; below its smallest: the smallest subnormal, with the sign). NaNs stay
// NaNs of the same sign.
MINIFLOAT_SIMD_CLONES
void narrow_f64_to_odd(const double* in, float* out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const double x = in[i];
        const float f = static_cast<float>(x);
        uint32_t bits;
        std::memcpy(&bits, &f, sizeof bits);
        const double back = static_cast<double>(f);
        const bool inexact = back != x && x == x;
        const uint32_t toward_zero = (inexact && std::fabs(back) > std::fabs(x)) ? 1u : 0u;
        bits = (bits - toward_zero) | (inexact ? 1u : 0u);
        std::memcpy(out + i, &bits, sizeof bits);
    }
}

MINIFLOAT_SIMD_CLONES
void widen_f32(const float* in, double* out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = static_cast<double>(in[i]);
}

// A binary64 with a 53-bit significand rounded to odd from `magnitude`.
double odd_rounded(uint64_t magnitude) {
    int width = 64;
    while (width > 0 && ((magnitude >> (width - 1)) & 1u) == 0) width--;
    if (width <= 53) return static_cast<double>(magnitude);
    const int drop = width - 53;
    const uint64_t dropped = magnitude & ((uint64_t{1} << drop) - 1);
    uint64_t kept = magnitude >> drop;
    if (dropped != 0) kept |= 1u;
    return std::ldexp(static_cast<double>(kept), drop);
}

#if MINIFLOAT_COMPLEX_F16C
// float16 <-> float32 by the F16C instructions (exact both ways; to float16
// rounds to nearest even, overflows to inf). NaNs are left to the table
// codec so every path gives the same bits (the instructions quiet them).
bool have_f16c() {
    static const bool have = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
    return have;
}

__attribute__((target("f16c,avx2")))
size_t half_to_float_f16c(const uint16_t* in, float* out, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
        // any NaN code (exponent all ones, mantissa nonzero): leave this block to the table
        const __m128i magnitude = _mm_and_si128(h, _mm_set1_epi16(0x7FFF));
        if (_mm_movemask_epi8(_mm_cmpgt_epi16(magnitude, _mm_set1_epi16(0x7C00))) != 0) {
            half_to_float(in + i, out + i, 8);
            continue;
        }
        _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
    }
    return i;
}

__attribute__((target("f16c,avx2")))
size_t float_to_half_f16c(const float* in, uint16_t* out, size_t n, uint32_t* flags) {
    size_t i = 0;
    const __m256 limit = _mm256_set1_ps(65520.0f);  // from here round to nearest gives inf
    const __m256 inf = _mm256_set1_ps(INFINITY);
    const __m256 sign = _mm256_set1_ps(-0.0f);
    uint32_t overflow = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(in + i);
        const __m256 a = _mm256_andnot_ps(sign, v);
        if (_mm256_movemask_ps(_mm256_cmp_ps(a, a, _CMP_UNORD_Q)) != 0) break;  // NaN: the codec does the rest
        overflow |= static_cast<uint32_t>(
            _mm256_movemask_ps(_mm256_and_ps(_mm256_cmp_ps(a, limit, _CMP_GE_OQ), _mm256_cmp_ps(a, inf, _CMP_LT_OQ))));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
    }
    if (overflow != 0) *flags |= kFlagOverflow;
    return i;
}

// float32 -> bfloat16 rounded to nearest even on the bits: adding 0x7FFF
// plus the kept part's lowest bit carries into the kept 16 bits exactly when
// the dropped half is above one half, or equal to it with an odd kept part;
// right for every finite value, subnormals included, and a carry out of the
// largest finite value lands on inf (overflow). Stops before a block of 16
// that holds a NaN (the format's codec gives NaNs their canonical code) and
// returns how many values it did.
bool have_avx2() {
    static const bool have = __builtin_cpu_supports("avx2");
    return have;
}

__attribute__((target("avx2")))
size_t float_to_bfloat16_avx2(const float* in, uint16_t* out, size_t n, uint32_t* flags) {
    const __m256i magnitude_mask = _mm256_set1_epi32(0x7FFFFFFF);
    const __m256i inf = _mm256_set1_epi32(0x7F800000);
    const __m256i below_inf = _mm256_set1_epi32(0x7F7FFFFF);
    const __m256i half_minus_one = _mm256_set1_epi32(0x7FFF);
    const __m256i one = _mm256_set1_epi32(1);
    __m256i overflow = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
        const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i + 8));
        const __m256i ma = _mm256_and_si256(a, magnitude_mask);
        const __m256i mb = _mm256_and_si256(b, magnitude_mask);
        const __m256i nan = _mm256_or_si256(_mm256_cmpgt_epi32(ma, inf), _mm256_cmpgt_epi32(mb, inf));
        if (!_mm256_testz_si256(nan, nan)) break;
        const __m256i ra = _mm256_add_epi32(
            a, _mm256_add_epi32(half_minus_one, _mm256_and_si256(_mm256_srli_epi32(a, 16), one)));
        const __m256i rb = _mm256_add_epi32(
            b, _mm256_add_epi32(half_minus_one, _mm256_and_si256(_mm256_srli_epi32(b, 16), one)));
        // finite before, inf after
        const __m256i over_a = _mm256_andnot_si256(
            _mm256_cmpgt_epi32(ma, below_inf), _mm256_cmpgt_epi32(_mm256_and_si256(ra, magnitude_mask), below_inf));
        const __m256i over_b = _mm256_andnot_si256(
            _mm256_cmpgt_epi32(mb, below_inf), _mm256_cmpgt_epi32(_mm256_and_si256(rb, magnitude_mask), below_inf));
        overflow = _mm256_or_si256(overflow, _mm256_or_si256(over_a, over_b));
        // the high halves, in order (packus works within 128-bit lanes)
        const __m256i packed = _mm256_packus_epi32(_mm256_srli_epi32(ra, 16), _mm256_srli_epi32(rb, 16));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_permute4x64_epi64(packed, 0xD8));
    }
    if (!_mm256_testz_si256(overflow, overflow)) *flags |= kFlagOverflow;
    return i;
}

// narrow_f64_to_odd (below), four at a time.
__attribute__((target("avx2")))
size_t narrow_f64_to_odd_avx2(const double* in, float* out, size_t n) {
    const __m256d magnitude = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFF));
    const __m256i low_halves = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    const __m128i one = _mm_set1_epi32(1);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const __m256d x = _mm256_loadu_pd(in + i);
        const __m128 f = _mm256_cvtpd_ps(x);
        const __m256d back = _mm256_cvtps_pd(f);
        const __m256d inexact = _mm256_cmp_pd(back, x, _CMP_NEQ_OQ);  // (false for NaN)
        const __m256d away = _mm256_and_pd(
            inexact, _mm256_cmp_pd(_mm256_and_pd(back, magnitude), _mm256_and_pd(x, magnitude), _CMP_GT_OQ));
        const __m128i inexact32 =
            _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(inexact), low_halves));
        const __m128i away32 =
            _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(away), low_halves));
        // away32 lanes are -1 where the rounding went away from zero: one step back, then the odd bit
        const __m128i bits = _mm_or_si128(_mm_add_epi32(_mm_castps_si128(f), away32), _mm_and_si128(inexact32, one));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), bits);
    }
    return i;
}
#endif

}  // namespace

void decode_parts_f32(const PartCodec& codec, const uint16_t* in, float* out, size_t n) {
    switch (codec.format) {
        case PartFormat::float16: {
            size_t done = 0;
#if MINIFLOAT_COMPLEX_F16C
            if (have_f16c()) done = half_to_float_f16c(in, out, n);
#endif
            return half_to_float(in + done, out + done, n - done);
        }
        case PartFormat::bfloat16: return bfloat16_to_f32(in, out, n);
    }
}

void decode_parts_f64(const PartCodec& codec, const uint16_t* in, double* out, size_t n) {
    constexpr size_t kChunk = 512;
    float buffer[kChunk];
    for (size_t start = 0; start < n; start += kChunk) {
        const size_t count = n - start < kChunk ? n - start : kChunk;
        decode_parts_f32(codec, in + start, buffer, count);
        widen_f32(buffer, out + start, count);
    }
}

uint32_t encode_parts_f64(const PartCodec& codec, const double* in, uint16_t* out, size_t n) {
    // binary64 -> binary32 rounded to odd, then the part's own rounding from
    // binary32: a value rounded to odd on p + 2 bits or more rounds to p bits
    // as the value itself does, and binary32's 24 bits are >= 11 + 2 and 8 + 2
    DefaultFpuModeScope default_modes;  // the narrowing must not flush to zero (FTZ)
    constexpr size_t kChunk = 512;
    alignas(64) float buffer[kChunk];
    uint32_t flags = 0;
    for (size_t start = 0; start < n; start += kChunk) {
        const size_t count = n - start < kChunk ? n - start : kChunk;
        size_t narrowed = 0;
#if MINIFLOAT_COMPLEX_F16C
        if (have_avx2()) narrowed = narrow_f64_to_odd_avx2(in + start, buffer, count);
#endif
        narrow_f64_to_odd(in + start + narrowed, buffer + narrowed, count - narrowed);
        flags |= encode_parts_f32(codec, buffer, out + start, count);
    }
    return flags;
}

uint32_t encode_parts_f32(const PartCodec& codec, const float* in, uint16_t* out, size_t n) {
    uint32_t flags = 0;
    size_t done = 0;
#if MINIFLOAT_COMPLEX_F16C
    if (codec.format == PartFormat::float16 && have_f16c()) {
        while (done < n) {
            done += float_to_half_f16c(in + done, out + done, n - done, &flags);
            if (done >= n || n - done < 8) break;
            flags |= encode_f32(*codec.plan, in + done, out + done, 8);  // a block with a NaN
            done += 8;
        }
    }
    if (codec.format == PartFormat::bfloat16 && have_avx2()) {
        while (done < n) {
            done += float_to_bfloat16_avx2(in + done, out + done, n - done, &flags);
            if (done >= n || n - done < 16) break;
            flags |= encode_f32(*codec.plan, in + done, out + done, 16);  // a block with a NaN
            done += 16;
        }
    }
#endif
    return flags | encode_f32(*codec.plan, in + done, out + done, n - done);
}

double int64_for_parts(int64_t v) {
    if (v >= -(int64_t{1} << 53) && v <= (int64_t{1} << 53)) return static_cast<double>(v);
    const uint64_t magnitude = v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    const double d = odd_rounded(magnitude);
    return v < 0 ? -d : d;
}

double uint64_for_parts(uint64_t v) { return odd_rounded(v); }

double long_double_for_parts(long double v) {
    double d = static_cast<double>(v);
    if (std::isnan(v) || static_cast<long double>(d) == v) return d;
    if (std::isinf(d)) d = std::copysign(1.7976931348623157e308, d);  // past binary64: its largest, odd
    // truncate toward zero, then mark the dropped bits in the last place
    if (std::fabs(static_cast<long double>(d)) > std::fabs(v)) d = std::nextafter(d, 0.0);
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    bits |= 1u;
    std::memcpy(&d, &bits, sizeof d);
    return d;
}

}  // namespace minifloat
