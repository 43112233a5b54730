/* paint_repo_z.h — the RePo figures of the positions z a model computes,
 * drawn from the CSV `seqrep repo-positions` writes or from a forward pass.
 *
 *   repo-z       z against token index for one layer and head; values beyond
 *                the 1.5 IQR fences are clipped to the fence (as the authors'
 *                demo does) and drawn as hollow triangles; tokens of a
 *                repeated input are coloured by copy
 *   repo-repeat  z against word index, one line per copy of a repeated
 *                sentence: lines on top of each other = repeated words get
 *                the same z (the copies overlap)
 *
 * Input: z CSV   layer,head,index,token,copy,word,z
 *
 * The data is read in repo_z_data.c (and taken from a forward pass in
 * repo_z_attention.c); both figures are painted in paint_repo_z.c. */
#ifndef SEQREP_VIZ_PAINT_REPO_Z_H
#define SEQREP_VIZ_PAINT_REPO_Z_H

#include <stdio.h>

#include <cairo.h>

#include "attention/paint_attention.h"
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

/* z of layer `layer` and head `head` of the forward behind an attention
 * figure's data (a->repo_z, filled for a RePo model), with its tokens and
 * copies; layer -1 is the last. `source` names the input in the caption.
 * Fails when the model has no RePo weights ("no learned positions: ...")
 * or layer is not a RePo layer ("layer 1 has no learned positions (RePo
 * layers 2..3)"). Free with repo_z_data_free. */
int repo_z_data_from_attention(RepoZData *d, const AttentionData *a, int layer, int head,
                               const char *source, SrError *err);

/* The words a z figure's caption uses for an input run through a model:
 * "MODEL on \"SENTENCE\" (SOURCE), repeated k = r + 1 times, bos B, sep S,
 * mask M" (mask_plan NULL = causal; MODEL followed by attention_adapter_words
 * of adapter_path, NULL = none). `seqrep plot` and the explorer both
 * describe their frames with it, so the two captions agree. */
void repo_z_source(char *out, size_t cap, const char *model_path, const char *adapter_path,
                   const char *text, const char *text_source, int r, RepeatBos bos, RepeatSep sep,
                   const char *mask_plan);

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

int paint_repo_z(cairo_t *cr, const RepoZData *d, double w, double h);

/* The token whose point paint_repo_z draws (on a w x h figure) nearest to
 * pixel (x, y), within reach of its marker; -1 if none (for hover). */
int repo_z_point_at(cairo_t *cr, const RepoZData *d, double w, double h, double x, double y);

/* Needs a repeated input (n_copies >= 2). */
int paint_repo_repeat(cairo_t *cr, const RepoZData *d, double w, double h);

#endif
