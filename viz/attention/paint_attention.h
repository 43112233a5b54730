/* paint_attention.h — the painter of one attention map (attention_data.h):
 * one layer and one head (or the mean over heads), tokens on both axes,
 * copy boundaries, masked cells grey and hatched, a colour bar with ticks
 * (viridis) that says which scale it shows. */
#ifndef SEQREP_VIZ_PAINT_ATTENTION_H
#define SEQREP_VIZ_PAINT_ATTENTION_H

#include <cairo.h>

#include "attention/attention_data.h"
#include "draw/figure.h"

/* Where things go on a w x h figure of paint_attention. */
typedef struct {
    FigureRect map;       /* the T x T cells                            */
    double cell;          /* side of one cell                           */
    FigureRect colourbar; /* top = colour-bar end 1, bottom = end 0      */
    FigureRect masked_swatch;
    int label_step;       /* every label_step-th token is labelled      */
    double label_font;    /* font size of the token labels              */
} AttentionLayout;

void attention_layout(cairo_t *cr, const AttentionData *d, double w, double h, AttentionLayout *out);

/* The cell under device point (x, y): 1 and (*query, *key), or 0 if none. */
int attention_cell_at(const AttentionLayout *l, const AttentionData *d, double x, double y,
                      int *query, int *key);

int paint_attention(cairo_t *cr, const AttentionData *d, double w, double h);

/* Shared by both painters: draw the map of (layer, head) with range lo..hi
 * into rect (T x T cells; masked cells grey and hatched at scale unit), with
 * the copy boundaries as lines of width line_width (0 = none). */
void attention_draw_map(cairo_t *cr, const AttentionData *d, int layer, int head, double lo,
                        double hi, FigureRect rect, double line_width, double unit);

/* Shared by both painters: place the colour bar (bar_h high) 40 units right
 * of the maps' rectangle, top-aligned with it, and the masked swatch under
 * it, bottom-aligned with the maps. */
void attention_place_colourbar(FigureRect maps, double bar_h, double unit, FigureRect *bar, FigureRect *swatch);

/* Shared by both painters: draw the vertical colour bar in `bar` with tick
 * labels right of it and `label` rotated beside them (for d's scale and the
 * range lo..hi; with `relative` the ends read "min" and "max"), and the
 * masked swatch with its label. */
void attention_draw_colourbar(cairo_t *cr, const AttentionData *d, double unit, FigureRect bar,
                              FigureRect swatch, double lo, double hi, const char *label,
                              int relative);

#endif
