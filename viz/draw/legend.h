/* legend.h — how categories are told apart (colour, marker, dash pattern)
 * and the legend box that names them.
 *
 * Series i of a figure gets palette_series(i), marker i and dash i, so lines
 * differ in more than colour. A legend is measured first (legend_size), then
 * placed by the painter where it covers no data, usually right of the plot. */
#ifndef SEQREP_VIZ_LEGEND_H
#define SEQREP_VIZ_LEGEND_H

#include <cairo.h>

#include "draw/figure.h"

typedef enum {
    MARKER_NONE = -1,
    MARKER_CIRCLE = 0, MARKER_SQUARE = 1, MARKER_TRIANGLE = 2, MARKER_DIAMOND = 3,
    MARKER_TRIANGLE_DOWN = 4, MARKER_PLUS = 5, MARKER_CROSS = 6, MARKER_STAR = 7,
    MARKER_COUNT = 8
} MarkerKind;

typedef enum {
    DASH_SOLID = 0, DASH_DASHED = 1, DASH_DOTTED = 2, DASH_DASH_DOT = 3, DASH_LONG = 4,
    DASH_COUNT = 5
} DashKind;

/* Draw marker `kind` centred at (x, y) with radius r: filled with `fill` and
 * outlined in `edge` (line markers plus/cross/star are stroked in fill). */
void marker_draw(cairo_t *cr, MarkerKind kind, double x, double y, double r, Rgb fill, Rgb edge,
                 double line_width);

/* Set the dash pattern `kind` for lines of width line_width. */
void dash_set(cairo_t *cr, DashKind kind, double line_width);

typedef enum {
    LEGEND_LINE = 0,   /* a line segment (with marker unless MARKER_NONE) */
    LEGEND_MARKER = 1, /* a marker alone                                  */
    LEGEND_PATCH = 2,  /* a filled square                                 */
    LEGEND_BAND = 3,   /* a translucent band with its centre line         */
    LEGEND_HATCH = 4   /* a filled square hatched as masked cells are     */
} LegendKind;

typedef struct {
    const char *label;
    LegendKind kind;
    Rgb colour;
    MarkerKind marker;
    DashKind dash;
    int outline;       /* PATCH: draw a foreground outline around it */
} LegendEntry;

/* The entries, one constructor per kind: a line with a marker (MARKER_NONE:
 * none) and a dash pattern; a marker alone; a filled square, outlined in the
 * foreground colour when outline is 1, else in its own; the same square
 * hatched as masked cells are; a translucent band with its centre line. */
LegendEntry legend_line(const char *label, Rgb colour, MarkerKind marker, DashKind dash);
LegendEntry legend_marker(const char *label, Rgb colour, MarkerKind marker);
LegendEntry legend_patch(const char *label, Rgb colour, int outline);
LegendEntry legend_hatch(const char *label, Rgb colour, int outline);
LegendEntry legend_band(const char *label, Rgb colour);

/* Width and height of the legend of n entries in one column at scale unit. */
void legend_size(cairo_t *cr, const FigureStyle *s, double unit, const LegendEntry *e, int n,
                 double *width, double *height);

/* Draw the legend with its top-left corner at (x, y). */
void legend_draw(cairo_t *cr, const FigureStyle *s, double unit, const LegendEntry *e, int n,
                 double x, double y);

/* The part of `content` left for the plot when the legend of n entries
 * stands at its right, a gap of 30 units away. */
FigureRect legend_room(cairo_t *cr, const FigureStyle *s, double unit, const LegendEntry *e, int n,
                       FigureRect content);

/* Draw the legend at the right of plot (as legend_room left it), top at y. */
void legend_draw_right_of(cairo_t *cr, const FigureStyle *s, double unit, const LegendEntry *e, int n,
                          FigureRect plot, double y);

#endif
