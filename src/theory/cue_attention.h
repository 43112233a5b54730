/* cue_attention.h — how much of an entity word's attention in the last copy
 * goes to its cue word in the earlier copies.
 *
 * attnflow.h splits ALL the attention of last-copy tokens by where the keys
 * sit; here only the queries that need one particular word are looked at.
 * In right-cue (data/task_cues.h) the type of an ambiguous name is decided
 * by one cue word to its right: the last copy can read it only in an
 * earlier copy. For the last-copy row of each such word's first piece (the
 * row its label is read from, label/readout.h), per layer and head:
 *
 *   cue       the attention on the cue word's pieces, summed over every
 *             earlier copy (the cue's own-copy pieces are hidden under the
 *             causal mask, and not counted in a bidirectional layer either);
 *   non_cue   the same for one OTHER word on the cue's side of the query
 *             word (right of it for right-cue), the mean over those words:
 *             what a word there gets that does not decide the label.
 *
 * cue well above non_cue: the query singles the cue out. Pieces are the
 * layout's "words" (repeat.h): word j of the sentence is pieces
 * word_start[j] .. word_start[j + 1] - 1. No I/O here. */
#ifndef SEQREP_CUE_ATTENTION_H
#define SEQREP_CUE_ATTENTION_H

#include <stdint.h>

#include "base/status.h"
#include "repeat/repeat.h"
#include "theory/head_table.h"

/* The two columns: cue over every query, non_cue over the queries that have
 * another word on the cue's side. */
typedef enum { CUE_SHARE = 0, NON_CUE_SHARE = 1, CUE_N_COLUMNS = 2 } CueColumn;

/* Running sums over many sentences, per layer and head: a HeadTable of the
 * columns cue and non_cue (head_table.h). */
typedef HeadTable CueAttention;

/* Zeroed sums for n_layers x n_heads (both >= 1). 0, or -1 with err. */
int cue_attention_init(CueAttention *c, int n_layers, int n_heads, SrError *err);

/* Zeroed sums of the chance levels (theory/chance.h): one head per layer,
 * columns "cue_chance" and "non_cue_chance", filled by
 * cue_attention_add_layer with a uniform head. 0, or -1 with err. */
int cue_attention_chance_init(CueAttention *c, int n_layers, SrError *err);
void cue_attention_free(CueAttention *c);

/* The share of one query row (row[s], keys s = 0 .. lay->T - 1) on word j's
 * pieces in the copies before the last. */
double cue_attention_word_share(const float *row, const RepeatLayout *lay, const int *word_start, int j);

/* Add the queries of one layer's attention for one repeated sentence of
 * n_words words: every word w with cue[w] >= 0 (n_words entries; the word
 * index of its cue, -1 for none). att: (H, stride, stride) probabilities as
 * attnflow_add_layer; word_start: (n_words + 1) piece boundaries, the last
 * = lay->n. */
void cue_attention_add_layer(CueAttention *c, int layer, const float *att, int stride, const RepeatLayout *lay,
                             const int *word_start, const int *cue, int n_words);

/* Mean cue and non_cue share of (layer, head) over the queries added; 0
 * when there are none. */
double cue_attention_cue_mean(const CueAttention *c, int layer, int head);
double cue_attention_non_cue_mean(const CueAttention *c, int layer, int head);

/* The queries added to layer, and of those the ones with a non_cue word. */
int64_t cue_attention_queries(const CueAttention *c, int layer);
int64_t cue_attention_non_cue_queries(const CueAttention *c, int layer);

#endif
