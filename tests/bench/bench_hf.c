/* bench_hf.c — the forward pass on the shapes of two real Hugging Face models
 * against PyTorch on the same shape (see bench.h; issue: real checkpoints).
 *
 * SmolLM2-135M (Llama: 30 layers, width 576, 9 query and 3 key/value heads,
 * SwiGLU 1536, 49,152 ids, tied) and Qwen3-0.6B (28 layers, width 1024, 16
 * query and 8 key/value heads of 128, q/k norms, SwiGLU 3072, 151,936 ids,
 * tied), random f32 weights, one sequence of 64 and of 512 tokens, causal,
 * logits included. Each measurement runs in its own process; its peak RSS is
 * held against the f32 weights plus the activations of the sequence
 * (engine/memory_floor.h's activations, LM head included). PyTorch runs
 * tests/reference/bench_torch_hf.py (hf_ref.forward in float32, no grad, its
 * best thread setting). */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "bench.h"
#include "engine/memory_floor.h"
#include "engine/threads.h"

typedef struct {
    const char *name;
    ModelConfig cfg;
} HfShape;

static const HfShape SHAPES[] = {
    {"smollm2-135m", {.vocab_size = 49152, .d_model = 576, .n_layers = 30, .n_heads = 9,
                      .family.n_kv_heads = 3, .d_ff = 1536, .max_seq_len = 8192, .rope_theta = 100000.0f,
                      .norm_eps = 1e-5f, .tied = 1}},
    {"qwen3-0.6b", {.vocab_size = 151936, .d_model = 1024, .n_layers = 28, .n_heads = 16,
                    .family.n_kv_heads = 8, .family.head_dim = 128, .family.qk_norm = 1, .d_ff = 3072,
                    .max_seq_len = 40960, .rope_theta = 1000000.0f, .norm_eps = 1e-6f, .tied = 1}},
};
enum { N_SHAPES = (int)(sizeof SHAPES / sizeof SHAPES[0]) };

/* The second shape, Qwen3-0.6B (see bench.h). */
ModelConfig bench_qwen3_shape(void)
{
    return SHAPES[1].cfg;
}

/* The first shape, SmolLM2-135M (see bench.h). */
ModelConfig bench_smollm2_shape(void)
{
    return SHAPES[0].cfg;
}

typedef struct {
    const HfShape *shape;
    int T, reps, threads;
} HfJob;

typedef struct {
    double tok_s, n_params;
} HfSpeed;

/* In the child: median forward time of one sequence of job->T tokens. */
static int time_hf_forward(const void *arg, void *result)
{
    const HfJob *job = arg;
    HfSpeed *out = result;
    threads_set(job->threads);
    ModelConfig cfg = job->shape->cfg;
    cfg.max_seq_len = job->T;
    Model m;
    SrError err;
    if (model_create(&m, &cfg, 1, job->T, &err)) {
        fprintf(stderr, "bench: %s: %s\n", job->shape->name, err.msg);
        return -1;
    }
    model_init_weights(&m, 1);
    int *ids = malloc(sizeof(int) * (size_t)job->T);
    double *times = malloc(sizeof(double) * (size_t)job->reps);
    Rng rng;
    rng_seed(&rng, 5);
    for (int t = 0; t < job->T; t++) ids[t] = (int)(rng_u32(&rng) % (unsigned)cfg.vocab_size);
    ModelInput in = {.B = 1, .T = job->T, .ids = ids, .want_logits = 1};
    for (int r = 0; r < 1 + job->reps; r++) {
        double start = bench_now();
        if (model_forward(&m, &in, &err)) {
            fprintf(stderr, "bench: %s: %s\n", job->shape->name, err.msg);
            return -1;
        }
        if (r >= 1) times[r - 1] = bench_now() - start;
    }
    out->tok_s = job->T / bench_median(times, job->reps);
    out->n_params = (double)m.n_params;
    free(ids), free(times), model_free(&m);
    return 0;
}

/* PyTorch's tokens/s and peak RSS (MiB) on the same shape; 0 or -1. */
static int torch_hf_forward(const char *shape, int T, int reps, double *tok_s, double *rss_mib)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 tests/reference/bench_torch_hf.py --shape %s --tokens %d --reps %d",
             shape, T, reps);
    FILE *pipe = popen(cmd, "r");
    if (!pipe) return -1;
    char line[16384] = "", last[16384] = "";
    while (fgets(line, sizeof line, pipe)) memcpy(last, line, sizeof line);
    int status = pclose(pipe);
    cJSON *json = status == 0 ? cJSON_Parse(last) : NULL;
    const cJSON *speed = cJSON_GetObjectItem(json, "tok_s");
    const cJSON *rss = cJSON_GetObjectItem(json, "peak_rss_mib");
    int ok = cJSON_IsNumber(speed) && cJSON_IsNumber(rss);
    if (ok) *tok_s = speed->valuedouble, *rss_mib = rss->valuedouble;
    else fprintf(stderr, "bench: no result from `%s` (exit status %d)\n", cmd, status);
    cJSON_Delete(json);
    return ok ? 0 : -1;
}

int bench_hf_table(int reps, int threads, int with_torch)
{
    static const int lengths[] = {64, 512};
    printf("forward on Hugging Face model shapes (random f32 weights, one sequence, logits included):\n");
    printf("%-13s %6s %7s %9s %9s %10s %6s %10s %10s %6s\n", "shape", "params", "tokens", "tok/s",
           "RSS MiB", "bound MiB", "xbound", "torch tok/s", "torch MiB", "ratio");
    int failed = 0;
    for (int s = 0; s < N_SHAPES; s++)
        for (int i = 0; i < 2; i++) {
            int T = lengths[i], n = T == 64 ? reps : (reps + 1) / 2;
            HfJob job = {&SHAPES[s], T, n, threads};
            HfSpeed sp;
            double rss;
            if (bench_in_child(time_hf_forward, &job, &sp, sizeof sp, &rss)) {
                failed = 1;
                continue;
            }
            ModelConfig cfg = SHAPES[s].cfg;
            MemoryFloor f = memory_floor_training(&cfg, 4, &(FloorRun){.B = 1, .T = T, .with_lm_head = 1});
            double bound = f.weights + f.activations;
            printf("%-13s %5.0fM %7d %9.0f %9.0f %10.0f %5.2fx", SHAPES[s].name, sp.n_params / 1e6, T,
                   sp.tok_s, bytes_to_mib(rss), bytes_to_mib(bound), rss / bound);
            fflush(stdout);
            double t_speed, t_rss;
            if (with_torch && torch_hf_forward(SHAPES[s].name, T, n, &t_speed, &t_rss) == 0)
                printf(" %10.0f %10.0f %5.2fx\n", t_speed, t_rss, sp.tok_s / t_speed);
            else {
                printf(" %10s %10s %6s\n", "-", "-", "-");
                failed |= with_torch;
            }
            fflush(stdout);
        }
    printf("bound: f32 weights + the activations of the sequence; ratio: seqrep tok/s / torch tok/s\n\n");
    return failed;
}
