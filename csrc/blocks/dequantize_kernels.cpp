// Dequantization in chunks: a chunk of codes is decoded into the output by
// the format's decoder (the byte-table and AVX2/AVX-512 decoders of
// convert_kernels.cpp), then multiplied in place, still in L1, by its
// blocks' scales. Before, NumPy in Python took ~115 ms for 4M values
// (float64 temporaries, np.repeat of the scales).
#include "dequantize_kernels.h"

#include <algorithm>
#include <vector>

#include "fp_status.h"
#include "memory_streams.h"
#include "simd_dispatch.h"

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#include "avx512_intrinsics.h"
#include "bit_scan.h"
#include "byte_lookup_avx512.h"
#include "codec_avx2_vectors.h"
#endif

namespace minifloat {

namespace {

// Values per chunk: its decoded values stay in L1 for the scaling.
constexpr size_t kChunk = 4096;

template <class Real>
MINIFLOAT_KERNEL_INLINE void decode_chunk(ElementDecoding element, const uint8_t* codes, Real* out, size_t n) {
    if (element.plan == nullptr) {
        const int8_t* ints = reinterpret_cast<const int8_t*>(codes);
        for (size_t i = 0; i < n; i++) out[i] = static_cast<Real>(ints[i]);
    } else if constexpr (sizeof(Real) == 4) {
        decode_to_f32(*element.plan, codes, out, n);
    } else {
        decode_to_f64(*element.plan, codes, out, n);
    }
}

// v[i] = v[i] * s (then * t): one block's values.
template <class Real>
MINIFLOAT_KERNEL_INLINE void scale_run(Real* v, size_t n, Real s, Real t, bool with_tensor_scale) {
    if (with_tensor_scale) {
        for (size_t i = 0; i < n; i++) v[i] = (v[i] * s) * t;
    } else {
        for (size_t i = 0; i < n; i++) v[i] = v[i] * s;
    }
}

// `blocks` whole blocks of `block` values from `in` to `out` (Block: the
// size when known at compile time, so a block is a few whole vectors),
// block b scaled by scale_of[codes[b]].
template <size_t Block, class Real>
MINIFLOAT_KERNEL_INLINE void scale_blocks(const Real* __restrict in, Real* __restrict out, size_t block,
                                          size_t blocks, const uint8_t* codes, const Real* scale_of, Real t,
                                          bool with_tensor_scale) {
    if constexpr (Block != 0) block = Block;
    for (size_t b = 0; b < blocks; b++) {
        const Real s = scale_of[codes[b]];
        const Real* v = in + b * block;
        Real* w = out + b * block;
        if (with_tensor_scale) {
            for (size_t i = 0; i < block; i++) w[i] = (v[i] * s) * t;
        } else {
            for (size_t i = 0; i < block; i++) w[i] = v[i] * s;
        }
    }
}

#ifdef MINIFLOAT_HAVE_X86_KERNELS
// Blocks of a multiple of 16 float32 (8 float64) values with AVX-512: a
// broadcast scale per block. (GCC vectorizes the portable loop for blocks of
// 16 across blocks, with permutes: twice as slow.)
#define MINIFLOAT_AVX512 __attribute__((target("avx512f")))

MINIFLOAT_AVX512 void scale_blocks_avx512(const float* in, float* out, size_t block, size_t blocks,
                                          const uint8_t* codes, const float* scale_of, float t,
                                          bool with_tensor_scale) {
    const __m512 tv = _mm512_set1_ps(t);
    for (size_t b = 0; b < blocks; b++) {
        const __m512 s = _mm512_set1_ps(scale_of[codes[b]]);
        for (size_t i = b * block; i < (b + 1) * block; i += 16) {
            __m512 v = _mm512_mul_ps(_mm512_loadu_ps(in + i), s);
            if (with_tensor_scale) v = _mm512_mul_ps(v, tv);
            _mm512_storeu_ps(out + i, v);
        }
    }
}

MINIFLOAT_AVX512 void scale_blocks_avx512(const double* in, double* out, size_t block, size_t blocks,
                                          const uint8_t* codes, const double* scale_of, double t,
                                          bool with_tensor_scale) {
    const __m512d tv = _mm512_set1_pd(t);
    for (size_t b = 0; b < blocks; b++) {
        const __m512d s = _mm512_set1_pd(scale_of[codes[b]]);
        for (size_t i = b * block; i < (b + 1) * block; i += 8) {
            __m512d v = _mm512_mul_pd(_mm512_loadu_pd(in + i), s);
            if (with_tensor_scale) v = _mm512_mul_pd(v, tv);
            _mm512_storeu_pd(out + i, v);
        }
    }
}

// One pass for float32 values with zero lower halves (every MX element
// format's) in blocks of a power of two >= 16 values: 64 codes decoded by
// byte permutes (byte_lookup_avx512.h), each 16 times its block's scale in
// registers, stored. (Decoding into an L1 buffer and scaling from there took
// 0.42 ms for 4M values against 0.23 for astype of the codes, AMD Zen 5.)
MINIFLOAT_BYTE_LOOKUP void dequantize_upper_halves_vbmi(const DecodePlan& plan, const uint8_t* codes,
                                                        const uint8_t* scale_codes, const float* scale_of, float t,
                                                        bool with_tensor_scale, unsigned block_shift, size_t n,
                                                        float* out) {
    const ByteTable t2 = load_table(plan.byte2), t3 = load_table(plan.byte3);
    __m512i pattern[4];
    upper_halves_patterns(pattern);
    const __m512 tv = _mm512_set1_ps(t);
    // n is whole blocks, so a multiple of 16: the last step has 1-4 vectors
    for (size_t i = 0; i < n; i += 64) {
        const size_t vectors = n - i >= 64 ? 4 : (n - i) / 16;
        const __m512i index = _mm512_maskz_loadu_epi8(vectors == 4 ? ~__mmask64{0} : (__mmask64{1} << (16 * vectors)) - 1,
                                                      codes + i);
        const __m512i b2 = lookup64(t2, index), b3 = lookup64(t3, index);
        for (size_t q = 0; q < vectors; q++) {
            const size_t at = i + 16 * q;
            __m512 v = _mm512_mul_ps(floats_from_upper_halves(b2, pattern[q], b3),
                                     _mm512_set1_ps(scale_of[scale_codes[at >> block_shift]]));
            if (with_tensor_scale) v = _mm512_mul_ps(v, tv);
            _mm512_storeu_ps(out + at, v);
        }
    }
}

// The same one pass with AVX2 (every step another instruction than above, so
// not one template), 8 values a vector: the AVX2 codec's
// arithmetic decoder (codec_avx2_vectors.h; its special-case blends only
// for 32 codes holding an inf or NaN), for the sign-magnitude formats it
// decodes (every MX element format).
MINIFLOAT_AVX2_INLINE void dequantize_step8(__m256i bits, const float* scale_of,
                                            const uint8_t* scale_codes, __m256 t, bool with_tensor_scale,
                                            unsigned block_shift, size_t at, float* out) {
    __m256 x = _mm256_mul_ps(_mm256_castsi256_ps(bits), _mm256_set1_ps(scale_of[scale_codes[at >> block_shift]]));
    if (with_tensor_scale) x = _mm256_mul_ps(x, t);
    _mm256_storeu_ps(out + at, x);
}

MINIFLOAT_AVX2_CODEC void dequantize_sign_magnitude_avx2(const DecodePlan& plan, const uint8_t* codes,
                                                         const uint8_t* scale_codes, const float* scale_of, float t,
                                                         bool with_tensor_scale, unsigned block_shift, size_t n,
                                                         float* out) {
    using namespace avx2_codec;
    const DecodeVectors v = decode_vectors(plan);
    const __m256 tv = _mm256_set1_ps(t);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const bool special = needs_special_decode32<false>(v, codes + i);
        for (size_t q = 0; q < 4; q++) {
            const size_t at = i + 8 * q;
            const __m256i bits = special ? decode8_from<false>(v, codes + at) : decode8_from<false, false>(v, codes + at);
            dequantize_step8(bits, scale_of, scale_codes, tv, with_tensor_scale, block_shift, at, out);
        }
    }
    // n is whole blocks of 16 or more: 16 values may be left, read 8 at a time
    for (; i < n; i += 8) {
        dequantize_step8(decode8_from<false>(v, codes + i), scale_of, scale_codes, tv, with_tensor_scale,
                         block_shift, i, out);
    }
}

// Whether a one pass above serves these blocks; then done.
bool dequantize_by_hand(ElementDecoding element, const uint8_t* codes, const uint8_t* scale_codes,
                        const float* scale_of, float t, bool with_tensor_scale, size_t block, size_t n, float* out) {
    const bool power_of_two = block >= 16 && block <= (size_t{1} << 30) && (block & (block - 1)) == 0;
    if (!power_of_two || element.plan == nullptr) return false;
    const DecodePlan& plan = *element.plan;
    const unsigned block_shift = static_cast<unsigned>(lowest_set_bit(static_cast<uint32_t>(block)));
    if (plan.has_byte_tables && avx512_vbmi_usable()) {
        dequantize_upper_halves_vbmi(plan, codes, scale_codes, scale_of, t, with_tensor_scale, block_shift, n, out);
        return true;
    }
    if (plan.kind == DecodeKind::sign_magnitude && plan.storage_bytes == 1 && avx2_usable()) {
        dequantize_sign_magnitude_avx2(plan, codes, scale_codes, scale_of, t, with_tensor_scale, block_shift, n, out);
        return true;
    }
    return false;
}

template <class Real>
bool scale_blocks_by_hand(const Real* in, Real* out, size_t block, size_t blocks, const uint8_t* codes,
                          const Real* scale_of, Real t, bool with_tensor_scale) {
    if (block % (64 / sizeof(Real)) != 0 || !avx512_bw_usable()) return false;
    scale_blocks_avx512(in, out, block, blocks, codes, scale_of, t, with_tensor_scale);
    return true;
}
#else
template <class Real>
bool scale_blocks_by_hand(const Real*, Real*, size_t, size_t, const uint8_t*, const Real*, Real, bool) {
    return false;
}
bool dequantize_by_hand(ElementDecoding, const uint8_t*, const uint8_t*, const float*, float, bool, size_t, size_t,
                        float*) {
    return false;
}
#endif

template <class Real>
MINIFLOAT_KERNEL_INLINE void scale_whole_blocks(const Real* in, Real* out, size_t block, size_t blocks,
                                                const uint8_t* codes, const Real* scale_of, Real t,
                                                bool with_tensor_scale) {
    if (scale_blocks_by_hand(in, out, block, blocks, codes, scale_of, t, with_tensor_scale)) return;
    if (block == 32) return scale_blocks<32>(in, out, block, blocks, codes, scale_of, t, with_tensor_scale);
    if (block == 16) return scale_blocks<16>(in, out, block, blocks, codes, scale_of, t, with_tensor_scale);
    scale_blocks<0>(in, out, block, blocks, codes, scale_of, t, with_tensor_scale);
}

// Elementwise by a row of scales (the block axis is not the last one).
template <class Real>
MINIFLOAT_KERNEL_INLINE void scale_row(Real* v, const Real* s, size_t n, Real t, bool with_tensor_scale) {
    if (with_tensor_scale) {
        for (size_t i = 0; i < n; i++) v[i] = (v[i] * s[i]) * t;
    } else {
        for (size_t i = 0; i < n; i++) v[i] = v[i] * s[i];
    }
}

template <class Real>
MINIFLOAT_KERNEL_INLINE void dequantize(ElementDecoding element, const Real* scale_of, Real tensor_scale,
                                        const BlockLayout& layout, const uint8_t* codes, const uint8_t* scale_codes,
                                        Real* out) {
    DefaultFpuModeScope default_modes;  // products rounded to nearest, subnormals kept
    const bool with_tensor_scale = tensor_scale != Real(1);
    const size_t n = layout.size(), count = layout.count, inner = layout.inner, block = layout.block;
    const size_t blocks = layout.blocks();
    if (inner == 1 && count % block == 0) {
        if constexpr (sizeof(Real) == 4) {
            if (dequantize_by_hand(element, codes, scale_codes, scale_of, tensor_scale, with_tensor_scale, block, n,
                                   out)) {
                return;
            }
        }
        // the flat array is a sequence of whole blocks, in the scales' order
        // decoded into an L1 buffer, written to the output once
        alignas(64) Real decoded[kChunk];
        auto run = [&](size_t start, size_t length) MINIFLOAT_LAMBDA_INLINE {
            decode_chunk(element, codes + start, decoded, length);
            scale_whole_blocks(decoded, out + start, block, length / block, scale_codes + start / block, scale_of,
                               tensor_scale, with_tensor_scale);
        };
        // In plain order, not memory_streams.h's: its 4 KB visits cost a
        // decode and a scale call per 1024 values, and the 4M-value
        // dequantize took 1.0 ms against 0.43 ms (astype of the codes: 0.55;
        // 64M values: 41.6 against 35.3 ms; AMD EPYC)
        const size_t chunk = std::max<size_t>(1, kChunk / block) * block;
        for (size_t start = 0; start < n; start += chunk) run(start, std::min(chunk, n - start));
        return;
    }
    if (inner == 1) {
        // rows of whole blocks and a partial last one
        const size_t whole = count / block;
        for (size_t row = 0; row < layout.outer; row++) {
            const size_t first = row * count;
            const uint8_t* row_scales = scale_codes + row * blocks;
            const size_t chunk = std::max<size_t>(1, kChunk / block) * block;
            for (size_t start = 0; start < count; start += chunk) {
                const size_t length = std::min(chunk, count - start);
                decode_chunk(element, codes + first + start, out + first + start, length);
                const size_t b0 = start / block, b1 = std::min(whole, (start + length) / block);
                scale_whole_blocks(out + first + start, out + first + start, block, b1 - b0, row_scales + b0, scale_of, tensor_scale,
                                   with_tensor_scale);
                if (start + length == count && whole * block < count) {
                    scale_run(out + first + whole * block, count - whole * block, scale_of[row_scales[whole]],
                              tensor_scale, with_tensor_scale);
                }
            }
        }
        return;
    }
    // The block axis is not the last: element (o, a, i) takes the scale
    // (o, a / block, i). The scales are looked up once into an array of
    // values (a block's worth of rows shares them), then each row of
    // `inner` values is scaled elementwise, in the streamed order.
    std::vector<Real> scale_values(layout.outer * blocks * inner);
    for (size_t j = 0; j < scale_values.size(); j++) scale_values[j] = scale_of[scale_codes[j]];
    const size_t plane = count * inner;
    for_each_streamed_block(n, sizeof(Real), [&](size_t start, size_t length) MINIFLOAT_LAMBDA_INLINE {
        for (size_t p0 = start; p0 < start + length; p0 += kChunk) {
            const size_t end = std::min(start + length, p0 + kChunk);
            decode_chunk(element, codes + p0, out + p0, end - p0);
            size_t o = p0 / plane, a = (p0 % plane) / inner, i = p0 % inner;
            for (size_t p = p0; p < end;) {
                const size_t run = std::min(end - p, inner - i);
                scale_row(out + p, scale_values.data() + (o * blocks + a / block) * inner + i, run, tensor_scale,
                          with_tensor_scale);
                p += run;
                i = 0;
                if (++a == count) a = 0, o++;
            }
        }
    });
}

}  // namespace

MINIFLOAT_SIMD_CLONES
void dequantize_f32(ElementDecoding element, const float* scale_of, float tensor_scale, const BlockLayout& layout,
                    const uint8_t* codes, const uint8_t* scale_codes, float* out) {
    dequantize(element, scale_of, tensor_scale, layout, codes, scale_codes, out);
}

MINIFLOAT_SIMD_CLONES
void dequantize_f64(ElementDecoding element, const double* scale_of, double tensor_scale, const BlockLayout& layout,
                    const uint8_t* codes, const uint8_t* scale_codes, double* out) {
    dequantize(element, scale_of, tensor_scale, layout, codes, scale_codes, out);
}

}  // namespace minifloat
