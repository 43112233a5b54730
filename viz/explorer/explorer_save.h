/* explorer_save.h — saving what the explorer shows and printing its plot
 * command (explorer_save.c). */
#ifndef SEQREP_VIZ_EXPLORER_SAVE_H
#define SEQREP_VIZ_EXPLORER_SAVE_H

#include "base/status.h"
#include "explorer/explorer_window.h"

/* Save the figure layer of the current view as PNG or SVG (ext) into the
 * save directory under a new name. 0 or -1. */
int explorer_save_view(Explorer *e, const char *ext, SrError *err);

/* Save the window as seen, overlays included (<shot>). 0 or -1. */
int explorer_save_window(Explorer *e, SrError *err);

/* Print the `seqrep plot` command of the current view to stdout. */
void explorer_print_command(Explorer *e);

#endif
