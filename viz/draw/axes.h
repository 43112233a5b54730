/* axes.h — a 2-D plot area: data ranges mapped to a device rectangle, with
 * "nice" ticks (1, 2, 5 times a power of ten), grid lines, tick labels and
 * axis labels drawn in the figure's style. */
#ifndef SEQREP_VIZ_AXES_H
#define SEQREP_VIZ_AXES_H

#include <cairo.h>

#include "draw/figure.h"

#define AXES_MAX_TICKS 32

typedef struct {
    FigureRect area;              /* the plot rectangle in device units       */
    double xmin, xmax, ymin, ymax;/* data range shown (xmin < xmax, ymin < ymax) */
    double xticks[AXES_MAX_TICKS], yticks[AXES_MAX_TICKS];
    int n_xticks, n_yticks;
    const char *xlabel, *ylabel;  /* axis titles (not owned; may be NULL)     */
    const char *xfmt, *yfmt;      /* printf formats of tick labels, e.g. "%g" */
    double yscale_label;          /* tick labels show value * this (e.g. 100 for %) */
    int y_down;                   /* 1: data y grows downwards (the rows of a grid, 0 on top) */
} Axes;

/* Nice ticks covering [lo, hi]: steps of 1, 2 or 5 times a power of ten,
 * about `target` of them; writes at most AXES_MAX_TICKS and returns the
 * count. With integer_only the step is at least 1. */
int axes_nice_ticks(double lo, double hi, int target, int integer_only, double *ticks);

/* Device x of data x, device y of data y (y grows upwards in data, or
 * downwards with y_down). */
double axes_x(const Axes *a, double x);
double axes_y(const Axes *a, double y);

/* Fill a: ranges, ticks (about 6 on x, 5 on y), labels and y upwards. Afterwards call
 * axes_fit to carve the plot rectangle out of `space`. */
void axes_init(Axes *a, double xmin, double xmax, double ymin, double ymax, int x_integer,
               int y_integer, const char *xlabel, const char *ylabel);

/* Widen the percent range [*lo, *hi] to whole tens within 0..100, at least
 * ten wide. */
void axes_percent_tens(double *lo, double *hi);

/* Make the y axis of a share 0..1 read in percent: ticks at 0, 1/n_steps,
 * ..., 1, labelled value x 100 with a "%" sign. */
void axes_y_percent(Axes *a, int n_steps);

/* Place the plot rectangle inside `space`, leaving room on the left and
 * bottom for the tick labels and axis titles (measured in the current font
 * sizes for scale unit). */
void axes_fit(Axes *a, cairo_t *cr, const FigureStyle *s, double unit, FigureRect space);

/* Draw grid lines, the frame, ticks, tick labels and axis titles. */
void axes_draw(const Axes *a, cairo_t *cr, const FigureStyle *s, double unit);

/* Clip drawing to the plot rectangle (pair with cairo_restore). */
void axes_clip(const Axes *a, cairo_t *cr);

#endif
