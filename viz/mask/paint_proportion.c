/* paint_proportion.c — the painter of the full-block share figure. */
#include <stdio.h>

#include "draw/axes.h"
#include "draw/legend.h"
#include "mask/paint_proportion.h"

Rgb proportion_curve_colour(void)
{
    return palette_okabe_ito(OKABE_BLUE);
}

Rgb proportion_point_colour(void)
{
    return palette_okabe_ito(OKABE_VERMILLION);
}

int paint_proportion(cairo_t *cr, const ProportionData *d, double w, double h)
{
    const FigureStyle *s = &d->meta.style;
    FigureRect content;
    double u = figure_begin(cr, &d->meta, w, h, &content);

    LegendEntry e[3] = {
        legend_line("closed form (k-1)/(k+1)", proportion_curve_colour(), MARKER_NONE, DASH_SOLID),
        legend_marker("counted from the mask", proportion_point_colour(), MARKER_CIRCLE),
        legend_line("limit as r grows: 100%", figure_muted(s), MARKER_NONE, DASH_DASHED),
    };
    double lw, lh;
    legend_size(cr, s, u, e, 3, &lw, &lh);
    FigureRect plot = content;
    plot.w -= lw + 30 * u;

    double r_max = d->n_points ? d->r[d->n_points - 1] : 1;
    if (r_max < 1) r_max = 1;
    Axes a;
    axes_init(&a, -0.02 * r_max - 0.1, r_max * 1.04 + 0.1, 0, 1.05, 1, 0, "repetitions r  (k = r + 1 copies)",
              "share of full blocks");
    if (r_max <= 12) {
        a.n_xticks = 0;
        for (int r = 0; r <= (int)r_max; r++) a.xticks[a.n_xticks++] = r;
    }
    axes_y_percent(&a, 5);
    axes_fit(&a, cr, s, u, plot);
    axes_draw(&a, cr, s, u);

    axes_clip(&a, cr);
    /* the limit */
    double lw4 = 4 * u;
    rgb_set(cr, figure_muted(s));
    cairo_set_line_width(cr, 2.5 * u);
    dash_set(cr, DASH_DASHED, 2.5 * u);
    cairo_move_to(cr, a.area.x, axes_y(&a, 1));
    cairo_line_to(cr, a.area.x + a.area.w, axes_y(&a, 1));
    cairo_stroke(cr);
    dash_set(cr, DASH_SOLID, lw4);
    /* the closed-form curve */
    rgb_set(cr, proportion_curve_colour());
    cairo_set_line_width(cr, lw4);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    for (int i = 0; i < PROPORTION_CURVE_SAMPLES; i++) {
        double x = axes_x(&a, d->curve_r[i]), y = axes_y(&a, d->curve_share[i]);
        if (i == 0) cairo_move_to(cr, x, y);
        else cairo_line_to(cr, x, y);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
    /* counted points, labelled with their share when there are few */
    double tick = figure_font_size(TEXT_TICK, u);
    figure_font(cr, s, tick, 0);
    char buf[32];
    for (int i = 0; i < d->n_points; i++) {
        double x = axes_x(&a, d->r[i]), y = axes_y(&a, d->counted[i]);
        marker_draw(cr, MARKER_CIRCLE, x, y, 11 * u, proportion_point_colour(), figure_background(s),
                    2.5 * u);
        if (d->n_points <= 12) {
            snprintf(buf, sizeof buf, "%.0f%%", 100 * d->counted[i]);
            rgb_set(cr, figure_foreground(s));
            figure_text(cr, buf, x - 8 * u, y - 8 * u, 1, 1);
        }
    }
    legend_draw(cr, s, u, e, 3, plot.x + plot.w + 30 * u, a.area.y + a.area.h - lh);
    return figure_finish(cr);
}
