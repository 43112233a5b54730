/* paint_proportion.h — the painter of figure 2 (proportion_data.h): the
 * closed form (k-1)/(k+1) as a curve over real r, the shares counted from
 * the mask as points, and the limit 1 as a reference. */
#ifndef SEQREP_VIZ_PAINT_PROPORTION_H
#define SEQREP_VIZ_PAINT_PROPORTION_H

#include <cairo.h>

#include "draw/figure.h"
#include "mask/proportion_data.h"

/* Colours: the curve and the counted points. */
Rgb proportion_curve_colour(void);
Rgb proportion_point_colour(void);

int paint_proportion(cairo_t *cr, const ProportionData *d, double w, double h);

#endif
