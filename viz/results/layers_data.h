/* layers_data.h — the numbers of figure 4, probe span F1 against layer, one
 * line per r.
 *
 * Input: probe CSV files with columns r, layer, copy, split, f1 (precision and
 * recall may be there too; an optional seed column, or one file per seed).
 * Rows of the chosen split are grouped by (r, copy, layer); a series is the
 * mean over seeds and the sample standard deviation (when there is more than
 * one seed). Optional baselines (fine-tune or sweep CSV: method, r, exit,
 * split, f1) are references: per (method, r) the mean F1 at the deepest
 * exit. Painted by paint_layers.h. */
#ifndef SEQREP_VIZ_LAYERS_DATA_H
#define SEQREP_VIZ_LAYERS_DATA_H

#include <stdio.h>

#include "draw/figure.h"

typedef enum { COPY_LAST = 0, COPY_FIRST = 1 } ProbeCopy;

typedef struct {
    int r;
    ProbeCopy copy;
    int n;             /* points (layers)                 */
    int *layer;        /* (n) increasing layers            */
    double *mean;      /* (n) mean F1 over seeds, percent  */
    double *std;       /* (n) sample std (0 for one seed)  */
    int *n_seeds;      /* (n) values averaged              */
} LayersSeries;

typedef struct {
    char label[96];    /* e.g. "fine-tuned causal, r = 0" */
    double f1;         /* percent */
} LayersBaseline;

typedef struct {
    FigureMeta meta;
    char split[32];
    int n_series;
    LayersSeries *series;    /* sorted by r, then last before first copy */
    int n_baselines;
    LayersBaseline *baselines;
} LayersData;

/* Load probe CSVs paths[0..n_paths) (rows of `split` only) and the
 * baselines from baseline_paths[0..n_baseline_paths) (fine-tune CSVs, may be
 * none). 0 or -1 with file:line errors
 * ("probe.csv: missing column 'f1'", "probe.csv:4: copy must be last or
 * first, got 'middle'", "probe.csv: no rows with split 'test'"). */
int layers_data_load(LayersData *d, const char *const *paths, int n_paths, const char *split,
                     const char *const *baseline_paths, int n_baseline_paths, SrError *err);
void layers_data_free(LayersData *d);

/* CSV of the drawn numbers: kind,label,r,copy,layer,mean_f1,std_f1,n_seeds
 * with kind "probe" for the lines and "baseline" for the references. */
void layers_data_write_csv(const LayersData *d, FILE *out);

#endif
