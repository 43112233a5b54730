/* paint_layers.c — the painter of the probe-F1-per-layer figure. */
#include <math.h>
#include <stdio.h>

#include "draw/axes.h"
#include "draw/legend.h"
#include "results/paint_layers.h"

/* The most legend rows: r values, copy styles, band and baselines. */
#define LAYERS_MAX_LEGEND 40

int layers_colour_index(const LayersData *d, int r)
{
    int index = 0;
    for (int i = 0; i < d->n_series; i++) {
        if (d->series[i].r == r) return index;
        if (i + 1 < d->n_series && d->series[i + 1].r != d->series[i].r) index++;
    }
    return index;
}

/* Dash pattern of baseline b: dotted, dash-dot, long dashes, in turn. */
static DashKind layers_baseline_dash(int b)
{
    static const DashKind dash[3] = {DASH_DOTTED, DASH_DASH_DOT, DASH_LONG};
    return dash[b % 3];
}

/* Colour of baseline b: grey for the first three, the text colour for the next three, ... */
static Rgb layers_baseline_colour(int b, Rgb grey, Rgb text)
{
    return (b / 3) % 2 ? text : grey;
}

/* Fill the legend; returns the number of entries. labels: storage for text. */
static int legend_entries(const LayersData *d, LegendEntry *e, char labels[][96], Rgb fg, Rgb fg2)
{
    int n = 0, any_first = 0, any_band = 0;
    for (int i = 0; i < d->n_series && n < LAYERS_MAX_LEGEND - 8; i++) {
        const LayersSeries *s = &d->series[i];
        if (s->copy == COPY_FIRST) any_first = 1;
        for (int j = 0; j < s->n; j++)
            if (s->n_seeds[j] > 1) any_band = 1;
        if (i > 0 && d->series[i - 1].r == s->r) continue;
        int ci = layers_colour_index(d, s->r);
        snprintf(labels[n], 96, "r = %d  (k = %d)", s->r, s->r + 1);
        e[n] = legend_line(labels[n], palette_series(ci), ci % MARKER_COUNT, DASH_SOLID);
        n++;
    }
    if (any_first) {
        e[n++] = legend_line("last copy", fg, MARKER_NONE, DASH_SOLID);
        e[n++] = legend_line("first copy", fg, MARKER_NONE, DASH_DASHED);
    }
    if (any_band) e[n++] = legend_band("+-1 std over seeds", fg);
    for (int b = 0; b < d->n_baselines && n < LAYERS_MAX_LEGEND; b++) {
        e[n++] = legend_line(d->baselines[b].label, layers_baseline_colour(b, fg, fg2), MARKER_NONE,
                             layers_baseline_dash(b));
    }
    return n;
}

/* Fit and draw the axes in plot: every layer against F1 from the data,
 * the bands and the baselines, padded to whole tens. */
static void draw_axes(cairo_t *cr, const LayersData *d, const FigureStyle *s, double u, FigureRect plot, Axes *a)
{
    int max_layer = 1;
    double lo = 100, hi = 0;
    for (int i = 0; i < d->n_series; i++)
        for (int j = 0; j < d->series[i].n; j++) {
            const LayersSeries *sr = &d->series[i];
            if (sr->layer[j] > max_layer) max_layer = sr->layer[j];
            if (sr->mean[j] - sr->std[j] < lo) lo = sr->mean[j] - sr->std[j];
            if (sr->mean[j] + sr->std[j] > hi) hi = sr->mean[j] + sr->std[j];
        }
    for (int b = 0; b < d->n_baselines; b++) {
        if (d->baselines[b].f1 < lo) lo = d->baselines[b].f1;
        if (d->baselines[b].f1 > hi) hi = d->baselines[b].f1;
    }
    axes_percent_tens(&lo, &hi);
    axes_init(a, -0.3, max_layer + 0.3, lo, hi, 1, 0, "layer (0 = embeddings)", "span F1 (%)");
    if (max_layer <= 16) {
        a->n_xticks = 0;
        for (int l = 0; l <= max_layer; l++) a->xticks[a->n_xticks++] = l;
    }
    axes_fit(a, cr, s, u, plot);
    axes_draw(a, cr, s, u);
}

/* The bands of mean +- std, last copy only (the dashed first-copy lines
 * stay readable), drawn first so the lines stay on top. */
static void draw_bands(cairo_t *cr, const LayersData *d, const Axes *a)
{
    for (int i = 0; i < d->n_series; i++) {
        const LayersSeries *sr = &d->series[i];
        Rgb c = palette_series(layers_colour_index(d, sr->r));
        int band = 0;
        for (int j = 0; j < sr->n; j++) band |= sr->n_seeds[j] > 1;
        if (!band || sr->n < 2 || sr->copy != COPY_LAST) continue;
        for (int j = 0; j < sr->n; j++) cairo_line_to(cr, axes_x(a, sr->layer[j]), axes_y(a, sr->mean[j] + sr->std[j]));
        for (int j = sr->n - 1; j >= 0; j--) cairo_line_to(cr, axes_x(a, sr->layer[j]), axes_y(a, sr->mean[j] - sr->std[j]));
        cairo_close_path(cr);
        cairo_set_source_rgba(cr, c.r, c.g, c.b, 0.2);
        cairo_fill(cr);
    }
}

/* The baselines as horizontal lines across the plot. */
static void draw_baselines(cairo_t *cr, const LayersData *d, const FigureStyle *s, double u, const Axes *a)
{
    double lw4 = 4.5 * u;
    for (int b = 0; b < d->n_baselines; b++) {
        rgb_set(cr, layers_baseline_colour(b, figure_muted(s), figure_foreground(s)));
        cairo_set_line_width(cr, lw4);
        dash_set(cr, layers_baseline_dash(b), lw4);
        cairo_move_to(cr, a->area.x, axes_y(a, d->baselines[b].f1));
        cairo_line_to(cr, a->area.x + a->area.w, axes_y(a, d->baselines[b].f1));
        cairo_stroke(cr);
    }
}

/* The mean F1 of each series: solid for the last copy, dashed for the first. */
static void draw_lines(cairo_t *cr, const LayersData *d, double u, const Axes *a)
{
    double lw4 = 4.5 * u;
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    for (int i = 0; i < d->n_series; i++) {
        const LayersSeries *sr = &d->series[i];
        rgb_set(cr, palette_series(layers_colour_index(d, sr->r)));
        cairo_set_line_width(cr, lw4);
        dash_set(cr, sr->copy == COPY_LAST ? DASH_SOLID : DASH_DASHED, lw4);
        for (int j = 0; j < sr->n; j++) cairo_line_to(cr, axes_x(a, sr->layer[j]), axes_y(a, sr->mean[j]));
        cairo_stroke(cr);
    }
}

/* The markers: filled for the last copy, hollow for the first. */
static void draw_markers(cairo_t *cr, const LayersData *d, const FigureStyle *s, double u, const Axes *a)
{
    Rgb bg = figure_background(s);
    for (int i = 0; i < d->n_series; i++) {
        const LayersSeries *sr = &d->series[i];
        int ci = layers_colour_index(d, sr->r);
        Rgb c = palette_series(ci);
        for (int j = 0; j < sr->n; j++) {
            double x = axes_x(a, sr->layer[j]), y = axes_y(a, sr->mean[j]);
            if (sr->copy == COPY_LAST) marker_draw(cr, ci % MARKER_COUNT, x, y, 10 * u, c, bg, 2 * u);
            else marker_draw(cr, ci % MARKER_COUNT, x, y, 8 * u, bg, c, 3 * u);
        }
    }
}

int paint_layers(cairo_t *cr, const LayersData *d, double w, double h)
{
    const FigureStyle *s = &d->meta.style;
    FigureRect content;
    double u = figure_begin(cr, &d->meta, w, h, &content);
    LegendEntry e[LAYERS_MAX_LEGEND];
    char labels[LAYERS_MAX_LEGEND][96];
    int n_e = legend_entries(d, e, labels, figure_muted(s), figure_foreground(s));
    FigureRect plot = legend_room(cr, s, u, e, n_e, content);
    Axes a;
    draw_axes(cr, d, s, u, plot, &a);
    axes_clip(&a, cr);
    draw_bands(cr, d, &a);
    draw_baselines(cr, d, s, u, &a);
    draw_lines(cr, d, u, &a);
    cairo_restore(cr);
    draw_markers(cr, d, s, u, &a);
    legend_draw_right_of(cr, s, u, e, n_e, plot, a.area.y);
    return figure_finish(cr);
}
