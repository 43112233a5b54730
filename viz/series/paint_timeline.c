/* paint_timeline.c — the painter of the timeline figure. */
#include "series/paint_timeline.h"

#include <math.h>
#include <stdio.h>

#include "draw/legend.h"
#include "results/heads_data.h"

/* The most legend entries: the coloured heads, "other heads", the ICL score. */
#define TIMELINE_MAX_LEGEND (TIMELINE_MAX_TOP + 4)

/* The share of the plot's height the upper panel takes when there are two. */
static const double UPPER_SHARE = 0.62;

Rgb timeline_other_colour(const FigureStyle *s)
{
    return figure_muted(s);
}

/* The legend of the upper panel (heads: the coloured heads and the others;
 * loss: the three losses) into e, labels its storage; returns the count. */
static int upper_legend(const TimelineData *d, const FigureStyle *s, LegendEntry *e, char labels[][32])
{
    int n = 0;
    if (d->what == TIMELINE_F1) {
        e[n++] = legend_line("dev F1", palette_series(0), MARKER_CIRCLE, DASH_SOLID);
        e[n++] = legend_line("test F1", palette_series(1), MARKER_SQUARE, DASH_DASHED);
        return n;
    }
    if (d->what == TIMELINE_LOSS) {
        e[n++] = legend_line("training loss", palette_series(0), MARKER_CIRCLE, DASH_SOLID);
        if (d->has_icl) {
            e[n++] = legend_line("first copy (random)", palette_series(1), MARKER_SQUARE, DASH_DASHED);
            e[n++] = legend_line("last copy (random)", palette_series(2), MARKER_TRIANGLE, DASH_SOLID);
        }
        return n;
    }
    for (int k = 0; k < d->n_top; k++) {
        timeline_line_label(d, d->top_layer[k], d->top_head[k], labels[k], 32);
        e[n++] = legend_line(labels[k], palette_series(k), (MarkerKind)(k % MARKER_COUNT), DASH_SOLID);
    }
    if (d->n_top < d->n_layers * d->n_heads)
        e[n++] = legend_line(timeline_per_layer(d) ? "other layers" : "other heads", timeline_other_colour(s),
                             MARKER_NONE, DASH_SOLID);
    if (d->has_chance) e[n++] = legend_line("chance (uniform head)", timeline_other_colour(s), MARKER_NONE, DASH_DASHED);
    return n;
}

/* The legend of the lower panel (the ICL score). */
static LegendEntry lower_legend(const FigureStyle *s)
{
    return legend_line("ICL score", figure_foreground(s), MARKER_CIRCLE, DASH_SOLID);
}

/* The range [*lo, *hi] widened to hold the finite values v[0..n). */
static void widen(const double *v, int n, double *lo, double *hi)
{
    for (int i = 0; i < n; i++)
        if (isfinite(v[i])) {
            if (v[i] < *lo) *lo = v[i];
            if (v[i] > *hi) *hi = v[i];
        }
}

/* Pad [*lo, *hi] by a twentieth of its width (a unit when it is empty). */
static void pad(double *lo, double *hi)
{
    if (!(*hi >= *lo)) *lo = 0, *hi = 1;
    double m = *hi > *lo ? (*hi - *lo) / 20 : 0.5;
    *lo -= m;
    *hi += m;
}

/* The x axis's label: pre-training steps or fine-tuning epochs. */
static const char *x_label(const TimelineData *d)
{
    return d->epochs ? "fine-tuning epoch" : "pre-training step";
}

/* The upper panel's axes: the score 0..its largest value, the losses or the F1. */
static void upper_axes(const TimelineData *d, Axes *a, int with_xlabel)
{
    double lo = 0, hi = 0;
    const char *ylabel;
    if (d->what == TIMELINE_HEADS || timeline_per_layer(d)) {
        widen(d->value, d->n_steps * d->n_layers * d->n_heads, &lo, &hi);
        if (d->has_chance) widen(d->chance, d->n_steps * d->n_layers, &lo, &hi);
        hi = hi > 0 ? hi * 1.05 : 1;
        ylabel = d->what == TIMELINE_FLOW    ? "share of attention"
                 : d->what == TIMELINE_PROBE ? "probe span F1 (%)"
                                             : head_score_label(d->score);
    } else if (d->what == TIMELINE_F1) {
        lo = INFINITY, hi = -INFINITY;
        widen(d->dev_f1, d->n_steps, &lo, &hi);
        widen(d->test_f1, d->n_steps, &lo, &hi);
        pad(&lo, &hi);
        ylabel = "span F1 (%)";
    } else {
        lo = INFINITY, hi = -INFINITY;
        widen(d->train_loss, d->n_steps, &lo, &hi);
        if (d->has_icl) {
            widen(d->loss_first, d->n_steps, &lo, &hi);
            widen(d->loss_last, d->n_steps, &lo, &hi);
        }
        pad(&lo, &hi);
        ylabel = "loss (nats)";
    }
    axes_init(a, d->step[0], d->step[d->n_steps - 1], lo, hi, 1, 0, with_xlabel ? x_label(d) : NULL, ylabel);
}

/* The lower panel's axes: the ICL score, with 0 in range. */
static void lower_axes(const TimelineData *d, Axes *a)
{
    double lo = 0, hi = 0;
    widen(d->icl, d->n_steps, &lo, &hi);
    pad(&lo, &hi);
    axes_init(a, d->step[0], d->step[d->n_steps - 1], lo, hi, 1, 0, x_label(d), "ICL score (nats)");
}

/* Where the plots go, once the frame of d is drawn (or measured) in content. */
static void place(cairo_t *cr, const TimelineData *d, double u, FigureRect content, TimelineLayout *L)
{
    const FigureStyle *s = &d->meta.style;
    LegendEntry e[TIMELINE_MAX_LEGEND];
    char labels[TIMELINE_MAX_TOP][32];
    int n = upper_legend(d, s, e, labels);
    e[n++] = lower_legend(s);
    FigureRect plot = legend_room(cr, s, u, e, n, content);
    L->legend_x = plot.x + plot.w + 30 * u;
    L->n_panels = d->what == TIMELINE_HEADS && d->has_icl ? 2 : 1;
    upper_axes(d, &L->upper, L->n_panels == 1);
    if (L->n_panels == 1) {
        axes_fit(&L->upper, cr, s, u, plot);
        return;
    }
    FigureRect top = plot, bottom = plot;
    top.h = plot.h * UPPER_SHARE;
    bottom.y = plot.y + top.h + 20 * u;
    bottom.h = plot.h - top.h - 20 * u;
    lower_axes(d, &L->lower);
    axes_fit(&L->upper, cr, s, u, top);
    axes_fit(&L->lower, cr, s, u, bottom);
    /* the same left and right edges, so a step is the same x in both */
    double left = fmax(L->upper.area.x, L->lower.area.x);
    double right = fmin(L->upper.area.x + L->upper.area.w, L->lower.area.x + L->lower.area.w);
    L->upper.area.x = L->lower.area.x = left;
    L->upper.area.w = L->lower.area.w = right - left;
}

void timeline_layout(cairo_t *cr, const TimelineData *d, double w, double h, TimelineLayout *out)
{
    FigureRect content;
    figure_content_rect(cr, &d->meta, w, h, &content);
    place(cr, d, figure_unit(w, h), content, out);
}

/* A polyline through (step[i], v[i]) for the finite v, in the current colour. */
static void polyline(cairo_t *cr, const Axes *a, const int *step, const double *v, int stride, int n)
{
    cairo_new_path(cr);
    for (int i = 0; i < n; i++)
        if (isfinite(v[(size_t)i * stride])) cairo_line_to(cr, axes_x(a, step[i]), axes_y(a, v[(size_t)i * stride]));
    cairo_stroke(cr);
}

/* Markers of kind m at (step[i], v[i]) for the finite v. */
static void markers(cairo_t *cr, const Axes *a, const int *step, const double *v, int stride, int n, MarkerKind m,
                    Rgb c, Rgb bg, double u)
{
    for (int i = 0; i < n; i++)
        if (isfinite(v[(size_t)i * stride]))
            marker_draw(cr, m, axes_x(a, step[i]), axes_y(a, v[(size_t)i * stride]), 8 * u, c, bg, 2 * u);
}

/* One line of (layer, head) over the steps: coloured with marker k, or grey when k < 0. */
static void head_line(cairo_t *cr, const TimelineData *d, const Axes *a, int layer, int head, int k, double u)
{
    const FigureStyle *s = &d->meta.style;
    const double *v = d->value + (size_t)layer * d->n_heads + head;
    int stride = d->n_layers * d->n_heads;
    Rgb c = k < 0 ? timeline_other_colour(s) : palette_series(k);
    rgb_set(cr, c);
    cairo_set_line_width(cr, (k < 0 ? 1.5 : 4.5) * u);
    dash_set(cr, DASH_SOLID, 4.5 * u);
    polyline(cr, a, d->step, v, stride, d->n_steps);
    if (k >= 0)
        markers(cr, a, d->step, v, stride, d->n_steps, (MarkerKind)(k % MARKER_COUNT), c, figure_background(s), u);
}

/* The upper panel of heads: the grey heads first, the coloured on top. */
static void draw_heads(cairo_t *cr, const TimelineData *d, const Axes *a, double u)
{
    for (int l = 0; l < d->n_layers; l++)
        for (int h = 0; h < d->n_heads; h++) {
            int top = 0;
            for (int k = 0; k < d->n_top; k++) top |= d->top_layer[k] == l && d->top_head[k] == h;
            if (!top) head_line(cr, d, a, l, h, -1, u);
        }
    for (int k = d->n_top - 1; k >= 0 && d->has_chance; k--) { /* the coloured layers' chance levels */
        rgb_set(cr, palette_series(k));
        cairo_set_line_width(cr, 2.5 * u);
        dash_set(cr, DASH_DASHED, 2.5 * u);
        polyline(cr, a, d->step, d->chance + d->top_layer[k], d->n_layers, d->n_steps);
        dash_set(cr, DASH_SOLID, 2.5 * u);
    }
    for (int k = d->n_top - 1; k >= 0; k--) head_line(cr, d, a, d->top_layer[k], d->top_head[k], k, u);
}

/* One series of the figure: its line (dash) and markers in colour c. */
static void series_line(cairo_t *cr, const TimelineData *d, const Axes *a, const double *v, Rgb c, DashKind dash,
                        MarkerKind m, double u)
{
    rgb_set(cr, c);
    cairo_set_line_width(cr, 4.5 * u);
    dash_set(cr, dash, 4.5 * u);
    polyline(cr, a, d->step, v, 1, d->n_steps);
    dash_set(cr, DASH_SOLID, 4.5 * u);
    markers(cr, a, d->step, v, 1, d->n_steps, m, c, figure_background(&d->meta.style), u);
}

/* The lower panel: the ICL score over a dashed zero line. */
static void draw_icl(cairo_t *cr, const TimelineData *d, const Axes *a, double u)
{
    const FigureStyle *s = &d->meta.style;
    rgb_set(cr, figure_muted(s));
    cairo_set_line_width(cr, 2 * u);
    dash_set(cr, DASH_DASHED, 2 * u);
    cairo_move_to(cr, a->area.x, axes_y(a, 0));
    cairo_line_to(cr, a->area.x + a->area.w, axes_y(a, 0));
    cairo_stroke(cr);
    series_line(cr, d, a, d->icl, figure_foreground(s), DASH_SOLID, MARKER_CIRCLE, u);
}

/* The panel of the losses. */
static void draw_losses(cairo_t *cr, const TimelineData *d, const Axes *a, double u)
{
    series_line(cr, d, a, d->train_loss, palette_series(0), DASH_SOLID, MARKER_CIRCLE, u);
    if (!d->has_icl) return;
    series_line(cr, d, a, d->loss_first, palette_series(1), DASH_DASHED, MARKER_SQUARE, u);
    series_line(cr, d, a, d->loss_last, palette_series(2), DASH_SOLID, MARKER_TRIANGLE, u);
}

/* The panel of the F1: dev solid, test dashed. */
static void draw_f1(cairo_t *cr, const TimelineData *d, const Axes *a, double u)
{
    series_line(cr, d, a, d->dev_f1, palette_series(0), DASH_SOLID, MARKER_CIRCLE, u);
    series_line(cr, d, a, d->test_f1, palette_series(1), DASH_DASHED, MARKER_SQUARE, u);
}

/* Draw one panel: axes, then its lines (fn) clipped to it. Markers at the
 * edges stay whole: the clip takes in a margin. */
static void draw_panel(cairo_t *cr, const TimelineData *d, const Axes *a, double u,
                       void (*lines)(cairo_t *, const TimelineData *, const Axes *, double))
{
    axes_draw(a, cr, &d->meta.style, u);
    cairo_save(cr);
    cairo_rectangle(cr, a->area.x - 12 * u, a->area.y - 12 * u, a->area.w + 24 * u, a->area.h + 24 * u);
    cairo_clip(cr);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    lines(cr, d, a, u);
    cairo_restore(cr);
}

int paint_timeline(cairo_t *cr, const TimelineData *d, double w, double h)
{
    const FigureStyle *s = &d->meta.style;
    FigureRect content;
    double u = figure_begin(cr, &d->meta, w, h, &content);
    TimelineLayout L;
    place(cr, d, u, content, &L);
    draw_panel(cr, d, &L.upper, u,
               d->what == TIMELINE_HEADS || timeline_per_layer(d) ? draw_heads
               : d->what == TIMELINE_F1                              ? draw_f1
                                                                     : draw_losses);
    LegendEntry e[TIMELINE_MAX_LEGEND];
    char labels[TIMELINE_MAX_TOP][32];
    int n = upper_legend(d, s, e, labels);
    legend_draw(cr, s, u, e, n, L.legend_x, L.upper.area.y);
    if (L.n_panels == 2) {
        draw_panel(cr, d, &L.lower, u, draw_icl);
        LegendEntry icl = lower_legend(s);
        legend_draw(cr, s, u, &icl, 1, L.legend_x, L.lower.area.y);
    }
    return figure_finish(cr);
}
