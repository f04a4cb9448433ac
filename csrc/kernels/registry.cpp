#include "registry.h"

#include <atomic>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "codec.h"

namespace minifloat {

namespace {
// Published with release once made; read without a lock by kernels.
std::atomic<FormatRuntime*> g_runtimes[kMaxFormats] = {};
std::atomic<int> g_format_count{0};

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

namespace {

// Exact float32 bits of a code's value; NaN is the quiet NaN with the
// code's sign bit (every value of every format is a float32: row_problem).
uint32_t exact_float32_bits(const Format& f, uint32_t code) {
    const double v = decode_to_double(f, code);
    if (std::isnan(v)) return 0x7FC00000u | (std::signbit(v) ? 0x80000000u : 0u);
    const float single = static_cast<float>(v);
    uint32_t bits;
    std::memcpy(&bits, &single, sizeof bits);
    return bits;
}

void fill_runtime(FormatRuntime& rt, int index) {
    rt.row.name = rt.name.c_str();
    rt.row.dtype_class = rt.dtype_class_name.c_str();
    rt.format = make_format(rt.row, index);
    rt.default_specials = make_special_codes(rt.format, false);
    rt.saturating_specials = make_special_codes(rt.format, true);
    rt.default_plan = make_encode_plan(rt.format, rt.default_specials);
    rt.saturating_plan = make_encode_plan(rt.format, rt.saturating_specials);
    const size_t count = rt.code_count();
    rt.exact_f32_bits.resize(count);
    for (size_t code = 0; code < count; code++) {
        rt.exact_f32_bits[code] = exact_float32_bits(rt.format, static_cast<uint32_t>(code) & rt.format.code_mask);
    }
    rt.decode_plan = make_decode_plan(rt.format, rt.exact_f32_bits.data());
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
    rt.holds_zero_and_one = format_holds(rt, 0.0) && format_holds(rt, 1.0);
    rt.holds_int8 = holds_integer_range(rt, -128, 127);
    rt.holds_uint8 = holds_integer_range(rt, 0, 255);
    rt.holds_int16 = rt.holds_int8 && holds_integer_range(rt, -32768, 32767);
    rt.holds_uint16 = rt.holds_uint8 && holds_integer_range(rt, 0, 65535);
}

int publish(FormatRuntime* rt) {
    const int index = g_format_count.load(std::memory_order_relaxed);
    if (index >= kMaxFormats) {
        delete rt;
        throw std::length_error("minifloat holds at most " + std::to_string(kMaxFormats) + " formats");
    }
    fill_runtime(*rt, index);
    g_runtimes[index].store(rt, std::memory_order_release);
    g_format_count.store(index + 1, std::memory_order_release);
    return index;
}
}  // namespace

FormatRuntime& runtime(int index) { return *g_runtimes[index].load(std::memory_order_acquire); }

int format_count() { return g_format_count.load(std::memory_order_acquire); }

void init_format_runtimes() {
    for (const FormatRow& row : kFormatTable) {
        auto* rt = new FormatRuntime();
        rt->row = row;
        rt->name = row.name;
        rt->dtype_class_name = row.dtype_class;
        publish(rt);
    }
}

int add_format_runtime(const FormatRow& row, const std::string& name, const std::string& dtype_class_name) {
    if (const char* problem = row_problem(row)) throw std::invalid_argument(problem);
    auto* rt = new FormatRuntime();
    rt->row = row;
    rt->name = name;
    rt->dtype_class_name = dtype_class_name;
    return publish(rt);
}

int format_index_of_name(const char* name) {
    const int count = format_count();
    for (int i = 0; i < count; i++) {
        if (runtime(i).name == name) return i;
    }
    return -1;
}

}  // namespace minifloat
