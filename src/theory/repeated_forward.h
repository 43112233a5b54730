/* repeated_forward.h — running a model on every sentence of a list, each
 * repeated k = r + 1 times, and handing each forward to a consumer.
 *
 * This is the loop `attnflow` and `heads` share: which sentences fit the
 * model's context (repeated_forward_fit), then for every sentence that does,
 * build its layout (repeat.h) with the tokenizer's special ids, renumber the
 * positions when the copies restart, run the forward with the mask and head plans and
 * call the consumer, which reads what it needs from the model (the attention
 * of every layer: model_attention; the logits with want_logits). One sentence
 * per forward (B = 1, T = the layout's length), in list order. */
#ifndef SEQREP_REPEATED_FORWARD_H
#define SEQREP_REPEATED_FORWARD_H

#include "base/status.h"
#include "data/piece_sentences.h"
#include "engine/ops/mask.h"
#include "engine/model.h"
#include "repeat/repeat.h"

/* How every sentence is laid out and run. */
typedef struct {
    int r;                          /* k = r + 1 copies */
    RepeatBos bos;
    RepeatSep sep;
    RepeatPositions copy_positions;
    RepeatIds ids;                  /* the tokenizer's <bos> and <sep> */
    const MaskKind *plan;           /* (n_layers) mask plan; NULL = causal */
    const float *head_scale;        /* (n_layers, n_heads) head plan (engine/input.h); NULL = every head */
    int want_logits;                /* 1: the forward also computes the logits */
} RepeatedForward;

/* Which sentences of a list fit a context of max_seq_len positions. */
typedef struct {
    int max_n;          /* most pieces a sentence may have (repeat_max_n) */
    int n_fit;          /* sentences with 1 .. max_n pieces */
    int n_empty;        /* sentences without pieces */
    int n_too_long;     /* sentences of more than max_n pieces */
    int first_too_long; /* index of the first of those, -1 when none */
    int max_T;          /* longest repeated input of the sentences that fit (0: none) */
} RepeatedFit;

/* Count what fits (see RepeatedFit). */
void repeated_forward_fit(const PieceSentences *s, const RepeatedForward *run, int max_seq_len,
                          RepeatedFit *fit);

/* What happens after each forward: m holds the activations of sentence `one`
 * laid out as lay (B = 1, T = lay->T). 0, or -1 with err to stop the loop. */
typedef int (*RepeatedConsumer)(void *ctx, Model *m, const RepeatLayout *lay,
                                const PieceSentence *one, SrError *err);

/* Run m on every sentence of s with 1 .. max_n pieces (the others are
 * skipped; count them with repeated_forward_fit), repeated as run says, and
 * call consume after each forward. m must hold inputs of max_T tokens. A
 * failure of the layout or the forward is "SOURCE:LINE: message" (source:
 * the data file's name); the consumer's failure is passed on as it is.
 * 0 or -1. */
int repeated_forward_all(Model *m, const RepeatedForward *run, const PieceSentences *s, int max_n,
                         const char *source, RepeatedConsumer consume, void *ctx, SrError *err);

#endif
