/* hatch.h — how a masked cell looks besides its grey: diagonal lines in
 * figure_hatch(s), so masked cells differ from every flat colour by texture
 * too, which a black-and-white print keeps. */
#ifndef SEQREP_VIZ_HATCH_H
#define SEQREP_VIZ_HATCH_H

#include <stdint.h>

#include <cairo.h>

#include "draw/figure.h"

/* Hatch the current path as masked: diagonal lines in figure_hatch(s), 2
 * units wide and 10 apart, on a grid anchored at the origin so that pieces
 * hatched one by one join up; the path is consumed. The caller has filled
 * the path with figure_masked(s) already. */
void figure_hatch_path(cairo_t *cr, const FigureStyle *s, double unit);

/* Hatch the cells of a T x T grid drawn in `grid` (row = query) whose entry
 * of cells (T, T) equals `masked`, as one path of runs along each row with
 * edges on whole device units like the cells'. */
void figure_hatch_cells(cairo_t *cr, const FigureStyle *s, const uint8_t *cells, int T, uint8_t masked,
                        FigureRect grid, double unit);

#endif
