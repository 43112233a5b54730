/* colourbar.h — the vertical viridis colour bar of the figures that colour
 * cells by a value (attention maps, head scores): the 256 entries of the
 * table from the bottom (entry 0) to the top (entry 255) on whole device
 * rows, an outline outside the bar (so the end colours stay untouched),
 * ticks with their labels on its right and a title along them. */
#ifndef SEQREP_VIZ_COLOURBAR_H
#define SEQREP_VIZ_COLOURBAR_H

#include <cairo.h>

#include "draw/figure.h"

/* One tick: where it stands (0 = the bottom end, 1 = the top end) and its text. */
typedef struct {
    double pos;
    char text[32];
} ColourbarTick;

/* Draw the bar into `bar` (whole device units keep the end colours on whole
 * rows) at scale unit, with ticks[0..n) labelled on its right and `label`
 * rotated to read upwards beside them. Leaves cr's state as it found it. */
void colourbar_draw(cairo_t *cr, const FigureStyle *s, double unit, FigureRect bar, const ColourbarTick *ticks,
                    int n, const char *label);

#endif
