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
 * when its layer list is cut to L layers. The loss is the mean cross-entropy
 * over the words of a batch. The weights trained (AdamW, learning rate warmed
 * up over the first 10% of updates, then cosine to 0) are either
 *   - ALL of them (ADAPTER_NONE, "full"): the model's parameters, its final
 *     norm weight included, and the head; the model's gradients are clipped
 *     by their global norm, the head's are not; or
 *   - LoRA adapters (lora.h) on the attention projections and the head
 *     (ADAPTER_LORA): every weight of the model, the final norm weight
 *     included, stays bit-identical (Model.frozen_base: the backward computes
 *     no gradient for them); adapters and head are clipped together by their
 *     joint global norm (as the Hugging Face Trainer clips all trainable
 *     weights).
 * With grad_accum G, the gradients of G batches are summed, each weighted by
 * its share of the words, before one update: the update of one batch of
 * G x batch sentences (up to rounding and dropout draws). The G x batch
 * sentences of an update, drawn at random, are cut into batches by length
 * (readout_sort_by_length), so little of a batch is padding; dev and test are
 * labelled in batches sorted by length, too.
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
#include "engine/lora.h"
#include "label/labels.h"
#include "label/methods.h"
#include "label/metrics.h"
#include "label/readout.h"
#include "train/label_head.h"

/* One split of a labelling task. */
typedef struct {
    const Dataset *data;       /* words and gold tags */
    const PiecedData *pieces;  /* the same sentences cut into the model's tokens */
    const int *labels;         /* (n_words) tag ids; needed for the training split */
} LabelledSplit;

/* Which weights fine-tuning trains (see above). */
typedef enum { ADAPTER_NONE = 0, ADAPTER_LORA = 1 } AdapterKind;

/* The trained weights beside the frozen base: the head and, with LoRA, the
 * adapters. Starting values for finetune_run, or the best epoch's weights in
 * its result. */
typedef struct {
    int K, C;         /* tags, width */
    float *W, *b;     /* (K, C), (K) the head */
    LoraConfig lora;  /* the adapters' settings (rank 0: no adapters) */
    size_t n_lora;    /* floats in lora_w (Lora.n_params; 0 without adapters) */
    float *lora_w;    /* adapter weights, Lora.params layout */
} TrainedWeights;

/* Release what a TrainedWeights holds; zero it. */
void trained_weights_free(TrainedWeights *w);

/* The scores of one epoch (epoch 0: the starting weights, before training). */
typedef struct {
    double train_loss;        /* mean over the epoch's steps (NAN at epoch 0) */
    SpanScores dev, test;
    double seconds;           /* wall clock of the epoch's training steps */
} FinetuneEpoch;

/* What a run calls with the model m (all its weights, as trained so far
 * when no adapter is used) and the head (and adapters) w of epoch 0 (before
 * any update) and of every epoch once dev and test are scored (w points into
 * the run: copy what you keep). Returns 0, or -1 with err filled to stop the
 * run. */
typedef int (*FinetuneEpochHook)(void *ctx, int epoch, const Model *m, const TrainedWeights *w,
                                 const FinetuneEpoch *e, SrError *err);

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
    RepeatPositions copy_positions; /* positions run on across copies (default) or restart */
    const float *head_scale;  /* (N, H) head plan (engine/input.h): a head of weight 0 is taken
                                 away in every forward and backward, so nothing trains
                                 through it; NULL = every head (default) */
    AdapterKind adapter;      /* ADAPTER_NONE (default: all weights) or ADAPTER_LORA */
    LoraConfig lora;          /* with ADAPTER_LORA: rank, alpha, dropout, targets */
    int grad_accum;           /* batches per update (default 1) */
    const TrainedWeights *start; /* head (and adapters) to start from; NULL = fresh */
    FILE *log;                /* progress lines (epoch, loss, F1, tokens/s); NULL = quiet */
    FinetuneEpochHook on_epoch; /* NULL = none; epoch 0 then costs one more dev and test pass */
    void *on_epoch_ctx;
} FinetuneConfig;

/* The defaults above: causal, r 0, exit N, 8 epochs, lr 2e-3, batch 8, seed 1,
 * dropout 0.1, weight decay 0.01, paper layout, no adapter (lora: rank 16,
 * alpha 16, dropout 0.1 on q, k, v, o, used only with ADAPTER_LORA),
 * grad_accum 1, fresh start, quiet. */
FinetuneConfig finetune_defaults(void);

typedef struct {
    int n_epochs;
    FinetuneEpoch *epochs;    /* (n_epochs) */
    int best_epoch;           /* 1-based */
    SpanScores dev, test;     /* at best_epoch */
    int *test_pred;           /* (test words) tag ids at best_epoch */
    long train_tokens;        /* tokens fed in training (padding excluded) */
    double train_seconds;
    int exit_layer;           /* the L used */
    TrainedWeights best;      /* head (and adapters) at best_epoch */
} FinetuneResult;

/* Release what finetune_run put in res; zero it. */
void finetune_result_free(FinetuneResult *res);

/* Fine-tune m (sized for cfg->batch rows and the longest laid-out sentence
 * of all three splits) on train, evaluating dev and test after every epoch.
 * Without an adapter m's parameters are changed and AdamW moments are
 * created if m has none (and its gradients allocated again if a LoRA run
 * freed them); with ADAPTER_LORA m's weights are left as they were (m->lora
 * and m->frozen_base are set during the run and cleared after it) and its
 * gradient buffer is freed (model_freeze_base). */
int finetune_run(Model *m, const LabelSet *ls, const LabelledSplit *train,
                 const LabelledSplit *dev, const LabelledSplit *test, const FinetuneConfig *cfg,
                 FinetuneResult *res, SrError *err);

#endif
