/* explorer_setup.h — the result files and the first view the explorer's
 * options ask for (explorer_setup.c). */
#ifndef SEQREP_VIZ_EXPLORER_SETUP_H
#define SEQREP_VIZ_EXPLORER_SETUP_H

#include "base/status.h"
#include "explorer/explorer_window.h"

/* Load the results the optional views draw, as `seqrep plot` reads them. 0 or -1. */
int explorer_load_results(Explorer *e, SrError *err);

/* Free the result files' figures explorer_load_results loaded. */
void explorer_free_results(Explorer *e);

/* Set up the state from the options: sentence, r, layer, head, scale, view. */
int explorer_initial_state(Explorer *e, int max_T, SrError *err);

#endif
