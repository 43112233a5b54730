/* bench.h — what the parts of `make bench` (tests/bench/) share: clocks,
 * medians, the machine, and running one measurement in a child process so
 * that its peak RSS is its own. */
#ifndef SEQREP_BENCH_H
#define SEQREP_BENCH_H

#include <stddef.h>

#include "engine/model.h"

/* Wall-clock seconds from a monotonic clock. */
double bench_now(void);

/* Median of values[0..n) (sorts them in place). */
double bench_median(double *values, int n);

/* The CPU model name from /proc/cpuinfo into out (or "unknown"). */
void bench_cpu_model(char *out, size_t size);

/* The 1-minute load average (-1 if unreadable). */
double bench_load_average(void);

/* Run fn(arg, result) in a child process (fork; the parent must not have
 * started OpenMP threads, so every measurement runs in a child), copy the
 * result_size bytes the child wrote to result back, and return 0 and the
 * child's peak RSS in *peak_rss (bytes), or -1 if the child failed. */
int bench_in_child(int (*fn)(const void *arg, void *result), const void *arg, void *result,
                   size_t result_size, double *peak_rss);

/* The house LM's shape (4 layers, width 128, 4 heads, SwiGLU 352, 8,000
 * ids, 512 positions, tied; bench_finetune.c). */
ModelConfig bench_house_shape(void);

/* The SmolLM2-135M shape (30 layers, width 576, 9 query and 3 key/value
 * heads, SwiGLU 1536, 49,152 ids, tied; bench_hf.c). */
ModelConfig bench_smollm2_shape(void);

/* The Qwen3-0.6B shape (28 layers, width 1024, 16 query and 8 key/value
 * heads of 128, q/k norms, SwiGLU 3072, 151,936 ids, tied; bench_hf.c). */
ModelConfig bench_qwen3_shape(void);

/* ---- the parts, each printing its own table (tests/bench/bench_*.c) ------ */

/* Widest-vector FMA peaks of `threads` threads in GFLOP/s: 8-lane AVX2 and,
 * where the CPU has AVX-512F, 16-lane AVX-512 (0 where absent). */
typedef struct {
    double avx2, avx512;
} FmaPeaks;
FmaPeaks bench_fma_peaks(int threads);

/* The training-step table (tiny, small, base; only `only` when not NULL)
 * against PyTorch (unless no_torch), `runs` times (1 to 16; with more than
 * one, the medians of the runs follow); widest_peak in GFLOP/s. 0 or 1
 * (failed). */
int bench_train_table(const char *only, int reps, int runs, int threads, int with_torch,
                      double widest_peak);

/* Fine-tuning tokens/s at r = 0, 1, 4, 8 and probe feature extraction. */
int bench_finetune_table(int threads);

/* Early exit: forward time at L = N/4, N/2, 3N/4 against the FLOP ratio. */
int bench_exit_table(int reps, int threads);

/* Forward tokens/s on the SmolLM2-135M and Qwen3-0.6B shapes against PyTorch. */
int bench_hf_table(int reps, int threads, int with_torch);

/* Weights kept as stored (BF16) against float32 on the two shapes of
 * bench_hf.c, 64 and 512 tokens: tokens/s and peak RSS, the medians of
 * `runs` runs (1 to 16) of every way in turn (bench_stored.c). */
int bench_stored_table(int reps, int runs, int threads);

/* The time and peak RSS of `seqrep heads`' measurement (head_roles_measure)
 * on 619 NLU++-length sentences at r = 1, on the house and SmolLM2-135M
 * shapes, against issue 29's targets (30 s and 300 s). */
int bench_heads_table(int threads);

/* Research scale: `seqrep finetune` with the paper recipe on random BF16
 * folders of the SmolLM2-135M and Qwen3-0.6B shapes, r = 1, 4, 8, with and
 * without --recompute: seconds per sentence, peak RSS, the printed floor
 * (bench_research.c). */
int bench_research_table(int threads);

/* Analytic FLOPs of one forward pass over B sequences of T tokens through
 * layers 0..n_run-1 (0 = all), with or without the LM head: label/cost.h's
 * count (2 per multiply-add of every projection, attention over the causal
 * visible pairs only) plus 2 C V per token for the head. */
double bench_forward_flops(const ModelConfig *c, int B, int T, int n_run, int with_lm_head);

#endif
