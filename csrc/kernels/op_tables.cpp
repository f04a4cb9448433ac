#include "op_tables.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <vector>

#include "codec.h"
#include "op_eval.h"
#include "once_value.h"
#include "per_format.h"
#include "registry.h"

namespace minifloat {

namespace {

// A 256-entry or 64K-entry table made on first use (once_value.h).
template <class Entry>
struct LazyTable {
    OnceValue<std::vector<Entry>> table;

    template <class Build>
    const Entry* get(Build&& build) {
        return table.get(build).data();
    }
    // The entries when made, else nullptr (never waits for a build).
    const Entry* if_made() const {
        const std::vector<Entry>* entries = table.if_made();
        return entries == nullptr ? nullptr : entries->data();
    }
    bool empty_when_made() const { return table.if_made()->empty(); }
};

// Rows of one binary op's pair table made one at a time: [side][c][v], side
// 1 when the fixed operand c is the first. A row is written once, under
// g_row_mutex, before its ready flag is set.
struct BinaryRows {
    std::atomic<bool> ready[2][256] = {};
    uint16_t entries[2][256][256];
};
std::mutex g_row_mutex;

constexpr int kBinaryOps = static_cast<int>(BinaryOp::count);
constexpr int kUnaryOps = static_cast<int>(UnaryOp::count);
constexpr int kCompareOps = static_cast<int>(CompareOp::count);
constexpr int kPredicates = static_cast<int>(Predicate::count);

PerFormat<std::array<LazyTable<uint16_t>, kBinaryOps>> g_binary;
PerFormat<std::array<std::atomic<BinaryRows*>, kBinaryOps>> g_binary_rows;  // made on first use, kept
PerFormat<LazyTable<uint16_t>> g_nextafter;
PerFormat<std::array<LazyTable<uint8_t>, kCompareOps>> g_compare;
PerFormat<std::array<LazyTable<uint32_t>, kUnaryOps>> g_unary;
PerFormat<LazyTable<uint32_t>> g_spacing;
PerFormat<std::array<LazyTable<uint8_t>, kPredicates>> g_predicate;
PerFormat<std::array<LazyTable<uint8_t>, kUnaryOps>> g_unary_bytes;
PerFormat<LazyTable<uint8_t>> g_spacing_bytes;
PerFormat<LazyTable<uint8_t>> g_order_keys;
PerFormat<LazyTable<uint8_t>> g_nan_lowest_keys;
PerFormat<LazyTable<SignedKeyRule>> g_signed_key_rules;  // empty: no rule

void split_entries(const uint32_t* entries, std::vector<uint8_t>& map) {
    map.resize(512);
    for (int code = 0; code < 256; code++) {
        map[code] = static_cast<uint8_t>(entries[code]);
        map[256 + code] = static_cast<uint8_t>(entries[code] >> 16);
    }
}

// Distinct values of a format in increasing order (zero once, infinities
// included), for stepping with nextafter.
struct ValueLadder {
    std::once_flag once;
    std::vector<double> values;
};
PerFormat<ValueLadder> g_ladders;

const std::vector<double>& ladder(int format) {
    ValueLadder& l = g_ladders[format];
    std::call_once(l.once, [&] {
        const FormatRuntime& rt = runtime(format);
        for (uint32_t code = 0; code <= rt.format.code_mask; code++) {
            const double v = rt.decode_f64[code];
            if (!std::isnan(v)) l.values.push_back(v == 0.0 ? 0.0 : v);
        }
        std::sort(l.values.begin(), l.values.end());
        l.values.erase(std::unique(l.values.begin(), l.values.end()), l.values.end());
    });
    return l.values;
}

// The code of the value one step from `code` in `direction` (+1 up, -1 down).
uint32_t step_code(int format, uint32_t code, int direction, uint32_t* flags) {
    const FormatRuntime& rt = runtime(format);
    const std::vector<double>& values = ladder(format);
    const double x = rt.decode_f64[code];
    double next;
    if (direction > 0) {
        auto it = std::upper_bound(values.begin(), values.end(), x);
        if (it == values.end()) {
            // Past the largest value: inf where the format has it, else the
            // format's overflow result.
            const Encoded e = encode_from_double(rt.format, rt.default_specials, 2.0 * x);
            *flags |= kFlagOverflow;
            return e.code;
        }
        next = *it;
        if (std::isinf(next) && !std::isinf(x)) *flags |= kFlagOverflow;
    } else {
        auto it = std::lower_bound(values.begin(), values.end(), x);
        if (it == values.begin()) {
            const Encoded e = encode_from_double(rt.format, rt.default_specials,
                                                 std::isinf(x) ? x : (x > 0 ? 0.0 : 2.0 * x));
            *flags |= e.flags | (x > 0 ? 0u : uint32_t{kFlagOverflow});
            return e.code;
        }
        next = *(it - 1);
        if (std::isinf(next) && !std::isinf(x)) *flags |= kFlagOverflow;
    }
    // Stepping to zero keeps the side it came from (-min -> -0).
    if (next == 0.0 && x < 0) next = -0.0;
    const Encoded e = encode_from_double(rt.format, rt.default_specials, next);
    *flags |= e.flags;
    return e.code;
}

double truthy(double v) { return v != 0.0; }

// IEEE 754 5.5.1: negate and abs act on the sign bit alone, so a NaN keeps
// its payload (float16 does the same). Where the sign bit of every code is a
// pure sign (formats with -0, their NaNs included) that is the whole rule.
// Elsewhere the value rule applies: fnuz formats have one NaN, the -0 code,
// which stays as it is; float8_e8m0fnu has no sign. +x is x, bit for bit.
bool sign_bit_result(const Format& f, UnaryOp op, uint32_t code, uint32_t* result) {
    if (op == UnaryOp::positive) {
        *result = code;
        return true;
    }
    if (!f.has_negative_zero) return false;
    if (op == UnaryOp::negative) {
        *result = code ^ f.sign_bit;
        return true;
    }
    if (op == UnaryOp::absolute) {
        *result = code & ~f.sign_bit;
        return true;
    }
    return false;
}

}  // namespace

uint32_t next_code_toward(int format, uint32_t code, uint32_t target, uint32_t* flags) {
    const FormatRuntime& rt = runtime(format);
    const double x = rt.decode_f64[code];
    const double y = rt.decode_f64[target];
    if (std::isnan(x) || std::isnan(y)) {
        return encode_from_double(rt.format, rt.default_specials, x + y).code;
    }
    if (x == y) return code;  // NumPy's float16: the first operand (+0 vs -0)
    return step_code(format, code, y > x ? 1 : -1, flags);
}

bool compare_values(CompareOp op, double a, double b) {
    switch (op) {
        case CompareOp::equal: return a == b;
        case CompareOp::not_equal: return a != b;
        case CompareOp::less: return std::isless(a, b);
        case CompareOp::less_equal: return std::islessequal(a, b);
        case CompareOp::greater: return std::isgreater(a, b);
        case CompareOp::greater_equal: return std::isgreaterequal(a, b);
        case CompareOp::logical_and: return truthy(a) && truthy(b);
        case CompareOp::logical_or: return truthy(a) || truthy(b);
        case CompareOp::logical_xor: return truthy(a) != truthy(b);
        case CompareOp::count: break;
    }
    return false;
}

const uint16_t* binary_table(int format, BinaryOp op) {
    return g_binary[format][static_cast<int>(op)].get([&](std::vector<uint16_t>& t) {
        const FormatRuntime& rt = runtime(format);
        t.resize(kPairTableEntries);
        FpFlagScope scope;
        for (uint32_t a = 0; a < 256; a++) {
            for (uint32_t b = 0; b < 256; b++) {
                const Encoded e = evaluate_binary(rt, scope, op, a, b);
                t[a << 8 | b] = static_cast<uint16_t>(e.code | (e.flags << 8));
            }
        }
    });
}

namespace {

const uint16_t* made_row(int format, BinaryOp op, uint8_t c, bool broadcast_is_first) {
    const BinaryRows* rows = g_binary_rows[format][static_cast<int>(op)].load(std::memory_order_acquire);
    if (rows == nullptr || !rows->ready[broadcast_is_first][c].load(std::memory_order_acquire)) return nullptr;
    return rows->entries[broadcast_is_first][c];
}

}  // namespace

bool binary_table_made(int format, BinaryOp op) {
    return g_binary[format][static_cast<int>(op)].if_made() != nullptr;
}

bool binary_row_ready(int format, BinaryOp op, uint8_t c, bool broadcast_is_first) {
    return g_binary[format][static_cast<int>(op)].if_made() != nullptr ||
           made_row(format, op, c, broadcast_is_first) != nullptr;
}

void binary_row(int format, BinaryOp op, uint8_t c, bool broadcast_is_first, uint16_t row[256]) {
    if (const uint16_t* table = g_binary[format][static_cast<int>(op)].if_made()) {
        pair_table_row(table, c, broadcast_is_first, row);
        return;
    }
    const uint16_t* made = made_row(format, op, c, broadcast_is_first);
    if (made == nullptr) {
        std::lock_guard<std::mutex> lock(g_row_mutex);
        std::atomic<BinaryRows*>& slot = g_binary_rows[format][static_cast<int>(op)];
        BinaryRows* rows = slot.load(std::memory_order_acquire);
        if (rows == nullptr) {
            rows = new BinaryRows();  // kept for the life of the process, as the tables are
            slot.store(rows, std::memory_order_release);
        }
        uint16_t* entries = rows->entries[broadcast_is_first][c];
        if (!rows->ready[broadcast_is_first][c].load(std::memory_order_acquire)) {
            const FormatRuntime& rt = runtime(format);
            FpFlagScope scope;
            for (uint32_t v = 0; v < 256; v++) {
                const Encoded e = broadcast_is_first ? evaluate_binary(rt, scope, op, c, v)
                                                     : evaluate_binary(rt, scope, op, v, c);
                entries[v] = static_cast<uint16_t>(e.code | (e.flags << 8));
            }
            rows->ready[broadcast_is_first][c].store(true, std::memory_order_release);
        }
        made = entries;
    }
    std::memcpy(row, made, 256 * sizeof(uint16_t));
}

const uint16_t* nextafter_table(int format) {
    return g_nextafter[format].get([&](std::vector<uint16_t>& t) {
        t.resize(kPairTableEntries);
        for (uint32_t a = 0; a < 256; a++) {
            for (uint32_t b = 0; b < 256; b++) {
                uint32_t flags = 0;
                const uint32_t code = next_code_toward(format, a & runtime(format).format.code_mask,
                                                       b & runtime(format).format.code_mask, &flags);
                t[a << 8 | b] = static_cast<uint16_t>(code | (flags << 8));
            }
        }
    });
}

const uint8_t* compare_table(int format, CompareOp op) {
    return g_compare[format][static_cast<int>(op)].get([&](std::vector<uint8_t>& t) {
        const FormatRuntime& rt = runtime(format);
        t.resize(65536);
        for (uint32_t a = 0; a < 256; a++) {
            for (uint32_t b = 0; b < 256; b++) {
                t[a << 8 | b] = compare_values(op, rt.decode_f64[a], rt.decode_f64[b]);
            }
        }
    });
}

const uint32_t* unary_table(int format, UnaryOp op) {
    return g_unary[format][static_cast<int>(op)].get([&](std::vector<uint32_t>& t) {
        const FormatRuntime& rt = runtime(format);
        const size_t count = rt.code_count();
        t.resize(count);
        FpFlagScope scope;
        for (uint32_t a = 0; a < count; a++) {
            uint32_t bits;
            if (sign_bit_result(rt.format, op, a, &bits)) {
                t[a] = bits;
                continue;
            }
            const Encoded e = evaluate_unary(rt, scope, op, a);
            t[a] = e.code | (e.flags << 16);
        }
    });
}

const uint32_t* spacing_table(int format) {
    return g_spacing[format].get([&](std::vector<uint32_t>& t) {
        const FormatRuntime& rt = runtime(format);
        const size_t count = rt.code_count();
        t.resize(count);
        FpFlagScope scope;
        for (uint32_t a = 0; a < count; a++) {
            const double x = rt.decode_f64[a];
            uint32_t flags = 0;
            double spacing;
            if (std::isnan(x)) {
                spacing = x;
            } else if (std::isinf(x)) {
                spacing = std::nan("");
                flags |= kFlagInvalid;
            } else {
                const uint32_t next = step_code(format, a & rt.format.code_mask,
                                                std::signbit(x) ? -1 : 1, &flags);
                scope.clear();
                volatile double d = rt.decode_f64[next] - x;
                spacing = d;
                flags |= scope.raised();
            }
            const Encoded e = round_result(rt, spacing, flags);
            t[a] = e.code | (e.flags << 16);
        }
    });
}

const uint8_t* predicate_table(int format, Predicate p) {
    return g_predicate[format][static_cast<int>(p)].get([&](std::vector<uint8_t>& t) {
        const FormatRuntime& rt = runtime(format);
        const size_t count = rt.code_count();
        t.resize(count);
        for (uint32_t a = 0; a < count; a++) {
            const double v = rt.decode_f64[a];
            bool r = false;
            switch (p) {
                case Predicate::isnan: r = std::isnan(v); break;
                case Predicate::isinf: r = std::isinf(v); break;
                case Predicate::isfinite: r = std::isfinite(v); break;
                case Predicate::signbit: r = std::signbit(v); break;
                case Predicate::logical_not: r = v == 0.0; break;
                case Predicate::count: break;
            }
            t[a] = r;
        }
    });
}

}  // namespace minifloat

namespace minifloat {

const uint8_t* unary_byte_map(int format, UnaryOp op) {
    return g_unary_bytes[format][static_cast<int>(op)].get(
        [&](std::vector<uint8_t>& map) { split_entries(unary_table(format, op), map); });
}

const uint8_t* spacing_byte_map(int format) {
    return g_spacing_bytes[format].get(
        [&](std::vector<uint8_t>& map) { split_entries(spacing_table(format), map); });
}

const uint8_t* order_key_bytes(int format) {
    return g_order_keys[format].get([&](std::vector<uint8_t>& keys) {
        const FormatRuntime& rt = runtime(format);
        const std::vector<double>& values = ladder(format);  // distinct non-NaN values, sorted
        keys.resize(256);
        for (int code = 0; code < 256; code++) {
            const double v = rt.decode_f64[code];
            keys[code] = std::isnan(v) ? 255
                                       : static_cast<uint8_t>(std::lower_bound(values.begin(), values.end(),
                                                                                v == 0.0 ? 0.0 : v) -
                                                              values.begin());
        }
    });
}

const uint8_t* nan_lowest_key_bytes(int format) {
    return g_nan_lowest_keys[format].get([&](std::vector<uint8_t>& ranks) {
        const uint8_t* keys = order_key_bytes(format);
        ranks.resize(256);
        for (int code = 0; code < 256; code++) ranks[code] = keys[code] == 255 ? 0 : keys[code] + 1;
    });
}

const SignedKeyRule* signed_key_rule(int format) {
    const SignedKeyRule* rule = g_signed_key_rules[format].get([&](std::vector<SignedKeyRule>& rules) {
        SignedKeyRule r;
        if (make_signed_key_rule(runtime(format).format, order_key_bytes(format), r)) rules.push_back(r);
    });
    return g_signed_key_rules[format].empty_when_made() ? nullptr : rule;
}

}  // namespace minifloat
