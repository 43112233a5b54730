/* model_buffers.c — the model's four buffers (parameters, gradients,
 * activations, activation gradients; see model.h): the shape of every tensor
 * in them, written once and used for the sizes, the named views, the check
 * that nothing wraps around, and the weights' initialisation.
 *
 * model.c, which runs the model, calls nothing here: this file makes a Model
 * (model_create) and model.c reads and writes what it made. */
#include "engine/model.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "engine/ops/ops.h"
#include "engine/threads.h"

/* The dimensions every buffer is sized by, exact in size_t (each is a
 * product of at most two ints): the model's V, C, N layers (L), F, H, KVH,
 * head size hd, query width Q = H*hd, key/value width K = KVH*hd, fused
 * q/k/v width W = Q+2K, RePo width P = C/8 and RePo layers R (0 without
 * RePo); the largest batch's BT = max_batch * max_T tokens and T = max_T;
 * LS, the layers whose working activations are kept: L, or 1 for an
 * inference model (model_create_inference), whose layers share them; TR, 1
 * when the activations must serve a backward (0 for an inference model); ST,
 * 1 when the big matrices stay as stored (model_create_stored), not in params. */
typedef struct {
    size_t V, C, L, F, H, KVH, hd, Q, K, W, P, R, BT, T, LS, TR, ST;
} Dims;

static Dims dims_of(const ModelConfig *c, int max_batch, int max_T)
{
    Dims d = {
        .V = (size_t)c->vocab_size, .C = (size_t)c->d_model, .L = (size_t)c->n_layers,
        .F = (size_t)c->d_ff, .H = (size_t)c->n_heads, .KVH = (size_t)model_kv_heads(c),
        .hd = (size_t)model_head_dim(c), .P = (size_t)model_repo_dim(c),
        .R = c->repo ? (size_t)(c->n_layers - c->repo_from) : 0,
        .BT = (size_t)max_batch * (size_t)max_T, .T = (size_t)max_T,
    };
    d.Q = d.H * d.hd;
    d.K = d.KVH * d.hd;
    d.W = d.Q + 2 * d.K;
    d.LS = d.L;
    d.TR = 1;
    return d;
}

/* A tensor's number of floats: exact (n; it wraps only for a model that
 * sizes_overflow refuses) and as a double, which does not wrap (x). */
typedef struct {
    size_t n;
    double x;
} Floats;

/* The floats of a tensor of shape (a, b, c, d): 1 for a dimension it lacks,
 * 0 as a factor for a tensor the configuration does not have. */
static Floats shape(size_t a, size_t b, size_t c, size_t d)
{
    return (Floats){a * b * c * d, (double)a * (double)b * (double)c * (double)d};
}

/* One tensor of a buffer: the view that points at it and its size. */
typedef struct {
    float **view;
    Floats size;
} Slot;

/* The parameters, in ParamViews order (model.h gives each one's meaning). */
static void param_slots(const Dims *d, const ModelConfig *c, ParamViews *v,
                        Slot s[MODEL_N_PARAM_TENSORS])
{
    size_t untied = !c->tied, bias = c->qkv_bias != 0, qk_norm = c->qk_norm != 0;
    size_t post = c->post_norms != 0, big = !d->ST; /* the matrices a stored model keeps out */
    s[0] = (Slot){&v->wte, shape(big, d->V, d->C, 1)};
    s[1] = (Slot){&v->ln1w, shape(d->L, d->C, 1, 1)};
    s[2] = (Slot){&v->wqkv, shape(big, d->L, d->W, d->C)};
    s[3] = (Slot){&v->wo, shape(big, d->L, d->C, d->Q)};
    s[4] = (Slot){&v->ln2w, shape(d->L, d->C, 1, 1)};
    s[5] = (Slot){&v->wgu, shape(big, d->L, 2 * d->F, d->C)};
    s[6] = (Slot){&v->wdown, shape(big, d->L, d->C, d->F)};
    s[7] = (Slot){&v->lnfw, shape(d->C, 1, 1, 1)};
    s[8] = (Slot){&v->wlm, shape(untied * big, d->V, d->C, 1)};
    s[9] = (Slot){&v->wgc, shape(d->R, 2 * d->P, d->C, 1)};
    s[10] = (Slot){&v->wz, shape(d->R, d->H, d->P, 1)};
    s[11] = (Slot){&v->bqkv, shape(bias, d->L, d->W, 1)};
    s[12] = (Slot){&v->qnw, shape(qk_norm, d->L, d->hd, 1)};
    s[13] = (Slot){&v->knw, shape(qk_norm, d->L, d->hd, 1)};
    s[14] = (Slot){&v->panw, shape(post, d->L, d->C, 1)};
    s[15] = (Slot){&v->pfnw, shape(post, d->L, d->C, 1)};
}

/* The activations for max_batch x max_T, in ActViews order: the residual
 * streams and RePo positions of every layer, the other per-layer tensors of
 * d->LS layers. */
#define N_ACT 29
static void act_slots(const Dims *d, const ModelConfig *c, ActViews *a, Slot s[N_ACT])
{
    size_t L = d->L, LS = d->LS, BT = d->BT, C = d->C, F = d->F, H = d->H, KVH = d->KVH;
    size_t Q = d->Q, K = d->K, P = d->P;
    size_t repo = c->repo != 0, gqa = KVH != H, qk_norm = c->qk_norm != 0;
    size_t freq = c->rope_llama3 || c->rope_linear_factor > 0.0f, local = c->rope_local_theta > 0.0f;
    size_t post = c->post_norms != 0, capped = d->TR && c->logit_softcap > 0.0f;
    int k = 0;
    s[k++] = (Slot){&a->res, shape(L + 1, BT, C, 1)};
    s[k++] = (Slot){&a->ln1, shape(LS, BT, C, 1)};
    s[k++] = (Slot){&a->ln1_rstd, shape(LS, BT, 1, 1)};
    s[k++] = (Slot){&a->qkv, shape(LS, BT, d->W, 1)};
    s[k++] = (Slot){&a->att, shape(LS, BT, H, d->T)};
    s[k++] = (Slot){&a->atty, shape(LS, BT, Q, 1)};
    s[k++] = (Slot){&a->res_mid, shape(LS, BT, C, 1)};
    s[k++] = (Slot){&a->ln2, shape(LS, BT, C, 1)};
    s[k++] = (Slot){&a->ln2_rstd, shape(LS, BT, 1, 1)};
    s[k++] = (Slot){&a->gu, shape(LS, BT, 2 * F, 1)};
    s[k++] = (Slot){&a->swi, shape(LS, BT, F, 1)};
    s[k++] = (Slot){&a->lnf, shape(BT, C, 1, 1)};
    s[k++] = (Slot){&a->lnf_rstd, shape(BT, 1, 1, 1)};
    s[k++] = (Slot){&a->logits, shape(BT, d->V, 1, 1)};
    s[k++] = (Slot){&a->losses, shape(BT, 1, 1, 1)};
    s[k++] = (Slot){&a->rope_pos, shape(BT, H, 1, 1)};
    s[k++] = (Slot){&a->repo_gc, shape(repo, LS, BT, 2 * P)};
    s[k++] = (Slot){&a->repo_r, shape(repo, LS, BT, P)};
    s[k++] = (Slot){&a->repo_z, shape(repo, L, BT, H)};
    s[k++] = (Slot){&a->rope_pos_kv, shape(gqa, BT, KVH, 1)};
    s[k++] = (Slot){&a->inv_freq, shape(freq, d->hd / 2, 1, 1)};
    s[k++] = (Slot){&a->qk_pre, shape(qk_norm, LS, BT, Q + K)};
    s[k++] = (Slot){&a->qk_rstd, shape(qk_norm, LS, BT, H + KVH)};
    s[k++] = (Slot){&a->inv_freq_local, shape(local, d->hd / 2, 1, 1)};
    s[k++] = (Slot){&a->attn_o, shape(post, LS, BT, C)};
    s[k++] = (Slot){&a->attn_o_rstd, shape(post, LS, BT, 1)};
    s[k++] = (Slot){&a->mlp_o, shape(post, LS, BT, C)};
    s[k++] = (Slot){&a->mlp_o_rstd, shape(post, LS, BT, 1)};
    s[k++] = (Slot){&a->capped, shape(capped, BT, d->V, 1)};
}

/* The backward's scratch for max_batch x max_T, in GradActViews order. */
#define N_GACT 16
static void gact_slots(const Dims *d, const ModelConfig *c, GradActViews *g, Slot s[N_GACT])
{
    size_t BT = d->BT, C = d->C, F = d->F, H = d->H, Q = d->Q, K = d->K, P = d->P;
    size_t repo = c->repo != 0, qk_norm = c->qk_norm != 0, post = c->post_norms != 0;
    int k = 0;
    s[k++] = (Slot){&g->dres, shape(BT, C, 1, 1)};
    s[k++] = (Slot){&g->dres2, shape(BT, C, 1, 1)};
    s[k++] = (Slot){&g->dln, shape(BT, C, 1, 1)};
    s[k++] = (Slot){&g->dqkv, shape(BT, d->W, 1, 1)};
    s[k++] = (Slot){&g->dqrot, shape(BT, Q, 1, 1)};
    s[k++] = (Slot){&g->dkrot, shape(BT, K, 1, 1)};
    s[k++] = (Slot){&g->datty, shape(BT, Q, 1, 1)};
    s[k++] = (Slot){&g->dgu, shape(BT, 2 * F, 1, 1)};
    s[k++] = (Slot){&g->dswi, shape(BT, F, 1, 1)};
    s[k++] = (Slot){&g->datt, shape(BT, H, d->T, 1)};
    s[k++] = (Slot){&g->dreal_pos, shape(d->L, BT, H, 1)};
    s[k++] = (Slot){&g->dz, shape(repo, BT, H, 1)};
    s[k++] = (Slot){&g->dr, shape(repo, BT, P, 1)};
    s[k++] = (Slot){&g->dgc, shape(repo, BT, 2 * P, 1)};
    s[k++] = (Slot){&g->dqk, shape(qk_norm, BT, Q + K, 1)};
    s[k++] = (Slot){&g->dpost, shape(post, BT, C, 1)};
}

/* Sum of the exact sizes of slots s[0..n). */
static size_t total_floats(const Slot *s, int n)
{
    size_t sum = 0;
    for (int i = 0; i < n; i++) sum += s[i].size.n;
    return sum;
}

/* Point the views of slots s[0..n) one after the other into base. */
static void point_slots(const Slot *s, int n, float *base)
{
    for (int i = 0; i < n; i++) {
        *s[i].view = base;
        base += s[i].size.n;
    }
}

void model_param_sizes(const ModelConfig *c, size_t sizes[MODEL_N_PARAM_TENSORS])
{
    Dims d = dims_of(c, 0, 0);
    ParamViews unused;
    Slot s[MODEL_N_PARAM_TENSORS];
    param_slots(&d, c, &unused, s);
    for (int i = 0; i < MODEL_N_PARAM_TENSORS; i++) sizes[i] = s[i].size.n;
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
    /* ln1w, ln2w, lnfw, qnw, knw, panw, pfnw */
    return i == 1 || i == 4 || i == 7 || i == 12 || i == 13 || i == 14 || i == 15;
}

int model_param_is_decayed(int i)
{
    return !model_param_is_norm(i) && i != 11; /* bqkv */
}

/* Point the views of a parameter-shaped buffer into base (all NULL when
 * base is NULL); a tied LM head is the embedding. stored: the layout of
 * model_create_stored, whose big matrices' views are NULL. */
static void point_param_views(ParamViews *v, float *base, const ModelConfig *c, int stored)
{
    if (!base) {
        memset(v, 0, sizeof *v);
        return;
    }
    Dims d = dims_of(c, 0, 0);
    d.ST = stored != 0;
    Slot s[MODEL_N_PARAM_TENSORS];
    param_slots(&d, c, v, s);
    point_slots(s, MODEL_N_PARAM_TENSORS, base);
    if (stored) v->wte = v->wqkv = v->wo = v->wgu = v->wdown = v->wlm = NULL;
    if (c->tied) v->wlm = v->wte;
}

/* 1 when the buffers of cfg for max_batch x max_T would need more floats than
 * size_t holds (or a fused width Q + 2K or 2F past INT_MAX): the sizes of
 * every slot (parameters and gradients, activations, their gradients)
 * counted in double, which does not wrap. Anything over 2^60 bytes counts as
 * too large. */
static int sizes_overflow(const ModelConfig *c, int max_batch, int max_T)
{
    Dims d = dims_of(c, max_batch, max_T);
    if (d.W > INT_MAX || 2 * d.F > INT_MAX) return 1;
    ParamViews pv;
    ActViews av;
    GradActViews gv;
    Slot ps[MODEL_N_PARAM_TENSORS], as[N_ACT], gs[N_GACT];
    param_slots(&d, c, &pv, ps);
    act_slots(&d, c, &av, as);
    gact_slots(&d, c, &gv, gs);
    double floats = 0.0;
    for (int i = 0; i < MODEL_N_PARAM_TENSORS; i++) floats += 2 * ps[i].size.x;
    for (int i = 0; i < N_ACT; i++) floats += as[i].size.x;
    for (int i = 0; i < N_GACT; i++) floats += gs[i].size.x;
    return floats * sizeof(float) > 1152921504606846976.0; /* 2^60 */
}

/* 0 when buffers of cfg for max_batch x max_T can be made: both positive,
 * max_T within the model's positions, sizes that do not wrap; else -1 with
 * a message. */
static int check_batch(const ModelConfig *cfg, int max_batch, int max_T, SrError *err)
{
    if (max_batch <= 0 || max_T <= 0)
        return sr_fail(err, "batch size and sequence length must be positive");
    if (max_T > cfg->max_seq_len)
        return sr_fail(err, "sequence length %d exceeds the model's max_seq_len %d", max_T,
                       cfg->max_seq_len);
    if (sizes_overflow(cfg, max_batch, max_T))
        return sr_fail(err, "the model's sizes (vocab_size %d, d_model %d, d_ff %d, n_layers %d, "
                       "n_heads %d, length %d) are too large to allocate", cfg->vocab_size,
                       cfg->d_model, cfg->d_ff, cfg->n_layers, cfg->n_heads, max_T);
    return 0;
}

/* The RoPE frequency tables a configuration needs, computed once: Llama
 * 3.1's scaled ones or the linearly scaled ones (Gemma 3's global layers)
 * into a.inv_freq, the sliding layers' own base into a.inv_freq_local. */
static void fill_rope_tables(Model *m)
{
    const ModelConfig *c = &m->cfg;
    int hd = model_head_dim(c);
    if (c->rope_llama3)
        rope_inv_freq_llama3(m->a.inv_freq, c->rope_theta, hd, c->rope_factor,
                             c->rope_low_freq_factor, c->rope_high_freq_factor,
                             c->rope_original_max_pos);
    else if (c->rope_linear_factor > 0.0f) {
        rope_inv_freq(m->a.inv_freq, c->rope_theta, hd);
        for (int i = 0; i < hd / 2; i++) m->a.inv_freq[i] /= c->rope_linear_factor;
    }
    if (c->rope_local_theta > 0.0f) rope_inv_freq(m->a.inv_freq_local, c->rope_local_theta, hd);
}

/* m->stored_scratch for the products on m's stored matrices (ops_stored.h):
 * enough for their widest input (C, F or Q) on the threads m will use
 * (m->stored_threads, now). Returns its floats; the pointer is NULL when out
 * of memory. */
static size_t stored_scratch_new(Model *m)
{
    const ModelConfig *c = &m->cfg;
    int widest = c->d_model > c->d_ff ? c->d_model : c->d_ff;
    if (model_q_dim(c) > widest) widest = model_q_dim(c);
    m->stored_threads = threads_count();
    size_t floats = stored_scratch_floats(widest, m->stored_threads);
    m->stored_scratch = malloc(floats * sizeof(float));
    return floats;
}

/* The buffers of a model of cfg for max_batch x max_T: parameters,
 * gradients, activations and their gradients; with stored (not NULL) the
 * parameters of model_create_stored, no parameter gradients, and the
 * scratch of the stored products. m is zeroed first; -1 with err. */
static int create(Model *m, const ModelConfig *cfg, StoredMatrices *stored, int max_batch,
                  int max_T, SrError *err)
{
    memset(m, 0, sizeof *m);
    if (model_config_check(cfg, err) || check_batch(cfg, max_batch, max_T, err)) return -1;
    threads_set(0); /* OpenBLAS single-threaded inside our OpenMP threads */
    m->cfg = *cfg;
    m->max_batch = max_batch;
    m->max_T = max_T;
    m->stored = stored;
    m->frozen_base = stored != NULL;

    Dims d = dims_of(cfg, max_batch, max_T);
    d.ST = stored != NULL;
    Slot ps[MODEL_N_PARAM_TENSORS], as[N_ACT], gs[N_GACT];
    param_slots(&d, cfg, &m->p, ps);
    act_slots(&d, cfg, &m->a, as);
    gact_slots(&d, cfg, &m->ga, gs);
    m->n_params = total_floats(ps, MODEL_N_PARAM_TENSORS);
    size_t n_act = total_floats(as, N_ACT), n_gact = total_floats(gs, N_GACT), n_scratch = 0;
    if (stored) n_scratch = stored_scratch_new(m);
    m->params = calloc(m->n_params ? m->n_params : 1, sizeof(float));
    m->grads = stored ? NULL : calloc(m->n_params, sizeof(float));
    m->acts = calloc(n_act, sizeof(float));
    m->gacts = calloc(n_gact, sizeof(float));
    if (!m->params || (!stored && !m->grads) || !m->acts || !m->gacts ||
        (stored && !m->stored_scratch)) {
        model_free(m);
        return sr_fail(err, "out of memory allocating a model for batch %d x length %d (%.1f MiB)",
                       max_batch, max_T,
                       (double)((stored ? 1 : 2) * m->n_params + n_act + n_gact + n_scratch) * 4.0 /
                           1048576.0);
    }
    point_param_views(&m->p, m->params, cfg, stored != NULL);
    point_param_views(&m->g, m->grads, cfg, stored != NULL);
    point_slots(as, N_ACT, m->acts);
    point_slots(gs, N_GACT, m->gacts);
    fill_rope_tables(m);
    return 0;
}

int model_create(Model *m, const ModelConfig *cfg, int max_batch, int max_T, SrError *err)
{
    return create(m, cfg, NULL, max_batch, max_T, err);
}

int model_create_stored(Model *m, const ModelConfig *cfg, StoredMatrices *stored, int max_batch,
                        int max_T, SrError *err)
{
    if (create(m, cfg, stored, max_batch, max_T, err)) {
        if (stored && stored->release) stored->release(stored->owner);
        return -1;
    }
    return 0;
}

int model_create_inference(Model *m, const Model *weights, int max_batch, int max_T, SrError *err)
{
    memset(m, 0, sizeof *m);
    const ModelConfig *cfg = &weights->cfg;
    if (weights->lora) return sr_fail(err, "an inference model needs its LoRA adapters merged first");
    if (check_batch(cfg, max_batch, max_T, err)) return -1;
    m->cfg = *cfg;
    m->max_batch = max_batch;
    m->max_T = max_T;
    m->inference = 1;
    m->frozen_base = 1;
    m->n_params = weights->n_params;
    m->params = weights->params; /* borrowed: model_free leaves it */
    m->p = weights->p;
    m->stored = weights->stored; /* borrowed too */
    Dims d = dims_of(cfg, max_batch, max_T);
    d.LS = 1;
    d.TR = 0;
    Slot as[N_ACT];
    act_slots(&d, cfg, &m->a, as);
    size_t n_act = total_floats(as, N_ACT);
    m->acts = calloc(n_act, sizeof(float));
    if (m->stored) stored_scratch_new(m);
    if (!m->acts || (m->stored && !m->stored_scratch)) {
        m->params = NULL;
        model_free(m);
        return sr_fail(err, "out of memory allocating an inference model for batch %d x length %d "
                       "(%.1f MiB)", max_batch, max_T, (double)n_act * 4.0 / 1048576.0);
    }
    point_slots(as, N_ACT, m->acts);
    fill_rope_tables(m);
    return 0;
}

void model_free(Model *m)
{
    if (!m->inference) free(m->params);
    if (!m->inference && m->stored && m->stored->release) m->stored->release(m->stored->owner);
    free(m->stored_scratch);
    free(m->grads);
    free(m->m1);
    free(m->m2);
    free(m->acts);
    free(m->gacts);
    memset(m, 0, sizeof *m);
}

int model_freeze_base(Model *m, int frozen, SrError *err)
{
    if (!frozen && m->stored)
        return sr_fail(err, "weights kept as stored (BF16 or F16) cannot be trained; load them "
                       "widened to float32 for that");
    m->frozen_base = frozen ? 1 : 0;
    if (frozen) {
        free(m->grads);
        m->grads = NULL;
    } else if (!m->grads) {
        m->grads = calloc(m->n_params, sizeof(float));
        if (!m->grads)
            return sr_fail(err, "out of memory for the gradients of %zu parameters", m->n_params);
    }
    point_param_views(&m->g, m->grads, &m->cfg, m->stored != NULL);
    return 0;
}

void model_init_weights(Model *m, unsigned long long seed)
{
    Rng rng;
    rng_seed(&rng, seed);
    Dims d = dims_of(&m->cfg, 0, 0);
    ParamViews views = m->p; /* param_slots points its slots at this copy's views */
    Slot s[MODEL_N_PARAM_TENSORS];
    param_slots(&d, &m->cfg, &views, s);
    for (int i = 0; i < MODEL_N_PARAM_TENSORS; i++) {
        int is_norm = model_param_is_norm(i);
        float *w = *s[i].view;
        for (size_t j = 0; j < s[i].size.n; j++) w[j] = is_norm ? 1.0f : 0.02f * rng_normal(&rng);
    }
}
