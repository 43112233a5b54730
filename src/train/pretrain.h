/* pretrain.h — pre-training a language model: the optimiser loop of
 * `seqrep train-lm` and of the tiny RePo task models, beside fine-tuning.
 *
 * Two objectives, one model: causal predicts the next token under the causal
 * mask in every layer; mlm (the encoder baseline) hides 15% of the tokens and
 * predicts them with no attention mask at all (every layer bidirectional).
 *
 * Where the batches come from is the caller's: a PretrainBatchFn fills the
 * windows of each step (pretrain_stream_batch draws random windows of a token
 * stream). Which positions every forward uses is the caller's too (a
 * PretrainPositions: a per-layer position plan and integer positions), so this
 * module knows nothing of the position methods that choose them. */
#ifndef SEQREP_PRETRAIN_H
#define SEQREP_PRETRAIN_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "base/rng.h"
#include "base/status.h"
#include "engine/model.h"

typedef enum { PRETRAIN_CAUSAL = 0, PRETRAIN_MLM = 1 } PretrainObjective;

typedef struct {
    PretrainObjective objective;
    int steps, batch, seq_len; /* optimiser steps; each a batch of windows of seq_len tokens */
    int warmup;                /* linear warm-up steps, then cosine decay to min_lr */
    float lr, min_lr, weight_decay, clip;
    uint64_t seed;             /* the random numbers handed to the batch source and to mlm */
    int progress_every;        /* plain progress line every this many steps (< 1: 1) */
} PretrainConfig;

/* The positions of every forward: pos_kind (N layers) NULL = RoPE everywhere,
 * positions (batch, seq_len) NULL = 0..T-1 (as in ModelInput). */
typedef struct {
    const PosKind *pos_kind;
    const int *positions;
} PretrainPositions;

/* Fill ids and targets (B, T) with the windows of 1-based step `step`, with
 * rng for any random choice; targets < 0 are ignored by the loss. */
typedef void (*PretrainBatchFn)(void *source, Rng *rng, int step, int B, int T, int *ids,
                                int *targets);

/* A token stream to draw training windows from: windows lie in ids[lo, hi). */
typedef struct {
    const int *ids;
    long lo, hi;
} PretrainStream;

/* One window of a PretrainStream: T + 1 tokens at a random start (one draw
 * of rng); ids (T) get the first T tokens, targets (T) the T after them.
 * hi - lo must exceed T. */
void pretrain_stream_window(const PretrainStream *s, Rng *rng, int T, int *ids, int *targets);

/* PretrainBatchFn of a PretrainStream: B windows (B, T) of
 * pretrain_stream_window, one after the other. */
void pretrain_stream_batch(void *stream, Rng *rng, int step, int B, int T, int *ids, int *targets);

/* What a run ends with. */
typedef struct {
    float final_loss;  /* loss of the last step */
    double seconds;    /* wall clock of the loop */
    int steps_done;    /* the step reached: c->steps, or less when stopped */
    int diverged_at;   /* the step whose loss, gradients or weights were not finite
                          (the run then failed; m holds that step's weights), 0 = none */
    float diverged_lr; /* the learning rate of that step */
} PretrainResult;

/* Where a run stands after a step. With the model's weights and AdamW
 * moments (m->params, m->m1, m->m2) it is all that continuing the run exactly
 * needs: the batch source must draw from nothing but rng and the step (as
 * pretrain_stream_batch does), and the learning rate is lr_schedule(step)
 * over c->steps, so a run of S steps stopped after step K and continued from
 * its state with the same configuration gives the same weights bit for bit
 * as one run of S steps (with the same threads). */
typedef struct {
    int step;    /* optimiser steps done, 0..c->steps */
    Rng rng;     /* the one stream of window choices and mlm corruption, after that step */
    float loss;  /* the loss of that step (0 before the first) */
} PretrainState;

/* Store m (params, m1, m2) and st; called after step st->step. 0, or -1 with
 * err filled: the run then stops with that error. */
typedef int (*PretrainSaveFn)(void *ctx, const Model *m, const PretrainState *st, SrError *err);

/* Saving and resuming a run. A save follows every `every`-th step and the
 * last one (every < 1: no saves). from NULL starts a new run (moments zeroed,
 * rng from c->seed); otherwise the run continues after from->step with m's
 * params, m1 and m2 already holding the saved ones. stop (may be NULL) is
 * polled after each step: once nonzero the run saves (when it saves at all)
 * and returns 0 with out->steps_done < c->steps. after_step (may be NULL) is
 * called with ctx after every step, before that step's save (so what it
 * writes, such as a snapshot, is never behind a saved state); an error
 * stops the run as a failed save does. */
typedef struct {
    int every;
    PretrainSaveFn save;
    void *ctx;
    const PretrainState *from;
    const volatile sig_atomic_t *stop;
    PretrainSaveFn after_step;
} PretrainSaving;

/* Masked-LM corruption of ids (n) in place: each token is chosen with
 * probability 15%; a chosen token becomes the target and is replaced by
 * <mask> (80%), a random word of the vocabulary (10%) or left as it is (10%).
 * Targets of tokens not chosen are -1 (ignored). */
void pretrain_mlm_corrupt(Rng *rng, int *ids, int *targets, long n, int vocab_size);

/* Train model m (initialised; its AdamW moments are created here) for
 * c->steps steps of c->batch x c->seq_len windows from next(source, ...),
 * under c->objective (mlm: the window itself is the target, then corrupted)
 * and the positions pos (may be NULL). m must be sized for the batch. Progress
 * goes to log (NULL: quiet). 0, or -1 with err filled; *out gets the last
 * step's loss and the time even then. */
int pretrain_run(Model *m, const PretrainConfig *c, const PretrainPositions *pos,
                 PretrainBatchFn next, void *source, FILE *log, PretrainResult *out, SrError *err);

/* pretrain_run with saves and a starting state (saving may be NULL: then it
 * is pretrain_run). Progress lines note each save ("saved at step K/S"). */
int pretrain_run_saving(Model *m, const PretrainConfig *c, const PretrainPositions *pos,
                        PretrainBatchFn next, void *source, const PretrainSaving *saving,
                        FILE *log, PretrainResult *out, SrError *err);

/* Mean loss under c->objective over consecutive windows of stream[lo, hi) in
 * batches of c->batch x c->seq_len (at most max_batches batches), with the
 * same mlm corruption on every call. *loss = -1 when the range is shorter
 * than one window. 0, or -1 with err filled. */
int pretrain_eval_loss(Model *m, const PretrainConfig *c, const PretrainPositions *pos,
                       const int *stream, long lo, long hi, int max_batches, float *loss,
                       SrError *err);

#endif
