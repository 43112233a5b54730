/* family.h — what a Hugging Face model family changes in seqrep's plain
 * model (engine/model.h), kept out of the lesson.
 *
 * seqrep's own models are the plain Llama shape. Llama 3, Mistral, Qwen 2
 * and 3 and the three Gemmas differ from it in a few places, and each place
 * is one hook here that the plain forward and backward call; for a plain
 * model every hook does what the plain model does (or nothing), bit for bit:
 *
 *   shapes      grouped-query attention (KVH key/value heads), a head size
 *               apart from C / H                             family_shape
 *   embedding   embeddings times sqrt(C) (Gemma)            family_embed_*
 *   q, k, v     biases (Qwen 2), per-head RMSNorm (Qwen 3)   family_qkv_*
 *   positions   the key heads' positions (GQA), RoPE frequencies scaled
 *               (Llama 3.1, linear) or from a second base on the sliding
 *               layers (Gemma 3)                family_key_positions, family_rope_*
 *   scores      a score scale and soft cap (Gemma 2 and 3), the model's own
 *               sliding windows (Mistral, Qwen, Gemma)  family_attention_rule,
 *                                                       family_window
 *   sublayers   an RMSNorm on each sublayer's output before the residual
 *               add (Gemma 2 and 3)                      family_sublayer_*
 *   MLP         GeGLU instead of SwiGLU (Gemma)          family_gate_*
 *   logits      a soft cap on the final logits (Gemma 2) family_logits_*
 *
 * The family's tensors (FamilyParams) sit in the model's one parameter
 * buffer, its activations (FamilyActs, FamilyLayerActs) and backward scratch
 * (FamilyGrads) in the model's others; engine/tensors.h lists them with the
 * plain ones. Every field is 0 (NULL) in seqrep's own models. */
#ifndef SEQREP_FAMILY_H
#define SEQREP_FAMILY_H

#include "base/status.h"
#include "engine/ops/ops.h"

/* A family's configuration: ModelConfig.family. All 0: the plain model. */
typedef struct {
    int n_kv_heads;   /* KVH, key/value heads (grouped-query attention, dividing H); 0 = H */
    int head_dim;     /* hd when it is not C / H (Qwen3, Gemma); 0 = C / H */
    int qkv_bias;     /* 1: q, k and v projections add a bias (Qwen2) */
    int qk_norm;      /* 1: per-head RMSNorm of q and k before RoPE (Qwen3) */
    int rope_llama3;  /* 1: Llama 3.1 frequency scaling with the four fields below */
    float rope_factor, rope_low_freq_factor, rope_high_freq_factor;
    int rope_original_max_pos;
    /* The model's own sliding windows (Mistral, Qwen, Gemma 2 and 3): the
     * layers of sliding_layers (bit l: layer l, layers 0..63) see only the
     * last sliding_window keys, unless the input's window plan says
     * otherwise. 0 and 0 = none. */
    int sliding_window;
    unsigned long long sliding_layers;
    float embed_scale;     /* > 0: embeddings times this (Gemma: sqrt(C)); the tied
                              LM head uses the unscaled matrix */
    int gelu_mlp;          /* 1: GeGLU, gelu_tanh(gate) * up, instead of SwiGLU */
    int post_norms;        /* 1: RMSNorm on the attention and the MLP outputs before
                              each residual add (Gemma 2 and 3: four norms a layer) */
    float attn_scale;      /* > 0: scores scaled by this instead of 1/sqrt(hd)
                              (query_pre_attn_scalar^-1/2) */
    float attn_softcap;    /* > 0: scores = cap * tanh(scores / cap) (Gemma 2) */
    float logit_softcap;   /* > 0: logits = cap * tanh(logits / cap) (Gemma 2) */
    float rope_local_theta;   /* > 0: the RoPE base of the sliding layers (Gemma 3) */
    float rope_linear_factor; /* > 0: the other layers' frequencies divided by it
                                 (rope_type "linear", Gemma 3) */
    int norm_plus_one;     /* 1: the files store each norm weight as w and the model
                              holds 1 + w (Gemma): the loader adds the one, so the
                              computation never reads this */
} ModelFamily;

/* The widths of a model's attention: C the model's, H query heads, KVH
 * key/value heads, hd the head size, Q = H*hd, K = KVH*hd, W = Q + 2K the
 * fused q/k/v row; eps the RMSNorm epsilon. For a plain model KVH = H,
 * hd = C / H and Q = K = C. */
typedef struct {
    int C, H, KVH, hd, Q, K, W;
    float eps;
} HeadShape;

/* The family's tensors, stacked over layers like the plain ones (views into
 * the model's parameter buffer, or its gradients); NULL where the family has none. */
typedef struct {
    float *bqkv;  /* (L, Q+2K)  self_attn.{q,k,v}_proj.bias, with qkv_bias */
    float *qnw;   /* (L, hd)    self_attn.q_norm, with qk_norm */
    float *knw;   /* (L, hd)    self_attn.k_norm, with qk_norm */
    float *panw;  /* (L, C)     the attention output's norm, with post_norms (Gemma 2/3's
                                post_attention_layernorm; the plain ln2w is then their
                                pre_feedforward_layernorm) */
    float *pfnw;  /* (L, C)     post_feedforward_layernorm, with post_norms */
} FamilyParams;

/* The family's activations of one layer (slabs of the model's activation
 * buffer, engine/tensors.h), each (B, T, width); NULL where unused. */
typedef struct {
    float *qk_pre;      /* (B, T, Q+K) q and k before their per-head norm (qk_norm) */
    float *qk_rstd;     /* (B, T, H+KVH) that norm's rstd, query heads then key heads */
    float *attn_o;      /* (B, T, C) o_proj's output before its norm (post_norms) */
    float *attn_o_rstd; /* (B, T) */
    float *mlp_o;       /* (B, T, C) down_proj's output before its norm (post_norms) */
    float *mlp_o_rstd;  /* (B, T) */
} FamilyLayerActs;

/* The family's activations of the whole model. */
typedef struct {
    float *rope_pos_kv; /* (B, T, KVH) integer positions of the key heads when KVH != H */
    float *capped;      /* (B, T, V) the soft-capped logits, kept for the backward
                           (logit_softcap, trainable models) */
} FamilyActs;

/* The family's backward scratch. */
typedef struct {
    float *dqk;    /* (B, T, Q+K) gradient of q and k after their per-head norm (qk_norm) */
    float *dpost;  /* (B, T, C) gradient of a sublayer's output before its norm (post_norms) */
} FamilyGrads;

/* ---- configuration ------------------------------------------------------------ */

/* The key/value heads and the head size of a model of width C with H
 * heads under family f, and all its head widths (for a checked
 * configuration, whose widths fit an int). */
int family_kv_heads(const ModelFamily *f, int H);
int family_head_dim(const ModelFamily *f, int C, int H);
HeadShape family_shape(const ModelFamily *f, int C, int H, float eps);

/* 1 if f changes anything in the plain model of H heads (a Hugging Face
 * feature; n_kv_heads equal to H changes nothing). */
int family_any(const ModelFamily *f, int H);

/* Check f for a model of n_layers layers, width C and H heads: 0, or -1
 * with err naming the field. */
int family_check(const ModelFamily *f, int n_layers, int C, int H, SrError *err);

/* ---- embedding ---------------------------------------------------------------- */

/* x (n) *= embed_scale (Gemma); nothing otherwise. The backward scales the
 * gradient dx (n) the same way. */
void family_embed_forward(const ModelFamily *f, float *x, long n);
void family_embed_backward(const ModelFamily *f, float *dx, long n);

/* ---- q, k, v ------------------------------------------------------------------ */

/* After layer l's q/k/v projection qkv (N, W): its biases added, then q and
 * k normalised head by head (their values before the norm and its rstd
 * kept in x for the backward); nothing for a plain model. p: the family's
 * tensors. */
void family_qkv_forward(const ModelFamily *f, const FamilyParams *p, const FamilyLayerActs *x,
                        int l, const HeadShape *s, float *qkv, int N);

/* Backward of family_qkv_forward, in place on dqkv (N, W), the gradient of
 * its output (zero where RoPE left nothing): the q/k norms' backward, the
 * biases' gradients into g (NULL: frozen, none). scratch: the family's. */
void family_qkv_backward(const ModelFamily *f, const FamilyParams *p, const FamilyParams *g,
                         const FamilyLayerActs *x, const FamilyGrads *scratch, int l,
                         const HeadShape *s, float *dqkv, int N);

/* ---- positions ---------------------------------------------------------------- */

/* With KVH != H, a->rope_pos_kv (N, KVH) = the integer positions pos (N, H)
 * of each token (the same for every head); nothing otherwise. */
void family_key_positions_fill(const ModelFamily *f, const FamilyActs *a, const float *pos,
                               const HeadShape *s, int N);

/* The key heads' positions for the query heads' pos: pos itself, or the
 * positions family_key_positions_fill made when KVH != H (integer positions
 * only). NULL stays NULL. */
const float *family_key_positions(const ModelFamily *f, const FamilyActs *a, const float *pos,
                                  const HeadShape *s);

/* The RoPE frequency tables of a model with base theta and head size hd,
 * into tables (2, hd/2): [0] every layer's, theta^(-2i/hd) (scaled with
 * rope_llama3 or rope_linear_factor), [1] the sliding layers' (their own
 * base with rope_local_theta, else a copy of [0]). */
void family_rope_tables(const ModelFamily *f, float theta, int hd, float *tables);

/* Layer l's frequency table (hd/2) among tables (2, hd/2). */
const float *family_rope_freq(const ModelFamily *f, const float *tables, int hd, int l);

/* ---- scores ------------------------------------------------------------------- */

/* rule's score scale and soft cap as the family sets them (attn_scale,
 * attn_softcap); unchanged for a plain model. */
void family_attention_rule(const ModelFamily *f, AttentionRule *rule);

/* The model's own window of layer l: sliding_window on sliding_layers, else
 * 0 (none). */
int family_window(const ModelFamily *f, int l);

/* ---- sublayer outputs ---------------------------------------------------------- */

typedef enum { FAMILY_ATTENTION = 0, FAMILY_MLP = 1 } FamilySublayer;

/* Where layer l's sublayer projection writes its output: dest (N, C), or,
 * with post_norms, the family's slab that its norm then reads. */
float *family_sublayer_target(const ModelFamily *f, const FamilyLayerActs *x, FamilySublayer which,
                              float *dest);

/* With post_norms: dest (N, C) = RMSNorm of the projection's output in the
 * family's slab (rstd kept); nothing otherwise. */
void family_sublayer_forward(const ModelFamily *f, const FamilyParams *p, const FamilyLayerActs *x,
                             FamilySublayer which, int l, float *dest, const HeadShape *s, int N);

/* Backward of family_sublayer_forward from dy (N, C), the gradient at dest:
 * the gradient of the projection's output, which is dy itself, or with
 * post_norms scratch->dpost (the norm's weight gradient into g unless NULL). */
const float *family_sublayer_backward(const ModelFamily *f, const FamilyParams *p,
                                      const FamilyParams *g, const FamilyLayerActs *x,
                                      const FamilyGrads *scratch, FamilySublayer which, int l,
                                      const float *dy, const HeadShape *s, int N);

/* ---- the MLP's activation ----------------------------------------------------- */

/* out (N, F) = silu(gate) * up of gu (N, 2F) — SwiGLU, the plain model's —
 * or gelu_tanh(gate) * up with gelu_mlp (GeGLU); the backward writes dgu
 * (N, 2F) from dout (N, F) (assigned, not accumulated). */
void family_gate_forward(const ModelFamily *f, float *out, const float *gu, int N, int F);
void family_gate_backward(const ModelFamily *f, float *dgu, const float *dout, const float *gu,
                          int N, int F);

/* ---- logits ------------------------------------------------------------------- */

/* logits (n) capped with logit_softcap, the capped values kept in
 * a->capped when it exists (a trainable model); nothing otherwise. The
 * backward turns dlogits (n) into the gradient before the cap. */
void family_logits_forward(const ModelFamily *f, const FamilyActs *a, float *logits, long n);
void family_logits_backward(const ModelFamily *f, const FamilyActs *a, float *dlogits, long n);

#endif
