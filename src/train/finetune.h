/* finetune.h — fine-tuning a pre-trained decoder for sequence labelling.
 *
 * The model is cut at an exit layer L (ModelInput.n_run = L) and a head is
 * put on the residual stream res[L] at the read-out rows (readout.h: each
 * word's first piece in the LAST copy):
 *
 *     h = RMSNorm(res[L]) * model.norm.weight     (the model's final norm)
 *     logits = W dropout(h, 0.1) + b,  W (K, C), b (K)
 *
 * The final RMSNorm is applied at EVERY exit, as a Hugging Face model does
 * when its layer list is cut to L layers (its norm weight is trained with
 * the rest). The loss is the mean cross-entropy over the words of a batch;
 * ALL weights (the model's parameters and the head) are trained with AdamW,
 * learning rate warmed up over the first 10% of steps, then cosine to 0.
 * After every epoch the dev and test sets are labelled; the result is the
 * test score at the epoch with the best dev F1 (the earliest on ties), so the
 * test set never chooses anything. */
#ifndef SEQREP_FINETUNE_H
#define SEQREP_FINETUNE_H

#include <stdio.h>

#include "base/rng.h"
#include "base/status.h"
#include "data/dataset.h"
#include "engine/model.h"
#include "label/labels.h"
#include "label/methods.h"
#include "label/metrics.h"
#include "label/readout.h"

/* One split of a labelling task. */
typedef struct {
    const Dataset *data;       /* words and gold tags */
    const PiecedData *pieces;  /* the same sentences cut into the model's tokens */
    const int *labels;         /* (n_words) tag ids; needed for the training split */
} LabelledSplit;

typedef struct {
    Method method;
    int r;                    /* repetitions (sr: >= 1; other methods: 0) */
    int exit_layer;           /* read from layer L = 1..N; 0 = N */
    int epochs;               /* default 8 */
    float lr;                 /* peak learning rate, model and head (default 2e-3) */
    int batch;                /* sentences per step (default 8) */
    unsigned long long seed;  /* head init, sentence order, dropout */
    float dropout;            /* on the head's input (default 0.1) */
    float weight_decay;       /* AdamW decoupled decay of matrices (default 0.01) */
    RepeatBos bos;            /* layout; default the paper's: <bos> per copy */
    RepeatSep sep;            /*  and no separator */
    FILE *log;                /* progress lines (epoch, loss, F1, tokens/s); NULL = quiet */
} FinetuneConfig;

/* The defaults above: causal, r 0, exit N, 8 epochs, lr 2e-3, batch 8, seed 1,
 * dropout 0.1, weight decay 0.01, paper layout, quiet. */
FinetuneConfig finetune_defaults(void);

typedef struct {
    double train_loss;        /* mean over the epoch's steps */
    SpanScores dev, test;
    double seconds;           /* wall clock of the epoch's training steps */
} FinetuneEpoch;

typedef struct {
    int n_epochs;
    FinetuneEpoch *epochs;    /* (n_epochs) */
    int best_epoch;           /* 1-based */
    SpanScores dev, test;     /* at best_epoch */
    int *test_pred;           /* (test words) tag ids at best_epoch */
    long train_tokens;        /* tokens fed in training (padding excluded) */
    double train_seconds;
    int exit_layer;           /* the L used */
} FinetuneResult;

/* ---- the head (used by finetune_run; exposed for tests) ---------------------- */

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
 * backward: gW, gb assigned, the final norm's gradient ADDED to m->g.lnfw,
 * and the gradient at res[L] into h->dhidden (B, T, C; zero off the read-out
 * rows), ready for model_backward_hidden. */
float label_head_backward(LabelHead *h, Model *m, const ReadoutBatch *b);

/* Release what finetune_run put in res; zero it. */
void finetune_result_free(FinetuneResult *res);

/* Fine-tune m (sized for cfg->batch rows and the longest laid-out sentence
 * of all three splits) on train, evaluating dev and test after every epoch.
 * m's parameters are changed; AdamW moments are created if m has none. */
int finetune_run(Model *m, const LabelSet *ls, const LabelledSplit *train,
                 const LabelledSplit *dev, const LabelledSplit *test, const FinetuneConfig *cfg,
                 FinetuneResult *res, SrError *err);

#endif
