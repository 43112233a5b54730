/* lora.h — low-rank adapters (LoRA, as PEFT applies them) on the attention
 * projections q, k, v and o of every layer.
 *
 * For a target projection y = W x (W: (out, in), frozen) the adapter adds
 *     y += (alpha / rank) * B A dropout(x)      A: (rank, in), B: (out, rank)
 * with in = C and out = H*hd (q) or KVH*hd (k, v), and in = H*hd, out = C
 * for o (all C in seqrep's own models). A starts uniform in
 * [-1/sqrt(in), 1/sqrt(in)] (PEFT's Kaiming-uniform with a = sqrt(5)) and B
 * at zero, so an untrained adapter leaves the model exactly as it was. Dropout (inverted: kept inputs are scaled by 1 / (1 - p)) is
 * drawn anew on every forward while `training` is 1 and is off otherwise.
 *
 * The adapter's weights live in one buffer of their own, so an optimiser can
 * step them (and a head) while the base weights stay bit-identical. Per
 * (layer, target switched on), in order of layer then q, k, v, o: A then B.
 *
 * The model calls lora_forward right after the base projection and
 * lora_backward right after the base projection's backward (model.c); the
 * adapter knows nothing of the task it is trained for. */
#ifndef SEQREP_LORA_H
#define SEQREP_LORA_H

#include <stddef.h>
#include <stdint.h>

#include "base/rng.h"
#include "base/status.h"

typedef enum { LORA_Q = 0, LORA_K = 1, LORA_V = 2, LORA_O = 3, LORA_N_TARGETS = 4 } LoraTarget;

typedef struct {
    int rank;          /* r >= 1, at most d_model */
    float alpha;       /* the update is scaled by alpha / rank */
    float dropout;     /* probability of dropping an input feature, 0 <= p < 1 */
    unsigned targets;  /* bit t set: adapter on LoraTarget t */
} LoraConfig;

typedef struct Lora {
    LoraConfig cfg;
    int n_layers, d_model, max_rows;
    int q_dim, kv_dim; /* H*hd and KVH*hd of the model (both d_model in seqrep's own) */
    size_t n_params;   /* floats in params (and in grads) */
    float *params;     /* A and B of every adapter */
    float *grads;      /* same layout */
    float *m1, *m2;    /* AdamW moments, same layout (zero at the start) */
    uint8_t *keep;     /* per layer and target on: (max_rows, in) 1 where dropout kept the input */
    float *xdrop;      /* per layer and target on: (max_rows, in) the dropped, scaled input */
    float *u;          /* per layer and target on: (max_rows, rank) A dropout(x) */
    float *tmp;        /* (max_rows, widest of C, q_dim, kv_dim) scratch */
    float *du;         /* (max_rows, rank) scratch */
    int layers_kept;   /* layers whose keep, xdrop and u are kept: n_layers, or 1 when
                          the model recomputes each layer in its backward (every layer
                          then shares one slot; lora_set_recompute) */
    Rng *layer_rng;    /* (n_layers) where the dropout stream stood when each layer's
                          forward began (lora_layer_begin), to draw its masks again */
    int training;      /* 1: draw dropout masks */
    Rng rng;           /* dropout stream */
} Lora;

/* Parse "q,k,v,o" (any non-empty subset, each once) into a target bit set. */
int lora_parse_targets(const char *text, unsigned *targets, SrError *err);

/* Room for the name of a target set: "q,k,v,o" and its NUL. */
enum { LORA_TARGETS_NAME = 2 * LORA_N_TARGETS };

/* A target bit set as lora_parse_targets reads it ("q,k,v,o", "q,v"; "" for
 * none) into name. */
void lora_targets_name(unsigned targets, char name[LORA_TARGETS_NAME]);

/* Check cfg against a model of width d_model: rank 1..d_model, alpha > 0,
 * dropout in [0, 1), at least one target. */
int lora_config_check(const LoraConfig *cfg, int d_model, SrError *err);

/* Allocate adapters for n_layers layers of width d_model (q, k, v, o all
 * (C, C)) and forward calls of up to max_rows = B * T rows. Weights start as
 * described above. */
int lora_create(Lora *lo, const LoraConfig *cfg, int n_layers, int d_model, int max_rows,
                unsigned long long seed, SrError *err);
/* lora_create for a model whose queries are q_dim = H*hd wide and whose
 * keys and values are kv_dim = KVH*hd wide (Hugging Face models). */
int lora_create_dims(Lora *lo, const LoraConfig *cfg, int n_layers, int d_model, int q_dim,
                     int kv_dim, int max_rows, unsigned long long seed, SrError *err);

/* Input and output width of the projection target t adapts. */
int lora_in_dim(const Lora *lo, LoraTarget t);
int lora_out_dim(const Lora *lo, LoraTarget t);
void lora_free(Lora *lo);

/* A (rank, in) and B (out, rank) of one adapter, in params (or grads when
 * grads is 1); NULL when the target is off. */
float *lora_a(const Lora *lo, int layer, LoraTarget t, int grads);
float *lora_b(const Lora *lo, int layer, LoraTarget t, int grads);

/* y (N rows of out, stride y_stride) += (alpha / rank) B A dropout(x), x (N, in). */
void lora_forward(Lora *lo, int layer, LoraTarget t, const float *x, float *y, int y_stride, int N);

/* From dy (N rows of out, stride dy_stride), the gradient of the adapter's
 * output: grads of A and B += their gradients, dx (N, in) += the gradient of x. */
void lora_backward(Lora *lo, int layer, LoraTarget t, const float *dy, int dy_stride, float *dx,
                   int N);

/* The adapters of q, k and v of a layer on a fused q/k/v row of
 * q_dim + 2 kv_dim columns: each one's update of x (N, C) added to its
 * columns of qkv (N, q_dim + 2 kv_dim); the backward from dqkv (same
 * shape) into the adapters' gradients and dx (N, C). */
void lora_forward_qkv(Lora *lo, int layer, const float *x, float *qkv, int N);
void lora_backward_qkv(Lora *lo, int layer, const float *dqkv, float *dx, int N);

/* Keep the saved inputs of one layer (on = 1), which every layer then
 * shares, or of every layer (on = 0): for a model that runs each layer's
 * forward again just before its backward (model_set_recompute). The saved
 * inputs are reallocated (their contents are lost). -1 with err when out of
 * memory. */
int lora_set_recompute(Lora *lo, int on, SrError *err);

/* Note where the dropout stream stands as layer `layer`'s forward begins
 * (the model calls it before each layer). */
void lora_layer_begin(Lora *lo, int layer);

/* Before layer `layer`'s forward runs again: the dropout stream set back to
 * where it stood when that layer's forward first began, so the same masks
 * are drawn; *resume gets where it stands now. lora_layer_replay_end(lo,
 * resume) afterwards puts it back. */
void lora_layer_replay(Lora *lo, int layer, Rng *resume);
void lora_layer_replay_end(Lora *lo, const Rng *resume);

/* Zero the adapter gradients. */
void lora_zero_grad(Lora *lo);

#endif
