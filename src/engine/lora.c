/* lora.c — low-rank adapters on q, k, v, o: layout, initialisation, forward
 * and backward (see lora.h). */
#include "engine/lora.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ops/ops.h"

static const char TARGET_LETTERS[LORA_N_TARGETS] = {'q', 'k', 'v', 'o'};

int lora_parse_targets(const char *text, unsigned *targets, SrError *err)
{
    *targets = 0;
    const char *p = text;
    for (;;) {
        int t = -1;
        for (int k = 0; k < LORA_N_TARGETS; k++)
            if (p[0] == TARGET_LETTERS[k] && (p[1] == ',' || p[1] == 0)) t = k;
        if (t < 0)
            return sr_fail(err, "LoRA targets are a comma list of q, k, v, o (the attention "
                                "projections); got '%s'", text);
        if (*targets & (1u << t)) return sr_fail(err, "LoRA target '%c' appears twice in '%s'",
                                                 TARGET_LETTERS[t], text);
        *targets |= 1u << t;
        if (p[1] == 0) return 0;
        p += 2;
    }
}

void lora_targets_name(unsigned targets, char name[LORA_TARGETS_NAME])
{
    int n = 0;
    for (int t = 0; t < LORA_N_TARGETS; t++) {
        if (!(targets & (1u << t))) continue;
        if (n > 0) name[n++] = ',';
        name[n++] = TARGET_LETTERS[t];
    }
    name[n] = '\0';
}

int lora_config_check(const LoraConfig *cfg, int d_model, SrError *err)
{
    if (cfg->rank < 1 || cfg->rank > d_model)
        return sr_fail(err, "LoRA rank must be 1..%d (the model's width), got %d", d_model, cfg->rank);
    if (!(cfg->alpha > 0.0f)) return sr_fail(err, "LoRA alpha must be positive");
    if (!(cfg->dropout >= 0.0f && cfg->dropout < 1.0f))
        return sr_fail(err, "LoRA dropout must be in [0, 1), got %g", (double)cfg->dropout);
    if (cfg->targets == 0 || cfg->targets >> LORA_N_TARGETS)
        return sr_fail(err, "LoRA needs at least one target among q, k, v, o");
    return 0;
}

int lora_in_dim(const Lora *lo, LoraTarget t)
{
    return t == LORA_O ? lo->q_dim : lo->d_model;
}

int lora_out_dim(const Lora *lo, LoraTarget t)
{
    if (t == LORA_Q) return lo->q_dim;
    if (t == LORA_O) return lo->d_model;
    return lo->kv_dim;
}

/* Floats of the adapter on target t: A (rank, in) and B (out, rank). */
static size_t adapter_size(const Lora *lo, LoraTarget t)
{
    return (size_t)lo->cfg.rank * ((size_t)lora_in_dim(lo, t) + (size_t)lora_out_dim(lo, t));
}

/* Sum over the targets switched on before target t (all of them when t is
 * LORA_N_TARGETS) of width(t'), where width is the adapter's floats
 * (what == 0), its input width (1) or its rank (2). */
static size_t targets_before(const Lora *lo, int t, int what)
{
    size_t sum = 0;
    for (int k = 0; k < t; k++) {
        if (!(lo->cfg.targets & (1u << k))) continue;
        sum += what == 0 ? adapter_size(lo, (LoraTarget)k)
               : what == 1 ? (size_t)lora_in_dim(lo, (LoraTarget)k) : (size_t)lo->cfg.rank;
    }
    return sum;
}

float *lora_a(const Lora *lo, int layer, LoraTarget t, int grads)
{
    if (!(lo->cfg.targets & (1u << t))) return NULL;
    size_t off = (size_t)layer * targets_before(lo, LORA_N_TARGETS, 0) + targets_before(lo, t, 0);
    return (grads ? lo->grads : lo->params) + off;
}

float *lora_b(const Lora *lo, int layer, LoraTarget t, int grads)
{
    float *a = lora_a(lo, layer, t, grads);
    return a ? a + (size_t)lo->cfg.rank * lora_in_dim(lo, t) : NULL;
}

/* (Re)allocate the inputs the backward reads (keep, xdrop, u) for `kept`
 * layers of max_rows rows. 0, or -1 when out of memory. */
static int alloc_saved(Lora *lo, int kept)
{
    free(lo->keep), free(lo->xdrop), free(lo->u);
    size_t in_rows = (size_t)kept * targets_before(lo, LORA_N_TARGETS, 1) * (size_t)lo->max_rows;
    size_t rank_rows = (size_t)kept * targets_before(lo, LORA_N_TARGETS, 2) * (size_t)lo->max_rows;
    lo->layers_kept = kept;
    lo->keep = malloc(in_rows);
    lo->xdrop = malloc(sizeof(float) * in_rows);
    lo->u = malloc(sizeof(float) * rank_rows);
    return lo->keep && lo->xdrop && lo->u ? 0 : -1;
}

int lora_create(Lora *lo, const LoraConfig *cfg, int n_layers, int d_model, int max_rows,
                unsigned long long seed, SrError *err)
{
    return lora_create_dims(lo, cfg, n_layers, d_model, d_model, d_model, max_rows, seed, err);
}

int lora_create_dims(Lora *lo, const LoraConfig *cfg, int n_layers, int d_model, int q_dim,
                     int kv_dim, int max_rows, unsigned long long seed, SrError *err)
{
    memset(lo, 0, sizeof *lo);
    if (lora_config_check(cfg, d_model, err)) return -1;
    lo->cfg = *cfg;
    lo->n_layers = n_layers;
    lo->d_model = d_model;
    lo->q_dim = q_dim;
    lo->kv_dim = kv_dim;
    lo->max_rows = max_rows;
    lo->n_params = (size_t)n_layers * targets_before(lo, LORA_N_TARGETS, 0);
    int widest = d_model > q_dim ? d_model : q_dim;
    widest = widest > kv_dim ? widest : kv_dim;
    lo->params = calloc(lo->n_params, sizeof(float));
    lo->grads = calloc(lo->n_params, sizeof(float));
    lo->m1 = calloc(lo->n_params, sizeof(float));
    lo->m2 = calloc(lo->n_params, sizeof(float));
    lo->tmp = malloc(sizeof(float) * (size_t)max_rows * (size_t)widest);
    lo->du = malloc(sizeof(float) * (size_t)max_rows * (size_t)cfg->rank);
    lo->layer_rng = calloc((size_t)n_layers, sizeof(Rng));
    if (!lo->params || !lo->grads || !lo->m1 || !lo->m2 || !lo->tmp || !lo->du || !lo->layer_rng ||
        alloc_saved(lo, n_layers)) {
        lora_free(lo);
        return sr_fail(err, "out of memory for the LoRA adapters");
    }
    Rng init;
    rng_seed(&init, seed);
    for (int l = 0; l < n_layers; l++)
        for (int t = 0; t < LORA_N_TARGETS; t++) {
            float *a = lora_a(lo, l, (LoraTarget)t, 0);
            if (!a) continue;
            int in = lora_in_dim(lo, (LoraTarget)t);
            float bound = 1.0f / sqrtf((float)in);
            for (size_t j = 0; j < (size_t)cfg->rank * in; j++)
                a[j] = bound * (2.0f * rng_uniform(&init) - 1.0f);
        }
    rng_seed(&lo->rng, seed ^ 0x9E3779B97F4A7C15ULL);
    return 0;
}

void lora_free(Lora *lo)
{
    free(lo->params);
    free(lo->grads);
    free(lo->m1);
    free(lo->m2);
    free(lo->keep);
    free(lo->xdrop);
    free(lo->u);
    free(lo->tmp);
    free(lo->du);
    free(lo->layer_rng);
    memset(lo, 0, sizeof *lo);
}

/* Offset of the (layer, target) slot of the saved inputs (rank == 0: the
 * max_rows x in rows of xdrop and keep) or of u (rank == 1: max_rows x rank). */
static size_t slot(const Lora *lo, int layer, LoraTarget t, int rank)
{
    int what = rank ? 2 : 1;
    size_t per_layer = targets_before(lo, LORA_N_TARGETS, what);
    if (lo->layers_kept == 1) layer = 0; /* one slot every layer shares */
    return ((size_t)layer * per_layer + targets_before(lo, t, what)) * (size_t)lo->max_rows;
}

void lora_forward(Lora *lo, int layer, LoraTarget t, const float *x, float *y, int y_stride, int N)
{
    const float *a = lora_a(lo, layer, t, 0), *b = lora_b(lo, layer, t, 0);
    if (!a) return;
    int C = lora_in_dim(lo, t), OC = lora_out_dim(lo, t), R = lo->cfg.rank;
    float *xd = lo->xdrop + slot(lo, layer, t, 0), *u = lo->u + slot(lo, layer, t, 1);
    uint8_t *keep = lo->keep + slot(lo, layer, t, 0);
    float p = lo->cfg.dropout;
    size_t n = (size_t)N * C;
    if (lo->training && p > 0.0f) {
        float scale = 1.0f / (1.0f - p);
        for (size_t i = 0; i < n; i++) {
            keep[i] = rng_uniform(&lo->rng) >= p;
            xd[i] = keep[i] ? x[i] * scale : 0.0f;
        }
    } else {
        memcpy(xd, x, n * sizeof(float));
    }
    matmul_forward(u, xd, a, N, C, R);
    matmul_forward(lo->tmp, u, b, N, R, OC);
    float s = lo->cfg.alpha / (float)R;
    for (int r = 0; r < N; r++) {
        float *yr = y + (size_t)r * y_stride;
        const float *tr = lo->tmp + (size_t)r * OC;
        for (int j = 0; j < OC; j++) yr[j] += s * tr[j];
    }
}

void lora_backward(Lora *lo, int layer, LoraTarget t, const float *dy, int dy_stride, float *dx,
                   int N)
{
    const float *a = lora_a(lo, layer, t, 0), *b = lora_b(lo, layer, t, 0);
    if (!a) return;
    float *da = lora_a(lo, layer, t, 1), *db = lora_b(lo, layer, t, 1);
    int C = lora_in_dim(lo, t), OC = lora_out_dim(lo, t), R = lo->cfg.rank;
    const float *xd = lo->xdrop + slot(lo, layer, t, 0), *u = lo->u + slot(lo, layer, t, 1);
    const uint8_t *keep = lo->keep + slot(lo, layer, t, 0);
    float s = lo->cfg.alpha / (float)R;
    /* tmp = s * dy (N, OC): the gradient of B u */
    for (int r = 0; r < N; r++)
        for (int j = 0; j < OC; j++) lo->tmp[(size_t)r * OC + j] = s * dy[(size_t)r * dy_stride + j];
    memset(lo->du, 0, sizeof(float) * (size_t)N * R);
    matmul_backward(lo->du, db, lo->tmp, u, b, N, R, OC);
    memset(lo->tmp, 0, sizeof(float) * (size_t)N * C);
    matmul_backward(lo->tmp, da, lo->du, xd, a, N, C, R);
    size_t n = (size_t)N * C;
    float p = lo->cfg.dropout;
    if (lo->training && p > 0.0f) {
        float scale = 1.0f / (1.0f - p);
        for (size_t i = 0; i < n; i++) dx[i] += keep[i] ? lo->tmp[i] * scale : 0.0f;
    } else {
        for (size_t i = 0; i < n; i++) dx[i] += lo->tmp[i];
    }
}

/* Column where the q, k or v projection starts in a fused q/k/v row. */
static size_t qkv_column(const Lora *lo, LoraTarget t)
{
    size_t q = (size_t)lo->q_dim, kv = (size_t)lo->kv_dim;
    return t == LORA_Q ? 0 : t == LORA_K ? q : q + kv;
}

void lora_forward_qkv(Lora *lo, int layer, const float *x, float *qkv, int N)
{
    int W = lo->q_dim + 2 * lo->kv_dim;
    for (int t = LORA_Q; t <= LORA_V; t++)
        lora_forward(lo, layer, (LoraTarget)t, x, qkv + qkv_column(lo, (LoraTarget)t), W, N);
}

void lora_backward_qkv(Lora *lo, int layer, const float *dqkv, float *dx, int N)
{
    int W = lo->q_dim + 2 * lo->kv_dim;
    for (int t = LORA_Q; t <= LORA_V; t++)
        lora_backward(lo, layer, (LoraTarget)t, dqkv + qkv_column(lo, (LoraTarget)t), W, dx, N);
}

int lora_set_recompute(Lora *lo, int on, SrError *err)
{
    if (alloc_saved(lo, on ? 1 : lo->n_layers))
        return sr_fail(err, "out of memory for the LoRA adapters' saved inputs");
    return 0;
}

void lora_layer_begin(Lora *lo, int layer)
{
    lo->layer_rng[layer] = lo->rng;
}

void lora_layer_replay(Lora *lo, int layer, Rng *resume)
{
    *resume = lo->rng;
    lo->rng = lo->layer_rng[layer];
}

void lora_layer_replay_end(Lora *lo, const Rng *resume)
{
    lo->rng = *resume;
}

void lora_zero_grad(Lora *lo)
{
    memset(lo->grads, 0, lo->n_params * sizeof(float));
}
