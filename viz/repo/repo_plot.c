/* repo_plot.c — what the RePo painters share: the range of a series, its
 * padding, and the notice drawn in place of an empty figure. */
#include "repo/repo_plot.h"

#include <math.h>

/* Smallest and largest of v[0..n) (NaN skipped) into lo, hi; 0 if none. */
int repo_plot_min_max(const double *v, int n, double *lo, double *hi)
{
    int any = 0;
    for (int i = 0; i < n; i++) {
        if (isnan(v[i])) continue;
        if (!any || v[i] < *lo) *lo = v[i];
        if (!any || v[i] > *hi) *hi = v[i];
        any = 1;
    }
    return any;
}

/* Pad [lo, hi] by 6% on both sides (or to +-1 when empty). */
void repo_plot_pad_range(double *lo, double *hi)
{
    double span = *hi - *lo;
    if (!(span > 0.0)) span = fabs(*hi) > 0.0 ? fabs(*hi) : 1.0;
    *lo -= 0.06 * span;
    *hi += 0.06 * span;
}

/* Draw a one-line notice in the middle of the content area (empty data)
 * and finish the painter. */
int repo_plot_notice(cairo_t *cr, const FigureStyle *s, double u, const FigureRect *c, const char *text)
{
    rgb_set(cr, figure_foreground(s));
    figure_font(cr, s, figure_font_size(TEXT_LABEL, u), 0);
    figure_text(cr, text, c->x + c->w / 2, c->y + c->h / 2, 0.5, 0.5);
    return figure_finish(cr);
}
