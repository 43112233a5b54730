/* legend.c — markers, dash patterns and legend boxes. */
#include "draw/legend.h"

#include <math.h>
#include <stddef.h>

#include "draw/hatch.h"
#include "draw/layout_boxes.h"

/* Trace a regular polygon of `sides` corners (first corner at angle a0). */
static void polygon(cairo_t *cr, double x, double y, double r, int sides, double a0)
{
    for (int i = 0; i < sides; i++) {
        double a = a0 + 2 * FIGURE_PI * i / sides;
        if (i == 0) cairo_move_to(cr, x + r * cos(a), y + r * sin(a));
        else cairo_line_to(cr, x + r * cos(a), y + r * sin(a));
    }
    cairo_close_path(cr);
}

void marker_draw(cairo_t *cr, MarkerKind kind, double x, double y, double r, Rgb fill, Rgb edge,
                 double line_width)
{
    if (kind == MARKER_NONE) return;
    cairo_save(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    cairo_set_line_width(cr, line_width);
    int stroked_only = 0;
    switch (kind) {
    case MARKER_CIRCLE: cairo_new_sub_path(cr); cairo_arc(cr, x, y, r, 0, 2 * FIGURE_PI); break;
    case MARKER_SQUARE: cairo_rectangle(cr, x - 0.85 * r, y - 0.85 * r, 1.7 * r, 1.7 * r); break;
    case MARKER_TRIANGLE: polygon(cr, x, y + 0.2 * r, 1.2 * r, 3, -FIGURE_PI / 2); break;
    case MARKER_TRIANGLE_DOWN: polygon(cr, x, y - 0.2 * r, 1.2 * r, 3, FIGURE_PI / 2); break;
    case MARKER_DIAMOND: polygon(cr, x, y, 1.2 * r, 4, 0); break;
    case MARKER_STAR:
        for (int i = 0; i < 10; i++) {
            double a = -FIGURE_PI / 2 + FIGURE_PI * i / 5, rr = i % 2 ? 0.5 * r : 1.3 * r;
            if (i == 0) cairo_move_to(cr, x + rr * cos(a), y + rr * sin(a));
            else cairo_line_to(cr, x + rr * cos(a), y + rr * sin(a));
        }
        cairo_close_path(cr);
        break;
    case MARKER_PLUS:
        cairo_move_to(cr, x - r, y); cairo_line_to(cr, x + r, y);
        cairo_move_to(cr, x, y - r); cairo_line_to(cr, x, y + r);
        stroked_only = 1;
        break;
    case MARKER_CROSS:
        cairo_move_to(cr, x - r, y - r); cairo_line_to(cr, x + r, y + r);
        cairo_move_to(cr, x - r, y + r); cairo_line_to(cr, x + r, y - r);
        stroked_only = 1;
        break;
    default: break;
    }
    if (stroked_only) {
        cairo_set_line_width(cr, 1.8 * line_width);
        rgb_set(cr, fill);
        cairo_stroke(cr);
    } else {
        rgb_set(cr, fill);
        cairo_fill_preserve(cr);
        rgb_set(cr, edge);
        cairo_stroke(cr);
    }
    cairo_restore(cr);
}

void dash_set(cairo_t *cr, DashKind kind, double line_width)
{
    double w = line_width;
    double dashed[] = {4 * w, 2.5 * w}, dotted[] = {1 * w, 1.8 * w};
    double dash_dot[] = {4 * w, 1.8 * w, 1 * w, 1.8 * w}, longer[] = {8 * w, 3 * w};
    switch (kind) {
    case DASH_DASHED: cairo_set_dash(cr, dashed, 2, 0); break;
    case DASH_DOTTED: cairo_set_dash(cr, dotted, 2, 0); break;
    case DASH_DASH_DOT: cairo_set_dash(cr, dash_dot, 4, 0); break;
    case DASH_LONG: cairo_set_dash(cr, longer, 2, 0); break;
    default: cairo_set_dash(cr, NULL, 0, 0); break;
    }
    /* dots need round caps to show */
    cairo_set_line_cap(cr, kind == DASH_DOTTED ? CAIRO_LINE_CAP_ROUND : CAIRO_LINE_CAP_BUTT);
}

LegendEntry legend_line(const char *label, Rgb colour, MarkerKind marker, DashKind dash)
{
    return (LegendEntry){.label = label, .kind = LEGEND_LINE, .colour = colour, .marker = marker, .dash = dash};
}

LegendEntry legend_marker(const char *label, Rgb colour, MarkerKind marker)
{
    return (LegendEntry){.label = label, .kind = LEGEND_MARKER, .colour = colour, .marker = marker,
                         .dash = DASH_SOLID};
}

LegendEntry legend_patch(const char *label, Rgb colour, int outline)
{
    return (LegendEntry){.label = label, .kind = LEGEND_PATCH, .colour = colour, .marker = MARKER_NONE,
                         .dash = DASH_SOLID, .outline = outline};
}

LegendEntry legend_hatch(const char *label, Rgb colour, int outline)
{
    return (LegendEntry){.label = label, .kind = LEGEND_HATCH, .colour = colour, .marker = MARKER_NONE,
                         .dash = DASH_SOLID, .outline = outline};
}

LegendEntry legend_band(const char *label, Rgb colour)
{
    return (LegendEntry){.label = label, .kind = LEGEND_BAND, .colour = colour, .marker = MARKER_NONE,
                         .dash = DASH_SOLID};
}

/* Geometry shared by size and draw: padding, swatch width, row height. */
static void legend_metrics(double unit, double *pad, double *swatch, double *row, double *font)
{
    *font = figure_font_size(TEXT_TICK, unit);
    *pad = 12 * unit;
    *swatch = 70 * unit;
    *row = 1.45 * *font;
}

void legend_size(cairo_t *cr, const FigureStyle *s, double unit, const LegendEntry *e, int n,
                 double *width, double *height)
{
    double pad, swatch, row, font;
    legend_metrics(unit, &pad, &swatch, &row, &font);
    figure_font(cr, s, font, 0);
    double widest = 0;
    for (int i = 0; i < n; i++) {
        double w = figure_text_width(cr, e[i].label);
        if (w > widest) widest = w;
    }
    *width = 2 * pad + swatch + 0.5 * font + widest;
    *height = 2 * pad + n * row;
}

void legend_draw(cairo_t *cr, const FigureStyle *s, double unit, const LegendEntry *e, int n,
                 double x, double y)
{
    double pad, swatch, row, font, width, height;
    legend_metrics(unit, &pad, &swatch, &row, &font);
    legend_size(cr, s, unit, e, n, &width, &height);
    cairo_save(cr);
    layout_boxes_open(cr, BOX_LEGEND, x, y, width, height, "legend");
    rgb_set(cr, figure_background(s));
    cairo_rectangle(cr, x, y, width, height);
    cairo_fill_preserve(cr);
    rgb_set(cr, figure_grid(s));
    cairo_set_line_width(cr, 1.5 * unit);
    cairo_stroke(cr);
    double lw = 4 * unit;
    for (int i = 0; i < n; i++) {
        double cy = y + pad + (i + 0.5) * row, x0 = x + pad, x1 = x0 + swatch;
        const LegendEntry *en = &e[i];
        cairo_set_line_width(cr, lw);
        switch (en->kind) {
        case LEGEND_BAND:
            cairo_set_source_rgba(cr, en->colour.r, en->colour.g, en->colour.b, 0.25);
            cairo_rectangle(cr, x0, cy - 0.35 * row, swatch, 0.7 * row);
            cairo_fill(cr);
            /* the band's centre line follows */
            /* fall through */
        case LEGEND_LINE:
            rgb_set(cr, en->colour);
            dash_set(cr, en->dash, lw);
            cairo_move_to(cr, x0, cy);
            cairo_line_to(cr, x1, cy);
            cairo_stroke(cr);
            dash_set(cr, DASH_SOLID, lw);
            marker_draw(cr, en->marker, (x0 + x1) / 2, cy, 9 * unit, en->colour,
                        figure_background(s), 2 * unit);
            break;
        case LEGEND_MARKER:
            marker_draw(cr, en->marker == MARKER_NONE ? MARKER_CIRCLE : en->marker, (x0 + x1) / 2,
                        cy, 10 * unit, en->colour, figure_background(s), 2 * unit);
            break;
        case LEGEND_PATCH:
        case LEGEND_HATCH:
            rgb_set(cr, en->colour);
            cairo_rectangle(cr, x0 + swatch / 2 - 0.4 * row, cy - 0.4 * row, 0.8 * row, 0.8 * row);
            cairo_fill_preserve(cr);
            if (en->kind == LEGEND_HATCH) {
                figure_hatch_path(cr, s, unit);
                cairo_rectangle(cr, x0 + swatch / 2 - 0.4 * row, cy - 0.4 * row, 0.8 * row, 0.8 * row);
            }
            rgb_set(cr, en->outline ? figure_foreground(s) : en->colour);
            cairo_set_line_width(cr, 2 * unit);
            cairo_stroke(cr);
            break;
        }
        rgb_set(cr, figure_foreground(s));
        figure_font(cr, s, font, 0);
        figure_text(cr, en->label, x1 + 0.5 * font, cy, 0, 0.5);
    }
    layout_boxes_close(cr, 0);
    cairo_restore(cr);
}

FigureRect legend_room(cairo_t *cr, const FigureStyle *s, double unit, const LegendEntry *e, int n,
                       FigureRect content)
{
    double w, h;
    legend_size(cr, s, unit, e, n, &w, &h);
    content.w -= w + 30 * unit;
    return content;
}

void legend_draw_right_of(cairo_t *cr, const FigureStyle *s, double unit, const LegendEntry *e, int n,
                          FigureRect plot, double y)
{
    legend_draw(cr, s, unit, e, n, plot.x + plot.w + 30 * unit, y);
}
