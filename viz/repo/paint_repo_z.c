/* paint_repo_z.c — the painters of the z figures: repo-z (z against token
 * index, clipped points as hollow triangles, coloured by copy) and
 * repo-repeat (z against word index, one line per copy), and the point under
 * the mouse for the explorer's hover. */
#include <math.h>
#include <stdio.h>

#include "draw/axes.h"
#include "draw/legend.h"
#include "repo/paint_repo_z.h"
#include "repo/repo_plot.h"

/* Colour of point i of a z figure: its copy's, or muted for specials. */
static Rgb z_point_colour(const RepoZData *d, int i, const FigureStyle *s)
{
    if (d->n_copies >= 2) return d->copy[i] >= 0 ? palette_series(d->copy[i]) : figure_muted(s);
    return palette_series(0);
}

/* A clipped point: a hollow triangle pointing the way it was cut off. */
static void draw_clipped(cairo_t *cr, const RepoZData *d, int i, double x, double y, double r,
                         Rgb c, Rgb bg, double lw)
{
    MarkerKind kind = d->z[i] > d->hi_fence ? MARKER_TRIANGLE : MARKER_TRIANGLE_DOWN;
    marker_draw(cr, kind, x, y, r * 1.3, bg, c, lw);
}

/* The legend of a z figure into e (labels hold their text); returns the count. */
static int z_legend(const RepoZData *d, const FigureStyle *s, LegendEntry *e, char (*labels)[32])
{
    Rgb muted = figure_muted(s);
    int n_e = 0;
    if (d->n_copies >= 2) {
        for (int c = 0; c < d->n_copies && n_e < REPO_PLOT_MAX_SERIES; c++) {
            snprintf(labels[n_e], sizeof labels[n_e], "copy %d", c + 1);
            e[n_e] = legend_marker(labels[n_e], palette_series(c), MARKER_CIRCLE);
            n_e++;
        }
        e[n_e++] = legend_marker("<bos> / <sep>", muted, MARKER_CIRCLE);
    } else {
        e[n_e++] = legend_line("z per token", palette_series(0), MARKER_CIRCLE, DASH_SOLID);
    }
    e[n_e++] = legend_marker("clipped at 1.5 IQR", figure_foreground(s), MARKER_TRIANGLE);
    return n_e;
}

/* The axes of a z figure inside `content`, right of which its legend e
 * takes its room; *plot is the rest, *r the marker radius. */
static void z_axes(cairo_t *cr, const RepoZData *d, double u, FigureRect content, const LegendEntry *e,
                   int n_e, Axes *a, FigureRect *plot, double *r)
{
    const FigureStyle *s = &d->meta.style;
    *plot = legend_room(cr, s, u, e, n_e, content);
    double lo = 0.0, hi = 0.0;
    repo_plot_min_max(d->shown, d->n, &lo, &hi);
    repo_plot_pad_range(&lo, &hi);
    axes_init(a, d->index[0] - 0.5, d->index[d->n - 1] + 0.5, lo, hi, 1, 0, "token index", "position z");
    axes_fit(a, cr, s, u, *plot);
    *r = fmax(2.5 * u, fmin(8.0 * u, a->area.w / (d->n + 1) / 2.2));
}

int repo_z_point_at(cairo_t *cr, const RepoZData *d, double w, double h, double x, double y)
{
    if (d->n < 1) return -1;
    cairo_save(cr);
    double u = figure_unit(w, h);
    FigureRect content, plot;
    figure_content_rect(cr, &d->meta, w, h, &content);
    LegendEntry e[REPO_PLOT_MAX_SERIES + 4];
    char labels[REPO_PLOT_MAX_SERIES + 4][32];
    int n_e = z_legend(d, &d->meta.style, e, labels);
    Axes a;
    double r;
    z_axes(cr, d, u, content, e, n_e, &a, &plot, &r);
    cairo_restore(cr);
    int best = -1;
    double reach = fmax(1.5 * r, 6.0), best_d2 = reach * reach;
    for (int i = 0; i < d->n; i++) {
        double dx = axes_x(&a, d->index[i]) - x, dy = axes_y(&a, d->shown[i]) - y;
        if (dx * dx + dy * dy <= best_d2) {
            best_d2 = dx * dx + dy * dy;
            best = i;
        }
    }
    return best;
}

int paint_repo_z(cairo_t *cr, const RepoZData *d, double w, double h)
{
    const FigureStyle *s = &d->meta.style;
    FigureRect content, plot;
    double u = figure_begin(cr, &d->meta, w, h, &content);
    Rgb bg = figure_background(s);
    if (d->n < 1) return repo_plot_notice(cr, s, u, &content, "no positions to draw");
    LegendEntry e[REPO_PLOT_MAX_SERIES + 4];
    char labels[REPO_PLOT_MAX_SERIES + 4][32];
    int n_e = z_legend(d, s, e, labels);
    Axes a;
    double r;
    z_axes(cr, d, u, content, e, n_e, &a, &plot, &r);
    axes_draw(&a, cr, s, u);
    axes_clip(&a, cr);
    if (d->n_copies < 2) { /* one input: join the points in reading order */
        rgb_set(cr, palette_series(0));
        cairo_set_line_width(cr, 2.0 * u);
        for (int i = 0; i < d->n; i++) cairo_line_to(cr, axes_x(&a, d->index[i]), axes_y(&a, d->shown[i]));
        cairo_stroke(cr);
    }
    for (int i = 0; i < d->n; i++) {
        double x = axes_x(&a, d->index[i]), y = axes_y(&a, d->shown[i]);
        Rgb c = z_point_colour(d, i, s);
        if (d->shown[i] != d->z[i]) draw_clipped(cr, d, i, x, y, r, c, bg, 2.0 * u);
        else marker_draw(cr, MARKER_CIRCLE, x, y, r, c, bg, 1.0 * u);
    }
    cairo_restore(cr);
    cairo_save(cr);
    legend_draw_right_of(cr, s, u, e, n_e, plot, a.area.y);
    cairo_restore(cr);
    return figure_finish(cr);
}

int paint_repo_repeat(cairo_t *cr, const RepoZData *d, double w, double h)
{
    const FigureStyle *s = &d->meta.style;
    FigureRect content;
    double u = figure_begin(cr, &d->meta, w, h, &content);
    Rgb bg = figure_background(s);
    if (d->n_copies < 2 || d->n < 1)
        return repo_plot_notice(cr, s, u, &content,
                                "the input was not repeated (run repo-positions with --r 1 or more)");
    LegendEntry e[REPO_PLOT_MAX_SERIES + 1];
    char labels[REPO_PLOT_MAX_SERIES][32];
    int n_e = 0;
    for (int c = 0; c < d->n_copies && n_e < REPO_PLOT_MAX_SERIES; c++) {
        snprintf(labels[n_e], sizeof labels[n_e], "copy %d", c + 1);
        e[n_e] = legend_line(labels[n_e], palette_series(c), c % MARKER_COUNT, (DashKind)(c % DASH_COUNT));
        n_e++;
    }
    e[n_e++] = legend_marker("clipped at 1.5 IQR", figure_foreground(s), MARKER_TRIANGLE);
    FigureRect plot = legend_room(cr, s, u, e, n_e, content);
    int n_words = 0;
    double lo = 0.0, hi = 0.0;
    for (int i = 0; i < d->n; i++)
        if (d->word[i] + 1 > n_words) n_words = d->word[i] + 1;
    repo_plot_min_max(d->shown, d->n, &lo, &hi);
    repo_plot_pad_range(&lo, &hi);
    Axes a;
    axes_init(&a, -0.5, n_words - 0.5, lo, hi, 1, 0, "word index within the copy", "position z");
    axes_fit(&a, cr, s, u, plot);
    axes_draw(&a, cr, s, u);
    double r = fmax(3.0 * u, fmin(9.0 * u, a.area.w / (n_words + 1) / 3.0));
    axes_clip(&a, cr);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    for (int c = 0; c < d->n_copies; c++) {
        rgb_set(cr, palette_series(c));
        cairo_set_line_width(cr, 3.0 * u);
        dash_set(cr, (DashKind)(c % DASH_COUNT), 3.0 * u);
        for (int i = 0; i < d->n; i++)
            if (d->copy[i] == c) cairo_line_to(cr, axes_x(&a, d->word[i]), axes_y(&a, d->shown[i]));
        cairo_stroke(cr);
    }
    cairo_set_dash(cr, NULL, 0, 0);
    for (int i = 0; i < d->n; i++) {
        if (d->copy[i] < 0) continue;
        double x = axes_x(&a, d->word[i]), y = axes_y(&a, d->shown[i]);
        Rgb c = palette_series(d->copy[i]);
        if (d->shown[i] != d->z[i]) draw_clipped(cr, d, i, x, y, r, c, bg, 2.0 * u);
        else marker_draw(cr, d->copy[i] % MARKER_COUNT, x, y, r, c, bg, 1.0 * u);
    }
    cairo_restore(cr);
    cairo_save(cr);
    legend_draw_right_of(cr, s, u, e, n_e, plot, a.area.y);
    cairo_restore(cr);
    return figure_finish(cr);
}

