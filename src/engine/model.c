/* model.c — the decoder run forward and backward (model.h).
 *
 * Read top to bottom: the configuration check; where layer l's activations
 * and positions are; the optional features, each a small function beside
 * the plain path (RePo positions; and for Hugging Face models grouped-query
 * attention, q/k/v biases, per-head q/k norms, scaled RoPE frequencies and
 * sliding windows, with the LoRA adapters a caller may attach); the forward
 * pass, whose sublayers carry the Gemma family's pieces (scaled embeddings,
 * norms after each sublayer, GeGLU, soft caps) on one line each; the loss;
 * and the backward pass in exactly the reverse order of the forward. The
 * buffers themselves are laid out and allocated by model_buffers.c. */
#include "engine/model.h"

#include <string.h>

#include "engine/lora.h"
#include "engine/ops/ops.h"

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
    if (c->sliding_window < 0 || (c->sliding_layers && c->sliding_window == 0))
        return sr_fail(err, "sliding_window must be positive for the sliding layers, got %d",
                       c->sliding_window);
    if (c->sliding_layers && c->n_layers < 64 && c->sliding_layers >> c->n_layers)
        return sr_fail(err, "sliding_layers names a layer beyond the model's %d", c->n_layers);
    if (!(c->embed_scale >= 0.0f) || !(c->attn_scale >= 0.0f) || !(c->attn_softcap >= 0.0f) ||
        !(c->logit_softcap >= 0.0f) || !(c->rope_local_theta >= 0.0f) ||
        !(c->rope_linear_factor >= 0.0f))
        return sr_fail(err, "embed_scale, attn_scale, the soft caps, rope_local_theta and "
                       "rope_linear_factor must be 0 (off) or positive");
    if (c->rope_llama3 && c->rope_linear_factor > 0.0f)
        return sr_fail(err, "llama3 and linear RoPE scaling cannot both be on");
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
           c->rope_llama3 || c->sliding_layers || c->embed_scale > 0.0f || c->gelu_mlp ||
           c->post_norms || c->attn_scale > 0.0f || c->attn_softcap > 0.0f ||
           c->logit_softcap > 0.0f || c->rope_local_theta > 0.0f || c->rope_linear_factor > 0.0f;
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

/* Which slab of the per-layer working activations layer l uses: its own, or
 * the one every layer of an inference model shares (model_create_inference). */
static size_t work_layer(const Model *m, int l)
{
    return m->inference ? 0 : (size_t)l;
}

/* Layer l's slabs of the activations (ActViews), each (B, T, width) or, for
 * att, (B, H, T, T); res_out is the next layer's res; attn_o .. mlp_o_rstd
 * only with cfg.post_norms (else they point at empty slabs). */
typedef struct {
    float *res, *ln1, *ln1_rstd, *qkv, *att, *atty, *res_mid, *ln2, *ln2_rstd, *gu,
        *swi, *res_out, *attn_o, *attn_o_rstd, *mlp_o, *mlp_o_rstd;
} LayerActs;

static LayerActs layer_acts(const Model *m, int l)
{
    const ModelConfig *c = &m->cfg;
    size_t w = work_layer(m, l);
    const ActViews *a = &m->a;
    size_t C = c->d_model, F = c->d_ff, Q = model_q_dim(c), K = model_kv_dim(c);
    return (LayerActs){
        .res = a->res + l * slab(m, C),
        .ln1 = a->ln1 + w * slab(m, C),
        .ln1_rstd = a->ln1_rstd + w * slab(m, 1),
        .qkv = a->qkv + w * slab(m, Q + 2 * K),
        .att = a->att + w * att_slab(m),
        .atty = a->atty + w * slab(m, Q),
        .res_mid = a->res_mid + w * slab(m, C),
        .ln2 = a->ln2 + w * slab(m, C),
        .ln2_rstd = a->ln2_rstd + w * slab(m, 1),
        .gu = a->gu + w * slab(m, 2 * F),
        .swi = a->swi + w * slab(m, F),
        .res_out = a->res + (l + 1) * slab(m, C),
        .attn_o = a->attn_o + w * slab(m, C),
        .attn_o_rstd = a->attn_o_rstd + w * slab(m, 1),
        .mlp_o = a->mlp_o + w * slab(m, C),
        .mlp_o_rstd = a->mlp_o_rstd + w * slab(m, 1),
    };
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

/* Layer l's sliding window for the last forward's input: its window plan,
 * or the model's own (cfg.sliding_window on cfg.sliding_layers); 0 = none. */
static int layer_window(const Model *m, int l)
{
    if (m->in.window) return m->in.window[l];
    return model_layer_slides(&m->cfg, l) ? m->cfg.sliding_window : 0;
}

/* How layer l's scores become probabilities (ops.h): its mask and window,
 * the model's score scale and soft cap. */
static AttentionRule layer_rule(const Model *m, int l)
{
    const ModelConfig *c = &m->cfg;
    AttentionRule rule = attention_rule_plain(layer_mask(m, l), model_head_dim(c));
    rule.window = layer_window(m, l);
    if (c->attn_scale > 0.0f) rule.scale = c->attn_scale;
    rule.softcap = c->attn_softcap;
    return rule;
}

const float *model_hidden(const Model *m, int layer)
{
    return m->a.res + (size_t)layer * slab(m, m->cfg.d_model);
}

const float *model_attention(const Model *m, int layer)
{
    return m->a.att + work_layer(m, layer) * att_slab(m);
}

/* Where a base weight's gradient goes: the gradient view g at offset (floats),
 * or NULL (not computed) when the base is frozen (Model.frozen_base) or its
 * gradients are freed (model_freeze_base). */
static float *base_grad(const Model *m, float *g, size_t offset)
{
    return m->frozen_base || !g ? NULL : g + offset;
}

/* ---- where the matrix products read their weights --------------------------- */

/* Layer l's float32 slab of product p in the parameter-shaped view v (m->p,
 * or m->g for the gradients), NULL when v lacks it; its (rows, cols). */
static float *layer_slab(const Model *m, const ParamViews *v, int l, LayerProduct p, int *rows,
                         int *cols)
{
    const ModelConfig *c = &m->cfg;
    size_t C = (size_t)c->d_model, F = (size_t)c->d_ff, Q = (size_t)model_q_dim(c);
    size_t W = Q + 2 * (size_t)model_kv_dim(c);
    size_t shapes[4][2] = {{W, C}, {C, Q}, {2 * F, C}, {C, F}};
    float *base[4] = {v->wqkv, v->wo, v->wgu, v->wdown};
    *rows = (int)shapes[p][0];
    *cols = (int)shapes[p][1];
    return base[p] ? base[p] + (size_t)l * shapes[p][0] * shapes[p][1] : NULL;
}

/* out = inp . W^T for product p of layer l (ops_stored.h gives the shapes),
 * on the float32 weights or the stored ones. */
static void layer_product(const Model *m, int l, LayerProduct p, float *out, const float *inp, int N)
{
    int rows, cols;
    const float *w = layer_slab(m, &m->p, l, p, &rows, &cols);
    if (m->stored)
        stored_layer_forward(m->stored, l, p, out, inp, N, m->stored_scratch, m->stored_threads);
    else
        matmul_forward(out, inp, w, N, cols, rows);
}

/* Backward of layer_product from dout: dinp += dout . W (dinp may be NULL)
 * and, for float32 weights not frozen, the weight's gradient. */
static void layer_product_back(Model *m, int l, LayerProduct p, float *dinp, const float *dout,
                               const float *inp, int N)
{
    int rows, cols;
    const float *w = layer_slab(m, &m->p, l, p, &rows, &cols);
    if (m->stored) {
        if (dinp)
            stored_layer_backward(m->stored, l, p, dinp, dout, N, m->stored_scratch,
                                  m->stored_threads);
        return;
    }
    float *dw = base_grad(m, layer_slab(m, &m->g, l, p, &rows, &cols), 0);
    matmul_backward(dinp, dw, dout, inp, w, N, cols, rows);
}

/* The LM head: logits (N, V) = x (N, C) . W^T; backward (dlogits given)
 * dx += dlogits . W and the weight's gradient unless frozen. */
static void lm_head(const Model *m, float *logits, const float *x, int N)
{
    const ModelConfig *c = &m->cfg;
    if (m->stored)
        stored_matmul_forward(logits, c->vocab_size, x, m->stored->lm_head, m->stored->type, N,
                              c->d_model, c->vocab_size, m->stored_scratch, m->stored_threads);
    else
        matmul_forward(logits, x, m->p.wlm, N, c->d_model, c->vocab_size);
}

static void lm_head_back(Model *m, float *dx, const float *dlogits, const float *x, int N)
{
    const ModelConfig *c = &m->cfg;
    if (m->stored)
        stored_matmul_backward(dx, dlogits, c->vocab_size, m->stored->lm_head, m->stored->type, N,
                               c->d_model, c->vocab_size, m->stored_scratch, m->stored_threads);
    else
        matmul_backward(dx, base_grad(m, m->g.wlm, 0), dlogits, x, m->p.wlm, N, c->d_model,
                        c->vocab_size);
}

/* ---- optional features, forward and backward side by side ------------------ */

/* RePo positions of layer l from its normalised input h = ln1 (N, C):
 * gc (N, 2P) = h W_gc^T; r (N, P) = silu(gate) * content; z (N, H) = r W_z^T. */
static void repo_forward(Model *m, int l, const float *ln1, int N)
{
    const ModelConfig *c = &m->cfg;
    int C = c->d_model, H = c->n_heads, P = model_repo_dim(c), k = l - c->repo_from;
    float *gc = m->a.repo_gc + work_layer(m, l) * slab(m, 2 * P);
    float *r = m->a.repo_r + work_layer(m, l) * slab(m, P), *z = m->a.repo_z + l * slab(m, H);
    matmul_forward(gc, ln1, m->p.wgc + (size_t)k * 2 * P * C, N, C, 2 * P);
    swiglu_forward(r, gc, N, P);
    matmul_forward(z, r, m->p.wz + (size_t)k * H * P, N, P, H);
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

/* Integer positions (in->positions, or 0..T-1 in each row) as floats for the
 * RoPE layers: rope_pos (N, H), one per query head, and with grouped-query
 * attention (KVH != H) rope_pos_kv (N, KVH), one per key head. */
static void fill_rope_positions(Model *m, const ModelInput *in)
{
    int N = in->B * in->T, H = m->cfg.n_heads, KVH = model_kv_heads(&m->cfg);
    for (int n = 0; n < N; n++) {
        float p = in->positions ? (float)in->positions[n] : (float)(n % in->T);
        for (int h = 0; h < H; h++) m->a.rope_pos[(size_t)n * H + h] = p;
        if (KVH != H)
            for (int h = 0; h < KVH; h++) m->a.rope_pos_kv[(size_t)n * KVH + h] = p;
    }
}

/* Grouped-query attention: the key positions for the query positions pos,
 * pos itself (B, T, H) when KVH == H or the layer rotates nothing; otherwise
 * the integer positions per key head (B, T, KVH) (check_input allows only
 * integer positions then). */
static const float *gqa_key_positions(const Model *m, const float *pos)
{
    if (!pos || model_kv_heads(&m->cfg) == m->cfg.n_heads) return pos;
    return m->a.rope_pos_kv;
}

/* Layer l's RoPE frequency table (hd/2), or NULL for theta's own: the
 * sliding layers' base (cfg.rope_local_theta), or the scaled frequencies of
 * the other layers (cfg.rope_llama3 or cfg.rope_linear_factor). */
static const float *layer_inv_freq(const Model *m, int l)
{
    const ModelConfig *c = &m->cfg;
    if (c->rope_local_theta > 0.0f && model_layer_slides(c, l)) return m->a.inv_freq_local;
    if (c->rope_llama3 || c->rope_linear_factor > 0.0f) return m->a.inv_freq;
    return NULL;
}

/* Rotate n_heads heads of hd values of the rows x (stride `stride`) in
 * place by pos (N, n_heads), with layer l's frequencies. */
static void rope_rotate(const Model *m, int l, float *x, int stride, const float *pos, int N,
                        int n_heads, int hd)
{
    const float *freq = layer_inv_freq(m, l);
    if (freq)
        rope_forward_freq(x, stride, x, stride, pos, freq, N, n_heads, hd);
    else
        rope_forward(x, stride, x, stride, pos, m->cfg.rope_theta, N, n_heads, hd);
}

/* Backward of layer l's two rope_rotate calls: ga.dqrot (N, Q) and ga.dkrot
 * (N, K) rotated back into dqkv (N, Q+2K), or, when per-head q/k norms sit
 * between (cfg.qk_norm), into ga.dqk (N, Q+K), zeroed first. dpos (N, H)
 * collects the gradient of real-valued or RePo positions, or is NULL. */
static void rope_rotate_back(Model *m, int l, float *dpos, const float *pos, int N)
{
    const ModelConfig *c = &m->cfg;
    int H = c->n_heads, KVH = model_kv_heads(c), hd = model_head_dim(c);
    int Q = model_q_dim(c), K = model_kv_dim(c);
    const float *qrot = layer_acts(m, l).qkv, *krot = qrot + Q; /* rotated in place */
    const float *kpos = gqa_key_positions(m, pos);
    float *dq = m->ga.dqkv;
    int stride = Q + 2 * K, W = Q + 2 * K;
    if (c->qk_norm) {
        dq = m->ga.dqk;
        stride = Q + K;
        memset(dq, 0, (size_t)N * stride * sizeof(float));
    }
    const float *freq = layer_inv_freq(m, l);
    if (freq) {
        rope_backward_freq(dq, stride, dpos, m->ga.dqrot, qrot, W, pos, freq, N, H, hd);
        rope_backward_freq(dq + Q, stride, dpos, m->ga.dkrot, krot, W, kpos, freq, N, KVH, hd);
    } else {
        rope_backward(dq, stride, dpos, m->ga.dqrot, qrot, W, pos, c->rope_theta, N, H, hd);
        rope_backward(dq + Q, stride, dpos, m->ga.dkrot, krot, W, kpos, c->rope_theta, N, KVH,
                      hd);
    }
}

/* q/k/v biases (Qwen2): layer l's bias (Q+2K) added to every row of qkv (N, Q+2K). */
static void qkv_bias_forward(const Model *m, int l, float *qkv, int N)
{
    int W = model_q_dim(&m->cfg) + 2 * model_kv_dim(&m->cfg);
    const float *bias = m->p.bqkv + (size_t)l * W;
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++)
        for (int j = 0; j < W; j++) qkv[(size_t)n * W + j] += bias[j];
}

/* Backward of qkv_bias_forward: the bias gradient (Q+2K) += the column sums
 * of ga.dqkv (N, Q+2K), rows in order. */
static void qkv_bias_backward(Model *m, int l, int N)
{
    int W = model_q_dim(&m->cfg) + 2 * model_kv_dim(&m->cfg);
    float *dbias = base_grad(m, m->g.bqkv, (size_t)l * W);
    if (!dbias) return;
#pragma omp parallel for schedule(static)
    for (int j = 0; j < W; j++) {
        float sum = 0.0f;
        for (int n = 0; n < N; n++) sum += m->ga.dqkv[(size_t)n * W + j];
        dbias[j] += sum;
    }
}

/* Per-head q/k norms (Qwen3): layer l's q and k in qkv (N, Q+2K) normalised
 * head by head with q_norm and k_norm, their values before the norm kept in
 * qk_pre[l] (N, Q+K) and the norm's rstd in qk_rstd[l] (N, H+KVH) for the
 * backward. */
static void qk_norm_forward(const Model *m, int l, float *qkv, int N)
{
    const ModelConfig *c = &m->cfg;
    int H = c->n_heads, KVH = model_kv_heads(c), hd = model_head_dim(c);
    int Q = model_q_dim(c), K = model_kv_dim(c), W = Q + 2 * K;
    float *pre = m->a.qk_pre + work_layer(m, l) * slab(m, Q + K);
    float *rstd = m->a.qk_rstd + work_layer(m, l) * slab(m, H + KVH);
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++)
        memcpy(pre + (size_t)n * (Q + K), qkv + (size_t)n * W, (size_t)(Q + K) * sizeof(float));
    rmsnorm_heads_forward(qkv, W, rstd, m->p.qnw + (size_t)l * hd, c->norm_eps, N, H, hd);
    rmsnorm_heads_forward(qkv + Q, W, rstd + (size_t)N * H, m->p.knw + (size_t)l * hd,
                          c->norm_eps, N, KVH, hd);
}

/* Backward of qk_norm_forward: from ga.dqk (N, Q+K), the gradient of q and k
 * after their norms, into ga.dqkv (N, Q+2K) and the norm weights' gradients. */
static void qk_norm_backward(Model *m, int l, int N)
{
    const ModelConfig *c = &m->cfg;
    int H = c->n_heads, KVH = model_kv_heads(c), hd = model_head_dim(c);
    int Q = model_q_dim(c), K = model_kv_dim(c), W = Q + 2 * K;
    const float *pre = m->a.qk_pre + l * slab(m, Q + K);
    const float *rstd = m->a.qk_rstd + l * slab(m, H + KVH);
    rmsnorm_heads_backward(m->ga.dqkv, W, base_grad(m, m->g.qnw, (size_t)l * hd), m->ga.dqk,
                           Q + K, pre, Q + K, m->p.qnw + (size_t)l * hd, rstd, N, H, hd);
    rmsnorm_heads_backward(m->ga.dqkv + Q, W, base_grad(m, m->g.knw, (size_t)l * hd),
                           m->ga.dqk + Q, Q + K, pre + Q, Q + K, m->p.knw + (size_t)l * hd,
                           rstd + (size_t)N * H, N, KVH, hd);
}

/* Column where the q, k or v projection starts in a row of qkv (Q+2K wide). */
static size_t qkv_offset(const ModelConfig *c, LoraTarget t)
{
    return t == LORA_Q ? 0 : t == LORA_K ? (size_t)model_q_dim(c)
                                         : (size_t)model_q_dim(c) + (size_t)model_kv_dim(c);
}

/* LoRA on the q, k and v projections of layer l: each adapter's update of
 * ln1 (N, C) added to its columns of qkv (N, Q+2K). */
static void lora_qkv_forward(const Model *m, int l, const float *ln1, float *qkv, int N)
{
    int W = model_q_dim(&m->cfg) + 2 * model_kv_dim(&m->cfg);
    for (int t = LORA_Q; t <= LORA_V; t++)
        lora_forward(m->lora, l, (LoraTarget)t, ln1, qkv + qkv_offset(&m->cfg, (LoraTarget)t), W, N);
}

/* Backward of lora_qkv_forward from ga.dqkv: the adapters' gradients, and
 * their share of d ln1 added into dln (N, C). */
static void lora_qkv_backward(Model *m, int l, float *dln, int N)
{
    int W = model_q_dim(&m->cfg) + 2 * model_kv_dim(&m->cfg);
    for (int t = LORA_Q; t <= LORA_V; t++)
        lora_backward(m->lora, l, (LoraTarget)t, m->ga.dqkv + qkv_offset(&m->cfg, (LoraTarget)t), W,
                      dln, N);
}

/* ---- forward ------------------------------------------------------------------ */

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
    if (in->window)
        for (int l = 0; l < c->n_layers; l++)
            if (in->window[l] < 0)
                return sr_fail(err, "layer %d: window %d is negative", l, in->window[l]);
    if (in->want_logits < LOGITS_NONE || in->want_logits > LOGITS_LAST)
        return sr_fail(err, "want_logits %d is not one of 0, 1, 2", in->want_logits);
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

/* Layer l's attention of the last forward's input m->in from its residual
 * stream x->res (B, T, C): norm, RePo positions, q/k/v (with LoRA, biases,
 * q/k norms), RoPE, and the attention by the layer's mask into x->att
 * (B, H, T, T) and, with want_output, x->atty (B, T, Q). */
static void attention_of_layer(Model *m, int l, const LayerActs *x, int want_output)
{
    const ModelConfig *c = &m->cfg;
    const ModelInput *in = &m->in;
    int B = in->B, T = in->T, C = c->d_model, H = c->n_heads, hd = model_head_dim(c);
    int KVH = model_kv_heads(c), Q = model_q_dim(c), K = model_kv_dim(c), W = Q + 2 * K;
    int N = B * T;
    rmsnorm_forward(x->ln1, x->ln1_rstd, x->res, m->p.ln1w + (size_t)l * C, c->norm_eps, N, C);
    if (model_layer_pos_kind(m, in, l) == POS_REPO) repo_forward(m, l, x->ln1, N);
    const float *pos = layer_positions(m, l);
    layer_product(m, l, LAYER_QKV, x->qkv, x->ln1, N);
    if (m->lora) lora_qkv_forward(m, l, x->ln1, x->qkv, N);
    if (c->qkv_bias) qkv_bias_forward(m, l, x->qkv, N);
    if (c->qk_norm) qk_norm_forward(m, l, x->qkv, N);
    rope_rotate(m, l, x->qkv, W, pos, N, H, hd);
    rope_rotate(m, l, x->qkv + Q, W, gqa_key_positions(m, pos), N, KVH, hd);
    AttentionRule rule = layer_rule(m, l);
    attention_forward_gqa(want_output ? x->atty : NULL, x->att, x->qkv, W, x->qkv + Q, W,
                          x->qkv + Q + K, W, in->lengths, &rule, B, T, H, KVH, hd);
}

const float *model_layer_attention(Model *m, int layer, float *out, SrError *err)
{
    if (layer < 0 || layer >= m->n_run) {
        sr_fail(err, "layer %d was not run (the last forward ran layers 0..%d)", layer, m->n_run - 1);
        return NULL;
    }
    LayerActs x = layer_acts(m, layer);
    if (out) x.att = out;
    attention_of_layer(m, layer, &x, 0);
    return x.att;
}

/* The attention sublayer's end: o_proj of atty (N, Q) plus LoRA, through
 * its own norm with cfg.post_norms, added to res into res_mid (N, C). */
static void attention_output(Model *m, int l, const LayerActs *x, int N)
{
    const ModelConfig *c = &m->cfg;
    int C = c->d_model;
    float *o = c->post_norms ? x->attn_o : x->res_mid;
    layer_product(m, l, LAYER_O, o, x->atty, N);
    if (m->lora) lora_forward(m->lora, l, LORA_O, x->atty, o, C, N);
    if (c->post_norms)
        rmsnorm_forward(x->res_mid, x->attn_o_rstd, x->attn_o, m->p.panw + (size_t)l * C,
                        c->norm_eps, N, C);
    residual_forward(x->res_mid, x->res, x->res_mid, (long)N * C);
}

/* The MLP sublayer: res_out (N, C) = res_mid + down(act(gate) * up) of the
 * normalised res_mid, act = silu (SwiGLU) or gelu_tanh (GeGLU), the
 * down projection through its own norm with cfg.post_norms. */
static void mlp_sublayer(Model *m, int l, const LayerActs *x, int N)
{
    const ModelConfig *c = &m->cfg;
    int C = c->d_model, F = c->d_ff;
    rmsnorm_forward(x->ln2, x->ln2_rstd, x->res_mid, m->p.ln2w + (size_t)l * C, c->norm_eps, N, C);
    layer_product(m, l, LAYER_GU, x->gu, x->ln2, N);
    if (c->gelu_mlp)
        geglu_forward(x->swi, x->gu, N, F);
    else
        swiglu_forward(x->swi, x->gu, N, F);
    float *o = c->post_norms ? x->mlp_o : x->res_out;
    layer_product(m, l, LAYER_DOWN, o, x->swi, N);
    if (c->post_norms)
        rmsnorm_forward(x->res_out, x->mlp_o_rstd, x->mlp_o, m->p.pfnw + (size_t)l * C,
                        c->norm_eps, N, C);
    residual_forward(x->res_out, x->res_mid, x->res_out, (long)N * C);
}

/* x (n) *= s: the embedding scale of the forward (Gemma) and of its gradient. */
static void scale_values(float *x, float s, long n)
{
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) x[i] *= s;
}

/* embedding (scaled with cfg.embed_scale) -> per layer: norm, q/k/v, RoPE,
 * attention by the mask and window plan, o_proj (normed), residual, norm,
 * SwiGLU or GeGLU, down (normed), residual -> final norm -> logits (capped
 * with cfg.logit_softcap). */
int model_forward(Model *m, const ModelInput *in, SrError *err)
{
    if (check_input(m, in, err)) return -1;
    const ModelConfig *c = &m->cfg;
    int C = c->d_model, N = in->B * in->T;
    m->in = *in;
    m->n_run = in->n_run ? in->n_run : c->n_layers;
    fill_rope_positions(m, in);

    if (m->stored) stored_embedding(m->a.res, in->ids, m->stored->embed, m->stored->type, N, C);
    else embedding_forward(m->a.res, in->ids, m->p.wte, N, C);
    if (c->embed_scale > 0.0f) scale_values(m->a.res, c->embed_scale, (long)N * C);
    for (int l = 0; l < m->n_run; l++) {
        LayerActs x = layer_acts(m, l);
        attention_of_layer(m, l, &x, 1);
        attention_output(m, l, &x, N);
        mlp_sublayer(m, l, &x, N);
    }
    if (in->want_logits) {
        int rows = in->want_logits == LOGITS_LAST ? in->B : N;
        long NV = (long)rows * c->vocab_size;
        const float *top = model_hidden(m, m->n_run);
        if (rows == N) rmsnorm_forward(m->a.lnf, m->a.lnf_rstd, top, m->p.lnfw, c->norm_eps, N, C);
        for (int b = 0; rows < N && b < in->B; b++) { /* each row's last position alone */
            size_t t = (size_t)b * in->T + (in->lengths ? in->lengths[b] : in->T) - 1;
            rmsnorm_forward(m->a.lnf + (size_t)b * C, m->a.lnf_rstd + b, top + t * C, m->p.lnfw,
                            c->norm_eps, 1, C);
        }
        lm_head(m, m->a.logits, m->a.lnf, rows);
        if (c->logit_softcap > 0.0f) {
            softcap_forward(m->a.logits, c->logit_softcap, NV);
            if (!m->inference) memcpy(m->a.capped, m->a.logits, (size_t)NV * sizeof(float));
        }
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

const float *model_position_losses(const Model *m)
{
    return m->a.losses;
}

void model_zero_grad(Model *m)
{
    if (m->grads) memset(m->grads, 0, m->n_params * sizeof(float));
}

/* ---- backward ----------------------------------------------------------------- */

/* Backward of a sublayer output's own norm (cfg.post_norms) of layer l,
 * weights w and gradients g (views of (L, C)), from dy (N, C) at its output
 * and its saved input x (N, C) and rstd (N): the weights' gradient, and
 * d x into ga.dpost (N, C), which is returned. */
static const float *post_norm_backward(Model *m, const float *w, float *g, int l, const float *dy,
                                       const float *x, const float *rstd, int N)
{
    int C = m->cfg.d_model;
    memset(m->ga.dpost, 0, (size_t)N * C * sizeof(float));
    rmsnorm_backward(m->ga.dpost, base_grad(m, g, (size_t)l * C), dy, x, w + (size_t)l * C, rstd,
                     N, C);
    return m->ga.dpost;
}

/* Backward of mlp_sublayer: from dres = d res_out (N, C) into the MLP's
 * weights' gradients, with dres_below = d res_mid (N, C) (dres passed
 * through the residual, plus the norm's share). */
static void mlp_backward(Model *m, int l, const LayerActs *x, const float *dres, float *dres_below,
                         int N)
{
    const ModelConfig *c = &m->cfg;
    int C = c->d_model, F = c->d_ff;
    GradActViews *ga = &m->ga;
    memcpy(dres_below, dres, (size_t)N * C * sizeof(float));
    /* gradient of the down projection's output */
    const float *dtop = c->post_norms ? post_norm_backward(m, m->p.pfnw, m->g.pfnw, l, dres,
                                                           x->mlp_o, x->mlp_o_rstd, N)
                                      : dres;
    memset(ga->dswi, 0, (size_t)N * F * sizeof(float));
    layer_product_back(m, l, LAYER_DOWN, ga->dswi, dtop, x->swi, N);
    memset(ga->dgu, 0, (size_t)N * 2 * F * sizeof(float));
    if (c->gelu_mlp)
        geglu_backward(ga->dgu, ga->dswi, x->gu, N, F);
    else
        swiglu_backward(ga->dgu, ga->dswi, x->gu, N, F);
    memset(ga->dln, 0, (size_t)N * C * sizeof(float));
    layer_product_back(m, l, LAYER_GU, ga->dln, ga->dgu, x->ln2, N);
    rmsnorm_backward(dres_below, base_grad(m, m->g.ln2w, (size_t)l * C), ga->dln, x->res_mid,
                     m->p.ln2w + (size_t)l * C, x->ln2_rstd, N, C);
}

/* Backward of attention_output from dres_mid (N, C): o_proj's and LoRA's
 * gradients, and d atty into ga.datty (N, Q), zeroed first. */
static void attention_output_backward(Model *m, int l, const LayerActs *x, const float *dres_mid,
                                      int N)
{
    const ModelConfig *c = &m->cfg;
    int C = c->d_model, Q = model_q_dim(c);
    GradActViews *ga = &m->ga;
    /* gradient of o_proj's output */
    const float *dout = c->post_norms ? post_norm_backward(m, m->p.panw, m->g.panw, l, dres_mid,
                                                           x->attn_o, x->attn_o_rstd, N)
                                      : dres_mid;
    memset(ga->datty, 0, (size_t)N * Q * sizeof(float));
    layer_product_back(m, l, LAYER_O, ga->datty, dout, x->atty, N);
    if (m->lora) lora_backward(m->lora, l, LORA_O, dout, C, ga->datty, N);
}

/* Backward through layers n_run-1 .. 0 and the embedding, starting from
 * ga.dres = d loss / d res[n_run] (B, T, C). */
static void backward_layers(Model *m)
{
    const ModelConfig *c = &m->cfg;
    const ModelInput *in = &m->in;
    int B = in->B, T = in->T, C = c->d_model, H = c->n_heads, hd = model_head_dim(c);
    int KVH = model_kv_heads(c), Q = model_q_dim(c), K = model_kv_dim(c), W = Q + 2 * K;
    int N = B * T;
    GradActViews *ga = &m->ga;
    float *dres = ga->dres, *dres_below = ga->dres2;

    for (int l = 0; l < m->n_run; l++)
        if (in->pos_kind && in->pos_kind[l] == POS_REAL)
            memset(ga->dreal_pos + (size_t)l * N * H, 0, (size_t)N * H * sizeof(float));

    for (int l = m->n_run - 1; l >= 0; l--) {
        LayerActs x = layer_acts(m, l);
        const float *pos = layer_positions(m, l);
        PosKind kind = model_layer_pos_kind(m, in, l);
        int learned_z = kind == POS_REPO && !in->repo_force_index;
        float *dpos = kind == POS_REAL ? ga->dreal_pos + (size_t)l * N * H
                      : learned_z      ? ga->dz : NULL;
        if (learned_z) memset(ga->dz, 0, (size_t)N * H * sizeof(float));

        /* MLP sublayer, reversed; dres_below collects d res_mid */
        mlp_backward(m, l, &x, dres, dres_below, N);

        /* attention sublayer, reversed; dres_below then holds d res */
        attention_output_backward(m, l, &x, dres_below, N);
        memset(ga->dqrot, 0, (size_t)N * Q * sizeof(float));
        memset(ga->dkrot, 0, (size_t)N * K * sizeof(float));
        memset(ga->dqkv, 0, (size_t)N * W * sizeof(float));
        AttentionRule rule = layer_rule(m, l);
        attention_backward_gqa(ga->dqrot, ga->dkrot, ga->dqkv + Q + K, W, ga->datt, ga->datty,
                               x.qkv, W, x.qkv + Q, W, x.qkv + Q + K, x.att, in->lengths, &rule,
                               B, T, H, KVH, hd);
        rope_rotate_back(m, l, dpos, pos, N);
        if (c->qk_norm) qk_norm_backward(m, l, N);
        if (c->qkv_bias) qkv_bias_backward(m, l, N);
        memset(ga->dln, 0, (size_t)N * C * sizeof(float));
        /* frozen base: nothing below layer 0 wants the gradient of its input */
        int want_dx = !(m->frozen_base && l == 0);
        layer_product_back(m, l, LAYER_QKV, want_dx ? ga->dln : NULL, ga->dqkv, x.ln1, N);
        if (m->lora) lora_qkv_backward(m, l, ga->dln, N);
        if (learned_z) repo_backward(m, l, x.ln1, ga->dz, ga->dln, N);
        if (want_dx)
            rmsnorm_backward(dres_below, base_grad(m, m->g.ln1w, (size_t)l * C), ga->dln, x.res,
                             m->p.ln1w + (size_t)l * C, x.ln1_rstd, N, C);

        float *swap = dres;
        dres = dres_below;
        dres_below = swap;
    }
    float *dwte = base_grad(m, m->g.wte, 0);
    if (dwte && c->embed_scale > 0.0f) scale_values(dres, c->embed_scale, (long)N * C);
    if (dwte) embedding_backward(dwte, dres, in->ids, N, C);
}

void model_backward(Model *m, const int *targets, int ignore)
{
    const ModelConfig *c = &m->cfg;
    int N = m->in.B * m->in.T, C = c->d_model, V = c->vocab_size;
    float scale = m->counted > 0 ? 1.0f / (float)m->counted : 0.0f;
    /* logits hold the probabilities after model_lm_loss; turn them into dlogits in place */
    crossentropy_backward(m->a.logits, m->a.logits, targets, ignore, scale, N, V);
    if (c->logit_softcap > 0.0f) softcap_backward(m->a.logits, m->a.capped, c->logit_softcap, (long)N * V);
    memset(m->ga.dln, 0, (size_t)N * C * sizeof(float));
    lm_head_back(m, m->ga.dln, m->a.logits, m->a.lnf, N);
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
