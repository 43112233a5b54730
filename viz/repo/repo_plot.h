/* repo_plot.h — what the RePo painters (paint_repo_z.c, paint_repo_range.c,
 * paint_repo_needle.c) share: the data range of a series, its padding, and
 * the one-line notice drawn in place of a figure with nothing to show. */
#ifndef SEQREP_VIZ_REPO_PLOT_H
#define SEQREP_VIZ_REPO_PLOT_H

#include <cairo.h>

#include "draw/figure.h"

/* The most series (copies, layers) a RePo figure names in its legend. */
#define REPO_PLOT_MAX_SERIES 8

/* Smallest and largest of v[0..n) (NaN skipped) into lo, hi; 0 if none. */
int repo_plot_min_max(const double *v, int n, double *lo, double *hi);

/* Pad [lo, hi] by 6% on both sides (or to +-1 when empty). */
void repo_plot_pad_range(double *lo, double *hi);

/* Draw a one-line notice in the middle of the content area c (scale unit
 * u) in place of a figure with nothing to show, and finish the painter:
 * figure_finish's 0 or -1. */
int repo_plot_notice(cairo_t *cr, const FigureStyle *s, double u, const FigureRect *c, const char *text);

#endif
