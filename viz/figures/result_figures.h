/* result_figures.h — the figures of other commands' result files (layers,
 * exit, flow, heads) as rows of the table of figures (figures.c): how `seqrep
 * plot` loads each from its options (0, or -1 with err), and its painter,
 * numbers, release and meta on a Figure. */
#ifndef SEQREP_VIZ_RESULT_FIGURES_H
#define SEQREP_VIZ_RESULT_FIGURES_H

#include <stdio.h>

#include <cairo.h>
#include <cJSON.h>

#include "figures/figure_data.h"
#include "figures/figure_request.h"

/* layers: --results FILE[,FILE...] (probe CSVs), --baselines, --split. */
int layers_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err);
int layers_figure_paint(cairo_t *cr, const Figure *f, double w, double h);
void layers_figure_write_csv(const Figure *f, FILE *out);
void layers_figure_free(Figure *f);
FigureMeta *layers_figure_meta(Figure *f);

/* exit: --results FILE[,FILE...] (finetune or sweep CSVs), --cost, --split,
 * --dataset. */
int exit_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err);
int exit_figure_paint(cairo_t *cr, const Figure *f, double w, double h);
void exit_figure_write_csv(const Figure *f, FILE *out);
void exit_figure_free(Figure *f);
FigureMeta *exit_figure_meta(Figure *f);

/* flow: --results (an attnflow CSV) and --head. */
int flow_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err);
int flow_figure_paint(cairo_t *cr, const Figure *f, double w, double h);
void flow_figure_write_csv(const Figure *f, FILE *out);
void flow_figure_free(Figure *f);
FigureMeta *flow_figure_meta(Figure *f);

/* heads: --results (a CSV of seqrep heads) and --scores (default all). */
int heads_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err);
int heads_figure_paint(cairo_t *cr, const Figure *f, double w, double h);
void heads_figure_write_csv(const Figure *f, FILE *out);
void heads_figure_free(Figure *f);
FigureMeta *heads_figure_meta(Figure *f);

#endif
