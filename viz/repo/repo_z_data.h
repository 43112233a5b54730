/* repo_z_data.h — the numbers of the RePo figures of the positions z a
 * model computes (repo-z, repo-repeat), read from the CSV `seqrep
 * repo-positions` writes (or taken from a forward pass, repo_z_attention.h).
 *
 * Input: z CSV   layer,head,index,token,copy,word,z
 *
 * One layer and head: z per token, with its copy and word index in a
 * repeated input, and the values beyond the 1.5 IQR fences clipped to the
 * fence (as the authors' demo does). Painted by paint_repo_z.h. */
#ifndef SEQREP_VIZ_REPO_Z_DATA_H
#define SEQREP_VIZ_REPO_Z_DATA_H

#include <stdio.h>

#include "draw/figure.h"

typedef struct {
    FigureMeta meta;
    int layer, head;
    int n;             /* tokens                                            */
    int *index;        /* (n) token index, increasing                       */
    double *z;         /* (n) z as computed                                 */
    double *shown;     /* (n) z clipped to [lo_fence, hi_fence]             */
    int *copy;         /* (n) copy of a repeated input, -1 = special / none */
    int *word;         /* (n) word index within its copy, -1 = none         */
    char **token;      /* (n) owned token text                              */
    int n_copies;      /* 1 + largest copy (0 when the input was not repeated) */
    double q1, q3, lo_fence, hi_fence;  /* quartiles and q -+ 1.5 IQR       */
    int n_clipped;
} RepoZData;

/* Read a z CSV and keep layer `layer` (-1: the last layer in the file) and
 * head `head`. Fails naming the file: a missing column, no rows for that
 * layer and head ("z.csv: no rows for layer 1, head 5 (layers 2..3, heads
 * 0..3)"). Fills a default title and caption. Free with repo_z_data_free. */
int repo_z_data_load(RepoZData *d, const char *path, int layer, int head, SrError *err);
void repo_z_data_free(RepoZData *d);

/* Allocate d's arrays for n tokens (token strings NULL) and set n, layer,
 * head; 0, or -1 when out of memory (free with repo_z_data_free). */
int repo_z_data_alloc(RepoZData *d, int n, int layer, int head);

/* After d->n, layer, head, z, copy are set: quartiles, fences, the clipped
 * values in shown, n_clipped, and the title and a caption naming `source`. */
void repo_z_data_finish(RepoZData *d, const char *source);

/* Quartiles (linear interpolation) of v[0..n) into q1, q3 (n >= 1). */
void repo_quartiles(const double *v, int n, double *q1, double *q3);

/* CSV of the drawn numbers: index,token,copy,word,z,shown,clipped. */
void repo_z_data_write_csv(const RepoZData *d, FILE *out);

/* The hover text of point i: "token 7 'cat' (copy 2, word 3)\nz = 0.1234",
 * plus "(drawn at the fence 0.5)" when it is clipped; "" for no point. */
void repo_z_tooltip(const RepoZData *d, int i, char *out, size_t cap);

#endif
