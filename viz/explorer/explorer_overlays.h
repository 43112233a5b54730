/* explorer_overlays.h — the overlays the explorer draws over the painter's
 * figure (explorer_overlays.c). */
#ifndef SEQREP_VIZ_EXPLORER_OVERLAYS_H
#define SEQREP_VIZ_EXPLORER_OVERLAYS_H

#include <cairo.h>

#include "explorer/explorer_window.h"

/* The text size of the overlays in a w x h window, in pixels: at least
 * 18 (the figures' smallest text at 1280 x 720), more in larger windows. */
double explorer_overlay_text_size(double w, double h);

/* Draw the overlays of the current frame on cr. */
void explorer_draw_overlays(Explorer *e, cairo_t *cr);

#endif
