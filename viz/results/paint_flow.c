/* paint_flow.c — the painter of the attention-flow figure: stacked bars,
 * and beside each, when the data has them, a thin outlined bar of the
 * chance levels (a uniform head's shares under the same mask). */
#include <stdio.h>

#include "draw/axes.h"
#include "draw/legend.h"
#include "results/paint_flow.h"

/* The colour of a category's bar part. Neighbours in the stack differ in
 * luminance by at least 0.2 (sRGB weights), so a black-and-white print still
 * tells them apart (test_viz: test_light_theme_grayscale). */
Rgb flow_category_colour(FlowCategory c)
{
    static const int colour[FLOW_N_CATEGORIES] = {OKABE_BLUE, OKABE_YELLOW, OKABE_VERMILLION,
                                                  OKABE_SKY_BLUE, OKABE_BLACK};
    return palette_okabe_ito(colour[(int)c % FLOW_N_CATEGORIES]);
}

const char *flow_category_label(FlowCategory c)
{
    static const char *label[FLOW_N_CATEGORIES] = {
        "own copy", "earlier copies, left of the word", "earlier copies, same word",
        "earlier copies, right of the word", "sink (<bos> / <sep>)"};
    return label[(int)c % FLOW_N_CATEGORIES];
}

/* The thin bar of layer l's chance levels at x (width bar): the same
 * stack in the same colours, outlined in the foreground colour. */
static void paint_chance_bar(cairo_t *cr, const FlowData *d, const Axes *a, int l, double x, double bar, double u)
{
    const FigureStyle *s = &d->meta.style;
    double bottom = 0;
    for (int c = 0; c < FLOW_N_CATEGORIES; c++) {
        double v = d->chance[l * FLOW_N_CATEGORIES + c];
        if (v < 0) v = 0;
        double y0 = axes_y(a, bottom), y1 = axes_y(a, bottom + v);
        rgb_set(cr, flow_category_colour(c));
        cairo_rectangle(cr, x, y1, bar, y0 - y1);
        cairo_fill(cr);
        bottom += v;
    }
    rgb_set(cr, figure_foreground(s));
    cairo_set_line_width(cr, 1.5 * u);
    cairo_rectangle(cr, x, axes_y(a, bottom), bar, axes_y(a, 0) - axes_y(a, bottom));
    double acc = 0;
    for (int c = 0; c < FLOW_N_CATEGORIES - 1; c++) {
        acc += d->chance[l * FLOW_N_CATEGORIES + c];
        cairo_move_to(cr, x, axes_y(a, acc));
        cairo_line_to(cr, x + bar, axes_y(a, acc));
    }
    cairo_stroke(cr);
}

int paint_flow(cairo_t *cr, const FlowData *d, double w, double h)
{
    const FigureStyle *s = &d->meta.style;
    FigureRect content;
    double u = figure_begin(cr, &d->meta, w, h, &content);

    /* legend lists the categories top to bottom in the order they stack,
     * then the thin bar of the chance levels */
    LegendEntry e[FLOW_N_CATEGORIES + 1];
    for (int c = 0; c < FLOW_N_CATEGORIES; c++) {
        int cat = FLOW_N_CATEGORIES - 1 - c;
        e[c] = legend_patch(flow_category_label(cat), flow_category_colour(cat), 0);
    }
    int n_entries = FLOW_N_CATEGORIES;
    if (d->has_chance) e[n_entries++] = legend_patch("thin bar: a uniform head (chance)", figure_muted(s), 1);
    FigureRect plot = legend_room(cr, s, u, e, n_entries, content);

    Axes a;
    axes_init(&a, -0.6, d->n_layers - 0.4, 0, 1, 1, 0, "layer", "share of last-copy attention");
    a.n_xticks = 0;
    int step = d->n_layers > 16 ? (d->n_layers + 15) / 16 : 1;
    for (int l = 0; l < d->n_layers && a.n_xticks < AXES_MAX_TICKS; l += step) a.xticks[a.n_xticks++] = l;
    axes_y_percent(&a, 4);
    axes_fit(&a, cr, s, u, plot);
    axes_draw(&a, cr, s, u);

    double spacing = axes_x(&a, 1) - axes_x(&a, 0);
    double bar = (d->has_chance ? 0.56 : 0.72) * spacing, thin = 0.14 * spacing;
    double font = figure_font_size(d->n_layers > 8 ? TEXT_SMALL : TEXT_TICK, u);
    char buf[16];
    for (int l = 0; l < d->n_layers; l++) {
        double x = axes_x(&a, l) - (d->has_chance ? (bar + thin + 0.04 * spacing) / 2 : bar / 2), bottom = 0;
        for (int c = 0; c < FLOW_N_CATEGORIES; c++) {
            double v = d->share[l * FLOW_N_CATEGORIES + c];
            if (v < 0) v = 0;
            double y0 = axes_y(&a, bottom), y1 = axes_y(&a, bottom + v);
            rgb_set(cr, flow_category_colour(c));
            cairo_rectangle(cr, x, y1, bar, y0 - y1);
            cairo_fill(cr);
            figure_font(cr, s, font, 1);
            snprintf(buf, sizeof buf, "%.0f%%", 100 * v);
            if (y0 - y1 > 1.2 * font && figure_text_width(cr, buf) < 0.95 * bar) {
                rgb_set(cr, rgb_text_on(flow_category_colour(c)));
                figure_text(cr, buf, x + bar / 2, (y0 + y1) / 2, 0.5, 0.5);
            }
            bottom += v;
        }
        /* thin background lines between the segments of a bar */
        rgb_set(cr, figure_background(s));
        cairo_set_line_width(cr, 2 * u);
        double acc = 0;
        for (int c = 0; c < FLOW_N_CATEGORIES - 1; c++) {
            acc += d->share[l * FLOW_N_CATEGORIES + c];
            cairo_move_to(cr, x, axes_y(&a, acc));
            cairo_line_to(cr, x + bar, axes_y(&a, acc));
        }
        cairo_stroke(cr);
        if (d->has_chance) paint_chance_bar(cr, d, &a, l, x + bar + 0.04 * spacing, thin, u);
    }
    legend_draw_right_of(cr, s, u, e, n_entries, plot, a.area.y);
    return figure_finish(cr);
}
