/* paint_repo_needle.h — the RePo figure repo-needle: the attention per token
 * that the query pays to the needle and to the tokens next to it, per layer,
 * for each method, drawn from the attention CSV `seqrep repo-eval --figures
 * DIR` writes.
 *
 * Input: attention CSV   task,method,layer,length,needle_mass,near_mass,needle_tokens,near_tokens
 *
 * The data is read in repo_needle_data.c and painted in paint_repo_needle.c. */
#ifndef SEQREP_VIZ_PAINT_REPO_NEEDLE_H
#define SEQREP_VIZ_PAINT_REPO_NEEDLE_H

#include <stdio.h>

#include <cairo.h>

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

int paint_repo_needle(cairo_t *cr, const RepoNeedleData *d, double w, double h);

#endif
