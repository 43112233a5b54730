/* explorer_hover.h — what is under the mouse in the explorer's window
 * (explorer_hover.c). */
#ifndef SEQREP_VIZ_EXPLORER_HOVER_H
#define SEQREP_VIZ_EXPLORER_HOVER_H

#include <cairo.h>

#include "attention/attention_data.h"
#include "attention/paint_attention_overview.h"
#include "explorer/explorer_window.h"

/* The panel of the overview at (x, y) when it leaves `room` (the head
 * roles' room, or {0, 0}): 1 and (*layer, *head; -1 = mean), or 0. Uses the
 * panel placement of the overview painter (attention_overview_panel). */
int explorer_overview_panel_at(cairo_t *cr, const AttentionData *d, AttentionOverviewRoom room, double w,
                               double h, double x, double y, int *layer, int *head);

/* Update the state's hover cell from the mouse (attention and mask views;
 * the token under the mouse in the z view). */
void explorer_update_hover(Explorer *e, cairo_t *cr);

#endif
