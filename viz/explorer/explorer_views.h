/* explorer_views.h — the data behind the explorer's views (one per view of
 * the table of figures) and the figure the painter draws for the current
 * one (explorer_views.c). */
#ifndef SEQREP_VIZ_EXPLORER_VIEWS_H
#define SEQREP_VIZ_EXPLORER_VIEWS_H

#include <cairo.h>

#include "attention/paint_attention_overview.h"
#include "explorer/explorer_window.h"

/* Release the forward (its attention maps) and the views' data taken from
 * it, and the head roles computed on it. */
void explorer_drop_attention(Explorer *e);

/* Ask the worker for the forward of the state's sentence and r. */
void explorer_request_maps(Explorer *e);

/* Take a finished forward from the worker, if there is one. */
void explorer_take_maps(Explorer *e);

/* What the views read of the window (figure_view.h): the state, the
 * sources, the checkpoint's checksum and seed, the snapshot, the labels of
 * the repeated sentence on screen and the forward. */
void explorer_context(Explorer *e, ViewContext *c);

/* Make the data of the view on screen that of the frame: had again when the
 * plot words its view writes change, with the style of the window. Returns
 * 0, or -1 when the view has nothing to draw yet (the forward or its maps
 * are computed: maps_computing) or cannot have it (compute_error, or the
 * status line). */
int explorer_prepare_figure(Explorer *e);

/* The figure of the view on screen (after explorer_prepare_figure returned
 * 0), and the attention maps it shows (the view's maps; NULL for views of
 * other data). */
const Figure *explorer_shown_figure(const Explorer *e);
const AttentionData *explorer_shown_maps(const Explorer *e);

/* Load view v's data now, from its plot words for the state (setting up the
 * views of files before the window opens). 0, or -1 with err. */
int explorer_load_view(Explorer *e, int v, SrError *err);

/* Release every view's data and the labels of the pieces. */
void explorer_free_views(Explorer *e);

/* The head roles of the forward on screen when a view of the layer x head
 * grid shows them (R on), computed once per forward when every layer is
 * ready; NULL when they are not shown or cannot be had (compute_error says
 * why). */
const ExplorerRoles *explorer_shown_roles(Explorer *e);

/* The room the grid on screen leaves for the roles at w x h ({0, 0}
 * without them). */
AttentionOverviewRoom explorer_overview_room(Explorer *e, cairo_t *cr, double w, double h);

/* Draw the current view on cr (w x h) after painting all of cr's surface in
 * the theme's background: the painter, or nothing more while its data is
 * had. Records in e->figure_boxes where it drew what (and adds them to cr's
 * recorder, if one is attached: layout_boxes.h). 0 or -1. */
int explorer_paint_view(Explorer *e, cairo_t *cr, double w, double h);

#endif
