/* repo_range_data.h — the numbers of the RePo figure repo-range: max z -
 * min z per RePo layer against context length (mean over examples and
 * heads), beside the range of the token index (length - 1) that RoPE uses,
 * read from the range CSV `seqrep repo-eval --figures DIR` writes.
 *
 * Input: range CSV   task,method,layer,length,z_range_mean,z_range_max,index_range
 *
 * Painted by paint_repo_range.h. */
#ifndef SEQREP_VIZ_REPO_RANGE_DATA_H
#define SEQREP_VIZ_REPO_RANGE_DATA_H

#include <stdio.h>

#include "draw/figure.h"

typedef struct {
    FigureMeta meta;
    int n_layers, n_lengths;
    int *layer;          /* (n_layers) RePo layers, increasing   */
    int *length;         /* (n_lengths) increasing               */
    double *range;       /* (n_layers, n_lengths) mean max - min, NAN = missing */
    double *range_max;   /* (n_layers, n_lengths) largest over rows and heads   */
    int *index_range;    /* (n_lengths) length - 1               */
} RepoRangeData;

/* Read a range CSV (rows of method repo). Free with repo_range_data_free. */
int repo_range_data_load(RepoRangeData *d, const char *path, SrError *err);
void repo_range_data_free(RepoRangeData *d);

/* CSV of the drawn numbers: layer,length,z_range_mean,z_range_max,index_range. */
void repo_range_data_write_csv(const RepoRangeData *d, FILE *out);

#endif
