/* model.h — a decoder-only transformer of the Llama / Qwen / Mistral family.
 *
 *   token embedding
 *   N x [ RMSNorm -> multi-head self-attention (RoPE) -> residual
 *         RMSNorm -> SwiGLU MLP -> residual ]
 * (and, for Hugging Face folders, the variations of Qwen and Gemma listed
 * under ModelConfig)
 *   final RMSNorm -> LM head (tied to the embedding unless config.tied == 0)
 *
 * The model knows nothing about repetition or labelling. A caller hands it
 * token ids plus two per-layer plans: a mask plan (causal or bidirectional)
 * and a position plan (integer RoPE, none, or real-valued positions per token
 * and head). Order of reading: config -> parameters -> activations -> forward
 * -> loss -> backward. */
#ifndef SEQREP_MODEL_H
#define SEQREP_MODEL_H

#include <stddef.h>

#include "base/status.h"
#include "engine/ops/mask.h"
#include "engine/serving/ops_stored.h"

typedef struct {
    int vocab_size;
    int d_model;      /* C */
    int n_layers;     /* N */
    int n_heads;      /* H, head size hd = C / H (even) */
    int d_ff;         /* F, SwiGLU hidden width */
    int max_seq_len;  /* longest T the model accepts */
    float rope_theta;
    float norm_eps;
    int tied;         /* 1: LM head is the embedding matrix */
    int repo;         /* 1: layers repo_from..N-1 carry RePo weights (see below) */
    int repo_from;    /* first RePo layer when repo == 1 (0..N-1) */
    unsigned long long nope_layers; /* bit l set: layer l rotates nothing unless a
                                       plan says otherwise (NoPE and hybrid models;
                                       layers 0..63); 0 = RoPE everywhere */
    /* Hugging Face models (formats/hf/hf_model_folder.h); all 0 in seqrep's own models,
     * whose computation these fields then leave bit for bit as it was. */
    int n_kv_heads;   /* KVH, key/value heads (grouped-query attention, dividing H); 0 = H */
    int head_dim;     /* hd when it is not C / H (Qwen3); 0 = C / H */
    int qkv_bias;     /* 1: q, k and v projections add a bias (Qwen2) */
    int qk_norm;      /* 1: per-head RMSNorm of q and k before RoPE (Qwen3) */
    int rope_llama3;  /* 1: Llama 3.1 frequency scaling with the four fields below */
    float rope_factor, rope_low_freq_factor, rope_high_freq_factor;
    int rope_original_max_pos;
    /* Sliding windows (Mistral, Gemma 2 and 3): the layers of sliding_layers (bit l:
     * layer l, layers 0..63) see only the last sliding_window keys (mask.h), unless
     * the input's window plan says otherwise. 0 and 0 = none. */
    int sliding_window;
    unsigned long long sliding_layers;
    /* The Gemma family (all 0 elsewhere). Gemma's RMSNorm scales by (1 + w): the
     * loader stores 1 + w, so the norms here are the plain ones. */
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
                              holds 1 + w (Gemma); the computation never reads this */
} ModelConfig;

/* Key/value heads, head size, query width H*hd and key/value width KVH*hd. */
static inline int model_kv_heads(const ModelConfig *c) { return c->n_kv_heads ? c->n_kv_heads : c->n_heads; }
static inline int model_head_dim(const ModelConfig *c) { return c->head_dim ? c->head_dim : c->d_model / c->n_heads; }
static inline int model_q_dim(const ModelConfig *c) { return c->n_heads * model_head_dim(c); }
static inline int model_kv_dim(const ModelConfig *c) { return model_kv_heads(c) * model_head_dim(c); }

/* 1 if layer l is a sliding (local) layer of the configuration. */
static inline int model_layer_slides(const ModelConfig *c, int l)
{
    return l < 64 && (c->sliding_layers >> l & 1);
}

/* 1 if the configuration uses a Hugging Face feature (grouped-query
 * attention, a separate head size, biases, q/k norms, scaled RoPE, sliding
 * windows, the Gemma family's pieces). Forward,
 * backward, LoRA and merges cover them all; such a model cannot carry RePo
 * layers or be saved as a seqrep checkpoint. */
int model_hf_features(const ModelConfig *c);

/* RePo (context re-positioning, Li, Zhao & Sproat): a RePo layer computes a
 * real-valued position per token and head from the hidden state h that feeds
 * its attention (the RMSNorm output), with d_p = C/8:
 *     r = silu(h W_g^T) * (h W_c^T)      W_g, W_c: (d_p, C)
 *     z = r W_z^T                        W_z: (H, d_p)
 * and RoPE rotates q and k by z instead of the token index. */
static inline int model_repo_dim(const ModelConfig *c) { return c->d_model / 8; }

/* Check that a configuration is usable; fills err naming the bad field. */
int model_config_check(const ModelConfig *cfg, SrError *err);

/* Parameters in one contiguous buffer with named views. Per-layer tensors are
 * stacked over layers, layer l at offset l * (size of one layer's tensor).
 * q/k/v projections are fused row-wise: wqkv[l] rows [0,Q) = q_proj,
 * [Q,Q+K) = k_proj, [Q+K,Q+2K) = v_proj (Q = H*hd, K = KVH*hd; both C in
 * seqrep's own models); gate/up likewise in wgu[l]. */
typedef struct {
    float *wte;   /* (V, C)       model.embed_tokens.weight */
    float *ln1w;  /* (L, C)       input_layernorm */
    float *wqkv;  /* (L, Q+2K, C) self_attn.{q,k,v}_proj */
    float *wo;    /* (L, C, Q)    self_attn.o_proj */
    float *ln2w;  /* (L, C)       post_attention_layernorm */
    float *wgu;   /* (L, 2F, C)   mlp.{gate,up}_proj */
    float *wdown; /* (L, C, F)    mlp.down_proj */
    float *lnfw;  /* (C)          model.norm */
    float *wlm;   /* (V, C)       lm_head (== wte when tied) */
    float *wgc;   /* (R, 2P, C)   RePo gate rows [0,P), content rows [P,2P); R = N - repo_from, P = C/8 */
    float *wz;    /* (R, H, P)    RePo position projection */
    float *bqkv;  /* (L, Q+2K)    self_attn.{q,k,v}_proj.bias, when cfg.qkv_bias */
    float *qnw;   /* (L, hd)      self_attn.q_norm, when cfg.qk_norm */
    float *knw;   /* (L, hd)      self_attn.k_norm, when cfg.qk_norm */
    float *panw;  /* (L, C)       the attention output's norm, when cfg.post_norms
                                  (Gemma 2/3's post_attention_layernorm; ln2w is then
                                  their pre_feedforward_layernorm) */
    float *pfnw;  /* (L, C)       post_feedforward_layernorm, when cfg.post_norms */
} ParamViews;

/* Number of floats in each parameter view, in the order of ParamViews. */
#define MODEL_N_PARAM_TENSORS 16
void model_param_sizes(const ModelConfig *cfg, size_t sizes[MODEL_N_PARAM_TENSORS]);

/* Parameters (floats) of a model of configuration c: the sum of model_param_sizes. */
size_t model_param_count(const ModelConfig *c);

/* 1 if parameter view i (ParamViews order) holds norm weights, which get no
 * weight decay and are initialised to one. */
int model_param_is_norm(int i);

/* 1 if parameter view i gets weight decay: matrices and embeddings, not the
 * norm weights or the q/k/v biases (1-D tensors, as PyTorch recipes do). */
int model_param_is_decayed(int i);

typedef enum {
    POS_ROPE = 0,  /* integer positions (ModelInput.positions), rotated by RoPE  */
    POS_NONE = 1,  /* no positional information (NoPE)                          */
    POS_REAL = 2,  /* real-valued positions per token and head (ModelInput.real_pos) */
    POS_REPO = 3   /* positions the layer computes from its own input (RePo weights) */
} PosKind;

/* Which logits a forward computes (ModelInput.want_logits). */
enum { LOGITS_NONE = 0, LOGITS_ALL = 1, LOGITS_LAST = 2 };

/* One forward call's inputs. Pointers the caller does not need may be NULL. */
typedef struct {
    int B, T;                 /* batch rows and sequence length (T <= max_seq_len) */
    const int *ids;           /* (B, T) token ids */
    const int *lengths;       /* (B) valid tokens per row, right padding; NULL = T */
    const int *positions;     /* (B, T) integer positions for POS_ROPE; NULL = 0..T-1 */
    const MaskKind *mask;     /* (N) mask plan; NULL = causal everywhere */
    const PosKind *pos_kind;  /* (N) position plan; NULL = the model's own: RoPE, except
                                 RePo layers of a RePo model (POS_REPO) and the layers
                                 in cfg.nope_layers (POS_NONE) */
    const float *real_pos;    /* (N, B, T, H) positions for POS_REAL layers */
    const int *window;        /* (N) window plan: layer l sees the last window[l] keys
                                 (0 = no window); NULL = the model's own (cfg.sliding_*) */
    int n_run;                /* run only layers 0..n_run-1 (early exit); 0 = all */
    int want_logits;          /* LOGITS_NONE (0); LOGITS_ALL (1): final norm + LM head of
                                 every position into acts.logits (B, T, V); LOGITS_LAST:
                                 of each row's last position (lengths[b] - 1) alone, into
                                 acts.logits (B, V), as generation needs (forward only:
                                 no model_lm_loss or backward after it) */
    int repo_force_index;     /* check only: POS_REPO layers rotate by the integer
                                 positions instead of z (z is still computed) */
} ModelInput;

/* Activations, one contiguous buffer sized once for (max_batch, max_T).
 * Everything backward needs is kept; the residual stream and the attention
 * probabilities of every layer and head are therefore always available. */
typedef struct {
    float *res;      /* (L+1, B, T, C) residual stream: res[0] embeddings, res[l+1] after layer l */
    float *ln1;      /* (L, B, T, C) */
    float *ln1_rstd; /* (L, B, T) */
    float *qkv;      /* (L, B, T, Q+2K) projections (3C in seqrep models), q and k then
                        rotated in place by RoPE */
    float *att;      /* (L, B, H, T, T) attention probabilities, 0 where masked */
    float *atty;     /* (L, B, T, Q) attention output before o_proj */
    float *res_mid;  /* (L, B, T, C) residual after the attention sublayer */
    float *ln2;      /* (L, B, T, C) */
    float *ln2_rstd; /* (L, B, T) */
    float *gu;       /* (L, B, T, 2F) gate and up pre-activations */
    float *swi;      /* (L, B, T, F) silu(gate) * up */
    float *lnf;      /* (B, T, C) final-norm output */
    float *lnf_rstd; /* (B, T) */
    float *logits;   /* (B, T, V) logits; probabilities after model_lm_loss */
    float *losses;   /* (B, T) per-position loss */
    float *rope_pos; /* (B, T, H) integer positions as floats, for POS_ROPE layers */
    float *repo_gc;  /* (L, B, T, 2P) RePo gate and content pre-activations */
    float *repo_r;   /* (L, B, T, P) silu(gate) * content */
    float *repo_z;   /* (L, B, T, H) RePo positions z */
    float *rope_pos_kv; /* (B, T, KVH) integer positions for the keys when KVH != H */
    float *inv_freq;    /* (hd/2) RoPE frequencies when cfg.rope_llama3 */
    float *qk_pre;      /* (L, B, T, Q+K) q and k before their per-head norm, when cfg.qk_norm */
    float *qk_rstd;     /* (L, B, T, H+KVH) the norm's rstd per query then key head, when cfg.qk_norm */
    float *inv_freq_local; /* (hd/2) RoPE frequencies of the sliding layers, when cfg.rope_local_theta */
    float *attn_o;      /* (L, B, T, C) o_proj output before its norm, when cfg.post_norms */
    float *attn_o_rstd; /* (L, B, T) */
    float *mlp_o;       /* (L, B, T, C) down_proj output before its norm, when cfg.post_norms */
    float *mlp_o_rstd;  /* (L, B, T) */
    float *capped;      /* (B, T, V) the soft-capped logits, kept for the backward
                           (cfg.logit_softcap, trainable models) */
} ActViews;

/* Gradient scratch for the backward pass, sized like the activations. */
typedef struct {
    float *dres;     /* (B, T, C) gradient of the current residual */
    float *dres2;    /* (B, T, C) */
    float *dln;      /* (B, T, C) */
    float *dqkv;     /* (B, T, Q+2K) */
    float *dqrot;    /* (B, T, Q) */
    float *dkrot;    /* (B, T, K) */
    float *datty;    /* (B, T, Q) */
    float *dgu;      /* (B, T, 2F) */
    float *dswi;     /* (B, T, F) */
    float *datt;     /* (B, H, T, T) attention backward scratch */
    float *dreal_pos;/* (L, B, T, H) gradient of ModelInput.real_pos */
    float *dz;       /* (B, T, H) gradient of a RePo layer's positions */
    float *dr;       /* (B, T, P) */
    float *dgc;      /* (B, T, 2P) */
    float *dqk;      /* (B, T, Q+K) gradient of q and k after their per-head norm, when cfg.qk_norm */
    float *dpost;    /* (B, T, C) gradient of a sublayer's output before its norm, when cfg.post_norms */
} GradActViews;

struct Lora; /* low-rank adapters on q, k, v, o (lora.h) */


typedef struct {
    ModelConfig cfg;
    int max_batch, max_T;
    size_t n_params;           /* floats in params */
    float *params;  ParamViews p;   /* one buffer */
    float *grads;   ParamViews g;   /* same layout; NULL (and every view NULL) while the
                                       base is frozen by model_freeze_base */
    float *m1, *m2;            /* AdamW moments, same layout (allocated by adamw) */
    float *acts;    ActViews a;
    float *gacts;   GradActViews ga;
    ModelInput in;             /* inputs of the last forward (pointers are the caller's) */
    int n_run;                 /* layers run by the last forward */
    int counted;               /* positions counted by the last loss */
    struct Lora *lora;         /* adapters the forward adds, or NULL (set by the caller;
                                  owned by it, sized for at least max_batch x max_T rows) */
    int inference;             /* 1: made by model_create_inference: forward only, the
                                  weights borrowed, one layer's working activations
                                  shared by every layer (see there) */
    StoredMatrices *stored;    /* the big matrices as stored (model_create_stored), or NULL:
                                  then p.wte, p.wqkv, p.wo, p.wgu, p.wdown, p.wlm are NULL,
                                  the base is frozen, and products widen W a block at a time */
    float *stored_scratch;     /* those products' scratch (ops_stored.h) */
    int stored_threads;        /* the threads that scratch serves */
    int frozen_base;           /* 1: backward computes no gradient of the model's own
                                  weights (m->grads is left as it is): only the
                                  gradients the adapters need flow, none below
                                  layer 0; 0 = all (default). model_freeze_base
                                  sets it and frees m->grads as well */
} Model;

/* Allocate parameters, gradients and activations for batches up to
 * max_batch x max_T. Parameters are left zero; call model_init_weights. */
int model_create(Model *m, const ModelConfig *cfg, int max_batch, int max_T, SrError *err);
void model_free(Model *m);

/* model_create for weights whose big matrices stay as stored (see
 * StoredMatrices): params holds only the norms and biases (model_param_count
 * still counts every parameter), m takes stored over (model_free releases
 * it, also on failure), and the base is frozen for good. */
int model_create_stored(Model *m, const ModelConfig *cfg, StoredMatrices *stored, int max_batch,
                        int max_T, SrError *err);

/* A forward-only model on the weights of another (borrowed, read-only: they
 * must outlive m; LoRA adapters merged, m->lora NULL) for batches up to
 * max_batch x max_T. It keeps what a reader of the forward needs, the
 * residual streams of every layer (model_hidden) and the RePo positions, and
 * one layer's working activations that every layer reuses: no gradients, no
 * backward, and model_attention holds only the last layer run; ask for any
 * layer's maps with model_layer_attention. At 2,048 tokens on a 30-layer,
 * 9-head model that is 0.15 GB of attention instead of 4.5 GB. Several
 * inference models may share one set of weights, each on its own thread. */
int model_create_inference(Model *m, const Model *weights, int max_batch, int max_T, SrError *err);

/* Freeze (frozen 1) or unfreeze (0) the model's own weights: frozen, the
 * parameter gradients (n_params floats) are freed and m->g points nowhere,
 * so a LoRA run holds no gradient of the base; unfrozen, they are allocated
 * again (zero) if missing. -1 with err when out of memory. */
int model_freeze_base(Model *m, int frozen, SrError *err);

/* Normal(0, 0.02) for matrices and embeddings (seeded), ones for norm weights. */
void model_init_weights(Model *m, unsigned long long seed);

/* Forward pass; returns -1 (with err) if the input does not fit. */
int model_forward(Model *m, const ModelInput *in, SrError *err);

/* Mean cross-entropy of acts.logits against targets (B, T) over positions
 * whose target is not `ignore`; turns logits into probabilities. */
float model_lm_loss(Model *m, const int *targets, int ignore);

/* Per-position losses of the last model_lm_loss: (B, T) for the forward's B
 * and T, the cross-entropy of position (b, t) at [b*T + t], 0 where the
 * target was `ignore`. */
const float *model_position_losses(const Model *m);

/* Zero all parameter gradients (nothing while they are freed). */
void model_zero_grad(Model *m);

/* Backward from the loss of model_lm_loss: accumulates parameter gradients
 * (and ga.dreal_pos for POS_REAL layers). */
void model_backward(Model *m, const int *targets, int ignore);

/* Backward from a caller-supplied gradient dhidden (B, T, C) of the residual
 * stream at the exit layer res[n_run] (for heads defined outside the model). */
void model_backward_hidden(Model *m, const float *dhidden);

/* Residual stream at layer l (0..n_run) of the last forward: (B, T, C),
 * row (b, t) at model_hidden(m, l) + (b*T + t)*C for the forward's B and T. */
const float *model_hidden(const Model *m, int layer);

/* Attention probabilities of layer l of the last forward: (B, H, T, T).
 * For an inference model only those of the last layer run (use
 * model_layer_attention). */
const float *model_attention(const Model *m, int layer);

/* Attention probabilities of layer l (0 .. n_run-1) of the last forward,
 * (B, H, T, T) for its B and T, into out (or, when out is NULL, the model's
 * own buffer), computed again from its input, the residual stream
 * model_hidden(m, l): the same numbers the forward computed. It reads the
 * forward's input arrays again (mask and position plans, lengths, real
 * positions; not the ids): they must still be there. They stay valid
 * until the next forward or model_layer_attention (an inference model shares
 * one buffer between its layers). NULL with err for a layer not run. */
const float *model_layer_attention(Model *m, int layer, float *out, SrError *err);

/* RePo positions z of layer l of the last forward: (B, T, H); NULL if layer l
 * is not a RePo layer of this model. */
const float *model_repo_positions(const Model *m, int layer);

/* The position kind layer l uses for input in (plan given, or the default). */
PosKind model_layer_pos_kind(const Model *m, const ModelInput *in, int layer);

#endif
