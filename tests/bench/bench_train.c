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
#include "engine/ops/ops.h"
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

/* The products of a training step, one kind per entry: inputs, outputs and
 * how many of them (q/k/v, o, gate/up and down per layer; the tied LM head
 * once), for the ceiling below. */
typedef struct {
    int in, out, count;
} ProductShape;

/* In the child: the step's projection and LM-head products alone, as the
 * step runs them (matmul_forward of every layer and the head, then
 * matmul_backward, input and weight gradients, in reverse), on inputs and
 * weights of their own per layer; result: the median GFLOP/s (3x the
 * forward products' FLOPs, as the step counts them). Attention's products
 * and every other op are left out: this is the ceiling the step's matrix
 * work reaches with OpenBLAS on these shapes. */
static int time_products(const void *arg, void *result)
{
    const TrainJob *job = arg;
    double *gflops = result;
    threads_set(job->threads);
    const TrainConfig *tc = job->tc;
    int C = tc->d_model, F = tc->d_ff, L = tc->n_layers, N = BENCH_BATCH * BENCH_SEQ;
    ProductShape shapes[5] = {{C, 3 * C, L}, {C, C, L}, {C, 2 * F, L}, {F, C, L}, {C, BENCH_VOCAB, 1}};
    float *buf[5][3 * 8 + 3]; /* per product kind: inputs, outputs, weights of each layer; dinp, dw */
    double flops = 0.0;
    Rng rng;
    rng_seed(&rng, 3);
    for (int k = 0; k < 5; k++) {
        const ProductShape *ps = &shapes[k];
        size_t sizes[3] = {(size_t)N * ps->in, (size_t)N * ps->out, (size_t)ps->in * ps->out};
        for (int i = 0; i < 3 * ps->count + 2; i++) {
            size_t n = i < 3 * ps->count ? sizes[i % 3] : i == 3 * ps->count ? sizes[0] : sizes[2];
            buf[k][i] = malloc(n * sizeof(float));
            if (!buf[k][i]) return fprintf(stderr, "bench: out of memory\n"), -1;
            for (size_t j = 0; j < n; j++) buf[k][i][j] = 0.02f * rng_normal(&rng);
        }
        flops += 3.0 * 2.0 * N * ps->in * (double)ps->out * ps->count;
    }
    double *times = malloc(sizeof(double) * (size_t)job->reps);
    for (int r = 0; r < BENCH_WARMUP + job->reps && times; r++) {
        double start = bench_now();
        for (int l = 0; l < L; l++)
            for (int k = 0; k < 4; k++)
                matmul_forward(buf[k][3 * l + 1], buf[k][3 * l], buf[k][3 * l + 2], N, shapes[k].in,
                               shapes[k].out);
        matmul_forward(buf[4][1], buf[4][0], buf[4][2], N, C, BENCH_VOCAB);
        matmul_backward(buf[4][3], buf[4][4], buf[4][1], buf[4][0], buf[4][2], N, C, BENCH_VOCAB);
        for (int l = L - 1; l >= 0; l--)
            for (int k = 3; k >= 0; k--)
                matmul_backward(buf[k][3 * L], buf[k][3 * L + 1], buf[k][3 * l + 1], buf[k][3 * l],
                                buf[k][3 * l + 2], N, shapes[k].in, shapes[k].out);
        if (r >= BENCH_WARMUP) times[r - BENCH_WARMUP] = bench_now() - start;
    }
    if (!times) return fprintf(stderr, "bench: out of memory\n"), -1;
    *gflops = flops / bench_median(times, job->reps) * 1e-9;
    free(times);
    for (int k = 0; k < 5; k++)
        for (int i = 0; i < 3 * shapes[k].count + 2; i++) free(buf[k][i]);
    return 0;
}

/* One configuration's row of one run: seqrep's measurement and PyTorch's
 * (torch_ok 0 when it was not run or failed). */
typedef struct {
    TrainResult r;
    double rss, floor;
    TorchResult t;
    int ok, torch_ok;
} TrainRow;

/* Measure configuration tc once (seqrep in a child, then PyTorch) into row. */
static void measure_row(const TrainConfig *tc, int reps, int threads, int with_torch, TrainRow *row)
{
    TrainJob job = {tc, reps, threads};
    *row = (TrainRow){.ok = 0};
    if (bench_in_child(time_train_step, &job, &row->r, sizeof row->r, &row->rss)) {
        fprintf(stderr, "bench: %s: the measurement failed\n", tc->name);
        return;
    }
    ModelConfig cfg = model_config_of(tc);
    row->floor = memory_floor_training(&cfg, 4, &(FloorRun){.B = BENCH_BATCH, .T = BENCH_SEQ, .with_lm_head = 1,
                                                              .n_trained = (size_t)row->r.params}).total;
    row->ok = 1;
    row->torch_ok = with_torch && bench_torch(tc, reps, &row->t) == 0;
}

/* Print one row under the table's header; label is the config's name. */
static void print_row(const char *label, const TrainRow *row, double widest_peak)
{
    const TrainResult *r = &row->r;
    printf("%-6s %6.2fM %9.0f %11.0f %8.1f %6.1f%% %9.1f %9.1f %5.2fx", label, r->params / 1e6,
           r->fwd_tok_s, r->train_tok_s, r->train_gflops,
           widest_peak > 0 ? 100.0 * r->train_gflops / widest_peak : 0.0, bytes_to_mib(row->rss),
           bytes_to_mib(row->floor), row->rss / row->floor);
    if (row->torch_ok) {
        char setup[32];
        snprintf(setup, sizeof setup, "t%d/blas%d", row->t.torch_threads, row->t.openblas_threads);
        printf(" %10.0f %11.0f %11s %5.2fx\n", row->t.fwd_tok_s, row->t.train_tok_s, setup,
               r->train_tok_s / row->t.train_tok_s);
    } else {
        printf(" %10s %11s %11s %6s\n", "-", "-", "-", "-");
    }
    fflush(stdout);
}

/* The row of medians over n runs of one configuration (each quantity on its
 * own; PyTorch's setup is the first run's); the ratio printed from it is
 * then the median seqrep speed over the median PyTorch speed. */
static TrainRow median_row(const TrainRow *rows, int n)
{
    double v[7][16];
    for (int i = 0; i < n; i++) {
        const TrainRow *w = &rows[i];
        double q[7] = {w->r.fwd_tok_s, w->r.train_tok_s, w->r.train_gflops, w->rss,
                       w->t.fwd_tok_s, w->t.train_tok_s, w->r.params};
        for (int k = 0; k < 7; k++) v[k][i] = q[k];
    }
    TrainRow m = rows[0];
    m.r.fwd_tok_s = bench_median(v[0], n), m.r.train_tok_s = bench_median(v[1], n);
    m.r.train_gflops = bench_median(v[2], n), m.rss = bench_median(v[3], n);
    m.t.fwd_tok_s = bench_median(v[4], n), m.t.train_tok_s = bench_median(v[5], n);
    return m;
}

/* The products-alone line of configuration tc: its rate in each run and the
 * step's fraction of it (step GFLOP/s over products GFLOP/s, both of the
 * same run), with their medians when there are several runs. */
static void print_products(const TrainConfig *tc, const TrainRow *rows, const double *products,
                           int runs, double widest_peak)
{
    double ratio[16], rate[16];
    for (int run = 0; run < runs; run++) {
        rate[run] = products[run];
        ratio[run] = products[run] > 0 ? rows[run].r.train_gflops / products[run] : 0.0;
    }
    if (runs == 1) {
        printf("%s: products alone %.1f GFLOP/s (%.1f%%); the step at %.3f of them\n", tc->name,
               rate[0], widest_peak > 0 ? 100.0 * rate[0] / widest_peak : 0.0, ratio[0]);
        return;
    }
    printf("%s: products alone, GFLOP/s by run:", tc->name);
    for (int run = 0; run < runs; run++) printf(" %.1f", rate[run]);
    printf("; the step's fraction of them:");
    for (int run = 0; run < runs; run++) printf(" %.3f", ratio[run]);
    double median_rate = bench_median(rate, runs);
    printf("\n%s: median products %.1f GFLOP/s (%.1f%%); median fraction %.3f\n", tc->name,
           median_rate, widest_peak > 0 ? 100.0 * median_rate / widest_peak : 0.0,
           bench_median(ratio, runs));
}

int bench_train_table(const char *only, int reps, int runs, int threads, int with_torch,
                      double widest_peak)
{
    printf("training step: B=%d T=%d V=%d, median of %d steps after %d warm-up, each config in its own process",
           BENCH_BATCH, BENCH_SEQ, BENCH_VOCAB, reps, BENCH_WARMUP);
    printf(runs > 1 ? ";\n%d runs, each measuring every config in turn, then the medians of the runs\n"
                    : "\n", runs);
    printf("%-6s %7s %9s %11s %8s %7s %9s %9s %6s %10s %11s %11s %6s\n", "config", "params",
           "fwd tok/s", "train tok/s", "GFLOP/s", "% peak", "RSS MiB", "floor MiB", "xfloor",
           "torch fwd", "torch train", "torch setup", "ratio");
    TrainRow rows[N_CONFIGS][16];
    double products[N_CONFIGS][16] = {{0.0}};
    int failed = 0, measured[N_CONFIGS] = {0}; /* runs whose step and products both ran */
    for (int run = 0; run < runs; run++)
        for (int c = 0; c < N_CONFIGS; c++) {
            const TrainConfig *tc = &CONFIGS[c];
            if (only && strcmp(only, tc->name) != 0) continue;
            measure_row(tc, reps, threads, with_torch, &rows[c][run]);
            failed |= !rows[c][run].ok || (with_torch && !rows[c][run].torch_ok);
            if (!rows[c][run].ok) continue;
            /* the products alone right after the step, in the same run */
            TrainJob job = {tc, reps, threads};
            double rss, *rate = &products[c][run];
            if (bench_in_child(time_products, &job, rate, sizeof *rate, &rss)) failed = 1;
            else measured[c]++;
            char label[16];
            snprintf(label, sizeof label, runs > 1 ? "%.4s.%d" : "%s", tc->name, run + 1);
            print_row(runs > 1 ? label : tc->name, &rows[c][run], widest_peak);
        }
    if (runs > 1 && !failed) printf("median of %d runs:\n", runs);
    for (int c = 0; c < N_CONFIGS && runs > 1 && !failed; c++) {
        if (only && strcmp(only, CONFIGS[c].name) != 0) continue;
        TrainRow m = median_row(rows[c], runs);
        print_row(CONFIGS[c].name, &m, widest_peak);
    }
    printf("the same steps' projection and LM-head products alone (matmul_forward and\n"
           "matmul_backward on their shapes; attention and the other ops left out), each run's\n"
           "right after its step:\n");
    for (int c = 0; c < N_CONFIGS; c++)
        if (measured[c] == runs)
            print_products(&CONFIGS[c], rows[c], products[c], runs, widest_peak);
    printf("tok/s: tokens (B x T) per second, median step; GFLOP/s and %% peak: train step against\n"
           "the widest FMA peak; RSS: the child's peak resident memory; floor: parameters,\n"
           "gradients, AdamW moments and the activations the backward reads (engine/memory_floor.h);\n"
           "torch setup tN/blasM: torch.set_num_threads(N), OPENBLAS_NUM_THREADS=M (the fastest\n"
           "train step tried); ratio: seqrep train tok/s / torch train tok/s\n\n");
    return failed;
}
