/* paint_exit.c — the painter of the early-exit figure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw/axes.h"
#include "draw/legend.h"
#include "results/paint_exit.h"

#define EXIT_MAX_LEGEND 24

/* Label of series `series`: "r = R" for causal/sr, else "METHOD, r = R". */
static void series_label(const ExitData *d, int series, char *buf, size_t cap)
{
    for (int i = 0; i < d->n_points; i++)
        if (d->points[i].series == series) {
            const ExitPoint *p = &d->points[i];
            int plain = strcmp(p->method, "sr") == 0 || strcmp(p->method, "causal") == 0;
            if (plain) snprintf(buf, cap, "r = %d  (%s)", p->r, p->method);
            else snprintf(buf, cap, "%s, r = %d", p->method, p->r);
            return;
        }
    snprintf(buf, cap, "?");
}

/* Sort point indices idx[0..n) by relative cost (insertion sort; n is small). */
static void sort_by_cost(const ExitData *d, int *idx, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && d->points[idx[j - 1]].rel_cost > d->points[idx[j]].rel_cost; j--) {
            int t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
}

/* The legend: one line per series, the Pareto front and the reference;
 * labels is storage for the series' text. Returns the number of entries. */
static int legend_entries(const ExitData *d, const FigureStyle *s, LegendEntry *e, char labels[][96])
{
    int n_e = 0;
    for (int sr = 0; sr < d->n_series && n_e < EXIT_MAX_LEGEND - 3; sr++) {
        series_label(d, sr, labels[n_e], 96);
        e[n_e] = legend_line(labels[n_e], palette_series(sr), sr % MARKER_COUNT, DASH_SOLID);
        n_e++;
    }
    e[n_e++] = legend_line("Pareto front", figure_foreground(s), MARKER_NONE, DASH_SOLID);
    e[n_e++] = legend_line("full depth, reference", figure_muted(s), MARKER_NONE, DASH_DASHED);
    return n_e;
}

/* Fit and draw the axes in plot: relative cost from 0 against F1 in whole
 * tens around the points. */
static void draw_axes(cairo_t *cr, const ExitData *d, const FigureStyle *s, double u, FigureRect plot, Axes *a)
{
    double cmax = 1, flo = 100, fhi = 0;
    for (int i = 0; i < d->n_points; i++) {
        const ExitPoint *p = &d->points[i];
        if (p->rel_cost > cmax) cmax = p->rel_cost;
        if (p->f1 < flo) flo = p->f1;
        if (p->f1 > fhi) fhi = p->f1;
    }
    fhi += 2; /* two points of headroom above the best F1 */
    axes_percent_tens(&flo, &fhi);
    char xlabel[64];
    snprintf(xlabel, sizeof xlabel, "relative cost (%s; reference = 1)",
             strcmp(d->cost_column, "flops") == 0 ? "FLOPs" : "seconds");
    axes_init(a, 0, cmax * 1.08, flo, fhi, 0, 0, xlabel, "span F1 (%)");
    axes_fit(a, cr, s, u, plot);
    axes_draw(a, cr, s, u);
}

/* The reference's F1 and cost 1, dashed across the plot. */
static void draw_reference_lines(cairo_t *cr, const ExitData *d, const FigureStyle *s, double u, const Axes *a)
{
    const ExitPoint *ref = &d->points[d->reference];
    rgb_set(cr, figure_muted(s));
    cairo_set_line_width(cr, 3 * u);
    dash_set(cr, DASH_DASHED, 3 * u);
    cairo_move_to(cr, a->area.x, axes_y(a, ref->f1));
    cairo_line_to(cr, a->area.x + a->area.w, axes_y(a, ref->f1));
    cairo_move_to(cr, axes_x(a, 1), a->area.y);
    cairo_line_to(cr, axes_x(a, 1), a->area.y + a->area.h);
    cairo_stroke(cr);
}

/* The Pareto front as a step line: from each front point right to the next. */
static void draw_front(cairo_t *cr, const ExitData *d, const FigureStyle *s, double u, const Axes *a)
{
    int *front = malloc(sizeof(int) * (size_t)(d->n_points > 0 ? d->n_points : 1));
    int n_front = 0;
    for (int i = 0; front && i < d->n_points; i++)
        if (d->points[i].pareto) front[n_front++] = i;
    if (front) {
        sort_by_cost(d, front, n_front);
        rgb_set(cr, figure_foreground(s));
        cairo_set_line_width(cr, 2.5 * u);
        dash_set(cr, DASH_SOLID, 4 * u);
        for (int i = 0; i < n_front; i++) {
            const ExitPoint *p = &d->points[front[i]];
            double x = axes_x(a, p->rel_cost), y = axes_y(a, p->f1);
            if (i == 0) cairo_move_to(cr, x, y);
            else cairo_line_to(cr, x, y);
            double next = i + 1 < n_front ? axes_x(a, d->points[front[i + 1]].rel_cost) : a->area.x + a->area.w;
            cairo_line_to(cr, next, y);
        }
        cairo_stroke(cr);
    }
    free(front);
}

/* The points of each series joined in exit order, in the series' colour. */
static void draw_series_lines(cairo_t *cr, const ExitData *d, double u, const Axes *a)
{
    cairo_set_line_width(cr, 3 * u);
    for (int i = 0; i < d->n_points; i++) {
        const ExitPoint *p = &d->points[i];
        double x = axes_x(a, p->rel_cost), y = axes_y(a, p->f1);
        if (i == 0 || p->series != p[-1].series) cairo_move_to(cr, x, y);
        else cairo_line_to(cr, x, y);
        if (p->deepest) {
            rgb_set(cr, palette_series(p->series));
            cairo_stroke(cr);
        }
    }
}

/* Markers, rings on the front, exit numbers beside the points. */
static void draw_points(cairo_t *cr, const ExitData *d, const FigureStyle *s, double u, const Axes *a)
{
    Rgb fg = figure_foreground(s), bg = figure_background(s);
    double font = figure_font_size(TEXT_TICK, u);
    char buf[16];
    for (int i = 0; i < d->n_points; i++) {
        const ExitPoint *p = &d->points[i];
        double x = axes_x(a, p->rel_cost), y = axes_y(a, p->f1);
        if (p->pareto) {
            rgb_set(cr, fg);
            cairo_set_line_width(cr, 3 * u);
            cairo_new_sub_path(cr);
            cairo_arc(cr, x, y, 17 * u, 0, 2 * FIGURE_PI);
            cairo_stroke(cr);
        }
        marker_draw(cr, p->series % MARKER_COUNT, x, y, 10 * u, palette_series(p->series), bg, 2 * u);
        rgb_set(cr, fg);
        figure_font(cr, s, font, 0);
        snprintf(buf, sizeof buf, "%d", p->exit);
        /* even series label above their points, odd ones below, so labels of
         * neighbouring series do not collide */
        if (p->series % 2 == 0) figure_text(cr, buf, x + 12 * u, y - 10 * u, 0, 1);
        else figure_text(cr, buf, x + 12 * u, y + 10 * u, 0, 0);
    }
}

int paint_exit(cairo_t *cr, const ExitData *d, double w, double h)
{
    const FigureStyle *s = &d->meta.style;
    FigureRect content;
    double u = figure_begin(cr, &d->meta, w, h, &content);
    LegendEntry e[EXIT_MAX_LEGEND];
    char labels[EXIT_MAX_LEGEND][96];
    int n_e = legend_entries(d, s, e, labels);
    double lw, lh;
    legend_size(cr, s, u, e, n_e, &lw, &lh);
    FigureRect plot = content;
    plot.w -= lw + 30 * u;
    Axes a;
    draw_axes(cr, d, s, u, plot, &a);
    axes_clip(&a, cr);
    draw_reference_lines(cr, d, s, u, &a);
    draw_front(cr, d, s, u, &a);
    draw_series_lines(cr, d, u, &a);
    cairo_restore(cr);
    draw_points(cr, d, s, u, &a);
    legend_draw(cr, s, u, e, n_e, plot.x + plot.w + 30 * u, a.area.y);
    figure_font(cr, s, figure_font_size(TEXT_TICK, u), 0);
    rgb_set(cr, figure_muted(s));
    figure_text(cr, "numbers: exit layer", plot.x + plot.w + 30 * u, a.area.y + lh + 10 * u, 0, 0);
    return figure_finish(cr);
}
