/* paint_attention_overview.h — the painter of the attention overview
 * (attention_data.h): a layer x head grid of small maps, plus the mean over
 * heads, with one shared colour bar. A caller that marks the panels (the
 * explorer's head roles) asks for room: a strip under every panel and a
 * column right of the colour bar, both left empty. */
#ifndef SEQREP_VIZ_PAINT_ATTENTION_OVERVIEW_H
#define SEQREP_VIZ_PAINT_ATTENTION_OVERVIEW_H

#include <cairo.h>

#include "attention/attention_data.h"
#include "draw/figure.h"

/* Room to leave free for marks drawn over the overview, in device units:
 * `below` under every panel (a line of text), `side` right of the colour
 * bar. {0, 0} is the figure of `seqrep plot attention --overview`. */
typedef struct {
    double below, side;
} AttentionOverviewRoom;

/* Where the panels of the overview go: panel (l, column) with column H =
 * the mean over heads (when H > 1). */
typedef struct {
    FigureRect grid;       /* all panels (and the strips under them)       */
    double panel, gap;     /* panel side and the gap between panels        */
    double below;          /* the free strip under each panel (room.below) */
    int n_cols;            /* H, plus 1 for the mean when H > 1            */
    FigureRect colourbar;
    FigureRect masked_swatch;
    FigureRect side;       /* the free column right of the colour bar, room.side
                              wide, from the grid's top to the content's bottom */
} AttentionOverviewLayout;

void attention_overview_layout(cairo_t *cr, const AttentionData *d, double w, double h,
                               AttentionOverviewLayout *out);

/* The same, leaving `room` free (attention_overview_layout is room {0, 0}). */
void attention_overview_layout_room(cairo_t *cr, const AttentionData *d, double w, double h,
                                    AttentionOverviewRoom room, AttentionOverviewLayout *out);

/* The rectangle of panel (layer, column) in layout L (column H: the mean). */
FigureRect attention_overview_panel(const AttentionOverviewLayout *L, const AttentionData *d, int layer, int col);

int paint_attention_overview(cairo_t *cr, const AttentionData *d, double w, double h);

/* The same, leaving `room` free: with room {0, 0} the same drawing. */
int paint_attention_overview_room(cairo_t *cr, const AttentionData *d, double w, double h,
                                  AttentionOverviewRoom room);

#endif
