/* paint_flow.h — the painter of figure 6 (flow_data.h): one stacked bar per
 * layer, the shares of the five categories adding up to 100%. */
#ifndef SEQREP_VIZ_PAINT_FLOW_H
#define SEQREP_VIZ_PAINT_FLOW_H

#include <cairo.h>

#include "results/flow_data.h"

/* Colour of a category's bar segment. */
Rgb flow_category_colour(FlowCategory c);

/* Readable name of a category ("own copy", ...). */
const char *flow_category_label(FlowCategory c);

int paint_flow(cairo_t *cr, const FlowData *d, double w, double h);

#endif
