/* paint_flow.h — figure 6: where the attention of last-copy tokens goes,
 * per layer.
 *
 * Reads the CSV of `seqrep attnflow --out` (columns layer, head, own_copy,
 * earlier_left, same_word, earlier_right, sink; src/theory/attnflow.h defines the
 * categories) and draws one stacked bar per layer: the shares of the five
 * categories for one head or the mean over heads, adding up to 100%. */
#ifndef SEQREP_VIZ_PAINT_FLOW_H
#define SEQREP_VIZ_PAINT_FLOW_H

#include <stdio.h>

#include <cairo.h>

#include "draw/figure.h"
#include "theory/attnflow.h"

typedef struct {
    FigureMeta meta;
    int n_layers;
    int n_heads;       /* heads in the file                        */
    int head;          /* the head drawn, or -1 for the mean        */
    double *share;     /* (n_layers, FLOW_N_CATEGORIES) shares 0..1 */
} FlowData;

/* Read an attnflow CSV and keep head `head` (-1 = mean over heads). Every
 * (layer, head) pair 0..L-1 x 0..H-1 must appear exactly once. Fails on a
 * missing column or a head out of range ("flow.csv: head 7 out of range
 * 0..3"). Free with flow_data_free. */
int flow_data_load(FlowData *d, const char *path, int head, SrError *err);
void flow_data_free(FlowData *d);

/* CSV of the drawn numbers: layer,own_copy,earlier_left,same_word,earlier_right,sink. */
void flow_data_write_csv(const FlowData *d, FILE *out);

/* Colour of a category's bar segment. */
Rgb flow_category_colour(FlowCategory c);

/* Readable name of a category ("own copy", ...). */
const char *flow_category_label(FlowCategory c);

int paint_flow(cairo_t *cr, const FlowData *d, double w, double h);

#endif
