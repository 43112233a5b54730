/* model.h — seqrep's decoder-only transformer, the Llama shape:
 *
 *   token embedding
 *   N x [ RMSNorm -> multi-head self-attention (RoPE) -> residual
 *         RMSNorm -> SwiGLU MLP -> residual ]
 *   final RMSNorm -> LM head (tied to the embedding unless config.tied == 0)
 *
 * The model knows nothing about repetition or labelling. A caller hands it
 * token ids plus per-layer plans: a mask plan (causal or bidirectional), a
 * window plan (sliding windows are masks too) and a position plan (integer
 * RoPE, none, or real-valued positions per token and head, RePo's among
 * them). Order of reading: config -> parameters -> activations -> the model
 * -> forward -> loss -> backward -> what a reader may look at.
 *
 * What Hugging Face families change (grouped-query attention, biases, q/k
 * norms, scaled RoPE, Gemma's pieces) lives in engine/families/, reached
 * through its hooks; weights kept as a folder stores them and the
 * forward-only model live in engine/serving/. */
#ifndef SEQREP_MODEL_H
#define SEQREP_MODEL_H

#include <stddef.h>

#include "base/status.h"
#include "engine/input.h"
#include "engine/tensors.h"




struct Lora; /* low-rank adapters on q, k, v, o (lora.h) */

/* Where the big matrices (PARAM_WTE, the layers' four products, PARAM_WLM)
 * are read when the parameters do not hold them: weights kept as a folder
 * stores them (engine/serving/model_stored.h) set this. */
typedef struct MatrixSource {
    void *state;
    /* out (N, rows) = inp (N, cols) . W^T for matrix id of layer l (0 for
     * the LM head) */
    void (*product)(void *state, ParamId id, int layer, float *out, const float *inp, int N);
    /* dinp (N, cols) += dout (N, rows) . W; the weights get no gradient */
    void (*product_back)(void *state, ParamId id, int layer, float *dinp, const float *dout,
                         int N);
    /* out (N, C) = the embedding rows of ids (N) */
    void (*embed)(void *state, float *out, const int *ids, int N);
    /* let the source go (model_free) */
    void (*release)(void *state);
    size_t value_bytes;  /* bytes a stored value takes (memory_floor.h) */
} MatrixSource;

typedef struct {
    ModelConfig cfg;
    int max_batch, max_T;
    int layers_kept;           /* LK: layers whose working activations are kept, n_layers
                                  (trainable) or 1 (forward only, or recomputing: every
                                  layer reuses one) */
    int recompute;             /* 1: the forward keeps each layer's input only and the
                                  backward runs each layer's forward again just before
                                  its backward (model_set_recompute) */
    int slab_layer;            /* with one layer's slabs: the layer they hold, -1 none */
    size_t n_params;           /* floats in params */
    float *params;  ParamViews p;   /* one buffer */
    float *grads;   ParamViews g;   /* same layout; NULL (and every view NULL) while the
                                       base is frozen by model_freeze_base */
    float *m1, *m2;            /* AdamW moments, same layout (allocated by adamw) */
    float *acts;    ActViews a;
    float *gacts;   GradActViews ga;   /* NULL for a forward-only model */
    ModelInput in;             /* inputs of the last forward (pointers are the caller's) */
    int n_run;                 /* layers run by the last forward */
    int counted;               /* positions counted by the last loss */
    struct Lora *lora;         /* adapters the forward adds, or NULL (set by the caller;
                                  owned by it, sized for at least max_batch x max_T rows) */
    MatrixSource *matrices;    /* where the big matrices are read, or NULL: float32 in params */
    int params_borrowed;       /* 1: params belongs to another model (forward only) */
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

/* How model_build makes a model (model_create, and engine/serving's models). */
typedef struct {
    int max_batch, max_T;
    int forward_only;        /* 1: no gradients or backward scratch, one layer's working
                                activations reused by every layer */
    const Model *borrow;     /* forward only: the weights of this model (read, never freed;
                                they must outlive the new one), or NULL */
    MatrixSource *matrices;  /* params without the big matrices, read from here instead (the
                                model takes it over: model_free releases it, also when
                                model_build fails); the base is then frozen */
} ModelBuild;

/* A model of configuration cfg made as `how` says; m is zeroed first. 0, or
 * -1 with err. */
int model_build(Model *m, const ModelConfig *cfg, const ModelBuild *how, SrError *err);

/* Freeze (frozen 1) or unfreeze (0) the model's own weights: frozen, the
 * parameter gradients (n_params floats) are freed and m->g points nowhere,
 * so a LoRA run holds no gradient of the base; unfrozen, they are allocated
 * again (zero) if missing. -1 with err when out of memory. */
int model_freeze_base(Model *m, int frozen, SrError *err);

/* Recompute (on = 1) or keep (0) the layers' working activations: with on,
 * the activations are laid out again with one layer's slabs, which every
 * layer shares, beside every layer's input (the residual stream) and RePo
 * positions; the backward runs each layer's forward again, the same code
 * on the same inputs, just before that layer's backward, so its loss and
 * gradients are bit for bit those of the run without it. The ModelInput of
 * the last forward must then stay valid until the backward is done, and
 * LoRA adapters the caller attaches keep one layer too
 * (lora_set_recompute). The activations' contents are lost. -1 with err
 * for a forward-only model or when out of memory. */
int model_set_recompute(Model *m, int on, SrError *err);

/* The activations and their gradients laid out again for batches of up to
 * max_batch x max_T, keeping every layer's slabs or (recompute) one
 * layer's, as model_set_recompute: a big model that will recompute is
 * loaded for one position, so that every layer's activations for the
 * whole batch are never asked for, and then resized. -1 with err for a
 * forward-only model, sizes the model refuses, or when out of memory (m
 * is then as it was). */
int model_resize(Model *m, int max_batch, int max_T, int recompute, SrError *err);

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
 * For a forward-only or recomputing model only those of the last layer run
 * (use model_layer_attention). */
const float *model_attention(const Model *m, int layer);

/* Attention probabilities of layer l (0 .. n_run-1) of the last forward,
 * (B, H, T, T) for its B and T, into out (or, when out is NULL, the model's
 * own buffer), computed again from its input, the residual stream
 * model_hidden(m, l): the same numbers the forward computed. It reads the
 * forward's input arrays again (mask and position plans, lengths, real
 * positions; not the ids): they must still be there. They stay valid
 * until the next forward or model_layer_attention (a forward-only model
 * shares one buffer between its layers). NULL with err for a layer not run. */
const float *model_layer_attention(Model *m, int layer, float *out, SrError *err);

/* RePo positions z of layer l of the last forward: (B, T, H); NULL if layer l
 * is not a RePo layer of this model. */
const float *model_repo_positions(const Model *m, int layer);

/* The position kind layer l uses for input in (plan given, or the default). */
PosKind model_layer_pos_kind(const Model *m, const ModelInput *in, int layer);

#endif
