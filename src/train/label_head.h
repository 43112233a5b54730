/* label_head.h — the labelling head fine-tuning puts on the model's
 * residual stream at the exit layer (finetune.h): each word's read-out row
 * (the first piece in the last copy, readout.h) through the model's final
 * RMSNorm, dropout and a linear layer to K tags; its backward hands the
 * gradient at the exit layer back to the model (model_backward_hidden). */
#ifndef SEQREP_LABEL_HEAD_H
#define SEQREP_LABEL_HEAD_H

#include "base/rng.h"
#include "engine/adamw.h"
#include "engine/model.h"
#include "label/readout.h"

/* The head and every buffer one step needs, sized once for the largest batch. */
typedef struct {
    int C, K, max_words;
    float *W, *b;              /* (K, C), (K) */
    float *gW, *gb;            /* gradients of W and b (assigned by label_head_backward) */
    float *m1, *m2;            /* AdamW moments of [W, b] */
    float *x, *xn, *rstd;      /* (max_words, C) gathered res[L], normed; (max_words) */
    float *keep;               /* (max_words, C) dropout scale: 0 or 1/(1-p) */
    float *xd;                 /* (max_words, C) head input after dropout */
    float *logits;             /* (max_words, K) logits, then probabilities, then dlogits */
    float *dxd, *dxn, *dx;     /* (max_words, C) gradients */
    float *dhidden;            /* (max_batch, max_T, C) gradient at res[L] */
    float *losses;             /* (max_words) per-word loss */
    int *targets;              /* (max_words) tag ids of the batch's words (set by the caller) */
} LabelHead;

/* Allocate a head for C features and K tags, batches of up to max_words
 * words and hidden states of up to max_batch x max_T rows; W ~ Normal(0,
 * 0.02) from rng, b = 0. Returns 0 or -1 (out of memory). */
int label_head_create(LabelHead *h, int C, int K, int max_words, int max_batch, int max_T,
                      Rng *rng);

/* Release the head's buffers; *h becomes empty. */
void label_head_free(LabelHead *h);

/* Forward on the read-out rows (last copy) of hidden (B, T, C) of batch b:
 * x, xn = RMSNorm(x) * m->p.lnfw, xd = dropout(xn) (no dropout when rng is
 * NULL) and logits (n_words, K) = xd W^T + b. */
void label_head_forward(LabelHead *h, const Model *m, const ReadoutBatch *b, const float *hidden,
                        float dropout, Rng *rng);

/* Mean cross-entropy of the logits against h->targets (returned), then the
 * backward of weight x that loss: gW, gb ADDED to (label_head_zero_grad
 * clears them), the final norm's gradient added to m->g.lnfw (unless
 * m->frozen_base), and the gradient at res[L] into h->dhidden (B, T, C; zero
 * off the read-out rows), ready for model_backward_hidden. weight is 1 for
 * one batch per update, the batch's share of the words when accumulating. */
float label_head_backward(LabelHead *h, Model *m, const ReadoutBatch *b, float weight);

/* Zero gW and gb. */
void label_head_zero_grad(LabelHead *h);

/* One AdamW update of the head (decay on W only) with the model's
 * hyper-parameters opt, at learning rate lr and 1-based step. */
void label_head_step(LabelHead *h, const AdamWConfig *opt, float lr, int step);

#endif
