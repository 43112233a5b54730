/* heads_data.h — the numbers of the heads figure: the role scores of every
 * attention head, per layer and head.
 *
 * Reads the CSV of `seqrep heads --out` (columns layer, head, copy,
 * induction, previous, sink, own_copy; one row per layer and head; each
 * score a mean share of attention in 0..1) and keeps the scores asked for,
 * with the best head of each. Every (layer, head) pair 0..L-1 x 0..H-1 must
 * appear exactly once. The manifest of `seqrep heads` (heads.manifest.json
 * beside the CSV), when there is one, names the model, r and the input for
 * the caption. When the file has the chance levels of the scores drawn
 * (copy_chance ...: what a uniform head scores under the same mask,
 * theory/chance.h; files written before them have not) they are kept per
 * layer, and the painter marks the cells at or below them. Painted by
 * paint_heads.h. Errors name the file and line:
 *   "heads.csv: missing column 'induction'"
 *   "heads.csv:4: column 'copy': 'x' is not a number"
 *   "heads.csv:4: column 'sink': 1.5 is outside 0..1"
 *   "heads.csv:5: layer 1, head 0 appears twice (first on line 3)"
 *   "heads.csv: layer 1, head 2 is missing (2 layers x 3 heads in the file)" */
#ifndef SEQREP_VIZ_HEADS_DATA_H
#define SEQREP_VIZ_HEADS_DATA_H

#include <stdio.h>

#include <cJSON.h>

#include "draw/figure.h"
#include "theory/heads.h"

/* The label of a score in the figure ("own copy"); the scores and their
 * column names are theory/heads.h's (HeadScore, head_score_name). */
const char *head_score_label(HeadScore s);

/* Parse a comma list of score names ("copy,induction") into out (at most
 * HEAD_N_SCORES, in the order given) and *n. Fails on an unknown or repeated
 * name or an empty list, naming the option: "--scores: unknown score 'x'
 * (scores: copy, induction, previous, sink, own_copy)". */
int head_scores_parse(const char *list, HeadScore *out, int *n, SrError *err);

/* The names of all scores joined by ", " into out (cap bytes). */
void head_scores_list(char *out, size_t cap);

typedef struct {
    FigureMeta meta;
    int n_layers, n_heads;
    int n_scores;                      /* the panels drawn                      */
    HeadScore scores[HEAD_N_SCORES];   /* their scores, in the order drawn      */
    double *value;                     /* (n_scores, n_layers, n_heads) in 0..1 */
    int best_layer[HEAD_N_SCORES];     /* per panel: the head of the highest    */
    int best_head[HEAD_N_SCORES];      /* score (the first in layer, head order) */
    int has_chance;                    /* the file has the scores' *_chance columns */
    double *chance;                    /* (n_scores, n_layers) a uniform head's score */
} HeadsData;

/* 1 when the value of panel p at (layer, head) is at or below the chance
 * level of its layer (0 without chance levels). */
int heads_at_chance(const HeadsData *d, int p, int layer, int head);

/* Read a heads CSV and keep scores[0..n_scores) (the columns layer, head and
 * those must be there; others are ignored). `manifest` is the manifest of
 * `seqrep heads` that lies beside the file, or NULL when there is none: its
 * "model", "adapter", "r", "data" or "random" (with "icl_score",
 * "loss_first_copy", "loss_last_copy") go into the caption. Free with
 * heads_data_free. 0, or -1 with err. */
int heads_data_load(HeadsData *d, const char *path, const HeadScore *scores, int n_scores, const cJSON *manifest,
                    SrError *err);
void heads_data_free(HeadsData *d);

/* The value of panel p at (layer, head). */
double heads_value(const HeadsData *d, int p, int layer, int head);

/* CSV of the drawn numbers: score,layer,head,value,best (best 1 for the
 * outlined head of each score), with chance levels also chance (the layer's)
 * and at_chance (1: marked as at or below it), one row per panel, layer and
 * head. */
void heads_data_write_csv(const HeadsData *d, FILE *out);

#endif
