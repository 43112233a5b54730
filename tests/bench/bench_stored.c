/* bench_stored.c — weights kept as stored (BF16) against float32 on the
 * shapes of bench_hf.c: the read-only forward that plot, explore, probe and
 * attnflow run (an inference model on the weights), one sequence of 64 and
 * of 512 tokens, logits included, each in its own process. The BF16 weights
 * are random values rounded to BF16 and held in memory as a mapped folder
 * holds them (two bytes a value); the float32 run gets the same values
 * widened. Targets (issue 31): tokens/s at least 0.9x the float32 run's,
 * and peak RSS at most "0.55x its f32 weights + activations", printed both
 * ways it reads: 0.55 x the float32 run's peak (W + A), and 0.55 x W + A. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "bench.h"
#include "engine/serving/model_inference.h"
#include "engine/serving/model_stored.h"
#include "engine/threads.h"

typedef struct {
    ModelConfig cfg;
    int T, reps, threads, stored, logits, kernel;
} StoredJob;

typedef struct {
    double tok_s;
} StoredSpeed;

/* n BF16 values of Normal(0, 0.02) (the high halves of float32s) from rng. */
static uint16_t *random_bf16(size_t n, Rng *rng)
{
    uint16_t *w = malloc(n * sizeof(uint16_t));
    for (size_t i = 0; w && i < n; i++) {
        float x = 0.02f * rng_normal(rng);
        uint32_t u;
        memcpy(&u, &x, sizeof u);
        w[i] = (uint16_t)(u >> 16);
    }
    return w;
}

/* The buffers behind a benchmark's StoredMatrices: one block per matrix. */
typedef struct {
    StoredMatrices s;
    void *blocks[8];
    const void *table[7 * 64];
} BenchStored;

static void bench_stored_release(void *owner)
{
    BenchStored *b = owner;
    for (int i = 0; i < 8; i++) free(b->blocks[i]);
    free(b);
}

/* Random BF16 matrices for cfg (at most 64 layers): one block per kind of
 * matrix, the layers' pointers into it. NULL when out of memory. */
static StoredMatrices *stored_random(const ModelConfig *c)
{
    BenchStored *b = calloc(1, sizeof *b);
    if (!b || c->n_layers > 64) return free(b), NULL;
    size_t L = (size_t)c->n_layers, C = (size_t)c->d_model, F = (size_t)c->d_ff, V = (size_t)c->vocab_size;
    size_t Q = (size_t)model_q_dim(c), K = (size_t)model_kv_dim(c);
    size_t per_layer[7] = {Q * C, K * C, K * C, C * Q, F * C, F * C, C * F};
    Rng rng;
    rng_seed(&rng, 1);
    StoredMatrices *s = &b->s;
    *s = (StoredMatrices){.type = STORED_BF16, .n_layers = c->n_layers, .C = c->d_model,
                          .Q = (int)Q, .K = (int)K, .F = c->d_ff, .V = c->vocab_size, .owner = b,
                          .release = bench_stored_release};
    const void **lists[7] = {NULL};
    for (int k = 0; k < 7; k++) {
        uint16_t *block = random_bf16(L * per_layer[k], &rng);
        b->blocks[k] = block;
        if (!block) return bench_stored_release(b), NULL;
        for (size_t l = 0; l < L; l++) b->table[k * 64 + l] = block + l * per_layer[k];
        lists[k] = &b->table[k * 64];
    }
    s->q = lists[0], s->k = lists[1], s->v = lists[2], s->o = lists[3];
    s->gate = lists[4], s->up = lists[5], s->down = lists[6];
    b->blocks[7] = random_bf16(V * C, &rng);
    if (!b->blocks[7]) return bench_stored_release(b), NULL;
    s->embed = s->lm_head = b->blocks[7];
    return s;
}

/* Where matrix kind k (q, k, v, o, gate, up, down; 7 = the embedding) of
 * layer l starts in a float32 model's views. */
static float *f32_matrix(Model *w, int k, int l)
{
    const ModelConfig *c = &w->cfg;
    size_t C = (size_t)c->d_model, F = (size_t)c->d_ff, Q = (size_t)model_q_dim(c);
    size_t K = (size_t)model_kv_dim(c), W = Q + 2 * K;
    float *qkv = w->p.wqkv + (size_t)l * W * C, *gu = w->p.wgu + (size_t)l * 2 * F * C;
    float *at[8] = {qkv, qkv + Q * C, qkv + (Q + K) * C, w->p.wo + (size_t)l * C * Q, gu,
                    gu + F * C, w->p.wdown + (size_t)l * C * F, w->p.wte};
    return at[k];
}

/* The weights model of a job: stored BF16 matrices, or the same values
 * widened into a float32 model a layer's matrix (an embedding row) at a
 * time, so that its peak holds no BF16 copy of the weights (both sized for one token: the forward runs on an
 * inference model beside them). */
static int weights_model(const StoredJob *job, Model *w, SrError *err)
{
    if (job->stored) {
        StoredMatrices *s = stored_random(&job->cfg);
        if (!s) return sr_fail(err, "out of memory");
        return model_create_stored(w, &job->cfg, s, 1, 1, err);
    }
    if (model_create(w, &job->cfg, 1, 1, err)) return -1;
    const ModelConfig *c = &job->cfg;
    size_t L = (size_t)c->n_layers, C = (size_t)c->d_model, F = (size_t)c->d_ff;
    size_t Q = (size_t)model_q_dim(c), K = (size_t)model_kv_dim(c);
    size_t per_layer[7] = {Q * C, K * C, K * C, C * Q, F * C, F * C, C * F};
    Rng rng;
    rng_seed(&rng, 1); /* the order of stored_random: the same values */
    uint16_t *block = NULL; /* a layer's matrix (or a row) at a time: no whole BF16 copy */
    for (int k = 0; k < 8; k++) {
        size_t pieces = k < 7 ? L : (size_t)c->vocab_size, n = k < 7 ? per_layer[k] : C;
        for (size_t i = 0; i < pieces; i++) {
            free(block);
            block = random_bf16(n, &rng);
            if (!block) return model_free(w), sr_fail(err, "out of memory");
            stored_widen(k < 7 ? f32_matrix(w, k, (int)i) : f32_matrix(w, 7, 0) + i * C, block,
                         STORED_BF16, n);
        }
    }
    free(block);
    return 0;
}

/* Every norm weight of m 1 (the shapes have no biases). */
static void set_norms_to_one(Model *m)
{
    const ModelConfig *c = &m->cfg;
    size_t L = (size_t)c->n_layers, C = (size_t)c->d_model, hd = (size_t)model_head_dim(c);
    for (size_t i = 0; i < L * C; i++) m->p.ln1w[i] = m->p.ln2w[i] = 1.0f;
    for (size_t i = 0; i < C; i++) m->p.lnfw[i] = 1.0f;
    for (size_t i = 0; c->family.qk_norm && i < L * hd; i++) m->p.family.qnw[i] = m->p.family.knw[i] = 1.0f;
}

/* In the child: the median forward time of one sequence of job->T tokens on
 * an inference model over the job's weights (norm weights 1). */
static int time_stored_forward(const void *arg, void *result)
{
    const StoredJob *job = arg;
    StoredSpeed *out = result;
    threads_set(job->threads);
    stored_bf16_kernel_set(job->kernel);
    Model w, m;
    SrError err;
    if (weights_model(job, &w, &err) || model_create_inference(&m, &w, 1, job->T, &err)) {
        fprintf(stderr, "bench: stored: %s\n", err.msg);
        return -1;
    }
    set_norms_to_one(&w);
    int *ids = malloc(sizeof(int) * (size_t)job->T);
    double *times = malloc(sizeof(double) * (size_t)job->reps);
    Rng rng;
    rng_seed(&rng, 5);
    for (int t = 0; t < job->T; t++) ids[t] = (int)(rng_u32(&rng) % (unsigned)job->cfg.vocab_size);
    ModelInput in = {.B = 1, .T = job->T, .ids = ids, .want_logits = job->logits};
    for (int r = 0; r < 1 + job->reps; r++) {
        double start = bench_now();
        if (model_forward(&m, &in, &err)) return fprintf(stderr, "bench: %s\n", err.msg), -1;
        if (r >= 1) times[r - 1] = bench_now() - start;
    }
    out->tok_s = job->T / bench_median(times, job->reps);
    free(ids), free(times), model_free(&m), model_free(&w);
    return 0;
}

/* One row's three ways (float32, BF16 widened, BF16 by the kernel when
 * built), each `runs` times in turn; the medians of tok/s and peak RSS into
 * tok[3] and rss[3]. 0, or -1 when a child failed. */
static int measure_ways(const StoredJob *f32, int kernel, int runs, double tok[3], double rss[3])
{
    double t[3][16], r[3][16];
    for (int run = 0; run < runs; run++)
        for (int way = 0; way < 2 + kernel; way++) {
            StoredJob job = *f32;
            job.stored = way > 0;
            job.kernel = way == 2;
            StoredSpeed speed;
            if (bench_in_child(time_stored_forward, &job, &speed, sizeof speed, &r[way][run]))
                return -1;
            t[way][run] = speed.tok_s;
        }
    for (int way = 0; way < 3; way++) {
        tok[way] = way < 2 + kernel ? bench_median(t[way], runs) : 0.0;
        rss[way] = way < 2 + kernel ? bench_median(r[way], runs) : 0.0;
    }
    return 0;
}

int bench_stored_table(int reps, int runs, int threads)
{
    static const int lengths[] = {64, 512};
    ModelConfig shapes[2] = {bench_smollm2_shape(), bench_qwen3_shape()};
    const char *names[2] = {"smollm2-135m", "qwen3-0.6b"};
    stored_bf16_kernel_set(1);
    int kernel = stored_bf16_kernel_used();
    stored_bf16_kernel_set(0);
    printf("weights kept as stored (BF16) against float32, read-only forward (inference model), "
           "hidden states only (as probe, plot, explore) and with the logits of every position;\n"
           "BF16 products by widening a block of rows for sgemm, and %s;\n"
           "each row the medians of %d run%s of every way in turn:\n",
           kernel ? "by the AVX-512 BF16 kernel (off by default)"
                  : "no AVX-512 BF16 kernel in this build (it needs __AVX512BF16__)",
           runs, runs > 1 ? "s" : "");
    printf("%-13s %6s %6s %9s %9s %7s %9s %7s %8s %8s %7s %7s %8s\n", "shape", "tokens", "logits",
           "f32 tok/s", "widen", "speed", "kernel", "speed", "f32 MiB", "bf16 MiB", "memory",
           "W MiB", "0.55W+A");
    int failed = 0;
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 4; i++) {
            int T = lengths[i / 2], logits = i % 2, n = T == 64 ? reps : (reps + 1) / 2;
            ModelConfig cfg = shapes[s];
            cfg.max_seq_len = T;
            StoredJob f32 = {cfg, T, n, threads, 0, logits, 0};
            double tok[3], rss[3];
            if (measure_ways(&f32, kernel, runs, tok, rss)) {
                failed = 1;
                continue;
            }
            double bf16_rss = rss[2] > rss[1] ? rss[2] : rss[1];
            printf("%-13s %6d %6s %9.0f %9.0f %6.2fx ", names[s], T, logits ? "yes" : "no",
                   tok[0], tok[1], tok[1] / tok[0]);
            if (kernel) printf("%9.0f %6.2fx", tok[2], tok[2] / tok[0]);
            else printf("%9s %7s", "-", "-");
            /* W: the float32 weights; A: the rest of the float32 run's peak */
            double W = 4.0 * (double)model_param_count(&cfg), A = rss[0] - W;
            printf(" %8.0f %8.0f %6.2fx %7.0f %8.0f\n", rss[0] / 1048576.0, bf16_rss / 1048576.0,
                   bf16_rss / rss[0], W / 1048576.0, (0.55 * W + A) / 1048576.0);
            fflush(stdout);
        }
    printf("speed: bf16 tok/s / f32 tok/s (target >= 0.90); memory: the larger bf16 peak RSS / f32 "
           "peak RSS, the f32 weights + activations (target 0.55 x (W + A): <= 0.55);\n"
           "W: the f32 weights (4 bytes a parameter); A: the f32 peak RSS - W (the activations "
           "and the process's own memory); 0.55W+A: the target read as 0.55 x W + A, which the "
           "bf16 peak RSS must not pass\n\n");
    return failed;
}
