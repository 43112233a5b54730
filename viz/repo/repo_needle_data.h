/* repo_needle_data.h — the numbers of the RePo figure repo-needle: the
 * attention per token that the query pays to the needle and to the tokens
 * next to it, per layer, for each method, read from the attention CSV
 * `seqrep repo-eval --figures DIR` writes.
 *
 * Input: attention CSV   task,method,layer,length,needle_mass,near_mass,needle_tokens,near_tokens
 *
 * Painted by paint_repo_needle.h. */
#ifndef SEQREP_VIZ_REPO_NEEDLE_DATA_H
#define SEQREP_VIZ_REPO_NEEDLE_DATA_H

#include <stdio.h>

#include "draw/figure.h"

#define REPO_FIGURE_MAX_METHODS 8

typedef struct {
    FigureMeta meta;
    int length;                                 /* the context length drawn   */
    int n_methods, n_layers;
    char method[REPO_FIGURE_MAX_METHODS][16];   /* in file order              */
    double *needle;      /* (n_methods, n_layers) attention per needle token   */
    double *near;        /* (n_methods, n_layers) attention per nearby token   */
    double needle_tokens, near_tokens;          /* tokens counted (means)     */
} RepoNeedleData;

/* Read an attention CSV at context length `length` (<= 0: the longest in
 * the file). Every (method, layer) must appear once for that length. Free
 * with repo_needle_data_free. */
int repo_needle_data_load(RepoNeedleData *d, const char *path, int length, SrError *err);
void repo_needle_data_free(RepoNeedleData *d);

/* CSV of the drawn numbers: method,layer,needle_per_token,near_per_token. */
void repo_needle_data_write_csv(const RepoNeedleData *d, FILE *out);

#endif
