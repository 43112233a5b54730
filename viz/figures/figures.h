/* figures.h — the table of figures: for every figure its name, the options
 * of `seqrep plot` it takes, how plot loads its data from them, its painter,
 * its numbers, how it is released and its default size. `seqrep plot`, the
 * explorer and its saves handle figures only through this table, so a new
 * figure is a data/painter pair, its entry functions and one row.
 *
 *   mask        mask/paint_mask.h              the kn x kn causal mask
 *   proportion  mask/paint_proportion.h        share of full blocks against r
 *   attention   attention/paint_attention.h    one attention map (or the overview grid)
 *   layers      results/paint_layers.h         probe F1 against layer, per r
 *   exit        results/paint_exit.h           F1 against relative cost, Pareto front
 *   flow        results/paint_flow.h           where last-copy attention goes, per layer
 *   repo-z      repo/paint_repo_z.h            RePo positions z against token index
 *   repo-repeat repo/paint_repo_z.h            z per copy of a repeated sentence
 *   repo-range  repo/paint_repo_range.h        max z - min z per layer against length
 *   repo-needle repo/paint_repo_needle.h       attention on the needle and next to it
 *   heads       results/paint_heads.h          head role scores, a layer x head grid per score
 *   timeline    series/paint_timeline.h        head scores or losses against the pre-training step */
#ifndef SEQREP_VIZ_FIGURES_H
#define SEQREP_VIZ_FIGURES_H

#include <stddef.h>
#include <stdio.h>

#include <cairo.h>
#include <cJSON.h>

#include "figures/figure_data.h"
#include "figures/figure_request.h"

/* One row of the table: a figure of one kind. */
typedef struct {
    const char *name;     /* as `seqrep plot NAME` takes it                            */
    const char *options;  /* the plot options it takes besides --out, --size, --theme,
                           * --font, --title and --caption, separated by spaces        */
    /* Load f's data from the options in q, recording its inputs in the
     * manifest and a model's training seed in *seed. 0 or -1 with err. */
    int (*load)(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err);
    /* Draw f on cr, w x h (the painter contract of draw/figure.h). 0 or -1. */
    int (*paint)(cairo_t *cr, const Figure *f, double w, double h);
    /* Write the numbers behind f as CSV. */
    void (*write_csv)(const Figure *f, FILE *out);
    /* Release f's data. */
    void (*free)(Figure *f);
    /* The meta (style, title, caption) of f's data. */
    FigureMeta *(*meta)(Figure *f);
    double width, height;    /* default size: pixels (PNG) or points (SVG, PDF)     */
    double overview_height;  /* default height of the overview (attention); 0: none */
} FigureRow;

/* The row of a kind, or NULL for a kind outside the table. */
const FigureRow *figure_row(FigureKind kind);

/* Parse a figure name ("mask", ...); 0, or -1 when no figure has it. The
 * name of a kind ("?" outside the table). */
int figure_kind_parse(const char *name, FigureKind *out);
const char *figure_kind_name(FigureKind kind);

/* The names of all figures joined by ", " into out (cap bytes), for
 * messages and the usage line. */
void figure_kind_list(char *out, size_t cap);

/* 1 if `seqrep plot` takes the option `name` (without "--") for a figure of
 * this kind, else 0. */
int figure_takes_option(FigureKind kind, const char *name);

/* Load, through the row of f->kind: see FigureRow.load. */
int figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err);

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
