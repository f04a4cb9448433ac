#include "half_float.h"

#include <cstring>
#include <vector>

#include "codec.h"
#include "rounding.h"

namespace minifloat {

namespace {
constexpr FormatRow kHalfRow = {"float16", "Float16DType", 16, 5, 10, 15, Specials::ieee, 'e'};

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

}  // namespace minifloat
