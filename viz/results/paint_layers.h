/* paint_layers.h — the painter of figure 4 (layers_data.h): one line per r,
 * the band of the last copy the mean +- one standard deviation, last-copy
 * read-out solid and first-copy dashed in the same colour, the baselines as
 * horizontal reference lines. */
#ifndef SEQREP_VIZ_PAINT_LAYERS_H
#define SEQREP_VIZ_PAINT_LAYERS_H

#include <cairo.h>

#include "results/layers_data.h"

/* Index in 0.. of the colour of r among the distinct r of d. */
int layers_colour_index(const LayersData *d, int r);

int paint_layers(cairo_t *cr, const LayersData *d, double w, double h);

#endif
