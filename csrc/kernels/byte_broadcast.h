// 8-bit comparisons, selections and arithmetic where NumPy hands the loop a
// broadcast operand (x > 0, np.maximum(x, 0), np.clip(x, lo, hi), x * 2.0)
// or a reduction (x.max(), np.fmin.reduce(x)): turned into the vectorized
// byte kernels of lookup_kernels.h instead of one table read per element.
#pragma once

#include <cstddef>
#include <cstdint>

#include "lookup_kernels.h"

namespace minifloat {

// Below this many elements a loop call does not use a row built for its
// broadcast operand (256 entries) often enough to pay for it: the element
// loop serves it (NumPy calls a loop per row of a broadcast, so short rows
// are common).
constexpr size_t kBroadcastRowMinimum = 1024;

// out[i] = pair_table[a[i] << 8 | b] (b broadcast) or pair_table[a << 8 |
// b[i]]: the 256-entry row of the broadcast operand, looked up per byte (a
// broadcast first operand's row is already one in the table).
void lookup_pair_row(const uint8_t* pair_table, uint8_t broadcast, bool broadcast_is_first, const uint8_t* in,
                     uint8_t* out, size_t n);

// out[i] = the code of row[in[i]], for a row of (code | flags << 8)
// entries (op_tables.h binary_row); returns the OR of their flags.
uint32_t lookup_entry_row(const uint16_t row[256], const uint8_t* in, uint8_t* out, size_t n);

// row[v] = the code op chooses from v and the broadcast code c (c second
// when broadcast_is_first is false), by first_is_selected on order keys.
void selection_row(KeySelection op, const uint8_t* keys256, uint8_t c, bool broadcast_is_first, uint8_t row[256]);

// out[i] = row[x[i]] for that row.
void select_with_broadcast(KeySelection op, const uint8_t* keys256, uint8_t c, bool broadcast_is_first,
                           const uint8_t* x, uint8_t* out, size_t n);

// The position of the code op(...op(in[0], in[1])..., in[n - 1]) gives
// (n >= 1): the first code with the extreme key, NaN winning or losing as
// op says. np.argmax is the maximum's, np.argmin the minimum's. `keys256`
// and `nan_lowest256` are the format's order_key_bytes and
// nan_lowest_key_bytes (op_tables.h).
size_t select_position(KeySelection op, const uint8_t* keys256, const uint8_t* nan_lowest256, const uint8_t* in,
                       size_t n);

// The code op(...op(op(acc, in[0]), in[1])..., in[n - 1]) gives.
uint8_t reduce_select(KeySelection op, const uint8_t* keys256, const uint8_t* nan_lowest256, uint8_t acc,
                      const uint8_t* in, size_t n);

}  // namespace minifloat
