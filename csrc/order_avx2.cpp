#include "order_avx2.h"

#include <algorithm>
#include <cstring>

#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_AVX512_KERNELS
#include <immintrin.h>
#endif

namespace minifloat {

int8_t signed_key(const SignedKeyRule& rule, uint8_t code, bool& nan) {
    const uint8_t c = static_cast<uint8_t>((code & rule.code_mask) << rule.doublings);
    if (rule.is_unsigned) {
        nan = c == rule.unsigned_nan_code;
        return static_cast<int8_t>(c ^ 0x80);
    }
    const int magnitude = c & 0x7F;
    nan = magnitude > rule.nan_magnitude_above || (rule.nan_is_negative_zero && c == 0x80);
    return static_cast<int8_t>(c & 0x80 ? -magnitude : magnitude);
}

bool make_signed_key_rule(const Format& f, const uint8_t* keys256, SignedKeyRule& rule) {
    if (f.storage_bytes != 1 || f.bits > 8) return false;
    rule = SignedKeyRule{};
    rule.code_mask = static_cast<uint8_t>(f.code_mask);
    rule.is_unsigned = !f.is_signed;
    rule.doublings = static_cast<uint8_t>(8 - f.bits);
    const int shift = rule.doublings;
    switch (f.specials) {
        case Specials::ieee: rule.nan_magnitude_above = static_cast<uint8_t>(f.inf_magnitude << shift); break;
        case Specials::finite_nan_all_ones:
            rule.nan_magnitude_above = static_cast<uint8_t>((f.magnitude_mask - 1u) << shift);
            break;
        case Specials::finite_nan_negative_zero: rule.nan_is_negative_zero = true; break;
        case Specials::unsigned_exponent_only:
            rule.unsigned_nan_code = static_cast<uint8_t>(f.nan_code << shift);
            break;
        case Specials::finite_only: break;
    }
    // The rule must agree with the keys on NaN, order and ties, for every
    // byte (codes with stray high bits included: both mask them).
    int order[256];
    for (int c = 0; c < 256; c++) order[c] = c;
    std::sort(order, order + 256, [&](int x, int y) { return keys256[x] < keys256[y]; });
    bool previous_nan = false;
    int previous_key = 0, previous_table_key = -1;
    for (int i = 0; i < 256; i++) {
        const int code = order[i];
        bool nan = false;
        const int key = signed_key(rule, static_cast<uint8_t>(code), nan);
        if (nan != (keys256[code] == 255)) return false;
        if (!nan && previous_table_key >= 0 && !previous_nan) {
            const bool tie = keys256[code] == previous_table_key;
            if (tie ? key != previous_key : key <= previous_key) return false;
        }
        previous_nan = nan;
        previous_key = key;
        previous_table_key = keys256[code];
    }
    return true;
}

#ifdef MINIFLOAT_HAVE_AVX512_KERNELS

namespace {

#define MINIFLOAT_AVX2 __attribute__((target("avx2")))

struct KeyVectors {
    __m256i code_mask, low7, sign_only, nan_above, unsigned_nan, one;
    int doublings;
    bool is_unsigned, nan_is_negative_zero;
};

MINIFLOAT_AVX2 inline KeyVectors key_vectors(const SignedKeyRule& r) {
    KeyVectors v;
    v.code_mask = _mm256_set1_epi8(static_cast<char>(r.code_mask));
    v.low7 = _mm256_set1_epi8(0x7F);
    v.sign_only = _mm256_set1_epi8(static_cast<char>(0x80));
    v.nan_above = _mm256_set1_epi8(static_cast<char>(r.nan_magnitude_above));
    v.unsigned_nan = _mm256_set1_epi8(static_cast<char>(r.unsigned_nan_code));
    v.one = _mm256_set1_epi8(1);
    v.doublings = r.doublings;
    v.is_unsigned = r.is_unsigned;
    v.nan_is_negative_zero = r.nan_is_negative_zero;
    return v;
}

// 32 signed keys, and the NaN lanes (all ones).
MINIFLOAT_AVX2 inline __m256i keys32(const KeyVectors& v, __m256i codes, __m256i& nan) {
    __m256i c = _mm256_and_si256(codes, v.code_mask);
    for (int d = 0; d < v.doublings; d++) c = _mm256_add_epi8(c, c);  // bytes have no shift
    if (v.is_unsigned) {
        nan = _mm256_cmpeq_epi8(c, v.unsigned_nan);
        return _mm256_xor_si256(c, v.sign_only);
    }
    const __m256i magnitude = _mm256_and_si256(c, v.low7);
    nan = _mm256_cmpgt_epi8(magnitude, v.nan_above);
    if (v.nan_is_negative_zero) nan = _mm256_or_si256(nan, _mm256_cmpeq_epi8(c, v.sign_only));
    return _mm256_sign_epi8(magnitude, c);  // -magnitude where the sign bit is set
}

MINIFLOAT_AVX2 inline __m256i all_but(__m256i lanes) { return _mm256_andnot_si256(lanes, _mm256_set1_epi8(-1)); }

MINIFLOAT_AVX2 inline __m256i compare32(KeyComparison op, const KeyVectors& v, __m256i a, __m256i b) {
    __m256i a_nan, b_nan;
    const __m256i ka = keys32(v, a, a_nan), kb = keys32(v, b, b_nan);
    const __m256i unordered = _mm256_or_si256(a_nan, b_nan);
    const __m256i equal = _mm256_cmpeq_epi8(ka, kb);
    const __m256i a_below = _mm256_cmpgt_epi8(kb, ka), a_above = _mm256_cmpgt_epi8(ka, kb);
    __m256i r;
    switch (op) {
        case KeyComparison::equal: r = _mm256_andnot_si256(unordered, equal); break;
        case KeyComparison::not_equal: r = _mm256_or_si256(unordered, all_but(equal)); break;
        case KeyComparison::less: r = _mm256_andnot_si256(unordered, a_below); break;
        case KeyComparison::less_equal: r = all_but(_mm256_or_si256(unordered, a_above)); break;
        case KeyComparison::greater: r = _mm256_andnot_si256(unordered, a_above); break;
        default: r = all_but(_mm256_or_si256(unordered, a_below)); break;  // greater_equal
    }
    return _mm256_and_si256(r, v.one);
}

// maximum/minimum keep a NaN operand (the first when both are), fmax/fmin
// the other one; ka >= kb is "not kb > ka".
MINIFLOAT_AVX2 inline __m256i select32(KeySelection op, const KeyVectors& v, __m256i a, __m256i b) {
    __m256i a_nan, b_nan;
    const __m256i ka = keys32(v, a, a_nan), kb = keys32(v, b, b_nan);
    const __m256i a_below = _mm256_cmpgt_epi8(kb, ka), a_above = _mm256_cmpgt_epi8(ka, kb);
    __m256i first;
    switch (op) {
        case KeySelection::maximum: first = _mm256_or_si256(a_nan, all_but(_mm256_or_si256(b_nan, a_below))); break;
        case KeySelection::minimum: first = _mm256_or_si256(a_nan, all_but(_mm256_or_si256(b_nan, a_above))); break;
        case KeySelection::fmax: first = _mm256_or_si256(b_nan, all_but(_mm256_or_si256(a_nan, a_below))); break;
        default: first = _mm256_or_si256(b_nan, all_but(_mm256_or_si256(a_nan, a_above))); break;  // fmin
    }
    return _mm256_blendv_epi8(b, a, first);
}

// Runs step(a32, b32) over n codes, 32 at a time; the last partial step on
// copies padded with zeros (every code byte is a valid input).
template <class Step>
MINIFLOAT_AVX2 inline void for_each_32(const uint8_t* a, const uint8_t* b, uint8_t* out, size_t n, Step step) {
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m256i va = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i));
        const __m256i vb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), step(va, vb));
    }
    if (i == n) return;
    alignas(32) uint8_t ta[32] = {}, tb[32] = {}, to[32];
    std::memcpy(ta, a + i, n - i);
    std::memcpy(tb, b + i, n - i);
    _mm256_store_si256(reinterpret_cast<__m256i*>(to),
                       step(_mm256_load_si256(reinterpret_cast<const __m256i*>(ta)),
                            _mm256_load_si256(reinterpret_cast<const __m256i*>(tb))));
    std::memcpy(out + i, to, n - i);
}

template <KeyComparison Op>
MINIFLOAT_AVX2 void compare_all(const KeyVectors& v, const uint8_t* a, const uint8_t* b, uint8_t* out, size_t n) {
    for_each_32(a, b, out, n, [&](__m256i x, __m256i y) MINIFLOAT_LAMBDA_INLINE { return compare32(Op, v, x, y); });
}

template <KeySelection Op>
MINIFLOAT_AVX2 void select_all(const KeyVectors& v, const uint8_t* a, const uint8_t* b, uint8_t* out, size_t n) {
    for_each_32(a, b, out, n, [&](__m256i x, __m256i y) MINIFLOAT_LAMBDA_INLINE { return select32(Op, v, x, y); });
}

MINIFLOAT_AVX2 void compare_codes(KeyComparison op, const SignedKeyRule& rule, const uint8_t* a, const uint8_t* b,
                                  uint8_t* out, size_t n) {
    const KeyVectors v = key_vectors(rule);
    switch (op) {
        case KeyComparison::equal: return compare_all<KeyComparison::equal>(v, a, b, out, n);
        case KeyComparison::not_equal: return compare_all<KeyComparison::not_equal>(v, a, b, out, n);
        case KeyComparison::less: return compare_all<KeyComparison::less>(v, a, b, out, n);
        case KeyComparison::less_equal: return compare_all<KeyComparison::less_equal>(v, a, b, out, n);
        case KeyComparison::greater: return compare_all<KeyComparison::greater>(v, a, b, out, n);
        case KeyComparison::greater_equal: return compare_all<KeyComparison::greater_equal>(v, a, b, out, n);
    }
}

MINIFLOAT_AVX2 void select_codes(KeySelection op, const SignedKeyRule& rule, const uint8_t* a, const uint8_t* b,
                                 uint8_t* out, size_t n) {
    const KeyVectors v = key_vectors(rule);
    switch (op) {
        case KeySelection::maximum: return select_all<KeySelection::maximum>(v, a, b, out, n);
        case KeySelection::minimum: return select_all<KeySelection::minimum>(v, a, b, out, n);
        case KeySelection::fmax: return select_all<KeySelection::fmax>(v, a, b, out, n);
        case KeySelection::fmin: return select_all<KeySelection::fmin>(v, a, b, out, n);
    }
}

}  // namespace

bool compare_codes_avx2(KeyComparison op, const SignedKeyRule& rule, const uint8_t* a, const uint8_t* b,
                        uint8_t* out, size_t n) {
    if (!avx2_usable()) return false;
    compare_codes(op, rule, a, b, out, n);
    return true;
}

bool select_codes_avx2(KeySelection op, const SignedKeyRule& rule, const uint8_t* a, const uint8_t* b,
                       uint8_t* out, size_t n) {
    if (!avx2_usable()) return false;
    select_codes(op, rule, a, b, out, n);
    return true;
}

#else

bool compare_codes_avx2(KeyComparison, const SignedKeyRule&, const uint8_t*, const uint8_t*, uint8_t*, size_t) {
    return false;
}
bool select_codes_avx2(KeySelection, const SignedKeyRule&, const uint8_t*, const uint8_t*, uint8_t*, size_t) {
    return false;
}

#endif

}  // namespace minifloat
