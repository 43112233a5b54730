/* bench.c — `make bench`: training speed of seqrep against the machine's FMA
 * peak and against PyTorch on the same model.
 *
 * For each configuration (T = 128, B = 8, vocabulary 4096, tied LM head):
 *   tiny   d_model  64, 4 layers, 2 heads (head size 32), d_ff 176
 *   small  d_model 128, 6 layers, 4 heads (head size 32), d_ff 352
 *   base   d_model 256, 8 layers, 4 heads (head size 64), d_ff 688
 * (d_ff = 8/3 d_model rounded up to a multiple of 16), it times
 *   forward = model_forward + model_lm_loss
 *   train   = forward + model_zero_grad + model_backward + adamw_step
 * (3 untimed warm-up runs, then the median of --reps timed runs) and prints
 * tokens/s, achieved GFLOP/s, its share of the measured FMA peak, and the
 * PyTorch train step of tests/reference/bench_torch.py on the same config,
 * run right after it, as a ratio (seqrep / PyTorch).
 *
 * FLOPs are counted analytically, multiply-add = 2 FLOPs:
 *   matrix products: 2 * in * out per token for every projection and the LM head;
 *   attention: q.k and att.v over the VISIBLE (causal) query-key pairs only,
 *     T (T + 1) / 2 pairs per sequence and head, 2 * hd FLOPs each for each of
 *     the two products (PyTorch computes the full T^2 and throws half away;
 *     counting only the useful half is the conservative choice for us);
 *   a training step = 3 x forward (the backward of every product costs two
 *     products of the same size: input gradient and weight gradient);
 *   norms, RoPE, softmax, SwiGLU, the loss and AdamW are not counted.
 *
 * Usage: bench [--config tiny|small|base] [--reps N] [--threads N] [--no-torch]
 * Run from the repository root (it calls /usr/bin/python3 tests/reference/bench_torch.py). */
#include <cJSON.h>
#include <immintrin.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/rng.h"
#include "engine/adamw.h"
#include "engine/model.h"
#include "engine/threads.h"

enum { BENCH_VOCAB = 4096, BENCH_BATCH = 8, BENCH_SEQ = 128, BENCH_WARMUP = 3 };

typedef struct {
    const char *name;
    int d_model, n_layers, n_heads, d_ff;
} BenchConfig;

static const BenchConfig CONFIGS[] = {
    {"tiny", 64, 4, 2, 176},
    {"small", 128, 6, 4, 352},
    {"base", 256, 8, 4, 688},
};
#define N_CONFIGS ((int)(sizeof CONFIGS / sizeof CONFIGS[0]))

/* Wall-clock seconds from a monotonic clock. */
static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Median of n doubles (sorts them in place). */
static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int n)
{
    qsort(values, (size_t)n, sizeof(double), compare_doubles);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/* ---- the machine's FMA peak ------------------------------------------------ */

/* Number of independent accumulator chains per thread. An FMA has a latency
 * of 4 cycles on Zen 3 and two FMA units issue one each per cycle, so at
 * least 8 chains are needed to keep both busy; 12 leaves a margin and still
 * fits the 16 ymm registers with the two constants. */
enum { PEAK_CHAINS = 12 };

/* Runs iters rounds of PEAK_CHAINS independent 8-lane FMAs acc = acc * a + b
 * and returns a sum of the accumulators (so the work cannot be optimised
 * away). FLOPs done = iters * PEAK_CHAINS * 8 lanes * 2. */
__attribute__((target("avx2,fma"))) static float fma_chains(long iters, float start)
{
    __m256 acc[PEAK_CHAINS];
    for (int j = 0; j < PEAK_CHAINS; j++) acc[j] = _mm256_set1_ps(start + 0.001f * (float)j);
    const __m256 a = _mm256_set1_ps(0.9999999f), b = _mm256_set1_ps(1e-7f);
    for (long i = 0; i < iters; i++)
        for (int j = 0; j < PEAK_CHAINS; j++) acc[j] = _mm256_fmadd_ps(acc[j], a, b);
    __m256 sum = acc[0];
    for (int j = 1; j < PEAK_CHAINS; j++) sum = _mm256_add_ps(sum, acc[j]);
    float lanes[8];
    _mm256_storeu_ps(lanes, sum);
    return lanes[0] + lanes[7];
}

/* Peak single-precision FMA throughput of `threads` threads in GFLOP/s: the
 * best of 10 short trials (about 50 ms each) of every thread running
 * fma_chains at once; short trials and the best of many keep other work on
 * the machine from lowering it. Returns 0 if the CPU lacks AVX2/FMA. */
static double measure_fma_peak(int threads)
{
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return 0.0;
    const long iters = 20L * 1000 * 1000;
    double best = 0.0;
    volatile float sink = 0.0f;
    for (int trial = 0; trial < 10; trial++) {
        double start = now_seconds();
        float total = 0.0f;
#pragma omp parallel num_threads(threads) reduction(+ : total)
        total += fma_chains(iters, 1.0f + (float)omp_get_thread_num());
        double seconds = now_seconds() - start;
        sink = sink + total;
        double gflops = (double)threads * iters * PEAK_CHAINS * 8 * 2 / seconds * 1e-9;
        if (gflops > best) best = gflops;
    }
    (void)sink;
    return best;
}

/* ---- FLOP count ---------------------------------------------------------------- */

/* Analytic FLOPs of one forward pass over B sequences of T tokens (see the
 * header comment for what is counted). */
static double forward_flops(const ModelConfig *c, int B, int T)
{
    double C = c->d_model, F = c->d_ff, V = c->vocab_size, L = c->n_layers;
    double tokens = (double)B * T;
    double per_layer_matmul = 2.0 * (3 * C * C + C * C + 2 * F * C + F * C);
    double matmul = tokens * (L * per_layer_matmul + 2.0 * C * V);
    double visible_pairs = (double)T * (T + 1) / 2.0;           /* per sequence and head */
    double attention = L * B * visible_pairs * 2.0 * (2.0 * C); /* q.k and att.v, all heads */
    return matmul + attention;
}

/* ---- one configuration ------------------------------------------------------------ */

typedef struct {
    size_t params;
    double fwd_tok_s, train_tok_s, train_gflops;
} SeqrepResult;

/* Times forward and training steps of one configuration with seqrep; returns
 * 0, or -1 with a message on stderr. */
static int bench_seqrep(const BenchConfig *bc, int reps, SeqrepResult *res)
{
    ModelConfig cfg = {.vocab_size = BENCH_VOCAB, .d_model = bc->d_model,
                       .n_layers = bc->n_layers, .n_heads = bc->n_heads, .d_ff = bc->d_ff,
                       .max_seq_len = BENCH_SEQ, .rope_theta = 10000.0f, .norm_eps = 1e-5f,
                       .tied = 1};
    int B = BENCH_BATCH, T = BENCH_SEQ, N = B * T;
    Model m;
    SrError err;
    if (model_create(&m, &cfg, B, T, &err) || adamw_create(&m, &err)) {
        fprintf(stderr, "bench: %s: %s\n", bc->name, err.msg);
        return -1;
    }
    model_init_weights(&m, 1);
    int *ids = malloc(sizeof(int) * (size_t)N), *targets = malloc(sizeof(int) * (size_t)N);
    double *times = malloc(sizeof(double) * (size_t)reps);
    if (!ids || !targets || !times) {
        fprintf(stderr, "bench: out of memory\n");
        free(ids), free(targets), free(times), model_free(&m);
        return -1;
    }
    Rng rng;
    rng_seed(&rng, 42);
    for (int i = 0; i < N; i++) ids[i] = (int)(rng_u32(&rng) % BENCH_VOCAB);
    for (int i = 0; i < N; i++) targets[i] = (int)(rng_u32(&rng) % BENCH_VOCAB);
    ModelInput in = {.B = B, .T = T, .ids = ids, .want_logits = 1}; /* causal, RoPE 0..T-1 */
    AdamWConfig opt = adamw_defaults();

    /* forward only */
    int failed = 0;
    for (int r = 0; r < BENCH_WARMUP + reps; r++) {
        double start = now_seconds();
        failed |= model_forward(&m, &in, &err);
        model_lm_loss(&m, targets, -1);
        if (r >= BENCH_WARMUP) times[r - BENCH_WARMUP] = now_seconds() - start;
    }
    res->fwd_tok_s = N / median(times, reps);

    /* full training step */
    float loss = 0.0f;
    for (int r = 0; r < BENCH_WARMUP + reps; r++) {
        double start = now_seconds();
        failed |= model_forward(&m, &in, &err);
        loss = model_lm_loss(&m, targets, -1);
        model_zero_grad(&m);
        model_backward(&m, targets, -1);
        adamw_step(&m, &opt, 1e-3f, r + 1);
        if (r >= BENCH_WARMUP) times[r - BENCH_WARMUP] = now_seconds() - start;
    }
    if (failed || !isfinite(loss)) {
        fprintf(stderr, "bench: %s: %s\n", bc->name, failed ? err.msg : "the loss is not finite");
        free(ids), free(targets), free(times), model_free(&m);
        return -1;
    }
    double step_seconds = median(times, reps);
    res->train_tok_s = N / step_seconds;
    res->train_gflops = 3.0 * forward_flops(&cfg, B, T) / step_seconds * 1e-9;
    res->params = m.n_params;
    free(ids), free(targets), free(times), model_free(&m);
    return 0;
}

typedef struct {
    double fwd_tok_s, train_tok_s;
    int torch_threads, openblas_threads;
} TorchResult;

/* Runs bench_torch.py for one configuration and reads its JSON line; returns
 * 0, or -1 with a message on stderr. */
static int bench_torch(const BenchConfig *bc, int reps, TorchResult *res)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 tests/reference/bench_torch.py --config %s --reps %d",
             bc->name, reps);
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
        fprintf(stderr, "bench: %s: no result from `%s` (exit status %d)\n", bc->name, cmd, status);
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

/* ---- main -------------------------------------------------------------------------- */

/* The CPU model name from /proc/cpuinfo into out (or "unknown"). */
static void cpu_model(char *out, size_t size)
{
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                snprintf(out, size, "%s", colon + 2);
                out[strcspn(out, "\n")] = '\0';
            }
            break;
        }
    }
    fclose(f);
}

/* The 1-minute load average from /proc/loadavg (-1 if unreadable). */
static double load_average(void)
{
    double load = -1.0;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &load) != 1) load = -1.0;
        fclose(f);
    }
    return load;
}

static int usage(void)
{
    fprintf(stderr, "usage: bench [--config tiny|small|base] [--reps N] [--threads N] [--no-torch]\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *only = NULL;
    int reps = 7, threads = 2, with_torch = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) only = argv[++i];
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--no-torch") == 0) with_torch = 0;
        else return usage();
    }
    if (reps < 1 || threads < 1) return usage();
    int found = only == NULL;
    for (int c = 0; c < N_CONFIGS; c++) found |= only && strcmp(only, CONFIGS[c].name) == 0;
    if (!found) return usage();

    threads_set(threads);
    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    double peak = measure_fma_peak(threads);
    printf("seqrep bench: %s, %d threads, B=%d T=%d V=%d, median of %d steps after %d warm-up\n",
           cpu, threads, BENCH_BATCH, BENCH_SEQ, BENCH_VOCAB, reps, BENCH_WARMUP);
    printf("measured FMA peak: %.1f GFLOP/s (%d threads x %d chains of 8-lane FMA, 2 FLOPs per lane)\n",
           peak, threads, PEAK_CHAINS);
    double load = load_average();
    printf("load average at start: %.2f%s\n\n", load,
           load > 0.5 ? " (other work is running: numbers may be low and noisy)" : "");
    printf("%-6s %8s %10s %11s %8s %7s %10s %11s %11s %6s\n", "config", "params", "fwd tok/s",
           "train tok/s", "GFLOP/s", "% peak", "torch fwd", "torch train", "torch setup",
           "ratio");
    fflush(stdout);

    int failed = 0;
    for (int c = 0; c < N_CONFIGS; c++) {
        const BenchConfig *bc = &CONFIGS[c];
        if (only && strcmp(only, bc->name) != 0) continue;
        SeqrepResult r;
        if (bench_seqrep(bc, reps, &r)) {
            failed = 1;
            continue;
        }
        printf("%-6s %7.2fM %10.0f %11.0f %8.1f %6.1f%%", bc->name, r.params / 1e6, r.fwd_tok_s,
               r.train_tok_s, r.train_gflops, peak > 0 ? 100.0 * r.train_gflops / peak : 0.0);
        fflush(stdout);
        TorchResult t;
        if (with_torch && bench_torch(bc, reps, &t) == 0) {
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
    printf("\nload average at end: %.2f\n", load_average());
    printf("tok/s: tokens (B x T) per second, median step; GFLOP/s and %% peak: train step;\n"
           "torch setup tN/blasM: torch.set_num_threads(N), OPENBLAS_NUM_THREADS=M (the fastest\n"
           "train step tried); ratio: seqrep train tok/s / torch train tok/s\n");
    return failed ? 1 : 0;
}
