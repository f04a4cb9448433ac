/* How many cores' worth of arithmetic this machine gives t threads: the
 * ceiling under the scaling of any compute-bound kernel.
 *
 *   gcc -O2 -mavx2 -mfma -pthread benchmarks/compute_scaling.c -o /tmp/cs && /tmp/cs 1 2 4 8 16
 *
 * Each of t threads runs the same fixed work: 8 independent chains of
 * 256-bit fused multiply-adds in registers (no memory traffic, enough
 * chains to keep two FMA units busy). On t real cores the t threads take
 * the time one takes; on a VM whose virtual CPUs share physical cores
 * (hyper-threads on the host), or whose cores slow down as more of them
 * run, they take longer. Printed per t: the best of REPEAT runs and the
 * scaling t * time(1) / time(t), one line each ("t threads: X ms, scaling
 * Y"). benchmarks/scaling.py reads it.
 */
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ITERATIONS 30000000L
#define REPEAT 5
#define MAX_THREADS 1024

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static volatile float results[MAX_THREADS]; /* written: the work is kept */

/* eight named chains, so that they live in registers */
#define CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

static void* fused_multiply_adds(void* arg) {
    const long index = (long)arg;
#define START(k) __m256 c##k = _mm256_set1_ps(1.0f + k * 1e-3f);
    CHAINS(START)
    /* contracting: values stay near 1, never overflow or go subnormal */
    const __m256 factor = _mm256_set1_ps(0.999999f), step = _mm256_set1_ps(1e-6f);
    for (long i = 0; i < ITERATIONS; i++) {
#define STEP(k) c##k = _mm256_fmadd_ps(c##k, factor, step);
        CHAINS(STEP)
    }
    const __m256 sum = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(c0, c1), _mm256_add_ps(c2, c3)),
                                     _mm256_add_ps(_mm256_add_ps(c4, c5), _mm256_add_ps(c6, c7)));
    float lanes[8];
    _mm256_storeu_ps(lanes, sum);
    results[index] = lanes[0];
    return NULL;
}

static double run_threads(int t) {
    pthread_t threads[MAX_THREADS];
    const double start = now_ms();
    for (long i = 0; i < t; i++) pthread_create(&threads[i], NULL, fused_multiply_adds, (void*)i);
    for (int i = 0; i < t; i++) pthread_join(threads[i], NULL);
    return now_ms() - start;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s THREADS...\n", argv[0]);
        return 2;
    }
    const int counts = argc - 1;
    double best[64];
    if (counts > 64) return 2;
    for (int c = 0; c < counts; c++) best[c] = 1e30;
    /* rounds alternate over the thread counts, as the benchmarks' do */
    for (int r = 0; r < REPEAT; r++) {
        for (int c = 0; c < counts; c++) {
            const int t = atoi(argv[c + 1]);
            if (t < 1 || t > MAX_THREADS) return 2;
            const double ms = run_threads(t);
            if (ms < best[c]) best[c] = ms;
        }
    }
    double one = 0;
    for (int c = 0; c < counts; c++)
        if (atoi(argv[c + 1]) == 1) one = best[c];
    for (int c = 0; c < counts; c++) {
        const int t = atoi(argv[c + 1]);
        printf("%d threads: %.3f ms, scaling %.3f\n", t, best[c], one > 0 ? t * one / best[c] : 0.0);
    }
    return 0;
}
