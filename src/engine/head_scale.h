/* head_scale.h — the head plan (ModelInput.head_scale, engine/input.h) of
 * the heads a command takes away, from its text "L.H[,L.H...]". */
#ifndef SEQREP_HEAD_SCALE_H
#define SEQREP_HEAD_SCALE_H

#include "base/status.h"

/* The head plan taking away the heads of "L.H[,L.H...]" (head H of layer L;
 * "none" or NULL: *plan = NULL): a new (n_layers, n_heads) plan, 0 for the
 * heads named, else 1. Fails naming the item: "'2.7': head 7 is out of
 * range 0..3", "'2' is not LAYER.HEAD (such as 2.1)", "'1.2' is named
 * twice". 0 or -1. */
int head_plan_parse(const char *text, int n_layers, int n_heads, float **plan, SrError *err);

#endif
