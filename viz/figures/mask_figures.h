/* mask_figures.h — the mask and proportion figures as rows of the table of
 * figures (figures.c): how `seqrep plot` loads each from its options (0, or
 * -1 with err), and its painter, numbers, release and meta on a Figure. */
#ifndef SEQREP_VIZ_MASK_FIGURES_H
#define SEQREP_VIZ_MASK_FIGURES_H

#include <stdio.h>

#include <cairo.h>
#include <cJSON.h>

#include "figures/figure_data.h"
#include "figures/figure_request.h"

/* mask: --n, one --r, --bos (default none), --sep. */
int mask_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err);
int mask_figure_paint(cairo_t *cr, const Figure *f, double w, double h);
void mask_figure_write_csv(const Figure *f, FILE *out);
void mask_figure_free(Figure *f);
FigureMeta *mask_figure_meta(Figure *f);

/* proportion: --results (a seqrep blocks CSV), or counted here from --n and
 * --r LIST with --bos and --sep. */
int proportion_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err);
int proportion_figure_paint(cairo_t *cr, const Figure *f, double w, double h);
void proportion_figure_write_csv(const Figure *f, FILE *out);
void proportion_figure_free(Figure *f);
FigureMeta *proportion_figure_meta(Figure *f);

#endif
