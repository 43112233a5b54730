/* flow_data.h — the numbers of figure 6, where the attention of last-copy
 * tokens goes, per layer.
 *
 * Reads the CSV of `seqrep attnflow --out` (columns layer, head, own_copy,
 * earlier_left, same_word, earlier_right, sink; src/theory/attnflow.h
 * defines the categories) and keeps, per layer, the shares of the five
 * categories for one head or the mean over heads, adding up to 1. Painted by
 * paint_flow.h. A CSV of `attnflow --cues` has two more columns, cue and
 * non_cue (theory/cue_attention.h): kept too, for the same head or mean.
 * The chance levels beside them (own_copy_chance ... sink_chance, and
 * cue_chance, non_cue_chance: what a uniform head gives under the same
 * mask, theory/chance.h) are kept when the file has them (files written
 * before they existed have not); the painter marks them. */
#ifndef SEQREP_VIZ_FLOW_DATA_H
#define SEQREP_VIZ_FLOW_DATA_H

#include <stdio.h>

#include "draw/figure.h"
#include "theory/attnflow.h"

typedef struct {
    FigureMeta meta;
    int n_layers;
    int n_heads;       /* heads in the file                        */
    int head;          /* the head drawn, or -1 for the mean        */
    double *share;     /* (n_layers, FLOW_N_CATEGORIES) shares 0..1 */
    int has_cues;      /* the file has the columns cue and non_cue  */
    double *cue;       /* (n_layers) entity words' share on their cue; NULL without */
    double *non_cue;   /* (n_layers) ... on one other word on the cue's side        */
    int has_chance;    /* the file has the *_chance columns                          */
    double *chance;    /* (n_layers, FLOW_N_CATEGORIES) a uniform head's shares; NULL without */
    double *cue_chance, *non_cue_chance; /* (n_layers) with has_cues and has_chance  */
} FlowData;

/* Read an attnflow CSV and keep head `head` (-1 = mean over heads). Every
 * (layer, head) pair 0..L-1 x 0..H-1 must appear exactly once. Fails on a
 * missing column or a head out of range ("flow.csv: head 7 out of range
 * 0..3"). Free with flow_data_free. */
int flow_data_load(FlowData *d, const char *path, int head, SrError *err);
void flow_data_free(FlowData *d);

/* CSV of the drawn numbers: layer,head,own_copy,earlier_left,same_word,
 * earlier_right,sink, then with chance levels own_copy_chance ...
 * sink_chance, then with cues cue,non_cue (and cue_chance,non_cue_chance). */
void flow_data_write_csv(const FlowData *d, FILE *out);

#endif
