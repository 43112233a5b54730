/* heads.h — what role each attention head plays on a repeated sentence.
 *
 * attnflow.h splits the attention of a last-copy token into broad regions;
 * this file asks the sharper question of Olsson et al. (2022, "In-context
 * learning and induction heads"): does the head read one particular key?
 * For the piece with index i of the LAST copy (row lay->last_rows[i]; the
 * copy before it is copy k - 2, its piece j at row copy_start[k-2] + j):
 *
 *   copy       attention to piece i of the copy before      (the same piece)
 *   induction  attention to piece i + 1 of the copy before  (what came next
 *              last time); a query whose i + 1 does not exist (the last piece,
 *              i = n - 1) has no induction score and is left out of that
 *              mean only
 *   previous   attention to the row just before the query (t - 1)
 *   sink       attention to row 0 (the first <bos>, or the first piece)
 *   own_copy   total attention to the pieces of the last copy itself
 *
 * Each score is a probability mass in [0, 1]. Copy, induction, previous and
 * sink read one key each and can name the same row in very short inputs (with
 * nothing between the copies: copy and previous for n = 1, induction and
 * previous for the first piece when n = 2). A layout of one
 * copy (r = 0) has no copy before: copy and induction are then undefined. No
 * I/O here: the caller runs the model and hands in one layer at a time. */
#ifndef SEQREP_HEADS_H
#define SEQREP_HEADS_H

#include <stdint.h>

#include "base/status.h"
#include "repeat/repeat.h"
#include "theory/head_table.h"

typedef enum {
    HEAD_COPY = 0,
    HEAD_INDUCTION = 1,
    HEAD_PREVIOUS = 2,
    HEAD_SINK = 3,
    HEAD_OWN_COPY = 4,
    HEAD_N_SCORES = 5
} HeadScore;

/* Column name of a score: "copy", "induction", "previous", "sink",
 * "own_copy"; "?" outside the enum. */
const char *head_score_name(HeadScore s);

/* The key row score `which` reads for the last-copy piece with index i, or
 * -1 when the score is undefined for it (copy and induction without a copy
 * before, induction for the last piece, previous at row 0) or reads a whole
 * copy (own_copy). */
int head_score_key(const RepeatLayout *lay, int i, HeadScore which);

/* The five scores of one query row (row[s] for keys s = 0 .. lay->T - 1) of
 * the last-copy piece with index i. defined[s] is 1 when score s exists for
 * this query (see head_score_key; own_copy always), 0 when it does not (then
 * score[s] is 0). */
void head_row_scores(const float *row, const RepeatLayout *lay, int i,
                     double score[HEAD_N_SCORES], int defined[HEAD_N_SCORES]);

/* Running sums over many sentences, per layer, head and score: a
 * HeadTable whose columns are the HEAD_* scores (head_table.h). */
typedef HeadTable HeadScores;

/* Zeroed sums for n_layers x n_heads (both >= 1). 0, or -1 with err. */
int head_scores_init(HeadScores *s, int n_layers, int n_heads, SrError *err);

/* Zeroed sums of the chance levels (theory/chance.h): one head per layer,
 * columns "copy_chance", ..., "own_copy_chance", filled by
 * head_scores_add_layer with a uniform head. 0, or -1 with err. */
int head_scores_chance_init(HeadScores *s, int n_layers, SrError *err);
void head_scores_free(HeadScores *s);

/* Add the last-copy rows of one layer's attention for one repeated sentence.
 * att: (H, stride, stride) probabilities, query row t of head h at
 * att + (h * stride + t) * stride, with stride >= lay->T (the forward's T). */
void head_scores_add_layer(HeadScores *s, int layer, const float *att, int stride,
                           const RepeatLayout *lay);

/* Mean of score `which` for (layer, head) over the queries it was defined
 * for; 0 when there were none. */
double head_scores_mean(const HeadScores *s, int layer, int head, HeadScore which);

/* Number of queries that mean is over. */
int64_t head_scores_count(const HeadScores *s, int layer, int head, HeadScore which);

/* The (layer, head) with the largest mean of score `which` (the first in
 * layer-then-head order on a tie) into *layer and *head. */
void head_scores_best(const HeadScores *s, HeadScore which, int *layer, int *head);

#endif
