/* bench_exit.c — early exit: does a forward pass that stops at layer L cost
 * what its FLOPs say (see bench.h)?
 *
 * The base configuration of the training table (8 layers, width 256) reads a
 * batch of 8 sentences of 11 tokens at r = 4 in the paper layout (<bos> per
 * copy: T = 5 x 12 = 60), forward only, no LM head (the labelling forward:
 * ModelInput.n_run = L, hidden states at res[L]). For L = N/4, N/2, 3N/4 and
 * N it prints the median time of `reps` passes, its share of the full-depth
 * time, and the analytic FLOP share L / N (bench_forward_flops). */
#include <stdio.h>
#include <stdlib.h>

#include "base/rng.h"
#include "bench.h"
#include "engine/threads.h"

enum { EXIT_B = 8, EXIT_WORDS = 11, EXIT_R = 4, EXIT_WARMUP = 5 };

typedef struct {
    int reps, threads;
} ExitJob;

typedef struct {
    int n_layers;
    double seconds[4]; /* L = N/4, N/2, 3N/4, N */
    int exits[4];
} ExitTimes;

/* In the child: forward times at the four exits. */
static int time_exits(const void *arg, void *result)
{
    const ExitJob *job = arg;
    ExitTimes *out = result;
    threads_set(job->threads);
    int T = (EXIT_R + 1) * (EXIT_WORDS + 1), N = EXIT_B * T;
    ModelConfig cfg = {.vocab_size = 4096, .d_model = 256, .n_layers = 8, .n_heads = 4,
                       .d_ff = 688, .max_seq_len = T, .rope_theta = 10000.0f, .norm_eps = 1e-5f,
                       .tied = 1};
    Model m;
    SrError err;
    if (model_create(&m, &cfg, EXIT_B, T, &err)) {
        fprintf(stderr, "bench: early exit: %s\n", err.msg);
        return -1;
    }
    model_init_weights(&m, 1);
    int *ids = malloc(sizeof(int) * (size_t)N);
    double *times = malloc(sizeof(double) * (size_t)job->reps);
    Rng rng;
    rng_seed(&rng, 7);
    for (int b = 0; b < EXIT_B; b++) { /* one sentence repeated k times, <bos> per copy */
        int words[EXIT_WORDS];
        for (int i = 0; i < EXIT_WORDS; i++) words[i] = 6 + (int)(rng_u32(&rng) % 4000);
        for (int c = 0, t = 0; c <= EXIT_R; c++) {
            ids[b * T + t++] = 2;
            for (int i = 0; i < EXIT_WORDS; i++) ids[b * T + t++] = words[i];
        }
    }
    out->n_layers = cfg.n_layers;
    for (int e = 0; e < 4; e++) {
        out->exits[e] = cfg.n_layers * (e + 1) / 4;
        ModelInput in = {.B = EXIT_B, .T = T, .ids = ids, .n_run = out->exits[e]};
        for (int r = 0; r < EXIT_WARMUP + job->reps; r++) {
            double start = bench_now();
            if (model_forward(&m, &in, &err)) {
                fprintf(stderr, "bench: early exit: %s\n", err.msg);
                return -1;
            }
            if (r >= EXIT_WARMUP) times[r - EXIT_WARMUP] = bench_now() - start;
        }
        out->seconds[e] = bench_median(times, job->reps);
    }
    free(ids), free(times), model_free(&m);
    return 0;
}

int bench_exit_table(int reps, int threads)
{
    ExitJob job = {reps * 3, threads};
    ExitTimes et;
    double rss;
    if (bench_in_child(time_exits, &job, &et, sizeof et, &rss)) return 1;
    int T = (EXIT_R + 1) * (EXIT_WORDS + 1);
    printf("early exit (base config, r = %d, B = %d, T = %d, forward without LM head, median of %d):\n",
           EXIT_R, EXIT_B, T, job.reps);
    printf("%5s %10s %12s %11s %9s\n", "exit", "ms", "time share", "FLOP share", "off by");
    for (int e = 0; e < 4; e++) {
        double time_share = et.seconds[e] / et.seconds[3];
        double flop_share = (double)et.exits[e] / et.n_layers;
        printf("%2d/%-2d %10.2f %12.3f %11.3f %8.1f%%\n", et.exits[e], et.n_layers,
               1e3 * et.seconds[e], time_share, flop_share, 100.0 * (time_share / flop_share - 1.0));
    }
    printf("\n");
    return 0;
}
