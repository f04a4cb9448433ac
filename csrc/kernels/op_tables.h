// Precomputed results of every operation on every code (pair) of a format,
// built once on first use and shared by all threads. An 8-bit binary op is
// a 64K table of (result code | flags << 8); a unary op covers every code
// (256 or 65536) as (result code | flags << 16). Building a table evaluates
// the exact rule of op_eval.h, so table lookups are correctly rounded.
#pragma once

#include <cstdint>

#include "math_ops.h"
#include "order_avx2.h"

namespace minifloat {

enum class CompareOp : uint8_t {
    equal, not_equal, less, less_equal, greater, greater_equal,
    logical_and, logical_or, logical_xor,
    count
};

enum class Predicate : uint8_t { isnan, isinf, isfinite, signbit, logical_not, count };

// 65536 entries indexed by (a << 8 | b); 8-bit formats only.
const uint16_t* binary_table(int format, BinaryOp op);
const uint16_t* nextafter_table(int format);

// Row c of a pair table indexed (a << 8 | b): row[v] = the entry for
// (c, v) when c is the first operand, else for (v, c).
template <class Entry>
inline void pair_table_row(const Entry* table, uint8_t c, bool c_is_first, Entry row[256]) {
    for (unsigned v = 0; v < 256; v++) row[v] = table[c_is_first ? (c << 8 | v) : (v << 8 | c)];
}

// One row of binary_table: row[v] = the entry for (c op v) when
// broadcast_is_first, else for (v op c), over every code v. Taken from the
// whole table when it has been made; otherwise this row alone is made (256
// evaluations of the same rule) and kept, so a scalar operand does not cost
// 64K evaluations.
void binary_row(int format, BinaryOp op, uint8_t c, bool broadcast_is_first, uint16_t row[256]);

// Whether binary_table(format, op) has been made (never waits for it).
bool binary_table_made(int format, BinaryOp op);

// Whether binary_row can answer without evaluating anything.
bool binary_row_ready(int format, BinaryOp op, uint8_t c, bool broadcast_is_first);
const uint8_t* compare_table(int format, CompareOp op);

// One entry per code.
const uint32_t* unary_table(int format, UnaryOp op);
const uint32_t* spacing_table(int format);
const uint8_t* predicate_table(int format, Predicate p);

// 8-bit formats: the same results split into 256 result codes followed by
// 256 flag bytes, for the byte-map kernels.
const uint8_t* unary_byte_map(int format, UnaryOp op);
const uint8_t* spacing_byte_map(int format);

// 8-bit formats: order key per code (NaN 255, equal values equal keys).
const uint8_t* order_key_bytes(int format);

// The same order with NaN lowest: NaN 0, every other key one up (non-NaN
// keys stay below 255), for reductions where NaN wins a minimum or loses a
// maximum.
const uint8_t* nan_lowest_key_bytes(int format);

// 8-bit formats: the byte-arithmetic form of those keys for the AVX2
// kernels (order_avx2.h), or nullptr when the format has none.
const SignedKeyRule* signed_key_rule(int format);

// The code one step from `code` toward `target` (NumPy's nextafter), with
// the FpFlag bits of the step (overflow past the largest value).
uint32_t next_code_toward(int format, uint32_t code, uint32_t target, uint32_t* flags);

bool compare_values(CompareOp op, double a, double b);

}  // namespace minifloat
