/* tensors.h — a model's configuration and its tensors, each written down
 * once: the named views of the parameters, activations and backward
 * scratch (one buffer each), the table of parameters (ParamId: name, shape,
 * when the configuration has it, how it is initialised and trained, what
 * LoRA adapts, how a checkpoint names it) and the list of a layer's
 * activation slabs (name, width per token, when it exists). The buffers
 * (model_buffers.c), a layer's views (model.c), the memory floor, AdamW,
 * checkpoints, adapters and RePo's weight copy read them; nothing else
 * numbers the tensors. engine/model.h builds the model on them. */
#ifndef SEQREP_TENSORS_H
#define SEQREP_TENSORS_H

#include <stddef.h>

#include "engine/families/family.h"

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
    ModelFamily family; /* a Hugging Face family's changes (engine/families/family.h);
                           all 0 in seqrep's own models */
} ModelConfig;

/* The widths of the model's attention (families/family.h): H heads of hd,
 * KVH key/value heads, Q = H*hd, K = KVH*hd; C, C/H, H, C, C for seqrep's own. */
static inline HeadShape model_heads(const ModelConfig *c)
{
    return family_shape(&c->family, c->d_model, c->n_heads, c->norm_eps);
}
static inline int model_kv_heads(const ModelConfig *c) { return model_heads(c).KVH; }
static inline int model_head_dim(const ModelConfig *c) { return model_heads(c).hd; }
static inline int model_q_dim(const ModelConfig *c) { return model_heads(c).Q; }
static inline int model_kv_dim(const ModelConfig *c) { return model_heads(c).K; }

/* The model's own sliding window of layer l (its family's), 0 = none; 1 if
 * it has one. */
static inline int model_layer_window(const ModelConfig *c, int l)
{
    return family_window(&c->family, l);
}
static inline int model_layer_slides(const ModelConfig *c, int l)
{
    return model_layer_window(c, l) > 0;
}

/* 1 if the configuration uses a Hugging Face feature (family_any). Such a
 * model cannot carry RePo layers or be saved as a seqrep checkpoint. */
static inline int model_hf_features(const ModelConfig *c)
{
    return family_any(&c->family, c->n_heads);
}

/* RePo (context re-positioning, Li, Zhao & Sproat): a RePo layer computes a
 * real-valued position per token and head from the hidden state h that feeds
 * its attention (the RMSNorm output), with d_p = C/8:
 *     r = silu(h W_g^T) * (h W_c^T)      W_g, W_c: (d_p, C)
 *     z = r W_z^T                        W_z: (H, d_p)
 * and RoPE rotates q and k by z instead of the token index. */
static inline int model_repo_dim(const ModelConfig *c) { return c->d_model / 8; }

/* The parameters, in the order of the one buffer that holds them
 * (param_spec, below, gives each one's shape and how it is trained). */
typedef enum {
    PARAM_WTE, PARAM_LN1W, PARAM_WQKV, PARAM_WO, PARAM_LN2W, PARAM_WGU, PARAM_WDOWN,
    PARAM_LNFW, PARAM_WLM, PARAM_WGC, PARAM_WZ, PARAM_BQKV, PARAM_QNW, PARAM_KNW, PARAM_PANW,
    PARAM_PFNW, PARAM_COUNT
} ParamId;

/* Named views into that buffer. Per-layer tensors are stacked over layers,
 * layer l at offset l * (size of one layer's tensor). q/k/v projections are
 * fused row-wise: wqkv[l] rows [0,Q) = q_proj, [Q,Q+K) = k_proj,
 * [Q+K,Q+2K) = v_proj (Q = K = C in seqrep's own models); gate/up likewise
 * in wgu[l]. */
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
    FamilyParams family; /* a family's tensors: bqkv, qnw, knw, panw, pfnw */
} ParamViews;

/* Activations, one contiguous buffer sized once for (max_batch, max_T).
 * The residual stream and RePo positions of every layer are kept; a
 * layer's working slabs (slab_spec, below, lists them) are kept for every
 * layer in a trainable model, whose backward reads them, and for one layer
 * that every layer reuses in a forward-only model (engine/serving/). */
typedef struct {
    float *res;      /* (L+1, B, T, C) residual stream: res[0] embeddings, res[l+1] after layer l */
    float *ln1;      /* (LK, B, T, C) LK = the layers kept */
    float *ln1_rstd; /* (LK, B, T) */
    float *qkv;      /* (LK, B, T, Q+2K) projections, q and k then rotated in place by RoPE */
    float *att;      /* (LK, B, H, T, T) attention probabilities, 0 where masked */
    float *atty;     /* (LK, B, T, Q) attention output before o_proj */
    float *res_mid;  /* (LK, B, T, C) residual after the attention sublayer */
    float *ln2;      /* (LK, B, T, C) */
    float *ln2_rstd; /* (LK, B, T) */
    float *gu;       /* (LK, B, T, 2F) gate and up pre-activations */
    float *swi;      /* (LK, B, T, F) silu(gate) * up */
    float *repo_gc;  /* (LK, B, T, 2P) RePo gate and content pre-activations */
    float *repo_r;   /* (LK, B, T, P) silu(gate) * content */
    FamilyLayerActs family_layers; /* a family's working slabs, (LK, B, T, width) each */
    float *lnf;      /* (B, T, C) final-norm output */
    float *lnf_rstd; /* (B, T) */
    float *logits;   /* (B, T, V) logits; probabilities after model_lm_loss */
    float *losses;   /* (B, T) per-position loss */
    float *rope_pos; /* (B, T, H) integer positions as floats, for POS_ROPE layers */
    float *rope_freq;/* (2, hd/2) RoPE frequencies: every layer's, a sliding layer's */
    float *repo_z;   /* (L, B, T, H) RePo positions z */
    FamilyActs family; /* a family's whole-model activations */
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
    FamilyGrads family; /* a family's scratch */
} GradActViews;

/* The sizes every shape is written in, exact in size_t: the model's V, C,
 * layers L, F, H, KVH, head size hd, query width Q = H*hd, key/value width
 * K = KVH*hd, fused q/k/v width W = Q+2K, RePo width P = C/8 and RePo
 * layers R (0 without RePo); T, the longest sequence a buffer holds. */
typedef struct {
    size_t V, C, L, F, H, KVH, hd, Q, K, W, P, R, T;
} Dims;

/* The dimensions of a model of configuration c for sequences up to max_T. */
Dims tensor_dims(const ModelConfig *c, int max_T);

/* One size of a shape, as a symbol (DIM_ONE: 1). */
typedef enum {
    DIM_ONE, DIM_V, DIM_C, DIM_L, DIM_R, DIM_F, DIM_2F, DIM_H, DIM_HD, DIM_Q, DIM_K, DIM_W,
    DIM_P, DIM_2P, DIM_QK, DIM_HKV, DIM_HT
} Dim;

/* The value of size dim under d (DIM_QK = Q+K, DIM_HKV = H+KVH, DIM_HT = H*T). */
size_t dim_value(const Dims *d, Dim dim);

/* When a configuration has a tensor. */
typedef enum {
    HAS_ALWAYS,     /* every model */
    HAS_UNTIED,     /* a model whose LM head is not the embedding */
    HAS_REPO,       /* a model with RePo layers */
    HAS_QKV_BIAS,   /* family: q/k/v biases */
    HAS_QK_NORM,    /* family: per-head q/k norms */
    HAS_POST_NORMS  /* family: norms after each sublayer */
} Presence;

/* 1 if configuration c has a tensor of presence `has`. */
int tensor_present(const ModelConfig *c, Presence has);

/* One tensor of a checkpoint file that holds a block of a parameter's rows:
 * its name (with %d for the layer) and its rows. */
typedef struct {
    const char *name;
    Dim rows;
} FilePart;

/* One parameter tensor. Its floats: stack x rows x cols, where stack is
 * DIM_L (one per layer), DIM_R (one per RePo layer) or DIM_ONE. */
typedef struct {
    const char *name;  /* as ParamViews names it */
    size_t view;       /* offsetof the view in ParamViews */
    Dim stack, rows, cols;
    Presence has;
    int norm;          /* RMSNorm weights: start at one, never decayed */
    int decay;         /* gets AdamW's weight decay (matrices and embeddings) */
    int lora;          /* LoRA adapters sit on its products (q, k, v, o) */
    int matrix;        /* one of the big matrices a stored model reads from its
                          MatrixSource instead of holding in params */
    FilePart file[3];  /* how a checkpoint splits it (name NULL after the last) */
} ParamSpec;

/* The table, in ParamId order (the order of the parameter buffer). */
const ParamSpec *param_spec(ParamId id);

/* Floats of parameter id in a model of configuration c (0 if it lacks it);
 * with matrices_outside, 0 for the big matrices too. */
size_t param_floats(const ModelConfig *c, ParamId id, int matrices_outside);

/* The parameters (floats) of a model of configuration c: every tensor it has. */
size_t model_param_count(const ModelConfig *c);

/* The view of parameter id in v (a pointer to the pointer). */
float **param_view(ParamViews *v, ParamId id);

/* The working slabs of one layer, in the order of the activation buffer. */
typedef enum {
    SLAB_LN1, SLAB_LN1_RSTD, SLAB_QKV, SLAB_ATT, SLAB_ATTY, SLAB_RES_MID, SLAB_LN2,
    SLAB_LN2_RSTD, SLAB_GU, SLAB_SWI, SLAB_REPO_GC, SLAB_REPO_R, SLAB_QK_PRE, SLAB_QK_RSTD,
    SLAB_ATTN_O, SLAB_ATTN_O_RSTD, SLAB_MLP_O, SLAB_MLP_O_RSTD, SLAB_COUNT
} SlabId;

/* A layer's slabs as one layer sees them: each (B, T, width) (att:
 * (B, H, T, T)); res is the layer's input and res_out the next layer's. */
typedef struct {
    float *res, *res_out;
    float *ln1, *ln1_rstd, *qkv, *att, *atty, *res_mid, *ln2, *ln2_rstd, *gu, *swi;
    float *repo_gc, *repo_r;
    FamilyLayerActs family;
} LayerActs;

/* One slab: its name, its views in ActViews (all kept layers) and in
 * LayerActs (one layer), floats per token, and when it exists. */
typedef struct {
    const char *name;
    size_t view, layer_view;
    Dim width;
    Presence has;
} SlabSpec;

/* The list, in SlabId order. */
const SlabSpec *slab_spec(SlabId id);

/* Floats of slab id per token of one layer in a model of configuration c
 * for sequences up to max_T (0 if it lacks it; att: H*T). */
size_t slab_width(const ModelConfig *c, SlabId id, int max_T);

/* The views of one layer's slabs in the activations a of a model of
 * configuration c built for max_batch x max_T: kept slab number `kept` of
 * each (res and res_out are left NULL for the caller). */
LayerActs tensor_layer_views(const ActViews *a, const ModelConfig *c, int max_batch, int max_T,
                             size_t kept);

#endif
