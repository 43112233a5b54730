/* attention_figure.h — the attention figure as a row of the table of
 * figures (figures.c): how `seqrep plot` loads it from its options (0, or -1
 * with err), and its painter (one map, or the layer x head overview),
 * numbers, release and meta on a Figure. */
#ifndef SEQREP_VIZ_ATTENTION_FIGURE_H
#define SEQREP_VIZ_ATTENTION_FIGURE_H

#include <stdio.h>

#include <cairo.h>
#include <cJSON.h>

#include "figures/figure_data.h"
#include "figures/figure_request.h"

/* attention: --model (and --adapter) run on --text or sentence --sentence of
 * --data, repeated --r times (--bos, --sep, --copy-positions, --mask);
 * --layer, --head, --scale, --overview, --last-copy-only choose the map.
 * *seed gets the model's training seed. */
int attention_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err);
/* The warning of figure_request_warn_unknown when most tokens of the loaded
 * sentence are unknown to model (counted by attention_data_unknown). */
void attention_figure_warn_unknown(const Figure *f, const char *command, const char *model);
int attention_figure_paint(cairo_t *cr, const Figure *f, double w, double h);
void attention_figure_write_csv(const Figure *f, FILE *out);
void attention_figure_free(Figure *f);
FigureMeta *attention_figure_meta(Figure *f);

#endif
