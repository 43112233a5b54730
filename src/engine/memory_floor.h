/* memory_floor.h — the least memory a training step of a model needs,
 * computed from its configuration, to hold a measured peak RSS against.
 *
 * Counted (4-byte floats):
 *   weights      every parameter of the model, trained or frozen (a
 *                stored model's big matrices at their own width: below);
 *   trained      for each trained float its gradient and both AdamW moments
 *                (3 x); n_trained = all parameters for full training, the
 *                adapters and the head for LoRA;
 *   activations  what the backward of the layers 0..n_run-1 reads back, per
 *                token: the layer input (C), its two RMSNorm outputs (2 C)
 *                and inverse norms (2), the rotated queries, keys and the
 *                values (Q + 2 K), the attention output (Q), the residual
 *                after attention (C), the gate and up pre-activations (2 F)
 *                and their product (F); per sequence and head the attention
 *                probabilities of the visible query-key pairs, T (T + 1) / 2
 *                (the causal count, the smallest of any mask plan); the residual
 *                at the exit (C) and, with the LM head, the final norm (C)
 *                and the logits (V);
 *   gradient     the backward's working set: the gradient of the residual
 *                (C) and of the widest per-layer product (max(2 F, Q + 2 K)).
 * Not counted: code, libraries and their buffers, the data set, adapter
 * activations. A floor, so a design may come near it but not below. */
#ifndef SEQREP_MEMORY_FLOOR_H
#define SEQREP_MEMORY_FLOOR_H

#include <stddef.h>

#include "engine/model.h"

typedef struct {
    double weights, trained, activations, gradient; /* bytes, as above */
    double total;                                    /* their sum */
} MemoryFloor;

/* The floor of one training step over B sequences of T tokens of a model
 * with configuration c, n_trained trained floats, backward through layers
 * 0..n_run-1 (0 = all), with_lm_head 1 when the loss is the LM's (logits
 * over the vocabulary) and 0 for a head on the hidden states. */
MemoryFloor memory_floor_training(const ModelConfig *c, int B, int T, size_t n_trained, int n_run,
                                  int with_lm_head);

/* memory_floor_training for model m as it holds its weights: a stored
 * model's big matrices (model_create_stored) at their stored width, 2 bytes
 * a value for BF16 and F16, the rest in float32; B x T is m's max_batch x
 * max_T. */
MemoryFloor memory_floor_of_model(const Model *m, size_t n_trained, int n_run, int with_lm_head);

/* Bytes as mebibytes, for messages. */
static inline double bytes_to_mib(double bytes) { return bytes / (1024.0 * 1024.0); }

#endif
