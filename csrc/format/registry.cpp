#include "registry.h"

#include <cstring>

#include "codec.h"

namespace minifloat {

namespace {
FormatRuntime g_runtimes[kFormatCount];

// Whether `v` is a value of the IEEE binary format with `precision` bits of
// significand, smallest normal exponent `emin` and largest exponent `emax`.
bool ieee_holds(double v, int precision, int emin, int emax) {
    if (!std::isfinite(v) || v == 0.0) return true;
    int exponent;
    std::frexp(std::fabs(v), &exponent);
    exponent -= 1;
    if (exponent > emax) return false;
    const int ulp_exponent = (exponent < emin ? emin : exponent) - (precision - 1);
    const double scaled = std::ldexp(std::fabs(v), -ulp_exponent);
    return scaled == std::floor(scaled);
}

bool format_holds(const FormatRuntime& rt, double v) {
    const Encoded e = encode_from_double(rt.format, rt.default_specials, v);
    return e.flags == 0 && decode_to_double(rt.format, e.code) == v;
}

bool holds_integer_range(const FormatRuntime& rt, long lo, long hi) {
    for (long i = lo; i <= hi; i++) {
        if (!format_holds(rt, static_cast<double>(i))) return false;
    }
    return true;
}
}  // namespace

FormatRuntime& runtime(int index) { return g_runtimes[index]; }

void init_format_runtimes() {
    for (int i = 0; i < kFormatCount; i++) {
        FormatRuntime& rt = g_runtimes[i];
        const FormatRow& row = kFormatTable[i];
        rt.format = make_format(row, i);
        rt.default_specials = make_special_codes(rt.format, false);
        rt.saturating_specials = make_special_codes(rt.format, true);
        rt.default_plan = make_encode_plan(rt.format, rt.default_specials);
        rt.saturating_plan = make_encode_plan(rt.format, rt.saturating_specials);
        rt.decode_plan = make_decode_plan(rt.format);
        const size_t count = rt.code_count();
        // The tables come from the bulk decoder, so scalar and array paths
        // agree bit for bit (bfloat16 NaN payloads included).
        std::vector<uint16_t> codes(count);
        std::vector<uint8_t> narrow_codes(count);
        for (size_t code = 0; code < count; code++) {
            codes[code] = static_cast<uint16_t>(code);
            narrow_codes[code] = static_cast<uint8_t>(code);
        }
        std::vector<float> values(count);
        decode_to_f32(rt.decode_plan,
                      rt.format.storage_bytes == 1 ? static_cast<const void*>(narrow_codes.data())
                                                   : static_cast<const void*>(codes.data()),
                      values.data(), count);
        rt.decode_f32_bits.resize(count);
        rt.decode_f64.resize(count);
        bool fits16 = true;
        for (size_t code = 0; code < count; code++) {
            std::memcpy(&rt.decode_f32_bits[code], &values[code], sizeof(float));
            rt.decode_f64[code] = static_cast<double>(values[code]);
            if (code <= rt.format.code_mask && !ieee_holds(rt.decode_f64[code], 11, -14, 15)) fits16 = false;
        }
        rt.fits_float16 = fits16;
        rt.scalar_name = std::string("minifloat.") + row.name;
        rt.dtype_name = std::string("minifloat.") + row.dtype_class;
        rt.holds_zero_and_one = format_holds(rt, 0.0) && format_holds(rt, 1.0);
        rt.holds_int8 = holds_integer_range(rt, -128, 127);
        rt.holds_uint8 = holds_integer_range(rt, 0, 255);
        rt.holds_int16 = rt.holds_int8 && holds_integer_range(rt, -32768, 32767);
        rt.holds_uint16 = rt.holds_uint8 && holds_integer_range(rt, 0, 65535);
    }
}

int format_index_of_descr(const PyArray_Descr* descr) {
    if (descr == nullptr) return -1;
    return format_index_of_dtype_class(reinterpret_cast<const PyArray_DTypeMeta*>(Py_TYPE(descr)));
}

int format_index_of_dtype_class(const PyArray_DTypeMeta* cls) {
    for (int i = 0; i < kFormatCount; i++) {
        if (cls == &g_runtimes[i].dtype_class) return i;
    }
    return -1;
}

int format_index_of_name(const char* name) {
    for (int i = 0; i < kFormatCount; i++) {
        if (std::strcmp(kFormatTable[i].name, name) == 0) return i;
    }
    return -1;
}

int format_index_of_scalar_type(const PyTypeObject* type) {
    for (int i = 0; i < kFormatCount; i++) {
        if (type == &g_runtimes[i].scalar_type) return i;
    }
    return -1;
}

}  // namespace minifloat
