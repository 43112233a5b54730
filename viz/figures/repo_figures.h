/* repo_figures.h — the RePo figures (repo-z, repo-repeat, repo-range,
 * repo-needle) as rows of the table of figures (figures.c): how `seqrep
 * plot` loads each from its options (0, or -1 with err), and its painter,
 * numbers, release and meta on a Figure. repo-z and repo-repeat share their
 * data (Figure.repo_z), its numbers, release and meta. */
#ifndef SEQREP_VIZ_REPO_FIGURES_H
#define SEQREP_VIZ_REPO_FIGURES_H

#include <stdio.h>

#include <cairo.h>
#include <cJSON.h>

#include "figures/figure_data.h"
#include "figures/figure_request.h"

/* repo-z: z from a CSV (--results) or computed here by running --model on
 * the sentence (--text or --data/--sentence), repeated --r times, as the
 * attention figure does; --layer (default the last) and --head (a number,
 * default 0) choose the positions drawn. *seed gets the model's training
 * seed. repo-repeat: the same, from an input of two copies or more. */
int repo_z_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err);
int repo_z_figure_paint(cairo_t *cr, const Figure *f, double w, double h);
int repo_repeat_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err);
int repo_repeat_figure_paint(cairo_t *cr, const Figure *f, double w, double h);
void repo_z_figure_write_csv(const Figure *f, FILE *out);
void repo_z_figure_free(Figure *f);
FigureMeta *repo_z_figure_meta(Figure *f);

/* repo-range: --results, the TASK-range.csv of seqrep repo-eval --figures. */
int repo_range_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err);
int repo_range_figure_paint(cairo_t *cr, const Figure *f, double w, double h);
void repo_range_figure_write_csv(const Figure *f, FILE *out);
void repo_range_figure_free(Figure *f);
FigureMeta *repo_range_figure_meta(Figure *f);

/* repo-needle: --results, the TASK-attention.csv of seqrep repo-eval
 * --figures, at context length --length (default the longest). */
int repo_needle_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err);
int repo_needle_figure_paint(cairo_t *cr, const Figure *f, double w, double h);
void repo_needle_figure_write_csv(const Figure *f, FILE *out);
void repo_needle_figure_free(Figure *f);
FigureMeta *repo_needle_figure_meta(Figure *f);

#endif
