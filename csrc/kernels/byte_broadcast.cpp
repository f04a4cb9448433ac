#include "byte_broadcast.h"

#include <cstring>

#include "op_tables.h"

namespace minifloat {

void lookup_pair_row(const uint8_t* pair_table, uint8_t broadcast, bool broadcast_is_first, const uint8_t* in,
                     uint8_t* out, size_t n) {
    if (broadcast_is_first) {
        lookup_bytes(pair_table + (broadcast << 8), in, out, n);
        return;
    }
    uint8_t row[256];
    pair_table_row(pair_table, broadcast, false, row);
    lookup_bytes(row, in, out, n);
}

uint32_t lookup_entry_row(const uint16_t row[256], const uint8_t* in, uint8_t* out, size_t n) {
    uint8_t codes[256], flags[256];
    for (unsigned v = 0; v < 256; v++) {
        codes[v] = static_cast<uint8_t>(row[v]);
        flags[v] = static_cast<uint8_t>(row[v] >> 8);
    }
    return lookup_bytes_with_flags(codes, flags, in, out, n);
}

void select_with_broadcast(KeySelection op, const uint8_t* keys256, uint8_t c, bool broadcast_is_first,
                           const uint8_t* x, uint8_t* out, size_t n) {
    uint8_t row[256];
    selection_row(op, keys256, c, broadcast_is_first, row);
    lookup_bytes(row, x, out, n);
}

void selection_row(KeySelection op, const uint8_t* keys256, uint8_t c, bool broadcast_is_first, uint8_t row[256]) {
    for (unsigned v = 0; v < 256; v++) {
        const uint8_t code = static_cast<uint8_t>(v);
        if (broadcast_is_first) {
            row[v] = first_is_selected(op, keys256[c], keys256[code], 255) ? c : code;
        } else {
            row[v] = first_is_selected(op, keys256[code], keys256[c], 255) ? code : c;
        }
    }
}

uint8_t reduce_select(KeySelection op, const uint8_t* keys256, const uint8_t* nan_lowest256, uint8_t acc,
                      const uint8_t* in, size_t n) {
    if (n == 0) return acc;
    const uint8_t found = in[select_position(op, keys256, nan_lowest256, in, n)];
    return first_is_selected(op, keys256[acc], keys256[found], 255) ? acc : found;
}

size_t select_position(KeySelection op, const uint8_t* keys256, const uint8_t* nan_lowest256, const uint8_t* in,
                       size_t n) {
    // Ranks whose extreme is the code op ends with: the keys (NaN 255) for
    // maximum (NaN wins the max) and fmin (NaN loses the min), NaN lowest
    // for fmax and minimum.
    const bool nan_low = op == KeySelection::fmax || op == KeySelection::minimum;
    const bool take_max = op == KeySelection::maximum || op == KeySelection::fmax;
    const uint8_t* rank = nan_low ? nan_lowest256 : keys256;
    constexpr size_t kChunk = 4096;
    alignas(64) uint8_t ranks[kChunk];
    size_t best = 0;
    int best_rank = -1;
    for (size_t start = 0; start < n; start += kChunk) {
        const size_t count = n - start < kChunk ? n - start : kChunk;
        lookup_bytes(rank, in + start, ranks, count);
        uint8_t extreme = ranks[0];  // vectorized (a byte max/min)
        if (take_max) {
            for (size_t i = 0; i < count; i++) extreme = ranks[i] > extreme ? ranks[i] : extreme;
        } else {
            for (size_t i = 0; i < count; i++) extreme = ranks[i] < extreme ? ranks[i] : extreme;
        }
        // strictly better than earlier chunks: ties keep the earlier code
        if (best_rank < 0 || (take_max ? extreme > best_rank : extreme < best_rank)) {
            best_rank = extreme;
            best = start + static_cast<size_t>(static_cast<const uint8_t*>(std::memchr(ranks, extreme, count)) - ranks);
            if (best_rank == (take_max ? 255 : 0)) break;  // nothing can beat it
        }
    }
    return best;
}

}  // namespace minifloat
