/* paint_repo_needle.c — the painter of repo-needle: per layer, the attention
 * per token on the needle (solid) and next to it (hatched), one bar per
 * method. */
#include <math.h>
#include <stdio.h>

#include "draw/axes.h"
#include "draw/legend.h"
#include "repo/paint_repo_needle.h"
#include "repo/repo_plot.h"

int paint_repo_needle(cairo_t *cr, const RepoNeedleData *d, double w, double h)
{
    const FigureStyle *s = &d->meta.style;
    FigureRect content;
    double u = figure_begin(cr, &d->meta, w, h, &content);
    if (d->n_methods < 1 || d->n_layers < 1) return repo_plot_notice(cr, s, u, &content, "no attention to draw");
    Rgb bg = figure_background(s), fg = figure_foreground(s);
    LegendEntry e[REPO_FIGURE_MAX_METHODS + 2];
    int n_e = 0;
    for (int m = 0; m < d->n_methods; m++)
        e[n_e++] = legend_patch(d->method[m], palette_series(m), 0);
    e[n_e++] = legend_patch("on the needle", fg, 1);
    e[n_e++] = legend_patch("next to it (hatched)", bg, 1);
    FigureRect plot = legend_room(cr, s, u, e, n_e, content);

    double lo = 0.0, hi = 0.0, lo2 = 0.0, hi2 = 0.0;
    size_t cells = (size_t)d->n_methods * d->n_layers;
    repo_plot_min_max(d->needle, (int)cells, &lo, &hi);
    if (repo_plot_min_max(d->near, (int)cells, &lo2, &hi2) && hi2 > hi) hi = hi2;
    lo = 0.0;
    if (!(hi > 0.0)) hi = 1.0;
    hi *= 1.08;
    Axes a;
    axes_init(&a, -0.5, d->n_layers - 0.5, lo, hi, 1, 0, "layer", "attention per token");
    a.n_xticks = 0;
    for (int l = 0; l < d->n_layers && l < AXES_MAX_TICKS; l++) a.xticks[a.n_xticks++] = l;
    axes_fit(&a, cr, s, u, plot);
    axes_draw(&a, cr, s, u);
    double group = axes_x(&a, 1.0) - axes_x(&a, 0.0);
    double bar = 0.8 * group / (2 * d->n_methods);
    for (int l = 0; l < d->n_layers; l++)
        for (int m = 0; m < d->n_methods; m++)
            for (int kind = 0; kind < 2; kind++) {
                size_t k = (size_t)m * d->n_layers + l;
                double v = kind == 0 ? d->needle[k] : d->near[k];
                double x = axes_x(&a, l) - 0.4 * group + (2 * m + kind) * bar;
                double y0 = axes_y(&a, 0.0), y1 = axes_y(&a, v);
                Rgb c = palette_series(m);
                cairo_rectangle(cr, x, y1, bar, y0 - y1);
                if (kind == 0) {
                    rgb_set(cr, c);
                    cairo_fill_preserve(cr);
                } else {
                    cairo_pattern_t *p = pattern_hatch(rgb_mix(bg, c, 0.15), c, 9 * u, 2.5 * u);
                    cairo_set_source(cr, p);
                    cairo_fill_preserve(cr);
                    cairo_pattern_destroy(p);
                }
                rgb_set(cr, fg);
                cairo_set_line_width(cr, 1.2 * u);
                cairo_stroke(cr);
            }
    legend_draw_right_of(cr, s, u, e, n_e, plot, a.area.y);
    return figure_finish(cr);
}
