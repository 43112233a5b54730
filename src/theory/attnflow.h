/* attnflow.h — where the attention of last-copy tokens goes.
 *
 * The block count (blocks.h) says what the causal mask lets a token of the
 * last copy see; this file measures what a model actually attends to. For
 * every word token of the LAST copy (the rows that are read out, word index
 * i), its attention probabilities over the keys of the same repeated sentence
 * are split into five categories by the key's place in the layout (repeat.h):
 *
 *   own copy       a word of the last copy itself (left of or at i under the
 *                  causal mask; the whole copy in a bidirectional layer)
 *   earlier left   a word of an earlier copy with word index j < i
 *   same word      a word of an earlier copy with j == i
 *   earlier right  a word of an earlier copy with j > i   (the "bidirectional" part)
 *   sink           a <bos> or <sep> token
 *
 * Every key of the layout falls in exactly one category, so a query row's
 * shares add up to the row's probability mass, 1 for a softmax row. Keys past
 * the layout (right padding of a batch) are not counted; the model gives them
 * probability 0. No I/O here: the caller runs the model and hands in the
 * probabilities of one layer at a time. */
#ifndef SEQREP_ATTNFLOW_H
#define SEQREP_ATTNFLOW_H

#include <stdint.h>

#include "base/status.h"
#include "repeat/repeat.h"
#include "theory/head_table.h"

typedef enum {
    FLOW_OWN_COPY = 0,
    FLOW_EARLIER_LEFT = 1,
    FLOW_SAME_WORD = 2,
    FLOW_EARLIER_RIGHT = 3,
    FLOW_SINK = 4,
    FLOW_N_CATEGORIES = 5
} FlowCategory;

/* Column name of a category: "own_copy", "earlier_left", "same_word",
 * "earlier_right", "sink". */
const char *attnflow_category_name(FlowCategory c);

/* The category of key row s for the last-copy query with word index i. */
FlowCategory attnflow_category(const RepeatLayout *lay, int i, int s);

/* Split one query row of attention probabilities (row[s] for keys s = 0 ..
 * lay->T - 1) of the last-copy word with index i into share[FLOW_N_CATEGORIES]. */
void attnflow_split_row(const float *row, const RepeatLayout *lay, int i,
                        double share[FLOW_N_CATEGORIES]);

/* Running sums over many sentences, per layer and head: a HeadTable whose
 * columns are the FLOW_* categories (head_table.h), every share counted. */
typedef HeadTable AttnFlow;

/* Zeroed sums for n_layers x n_heads (both >= 1). 0, or -1 with err. */
int attnflow_init(AttnFlow *f, int n_layers, int n_heads, SrError *err);

/* Zeroed sums of the chance levels (theory/chance.h): one head per layer,
 * columns "own_copy_chance", ..., "sink_chance", filled by
 * attnflow_add_layer with a uniform head. 0, or -1 with err. */
int attnflow_chance_init(AttnFlow *f, int n_layers, SrError *err);
void attnflow_free(AttnFlow *f);

/* Add the last-copy rows of one layer's attention for one repeated sentence.
 * att: (H, stride, stride) probabilities, query row t of head h at
 * att + (h * stride + t) * stride, with stride >= lay->T (the forward's T;
 * for batch row b of model_attention, pass its pointer + b * H * T * T). */
void attnflow_add_layer(AttnFlow *f, int layer, const float *att, int stride,
                        const RepeatLayout *lay);

/* Mean share of category c for (layer, head) over the queries added; 0 when
 * none were. */
double attnflow_mean(const AttnFlow *f, int layer, int head, FlowCategory c);

/* The last-copy word queries added to layer. */
int64_t attnflow_queries(const AttnFlow *f, int layer);

#endif
