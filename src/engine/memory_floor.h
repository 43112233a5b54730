/* memory_floor.h — the least memory a training step of this engine holds,
 * computed for the run it describes, to hold a measured peak RSS against.
 *
 * Counted (bytes; floats are 4):
 *   process      what the process held before the model: code, libraries,
 *                the tokenizer and the data set (measured by the caller);
 *   weights      every parameter of the model, trained or frozen (a
 *                stored model's big matrices at their own width), and the
 *                values of what is trained outside it (adapters, a head);
 *   trained      for each trained float its gradient and both AdamW
 *                moments (3 x);
 *   activations  what the layers 0..n_run-1 of the largest step (B
 *                sentences, T tokens each) keep: every layer's input (the
 *                residual stream, C a token) and RePo positions (H), and the
 *                working slabs (tensors.h: norms, q/k/v, attention output,
 *                MLP, a family's and RePo's) of every layer run, or of one
 *                layer when the backward recomputes them; the attention
 *                probabilities of every query-key pair (T x T a sequence and
 *                head: the engine stores masked pairs as 0); the RoPE
 *                positions; with the LM head the final norm, the logits (V)
 *                and the loss;
 *   adapters     LoRA's saved inputs for the layers kept (each target's input
 *                at 5 bytes a value: the dropped input and its mask; its
 *                rank-wide product) and its scratch;
 *   gradient     the backward's working set (GradActViews): the residual's
 *                gradient twice and the norm's, every product's, the
 *                attention probabilities', RePo's and a
 *                family's; a head on the hidden states adds the gradient of
 *                the hidden states (C). The attention gradient is written on
 *                the visible pairs only: T (T + 1) / 2 a head under causal
 *                masks, T x T when a layer sees every key.
 * Not counted: allocator slack, OpenMP and OpenBLAS buffers made after the
 * run starts. A floor: a run comes near it but not below. */
#ifndef SEQREP_MEMORY_FLOOR_H
#define SEQREP_MEMORY_FLOOR_H

#include <stddef.h>

#include "engine/lora.h"
#include "engine/model.h"

/* The run a floor describes. */
typedef struct {
    int B, T;               /* the largest step: its sentences, their (padded) length */
    int n_run;              /* layers run, backward through 0..n_run-1 (0 = all) */
    int with_lm_head;       /* 1: the LM's loss (logits over the vocabulary); 0: a head
                               on the hidden states */
    int recompute;          /* 1: the backward recomputes each layer (one layer's slabs) */
    int sees_all;           /* 1: a layer's mask sees every key (bidirectional); 0: causal
                               everywhere, whose backward writes only the visible pairs */
    size_t n_trained;       /* trained floats */
    size_t n_outside;       /* of them, those held outside the model (adapters, a head) */
    const LoraConfig *lora; /* the adapters on the model, or NULL */
    double process;         /* bytes the process held before the model */
} FloorRun;

typedef struct {
    double process, weights, trained, activations, adapters, gradient; /* bytes, as above */
    double total;                                                       /* their sum */
} MemoryFloor;

/* The floor of run on a model of configuration c, the big matrices held
 * at matrix_bytes a value (4: float32; 2: BF16 or F16 kept as stored). */
MemoryFloor memory_floor_training(const ModelConfig *c, int matrix_bytes, const FloorRun *run);

/* memory_floor_training for model m as it holds its weights (a stored
 * model's big matrices at their stored width). */
MemoryFloor memory_floor_of_model(const Model *m, const FloorRun *run);

/* Bytes as mebibytes, for messages. */
static inline double bytes_to_mib(double bytes) { return bytes / (1024.0 * 1024.0); }

#endif
