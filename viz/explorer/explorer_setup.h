/* explorer_setup.h — the explorer opened and closed without a window
 * (explorer_setup.c): what explorer_run does before the window opens and
 * after it closes, and what the tests of the explorer open. */
#ifndef SEQREP_VIZ_EXPLORER_SETUP_H
#define SEQREP_VIZ_EXPLORER_SETUP_H

#include "base/status.h"
#include "explorer/explorer_window.h"

/* Open e (zeroed) on the options o (kept): the series of --series, the
 * vocabulary and the sentences, the views that can be shown, with the data
 * of the files given to explore loaded, and the first view. No window, no
 * worker (e->worker NULL: start one with explorer_worker_start for the views
 * of the forward). 0, or -1 with err; close e either way. */
int explorer_open(Explorer *e, const ExplorerOptions *o, SrError *err);

/* The longest repeated input the explorer shows: the model's, at most
 * ATTENTION_MAX_T. */
int explorer_max_T(const Explorer *e);

/* Release what explorer_open and the views set up, and the worker. */
void explorer_close(Explorer *e);

#endif
