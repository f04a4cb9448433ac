#include "mx_kernels.h"
#include "bit_scan.h"
#include "fp_status.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "codec.h"
#include "memory_streams.h"
#include "mx_avx2.h"
#include "mx_avx512.h"
#include "simd_dispatch.h"

namespace minifloat {

namespace {

constexpr uint32_t kInfBits = 0x7F800000u;

MINIFLOAT_KERNEL_INLINE uint32_t largest_magnitude(const float* v, size_t n) {
    const uint32_t* bits = reinterpret_cast<const uint32_t*>(v);
    uint32_t amax = 0;
    for (size_t i = 0; i < n; i++) amax = std::max(amax, bits[i] & 0x7FFFFFFFu);  // orders like the values
    return amax;
}

// 2^-E for E in [-127, 127], as float32 (2^-127 is subnormal).
struct ScaleFactors {
    float value[255];
    ScaleFactors() {
        for (int e = -127; e <= 127; e++) value[e + 127] = std::ldexp(1.0f, -e);
    }
};
const ScaleFactors& scale_factors() {
    static const ScaleFactors factors;
    return factors;
}

// Values per pass (scale, then encode from L1 or L2), by where the
// operation's data live (memory_streams.h; float32 in, a byte out). Within
// the cache, enough to amortize the encoder calls (4M values, one thread of
// a Zen 5 VM: nvfp4 1.32 -> 1.06 ms, mxfp4 1.02 -> 0.75 with 16384);
// beyond it, short enough that the input stream from memory barely pauses
// while a pass encodes (1024 beat 512, 2048 and 4096 by 15-30%; 16384 took
// mxfp4 at 67M values from 26 to 29 ms, rows of 4096 from 30 to 34).
size_t pass_values(size_t cols) { return operation_beyond_cache(cols, sizeof(float) + 1) ? 1024 : 16384; }

size_t blocks_per_pass(size_t values, size_t block) { return std::max<size_t>(1, values / block); }

// One pass over a row: blocks first .. first + blocks - 1, which hold the
// `count` values from `start` (the last block may be partial).
struct Pass {
    size_t first, blocks, start, count;
};

// Calls pass_fn(Pass) for consecutive passes of `per_pass` blocks covering a row of `cols`.
template <class PassFn>
MINIFLOAT_KERNEL_INLINE void for_each_pass(size_t cols, size_t block, size_t per_pass, PassFn&& pass_fn) {
    const size_t blocks = blocks_covering(cols, block);
    for (size_t first = 0; first < blocks; first += per_pass) {
        const size_t pass_blocks = std::min(per_pass, blocks - first);
        const size_t start = first * block;
        pass_fn(Pass{first, pass_blocks, start, std::min(cols, (first + pass_blocks) * block) - start});
    }
}

// One pass of blocks: scales, and the scaled values ready for the encoder.
// Block is the block size when known at compile time (0: `block`).
template <size_t Block>
MINIFLOAT_KERNEL_INLINE void scale_blocks(const float* row, size_t count, size_t block, const MxElement& e,
                                          ScaleMode mode, float* scaled, uint8_t* scales, uint8_t* non_finite) {
    if constexpr (Block != 0) block = Block;
    const ScaleFactors& factors = scale_factors();
    const float unit = e.plan == nullptr ? 64.0f : 1.0f;
    const float limit = element_limit(e);
    const size_t pass_blocks = blocks_covering(count, block);
    for (size_t b = 0; b < pass_blocks; b++) {
        const size_t offset = b * block;
        const size_t length = std::min(block, count - offset);
        const bool whole = Block != 0 && length == block;
        const uint32_t amax = whole ? largest_magnitude(row + offset, Block) : largest_magnitude(row + offset, length);
        non_finite[b] = amax >= kInfBits;
        int exponent = -127;  // all-zero blocks: 2^-127
        if (amax >= kInfBits) {
            scales[b] = 0xFF;
        } else {
            if (amax != 0) exponent = shared_exponent_inline(amax, e, mode);
            scales[b] = static_cast<uint8_t>(exponent + 127);
        }
        // V / 2^E is exact in float32 wherever the element can hold it;
        // MXINT8 then counts in 2^-6 steps
        const float factor = factors.value[exponent + 127];
        const float* in = row + offset;
        float* out = scaled + offset;
        if (whole) {
            for (size_t i = 0; i < Block; i++) out[i] = std::clamp((in[i] * factor) * unit, -limit, limit);
        } else {
            for (size_t i = 0; i < length; i++) out[i] = std::clamp((in[i] * factor) * unit, -limit, limit);
        }
    }
}

}  // namespace

MINIFLOAT_SIMD_CLONES
void mx_quantize_row(const float* row, size_t cols, size_t block, const MxElement& e, ScaleMode mode,
                     uint8_t* elements, uint8_t* scales) {
    DefaultFpuModeScope default_modes;
    // a pass holds at most the row: a block size far beyond the data must
    // not cost memory or time
    const size_t per_pass = blocks_per_pass(pass_values(cols), block);
    std::vector<float> scaled(std::min(per_pass * block, cols));
    std::vector<uint8_t> non_finite(std::min(per_pass, blocks_covering(cols, block)));
    for_each_pass(cols, block, per_pass, [&](const Pass& pass) MINIFLOAT_LAMBDA_INLINE {
        const size_t first = pass.first, pass_blocks = pass.blocks, start = pass.start, count = pass.count;
        float* values = scaled.data();
        uint8_t* pass_scales = scales + first;
        // whole groups of 16 blocks in registers, the rest one block at a time
        const size_t whole_blocks = count / block;
        const size_t vector_blocks =
            mx_scale_blocks_avx512(row + start, whole_blocks, block, e, mode, values, pass_scales, non_finite.data());
        const size_t rest = vector_blocks * block;
        if (block == 32) {
            scale_blocks<32>(row + start + rest, count - rest, block, e, mode, values + rest,
                             pass_scales + vector_blocks, non_finite.data() + vector_blocks);
        } else if (block == 16) {
            scale_blocks<16>(row + start + rest, count - rest, block, e, mode, values + rest,
                             pass_scales + vector_blocks, non_finite.data() + vector_blocks);
        } else {
            scale_blocks<0>(row + start + rest, count - rest, block, e, mode, values + rest,
                            pass_scales + vector_blocks, non_finite.data() + vector_blocks);
        }
        uint8_t* codes = elements + start;
        if (e.plan == nullptr) {
            int8_t* ints = reinterpret_cast<int8_t*>(codes);
            for (size_t i = 0; i < count; i++) {
                ints[i] = static_cast<int8_t>(std::clamp(std::nearbyint(scaled[i]), -127.0f, 127.0f));
            }
        } else {
            encode_f32(*e.plan, scaled.data(), codes, count);
        }
        for (size_t b = 0; b < pass_blocks; b++) {
            if (!non_finite[b]) continue;
            const size_t offset = b * block;
            std::memset(codes + offset, e.nan_fill, std::min(block, count - offset));
        }
    });
}

namespace {

// float4_e2m1fn codes of v / s rounded to nearest even with saturation, with
// no division: the magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6 have the rounding
// boundaries m * s for m = 0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5, each exact in
// Real (3 significant bits times s), so comparing |v| with them is comparing
// the exact quotient. A tie goes up where the upper code is even (0.75,
// 1.75, 3.5); |v| past 5 s gives 6. The sign is bit 3, so -0 stays -0.
// N: the length when known at compile time (0: n), so that a block of 16
// is one vector step rather than the remainder of a 64-byte loop.
template <class Real, size_t N = 0>
MINIFLOAT_KERNEL_INLINE void fp4_codes_by_boundaries(const float* in, size_t n, Real s, uint8_t* out) {
    if constexpr (N != 0) n = N;
    const Real b0 = Real(kFp4Midpoints[0]) * s, b1 = Real(kFp4Midpoints[1]) * s, b2 = Real(kFp4Midpoints[2]) * s;
    const Real b3 = Real(kFp4Midpoints[3]) * s, b4 = Real(kFp4Midpoints[4]) * s, b5 = Real(kFp4Midpoints[5]) * s;
    const Real b6 = Real(kFp4Midpoints[6]) * s;
    for (size_t i = 0; i < n; i++) {
        uint32_t bits;
        std::memcpy(&bits, &in[i], sizeof bits);
        const Real a = std::fabs(static_cast<Real>(in[i]));
        const uint32_t code = static_cast<uint32_t>(a > b0) + static_cast<uint32_t>(a >= b1) +
                              static_cast<uint32_t>(a > b2) + static_cast<uint32_t>(a >= b3) +
                              static_cast<uint32_t>(a > b4) + static_cast<uint32_t>(a >= b5) +
                              static_cast<uint32_t>(a > b6);
        out[i] = static_cast<uint8_t>(code | ((bits >> 28) & 8u));
    }
}


// The scale code amax / divisor rounds to, as the pass computes it (the
// quotient in binary64, an inexact one rounded with its error's sign).
uint32_t nvfp4_scale_code(const FormatRuntime& scale, float amax, double divisor) {
    const double q = static_cast<double>(amax) / divisor;
    const double error = std::fma(q, divisor, -static_cast<double>(amax));
    return encode_from_double(scale.format, scale.saturating_specials, q, error == 0 ? 0 : (error > 0 ? -1 : 1)).code;
}

// The smallest positive float32 bits at which `test(amax)` holds, for a
// test that is false below some value and true from it (kInfBits if never).
template <class Test>
uint32_t first_float_bits(const Test& test) {
    uint32_t low = 1, high = kInfBits;  // test(high) is taken as true
    while (low < high) {
        const uint32_t mid = low + (high - low) / 2;
        float value;
        std::memcpy(&value, &mid, sizeof value);
        if (test(value)) high = mid; else low = mid + 1;
    }
    return low;
}

}  // namespace

Nvfp4Scales nvfp4_scales(const FormatRuntime& scale, double tensor_scale) {
    Nvfp4Scales s;
    s.tensor_scale = tensor_scale;
    double largest = 0;
    uint32_t largest_code = 0;
    for (uint32_t code = 0; code < 256; code++) {
        const double value = scale.decode_f64[code];
        s.block_scale_of[code] = code == scale.format.nan_code ? 0.0 : value * tensor_scale;
        if (code != scale.format.nan_code && std::isfinite(value) && value > largest) {
            largest = value;
            largest_code = code;
        }
    }
    // halfway to the next value of the largest one's binade; a tie keeps an
    // even largest code (float8_e4m3fn: 464 rounds to 448, above it overflows)
    int exponent = 0;
    std::frexp(largest, &exponent);
    const double halfway = largest + std::ldexp(1.0, exponent - 2 - scale.format.mantissa_bits);
    const double overflow_above = (largest_code & 1u) ? std::nextafter(halfway, 0.0) : halfway;
    s.overflow_above = overflow_above;
    // the same two thresholds on amax, as float32 bits (monotonic)
    const double divisor = 6.0 * tensor_scale;
    s.clips_from = first_float_bits([&](float amax) { return static_cast<double>(amax) / divisor > overflow_above; });
    const uint32_t zero_code = encode_from_double(scale.format, scale.saturating_specials, 0.0).code;
    s.vanishes_below = first_float_bits([&](float amax) { return nvfp4_scale_code(scale, amax, divisor) != zero_code; });
    return s;
}

MINIFLOAT_SIMD_CLONES
uint32_t nvfp4_quantize_row(const float* row, size_t cols, size_t block, const Nvfp4Scales& scaling,
                            const FormatRuntime& scale, uint8_t* elements, uint8_t* scales) {
    DefaultFpuModeScope default_modes;
    const double tensor_scale = scaling.tensor_scale;
    const double* block_scale_of = scaling.block_scale_of;
    const double divisor = 6.0 * tensor_scale;  // exact: tensor_scale is a float32
    const bool unit_tensor_scale = tensor_scale == 1.0;
    const size_t per_pass = blocks_per_pass(pass_values(cols), block);
    const size_t capacity = std::min(per_pass, blocks_covering(cols, block));
    std::vector<double> scale_values(capacity);
    std::vector<double> block_scales(capacity);
    std::vector<uint32_t> maxima(capacity);
    std::vector<uint8_t> scale_codes(capacity);
    std::vector<uint8_t> revisit(capacity);
    const uint32_t nan_code = scale.format.nan_code;
    uint32_t range_flags = 0;
    const uint32_t clip_first = scaling.clips_from, clip_span = kInfBits - scaling.clips_from;
    const uint32_t vanish_span = scaling.vanishes_below - 1u;
    for_each_pass(cols, block, per_pass, [&](const Pass& pass) MINIFLOAT_LAMBDA_INLINE {
        const size_t first = pass.first, pass_blocks = pass.blocks, start = pass.start, count = pass.count;
        // block scales: amax / (6 t), rounded once as a batch; a quotient
        // that is inexact and lands on a rounding boundary of float8_e4m3fn
        // (few significant bits) is redone with the sign of its error
        const size_t whole_blocks = count / block;
        size_t b = largest_magnitudes_avx512(row + start, whole_blocks, block, maxima.data());
        if (b == 0) b = largest_magnitudes_avx2(row + start, whole_blocks, block, maxima.data());
        for (; b < pass_blocks; b++) {
            maxima[b] = largest_magnitude(row + start + b * block, std::min(block, count - b * block));
        }
        // The quotients (vectorized; NaN/inf blocks are set below), and the
        // blocks to look at again: a NaN or inf in the block, or a quotient
        // with at most 5 significant bits (only those can sit on a rounding
        // boundary), visited below only when there is any. Local pointers:
        // a byte store may alias the vectors' own.
        const uint32_t* amax_bits = maxima.data();
        double* quotients = scale_values.data();
        uint8_t* flags = revisit.data();
        uint8_t any = 0;
        // NumPy's flags in the same loop, local accumulators: a block beyond
        // clips_from clips its scale, one in [1, vanishes_below) is nonzero
        // with a scale that rounds to 0 (bits order as magnitudes do, so
        // each is one unsigned range test)
        uint32_t clips = 0, vanishes = 0;
        for (b = 0; b < pass_blocks; b++) {
            float amax;
            std::memcpy(&amax, &amax_bits[b], sizeof amax);
            const double q = amax / divisor;
            quotients[b] = q;
            uint64_t q_bits;
            std::memcpy(&q_bits, &q, sizeof q_bits);
            const uint8_t flag =
                static_cast<uint8_t>(((q_bits & ((uint64_t{1} << 47) - 1)) == 0) | (amax_bits[b] >= kInfBits));
            flags[b] = flag;
            any |= flag;
            clips |= static_cast<uint32_t>(amax_bits[b] - clip_first < clip_span);
            vanishes |= static_cast<uint32_t>(amax_bits[b] - 1u < vanish_span);
        }
        range_flags |= (clips != 0 ? kFlagOverflow : 0u) | (vanishes != 0 ? kFlagUnderflow : 0u);
        encode_f64(scale.saturating_plan, quotients, scale_codes.data(), pass_blocks);
        for (b = 0; any != 0 && b < pass_blocks; b++) {
            if (!revisit[b]) continue;
            if (maxima[b] >= kInfBits) {  // a NaN or inf in the block
                scale_codes[b] = static_cast<uint8_t>(nan_code);
                continue;
            }
            const double q = scale_values[b];
            float amax;
            std::memcpy(&amax, &maxima[b], sizeof amax);
            const double error = std::fma(q, divisor, -static_cast<double>(amax));
            if (error == 0) continue;
            scale_codes[b] = static_cast<uint8_t>(
                encode_from_double(scale.format, scale.saturating_specials, q, error > 0 ? -1 : 1).code);
        }
        // elements: V / (s t) rounded once, by comparing V with the FP4
        // rounding boundaries scaled by s t (see Nvfp4Scales)
        std::memcpy(scales + first, scale_codes.data(), pass_blocks);
        for (b = 0; b < pass_blocks; b++) block_scales[b] = block_scale_of[scale_codes[b]];
        uint8_t* out = elements + start;
        if (fp4_blocks_avx512(row + start, count, block, block_scales.data(), unit_tensor_scale, out)) return;
        b = 0;
        if (unit_tensor_scale && block == 16) {  // whole pairs of blocks with AVX2
            b = fp4_block_pairs_avx2(row + start, count, block_scales.data(), out) / block;
        }
        for (; b < pass_blocks; b++) {
            const size_t offset = b * block;
            const size_t length = std::min(block, count - offset);
            if (block_scales[b] == 0.0) {
                std::memset(out + offset, 0, length);
            } else if (unit_tensor_scale && length == 16) {
                fp4_codes_by_boundaries<float, 16>(row + start + offset, length,
                                                   static_cast<float>(block_scales[b]), out + offset);
            } else if (unit_tensor_scale) {
                fp4_codes_by_boundaries<float>(row + start + offset, length, static_cast<float>(block_scales[b]),
                                               out + offset);
            } else {
                fp4_codes_by_boundaries<double>(row + start + offset, length, block_scales[b], out + offset);
            }
        }
    });
    return range_flags;
}

}  // namespace minifloat
