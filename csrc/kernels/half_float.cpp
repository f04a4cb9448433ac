#include "half_float.h"

#include <cstring>
#include <vector>

#include "codec.h"
#include "fp_status.h"
#include "rounding.h"
#include "simd_dispatch.h"

namespace minifloat {

namespace {
constexpr FormatRow kHalfRow = {"float16",        "Float16DType",        16,
                                 5,                10,                    15,
                                 row_fields::kSigned, Infinities::ieee,   NanCodes::ieee,
                                 row_fields::kNegativeZero, row_fields::kSubnormals, Overflow::to_infinity,
                                 'e'};

HalfFloatCodec build() {
    HalfFloatCodec c;
    c.format = make_format(kHalfRow, -1);
    c.plan = make_encode_plan(c.format, make_special_codes(c.format, false));
    static std::vector<uint32_t> table(65536);
    for (uint32_t code = 0; code < 65536; code++) {
        const float f = static_cast<float>(decode_to_double(c.format, code));
        std::memcpy(&table[code], &f, sizeof f);
    }
    // NaN payloads survive like a hardware conversion does.
    for (uint32_t code = 0; code < 65536; code++) {
        if (c.format.code_is_nan(code)) {
            table[code] = ((code & 0x8000u) << 16) | 0x7F800000u | ((code & 0x3FFu) << 13);
        }
    }
    c.float32_bits = table.data();
    return c;
}
}  // namespace

const HalfFloatCodec& half_float_codec() {
    static const HalfFloatCodec codec = build();
    return codec;
}

MINIFLOAT_SIMD_CLONES
uint32_t float16_underflow(const float* values, const uint16_t* halves, size_t n) {
    constexpr uint32_t kSmallestNormalHalf = 0x38800000u;  // 2^-14 as float32 bits
    const uint32_t* bits = reinterpret_cast<const uint32_t*>(values);
    uint32_t any_tiny = 0;  // a bool would keep this loop scalar
    for (size_t i = 0; i < n; i++) {
        const uint32_t magnitude = bits[i] & 0x7FFFFFFFu;
        any_tiny |= static_cast<uint32_t>((magnitude - 1) < (kSmallestNormalHalf - 1));  // nonzero and below
    }
    if (any_tiny == 0) return 0;
    const uint32_t* widened = half_float_codec().float32_bits;
    for (size_t i = 0; i < n; i++) {
        const uint32_t magnitude = bits[i] & 0x7FFFFFFFu;
        if ((magnitude - 1) < (kSmallestNormalHalf - 1) && widened[halves[i]] != bits[i]) return kFlagUnderflow;
    }
    return 0;
}

}  // namespace minifloat
