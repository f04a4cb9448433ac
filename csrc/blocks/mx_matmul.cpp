// MX matrix products (the order of operations is in mx_matmul.h). The
// elements are decoded once (unscaled) into float32, by all threads, and
// shared: A row-major, B in panels of kPanel columns (k-major within a
// panel, zero-padded). The work is runs of rows times panels. A tile of
// rows times a panel keeps its block sums and accumulators in registers;
// at each block's end the block sums are scaled by 2^(Ea + Eb) (AVX-512
// vscalefps, or float64 arithmetic in the portable kernel: both round the
// scaled sum once) and added. Without AVX-512, an AVX2 kernel takes half
// panels (16 registers) and scales through float64.
#include "mx_matmul.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "fp_status.h"
#include "mx_scaling.h"
#include "scratch_memory.h"
#include "simd_dispatch.h"
#include "thread_pool.h"

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#include "avx512_intrinsics.h"
#endif

namespace minifloat {

namespace {

constexpr size_t kPanel = 32;     // columns of B per panel (two AVX-512 vectors)
constexpr size_t kTileRows = 6;   // rows of A per tile: 6 x 2 block sums and accumulators in registers
constexpr uint8_t kNanScale = 0xFF;

void decode_elements(ElementDecoding element, const uint8_t* codes, float* out, size_t n) {
    if (element.plan == nullptr) {
        const int8_t* ints = reinterpret_cast<const int8_t*>(codes);
        for (size_t i = 0; i < n; i++) out[i] = static_cast<float>(ints[i]) * (1.0f / 64.0f);  // exact
    } else {
        decode_to_f32(*element.plan, codes, out, n);
    }
}

// Rows of A per work item: a run of A stays in L2 while B's panels pass.
constexpr size_t kRunRows = 8 * kTileRows;

// Both operands decoded once, by all threads, and shared by them.
struct Decoded {
    std::unique_ptr<float[]> a;           // m x k
    std::unique_ptr<int32_t[]> a_exponent;  // m x blocks (NaN scales: 0, see a_nan)
    std::unique_ptr<float[]> b;           // panels x k x kPanel
    std::vector<float> b_exponent;        // panels x blocks x kPanel
    std::vector<uint8_t> a_nan, b_nan;    // rows of A, columns of B with a NaN scale
    bool any_nan = false;
};

// What the tile kernels read: a run of m rows of A against panels
// [panel_begin, panel_end) of B.
struct Prepared {
    size_t m, n, k, block, blocks, panel_begin, panel_end;
    const float* a;
    const int32_t* a_exponent;
    const float* b;
    const float* b_exponent;
};

Decoded decode(const MxOperand& a, const MxOperand& b, size_t m, size_t n, size_t k, size_t blocks,
               size_t panels) {
    Decoded d;
    d.a = unfilled_array<float>(m * k);
    d.a_exponent = unfilled_array<int32_t>(m * blocks);
    d.a_nan.assign(m, 0);
    parallel_for_items(m, k, WorkKind::cast, [&](size_t first, size_t last) {
        decode_elements(a.element, a.codes + first * k, d.a.get() + first * k, (last - first) * k);
        for (size_t r = first; r < last; r++) {
            for (size_t kb = 0; kb < blocks; kb++) {
                const uint8_t code = a.scales[r * blocks + kb];
                d.a_nan[r] |= code == kNanScale;
                d.a_exponent[r * blocks + kb] = code == kNanScale ? 0 : static_cast<int32_t>(code) - 127;
            }
        }
    });
    // rows of B (K): each thread writes its own rows of every panel, padding included
    d.b = unfilled_array<float>(panels * k * kPanel);
    parallel_for_items(k, n, WorkKind::cast, [&](size_t first, size_t last) {
        std::vector<float> row(panels * kPanel, 0.0f);
        for (size_t r = first; r < last; r++) {
            decode_elements(b.element, b.codes + r * n, row.data(), n);
            for (size_t panel = 0; panel < panels; panel++) {
                std::memcpy(d.b.get() + (panel * k + r) * kPanel, row.data() + panel * kPanel, kPanel * sizeof(float));
            }
        }
    });
    d.b_exponent.assign(panels * blocks * kPanel, 0.0f);
    d.b_nan.assign(n, 0);
    for (size_t kb = 0; kb < blocks; kb++) {
        for (size_t c = 0; c < n; c++) {
            const uint8_t code = b.scales[kb * n + c];
            d.b_nan[c] |= code == kNanScale;
            d.b_exponent[((c / kPanel) * blocks + kb) * kPanel + c % kPanel] =
                code == kNanScale ? 0.0f : static_cast<float>(static_cast<int32_t>(code) - 127);
        }
    }
    for (uint8_t x : d.a_nan) d.any_nan |= x != 0;
    for (uint8_t x : d.b_nan) d.any_nan |= x != 0;
    return d;
}

// t * 2^e rounded once: the product is exact in float64 (t has 24
// significant bits, |e| <= 254).
MINIFLOAT_KERNEL_INLINE float scaled(float t, int32_t e) {
    return static_cast<float>(static_cast<double>(t) * std::ldexp(1.0, e));
}

// Rows [r0, r0 + rows) times panel `panel`, the portable way (the same order).
MINIFLOAT_KERNEL_INLINE void tile_portable(const Prepared& p, size_t r0, size_t rows, size_t panel, float* out) {
    const size_t columns = std::min(kPanel, p.n - panel * kPanel);
    const float* bp = p.b + panel * p.k * kPanel;
    const float* ep = p.b_exponent + panel * p.blocks * kPanel;
    for (size_t r = r0; r < r0 + rows; r++) {
        float acc[kPanel] = {};
        const float* ar = p.a + r * p.k;
        for (size_t kb = 0; kb < p.blocks; kb++) {
            float t[kPanel] = {};
            const size_t k1 = std::min(p.k, (kb + 1) * p.block);
            for (size_t kk = kb * p.block; kk < k1; kk++) {
                for (size_t c = 0; c < kPanel; c++) t[c] = std::fma(ar[kk], bp[kk * kPanel + c], t[c]);
            }
            const int32_t ea = p.a_exponent[r * p.blocks + kb];
            for (size_t c = 0; c < kPanel; c++) {
                acc[c] += scaled(t[c], ea + static_cast<int32_t>(ep[kb * kPanel + c]));
            }
        }
        std::memcpy(out + r * p.n + panel * kPanel, acc, columns * sizeof(float));
    }
}

MINIFLOAT_SIMD_CLONES
void matmul_portable(const Prepared& p, float* out) {
    for (size_t panel = p.panel_begin; panel < p.panel_end; panel++) {
        for (size_t r0 = 0; r0 < p.m; r0 += kTileRows) tile_portable(p, r0, std::min(kTileRows, p.m - r0), panel, out);
    }
}

#ifdef MINIFLOAT_HAVE_X86_KERNELS
#define MINIFLOAT_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))

// Rows [r0, r0 + Rows) times one panel; block sums and accumulators stay in
// registers for the whole of K.
template <size_t Rows>
MINIFLOAT_AVX512 inline void tile_avx512(const Prepared& p, size_t r0, size_t panel, float* out) {
    const float* bp = p.b + panel * p.k * kPanel;
    const float* ep = p.b_exponent + panel * p.blocks * kPanel;
    const float* ar[Rows];
    for (size_t r = 0; r < Rows; r++) ar[r] = p.a + (r0 + r) * p.k;
    __m512 acc[Rows][2];
    for (size_t r = 0; r < Rows; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    for (size_t kb = 0; kb < p.blocks; kb++) {
        __m512 t[Rows][2];
        for (size_t r = 0; r < Rows; r++) t[r][0] = t[r][1] = _mm512_setzero_ps();
        const size_t k1 = std::min(p.k, (kb + 1) * p.block);
        for (size_t kk = kb * p.block; kk < k1; kk++) {
            const __m512 b0 = _mm512_loadu_ps(bp + kk * kPanel), b1 = _mm512_loadu_ps(bp + kk * kPanel + 16);
            for (size_t r = 0; r < Rows; r++) {
                const __m512 av = _mm512_set1_ps(ar[r][kk]);
                t[r][0] = _mm512_fmadd_ps(av, b0, t[r][0]);
                t[r][1] = _mm512_fmadd_ps(av, b1, t[r][1]);
            }
        }
        const __m512 eb0 = _mm512_loadu_ps(ep + kb * kPanel), eb1 = _mm512_loadu_ps(ep + kb * kPanel + 16);
        for (size_t r = 0; r < Rows; r++) {
            const __m512 ea = _mm512_set1_ps(static_cast<float>(p.a_exponent[(r0 + r) * p.blocks + kb]));
            // vscalefps: t * 2^floor(e) rounded once (e is an integer here)
            acc[r][0] = _mm512_add_ps(acc[r][0], _mm512_scalef_ps(t[r][0], _mm512_add_ps(ea, eb0)));
            acc[r][1] = _mm512_add_ps(acc[r][1], _mm512_scalef_ps(t[r][1], _mm512_add_ps(ea, eb1)));
        }
    }
    const size_t columns = std::min(kPanel, p.n - panel * kPanel);
    const __mmask16 low = static_cast<__mmask16>(columns >= 16 ? 0xFFFF : (1u << columns) - 1u);
    const __mmask16 high = static_cast<__mmask16>(columns <= 16 ? 0 : columns >= 32 ? 0xFFFF : (1u << (columns - 16)) - 1u);
    for (size_t r = 0; r < Rows; r++) {
        float* o = out + (r0 + r) * p.n + panel * kPanel;
        _mm512_mask_storeu_ps(o, low, acc[r][0]);
        _mm512_mask_storeu_ps(o + 16, high, acc[r][1]);
    }
}

MINIFLOAT_AVX512 void matmul_avx512(const Prepared& p, float* out) {
    for (size_t panel = p.panel_begin; panel < p.panel_end; panel++) {
        size_t r0 = 0;
        for (; r0 + kTileRows <= p.m; r0 += kTileRows) tile_avx512<kTileRows>(p, r0, panel, out);
        switch (p.m - r0) {
            case 5: tile_avx512<5>(p, r0, panel, out); break;
            case 4: tile_avx512<4>(p, r0, panel, out); break;
            case 3: tile_avx512<3>(p, r0, panel, out); break;
            case 2: tile_avx512<2>(p, r0, panel, out); break;
            case 1: tile_avx512<1>(p, r0, panel, out); break;
            default: break;
        }
    }
}

#define MINIFLOAT_AVX2_FMA __attribute__((target("avx2,fma")))

// Eight block sums times 2^e, each rounded once: AVX2 has no vscalefps, so
// as in scaled(): exact in float64 (2^e built from its exponent bits), then
// one rounding to float32.
MINIFLOAT_AVX2_FMA inline __m128 scaled4(__m128 t, __m128i e) {
    const __m256i bits = _mm256_slli_epi64(_mm256_add_epi64(_mm256_cvtepi32_epi64(e), _mm256_set1_epi64x(1023)), 52);
    return _mm256_cvtpd_ps(_mm256_mul_pd(_mm256_cvtps_pd(t), _mm256_castsi256_pd(bits)));
}

MINIFLOAT_AVX2_FMA inline __m256 scaled8(__m256 t, __m256i e) {
    const __m128 low = scaled4(_mm256_castps256_ps128(t), _mm256_castsi256_si128(e));
    const __m128 high = scaled4(_mm256_extractf128_ps(t, 1), _mm256_extracti128_si256(e, 1));
    return _mm256_insertf128_ps(_mm256_castps128_ps256(low), high, 1);
}

// Rows [r0, r0 + Rows) times half a panel (16 columns, two vectors): AVX2's
// 16 registers hold the 6 x 2 block sums, B's two vectors and A's broadcast;
// the accumulators are touched once per block and may live in memory.
template <size_t Rows>
MINIFLOAT_AVX2_FMA inline void half_tile_avx2(const Prepared& p, size_t r0, size_t panel, size_t half, float* out) {
    const float* bp = p.b + panel * p.k * kPanel + half * 16;
    const float* ep = p.b_exponent + panel * p.blocks * kPanel + half * 16;
    const float* ar[Rows];
    for (size_t r = 0; r < Rows; r++) ar[r] = p.a + (r0 + r) * p.k;
    __m256 acc[Rows][2];
    for (size_t r = 0; r < Rows; r++) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    for (size_t kb = 0; kb < p.blocks; kb++) {
        __m256 t[Rows][2];
        for (size_t r = 0; r < Rows; r++) t[r][0] = t[r][1] = _mm256_setzero_ps();
        const size_t k1 = std::min(p.k, (kb + 1) * p.block);
        for (size_t kk = kb * p.block; kk < k1; kk++) {
            const __m256 b0 = _mm256_loadu_ps(bp + kk * kPanel), b1 = _mm256_loadu_ps(bp + kk * kPanel + 8);
#pragma GCC unroll 8
            for (size_t r = 0; r < Rows; r++) {
                const __m256 av = _mm256_broadcast_ss(ar[r] + kk);
                t[r][0] = _mm256_fmadd_ps(av, b0, t[r][0]);
                t[r][1] = _mm256_fmadd_ps(av, b1, t[r][1]);
            }
        }
        const __m256i eb0 = _mm256_cvttps_epi32(_mm256_loadu_ps(ep + kb * kPanel));
        const __m256i eb1 = _mm256_cvttps_epi32(_mm256_loadu_ps(ep + kb * kPanel + 8));
#pragma GCC unroll 8
        for (size_t r = 0; r < Rows; r++) {
            const __m256i ea = _mm256_set1_epi32(p.a_exponent[(r0 + r) * p.blocks + kb]);
            acc[r][0] = _mm256_add_ps(acc[r][0], scaled8(t[r][0], _mm256_add_epi32(ea, eb0)));
            acc[r][1] = _mm256_add_ps(acc[r][1], scaled8(t[r][1], _mm256_add_epi32(ea, eb1)));
        }
    }
    const size_t first = panel * kPanel + half * 16;
    const size_t columns = p.n > first ? std::min<size_t>(16, p.n - first) : 0;
    for (size_t r = 0; r < Rows; r++) {
        float* o = out + (r0 + r) * p.n + first;
        if (columns == 16) {
            _mm256_storeu_ps(o, acc[r][0]);
            _mm256_storeu_ps(o + 8, acc[r][1]);
        } else if (columns > 0) {
            alignas(32) float row[16];
            _mm256_store_ps(row, acc[r][0]);
            _mm256_store_ps(row + 8, acc[r][1]);
            std::memcpy(o, row, columns * sizeof(float));
        }
    }
}

MINIFLOAT_AVX2_FMA void matmul_avx2(const Prepared& p, float* out) {
    for (size_t panel = p.panel_begin; panel < p.panel_end; panel++) {
        for (size_t half = 0; half < 2 && panel * kPanel + half * 16 < p.n; half++) {
            size_t r0 = 0;
            for (; r0 + kTileRows <= p.m; r0 += kTileRows) half_tile_avx2<kTileRows>(p, r0, panel, half, out);
            switch (p.m - r0) {
                case 5: half_tile_avx2<5>(p, r0, panel, half, out); break;
                case 4: half_tile_avx2<4>(p, r0, panel, half, out); break;
                case 3: half_tile_avx2<3>(p, r0, panel, half, out); break;
                case 2: half_tile_avx2<2>(p, r0, panel, half, out); break;
                case 1: half_tile_avx2<1>(p, r0, panel, half, out); break;
                default: break;
            }
        }
    }
}

bool matmul_by_hand(const Prepared& p, float* out) {
    if (avx512_bw_usable()) {
        matmul_avx512(p, out);
        return true;
    }
    // x86-64-v3 (AVX2 with FMA): the CPUs the AVX2 kernel set is for
    if (!avx2_usable() || !__builtin_cpu_supports("fma")) return false;
    matmul_avx2(p, out);
    return true;
}
#else
bool matmul_by_hand(const Prepared&, float*) { return false; }
#endif

}  // namespace

void mx_matmul(const MxOperand& a, const MxOperand& b, size_t m, size_t n, size_t k, size_t block, float* out) {
    DefaultFpuModeScope default_modes;  // round to nearest, no flushing of subnormal sums
    const size_t blocks = blocks_covering(k, block), panels = (n + kPanel - 1) / kPanel;
    const Decoded d = decode(a, b, m, n, k, blocks, panels);
    // work items: a run of rows times one panel, in row-major order (a
    // chunk's consecutive items share their run of A)
    const size_t runs = (m + kRunRows - 1) / kRunRows;
    parallel_for_items(runs * panels, kRunRows * kPanel * k, WorkKind::matmul, [&](size_t first, size_t last) {
        for (size_t item = first; item < last;) {
            const size_t run = item / panels, panel = item % panels;
            const size_t panel_end = std::min(panels, panel + (last - item));
            const size_t r0 = run * kRunRows, rows = std::min(kRunRows, m - r0);
            const Prepared p{rows, n, k, block, blocks, panel, panel_end, d.a.get() + r0 * k,
                             d.a_exponent.get() + r0 * blocks, d.b.get(), d.b_exponent.data()};
            float* part = out + r0 * n;
            if (!matmul_by_hand(p, part)) matmul_portable(p, part);
            if (d.any_nan) {
                const float nan = std::nanf("");
                const size_t c1 = std::min(n, panel_end * kPanel);
                for (size_t r = 0; r < rows; r++) {
                    for (size_t c = panel * kPanel; c < c1; c++) {
                        if (d.a_nan[r0 + r] | d.b_nan[c]) part[r * n + c] = nan;
                    }
                }
            }
            item += panel_end - panel;
        }
    });
}

}  // namespace minifloat
