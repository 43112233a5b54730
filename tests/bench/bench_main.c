/* bench_main.c — `make bench`: seqrep's speed against the CPU's FMA peak,
 * PyTorch and the memory floor (docs/performance.md). Prints, in order: the
 * machine (CPU, the vector extensions it has, the kernel OpenBLAS chose), the
 * FMA peaks, the training-step table, fine-tuning and probe throughput, early
 * exit, the forward pass on real Hugging Face model shapes, and the head-roles
 * measurement of `seqrep heads`, and research scale (`seqrep finetune` on real
 * model shapes, with and without --recompute). Every measurement runs in a
 * child process (bench_in_child, or the command itself).
 *
 * Usage: bench [--config tiny|small|base] [--reps N] [--threads N] [--no-torch]
 *              [--only train|finetune|exit|hf|stored|heads|research]
 * Run from the repository root (it calls /usr/bin/python3 tests/reference/bench_torch.py). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

char *openblas_get_corename(void); /* OpenBLAS's own (cblas.h does not declare it) */

typedef struct {
    int threads;
} PeakJob;

/* In the child: the FMA peaks. */
static int peaks_in_child(const void *arg, void *result)
{
    const PeakJob *job = arg;
    *(FmaPeaks *)result = bench_fma_peaks(job->threads);
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: bench [--config tiny|small|base] [--reps N] [--runs N] [--threads N] [--no-torch]"
                    " [--only train|finetune|exit|hf|stored|heads|research]\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *config = NULL, *part = NULL;
    int reps = 7, runs = 1, threads = 2, with_torch = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) config = argv[++i];
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) part = argv[++i];
        else if (strcmp(argv[i], "--no-torch") == 0) with_torch = 0;
        else return usage();
    }
    if (reps < 1 || threads < 1 || runs < 1 || runs > 16) return usage();
    if (config && strcmp(config, "tiny") && strcmp(config, "small") && strcmp(config, "base"))
        return usage();
    if (part && strcmp(part, "train") && strcmp(part, "finetune") && strcmp(part, "exit") &&
        strcmp(part, "hf") && strcmp(part, "stored") && strcmp(part, "heads") &&
        strcmp(part, "research"))
        return usage();

    char cpu[256];
    bench_cpu_model(cpu, sizeof cpu);
    __builtin_cpu_init();
    int has_avx512 = __builtin_cpu_supports("avx512f");
    const char *forced = getenv("OPENBLAS_CORETYPE");
    printf("seqrep bench: %s, %d threads; vectors: AVX2%s%s\n", cpu, threads,
           has_avx512 ? ", AVX-512F" : "", __builtin_cpu_supports("avx512bf16") ? " (with BF16)" : "");
    printf("OpenBLAS kernels: %s%s%s\n", openblas_get_corename(),
           forced ? " (set by OPENBLAS_CORETYPE in the environment)" : " (OpenBLAS's own choice)",
           forced && has_avx512 && strcmp(forced, "Haswell") == 0
               ? "; this CPU has AVX-512: `env -u OPENBLAS_CORETYPE make bench` lets OpenBLAS use it"
               : "");
    PeakJob pj = {threads};
    FmaPeaks peaks = {0, 0};
    double rss;
    if (bench_in_child(peaks_in_child, &pj, &peaks, sizeof peaks, &rss)) return 1;
    double widest = peaks.avx512 > 0 ? peaks.avx512 : peaks.avx2;
    printf("measured FMA peak: AVX2 %.1f GFLOP/s (12 chains of 8 lanes)", peaks.avx2);
    if (peaks.avx512 > 0) printf(", AVX-512 %.1f GFLOP/s (24 chains of 16 lanes)", peaks.avx512);
    printf("; %% peak below is of the widest, %s\n", peaks.avx512 > 0 ? "AVX-512" : "AVX2");
    double load = bench_load_average();
    printf("load average at start: %.2f%s\n\n", load,
           load > 0.5 ? " (other work is running: numbers may be low and noisy)" : "");
    fflush(stdout);

    int failed = 0;
    if (!part || strcmp(part, "train") == 0)
        failed |= bench_train_table(config, reps, runs, threads, with_torch, widest);
    if (!part || strcmp(part, "finetune") == 0) failed |= bench_finetune_table(threads);
    if (!part || strcmp(part, "exit") == 0) failed |= bench_exit_table(reps, threads);
    if (!part || strcmp(part, "hf") == 0) failed |= bench_hf_table(reps, threads, with_torch);
    if (!part || strcmp(part, "stored") == 0) failed |= bench_stored_table(reps, runs, threads);
    if (!part || strcmp(part, "heads") == 0) failed |= bench_heads_table(threads);
    if (!part || strcmp(part, "research") == 0) failed |= bench_research_table(threads);
    FmaPeaks after = {0, 0};
    if (bench_in_child(peaks_in_child, &pj, &after, sizeof after, &rss) == 0) {
        double widest_after = after.avx512 > 0 ? after.avx512 : after.avx2;
        printf("measured FMA peak again at the end: %.1f GFLOP/s (widest)%s\n", widest_after,
               widest_after > 1.1 * widest || widest_after < 0.9 * widest
                   ? ": more than 10% off the start, the CPUs were not the benchmark's all along"
                   : "");
    }
    printf("load average at end: %.2f\n", bench_load_average());
    return failed ? 1 : 0;
}
