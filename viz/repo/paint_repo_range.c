/* paint_repo_range.c — the painter of repo-range: max z - min z per RePo
 * layer against context length, beside the token index range of RoPE. */
#include <math.h>
#include <stdio.h>

#include "draw/axes.h"
#include "draw/legend.h"
#include "repo/paint_repo_range.h"
#include "repo/repo_plot.h"

/* The y range from 0: the z ranges (means and largest heads), stretched to
 * the token index range of RoPE when that does not flatten the RePo lines.
 * Returns 1 when the index range is drawn; *max_index is its largest. */
static int y_range(const RepoRangeData *d, double *lo, double *hi, int *max_index)
{
    double lo2 = 0.0, hi2 = 0.0;
    size_t cells = (size_t)d->n_layers * d->n_lengths;
    *lo = *hi = 0.0;
    repo_plot_min_max(d->range, (int)cells, lo, hi);
    if (repo_plot_min_max(d->range_max, (int)cells, &lo2, &hi2) && hi2 > *hi) *hi = hi2;
    *max_index = 0;
    for (int t = 0; t < d->n_lengths; t++)
        if (d->index_range[t] > *max_index) *max_index = d->index_range[t];
    int show_index = *max_index <= 4.0 * *hi;
    if (show_index) *hi = *max_index;
    *lo = 0.0;
    repo_plot_pad_range(lo, hi);
    *lo = 0.0;
    return show_index;
}

/* The legend: one line per layer, the largest head and the token index
 * (named off scale when it is not drawn); labels and note are storage for
 * the text. Returns the number of entries. */
static int legend_entries(const RepoRangeData *d, const FigureStyle *s, int show_index, int max_index,
                          LegendEntry *e, char labels[][32], char note[96])
{
    int n_e = 0;
    for (int l = 0; l < d->n_layers && n_e < REPO_PLOT_MAX_SERIES; l++) {
        snprintf(labels[n_e], 32, "layer %d", d->layer[l]);
        e[n_e] = legend_line(labels[n_e], palette_series(l), l % MARKER_COUNT, DASH_SOLID);
        n_e++;
    }
    e[n_e++] = legend_line("largest head", figure_foreground(s), MARKER_NONE, DASH_DOTTED);
    if (show_index)
        snprintf(note, 96, "token index (RoPE)");
    else
        snprintf(note, 96, "token index (RoPE): %d..%d, off scale", d->index_range[0], max_index);
    e[n_e++] = legend_line(note, figure_muted(s), MARKER_NONE, DASH_DASHED);
    return n_e;
}

/* The lines, clipped to the plot: the token index range (dashed, when
 * drawn), then per layer the mean range (solid) and the largest head
 * (dotted), broken where a length is missing. */
static void draw_lines(cairo_t *cr, const RepoRangeData *d, const FigureStyle *s, double u, int show_index,
                       const Axes *a)
{
    double lw4 = 4.0 * u;
    if (show_index) {
        rgb_set(cr, figure_muted(s));
        cairo_set_line_width(cr, lw4);
        dash_set(cr, DASH_DASHED, lw4);
        for (int t = 0; t < d->n_lengths; t++)
            cairo_line_to(cr, axes_x(a, d->length[t]), axes_y(a, d->index_range[t]));
        cairo_stroke(cr);
    }
    for (int l = 0; l < d->n_layers; l++)
        for (int pass = 0; pass < 2; pass++) {
            const double *v = pass == 0 ? d->range : d->range_max;
            rgb_set(cr, palette_series(l));
            cairo_set_line_width(cr, pass == 0 ? lw4 : 0.6 * lw4);
            dash_set(cr, pass == 0 ? DASH_SOLID : DASH_DOTTED, lw4);
            for (int t = 0; t < d->n_lengths; t++) {
                double y = v[(size_t)l * d->n_lengths + t];
                if (isnan(y)) {
                    cairo_new_sub_path(cr);
                    continue;
                }
                cairo_line_to(cr, axes_x(a, d->length[t]), axes_y(a, y));
            }
            cairo_stroke(cr);
        }
}

/* A marker on every measured mean range. */
static void draw_markers(cairo_t *cr, const RepoRangeData *d, const FigureStyle *s, double u, const Axes *a)
{
    Rgb bg = figure_background(s);
    for (int l = 0; l < d->n_layers; l++)
        for (int t = 0; t < d->n_lengths; t++) {
            double y = d->range[(size_t)l * d->n_lengths + t];
            if (!isnan(y))
                marker_draw(cr, l % MARKER_COUNT, axes_x(a, d->length[t]), axes_y(a, y), 9 * u, palette_series(l),
                            bg, 2 * u);
        }
}

int paint_repo_range(cairo_t *cr, const RepoRangeData *d, double w, double h)
{
    const FigureStyle *s = &d->meta.style;
    FigureRect content;
    double u = figure_begin(cr, &d->meta, w, h, &content);
    if (d->n_layers < 1 || d->n_lengths < 1) return repo_plot_notice(cr, s, u, &content, "no ranges to draw");
    double lo, hi;
    int max_index, show_index = y_range(d, &lo, &hi, &max_index);
    LegendEntry e[REPO_PLOT_MAX_SERIES + 3];
    char labels[REPO_PLOT_MAX_SERIES][32], note[96];
    int n_e = legend_entries(d, s, show_index, max_index, e, labels, note);
    FigureRect plot = legend_room(cr, s, u, e, n_e, content);
    double xlo = d->length[0], xhi = d->length[d->n_lengths - 1];
    if (xhi <= xlo) xlo -= 1.0, xhi += 1.0;
    double xpad = 0.05 * (xhi - xlo);
    Axes a;
    axes_init(&a, xlo - xpad, xhi + xpad, lo, hi, 1, 0, "context length (tokens)", "range of z (max - min)");
    axes_fit(&a, cr, s, u, plot);
    axes_draw(&a, cr, s, u);
    axes_clip(&a, cr);
    draw_lines(cr, d, s, u, show_index, &a);
    cairo_restore(cr);
    cairo_save(cr);
    draw_markers(cr, d, s, u, &a);
    legend_draw_right_of(cr, s, u, e, n_e, plot, a.area.y);
    cairo_restore(cr);
    return figure_finish(cr);
}
