/* family_attention.c — the hooks of a layer's attention (family.h): q/k/v
 * biases and per-head q/k norms, the key heads' positions, the RoPE
 * frequency tables, the score scale and cap, and the model's own windows. */
#include "engine/families/family.h"

#include <string.h>

/* q/k/v biases (Qwen2): layer l's bias (W) added to every row of qkv (N, W). */
static void qkv_bias_forward(const float *bias, float *qkv, int W, int N)
{
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++)
        for (int j = 0; j < W; j++) qkv[(size_t)n * W + j] += bias[j];
}

/* Backward of qkv_bias_forward: dbias (W) += the column sums of dqkv (N, W),
 * rows in order. */
static void qkv_bias_backward(float *dbias, const float *dqkv, int W, int N)
{
#pragma omp parallel for schedule(static)
    for (int j = 0; j < W; j++) {
        float sum = 0.0f;
        for (int n = 0; n < N; n++) sum += dqkv[(size_t)n * W + j];
        dbias[j] += sum;
    }
}

/* Per-head q/k norms (Qwen3): layer l's q and k in qkv (N, W) normalised
 * head by head with q_norm and k_norm, their values before the norm kept in
 * x->qk_pre (N, Q+K) and the norm's rstd in x->qk_rstd (N, H+KVH). */
static void qk_norm_forward(const FamilyParams *p, const FamilyLayerActs *x, int l,
                            const HeadShape *s, float *qkv, int N)
{
    int Q = s->Q, K = s->K, hd = s->hd;
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++)
        memcpy(x->qk_pre + (size_t)n * (Q + K), qkv + (size_t)n * s->W,
               (size_t)(Q + K) * sizeof(float));
    rmsnorm_heads_forward(qkv, s->W, x->qk_rstd, p->qnw + (size_t)l * hd, s->eps, N, s->H, hd);
    rmsnorm_heads_forward(qkv + Q, s->W, x->qk_rstd + (size_t)N * s->H, p->knw + (size_t)l * hd,
                          s->eps, N, s->KVH, hd);
}

/* Backward of qk_norm_forward from the gradient of q and k after their
 * norms, dqk (N, Q+K), into dqkv (N, W) (whose q and k columns are zero)
 * and the norm weights' gradients in g (NULL: none). */
static void qk_norm_backward(const FamilyParams *p, const FamilyParams *g,
                             const FamilyLayerActs *x, int l, const HeadShape *s,
                             const float *dqk, float *dqkv, int N)
{
    int Q = s->Q, K = s->K, hd = s->hd;
    float *gq = g ? g->qnw + (size_t)l * hd : NULL, *gk = g ? g->knw + (size_t)l * hd : NULL;
    rmsnorm_heads_backward(dqkv, s->W, gq, dqk, Q + K, x->qk_pre, Q + K, p->qnw + (size_t)l * hd,
                           x->qk_rstd, N, s->H, hd);
    rmsnorm_heads_backward(dqkv + Q, s->W, gk, dqk + Q, Q + K, x->qk_pre + Q, Q + K,
                           p->knw + (size_t)l * hd, x->qk_rstd + (size_t)N * s->H, N, s->KVH, hd);
}

void family_qkv_forward(const ModelFamily *f, const FamilyParams *p, const FamilyLayerActs *x,
                        int l, const HeadShape *s, float *qkv, int N)
{
    if (f->qkv_bias) qkv_bias_forward(p->bqkv + (size_t)l * s->W, qkv, s->W, N);
    if (f->qk_norm) qk_norm_forward(p, x, l, s, qkv, N);
}

void family_qkv_backward(const ModelFamily *f, const FamilyParams *p, const FamilyParams *g,
                         const FamilyLayerActs *x, const FamilyGrads *scratch, int l,
                         const HeadShape *s, float *dqkv, int N)
{
    if (f->qk_norm) { /* the q and k gradients move to the scratch, the norm brings them back */
        int QK = s->Q + s->K;
#pragma omp parallel for schedule(static)
        for (int n = 0; n < N; n++) {
            memcpy(scratch->dqk + (size_t)n * QK, dqkv + (size_t)n * s->W,
                   (size_t)QK * sizeof(float));
            memset(dqkv + (size_t)n * s->W, 0, (size_t)QK * sizeof(float));
        }
        qk_norm_backward(p, g, x, l, s, scratch->dqk, dqkv, N);
    }
    if (f->qkv_bias && g) qkv_bias_backward(g->bqkv + (size_t)l * s->W, dqkv, s->W, N);
}

void family_key_positions_fill(const ModelFamily *f, const FamilyActs *a, const float *pos,
                               const HeadShape *s, int N)
{
    (void)f;
    if (s->KVH == s->H) return;
    for (int n = 0; n < N; n++)
        for (int h = 0; h < s->KVH; h++)
            a->rope_pos_kv[(size_t)n * s->KVH + h] = pos[(size_t)n * s->H];
}

const float *family_key_positions(const ModelFamily *f, const FamilyActs *a, const float *pos,
                                  const HeadShape *s)
{
    (void)f;
    return pos && s->KVH != s->H ? a->rope_pos_kv : pos;
}

void family_rope_tables(const ModelFamily *f, float theta, int hd, float *tables)
{
    float *global = tables, *local = tables + hd / 2;
    if (f->rope_llama3)
        rope_inv_freq_llama3(global, theta, hd, f->rope_factor, f->rope_low_freq_factor,
                             f->rope_high_freq_factor, f->rope_original_max_pos);
    else
        rope_inv_freq(global, theta, hd);
    if (f->rope_linear_factor > 0.0f)
        for (int i = 0; i < hd / 2; i++) global[i] /= f->rope_linear_factor;
    if (f->rope_local_theta > 0.0f)
        rope_inv_freq(local, f->rope_local_theta, hd);
    else
        memcpy(local, global, (size_t)(hd / 2) * sizeof(float));
}

const float *family_rope_freq(const ModelFamily *f, const float *tables, int hd, int l)
{
    int local = f->rope_local_theta > 0.0f && l < 64 && (f->sliding_layers >> l & 1);
    return tables + (local ? hd / 2 : 0);
}

void family_attention_rule(const ModelFamily *f, AttentionRule *rule)
{
    if (f->attn_scale > 0.0f) rule->scale = f->attn_scale;
    rule->softcap = f->attn_softcap;
}

int family_window(const ModelFamily *f, int l)
{
    return l < 64 && (f->sliding_layers >> l & 1) ? f->sliding_window : 0;
}
