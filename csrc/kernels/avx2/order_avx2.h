// Comparisons and maximum/minimum of 8-bit codes with AVX2. AVX2 has no
// 256-entry byte permute, so instead of looking up order keys (see
// lookup_kernels.h) each code's key is computed with a few byte operations:
// a sign-magnitude code becomes the signed byte +-magnitude (so +0 and -0
// tie), an unsigned one is offset into signed order, and NaN is a range or
// a single code. The rule is checked against the format's order keys when
// it is made, so a format it does not describe simply keeps the table path.
#pragma once

#include <cstddef>
#include <cstdint>

#include "format.h"
#include "lookup_kernels.h"

namespace minifloat {

struct SignedKeyRule {
    uint8_t code_mask = 0xFF;             // the code's bits within its byte
    uint8_t doublings = 0;                // left shifts putting the sign bit at bit 7
    bool is_unsigned = false;             // float8_e8m0fnu: codes already in value order
    uint8_t nan_magnitude_above = 0x7F;   // shifted magnitudes above this are NaN
    bool nan_is_negative_zero = false;    // fnuz: the code with only the sign bit is NaN
    uint8_t unsigned_nan_code = 0xFF;     // the NaN of an unsigned format
    bool has_zero = true;                 // false: magnitude 0 is the smallest normal, so the keys
                                          // are +-(magnitude + 1) and +-min do not tie
};

// The rule for format `f`, if it orders (and ties, and finds NaN in) all 256
// byte values exactly as `keys256` (NaN = 255) does.
bool make_signed_key_rule(const Format& f, const uint8_t* keys256, SignedKeyRule& rule);

// The signed key of one code, and whether it is NaN (the vector rule, scalar).
int8_t signed_key(const SignedKeyRule& rule, uint8_t code, bool& nan);

// out[i] = a[i] op b[i] as 0/1 (NaN compares false except not_equal), or
// the chosen code of a[i] and b[i] (the rules of first_is_selected).
// Return false, doing nothing, when the CPU cannot run the AVX2 kernels.
bool compare_codes_avx2(KeyComparison op, const SignedKeyRule& rule, const uint8_t* a, const uint8_t* b,
                        uint8_t* out, size_t n);
bool select_codes_avx2(KeySelection op, const SignedKeyRule& rule, const uint8_t* a, const uint8_t* b,
                       uint8_t* out, size_t n);

}  // namespace minifloat
