/* paint_attention_overview.h — the painter of the attention overview
 * (attention_data.h): a layer x head grid of small maps, plus the mean over
 * heads, with one shared colour bar. */
#ifndef SEQREP_VIZ_PAINT_ATTENTION_OVERVIEW_H
#define SEQREP_VIZ_PAINT_ATTENTION_OVERVIEW_H

#include <cairo.h>

#include "attention/attention_data.h"
#include "draw/figure.h"

/* Where the panels of the overview go: panel (l, column) with column H =
 * the mean over heads (when H > 1). */
typedef struct {
    FigureRect grid;       /* all panels                                   */
    double panel, gap;     /* panel side and the gap between panels        */
    int n_cols;            /* H, plus 1 for the mean when H > 1            */
    FigureRect colourbar;
    FigureRect masked_swatch;
} AttentionOverviewLayout;

void attention_overview_layout(cairo_t *cr, const AttentionData *d, double w, double h,
                               AttentionOverviewLayout *out);

/* The rectangle of panel (layer, column) in layout L (column H: the mean). */
FigureRect attention_overview_panel(const AttentionOverviewLayout *L, const AttentionData *d, int layer, int col);

int paint_attention_overview(cairo_t *cr, const AttentionData *d, double w, double h);

#endif
