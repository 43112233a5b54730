/* axes.c — ranges, nice ticks and the drawing of plot axes. */
#include "draw/axes.h"

#include <math.h>
#include <stdio.h>

#include "draw/layout_boxes.h"

int axes_nice_ticks(double lo, double hi, int target, int integer_only, double *ticks)
{
    if (!(hi > lo)) {
        ticks[0] = lo;
        return 1;
    }
    if (target < 2) target = 2;
    double raw = (hi - lo) / target;
    double power = pow(10.0, floor(log10(raw)));
    double step = power;
    if (raw / power > 5) step = 10 * power;
    else if (raw / power > 2) step = 5 * power;
    else if (raw / power > 1) step = 2 * power;
    if (integer_only && step < 1) step = 1;
    double first = ceil(lo / step - 1e-9) * step;
    int n = 0;
    for (double v = first; v <= hi + 1e-9 * step && n < AXES_MAX_TICKS; v += step) {
        ticks[n++] = fabs(v) < 1e-12 * step ? 0.0 : v;
    }
    return n;
}

double axes_x(const Axes *a, double x)
{
    return a->area.x + (x - a->xmin) / (a->xmax - a->xmin) * a->area.w;
}

double axes_y(const Axes *a, double y)
{
    double share = (y - a->ymin) / (a->ymax - a->ymin);
    return a->y_down ? a->area.y + share * a->area.h : a->area.y + a->area.h - share * a->area.h;
}

void axes_init(Axes *a, double xmin, double xmax, double ymin, double ymax, int x_integer,
               int y_integer, const char *xlabel, const char *ylabel)
{
    if (!(xmax > xmin)) xmax = xmin + 1;
    if (!(ymax > ymin)) ymax = ymin + 1;
    a->xmin = xmin;
    a->xmax = xmax;
    a->ymin = ymin;
    a->ymax = ymax;
    a->n_xticks = axes_nice_ticks(xmin, xmax, 6, x_integer, a->xticks);
    a->n_yticks = axes_nice_ticks(ymin, ymax, 5, y_integer, a->yticks);
    a->xlabel = xlabel;
    a->ylabel = ylabel;
    a->xfmt = "%g";
    a->yfmt = "%g";
    a->yscale_label = 1.0;
    a->y_down = 0;
    a->area = (FigureRect){.x = 0, .y = 0, .w = 1, .h = 1};
}

/* The tick label of value v with format fmt into buf. */
static void tick_text(char *buf, size_t cap, const char *fmt, double v)
{
    snprintf(buf, cap, fmt, v);
}

void axes_percent_tens(double *lo, double *hi)
{
    *lo = fmax(0, floor(*lo / 10) * 10);
    *hi = fmin(100, ceil(*hi / 10) * 10);
    if (*hi - *lo < 10) *hi = fmin(100, *lo + 10), *lo = fmin(*lo, *hi - 10);
}

void axes_y_percent(Axes *a, int n_steps)
{
    a->n_yticks = 0;
    for (int i = 0; i <= n_steps; i++) a->yticks[a->n_yticks++] = i * (1.0 / n_steps);
    a->yfmt = "%.0f%%";
    a->yscale_label = 100;
}

void axes_fit(Axes *a, cairo_t *cr, const FigureStyle *s, double unit, FigureRect space)
{
    double tick = figure_font_size(TEXT_TICK, unit), label = figure_font_size(TEXT_LABEL, unit);
    figure_font(cr, s, tick, 0);
    double widest = 0;
    char buf[64];
    for (int i = 0; i < a->n_yticks; i++) {
        tick_text(buf, sizeof buf, a->yfmt, a->yticks[i] * a->yscale_label);
        double w = figure_text_width(cr, buf);
        if (w > widest) widest = w;
    }
    double left = widest + 14 * unit + (a->ylabel ? 1.5 * label : 0);
    double bottom = 1.4 * tick + 10 * unit + (a->xlabel ? 1.5 * label : 0);
    double top = 0.6 * tick, right = 0.8 * tick;
    a->area.x = space.x + left;
    a->area.y = space.y + top;
    a->area.w = space.w - left - right > 10 ? space.w - left - right : 10;
    a->area.h = space.h - top - bottom > 10 ? space.h - top - bottom : 10;
}

void axes_draw(const Axes *a, cairo_t *cr, const FigureStyle *s, double unit)
{
    const FigureRect *r = &a->area;
    double tick = figure_font_size(TEXT_TICK, unit), label = figure_font_size(TEXT_LABEL, unit);
    char buf[64];
    cairo_save(cr);
    layout_boxes_add(cr, BOX_PLOT, r->x, r->y, r->w, r->h, "plot area");
    /* grid */
    rgb_set(cr, figure_grid(s));
    cairo_set_line_width(cr, 1.5 * unit);
    for (int i = 0; i < a->n_yticks; i++) {
        double y = axes_y(a, a->yticks[i]);
        cairo_move_to(cr, r->x, y);
        cairo_line_to(cr, r->x + r->w, y);
    }
    for (int i = 0; i < a->n_xticks; i++) {
        double x = axes_x(a, a->xticks[i]);
        cairo_move_to(cr, x, r->y);
        cairo_line_to(cr, x, r->y + r->h);
    }
    cairo_stroke(cr);
    /* frame: left and bottom axis lines */
    rgb_set(cr, figure_foreground(s));
    cairo_set_line_width(cr, 2.5 * unit);
    cairo_move_to(cr, r->x, r->y);
    cairo_line_to(cr, r->x, r->y + r->h);
    cairo_line_to(cr, r->x + r->w, r->y + r->h);
    cairo_stroke(cr);
    /* ticks and labels */
    figure_font(cr, s, tick, 0);
    double len = 8 * unit;
    for (int i = 0; i < a->n_xticks; i++) {
        double x = axes_x(a, a->xticks[i]);
        cairo_move_to(cr, x, r->y + r->h);
        cairo_line_to(cr, x, r->y + r->h + len);
        cairo_stroke(cr);
        tick_text(buf, sizeof buf, a->xfmt, a->xticks[i]);
        figure_text(cr, buf, x, r->y + r->h + len + 2 * unit, 0.5, 0);
    }
    for (int i = 0; i < a->n_yticks; i++) {
        double y = axes_y(a, a->yticks[i]);
        cairo_move_to(cr, r->x - len, y);
        cairo_line_to(cr, r->x, y);
        cairo_stroke(cr);
        tick_text(buf, sizeof buf, a->yfmt, a->yticks[i] * a->yscale_label);
        figure_text(cr, buf, r->x - len - 4 * unit, y, 1, 0.5);
    }
    figure_font(cr, s, label, 0);
    if (a->xlabel)
        figure_text(cr, a->xlabel, r->x + r->w / 2, r->y + r->h + len + 1.3 * tick + 6 * unit, 0.5, 0);
    if (a->ylabel) {
        double widest = 0;
        figure_font(cr, s, tick, 0);
        for (int i = 0; i < a->n_yticks; i++) {
            tick_text(buf, sizeof buf, a->yfmt, a->yticks[i] * a->yscale_label);
            double w = figure_text_width(cr, buf);
            if (w > widest) widest = w;
        }
        figure_font(cr, s, label, 0);
        figure_text_rotated(cr, a->ylabel, r->x - len - 10 * unit - widest, r->y + r->h / 2, 0.5, 1,
                            -FIGURE_PI / 2);
    }
    cairo_restore(cr);
}

void axes_clip(const Axes *a, cairo_t *cr)
{
    cairo_save(cr);
    cairo_rectangle(cr, a->area.x, a->area.y, a->area.w, a->area.h);
    cairo_clip(cr);
}
