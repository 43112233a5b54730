/* head_table.h — running means per layer, head and column: the table each
 * measure of the attention fills, one repeated sentence at a time, and
 * writes as a CSV row per head.
 *
 * heads.h (the role of each head: five scores), attnflow.h (where the
 * attention of last-copy tokens goes: five categories) and cue_attention.h
 * (the attention on a cue word: two columns) are each a HeadTable with
 * their own columns. A value is added to the sum of its (layer, head,
 * column) and counted when it is defined for that query; the mean is the
 * sum over the count (0 when nothing was counted). No I/O here. */
#ifndef SEQREP_HEAD_TABLE_H
#define SEQREP_HEAD_TABLE_H

#include <stdint.h>

#include "base/status.h"

typedef struct {
    int n_layers, n_heads, n_columns;
    const char *const *names; /* (n_columns) the columns' names in the CSV        */
    double *sum;              /* (L, H, n_columns) the values added               */
    int64_t *count;           /* (L, H, n_columns) how many of them were counted  */
} HeadTable;

/* Zeroed sums for n_layers x n_heads (both >= 1) of the n_columns columns
 * names (kept, not copied). what names the measure in the messages
 * ("heads: need at least one layer and head (got 0, 4)", "heads: out of
 * memory"). 0, or -1 with err. */
int head_table_init(HeadTable *t, const char *what, int n_layers, int n_heads, int n_columns,
                    const char *const *names, SrError *err);
void head_table_free(HeadTable *t);

/* Add values[c] (c < n_columns) to the sums of (layer, head); each is
 * counted where counted[c] is 1 (counted NULL: every one is). */
void head_table_add(HeadTable *t, int layer, int head, const double *values, const int *counted);

/* The mean of column c for (layer, head) over the values counted; 0 when
 * none were. */
double head_table_mean(const HeadTable *t, int layer, int head, int c);

/* How many values that mean is over. */
int64_t head_table_count(const HeadTable *t, int layer, int head, int c);

/* The (layer, head) with the largest mean of column c (the first in
 * layer-then-head order on a tie) into *layer and *head. */
void head_table_best(const HeadTable *t, int c, int *layer, int *head);

/* The CSV of n tables of the same layers and heads, side by side:
 * "layer,head,COLUMNS..." (every table's names in order), then one row per
 * (layer, head) of tables[0] with each mean as %.6f. A table of one head
 * beside tables of more (the chance levels, theory/chance.h: one value per
 * layer) is written on every head's row of its layer. A new string (caller frees), NULL
 * when out of memory. */
char *head_table_csv(const HeadTable *const *tables, int n);

#endif
