/* model_buffers.c — the model's four buffers (parameters, gradients,
 * activations, activation gradients; tensors.h): their sizes read from the
 * table of parameters and the list of a layer's slabs, the named views
 * pointed into them, the check that nothing wraps around, the activations
 * laid out again for another batch or a model that recomputes its layers,
 * zeroing the gradients, and the weights' initialisation.
 *
 * model.c, which runs the model, calls nothing here: this file makes a Model
 * (model_build) and model.c reads and writes what it made. */
#include "engine/model.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "engine/ops/ops.h"
#include "engine/threads.h"

/* A tensor of a buffer: the view that points at it and its floats, exact
 * (n; it wraps only for a model that sizes_overflow refuses) and as a
 * double, which does not wrap (x). */
typedef struct {
    float **view;
    size_t n;
    double x;
} Slot;

/* The slot of view `view` holding a x b x c floats (0 when a factor is 0). */
static Slot slot(float **view, size_t a, size_t b, size_t c)
{
    return (Slot){.view = view, .n = a * b * c, .x = (double)a * (double)b * (double)c};
}

/* The parameters, in ParamId order (tensors.h), pointing at the views of v;
 * with matrices_outside, the big matrices take no room (a MatrixSource
 * reads them). */
static void param_slots(const ModelConfig *c, int matrices_outside, ParamViews *v,
                        Slot s[PARAM_COUNT])
{
    Dims d = tensor_dims(c, 0);
    for (int id = 0; id < PARAM_COUNT; id++) {
        const ParamSpec *p = param_spec((ParamId)id);
        int kept = tensor_present(c, p->has) && !(matrices_outside && p->matrix);
        s[id] = slot(param_view(v, (ParamId)id), kept ? dim_value(&d, p->stack) : 0,
                     dim_value(&d, p->rows), dim_value(&d, p->cols));
    }
}

/* The activations for max_batch x max_T in the order of the buffer: the
 * residual streams of every layer, each working slab of a layer (tensors.h)
 * for the `kept` layers, then the whole model's; `trainable`: the logits'
 * copy the backward of a soft cap needs. Returns the number of slots. */
enum { MAX_ACT_SLOTS = SLAB_COUNT + 12 };
static int act_slots(const ModelConfig *c, int max_batch, int max_T, size_t kept, int trainable,
                     ActViews *a, Slot s[MAX_ACT_SLOTS])
{
    Dims d = tensor_dims(c, max_T);
    size_t BT = (size_t)max_batch * (size_t)max_T, repo = c->repo != 0, gqa = d.KVH != d.H;
    size_t capped = trainable && c->family.logit_softcap > 0.0f;
    int k = 0;
    s[k++] = slot(&a->res, d.L + 1, BT, d.C);
    for (int id = 0; id < SLAB_COUNT; id++) {
        float **view = (float **)((char *)a + slab_spec((SlabId)id)->view);
        s[k++] = slot(view, kept, BT, slab_width(c, (SlabId)id, max_T));
    }
    s[k++] = slot(&a->lnf, BT, d.C, 1);
    s[k++] = slot(&a->lnf_rstd, BT, 1, 1);
    s[k++] = slot(&a->logits, BT, d.V, 1);
    s[k++] = slot(&a->losses, BT, 1, 1);
    s[k++] = slot(&a->rope_pos, BT, d.H, 1);
    s[k++] = slot(&a->rope_freq, 2, d.hd / 2, 1);
    s[k++] = slot(&a->repo_z, repo * d.L, BT, d.H);
    s[k++] = slot(&a->family.rope_pos_kv, gqa, BT, d.KVH);
    s[k++] = slot(&a->family.capped, capped, BT, d.V);
    return k;
}

/* The backward's scratch for max_batch x max_T, in GradActViews order. */
enum { N_GACT = 16 };
static void gact_slots(const ModelConfig *c, int max_batch, int max_T, GradActViews *g,
                       Slot s[N_GACT])
{
    Dims d = tensor_dims(c, max_T);
    size_t BT = (size_t)max_batch * (size_t)max_T, repo = c->repo != 0;
    size_t qk_norm = c->family.qk_norm != 0, post = c->family.post_norms != 0;
    int k = 0;
    s[k++] = slot(&g->dres, BT, d.C, 1);
    s[k++] = slot(&g->dres2, BT, d.C, 1);
    s[k++] = slot(&g->dln, BT, d.C, 1);
    s[k++] = slot(&g->dqkv, BT, d.W, 1);
    s[k++] = slot(&g->dqrot, BT, d.Q, 1);
    s[k++] = slot(&g->dkrot, BT, d.K, 1);
    s[k++] = slot(&g->datty, BT, d.Q, 1);
    s[k++] = slot(&g->dgu, BT, 2 * d.F, 1);
    s[k++] = slot(&g->dswi, BT, d.F, 1);
    s[k++] = slot(&g->datt, BT, d.H, d.T);
    s[k++] = slot(&g->dreal_pos, d.L, BT, d.H);
    s[k++] = slot(&g->dz, repo, BT, d.H);
    s[k++] = slot(&g->dr, repo, BT, d.P);
    s[k++] = slot(&g->dgc, repo * BT, 2 * d.P, 1);
    s[k++] = slot(&g->family.dqk, qk_norm, BT, d.Q + d.K);
    s[k++] = slot(&g->family.dpost, post, BT, d.C);
}

/* Sum of the exact sizes of slots s[0..n). */
static size_t total_floats(const Slot *s, int n)
{
    size_t sum = 0;
    for (int i = 0; i < n; i++) sum += s[i].n;
    return sum;
}

/* Point the views of slots s[0..n) one after the other into base. */
static void point_slots(const Slot *s, int n, float *base)
{
    for (int i = 0; i < n; i++) {
        *s[i].view = base;
        base += s[i].n;
    }
}

/* Point the views of a parameter-shaped buffer into base (all NULL when
 * base is NULL; a tensor the configuration lacks points at no floats); a
 * tied LM head is the embedding. matrices_outside: the layout of a model
 * whose big matrices a MatrixSource reads, their views NULL. */
static void point_param_views(ParamViews *v, float *base, const ModelConfig *c,
                              int matrices_outside)
{
    memset(v, 0, sizeof *v);
    if (!base) return;
    Slot s[PARAM_COUNT];
    param_slots(c, matrices_outside, v, s);
    point_slots(s, PARAM_COUNT, base);
    for (int id = 0; id < PARAM_COUNT; id++)
        if (matrices_outside && param_spec((ParamId)id)->matrix) *param_view(v, (ParamId)id) = NULL;
    if (c->tied) v->wlm = v->wte;
}

/* 1 when the buffers of cfg for max_batch x max_T would need more floats than
 * size_t holds (or a fused width Q + 2K or 2F past INT_MAX): the sizes of
 * every slot (parameters and gradients, activations, their gradients)
 * counted in double, which does not wrap. Anything over 2^60 bytes counts as
 * too large. */
static int sizes_overflow(const ModelConfig *c, int max_batch, int max_T)
{
    Dims d = tensor_dims(c, max_T);
    if (d.W > INT_MAX || 2 * d.F > INT_MAX) return 1;
    ParamViews pv;
    ActViews av;
    GradActViews gv;
    Slot ps[PARAM_COUNT], as[MAX_ACT_SLOTS], gs[N_GACT];
    param_slots(c, 0, &pv, ps);
    int n_act = act_slots(c, max_batch, max_T, d.L, 1, &av, as);
    gact_slots(c, max_batch, max_T, &gv, gs);
    double floats = 0.0;
    for (int i = 0; i < PARAM_COUNT; i++) floats += 2 * ps[i].x;
    for (int i = 0; i < n_act; i++) floats += as[i].x;
    for (int i = 0; i < N_GACT; i++) floats += gs[i].x;
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

/* The message of a model that did not fit in memory (floats: what it asked for). */
static int out_of_memory(const ModelBuild *how, double floats, SrError *err)
{
    return sr_fail(err, "out of memory allocating %s model for batch %d x length %d (%.1f MiB)",
                   how->forward_only ? "an inference" : "a", how->max_batch, how->max_T,
                   floats * 4.0 / 1048576.0);
}

/* m's activations for its max_batch x max_T with `kept` layers' working
 * slabs (trainable: with the copy of capped logits a backward reads), in a
 * new buffer that replaces m->acts, and the RoPE tables filled in; *floats
 * gets its size. -1 when out of memory (m->acts is then left as it was). */
static int make_acts(Model *m, int kept, int trainable, size_t *floats)
{
    const ModelConfig *cfg = &m->cfg;
    Slot as[MAX_ACT_SLOTS];
    ActViews a;
    int n_act = act_slots(cfg, m->max_batch, m->max_T, (size_t)kept, trainable, &a, as);
    *floats = total_floats(as, n_act);
    float *acts = calloc(*floats, sizeof(float));
    if (!acts) return -1;
    point_slots(as, n_act, acts);
    if (!trainable) a.family.capped = NULL; /* no copy of capped logits kept */
    free(m->acts);
    m->acts = acts;
    m->a = a;
    family_rope_tables(&cfg->family, cfg->rope_theta, model_head_dim(cfg), m->a.rope_freq);
    return 0;
}

/* m's parameters: its own and, unless forward only or the matrices are read
 * from a source (a frozen base), their gradients; or those of how->borrow.
 * -1 when out of memory. */
static int make_params(Model *m, const ModelBuild *how)
{
    const ModelConfig *cfg = &m->cfg;
    if (how->borrow) {
        m->params_borrowed = 1;
        m->n_params = how->borrow->n_params;
        m->params = how->borrow->params;
        m->p = how->borrow->p;
        return 0;
    }
    int outside = how->matrices != NULL;
    Slot ps[PARAM_COUNT];
    param_slots(cfg, outside, &m->p, ps);
    m->n_params = total_floats(ps, PARAM_COUNT);
    m->params = calloc(m->n_params ? m->n_params : 1, sizeof(float));
    if (!how->forward_only && !outside) m->grads = calloc(m->n_params, sizeof(float));
    if (!m->params || (!how->forward_only && !outside && !m->grads)) return -1;
    point_param_views(&m->p, m->params, cfg, outside);
    point_param_views(&m->g, m->grads, cfg, outside);
    return 0;
}

int model_build(Model *m, const ModelConfig *cfg, const ModelBuild *how, SrError *err)
{
    memset(m, 0, sizeof *m);
    m->matrices = how->matrices; /* model_free releases it, whatever happens below */
    if (how->borrow && how->borrow->lora) {
        model_free(m);
        return sr_fail(err, "an inference model needs its LoRA adapters merged first");
    }
    if ((!how->borrow && model_config_check(cfg, err)) ||
        check_batch(cfg, how->max_batch, how->max_T, err)) {
        model_free(m);
        return -1;
    }
    if (!how->borrow) threads_set(0); /* OpenBLAS single-threaded inside our OpenMP threads */
    m->cfg = *cfg;
    m->max_batch = how->max_batch;
    m->max_T = how->max_T;
    m->layers_kept = how->forward_only ? 1 : cfg->n_layers;
    m->frozen_base = how->forward_only || how->matrices != NULL;

    m->slab_layer = -1;

    Slot gs[N_GACT];
    size_t act_floats = 0, gact_floats = 0;
    int acts_ok = make_acts(m, m->layers_kept, !how->forward_only, &act_floats) == 0;
    if (!how->forward_only) {
        gact_slots(cfg, how->max_batch, how->max_T, &m->ga, gs);
        gact_floats = total_floats(gs, N_GACT);
    }
    int params_ok = make_params(m, how) == 0;
    if (!how->forward_only) m->gacts = calloc(gact_floats, sizeof(float));
    if (!params_ok || !acts_ok || (!how->forward_only && !m->gacts)) {
        double floats = (double)(act_floats + gact_floats) +
                        (how->borrow ? 0.0 : (how->forward_only || how->matrices ? 1.0 : 2.0) *
                                                 (double)m->n_params);
        model_free(m);
        return out_of_memory(how, floats, err);
    }
    if (!how->forward_only) point_slots(gs, N_GACT, m->gacts);
    return 0;
}

int model_resize(Model *m, int max_batch, int max_T, int recompute, SrError *err)
{
    if (!m->gacts) return sr_fail(err, "a forward-only model has no backward to recompute for");
    if (check_batch(&m->cfg, max_batch, max_T, err)) return -1;
    int old_batch = m->max_batch, old_T = m->max_T;
    m->max_batch = max_batch;
    m->max_T = max_T;
    Slot gs[N_GACT];
    GradActViews ga;
    gact_slots(&m->cfg, max_batch, max_T, &ga, gs);
    size_t gact_floats = total_floats(gs, N_GACT), act_floats = 0;
    float *gacts = calloc(gact_floats, sizeof(float));
    if (!gacts || make_acts(m, recompute ? 1 : m->cfg.n_layers, 1, &act_floats)) {
        free(gacts);
        m->max_batch = old_batch;
        m->max_T = old_T;
        return sr_fail(err, "out of memory allocating the activations for batch %d x length %d "
                       "(%.1f MiB)", max_batch, max_T,
                       (double)(gact_floats + act_floats) * 4.0 / 1048576.0);
    }
    point_slots(gs, N_GACT, gacts);
    free(m->gacts);
    m->gacts = gacts;
    m->ga = ga;
    m->layers_kept = recompute ? 1 : m->cfg.n_layers;
    m->recompute = recompute != 0;
    m->slab_layer = -1;
    return 0;
}

int model_set_recompute(Model *m, int on, SrError *err)
{
    return model_resize(m, m->max_batch, m->max_T, on, err);
}

int model_create(Model *m, const ModelConfig *cfg, int max_batch, int max_T, SrError *err)
{
    ModelBuild how = {.max_batch = max_batch, .max_T = max_T};
    return model_build(m, cfg, &how, err);
}

void model_free(Model *m)
{
    if (!m->params_borrowed) free(m->params);
    if (m->matrices && m->matrices->release) m->matrices->release(m->matrices->state);
    free(m->grads);
    free(m->m1);
    free(m->m2);
    free(m->acts);
    free(m->gacts);
    memset(m, 0, sizeof *m);
}

int model_freeze_base(Model *m, int frozen, SrError *err)
{
    if (!frozen && m->matrices)
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
    point_param_views(&m->g, m->grads, &m->cfg, m->matrices != NULL);
    return 0;
}

const float *model_position_losses(const Model *m)
{
    return m->a.losses;
}

void model_zero_grad(Model *m)
{
    if (m->grads) fill_zero(m->grads, m->n_params);
}

void model_init_weights(Model *m, unsigned long long seed)
{
    Rng rng;
    rng_seed(&rng, seed);
    ParamViews views = m->p; /* param_slots points its slots at this copy's views */
    Slot s[PARAM_COUNT];
    param_slots(&m->cfg, m->matrices != NULL, &views, s);
    for (int id = 0; id < PARAM_COUNT; id++) {
        int is_norm = param_spec((ParamId)id)->norm;
        float *w = *s[id].view;
        for (size_t j = 0; j < s[id].n; j++) w[j] = is_norm ? 1.0f : 0.02f * rng_normal(&rng);
    }
}
