/* colourbar.c — the viridis colour bar with its ticks and title. */
#include "draw/colourbar.h"

#include <math.h>

#include "draw/layout_boxes.h"

void colourbar_draw(cairo_t *cr, const FigureStyle *s, double unit, FigureRect bar, const ColourbarTick *ticks,
                    int n, const char *label)
{
    cairo_save(cr);
    layout_boxes_open(cr, BOX_COLOURBAR, bar.x, bar.y, bar.w, bar.h, label);
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
    for (int i = 0; i < VIRIDIS_N; i++) {
        /* band edges on whole device units, shared by neighbours: no seams */
        double y0 = round(bar.y + bar.h - (i + 1) * bar.h / VIRIDIS_N);
        double y1 = round(bar.y + bar.h - i * bar.h / VIRIDIS_N);
        if (y1 <= y0) continue;
        rgb_set(cr, colormap_viridis_entry(i));
        cairo_rectangle(cr, bar.x, y0, bar.w, y1 - y0);
        cairo_fill(cr);
    }
    cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
    /* the outline lies outside the bar, so the end colours stay untouched */
    double lw = 1.5 * unit;
    rgb_set(cr, figure_foreground(s));
    cairo_set_line_width(cr, lw);
    cairo_rectangle(cr, bar.x - lw / 2, bar.y - lw / 2, bar.w + lw, bar.h + lw);
    cairo_stroke(cr);
    double font = figure_font_size(TEXT_TICK, unit), tick_len = 8 * unit, widest = 0;
    figure_font(cr, s, font, 0);
    for (int i = 0; i < n; i++) {
        double y = bar.y + bar.h - ticks[i].pos * bar.h;
        cairo_move_to(cr, bar.x + bar.w, y);
        cairo_line_to(cr, bar.x + bar.w + tick_len, y);
        cairo_stroke(cr);
        figure_text(cr, ticks[i].text, bar.x + bar.w + tick_len + 4 * unit, y, 0, 0.5);
        double tw = figure_text_width(cr, ticks[i].text);
        if (tw > widest) widest = tw;
    }
    figure_font(cr, s, figure_font_size(TEXT_LABEL, unit), 0);
    figure_text_rotated(cr, label, bar.x + bar.w + tick_len + 12 * unit + widest, bar.y + bar.h / 2, 0.5, 0,
                        -FIGURE_PI / 2);
    layout_boxes_close(cr, 1); /* the bar with its ticks and title */
    cairo_restore(cr);
}
