/* explorer_overlays.h — what is under the mouse in the explorer's window and
 * the overlays it draws over the painter's figure (explorer_overlays.c). */
#ifndef SEQREP_VIZ_EXPLORER_OVERLAYS_H
#define SEQREP_VIZ_EXPLORER_OVERLAYS_H

#include <cairo.h>

#include "attention/attention_data.h"
#include "attention/paint_attention_overview.h"
#include "explorer/explorer_window.h"

/* The text size of the overlays in a w x h window, in pixels: at least
 * 18 (the figures' smallest text at 1280 x 720), more in larger windows. */
double explorer_overlay_text_size(double w, double h);

/* The panel of a layer x head grid of d at (x, y) when it leaves `room`
 * (the head roles' room, or {0, 0}): 1 and (*layer, *head; -1 = mean), or
 * 0. Uses the panel placement of the overview painter
 * (attention_overview_panel). */
int explorer_overview_panel_at(cairo_t *cr, const AttentionData *d, AttentionOverviewRoom room, double w,
                               double h, double x, double y, int *layer, int *head);

/* Update the state's hover cell from the mouse: the cell or point under it
 * that the view on screen answers for (FigureView.under_mouse), else none. */
void explorer_update_hover(Explorer *e, cairo_t *cr);

/* Draw the overlays of the current frame on cr. */
void explorer_draw_overlays(Explorer *e, cairo_t *cr);

#endif
