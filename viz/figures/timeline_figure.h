/* timeline_figure.h — the timeline figure (series/paint_timeline.h) as a
 * row of the table of figures (figures.c): how `seqrep plot timeline` loads
 * it from --series, --what, --measure, --score and --top (0, or -1 with
 * err), and its painter, numbers, release and meta on a Figure. */
#ifndef SEQREP_VIZ_TIMELINE_FIGURE_H
#define SEQREP_VIZ_TIMELINE_FIGURE_H

#include <stdio.h>

#include <cairo.h>
#include <cJSON.h>

#include "figures/figure_data.h"
#include "figures/figure_request.h"

/* The defaults of the timeline's options. */
#define TIMELINE_DEFAULT_WHAT "heads"
#define TIMELINE_DEFAULT_MEASURE "heads-random"
#define TIMELINE_DEFAULT_SCORE "induction"
#define TIMELINE_DEFAULT_TOP 3

/* timeline: --series DIR (a train-lm --snapshots folder measured by
 * examples/series_heads.sh), --what heads | loss, --measure (heads),
 * --score (heads), --top (heads). The manifest records series.json and
 * every measure file read. */
int timeline_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err);
int timeline_figure_paint(cairo_t *cr, const Figure *f, double w, double h);
void timeline_figure_write_csv(const Figure *f, FILE *out);
void timeline_figure_free(Figure *f);
FigureMeta *timeline_figure_meta(Figure *f);

#endif
