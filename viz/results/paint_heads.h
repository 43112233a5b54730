/* paint_heads.h — the painter of the heads figure (heads_data.h): one panel
 * per score side by side, each a layer (rows, layer 0 on top) x head
 * (columns) grid of cells coloured on the fixed 0-1 viridis scale, the value
 * printed in each cell large enough to hold it, the best head of each score
 * outlined, and one colour bar for all panels. */
#ifndef SEQREP_VIZ_PAINT_HEADS_H
#define SEQREP_VIZ_PAINT_HEADS_H

#include <cairo.h>

#include "results/heads_data.h"

/* Where the parts of the figure go. */
typedef struct {
    FigureRect panel[HEAD_N_SCORES]; /* the grid of each panel (n_heads x n_layers cells) */
    double cell;                     /* side of a cell                                   */
    double value_font;               /* size of the values in the cells; 0: not drawn    */
    FigureRect colourbar;
    FigureRect best_swatch;          /* the key of the outline, under the colour bar     */
    FigureRect chance_swatch;        /* the key of the chance dot, under that            */
} HeadsLayout;

/* The layout of d on a w x h figure; measures text, draws nothing. */
void heads_layout(cairo_t *cr, const HeadsData *d, double w, double h, HeadsLayout *out);

/* The rectangle of the cell (layer, head) of panel p. */
FigureRect heads_cell(const HeadsLayout *L, int p, int layer, int head);

/* The colour of the outline around the best head of each score. */
Rgb heads_best_colour(void);

int paint_heads(cairo_t *cr, const HeadsData *d, double w, double h);

#endif
