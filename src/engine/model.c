/* model.c — parameters, activations, forward and backward of the decoder.
 *
 * Read top to bottom: configuration check, buffer layout (one buffer each for
 * parameters, gradients, activations and activation gradients, with named
 * views into it), weight initialisation, the forward pass, the loss, and the
 * backward pass in exactly the reverse order of the forward. */
#include "engine/model.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "engine/lora.h"
#include "engine/ops.h"
#include "engine/threads.h"

int model_config_check(const ModelConfig *c, SrError *err)
{
    if (c->vocab_size <= 0) return sr_fail(err, "vocab_size must be positive, got %d", c->vocab_size);
    if (c->d_model <= 0) return sr_fail(err, "d_model must be positive, got %d", c->d_model);
    if (c->n_layers <= 0) return sr_fail(err, "n_layers must be positive, got %d", c->n_layers);
    if (c->n_heads <= 0) return sr_fail(err, "n_heads must be positive, got %d", c->n_heads);
    if (c->head_dim < 0) return sr_fail(err, "head_dim must be positive, got %d", c->head_dim);
    if (c->head_dim == 0 && c->d_model % c->n_heads != 0)
        return sr_fail(err, "d_model %d is not divisible by n_heads %d", c->d_model, c->n_heads);
    if (model_head_dim(c) % 2 != 0)
        return sr_fail(err, "head size %s = %d must be even for RoPE",
                       c->head_dim ? "head_dim" : "d_model/n_heads", model_head_dim(c));
    if (c->n_kv_heads < 0 || model_kv_heads(c) > c->n_heads || c->n_heads % model_kv_heads(c))
        return sr_fail(err, "n_kv_heads %d does not divide n_heads %d", c->n_kv_heads, c->n_heads);
    if (c->rope_llama3 && !(c->rope_factor > 0.0f && c->rope_low_freq_factor > 0.0f &&
                            c->rope_high_freq_factor > c->rope_low_freq_factor &&
                            c->rope_original_max_pos > 0))
        return sr_fail(err, "llama3 rope scaling needs factor > 0, 0 < low_freq_factor < "
                       "high_freq_factor and original_max_position_embeddings > 0");
    if (model_hf_features(c) && c->repo)
        return sr_fail(err, "RePo layers cannot be combined with Hugging Face model features");
    if (c->d_ff <= 0) return sr_fail(err, "d_ff must be positive, got %d", c->d_ff);
    if (c->max_seq_len <= 0)
        return sr_fail(err, "max_seq_len must be positive, got %d", c->max_seq_len);
    if (!(c->rope_theta > 0.0f)) return sr_fail(err, "rope_theta must be positive");
    if (!(c->norm_eps > 0.0f)) return sr_fail(err, "norm_eps must be positive");
    if (c->tied != 0 && c->tied != 1) return sr_fail(err, "tied must be 0 or 1, got %d", c->tied);
    if (c->repo != 0 && c->repo != 1) return sr_fail(err, "repo must be 0 or 1, got %d", c->repo);
    if (c->nope_layers && (c->n_layers < 64 && c->nope_layers >> c->n_layers))
        return sr_fail(err, "nope_layers names a layer beyond the model's %d", c->n_layers);
    if (c->repo) {
        if (c->repo_from < 0 || c->repo_from >= c->n_layers)
            return sr_fail(err, "repo_from %d is outside 0..%d (the model's layers)", c->repo_from,
                           c->n_layers - 1);
        if (c->d_model % 8 != 0)
            return sr_fail(err, "RePo needs d_model divisible by 8 (d_p = d_model/8), got %d",
                           c->d_model);
    }
    return 0;
}

int model_hf_features(const ModelConfig *c)
{
    return model_kv_heads(c) != c->n_heads || c->head_dim != 0 || c->qkv_bias || c->qk_norm ||
           c->rope_llama3;
}

void model_param_sizes(const ModelConfig *c, size_t s[MODEL_N_PARAM_TENSORS])
{
    size_t V = c->vocab_size, C = c->d_model, L = c->n_layers, F = c->d_ff;
    size_t Q = model_q_dim(c), K = model_kv_dim(c), hd = model_head_dim(c);
    s[0] = V * C;          /* wte   */
    s[1] = L * C;          /* ln1w  */
    s[2] = L * (Q + 2 * K) * C; /* wqkv  */
    s[3] = L * C * Q;      /* wo    */
    s[4] = L * C;          /* ln2w  */
    s[5] = L * 2 * F * C;  /* wgu   */
    s[6] = L * C * F;      /* wdown */
    s[7] = C;              /* lnfw  */
    s[8] = c->tied ? 0 : V * C; /* wlm */
    size_t R = c->repo ? L - c->repo_from : 0, P = model_repo_dim(c), H = c->n_heads;
    s[9] = R * 2 * P * C;  /* wgc   */
    s[10] = R * H * P;     /* wz    */
    s[11] = c->qkv_bias ? L * (Q + 2 * K) : 0; /* bqkv */
    s[12] = c->qk_norm ? L * hd : 0;           /* qnw  */
    s[13] = c->qk_norm ? L * hd : 0;           /* knw  */
}

size_t model_param_count(const ModelConfig *c)
{
    size_t s[MODEL_N_PARAM_TENSORS], n = 0;
    model_param_sizes(c, s);
    for (int i = 0; i < MODEL_N_PARAM_TENSORS; i++) n += s[i];
    return n;
}

int model_param_is_norm(int i)
{
    return i == 1 || i == 4 || i == 7 || i == 12 || i == 13; /* ln1w, ln2w, lnfw, qnw, knw */
}

int model_param_is_decayed(int i)
{
    return !model_param_is_norm(i) && i != 11; /* bqkv */
}

/* Point the views of a parameter-shaped buffer into base (all NULL when
 * base is NULL). */
static void point_param_views(ParamViews *v, float *base, const ModelConfig *c)
{
    if (!base) {
        memset(v, 0, sizeof *v);
        return;
    }
    size_t s[MODEL_N_PARAM_TENSORS];
    model_param_sizes(c, s);
    float **views[MODEL_N_PARAM_TENSORS] = {&v->wte,   &v->ln1w, &v->wqkv, &v->wo,
                                            &v->ln2w,  &v->wgu,  &v->wdown, &v->lnfw,
                                            &v->wlm,   &v->wgc,  &v->wz,   &v->bqkv,
                                            &v->qnw,   &v->knw};
    for (int i = 0; i < MODEL_N_PARAM_TENSORS; i++) {
        *views[i] = base;
        base += s[i];
    }
    if (c->tied) v->wlm = v->wte;
}

/* Sizes (floats) of the activation views for max_batch x max_T, in ActViews order. */
#define N_ACT 25
static void act_sizes(const ModelConfig *c, size_t BT, size_t BHTT, size_t s[N_ACT])
{
    size_t C = c->d_model, L = c->n_layers, F = c->d_ff, V = c->vocab_size, H = c->n_heads;
    size_t Q = model_q_dim(c), K = model_kv_dim(c), KVH = model_kv_heads(c);
    size_t P = c->repo ? model_repo_dim(c) : 0;
    size_t k = 0;
    s[k++] = (L + 1) * BT * C; /* res */
    s[k++] = L * BT * C;       /* ln1 */
    s[k++] = L * BT;           /* ln1_rstd */
    s[k++] = L * BT * (Q + 2 * K); /* qkv */
    s[k++] = L * BT * Q;       /* qrot */
    s[k++] = L * BT * K;       /* krot */
    s[k++] = L * BHTT;         /* att */
    s[k++] = L * BT * Q;       /* atty */
    s[k++] = L * BT * C;       /* res_mid */
    s[k++] = L * BT * C;       /* ln2 */
    s[k++] = L * BT;           /* ln2_rstd */
    s[k++] = L * BT * 2 * F;   /* gu */
    s[k++] = L * BT * F;       /* swi */
    s[k++] = BT * C;           /* lnf */
    s[k++] = BT;               /* lnf_rstd */
    s[k++] = BT * V;           /* logits */
    s[k++] = BT;               /* losses */
    s[k++] = BT * H;           /* rope_pos */
    s[k++] = L * BT * 2 * P;   /* repo_gc */
    s[k++] = L * BT * P;       /* repo_r */
    s[k++] = c->repo ? L * BT * H : 0; /* repo_z */
    s[k++] = KVH != H ? BT * KVH : 0;  /* rope_pos_kv */
    s[k++] = c->rope_llama3 ? (size_t)model_head_dim(c) / 2 : 0; /* inv_freq */
    s[k++] = c->qk_norm ? L * BT * (Q + K) : 0;   /* qk_pre */
    s[k++] = c->qk_norm ? L * BT * (H + KVH) : 0; /* qk_rstd */
}

#define N_GACT 15
static void gact_sizes(const ModelConfig *c, size_t BT, size_t BHTT, size_t s[N_GACT])
{
    size_t C = c->d_model, F = c->d_ff, L = c->n_layers, H = c->n_heads;
    size_t Q = model_q_dim(c), K = model_kv_dim(c);
    size_t P = c->repo ? model_repo_dim(c) : 0;
    size_t k = 0;
    s[k++] = BT * C;     /* dres */
    s[k++] = BT * C;     /* dres2 */
    s[k++] = BT * C;     /* dln */
    s[k++] = BT * (Q + 2 * K); /* dqkv */
    s[k++] = BT * Q;     /* dqrot */
    s[k++] = BT * K;     /* dkrot */
    s[k++] = BT * Q;     /* datty */
    s[k++] = BT * 2 * F; /* dgu */
    s[k++] = BT * F;     /* dswi */
    s[k++] = BHTT;       /* datt */
    s[k++] = L * BT * H; /* dreal_pos */
    s[k++] = c->repo ? BT * H : 0; /* dz */
    s[k++] = BT * P;     /* dr */
    s[k++] = BT * 2 * P; /* dgc */
    s[k++] = c->qk_norm ? BT * (Q + K) : 0; /* dqk */
}

/* 1 when the buffers of cfg for max_batch x max_T would need more floats than
 * size_t holds (or a fused width Q + 2K or 2F past INT_MAX): an upper bound
 * of the sums of model_param_sizes, act_sizes and gact_sizes, counted in
 * double, which does not wrap. Anything over 2^60 bytes counts as too large. */
static int sizes_overflow(const ModelConfig *c, int max_batch, int max_T)
{
    double V = c->vocab_size, C = c->d_model, L = c->n_layers, F = c->d_ff, H = c->n_heads;
    double hd = c->head_dim ? c->head_dim : (double)c->d_model / c->n_heads;
    double Q = H * hd, K = (c->n_kv_heads ? c->n_kv_heads : c->n_heads) * hd, W = Q + 2 * K;
    double BT = (double)max_batch * max_T, BHTT = BT * H * max_T;
    if (W > INT_MAX || 2 * F > INT_MAX) return 1;
    double params = 2 * V * C + L * (2 * C + W * C + C * Q + 3 * F * C + W + 2 * hd + 3 * C * C) + C;
    double acts = (L + 1) * BT * C + L * BT * (4 * C + 2 + W + 2 * Q + K + 3 * F + H) + L * BHTT +
                  BT * (C + V + 2 + 2 * H);
    double gacts = BT * (9 * C + 3 * F + H * L + H + C) + BHTT;
    return (2 * params + acts + gacts) * sizeof(float) > 1152921504606846976.0; /* 2^60 */
}

int model_create(Model *m, const ModelConfig *cfg, int max_batch, int max_T, SrError *err)
{
    memset(m, 0, sizeof *m);
    if (model_config_check(cfg, err)) return -1;
    if (max_batch <= 0 || max_T <= 0)
        return sr_fail(err, "batch size and sequence length must be positive");
    if (max_T > cfg->max_seq_len)
        return sr_fail(err, "sequence length %d exceeds the model's max_seq_len %d", max_T,
                       cfg->max_seq_len);
    if (sizes_overflow(cfg, max_batch, max_T))
        return sr_fail(err, "the model's sizes (vocab_size %d, d_model %d, d_ff %d, n_layers %d, "
                       "n_heads %d, length %d) are too large to allocate", cfg->vocab_size,
                       cfg->d_model, cfg->d_ff, cfg->n_layers, cfg->n_heads, max_T);
    threads_set(0); /* OpenBLAS single-threaded inside our OpenMP threads */
    m->cfg = *cfg;
    m->max_batch = max_batch;
    m->max_T = max_T;

    size_t ps[MODEL_N_PARAM_TENSORS];
    model_param_sizes(cfg, ps);
    m->n_params = 0;
    for (int i = 0; i < MODEL_N_PARAM_TENSORS; i++) m->n_params += ps[i];

    size_t BT = (size_t)max_batch * max_T;
    size_t BHTT = (size_t)max_batch * cfg->n_heads * max_T * max_T;
    size_t as[N_ACT], gs[N_GACT], n_act = 0, n_gact = 0;
    act_sizes(cfg, BT, BHTT, as);
    gact_sizes(cfg, BT, BHTT, gs);
    for (int i = 0; i < N_ACT; i++) n_act += as[i];
    for (int i = 0; i < N_GACT; i++) n_gact += gs[i];

    m->params = calloc(m->n_params, sizeof(float));
    m->grads = calloc(m->n_params, sizeof(float));
    m->acts = calloc(n_act, sizeof(float));
    m->gacts = calloc(n_gact, sizeof(float));
    if (!m->params || !m->grads || !m->acts || !m->gacts) {
        model_free(m);
        return sr_fail(err, "out of memory allocating a model for batch %d x length %d (%.1f MiB)",
                       max_batch, max_T,
                       (double)(2 * m->n_params + n_act + n_gact) * 4.0 / 1048576.0);
    }
    point_param_views(&m->p, m->params, cfg);
    point_param_views(&m->g, m->grads, cfg);

    float **av[N_ACT] = {&m->a.res,  &m->a.ln1,      &m->a.ln1_rstd, &m->a.qkv,    &m->a.qrot,
                         &m->a.krot, &m->a.att,      &m->a.atty,     &m->a.res_mid, &m->a.ln2,
                         &m->a.ln2_rstd, &m->a.gu,   &m->a.swi,      &m->a.lnf,    &m->a.lnf_rstd,
                         &m->a.logits, &m->a.losses, &m->a.rope_pos, &m->a.repo_gc,
                         &m->a.repo_r, &m->a.repo_z, &m->a.rope_pos_kv, &m->a.inv_freq,
                         &m->a.qk_pre, &m->a.qk_rstd};
    float *base = m->acts;
    for (int i = 0; i < N_ACT; i++) { *av[i] = base; base += as[i]; }
    float **gv[N_GACT] = {&m->ga.dres,  &m->ga.dres2, &m->ga.dln, &m->ga.dqkv,
                          &m->ga.dqrot, &m->ga.dkrot, &m->ga.datty, &m->ga.dgu,
                          &m->ga.dswi,  &m->ga.datt,  &m->ga.dreal_pos, &m->ga.dz,
                          &m->ga.dr,    &m->ga.dgc,   &m->ga.dqk};
    base = m->gacts;
    for (int i = 0; i < N_GACT; i++) { *gv[i] = base; base += gs[i]; }
    if (cfg->rope_llama3)
        rope_inv_freq_llama3(m->a.inv_freq, cfg->rope_theta, model_head_dim(cfg), cfg->rope_factor,
                             cfg->rope_low_freq_factor, cfg->rope_high_freq_factor,
                             cfg->rope_original_max_pos);
    return 0;
}

void model_free(Model *m)
{
    free(m->params);
    free(m->grads);
    free(m->m1);
    free(m->m2);
    free(m->acts);
    free(m->gacts);
    memset(m, 0, sizeof *m);
}

int model_freeze_base(Model *m, int frozen, SrError *err)
{
    m->frozen_base = frozen ? 1 : 0;
    if (frozen) {
        free(m->grads);
        m->grads = NULL;
    } else if (!m->grads) {
        m->grads = calloc(m->n_params, sizeof(float));
        if (!m->grads)
            return sr_fail(err, "out of memory for the gradients of %zu parameters", m->n_params);
    }
    point_param_views(&m->g, m->grads, &m->cfg);
    return 0;
}

void model_init_weights(Model *m, unsigned long long seed)
{
    Rng rng;
    rng_seed(&rng, seed);
    size_t s[MODEL_N_PARAM_TENSORS];
    model_param_sizes(&m->cfg, s);
    float *views[MODEL_N_PARAM_TENSORS] = {m->p.wte, m->p.ln1w, m->p.wqkv, m->p.wo,
                                           m->p.ln2w, m->p.wgu, m->p.wdown, m->p.lnfw,
                                           m->p.wlm, m->p.wgc, m->p.wz, m->p.bqkv,
                                           m->p.qnw, m->p.knw};
    for (int i = 0; i < MODEL_N_PARAM_TENSORS; i++) {
        int is_norm = model_param_is_norm(i);
        for (size_t j = 0; j < s[i]; j++) views[i][j] = is_norm ? 1.0f : 0.02f * rng_normal(&rng);
    }
}

/* ---- per-layer addressing --------------------------------------------------- */

/* Stride between layers in the (L, B, T, ...) activation slabs: they are sized
 * for max_batch x max_T, and a call with a smaller B or T packs tightly inside. */
static size_t slab(const Model *m, size_t per_token)
{
    return (size_t)m->max_batch * m->max_T * per_token;
}

static size_t att_slab(const Model *m)
{
    return (size_t)m->max_batch * m->cfg.n_heads * m->max_T * m->max_T;
}

PosKind model_layer_pos_kind(const Model *m, const ModelInput *in, int l)
{
    if (in->pos_kind) return in->pos_kind[l];
    if (m->cfg.repo && l >= m->cfg.repo_from) return POS_REPO;
    return l < 64 && (m->cfg.nope_layers >> l & 1) ? POS_NONE : POS_ROPE;
}

/* Position input of layer l: NULL for NoPE, integer positions as floats for
 * RoPE, the caller's real-valued positions (B, T, H), or the layer's own RePo
 * positions z (B, T, H), computed in the forward before they are used. */
static const float *layer_positions(const Model *m, int l)
{
    PosKind kind = model_layer_pos_kind(m, &m->in, l);
    if (kind == POS_NONE) return NULL;
    if (kind == POS_REAL)
        return m->in.real_pos + (size_t)l * m->in.B * m->in.T * m->cfg.n_heads;
    if (kind == POS_REPO && !m->in.repo_force_index)
        return m->a.repo_z + (size_t)l * slab(m, m->cfg.n_heads);
    return m->a.rope_pos;
}

const float *model_repo_positions(const Model *m, int layer)
{
    if (!m->cfg.repo || layer < m->cfg.repo_from || layer >= m->cfg.n_layers) return NULL;
    return m->a.repo_z + (size_t)layer * slab(m, m->cfg.n_heads);
}

static MaskKind layer_mask(const Model *m, int l)
{
    return m->in.mask ? m->in.mask[l] : MASK_CAUSAL;
}

const float *model_hidden(const Model *m, int layer)
{
    return m->a.res + (size_t)layer * slab(m, m->cfg.d_model);
}

const float *model_attention(const Model *m, int layer)
{
    return m->a.att + (size_t)layer * att_slab(m);
}

/* ---- forward ------------------------------------------------------------------ */

/* RePo positions of layer l from its normalised input h = ln1 (N, C):
 * gc (N, 2P) = h W_gc^T; r (N, P) = silu(gate) * content; z (N, H) = r W_z^T. */
static void repo_forward(Model *m, int l, const float *ln1, int N)
{
    const ModelConfig *c = &m->cfg;
    int C = c->d_model, H = c->n_heads, P = model_repo_dim(c), k = l - c->repo_from;
    float *gc = m->a.repo_gc + l * slab(m, 2 * P), *r = m->a.repo_r + l * slab(m, P);
    float *z = m->a.repo_z + l * slab(m, H);
    matmul_forward(gc, ln1, m->p.wgc + (size_t)k * 2 * P * C, N, C, 2 * P);
    swiglu_forward(r, gc, N, P);
    matmul_forward(z, r, m->p.wz + (size_t)k * H * P, N, P, H);
}

/* Where a base weight's gradient goes: the gradient view g at offset (floats),
 * or NULL (not computed) when the base is frozen (Model.frozen_base) or its
 * gradients are freed (model_freeze_base). */
static float *base_grad(const Model *m, float *g, size_t offset)
{
    return m->frozen_base || !g ? NULL : g + offset;
}

/* Backward of repo_forward: from dz (N, H) into the RePo weights' gradients
 * and (accumulated) into dln1 (N, C). */
static void repo_backward(Model *m, int l, const float *ln1, const float *dz, float *dln1, int N)
{
    const ModelConfig *c = &m->cfg;
    int C = c->d_model, H = c->n_heads, P = model_repo_dim(c), k = l - c->repo_from;
    const float *gc = m->a.repo_gc + l * slab(m, 2 * P), *r = m->a.repo_r + l * slab(m, P);
    memset(m->ga.dr, 0, (size_t)N * P * sizeof(float));
    matmul_backward(m->ga.dr, base_grad(m, m->g.wz, (size_t)k * H * P), dz, r,
                    m->p.wz + (size_t)k * H * P, N, P, H);
    memset(m->ga.dgc, 0, (size_t)N * 2 * P * sizeof(float));
    swiglu_backward(m->ga.dgc, m->ga.dr, gc, N, P);
    matmul_backward(dln1, base_grad(m, m->g.wgc, (size_t)k * 2 * P * C), m->ga.dgc, ln1,
                    m->p.wgc + (size_t)k * 2 * P * C, N, C, 2 * P);
}

/* Check one forward call's inputs against the model and its buffers. */
static int check_input(const Model *m, const ModelInput *in, SrError *err)
{
    const ModelConfig *c = &m->cfg;
    if (in->B <= 0 || in->T <= 0) return sr_fail(err, "empty batch (B=%d, T=%d)", in->B, in->T);
    if (in->B > m->max_batch)
        return sr_fail(err, "batch of %d rows exceeds the %d the model was sized for", in->B,
                       m->max_batch);
    if (in->T > m->max_T)
        return sr_fail(err, "sequence of %d tokens exceeds the %d the model was sized for "
                       "(max_seq_len %d)", in->T, m->max_T, c->max_seq_len);
    if (in->n_run < 0 || in->n_run > c->n_layers)
        return sr_fail(err, "exit layer %d is outside 0..%d", in->n_run, c->n_layers);
    if (m->lora && (m->lora->max_rows < in->B * in->T || m->lora->n_layers != c->n_layers ||
                    m->lora->d_model != c->d_model || m->lora->q_dim != model_q_dim(c) ||
                    m->lora->kv_dim != model_kv_dim(c)))
        return sr_fail(err, "the LoRA adapters do not fit this model or batch");
    for (long i = 0; i < (long)in->B * in->T; i++)
        if (in->ids[i] < 0 || in->ids[i] >= c->vocab_size)
            return sr_fail(err, "token id %d at position %ld is outside the vocabulary (0..%d)",
                           in->ids[i], i, c->vocab_size - 1);
    if (in->lengths)
        for (int b = 0; b < in->B; b++)
            if (in->lengths[b] < 1 || in->lengths[b] > in->T)
                return sr_fail(err, "length %d of row %d is outside 1..%d", in->lengths[b], b, in->T);
    if (in->pos_kind)
        for (int l = 0; l < c->n_layers; l++) {
            if (in->pos_kind[l] == POS_REAL && !in->real_pos)
                return sr_fail(err, "layer %d uses real-valued positions but none were given", l);
            if (in->pos_kind[l] == POS_REPO && (!c->repo || l < c->repo_from))
                return sr_fail(err, "layer %d asks for RePo positions but the model has no RePo "
                               "weights there", l);
            if (in->pos_kind[l] == POS_REAL && model_kv_heads(c) != c->n_heads)
                return sr_fail(err, "layer %d: real-valued positions per head need as many "
                               "key/value heads as heads (the model has %d of %d)", l,
                               model_kv_heads(c), c->n_heads);
        }
    return 0;
}

/* Key positions for the query positions pos: pos itself (B, T, H) when KVH == H or
 * the layer rotates nothing; otherwise the integer positions per key head
 * (B, T, KVH) (check_input allows only integer positions then). */
static const float *layer_key_positions(const Model *m, const float *pos)
{
    if (!pos || model_kv_heads(&m->cfg) == m->cfg.n_heads) return pos;
    return m->a.rope_pos_kv;
}

/* Rotate n_heads heads of hd values of the rows inp (stride in_stride) into
 * out (N, n_heads*hd) by pos (N, n_heads), with the model's frequencies. */
static void model_rope(const Model *m, float *out, const float *inp, int in_stride,
                       const float *pos, int N, int n_heads, int hd)
{
    if (m->cfg.rope_llama3)
        rope_forward_freq(out, inp, in_stride, pos, m->a.inv_freq, N, n_heads, hd);
    else
        rope_forward(out, inp, in_stride, pos, m->cfg.rope_theta, N, n_heads, hd);
}

/* The attention input of layer l in qkv (N, W = Q+2K): q/k/v biases added
 * (cfg.qkv_bias), then q and k normalised per head (cfg.qk_norm), their
 * values before the norm kept in qk_pre[l] (N, Q+K) and the norm's rstd in
 * qk_rstd[l] (N, H+KVH) for the backward. */
static void qkv_extras(const Model *m, int l, float *qkv, int N)
{
    const ModelConfig *c = &m->cfg;
    int Q = model_q_dim(c), K = model_kv_dim(c), W = Q + 2 * K, hd = model_head_dim(c);
    if (c->qkv_bias) {
        const float *bias = m->p.bqkv + (size_t)l * W;
#pragma omp parallel for schedule(static)
        for (int n = 0; n < N; n++)
            for (int j = 0; j < W; j++) qkv[(size_t)n * W + j] += bias[j];
    }
    if (c->qk_norm) {
        int H = c->n_heads, KVH = model_kv_heads(c);
        float *pre = m->a.qk_pre + l * slab(m, Q + K), *rstd = m->a.qk_rstd + l * slab(m, H + KVH);
#pragma omp parallel for schedule(static)
        for (int n = 0; n < N; n++)
            memcpy(pre + (size_t)n * (Q + K), qkv + (size_t)n * W, (size_t)(Q + K) * sizeof(float));
        rmsnorm_heads_forward(qkv, W, rstd, m->p.qnw + (size_t)l * hd, c->norm_eps, N, H, hd);
        rmsnorm_heads_forward(qkv + Q, W, rstd + (size_t)N * H, m->p.knw + (size_t)l * hd,
                              c->norm_eps, N, KVH, hd);
    }
}

/* Column where the q, k or v projection starts in a row of qkv (Q+2K wide). */
static size_t qkv_offset(const ModelConfig *c, LoraTarget t)
{
    return t == LORA_Q ? 0 : t == LORA_K ? (size_t)model_q_dim(c)
                                         : (size_t)model_q_dim(c) + (size_t)model_kv_dim(c);
}

int model_forward(Model *m, const ModelInput *in, SrError *err)
{
    if (check_input(m, in, err)) return -1;
    const ModelConfig *c = &m->cfg;
    int B = in->B, T = in->T, C = c->d_model, H = c->n_heads, hd = model_head_dim(c), F = c->d_ff;
    int KVH = model_kv_heads(c), Q = model_q_dim(c), K = model_kv_dim(c), W = Q + 2 * K;
    int N = B * T;
    m->in = *in;
    m->n_run = in->n_run ? in->n_run : c->n_layers;
    ActViews *a = &m->a;

    for (int n = 0; n < N; n++) {
        float p = in->positions ? (float)in->positions[n] : (float)(n % T);
        for (int h = 0; h < H; h++) a->rope_pos[(size_t)n * H + h] = p;
        if (KVH != H)
            for (int h = 0; h < KVH; h++) a->rope_pos_kv[(size_t)n * KVH + h] = p;
    }

    embedding_forward(a->res, in->ids, m->p.wte, N, C);
    for (int l = 0; l < m->n_run; l++) {
        const float *res = a->res + l * slab(m, C);
        float *ln1 = a->ln1 + l * slab(m, C), *ln1_rstd = a->ln1_rstd + l * slab(m, 1);
        float *qkv = a->qkv + l * slab(m, W);
        float *qrot = a->qrot + l * slab(m, Q), *krot = a->krot + l * slab(m, K);
        float *att = a->att + l * att_slab(m), *atty = a->atty + l * slab(m, Q);
        float *res_mid = a->res_mid + l * slab(m, C);
        float *ln2 = a->ln2 + l * slab(m, C), *ln2_rstd = a->ln2_rstd + l * slab(m, 1);
        float *gu = a->gu + l * slab(m, 2 * F), *swi = a->swi + l * slab(m, F);
        float *res_out = a->res + (l + 1) * slab(m, C);

        /* attention sublayer: res_mid = res + o_proj(attention(rope(q), rope(k), v)) */
        rmsnorm_forward(ln1, ln1_rstd, res, m->p.ln1w + (size_t)l * C, c->norm_eps, N, C);
        if (model_layer_pos_kind(m, in, l) == POS_REPO) repo_forward(m, l, ln1, N);
        const float *pos = layer_positions(m, l);
        matmul_forward(qkv, ln1, m->p.wqkv + (size_t)l * W * C, N, C, W);
        if (m->lora)
            for (int t = LORA_Q; t <= LORA_V; t++)
                lora_forward(m->lora, l, (LoraTarget)t, ln1, qkv + qkv_offset(c, (LoraTarget)t), W, N);
        qkv_extras(m, l, qkv, N);
        model_rope(m, qrot, qkv, W, pos, N, H, hd);
        model_rope(m, krot, qkv + Q, W, layer_key_positions(m, pos), N, KVH, hd);
        attention_forward_gqa(atty, att, qrot, krot, qkv + Q + K, W, in->lengths,
                              layer_mask(m, l), B, T, H, KVH, hd);
        matmul_forward(res_mid, atty, m->p.wo + (size_t)l * C * Q, N, Q, C);
        if (m->lora) lora_forward(m->lora, l, LORA_O, atty, res_mid, C, N);
        residual_forward(res_mid, res, res_mid, (long)N * C);

        /* MLP sublayer: res_out = res_mid + down(silu(gate) * up) */
        rmsnorm_forward(ln2, ln2_rstd, res_mid, m->p.ln2w + (size_t)l * C, c->norm_eps, N, C);
        matmul_forward(gu, ln2, m->p.wgu + (size_t)l * 2 * F * C, N, C, 2 * F);
        swiglu_forward(swi, gu, N, F);
        matmul_forward(res_out, swi, m->p.wdown + (size_t)l * C * F, N, F, C);
        residual_forward(res_out, res_mid, res_out, (long)N * C);
    }
    if (in->want_logits) {
        const float *top = a->res + m->n_run * slab(m, C);
        rmsnorm_forward(a->lnf, a->lnf_rstd, top, m->p.lnfw, c->norm_eps, N, C);
        matmul_forward(a->logits, a->lnf, m->p.wlm, N, C, c->vocab_size);
    }
    return 0;
}

float model_lm_loss(Model *m, const int *targets, int ignore)
{
    int N = m->in.B * m->in.T, V = m->cfg.vocab_size;
    m->counted = crossentropy_forward(m->a.losses, m->a.logits, m->a.logits, targets, ignore, N, V);
    if (m->counted == 0) return 0.0f;
    double sum = 0.0;
    for (int n = 0; n < N; n++) sum += m->a.losses[n];
    return (float)(sum / m->counted);
}

void model_zero_grad(Model *m)
{
    if (m->grads) memset(m->grads, 0, m->n_params * sizeof(float));
}

/* ---- backward ----------------------------------------------------------------- */

/* Rotate back the gradients of layer l's rotated queries dqrot (N, Q) and keys
 * dkrot (N, K), with the model's frequencies, into dq (rows of dq_stride, then
 * the keys at column Q): dqkv itself, or dqk before the per-head norms. dpos
 * (N, H) collects the gradient of real-valued or RePo positions, or is NULL. */
static void rope_back(Model *m, int l, float *dq, int dq_stride, float *dpos, const float *pos,
                      int N)
{
    const ModelConfig *c = &m->cfg;
    int H = c->n_heads, KVH = model_kv_heads(c), hd = model_head_dim(c), Q = model_q_dim(c);
    const float *qrot = m->a.qrot + l * slab(m, Q), *krot = m->a.krot + l * slab(m, KVH * hd);
    const float *kpos = layer_key_positions(m, pos);
    if (c->rope_llama3) {
        rope_backward_freq(dq, dq_stride, dpos, m->ga.dqrot, qrot, pos, m->a.inv_freq, N, H, hd);
        rope_backward_freq(dq + Q, dq_stride, dpos, m->ga.dkrot, krot, kpos, m->a.inv_freq, N, KVH,
                           hd);
    } else {
        rope_backward(dq, dq_stride, dpos, m->ga.dqrot, qrot, pos, c->rope_theta, N, H, hd);
        rope_backward(dq + Q, dq_stride, dpos, m->ga.dkrot, krot, kpos, c->rope_theta, N, KVH, hd);
    }
}

/* Backward of qkv_extras for layer l: from ga.dqk (N, Q+K), the gradient of q
 * and k after their norms, through the per-head norms into dqkv (N, Q+2K),
 * then the bias gradients (column sums of dqkv, rows in order). */
static void qkv_extras_backward(Model *m, int l, int N)
{
    const ModelConfig *c = &m->cfg;
    int H = c->n_heads, KVH = model_kv_heads(c), hd = model_head_dim(c);
    int Q = model_q_dim(c), K = model_kv_dim(c), W = Q + 2 * K;
    if (c->qk_norm) {
        const float *pre = m->a.qk_pre + l * slab(m, Q + K);
        const float *rstd = m->a.qk_rstd + l * slab(m, H + KVH);
        rmsnorm_heads_backward(m->ga.dqkv, W, base_grad(m, m->g.qnw, (size_t)l * hd), m->ga.dqk,
                               Q + K, pre, Q + K, m->p.qnw + (size_t)l * hd, rstd, N, H, hd);
        rmsnorm_heads_backward(m->ga.dqkv + Q, W, base_grad(m, m->g.knw, (size_t)l * hd),
                               m->ga.dqk + Q, Q + K, pre + Q, Q + K, m->p.knw + (size_t)l * hd,
                               rstd + (size_t)N * H, N, KVH, hd);
    }
    float *dbias = c->qkv_bias ? base_grad(m, m->g.bqkv, (size_t)l * W) : NULL;
    if (dbias) {
#pragma omp parallel for schedule(static)
        for (int j = 0; j < W; j++) {
            float sum = 0.0f;
            for (int n = 0; n < N; n++) sum += m->ga.dqkv[(size_t)n * W + j];
            dbias[j] += sum;
        }
    }
}

/* Backward through layers n_run-1 .. 0 and the embedding, starting from
 * ga.dres = d loss / d res[n_run] (B, T, C). */
static void backward_layers(Model *m)
{
    const ModelConfig *c = &m->cfg;
    const ModelInput *in = &m->in;
    int B = in->B, T = in->T, C = c->d_model, H = c->n_heads, hd = model_head_dim(c), F = c->d_ff;
    int KVH = model_kv_heads(c), Q = model_q_dim(c), K = model_kv_dim(c), W = Q + 2 * K;
    int N = B * T;
    ActViews *a = &m->a;
    GradActViews *ga = &m->ga;
    float *dres = ga->dres, *dres_below = ga->dres2;

    for (int l = 0; l < m->n_run; l++)
        if (in->pos_kind && in->pos_kind[l] == POS_REAL)
            memset(ga->dreal_pos + (size_t)l * N * H, 0, (size_t)N * H * sizeof(float));

    for (int l = m->n_run - 1; l >= 0; l--) {
        const float *res = a->res + l * slab(m, C);
        const float *ln1 = a->ln1 + l * slab(m, C), *ln1_rstd = a->ln1_rstd + l * slab(m, 1);
        const float *qkv = a->qkv + l * slab(m, W);
        const float *qrot = a->qrot + l * slab(m, Q), *krot = a->krot + l * slab(m, K);
        const float *att = a->att + l * att_slab(m), *atty = a->atty + l * slab(m, Q);
        const float *res_mid = a->res_mid + l * slab(m, C);
        const float *ln2 = a->ln2 + l * slab(m, C), *ln2_rstd = a->ln2_rstd + l * slab(m, 1);
        const float *gu = a->gu + l * slab(m, 2 * F), *swi = a->swi + l * slab(m, F);
        const float *pos = layer_positions(m, l);
        PosKind kind = model_layer_pos_kind(m, in, l);
        int learned_z = kind == POS_REPO && !in->repo_force_index;
        float *dpos = kind == POS_REAL ? ga->dreal_pos + (size_t)l * N * H
                      : learned_z      ? ga->dz : NULL;
        if (learned_z) memset(ga->dz, 0, (size_t)N * H * sizeof(float));

        /* MLP sublayer, reversed; dres_below collects d res_mid */
        memcpy(dres_below, dres, (size_t)N * C * sizeof(float));
        memset(ga->dswi, 0, (size_t)N * F * sizeof(float));
        matmul_backward(ga->dswi, base_grad(m, m->g.wdown, (size_t)l * C * F), dres, swi,
                        m->p.wdown + (size_t)l * C * F, N, F, C);
        memset(ga->dgu, 0, (size_t)N * 2 * F * sizeof(float));
        swiglu_backward(ga->dgu, ga->dswi, gu, N, F);
        memset(ga->dln, 0, (size_t)N * C * sizeof(float));
        matmul_backward(ga->dln, base_grad(m, m->g.wgu, (size_t)l * 2 * F * C), ga->dgu, ln2,
                        m->p.wgu + (size_t)l * 2 * F * C, N, C, 2 * F);
        rmsnorm_backward(dres_below, base_grad(m, m->g.ln2w, (size_t)l * C), ga->dln, res_mid,
                         m->p.ln2w + (size_t)l * C, ln2_rstd, N, C);

        /* attention sublayer, reversed; dres_below then holds d res */
        memset(ga->datty, 0, (size_t)N * Q * sizeof(float));
        matmul_backward(ga->datty, base_grad(m, m->g.wo, (size_t)l * C * Q), dres_below, atty,
                        m->p.wo + (size_t)l * C * Q, N, Q, C);
        if (m->lora) lora_backward(m->lora, l, LORA_O, dres_below, C, ga->datty, N);
        memset(ga->dqrot, 0, (size_t)N * Q * sizeof(float));
        memset(ga->dkrot, 0, (size_t)N * K * sizeof(float));
        memset(ga->dqkv, 0, (size_t)N * W * sizeof(float));
        attention_backward_gqa(ga->dqrot, ga->dkrot, ga->dqkv + Q + K, W, ga->datt, ga->datty,
                               qrot, krot, qkv + Q + K, att, in->lengths, layer_mask(m, l), B, T,
                               H, KVH, hd);
        if (c->qk_norm) { /* rotate back into dqk, then through the norms into dqkv */
            memset(ga->dqk, 0, (size_t)N * (Q + K) * sizeof(float));
            rope_back(m, l, ga->dqk, Q + K, dpos, pos, N);
        } else {
            rope_back(m, l, ga->dqkv, W, dpos, pos, N);
        }
        qkv_extras_backward(m, l, N);
        memset(ga->dln, 0, (size_t)N * C * sizeof(float));
        /* frozen base: nothing below layer 0 wants the gradient of its input */
        int want_dx = !(m->frozen_base && l == 0);
        matmul_backward(want_dx ? ga->dln : NULL, base_grad(m, m->g.wqkv, (size_t)l * W * C),
                        ga->dqkv, ln1, m->p.wqkv + (size_t)l * W * C, N, C, W);
        if (m->lora)
            for (int t = LORA_Q; t <= LORA_V; t++)
                lora_backward(m->lora, l, (LoraTarget)t, ga->dqkv + qkv_offset(c, (LoraTarget)t),
                              W, ga->dln, N);
        if (learned_z) repo_backward(m, l, ln1, ga->dz, ga->dln, N);
        if (want_dx)
            rmsnorm_backward(dres_below, base_grad(m, m->g.ln1w, (size_t)l * C), ga->dln, res,
                             m->p.ln1w + (size_t)l * C, ln1_rstd, N, C);

        float *swap = dres;
        dres = dres_below;
        dres_below = swap;
    }
    float *dwte = base_grad(m, m->g.wte, 0);
    if (dwte) embedding_backward(dwte, dres, in->ids, N, C);
}

void model_backward(Model *m, const int *targets, int ignore)
{
    const ModelConfig *c = &m->cfg;
    int N = m->in.B * m->in.T, C = c->d_model, V = c->vocab_size;
    float scale = m->counted > 0 ? 1.0f / (float)m->counted : 0.0f;
    /* logits hold the probabilities after model_lm_loss; turn them into dlogits in place */
    crossentropy_backward(m->a.logits, m->a.logits, targets, ignore, scale, N, V);
    memset(m->ga.dln, 0, (size_t)N * C * sizeof(float));
    matmul_backward(m->ga.dln, base_grad(m, m->g.wlm, 0), m->a.logits, m->a.lnf, m->p.wlm, N, C, V);
    memset(m->ga.dres, 0, (size_t)N * C * sizeof(float));
    rmsnorm_backward(m->ga.dres, base_grad(m, m->g.lnfw, 0), m->ga.dln, model_hidden(m, m->n_run),
                     m->p.lnfw, m->a.lnf_rstd, N, C);
    backward_layers(m);
}

void model_backward_hidden(Model *m, const float *dhidden)
{
    size_t n = (size_t)m->in.B * m->in.T * m->cfg.d_model;
    memcpy(m->ga.dres, dhidden, n * sizeof(float));
    backward_layers(m);
}
