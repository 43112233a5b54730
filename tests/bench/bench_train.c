/* bench_train.c — the training step of three model sizes against the FMA
 * peak, PyTorch and the memory floor (see bench.h and docs/performance.md).
 *
 * For each configuration (T = 128, B = 8, vocabulary 4096, tied LM head):
 *   tiny   d_model  64, 4 layers, 2 heads (head size 32), d_ff 176
 *   small  d_model 128, 6 layers, 4 heads (head size 32), d_ff 352
 *   base   d_model 256, 8 layers, 4 heads (head size 64), d_ff 688
 * (d_ff = 8/3 d_model rounded up to a multiple of 16), it times
 *   forward = model_forward + model_lm_loss
 *   train   = forward + model_zero_grad + model_backward + adamw_step
 * (3 untimed warm-up runs, then the median of `reps` timed runs), each
 * configuration in a child process whose peak RSS is compared with
 * memory_floor_training (engine/memory_floor.h), and runs the PyTorch train
 * step of tests/reference/bench_torch.py on the same configuration right
 * after it. A training step counts 3 x the forward FLOPs (the backward of
 * every product is two products of the same size). */
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "bench.h"
#include "engine/adamw.h"
#include "engine/memory_floor.h"
#include "engine/threads.h"

enum { BENCH_VOCAB = 4096, BENCH_BATCH = 8, BENCH_SEQ = 128, BENCH_WARMUP = 3 };

typedef struct {
    const char *name;
    int d_model, n_layers, n_heads, d_ff;
} TrainConfig;

/* tests/reference/bench_torch.py has the same table */
static const TrainConfig CONFIGS[] = {
    {"tiny", 64, 4, 2, 176},
    {"small", 128, 6, 4, 352},
    {"base", 256, 8, 4, 688},
};
enum { N_CONFIGS = (int)(sizeof CONFIGS / sizeof CONFIGS[0]) };

typedef struct {
    const TrainConfig *tc;
    int reps, threads;
} TrainJob;

typedef struct {
    double params, fwd_tok_s, train_tok_s, train_gflops;
} TrainResult;

/* The ModelConfig of one benchmark configuration. */
static ModelConfig model_config_of(const TrainConfig *tc)
{
    return (ModelConfig){.vocab_size = BENCH_VOCAB, .d_model = tc->d_model,
                         .n_layers = tc->n_layers, .n_heads = tc->n_heads, .d_ff = tc->d_ff,
                         .max_seq_len = BENCH_SEQ, .rope_theta = 10000.0f, .norm_eps = 1e-5f,
                         .tied = 1};
}

/* In the child: times forward and training steps of one configuration.
 * 0, or -1 with a message on stderr. */
static int time_train_step(const void *arg, void *result)
{
    const TrainJob *job = arg;
    TrainResult *res = result;
    threads_set(job->threads);
    ModelConfig cfg = model_config_of(job->tc);
    int B = BENCH_BATCH, T = BENCH_SEQ, N = B * T, reps = job->reps;
    Model m;
    SrError err;
    if (model_create(&m, &cfg, B, T, &err) || adamw_create(&m, &err)) {
        fprintf(stderr, "bench: %s: %s\n", job->tc->name, err.msg);
        return -1;
    }
    model_init_weights(&m, 1);
    int *ids = malloc(sizeof(int) * (size_t)N), *targets = malloc(sizeof(int) * (size_t)N);
    double *times = malloc(sizeof(double) * (size_t)reps);
    if (!ids || !targets || !times) {
        fprintf(stderr, "bench: out of memory\n");
        return -1;
    }
    Rng rng;
    rng_seed(&rng, 42);
    for (int i = 0; i < N; i++) ids[i] = (int)(rng_u32(&rng) % BENCH_VOCAB);
    for (int i = 0; i < N; i++) targets[i] = (int)(rng_u32(&rng) % BENCH_VOCAB);
    ModelInput in = {.B = B, .T = T, .ids = ids, .want_logits = 1}; /* causal, RoPE 0..T-1 */
    AdamWConfig opt = adamw_defaults();

    int failed = 0;
    for (int r = 0; r < BENCH_WARMUP + reps; r++) {
        double start = bench_now();
        failed |= model_forward(&m, &in, &err);
        model_lm_loss(&m, targets, -1);
        if (r >= BENCH_WARMUP) times[r - BENCH_WARMUP] = bench_now() - start;
    }
    res->fwd_tok_s = N / bench_median(times, reps);

    float loss = 0.0f;
    for (int r = 0; r < BENCH_WARMUP + reps; r++) {
        double start = bench_now();
        failed |= model_forward(&m, &in, &err);
        loss = model_lm_loss(&m, targets, -1);
        model_zero_grad(&m);
        model_backward(&m, targets, -1);
        adamw_step(&m, &opt, 1e-3f, r + 1);
        if (r >= BENCH_WARMUP) times[r - BENCH_WARMUP] = bench_now() - start;
    }
    if (failed || !isfinite(loss)) {
        fprintf(stderr, "bench: %s: %s\n", job->tc->name, failed ? err.msg : "the loss is not finite");
        return -1;
    }
    double step_seconds = bench_median(times, reps);
    res->train_tok_s = N / step_seconds;
    res->train_gflops = 3.0 * bench_forward_flops(&cfg, B, T, 0, 1) / step_seconds * 1e-9;
    res->params = (double)m.n_params;
    free(ids), free(targets), free(times), model_free(&m);
    return 0;
}

typedef struct {
    double fwd_tok_s, train_tok_s;
    int torch_threads, openblas_threads;
} TorchResult;

/* Runs bench_torch.py for one configuration and reads its JSON line; returns
 * 0, or -1 with a message on stderr. */
static int bench_torch(const TrainConfig *tc, int reps, TorchResult *res)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 tests/reference/bench_torch.py --config %s --reps %d",
             tc->name, reps);
    FILE *pipe = popen(cmd, "r");
    if (!pipe) {
        fprintf(stderr, "bench: cannot run %s\n", cmd);
        return -1;
    }
    char line[8192] = "";
    char last[8192] = "";
    while (fgets(line, sizeof line, pipe)) memcpy(last, line, sizeof line);
    int status = pclose(pipe);
    cJSON *json = status == 0 ? cJSON_Parse(last) : NULL;
    const cJSON *train = cJSON_GetObjectItem(json, "train_tok_s");
    const cJSON *fwd = cJSON_GetObjectItem(json, "fwd_tok_s");
    const cJSON *tt = cJSON_GetObjectItem(json, "torch_threads");
    const cJSON *bt = cJSON_GetObjectItem(json, "openblas_threads");
    if (!cJSON_IsNumber(train) || !cJSON_IsNumber(fwd) || !cJSON_IsNumber(tt) || !cJSON_IsNumber(bt)) {
        fprintf(stderr, "bench: %s: no result from `%s` (exit status %d)\n", tc->name, cmd, status);
        cJSON_Delete(json);
        return -1;
    }
    res->train_tok_s = train->valuedouble;
    res->fwd_tok_s = fwd->valuedouble;
    res->torch_threads = tt->valueint;
    res->openblas_threads = bt->valueint;
    cJSON_Delete(json);
    return 0;
}

int bench_train_table(const char *only, int reps, int threads, int with_torch, double widest_peak)
{
    printf("training step: B=%d T=%d V=%d, median of %d steps after %d warm-up, each config in its own process\n",
           BENCH_BATCH, BENCH_SEQ, BENCH_VOCAB, reps, BENCH_WARMUP);
    printf("%-6s %7s %9s %11s %8s %7s %9s %9s %6s %10s %11s %11s %6s\n", "config", "params",
           "fwd tok/s", "train tok/s", "GFLOP/s", "% peak", "RSS MiB", "floor MiB", "xfloor",
           "torch fwd", "torch train", "torch setup", "ratio");
    int failed = 0;
    for (int c = 0; c < N_CONFIGS; c++) {
        const TrainConfig *tc = &CONFIGS[c];
        if (only && strcmp(only, tc->name) != 0) continue;
        TrainJob job = {tc, reps, threads};
        TrainResult r;
        double rss = 0.0;
        if (bench_in_child(time_train_step, &job, &r, sizeof r, &rss)) {
            fprintf(stderr, "bench: %s: the measurement failed\n", tc->name);
            failed = 1;
            continue;
        }
        ModelConfig cfg = model_config_of(tc);
        MemoryFloor floor = memory_floor_training(&cfg, BENCH_BATCH, BENCH_SEQ, (size_t)r.params, 0, 1);
        printf("%-6s %6.2fM %9.0f %11.0f %8.1f %6.1f%% %9.1f %9.1f %5.2fx", tc->name, r.params / 1e6,
               r.fwd_tok_s, r.train_tok_s, r.train_gflops,
               widest_peak > 0 ? 100.0 * r.train_gflops / widest_peak : 0.0, bytes_to_mib(rss),
               bytes_to_mib(floor.total), rss / floor.total);
        fflush(stdout);
        TorchResult t;
        if (with_torch && bench_torch(tc, reps, &t) == 0) {
            char setup[32];
            snprintf(setup, sizeof setup, "t%d/blas%d", t.torch_threads, t.openblas_threads);
            printf(" %10.0f %11.0f %11s %5.2fx\n", t.fwd_tok_s, t.train_tok_s, setup,
                   r.train_tok_s / t.train_tok_s);
        } else {
            printf(" %10s %11s %11s %6s\n", "-", "-", "-", "-");
            failed |= with_torch;
        }
        fflush(stdout);
    }
    printf("tok/s: tokens (B x T) per second, median step; GFLOP/s and %% peak: train step against\n"
           "the widest FMA peak; RSS: the child's peak resident memory; floor: parameters,\n"
           "gradients, AdamW moments and the activations the backward reads (engine/memory_floor.h);\n"
           "torch setup tN/blasM: torch.set_num_threads(N), OPENBLAS_NUM_THREADS=M (the fastest\n"
           "train step tried); ratio: seqrep train tok/s / torch train tok/s\n\n");
    return failed;
}
