/* proportion_data.h — the numbers of figure 2, the share of full blocks
 * against r.
 *
 * With k = r + 1 copies the causal mask over the words has k(k-1)/2 full
 * blocks and k causal ones (blocks.h), so the share of full blocks among the
 * visible blocks is (k-1)/(k+1) = r/(r+2). The data holds that closed form
 * sampled over real r and the shares counted from the mask (seqrep blocks,
 * or blocks_count here). Painted by paint_proportion.h. */
#ifndef SEQREP_VIZ_PROPORTION_DATA_H
#define SEQREP_VIZ_PROPORTION_DATA_H

#include <stdio.h>

#include "draw/figure.h"
#include "repeat/repeat.h"

/* Samples of the closed-form curve. */
#define PROPORTION_CURVE_SAMPLES 200

typedef struct {
    FigureMeta meta;
    int n_points;
    int *r;             /* (n_points) repetitions, increasing      */
    long long *full;    /* (n_points) counted full blocks          */
    long long *causal;  /* (n_points) counted causal blocks        */
    double *counted;    /* (n_points) full / (full + causal)       */
    double curve_r[PROPORTION_CURVE_SAMPLES];     /* r from 0 to the largest r */
    double curve_share[PROPORTION_CURVE_SAMPLES]; /* r / (r + 2)               */
} ProportionData;

/* Count every r of r_values[0..n_r) from the model's mask (blocks_count) for
 * a sentence of n tokens. 0 or -1. Free with proportion_data_free. */
int proportion_data_count(ProportionData *d, int n, const int *r_values, int n_r, RepeatBos bos,
                          RepeatSep sep, SrError *err);

/* Read the points from a `seqrep blocks --format csv` file (columns n, r,
 * bos, sep, full_blocks, causal_blocks are required). 0 or -1. */
int proportion_data_load(ProportionData *d, const char *path, SrError *err);

void proportion_data_free(ProportionData *d);

/* CSV of the numbers: r,k,full_blocks,causal_blocks,counted_share,closed_form_share. */
void proportion_data_write_csv(const ProportionData *d, FILE *out);

/* The closed form r / (r + 2) = (k-1)/(k+1). */
double proportion_closed_form(double r);

#endif
