/* bench_peak.c — the FMA peak of the CPU, measured with the widest vectors it
 * has (see bench.h).
 *
 * Each thread runs independent chains acc = acc * a + b. An FMA has a latency
 * of 4 cycles on current x86 cores and two FMA pipes issue one each per
 * cycle, so at least 8 chains keep both busy: 12 chains of 8-lane AVX2 (16
 * ymm registers) and 24 chains of 16-lane AVX-512 (32 zmm registers) leave a
 * margin. The unroll pragma keeps every chain in a register (without it GCC
 * 12 swaps the two loops and keeps the chains in memory, which measured a
 * third of the AVX-512 rate). FLOPs = iterations x chains x lanes x 2; the
 * best of 30 trials of about 50 ms is reported (a virtual machine's CPU can
 * be taken away for a second now and then: the trials span about 3 s). */
#include <immintrin.h>
#include <omp.h>

#include "bench.h"

enum { AVX2_CHAINS = 12, AVX512_CHAINS = 24, TRIALS = 30 };

/* iters rounds of AVX2_CHAINS 8-lane FMAs; returns a sum of the chains so
 * the work cannot be dropped. */
__attribute__((target("avx2,fma"))) static float fma_chains_avx2(long iters, float start)
{
    __m256 acc[AVX2_CHAINS];
    for (int j = 0; j < AVX2_CHAINS; j++) acc[j] = _mm256_set1_ps(start + 0.001f * (float)j);
    const __m256 a = _mm256_set1_ps(0.9999999f), b = _mm256_set1_ps(1e-7f);
    for (long i = 0; i < iters; i++) {
#pragma GCC unroll 24
        for (int j = 0; j < AVX2_CHAINS; j++) acc[j] = _mm256_fmadd_ps(acc[j], a, b);
    }
    __m256 sum = acc[0];
    for (int j = 1; j < AVX2_CHAINS; j++) sum = _mm256_add_ps(sum, acc[j]);
    float lanes[8];
    _mm256_storeu_ps(lanes, sum);
    return lanes[0] + lanes[7];
}

/* iters rounds of AVX512_CHAINS 16-lane FMAs; returns a sum of the chains. */
__attribute__((target("avx512f"))) static float fma_chains_avx512(long iters, float start)
{
    __m512 acc[AVX512_CHAINS];
    for (int j = 0; j < AVX512_CHAINS; j++) acc[j] = _mm512_set1_ps(start + 0.001f * (float)j);
    const __m512 a = _mm512_set1_ps(0.9999999f), b = _mm512_set1_ps(1e-7f);
    for (long i = 0; i < iters; i++) {
#pragma GCC unroll 24
        for (int j = 0; j < AVX512_CHAINS; j++) acc[j] = _mm512_fmadd_ps(acc[j], a, b);
    }
    __m512 sum = acc[0];
    for (int j = 1; j < AVX512_CHAINS; j++) sum = _mm512_add_ps(sum, acc[j]);
    return _mm512_reduce_add_ps(sum);
}

/* Best GFLOP/s of `threads` threads each running the chains of one width
 * (256 or 512 bits) at once. */
static double measure_peak(int threads, int width)
{
    const long iters = width == 512 ? 10L * 1000 * 1000 : 20L * 1000 * 1000;
    const double flops_per_iter = width == 512 ? AVX512_CHAINS * 16 * 2 : AVX2_CHAINS * 8 * 2;
    double best = 0.0;
    volatile float sink = 0.0f;
    for (int trial = 0; trial < TRIALS; trial++) {
        double start = bench_now();
        float total = 0.0f;
#pragma omp parallel num_threads(threads) reduction(+ : total)
        {
            float seed = 1.0f + (float)omp_get_thread_num();
            total += width == 512 ? fma_chains_avx512(iters, seed) : fma_chains_avx2(iters, seed);
        }
        double seconds = bench_now() - start;
        sink = sink + total;
        double gflops = (double)threads * iters * flops_per_iter / seconds * 1e-9;
        if (gflops > best) best = gflops;
    }
    (void)sink;
    return best;
}

FmaPeaks bench_fma_peaks(int threads)
{
    FmaPeaks p = {0.0, 0.0};
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        p.avx2 = measure_peak(threads, 256);
    if (__builtin_cpu_supports("avx512f")) p.avx512 = measure_peak(threads, 512);
    return p;
}
