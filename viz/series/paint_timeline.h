/* paint_timeline.h — the painter of the timeline figure (timeline_data.h),
 * x the pre-training step on every panel:
 *
 *   heads  above: one line per layer x head of the score, the d->n_top
 *          heads coloured (palette_series, a marker each, named "L2H3" in
 *          the legend), the others thin and grey; below, when the series
 *          has it, the in-context learning score with its zero line, on the
 *          same x axis, so a phase change shows in both at the same step.
 *   loss   one panel: the training loss, and the losses on the first and
 *          the last copy of random sequences when the series has them. */
#ifndef SEQREP_VIZ_PAINT_TIMELINE_H
#define SEQREP_VIZ_PAINT_TIMELINE_H

#include <cairo.h>

#include "draw/axes.h"
#include "series/timeline_data.h"

/* Where the parts of the figure go: the panels' axes (the lower one only
 * with two panels), their plot rectangles sharing left and right edges, and
 * the left edge of the legends (each at the top of its panel). */
typedef struct {
    int n_panels;
    Axes upper, lower;
    double legend_x;
} TimelineLayout;

/* The layout of d on a w x h figure; measures text, draws nothing. */
void timeline_layout(cairo_t *cr, const TimelineData *d, double w, double h, TimelineLayout *out);

/* The grey of the heads that are not coloured. */
Rgb timeline_other_colour(const FigureStyle *s);

int paint_timeline(cairo_t *cr, const TimelineData *d, double w, double h);

#endif
