/* explorer_command.h — the `c` key: the `seqrep plot` command line that
 * renders the frame on screen, its words quoted for a POSIX shell. */
#ifndef SEQREP_VIZ_EXPLORER_COMMAND_H
#define SEQREP_VIZ_EXPLORER_COMMAND_H

#include <stddef.h>

#include "base/status.h"
#include "explorer_state/explorer_state.h"
#include "figure_row/explorer_sources.h"
#include "figure_row/plot_words.h"

/* The words of the `seqrep plot ...` command that renders the frame of
 * state s at width x height into out_path, into w (new; the caller frees
 * it). `sentence` and `r` are those of the forward on screen (they lag the
 * state while the model recomputes). 0, or -1 when out of memory. */
int explorer_command_words(const ExplorerState *s, const ExplorerSources *src, int sentence, int r, int width,
                           int height, const char *out_path, PlotWords *w);

/* The same command as one line, each word quoted, into out (at most cap
 * bytes, NUL-terminated). 0, or -1 with err when it does not fit. */
int explorer_command_line(const ExplorerState *s, const ExplorerSources *src, int sentence, int r,
                          int width, int height, const char *out_path, char *out, size_t cap,
                          SrError *err);

#endif
