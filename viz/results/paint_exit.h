/* paint_exit.h — the painter of figure 5 (exit_data.h): every (method, r,
 * exit) a point at its relative cost against its F1, the points of one
 * (method, r) joined in exit order, the Pareto front a step line with its
 * points ringed, the reference's F1 and cost 1 as dashed lines. */
#ifndef SEQREP_VIZ_PAINT_EXIT_H
#define SEQREP_VIZ_PAINT_EXIT_H

#include <cairo.h>

#include "results/exit_data.h"

int paint_exit(cairo_t *cr, const ExitData *d, double w, double h);

#endif
