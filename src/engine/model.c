/* model.c — seqrep's model run forward and backward (model.h).
 *
 * Read top to bottom: where layer l's activations, positions, mask and
 * window are; where the matrix products read their weights; RePo's
 * positions and RoPE; LoRA on q, k and v; the forward pass (embedding, then
 * per layer attention and MLP sublayers, then the logits); the loss; and the
 * backward pass in exactly the reverse order of the forward. Where a
 * Hugging Face family differs, the plain path calls one of its hooks
 * (engine/families/family.h), which does the plain thing for seqrep's own
 * models. The buffers are laid out by model_buffers.c from tensors.h. */
#include "engine/model.h"

#include <string.h>

#include "engine/lora.h"
#include "engine/ops/ops.h"

/* ---- where layer l's activations and plans are ------------------------------ */

/* Floats of an activation slab of per_token floats for max_batch x max_T. */
static size_t slab(const Model *m, size_t per_token)
{
    return (size_t)m->max_batch * m->max_T * per_token;
}

/* Layer l's views of the activations: its input and output residual
 * streams, and the working slabs it uses (its own in a trainable model, the
 * one every layer shares in a forward-only model). */
static LayerActs layer_acts(const Model *m, int l)
{
    size_t kept = m->layers_kept == 1 ? 0 : (size_t)l;
    LayerActs x = tensor_layer_views(&m->a, &m->cfg, m->max_batch, m->max_T, kept);
    x.res = m->a.res + (size_t)l * slab(m, m->cfg.d_model);
    x.res_out = m->a.res + (size_t)(l + 1) * slab(m, m->cfg.d_model);
    return x;
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

/* How layer l's scores become probabilities (ops.h): the mask plan's kind,
 * the window plan's window (or the model's own), the scale 1/sqrt(hd) (a
 * family may set its own scale and a soft cap). */
static AttentionRule layer_rule(const Model *m, int l)
{
    const ModelConfig *c = &m->cfg;
    AttentionRule rule = attention_rule_plain(m->in.mask ? m->in.mask[l] : MASK_CAUSAL,
                                              model_head_dim(c));
    rule.window = m->in.window ? m->in.window[l] : family_window(&c->family, l);
    family_attention_rule(&c->family, &rule);
    return rule;
}

const float *model_hidden(const Model *m, int layer)
{
    return m->a.res + (size_t)layer * slab(m, m->cfg.d_model);
}

const float *model_attention(const Model *m, int layer)
{
    return layer_acts(m, layer).att;
}

/* Where a base weight's gradient goes: the gradient view g at offset (floats),
 * or NULL (not computed) when the base is frozen (Model.frozen_base) or its
 * gradients are freed (model_freeze_base). */
static float *base_grad(const Model *m, float *g, size_t offset)
{
    return m->frozen_base || !g ? NULL : g + offset;
}

/* ---- where the matrix products read their weights --------------------------- */

/* Matrix id of layer l (0 for the LM head) in the parameter-shaped views v
 * (m->p, or m->g for the gradients), NULL when v lacks it; its (rows, cols). */
static float *layer_matrix(const Model *m, const ParamViews *v, ParamId id, int l, int *rows,
                           int *cols)
{
    const ParamSpec *s = param_spec(id);
    Dims d = tensor_dims(&m->cfg, 0);
    *rows = (int)dim_value(&d, s->rows);
    *cols = (int)dim_value(&d, s->cols);
    float *base = *param_view((ParamViews *)v, id);
    return base ? base + (size_t)l * (size_t)*rows * (size_t)*cols : NULL;
}

/* out (N, rows) = inp (N, cols) . W^T for matrix id of layer l, on the
 * float32 weights or from the model's matrix source. */
static void layer_product(const Model *m, ParamId id, int l, float *out, const float *inp, int N)
{
    if (m->matrices) {
        m->matrices->product(m->matrices->state, id, l, out, inp, N);
        return;
    }
    int rows, cols;
    const float *w = layer_matrix(m, &m->p, id, l, &rows, &cols);
    matmul_forward(out, inp, w, N, cols, rows);
}

/* Backward of layer_product from dout: dinp += dout . W (dinp may be NULL)
 * and, for float32 weights not frozen, the weight's gradient. */
static void layer_product_back(Model *m, ParamId id, int l, float *dinp, const float *dout,
                               const float *inp, int N)
{
    if (m->matrices) {
        if (dinp) m->matrices->product_back(m->matrices->state, id, l, dinp, dout, N);
        return;
    }
    int rows, cols;
    const float *w = layer_matrix(m, &m->p, id, l, &rows, &cols);
    float *dw = base_grad(m, layer_matrix(m, &m->g, id, l, &rows, &cols), 0);
    matmul_backward(dinp, dw, dout, inp, w, N, cols, rows);
}

/* ---- positions: RePo's, and RoPE ------------------------------------------- */

/* RePo positions of layer l from its normalised input h = ln1 (N, C):
 * gc (N, 2P) = h W_gc^T; r (N, P) = silu(gate) * content; z (N, H) = r W_z^T. */
static void repo_forward(Model *m, int l, const LayerActs *x, int N)
{
    const ModelConfig *c = &m->cfg;
    int C = c->d_model, H = c->n_heads, P = model_repo_dim(c), k = l - c->repo_from;
    float *z = m->a.repo_z + (size_t)l * slab(m, H);
    matmul_forward(x->repo_gc, x->ln1, m->p.wgc + (size_t)k * 2 * P * C, N, C, 2 * P);
    swiglu_forward(x->repo_r, x->repo_gc, N, P);
    matmul_forward(z, x->repo_r, m->p.wz + (size_t)k * H * P, N, P, H);
}

/* Backward of repo_forward: from dz (N, H) into the RePo weights' gradients
 * and (accumulated) into dln1 (N, C). */
static void repo_backward(Model *m, int l, const LayerActs *x, const float *dz, float *dln1, int N)
{
    const ModelConfig *c = &m->cfg;
    int C = c->d_model, H = c->n_heads, P = model_repo_dim(c), k = l - c->repo_from;
    fill_zero(m->ga.dr, (size_t)N * P);
    matmul_backward(m->ga.dr, base_grad(m, m->g.wz, (size_t)k * H * P), dz, x->repo_r,
                    m->p.wz + (size_t)k * H * P, N, P, H);
    swiglu_backward(m->ga.dgc, m->ga.dr, x->repo_gc, N, P);
    matmul_backward(dln1, base_grad(m, m->g.wgc, (size_t)k * 2 * P * C), m->ga.dgc, x->ln1,
                    m->p.wgc + (size_t)k * 2 * P * C, N, C, 2 * P);
}

/* Integer positions (in->positions, or 0..T-1 in each row) as floats for the
 * RoPE layers: rope_pos (N, H), one per head (and the key heads' own when a
 * family has fewer of them). */
static void fill_rope_positions(Model *m, const ModelInput *in)
{
    int N = in->B * in->T, H = m->cfg.n_heads;
    for (int n = 0; n < N; n++) {
        float p = in->positions ? (float)in->positions[n] : (float)(n % in->T);
        for (int h = 0; h < H; h++) m->a.rope_pos[(size_t)n * H + h] = p;
    }
    HeadShape s = model_heads(&m->cfg);
    family_key_positions_fill(&m->cfg.family, &m->a.family, m->a.rope_pos, &s, N);
}

/* Rotate layer l's q and k heads in qkv (N, W) in place: q by pos (N, H), k
 * by the key heads' positions, with the layer's frequency table. */
static void rope_rotate(const Model *m, int l, float *qkv, const float *pos, int N)
{
    const ModelConfig *c = &m->cfg;
    HeadShape s = model_heads(c);
    const float *freq = family_rope_freq(&c->family, m->a.rope_freq, s.hd, l);
    const float *kpos = family_key_positions(&c->family, &m->a.family, pos, &s);
    rope_forward_freq(qkv, s.W, qkv, s.W, pos, freq, N, s.H, s.hd);
    rope_forward_freq(qkv + s.Q, s.W, qkv + s.Q, s.W, kpos, freq, N, s.KVH, s.hd);
}

/* Backward of rope_rotate: ga.dqrot (N, Q) and ga.dkrot (N, K) rotated back
 * into the q and k columns of ga.dqkv (N, W). dpos (N, H) collects the
 * gradient of real-valued or RePo positions, or is NULL. */
static void rope_rotate_back(Model *m, int l, const LayerActs *x, float *dpos, const float *pos,
                             int N)
{
    const ModelConfig *c = &m->cfg;
    HeadShape s = model_heads(c);
    const float *freq = family_rope_freq(&c->family, m->a.rope_freq, s.hd, l);
    const float *kpos = family_key_positions(&c->family, &m->a.family, pos, &s);
    const float *qrot = x->qkv, *krot = x->qkv + s.Q; /* rotated in place */
    rope_backward_freq(m->ga.dqkv, s.W, dpos, m->ga.dqrot, qrot, s.W, pos, freq, N, s.H, s.hd);
    rope_backward_freq(m->ga.dqkv + s.Q, s.W, dpos, m->ga.dkrot, krot, s.W, kpos, freq, N, s.KVH,
                       s.hd);
}

/* ---- forward ------------------------------------------------------------------ */

/* Layer l's attention of the last forward's input m->in from its residual
 * stream x->res (B, T, C): norm, RePo positions, q/k/v (with LoRA and the
 * family's hook), RoPE, and the attention by the layer's mask into x->att
 * (B, H, T, T) and, with want_output, x->atty (B, T, Q). */
static void attention_of_layer(Model *m, int l, const LayerActs *x, int want_output)
{
    const ModelConfig *c = &m->cfg;
    const ModelInput *in = &m->in;
    HeadShape s = model_heads(c);
    int N = in->B * in->T;
    rmsnorm_forward(x->ln1, x->ln1_rstd, x->res, m->p.ln1w + (size_t)l * s.C, c->norm_eps, N, s.C);
    if (model_layer_pos_kind(m, in, l) == POS_REPO) repo_forward(m, l, x, N);
    layer_product(m, PARAM_WQKV, l, x->qkv, x->ln1, N);
    if (m->lora) lora_forward_qkv(m->lora, l, x->ln1, x->qkv, N);
    family_qkv_forward(&c->family, &m->p.family, &x->family, l, &s, x->qkv, N);
    rope_rotate(m, l, x->qkv, layer_positions(m, l), N);
    AttentionRule rule = layer_rule(m, l);
    attention_forward_gqa(want_output ? x->atty : NULL, x->att, x->qkv, s.W, x->qkv + s.Q, s.W,
                          x->qkv + s.Q + s.K, s.W, in->lengths, &rule, in->B, in->T, s.H, s.KVH,
                          s.hd);
}

const float *model_layer_attention(Model *m, int layer, float *out, SrError *err)
{
    if (layer < 0 || layer >= m->n_run) {
        sr_fail(err, "layer %d was not run (the last forward ran layers 0..%d)", layer, m->n_run - 1);
        return NULL;
    }
    LayerActs x = layer_acts(m, layer);
    if (out) x.att = out;
    else m->slab_layer = -1; /* a shared slab now holds part of another layer */
    attention_of_layer(m, layer, &x, 0);
    return x.att;
}

/* The head plan of layer l on x (N, H*hd), the attention output or its
 * gradient: head h times scale[h] (H). */
static void scale_heads(float *x, const float *scale, int N, int H, int hd)
{
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < hd; i++) x[((size_t)n * H + h) * hd + i] *= scale[h];
}

/* The attention sublayer's end: the head plan, then o_proj of atty (N, Q)
 * plus LoRA, added to res into res_mid (N, C). */
static void attention_output(Model *m, int l, const LayerActs *x, int N)
{
    const ModelConfig *c = &m->cfg;
    HeadShape s = model_heads(c);
    if (m->in.head_scale) scale_heads(x->atty, m->in.head_scale + (size_t)l * s.H, N, s.H, s.hd);
    float *o = family_sublayer_target(&c->family, &x->family, FAMILY_ATTENTION, x->res_mid);
    layer_product(m, PARAM_WO, l, o, x->atty, N);
    if (m->lora) lora_forward(m->lora, l, LORA_O, x->atty, o, s.C, N);
    family_sublayer_forward(&c->family, &m->p.family, &x->family, FAMILY_ATTENTION, l, x->res_mid,
                            &s, N);
    residual_forward(x->res_mid, x->res, x->res_mid, (long)N * s.C);
}

/* The MLP sublayer: res_out (N, C) = res_mid + down(silu(gate) * up) of the
 * normalised res_mid (SwiGLU; a family may swap the activation). */
static void mlp_sublayer(Model *m, int l, const LayerActs *x, int N)
{
    const ModelConfig *c = &m->cfg;
    HeadShape s = model_heads(c);
    rmsnorm_forward(x->ln2, x->ln2_rstd, x->res_mid, m->p.ln2w + (size_t)l * s.C, c->norm_eps, N,
                    s.C);
    layer_product(m, PARAM_WGU, l, x->gu, x->ln2, N);
    family_gate_forward(&c->family, x->swi, x->gu, N, c->d_ff);
    float *o = family_sublayer_target(&c->family, &x->family, FAMILY_MLP, x->res_out);
    layer_product(m, PARAM_WDOWN, l, o, x->swi, N);
    family_sublayer_forward(&c->family, &m->p.family, &x->family, FAMILY_MLP, l, x->res_out, &s, N);
    residual_forward(x->res_out, x->res_mid, x->res_out, (long)N * s.C);
}

/* Layer l from its input res[l] into res[l+1]: attention, then the MLP. A
 * recomputing model's backward runs it again, the same operations in order. */
static void layer_forward(Model *m, int l)
{
    LayerActs x = layer_acts(m, l);
    int N = m->in.B * m->in.T;
    attention_of_layer(m, l, &x, 1);
    attention_output(m, l, &x, N);
    mlp_sublayer(m, l, &x, N);
    m->slab_layer = m->layers_kept == 1 ? l : -1;
}

/* The final norm and the LM head: the logits of every position
 * (LOGITS_ALL, (B, T, V)) or of each row's last one (LOGITS_LAST, (B, V)). */
static void logits_forward(Model *m, const ModelInput *in)
{
    const ModelConfig *c = &m->cfg;
    int C = c->d_model, N = in->B * in->T, rows = in->want_logits == LOGITS_LAST ? in->B : N;
    const float *top = model_hidden(m, m->n_run);
    if (rows == N) rmsnorm_forward(m->a.lnf, m->a.lnf_rstd, top, m->p.lnfw, c->norm_eps, N, C);
    for (int b = 0; rows < N && b < in->B; b++) { /* each row's last position alone */
        size_t t = (size_t)b * in->T + (in->lengths ? in->lengths[b] : in->T) - 1;
        rmsnorm_forward(m->a.lnf + (size_t)b * C, m->a.lnf_rstd + b, top + t * C, m->p.lnfw,
                        c->norm_eps, 1, C);
    }
    layer_product(m, PARAM_WLM, 0, m->a.logits, m->a.lnf, rows);
    family_logits_forward(&c->family, &m->a.family, m->a.logits, (long)rows * c->vocab_size);
}

/* embedding -> per layer: norm, q/k/v, RoPE, attention by the mask and
 * window plan, o_proj, residual, norm, SwiGLU, down, residual -> final norm
 * -> logits. */
int model_forward(Model *m, const ModelInput *in, SrError *err)
{
    if (input_check(in, &m->cfg, m->max_batch, m->max_T, m->lora, err)) return -1;
    if (m->lora && m->gacts && m->lora->layers_kept < m->layers_kept)
        return sr_fail(err, "the LoRA adapters keep one layer's inputs, the model every layer's");
    const ModelConfig *c = &m->cfg;
    int C = c->d_model, N = in->B * in->T;
    m->in = *in;
    m->n_run = in->n_run ? in->n_run : c->n_layers;
    fill_rope_positions(m, in);

    if (m->matrices) m->matrices->embed(m->matrices->state, m->a.res, in->ids, N);
    else embedding_forward(m->a.res, in->ids, m->p.wte, N, C);
    family_embed_forward(&c->family, m->a.res, (long)N * C);
    for (int l = 0; l < m->n_run; l++) {
        if (m->lora) lora_layer_begin(m->lora, l);
        layer_forward(m, l);
    }
    if (in->want_logits) logits_forward(m, in);
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

/* ---- backward ----------------------------------------------------------------- */

/* The gradients of the family's own tensors, or NULL when the base is frozen. */
static const FamilyParams *family_grads(const Model *m)
{
    return m->frozen_base || !m->grads ? NULL : &m->g.family;
}

/* Backward of mlp_sublayer: from dres = d res_out (N, C) into the MLP's
 * weights' gradients, with dres_below = d res_mid (N, C) (dres passed
 * through the residual, plus the norm's share). */
static void mlp_backward(Model *m, int l, const LayerActs *x, const float *dres, float *dres_below,
                         int N)
{
    const ModelConfig *c = &m->cfg;
    HeadShape s = model_heads(c);
    int C = c->d_model, F = c->d_ff;
    GradActViews *ga = &m->ga;
    fill_copy(dres_below, dres, (size_t)N * C);
    const float *dtop = family_sublayer_backward(&c->family, &m->p.family, family_grads(m),
                                                 &x->family, &ga->family, FAMILY_MLP, l, dres, &s,
                                                 N); /* gradient of the down projection's output */
    fill_zero(ga->dswi, (size_t)N * F);
    layer_product_back(m, PARAM_WDOWN, l, ga->dswi, dtop, x->swi, N);
    family_gate_backward(&c->family, ga->dgu, ga->dswi, x->gu, N, F);
    fill_zero(ga->dln, (size_t)N * C);
    layer_product_back(m, PARAM_WGU, l, ga->dln, ga->dgu, x->ln2, N);
    rmsnorm_backward(dres_below, base_grad(m, m->g.ln2w, (size_t)l * C), ga->dln, x->res_mid,
                     m->p.ln2w + (size_t)l * C, x->ln2_rstd, N, C);
}

/* Backward of attention_output from dres_mid (N, C): o_proj's and LoRA's
 * gradients, and d atty into ga.datty (N, Q), zeroed first, through the
 * head plan. */
static void attention_output_backward(Model *m, int l, const LayerActs *x, const float *dres_mid,
                                      int N)
{
    const ModelConfig *c = &m->cfg;
    HeadShape s = model_heads(c);
    GradActViews *ga = &m->ga;
    const float *dout = family_sublayer_backward(&c->family, &m->p.family, family_grads(m),
                                                 &x->family, &ga->family, FAMILY_ATTENTION, l,
                                                 dres_mid, &s, N); /* gradient of o_proj's output */
    fill_zero(ga->datty, (size_t)N * s.Q);
    layer_product_back(m, PARAM_WO, l, ga->datty, dout, x->atty, N);
    if (m->lora) lora_backward(m->lora, l, LORA_O, dout, s.C, ga->datty, N);
    if (m->in.head_scale) scale_heads(ga->datty, m->in.head_scale + (size_t)l * s.H, N, s.H, s.hd);
}

/* Backward of attention_of_layer from ga.datty, for layer l: q, k and v's
 * gradients (through RoPE and the family's hook, dpos collecting the
 * positions' own; learned_z: RePo's, whose weights then get theirs), then
 * into the weights and into dres_below (N, C) through the norm. */
static void attention_of_layer_backward(Model *m, int l, const LayerActs *x, float *dpos,
                                        int learned_z, float *dres_below)
{
    const ModelConfig *c = &m->cfg;
    const ModelInput *in = &m->in;
    HeadShape s = model_heads(c);
    int N = in->B * in->T;
    GradActViews *ga = &m->ga;
    fill_zero3(ga->dqrot, (size_t)N * s.Q, ga->dkrot, (size_t)N * s.K, ga->dqkv, (size_t)N * s.W);
    AttentionRule rule = layer_rule(m, l);
    attention_backward_gqa(ga->dqrot, ga->dkrot, ga->dqkv + s.Q + s.K, s.W, ga->datt, ga->datty,
                           x->qkv, s.W, x->qkv + s.Q, s.W, x->qkv + s.Q + s.K, x->att, in->lengths,
                           &rule, in->B, in->T, s.H, s.KVH, s.hd);
    rope_rotate_back(m, l, x, dpos, layer_positions(m, l), N);
    family_qkv_backward(&c->family, &m->p.family, family_grads(m), &x->family, &ga->family, l, &s,
                        ga->dqkv, N);
    fill_zero(ga->dln, (size_t)N * s.C);
    int want_dx = !(m->frozen_base && l == 0); /* frozen: nothing below layer 0 wants it */
    layer_product_back(m, PARAM_WQKV, l, want_dx ? ga->dln : NULL, ga->dqkv, x->ln1, N);
    if (m->lora) lora_backward_qkv(m->lora, l, ga->dqkv, ga->dln, N);
    if (learned_z) repo_backward(m, l, x, ga->dz, ga->dln, N);
    if (want_dx)
        rmsnorm_backward(dres_below, base_grad(m, m->g.ln1w, (size_t)l * s.C), ga->dln, x->res,
                         m->p.ln1w + (size_t)l * s.C, x->ln1_rstd, N, s.C);
}

/* Backward through layers n_run-1 .. 0 and the embedding, starting from
 * ga.dres = d loss / d res[n_run] (B, T, C). */
static void backward_layers(Model *m)
{
    const ModelConfig *c = &m->cfg;
    const ModelInput *in = &m->in;
    int C = c->d_model, H = c->n_heads, N = in->B * in->T;
    GradActViews *ga = &m->ga;
    float *dres = ga->dres, *dres_below = ga->dres2;

    for (int l = 0; l < m->n_run; l++)
        if (in->pos_kind && in->pos_kind[l] == POS_REAL)
            memset(ga->dreal_pos + (size_t)l * N * H, 0, (size_t)N * H * sizeof(float));

    for (int l = m->n_run - 1; l >= 0; l--) {
        if (m->recompute && m->slab_layer != l) { /* layer l again, the same dropout masks */
            Rng resume;
            if (m->lora) lora_layer_replay(m->lora, l, &resume);
            layer_forward(m, l);
            if (m->lora) lora_layer_replay_end(m->lora, &resume);
        }
        LayerActs x = layer_acts(m, l);
        PosKind kind = model_layer_pos_kind(m, in, l);
        int learned_z = kind == POS_REPO && !in->repo_force_index;
        float *dpos = kind == POS_REAL ? ga->dreal_pos + (size_t)l * N * H
                      : learned_z      ? ga->dz : NULL;
        if (learned_z) memset(ga->dz, 0, (size_t)N * H * sizeof(float));

        /* MLP sublayer, reversed; dres_below collects d res_mid */
        mlp_backward(m, l, &x, dres, dres_below, N);
        /* attention sublayer, reversed; dres_below then holds d res */
        attention_output_backward(m, l, &x, dres_below, N);
        attention_of_layer_backward(m, l, &x, dpos, learned_z, dres_below);

        float *swap = dres;
        dres = dres_below;
        dres_below = swap;
    }
    float *dwte = base_grad(m, m->g.wte, 0);
    if (!dwte) return;
    family_embed_backward(&c->family, dres, (long)N * C);
    embedding_backward(dwte, dres, in->ids, N, C);
}

void model_backward(Model *m, const int *targets, int ignore)
{
    const ModelConfig *c = &m->cfg;
    int N = m->in.B * m->in.T, C = c->d_model, V = c->vocab_size;
    float scale = m->counted > 0 ? 1.0f / (float)m->counted : 0.0f;
    /* logits hold the probabilities after model_lm_loss; turn them into dlogits in place */
    crossentropy_backward(m->a.logits, m->a.logits, targets, ignore, scale, N, V);
    family_logits_backward(&c->family, &m->a.family, m->a.logits, (long)N * V);
    fill_zero(m->ga.dln, (size_t)N * C);
    layer_product_back(m, PARAM_WLM, 0, m->ga.dln, m->a.logits, m->a.lnf, N);
    fill_zero(m->ga.dres, (size_t)N * C);
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
