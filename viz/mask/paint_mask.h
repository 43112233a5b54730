/* paint_mask.h — the painter of figure 1, the causal mask (mask_data.h).
 *
 * Word cells are coloured by the kind of their n x n block: full blocks in
 * blue, causal (diagonal) blocks in orange; visible cells of a <bos>/<sep>
 * row or column in green; masked cells in the masked grey, hatched. Each
 * block is outlined, and the counted share of full blocks is printed beside
 * the closed form (k-1)/(k+1). */
#ifndef SEQREP_VIZ_PAINT_MASK_H
#define SEQREP_VIZ_PAINT_MASK_H

#include <cairo.h>

#include "draw/figure.h"
#include "mask/mask_data.h"

/* Colours of the figure: a visible cell of a block of this kind, a visible
 * cell of a <bos>/<sep> row or column (special_colour), masked = figure_masked. */
Rgb mask_block_colour(BlockKind kind);
Rgb mask_special_colour(void);

/* Where things go on a w x h figure. */
typedef struct {
    FigureRect content;  /* below the title, above the caption */
    FigureRect grid;     /* the T x T cells                    */
    double cell;         /* side of one cell                   */
    double legend_x, legend_y;
} MaskLayout;

void mask_layout(cairo_t *cr, const MaskData *d, double w, double h, MaskLayout *out);

/* The cell under device point (x, y): 1 and (*query, *key), or 0 if none. */
int mask_cell_at(const MaskLayout *l, const MaskData *d, double x, double y, int *query, int *key);

/* Draw the figure (see figure.h for the painter contract). */
int paint_mask(cairo_t *cr, const MaskData *d, double w, double h);

#endif
