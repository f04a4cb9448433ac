#include "float_to_integer.h"

#include <cstring>
#include <limits>

#include "fp_status.h"
#include "simd_dispatch.h"

namespace minifloat {

namespace {

// x where keep holds, else +0, on the bits: a float select ahead of a
// conversion is turned around by the compiler (convert, then select), and
// the conversion of a lane that is not kept would raise invalid.
MINIFLOAT_KERNEL_INLINE float kept_or_zero(bool keep, float x) {
    uint32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    bits &= 0u - static_cast<uint32_t>(keep);
    std::memcpy(&x, &bits, sizeof x);
    return x;
}

// Lanes the conversion cannot represent are replaced by 0 before
// converting (no stray invalid flag) and their result is picked by select.
// The bounds are powers of two, exact in float32.
template <class Int>
MINIFLOAT_KERNEL_INLINE Int float_to_integer(float x, uint32_t& invalid) {
    constexpr float k31 = 2147483648.0f, k63 = 9223372036854775808.0f, k64 = 18446744073709551616.0f;
    if constexpr (sizeof(Int) < 4 || (sizeof(Int) == 4 && std::is_signed_v<Int>)) {
        const bool ok = x >= -k31 && x < k31;
        invalid |= ok ? 0u : static_cast<uint32_t>(kFlagInvalid);
        const int32_t v = static_cast<int32_t>(kept_or_zero(ok, x));
        return static_cast<Int>(ok ? v : std::numeric_limits<int32_t>::min());
    } else if constexpr (std::is_signed_v<Int> || sizeof(Int) == 4) {
        const bool ok = x >= -k63 && x < k63;
        invalid |= ok ? 0u : static_cast<uint32_t>(kFlagInvalid);
        const int64_t v = static_cast<int64_t>(kept_or_zero(ok, x));
        return static_cast<Int>(ok ? v : std::numeric_limits<int64_t>::min());
    } else {
        // uint64: below 2^63 through int64, [2^63, 2^64) as twice its half
        // through int64 (exact: such x are multiples of 2^40). Both are
        // computed and one kept; a branchy form would keep the loop scalar.
        const bool low = (x >= -k63) & (x < k63);
        const bool high = (x >= k63) & (x < k64);
        invalid |= (low | high) ? 0u : static_cast<uint32_t>(kFlagInvalid);
        const int64_t from_low = static_cast<int64_t>(kept_or_zero(low, x));
        const int64_t half_of_high = static_cast<int64_t>(kept_or_zero(high, x) * 0.5f);
        const uint64_t v = static_cast<uint64_t>(from_low) + (static_cast<uint64_t>(half_of_high) << 1);
        return (low | high) ? v : uint64_t{1} << 63;
    }
}

template <class Int>
MINIFLOAT_KERNEL_INLINE uint32_t convert_all(const float* in, void* out, size_t n) {
    Int* result = static_cast<Int*>(out);
    uint32_t invalid = 0;
    for (size_t i = 0; i < n; i++) result[i] = float_to_integer<Int>(in[i], invalid);
    return invalid;
}

// Targets narrower than 32 bits: int32 first, then its low bits, in two
// passes over a small block (each pass vectorizes; the fused one does not).
template <class Int>
MINIFLOAT_KERNEL_INLINE uint32_t convert_all_narrow(const float* in, void* out, size_t n) {
    constexpr size_t kBlock = 256;
    int32_t wide[kBlock];
    Int* result = static_cast<Int*>(out);
    uint32_t invalid = 0;
    for (size_t start = 0; start < n; start += kBlock) {
        const size_t count = n - start < kBlock ? n - start : kBlock;
        invalid |= convert_all<int32_t>(in + start, wide, count);
        for (size_t i = 0; i < count; i++) result[start + i] = static_cast<Int>(wide[i]);
    }
    return invalid;
}

}  // namespace

MINIFLOAT_SIMD_CLONES
uint32_t floats_to_integers(IntegerKind kind, const float* in, void* out, size_t n) {
    switch (kind) {
        case IntegerKind::i8: return convert_all_narrow<int8_t>(in, out, n);
        case IntegerKind::u8: return convert_all_narrow<uint8_t>(in, out, n);
        case IntegerKind::i16: return convert_all_narrow<int16_t>(in, out, n);
        case IntegerKind::u16: return convert_all_narrow<uint16_t>(in, out, n);
        case IntegerKind::i32: return convert_all<int32_t>(in, out, n);
        case IntegerKind::u32: return convert_all<uint32_t>(in, out, n);
        case IntegerKind::i64: return convert_all<int64_t>(in, out, n);
        case IntegerKind::u64: return convert_all<uint64_t>(in, out, n);
    }
    return 0;
}

}  // namespace minifloat
