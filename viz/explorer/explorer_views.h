/* explorer_views.h — the data behind the explorer's views and the figure
 * the painter draws for the current one (explorer_views.c). */
#ifndef SEQREP_VIZ_EXPLORER_VIEWS_H
#define SEQREP_VIZ_EXPLORER_VIEWS_H

#include <cairo.h>

#include "attention/paint_attention_overview.h"
#include "explorer/explorer_window.h"

/* Release the attention maps (their own mask pointer restored first) and
 * the z figure taken from them. */
void explorer_drop_attention(Explorer *e);

/* Ask the worker for the maps of the state's sentence and r. */
void explorer_request_maps(Explorer *e);

/* Take a finished result from the worker, if there is one. */
void explorer_take_maps(Explorer *e);

/* Point fig at the view of the state, with its style, title and caption as
 * `seqrep plot` would set them. Returns 0, or -1 when the view has nothing
 * to draw yet (maps still computing). */
int explorer_prepare_figure(Explorer *e);

/* The head roles of the maps on screen when the overview shows them (R on),
 * computed once per maps; NULL when they are not shown or cannot be had
 * (compute_error says why). Call after explorer_prepare_figure. */
const ExplorerRoles *explorer_shown_roles(Explorer *e);

/* The room the overview on screen leaves for the roles at w x h ({0, 0}
 * without them). */
AttentionOverviewRoom explorer_overview_room(Explorer *e, cairo_t *cr, double w, double h);

/* Draw the current view on cr (w x h) after painting all of cr's surface in
 * the theme's background: the painter, or nothing more while the maps are
 * computed. Records in
 * e->figure_boxes where it drew what (and adds them to cr's recorder, if
 * one is attached: layout_boxes.h). 0 or -1. */
int explorer_paint_view(Explorer *e, cairo_t *cr, double w, double h);

#endif
