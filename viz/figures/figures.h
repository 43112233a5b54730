/* figures.h — any one of the figures, by name: its data, its painter, its
 * numbers. `seqrep plot` and the interactive window handle figures through
 * this, so adding a figure means adding one case here.
 *
 *   mask        paint_mask.h         the kn x kn causal mask
 *   proportion  paint_proportion.h   share of full blocks against r
 *   attention   paint_attention.h    one attention map (or the overview grid)
 *   layers      paint_layers.h       probe F1 against layer, per r
 *   exit        paint_exit.h         F1 against relative cost, Pareto front
 *   flow        paint_flow.h         where last-copy attention goes, per layer
 *   repo-z      paint_repo_z.h       RePo positions z against token index
 *   repo-repeat paint_repo_z.h       z per copy of a repeated sentence
 *   repo-range  paint_repo_range.h   max z - min z per layer against length
 *   repo-needle paint_repo_needle.h  attention on the needle and next to it */
#ifndef SEQREP_VIZ_FIGURES_H
#define SEQREP_VIZ_FIGURES_H

#include <stdio.h>

#include <cairo.h>

#include "attention/paint_attention.h"
#include "attention/paint_attention_overview.h"
#include "mask/paint_mask.h"
#include "mask/paint_proportion.h"
#include "repo/paint_repo_needle.h"
#include "repo/paint_repo_range.h"
#include "repo/paint_repo_z.h"
#include "results/paint_exit.h"
#include "results/paint_flow.h"
#include "results/paint_layers.h"

typedef enum {
    FIGURE_MASK = 0, FIGURE_PROPORTION = 1, FIGURE_ATTENTION = 2, FIGURE_LAYERS = 3,
    FIGURE_EXIT = 4, FIGURE_FLOW = 5, FIGURE_REPO_Z = 6, FIGURE_REPO_REPEAT = 7,
    FIGURE_REPO_RANGE = 8, FIGURE_REPO_NEEDLE = 9, FIGURE_COUNT = 10
} FigureKind;

/* One figure: the kind says which member holds the data. */
typedef struct {
    FigureKind kind;
    int overview;              /* attention: draw the layer x head grid */
    MaskData mask;
    ProportionData proportion;
    AttentionData attention;
    LayersData layers;
    ExitData exit;
    FlowData flow;
    RepoZData repo_z;          /* repo-z and repo-repeat */
    RepoRangeData repo_range;
    RepoNeedleData repo_needle;
} Figure;

/* Parse a figure name ("mask", ...); 0 or -1. The name of a kind. */
int figure_kind_parse(const char *name, FigureKind *out);
const char *figure_kind_name(FigureKind kind);

/* The names of all figures joined by ", " (for messages). */
const char *figure_kind_list(void);

/* The meta (style, title, caption) of the figure's data. */
FigureMeta *figure_meta(Figure *f);

/* Draw f on cr (the painter of its kind). 0 or -1. */
int figure_paint(cairo_t *cr, const Figure *f, double w, double h);

/* Write the numbers behind f as CSV. */
void figure_write_numbers(const Figure *f, FILE *out);

/* Default size (pixels / points) of a figure of this kind. */
void figure_default_size(const Figure *f, double *w, double *h);

/* Release the data of f's kind. */
void figure_free(Figure *f);

#endif
