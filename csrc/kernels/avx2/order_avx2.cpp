#include "order_avx2.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_X86_KERNELS
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
    // (without zero, magnitude 127 + 1 wraps: every such format has NaN
    // there, and a NaN's key is never read)
    const int key = magnitude + (rule.has_zero ? 0 : 1);
    return static_cast<int8_t>(c & 0x80 ? -key : key);
}

bool make_signed_key_rule(const Format& f, const uint8_t* keys256, SignedKeyRule& rule) {
    if (f.storage_bytes != 1 || f.bits > 8) return false;
    rule = SignedKeyRule{};
    rule.code_mask = static_cast<uint8_t>(f.code_mask);
    rule.is_unsigned = !f.is_signed;
    rule.doublings = static_cast<uint8_t>(8 - f.bits);
    rule.has_zero = f.has_zero;
    const int shift = rule.doublings;
    switch (f.nan) {
        case NanCodes::ieee:
        case NanCodes::all_ones:
            if (f.is_signed) {
                rule.nan_magnitude_above = static_cast<uint8_t>((f.nan_magnitude_from - 1u) << shift);
            } else if (f.nan == NanCodes::all_ones) {
                rule.unsigned_nan_code = static_cast<uint8_t>(f.nan_code << shift);
            } else {
                return false;  // a range of NaN codes in unsigned order: not a byte rule
            }
            break;
        case NanCodes::negative_zero: rule.nan_is_negative_zero = true; break;
        case NanCodes::listed:
            // a range of NaN codes in unsigned order, or NaNs at the top and
            // at -0 at once (the kernels take one NaN kind): not a byte rule
            if (!f.is_signed || f.nan_at_negative_zero) return false;
            rule.nan_magnitude_above = static_cast<uint8_t>((f.nan_magnitude_from - 1u) << shift);
            break;
        case NanCodes::none: break;
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

#ifdef MINIFLOAT_HAVE_X86_KERNELS

namespace {

#define MINIFLOAT_AVX2 __attribute__((target("avx2")))

// The shape of a rule as compile-time constants: how NaN is found, and
// whether codes are narrower than a byte (a run-time test of either in the
// loop costs as much as the key itself).
enum class NanKind {
    none,                // no NaN (FP6, FP4)
    magnitude_range,     // magnitudes above a bound (IEEE-like, fn)
    magnitude_range_without_zero,  // the same in a format without zero (keys +-(magnitude + 1));
                                   // a format without zero always has NaN, never at -0
    negative_zero_code,  // the code with only the sign bit (fnuz)
    unsigned_code,       // one code of an unsigned format
    unsigned_top_code,   // unsigned, whole bytes, NaN is 0xFF: codes compare as
                         // bytes, NaN is the largest, equal values are equal codes
};

inline NanKind nan_kind(const SignedKeyRule& r) {
    if (r.is_unsigned) {
        const bool whole_bytes = r.doublings == 0 && r.code_mask == 0xFF;
        return whole_bytes && r.unsigned_nan_code == 0xFF ? NanKind::unsigned_top_code : NanKind::unsigned_code;
    }
    if (r.nan_is_negative_zero) return NanKind::negative_zero_code;
    if (r.nan_magnitude_above == 0x7F) return NanKind::none;
    return r.has_zero ? NanKind::magnitude_range : NanKind::magnitude_range_without_zero;
}

// Calls run(Step<op, kind, sub_byte>{}) for the run-time `op`, one of Ops,
// with the rule's NaN kind and code width as compile-time constants.
template <template <auto, NanKind, bool> class Step, auto... Ops, class OpEnum, class Run>
void with_step_for(OpEnum op, const SignedKeyRule& rule, Run run) {
    const auto for_shape = [&](auto kind, auto sub_byte) {
        constexpr NanKind K = decltype(kind)::value;
        constexpr bool S = decltype(sub_byte)::value;
        ((op == Ops && (run(Step<Ops, K, S>{}), true)) || ...);
    };
    const auto with_kind = [&](auto sub) {
        switch (nan_kind(rule)) {
            case NanKind::none: return for_shape(std::integral_constant<NanKind, NanKind::none>{}, sub);
            case NanKind::magnitude_range:
                return for_shape(std::integral_constant<NanKind, NanKind::magnitude_range>{}, sub);
            case NanKind::magnitude_range_without_zero:
                return for_shape(std::integral_constant<NanKind, NanKind::magnitude_range_without_zero>{}, sub);
            case NanKind::negative_zero_code:
                return for_shape(std::integral_constant<NanKind, NanKind::negative_zero_code>{}, sub);
            case NanKind::unsigned_code:
                return for_shape(std::integral_constant<NanKind, NanKind::unsigned_code>{}, sub);
            case NanKind::unsigned_top_code:
                return for_shape(std::integral_constant<NanKind, NanKind::unsigned_top_code>{}, std::false_type{});
        }
    };
    if (rule.doublings != 0 || rule.code_mask != 0xFF) {
        with_kind(std::true_type{});
    } else {
        with_kind(std::false_type{});
    }
}

struct KeyVectors {
    __m256i shifted_code_mask, low7, sign_only, nan_above, unsigned_nan, one;
    __m128i doublings;
};

MINIFLOAT_AVX2 inline KeyVectors key_vectors(const SignedKeyRule& r) {
    KeyVectors v;
    v.shifted_code_mask = _mm256_set1_epi8(static_cast<char>(r.code_mask << r.doublings));
    v.low7 = _mm256_set1_epi8(0x7F);
    v.sign_only = _mm256_set1_epi8(static_cast<char>(0x80));
    v.nan_above = _mm256_set1_epi8(static_cast<char>(r.nan_magnitude_above));
    v.unsigned_nan = _mm256_set1_epi8(static_cast<char>(r.unsigned_nan_code));
    v.one = _mm256_set1_epi8(1);
    v.doublings = _mm_cvtsi32_si128(r.doublings);
    return v;
}

// 32 signed keys, and the NaN lanes (all ones). SubByte: codes narrower
// than a byte are first moved up to put their sign bit at bit 7 (a 16-bit
// shift; the mask drops what came up from the byte below, and stray high
// bits).
template <NanKind Kind, bool SubByte>
MINIFLOAT_AVX2 inline __m256i keys32(const KeyVectors& v, __m256i codes, __m256i& nan) {
    __m256i c = codes;
    if constexpr (SubByte) c = _mm256_and_si256(_mm256_sll_epi16(codes, v.doublings), v.shifted_code_mask);
    if constexpr (Kind == NanKind::unsigned_code || Kind == NanKind::unsigned_top_code) {
        nan = _mm256_cmpeq_epi8(c, v.unsigned_nan);
        return _mm256_xor_si256(c, v.sign_only);
    }
    const __m256i magnitude = _mm256_and_si256(c, v.low7);
    if constexpr (Kind == NanKind::none) nan = _mm256_setzero_si256();
    if constexpr (Kind == NanKind::magnitude_range || Kind == NanKind::magnitude_range_without_zero) {
        nan = _mm256_cmpgt_epi8(magnitude, v.nan_above);
    }
    if constexpr (Kind == NanKind::negative_zero_code) nan = _mm256_cmpeq_epi8(c, v.sign_only);
    if constexpr (Kind == NanKind::magnitude_range_without_zero) {
        return _mm256_sign_epi8(_mm256_add_epi8(magnitude, v.one), c);
    }
    return _mm256_sign_epi8(magnitude, c);  // -magnitude where the sign bit is set
}

MINIFLOAT_AVX2 inline __m256i all_but(__m256i lanes) { return _mm256_andnot_si256(lanes, _mm256_set1_epi8(-1)); }

// float8_e8m0fnu (NaN the largest code, equal values equal codes): unsigned
// byte order by max/min, and only the operand whose NaN could pass the
// test is checked.
template <KeyComparison Op>
MINIFLOAT_AVX2 inline __m256i compare32_top_code(const KeyVectors& v, __m256i a, __m256i b) {
    const __m256i a_nan = _mm256_cmpeq_epi8(a, v.unsigned_nan), b_nan = _mm256_cmpeq_epi8(b, v.unsigned_nan);
    const __m256i a_ge = _mm256_cmpeq_epi8(_mm256_max_epu8(a, b), a);  // a >= b
    const __m256i a_le = _mm256_cmpeq_epi8(_mm256_min_epu8(a, b), a);  // a <= b
    __m256i r;
    if constexpr (Op == KeyComparison::equal) r = _mm256_andnot_si256(a_nan, _mm256_cmpeq_epi8(a, b));
    if constexpr (Op == KeyComparison::not_equal) r = _mm256_or_si256(a_nan, all_but(_mm256_cmpeq_epi8(a, b)));
    if constexpr (Op == KeyComparison::less) r = all_but(_mm256_or_si256(a_ge, b_nan));
    if constexpr (Op == KeyComparison::less_equal) r = _mm256_andnot_si256(b_nan, a_le);
    if constexpr (Op == KeyComparison::greater) r = all_but(_mm256_or_si256(a_le, a_nan));
    if constexpr (Op == KeyComparison::greater_equal) r = _mm256_andnot_si256(a_nan, a_ge);
    return _mm256_and_si256(r, v.one);
}

template <KeyComparison Op, NanKind Kind, bool SubByte>
MINIFLOAT_AVX2 inline __m256i compare32(const KeyVectors& v, __m256i a, __m256i b) {
    if constexpr (Kind == NanKind::unsigned_top_code) return compare32_top_code<Op>(v, a, b);
    __m256i a_nan, b_nan;
    const __m256i ka = keys32<Kind, SubByte>(v, a, a_nan), kb = keys32<Kind, SubByte>(v, b, b_nan);
    const __m256i unordered = _mm256_or_si256(a_nan, b_nan);
    __m256i r;
    if constexpr (Op == KeyComparison::equal) r = _mm256_andnot_si256(unordered, _mm256_cmpeq_epi8(ka, kb));
    if constexpr (Op == KeyComparison::not_equal) r = _mm256_or_si256(unordered, all_but(_mm256_cmpeq_epi8(ka, kb)));
    if constexpr (Op == KeyComparison::less) r = _mm256_andnot_si256(unordered, _mm256_cmpgt_epi8(kb, ka));
    if constexpr (Op == KeyComparison::less_equal) r = all_but(_mm256_or_si256(unordered, _mm256_cmpgt_epi8(ka, kb)));
    if constexpr (Op == KeyComparison::greater) r = _mm256_andnot_si256(unordered, _mm256_cmpgt_epi8(ka, kb));
    if constexpr (Op == KeyComparison::greater_equal) {
        r = all_but(_mm256_or_si256(unordered, _mm256_cmpgt_epi8(kb, ka)));
    }
    return _mm256_and_si256(r, v.one);
}

// float8_e8m0fnu: byte max/min. NaN, the largest code, wins a maximum and
// loses an fmin as it is; adding one first (NaN wraps to 0) makes it win a
// minimum and lose an fmax.
template <KeySelection Op>
MINIFLOAT_AVX2 inline __m256i select32_top_code(const KeyVectors& v, __m256i a, __m256i b) {
    if constexpr (Op == KeySelection::maximum) return _mm256_max_epu8(a, b);
    if constexpr (Op == KeySelection::fmin) return _mm256_min_epu8(a, b);
    const __m256i a1 = _mm256_add_epi8(a, v.one), b1 = _mm256_add_epi8(b, v.one);
    if constexpr (Op == KeySelection::minimum) return _mm256_sub_epi8(_mm256_min_epu8(a1, b1), v.one);
    return _mm256_sub_epi8(_mm256_max_epu8(a1, b1), v.one);
}

// maximum/minimum keep a NaN operand (the first when both are), fmax/fmin
// the other one; ka >= kb is "not kb > ka".
template <KeySelection Op, NanKind Kind, bool SubByte>
MINIFLOAT_AVX2 inline __m256i select32(const KeyVectors& v, __m256i a, __m256i b) {
    if constexpr (Kind == NanKind::unsigned_top_code) return select32_top_code<Op>(v, a, b);
    __m256i a_nan, b_nan;
    const __m256i ka = keys32<Kind, SubByte>(v, a, a_nan), kb = keys32<Kind, SubByte>(v, b, b_nan);
    __m256i first;
    if constexpr (Op == KeySelection::maximum) {
        first = _mm256_or_si256(a_nan, all_but(_mm256_or_si256(b_nan, _mm256_cmpgt_epi8(kb, ka))));
    }
    if constexpr (Op == KeySelection::minimum) {
        first = _mm256_or_si256(a_nan, all_but(_mm256_or_si256(b_nan, _mm256_cmpgt_epi8(ka, kb))));
    }
    if constexpr (Op == KeySelection::fmax) {
        first = _mm256_or_si256(b_nan, all_but(_mm256_or_si256(a_nan, _mm256_cmpgt_epi8(kb, ka))));
    }
    if constexpr (Op == KeySelection::fmin) {
        first = _mm256_or_si256(b_nan, all_but(_mm256_or_si256(a_nan, _mm256_cmpgt_epi8(ka, kb))));
    }
    return _mm256_blendv_epi8(b, a, first);
}

// Runs Step::apply(v, a32, b32) over n codes, 32 at a time; the last
// partial step on copies padded with zeros (every code byte is a valid
// input).
template <class Step>
MINIFLOAT_AVX2 void for_each_32(const KeyVectors& constants, const uint8_t* a, const uint8_t* b, uint8_t* out,
                                size_t n) {
    const KeyVectors v = constants;  // a local copy: stores to `out` (bytes) cannot change it
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m256i va = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i));
        const __m256i vb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), Step::apply(v, va, vb));
    }
    if (i == n) return;
    alignas(32) uint8_t ta[32] = {}, tb[32] = {}, to[32];
    std::memcpy(ta, a + i, n - i);
    std::memcpy(tb, b + i, n - i);
    _mm256_store_si256(reinterpret_cast<__m256i*>(to),
                       Step::apply(v, _mm256_load_si256(reinterpret_cast<const __m256i*>(ta)),
                                   _mm256_load_si256(reinterpret_cast<const __m256i*>(tb))));
    std::memcpy(out + i, to, n - i);
}

template <auto Op, NanKind Kind, bool SubByte>  // Op: a KeyComparison
struct CompareStep {
    MINIFLOAT_AVX2 static __m256i apply(const KeyVectors& v, __m256i a, __m256i b) {
        return compare32<Op, Kind, SubByte>(v, a, b);
    }
};

template <auto Op, NanKind Kind, bool SubByte>  // Op: a KeySelection
struct SelectStep {
    MINIFLOAT_AVX2 static __m256i apply(const KeyVectors& v, __m256i a, __m256i b) {
        return select32<Op, Kind, SubByte>(v, a, b);
    }
};

// Runs Step<Op, kind, sub_byte> over the codes for the run-time `op`, one
// of Ops, with the rule's shape.
template <template <auto, NanKind, bool> class Step, auto... Ops, class OpEnum>
void run_step(OpEnum op, const SignedKeyRule& rule, const uint8_t* a, const uint8_t* b, uint8_t* out, size_t n) {
    const KeyVectors v = key_vectors(rule);
    with_step_for<Step, Ops...>(op, rule, [&](auto step) { for_each_32<decltype(step)>(v, a, b, out, n); });
}

void compare_codes(KeyComparison op, const SignedKeyRule& rule, const uint8_t* a, const uint8_t* b, uint8_t* out,
                   size_t n) {
    using C = KeyComparison;
    run_step<CompareStep, C::equal, C::not_equal, C::less, C::less_equal, C::greater, C::greater_equal>(
        op, rule, a, b, out, n);
}

void select_codes(KeySelection op, const SignedKeyRule& rule, const uint8_t* a, const uint8_t* b, uint8_t* out,
                  size_t n) {
    using S = KeySelection;
    run_step<SelectStep, S::maximum, S::minimum, S::fmax, S::fmin>(op, rule, a, b, out, n);
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
