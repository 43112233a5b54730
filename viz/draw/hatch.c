/* hatch.c — the hatching of masked cells: diagonal lines over a path or
 * over the masked cells of a grid. */
#include "draw/hatch.h"

#include <math.h>
#include <stddef.h>

void figure_hatch_path(cairo_t *cr, const FigureStyle *s, double unit)
{
    cairo_save(cr);
    cairo_clip(cr);
    double x1, y1, x2, y2;
    cairo_clip_extents(cr, &x1, &y1, &x2, &y2);
    if (x2 > x1 && y2 > y1) {
        double gap = fmax(4.0, 10 * unit);
        cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
        rgb_set(cr, figure_hatch(s));
        cairo_set_line_width(cr, fmax(1.0, 2 * unit));
        /* the lines x + y = c * gap that cross the extents */
        for (double c = floor((x1 + y1) / gap); c * gap <= x2 + y2; c += 1) {
            cairo_move_to(cr, c * gap - y1, y1);
            cairo_line_to(cr, c * gap - y2, y2);
        }
        cairo_stroke(cr);
    }
    cairo_restore(cr);
}

void figure_hatch_cells(cairo_t *cr, const FigureStyle *s, const uint8_t *cells, int T, uint8_t masked,
                        FigureRect grid, double unit)
{
    double cs = grid.w / T;
    for (int q = 0; q < T; q++) {
        const uint8_t *row = cells + (size_t)q * T;
        for (int k = 0; k < T; k++) {
            if (row[k] != masked) continue;
            int end = k;
            while (end < T && row[end] == masked) end++;
            double x0 = round(grid.x + k * cs), x1 = round(grid.x + end * cs);
            double y0 = round(grid.y + q * cs), y1 = round(grid.y + (q + 1) * cs);
            cairo_rectangle(cr, x0, y0, x1 - x0, y1 - y0);
            k = end; /* cell end is not masked: the loop goes on after it */
        }
    }
    figure_hatch_path(cr, s, unit);
}
