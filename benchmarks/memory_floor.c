/* The least time this machine needs to move the bytes of three benchmark
 * cases, with no conversion at all: the floor under any kernel for them.
 *
 *   gcc -O2 -mavx2 benchmarks/memory_floor.c -o /tmp/memory_floor && /tmp/memory_floor
 *
 * 1. 4,194,304 bytes widened to float32 (a shift; float8_e8m0fnu -> float32
 *    is one more table lookup per byte): 4 MB read, 16 MB written.
 * 2. The byte maximum of two 4,194,304-byte arrays (float8_e8m0fnu's
 *    np.maximum is exactly this): 8 MB read, 4 MB written.
 * 3. 4,194,304 float64 read, one byte each written (float64 ->
 *    float8_e8m0fnu keeps little more than the exponent): 32 MB read.
 * Each is timed on its own, repeated (so its data sits in the caches as it
 * does when the benchmark repeats a call), in plain order and as four
 * interleaved streams (what the minifloat kernels do for casts beyond the cache,
 * csrc/memory_streams.h); best of 200 (50 for 3). ml_dtypes' time for the
 * case over the best of these is the largest ratio any kernel can reach on
 * this machine.
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N ((size_t)4194304)

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void widen(const uint8_t* in, float* out, size_t n) {
    for (size_t i = 0; i < n; i += 8) {
        const __m256i x = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i*)(in + i)));
        _mm256_storeu_si256((__m256i*)(out + i), _mm256_slli_epi32(x, 23));
    }
}

static void byte_max(const uint8_t* a, const uint8_t* b, uint8_t* out, size_t n) {
    for (size_t i = 0; i < n; i += 32) {
        const __m256i x = _mm256_loadu_si256((const __m256i*)(a + i));
        const __m256i y = _mm256_loadu_si256((const __m256i*)(b + i));
        _mm256_storeu_si256((__m256i*)(out + i), _mm256_max_epu8(x, y));
    }
}

/* One byte of each double (the top one; bytes of 32 doubles land out of
 * order, which does not matter for timing). */
static void top_bytes(const double* in, uint8_t* out, size_t n) {
    for (size_t i = 0; i < n; i += 32) {
        __m256i packed = _mm256_setzero_si256();
        for (int k = 0; k < 8; k++) {
            const __m256i x = _mm256_srli_epi64(_mm256_loadu_si256((const __m256i*)(in + i + 4 * k)), 56);
            packed = _mm256_or_si256(packed, _mm256_slli_epi64(x, 8 * k));
        }
        _mm256_storeu_si256((__m256i*)(out + i), packed);
    }
}

/* Four equal parts visited in turn, `block` elements of each per round. */
#define STREAMED(call, block)                                          \
    for (size_t j = 0; j < N / 4; j += (block))                        \
        for (size_t s = 0; s < 4; s++) {                               \
            const size_t at = s * (N / 4) + j;                         \
            call;                                                      \
        }

/* The best time of `repeats` runs of `work`, in ms, into `best`. */
#define BEST_OF(best, repeats, work)                  \
    do {                                              \
        (best) = 1e9;                                 \
        for (int r = 0; r < (repeats); r++) {         \
            const double start = now_ms();            \
            work;                                     \
            const double took = now_ms() - start;     \
            if (took < (best)) (best) = took;         \
        }                                             \
    } while (0)

int main(void) {
    uint8_t* a = aligned_alloc(64, N);
    uint8_t* b = aligned_alloc(64, N);
    uint8_t* bytes = aligned_alloc(64, N);
    float* floats = aligned_alloc(64, N * sizeof(float));
    double* doubles = aligned_alloc(64, N * sizeof(double));
    if (!a || !b || !bytes || !floats || !doubles) return 1;
    for (size_t i = 0; i < N; i++) {
        a[i] = (uint8_t)(i * 7);
        b[i] = (uint8_t)(i * 13);
        bytes[i] = 0;
        floats[i] = 0;
        doubles[i] = (double)i;
    }
    /* each case repeated on its own, as the benchmark repeats a call */
    double best[6];
    BEST_OF(best[0], 200, widen(a, floats, N));
    BEST_OF(best[1], 200, STREAMED(widen(a + at, floats + at, 1024), 1024));
    BEST_OF(best[2], 200, byte_max(a, b, bytes, N));
    BEST_OF(best[3], 200, STREAMED(byte_max(a + at, b + at, bytes + at, 4096), 4096));
    BEST_OF(best[4], 50, top_bytes(doubles, bytes, N));
    BEST_OF(best[5], 50, STREAMED(top_bytes(doubles + at, bytes + at, 512), 512));
    printf("bytes -> float32 (4 MB in, 16 MB out):   %.3f ms, four streams %.3f ms\n", best[0], best[1]);
    printf("byte maximum (2 x 4 MB in, 4 MB out):     %.3f ms, four streams %.3f ms\n", best[2], best[3]);
    printf("float64 -> one byte each (32 MB in):      %.3f ms, four streams %.3f ms\n", best[4], best[5]);
    return 0;
}
