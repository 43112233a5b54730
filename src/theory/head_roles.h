/* head_roles.h — measuring the head roles of a model on repeated input:
 * every sentence of a list repeated and run (repeated_forward.h), each
 * layer's attention added to the scores of heads.h and, when asked, the
 * in-context learning score.
 *
 * In-context learning (Olsson et al. 2022 compare the loss late in a context
 * with the loss early in it): on a sequence of n random pieces repeated k
 * times, the mean next-token loss on the pieces of the FIRST copy, each piece
 * j = 1 .. n-1 predicted from the row before it (piece j - 1 of the same copy
 * and everything left of it), against the same mean on the LAST copy. Piece 0
 * of a copy is left out: in the first copy nothing but <bos> is there to
 * predict it from. The first copy can only be guessed (random pieces); the
 * last copy can be read off an earlier one, so
 *     icl score = loss(first copy) - loss(last copy)
 * is large for a model whose induction heads copy the continuation. */
#ifndef SEQREP_HEAD_ROLES_H
#define SEQREP_HEAD_ROLES_H

#include <stdint.h>

#include "base/status.h"
#include "data/piece_sentences.h"
#include "engine/model.h"
#include "repeat/repeat.h"
#include "theory/chance.h"
#include "theory/heads.h"
#include "theory/repeated_forward.h"

typedef enum { ICL_FIRST_COPY = 0, ICL_LAST_COPY = 1 } IclCopy;

/* Summed next-token losses on the first and the last copy. */
typedef struct {
    double sum[2];    /* by IclCopy */
    int64_t count[2]; /* positions each sum is over */
} IclLoss;

/* targets (lay->T) for model_lm_loss: in the first and the last copy, the
 * row before piece j (j = 1 .. n-1) gets that piece's id lay->ids[row + 1];
 * every other row gets -1 (ignored). */
void icl_targets(const RepeatLayout *lay, int *targets);

/* Add the per-position losses (lay->T; model_position_losses) at the rows
 * icl_targets marks, to the first-copy and last-copy sums. */
void icl_add(IclLoss *icl, const RepeatLayout *lay, const float *losses);

/* Mean loss on one copy; 0 when no position was added. */
double icl_mean(const IclLoss *icl, IclCopy c);

/* Everything one measurement accumulates. */
typedef struct {
    HeadScores scores;
    HeadScores chance;     /* one head per layer: what a uniform head scores (chance.h) */
    const MaskKind *plan;  /* the mask plan of the run being measured */
    int with_icl; /* 1: the forwards also compute the logits and icl is filled */
    IclLoss icl;
} HeadRoles;

/* Zeroed scores for n_layers x n_heads and their chance levels, with or
 * without the ICL loss. 0, or -1 with err. */
int head_roles_init(HeadRoles *roles, int n_layers, int n_heads, int with_icl, SrError *err);
void head_roles_free(HeadRoles *roles);

/* Run m on every sentence of s with 1 .. max_n pieces, laid out and run as
 * run says (with the logits when roles->with_icl), adding every layer's
 * attention to roles->scores, a uniform head's under the same mask plan to
 * roles->chance, and the losses to roles->icl. Errors as
 * repeated_forward_all ("SOURCE:LINE: ..."). 0 or -1. */
int head_roles_measure(Model *m, const RepeatedForward *run, const PieceSentences *s, int max_n,
                       const char *source, HeadRoles *roles, SrError *err);

#endif
