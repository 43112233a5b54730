/* explorer_command.h — the `c` key: the `seqrep plot` command line that
 * renders the frame on screen, its words quoted for a POSIX shell. */
#ifndef SEQREP_VIZ_EXPLORER_COMMAND_H
#define SEQREP_VIZ_EXPLORER_COMMAND_H

#include <stddef.h>

#include "base/status.h"
#include "figure_row/explorer_sources.h"
#include "figure_row/plot_words.h"
#include "explorer_state/explorer_state.h"

/* The `seqrep plot ...` command that renders the frame of state s at
 * width x height into out_path. `sentence` and `r` are those of the
 * attention data on screen (they lag the state while the model recomputes).
 * Writes at most cap bytes (NUL-terminated); returns 0, or -1 when the view
 * has no plot command or the text does not fit. */
int explorer_command_line(const ExplorerState *s, const ExplorerSources *src, int sentence, int r,
                          int width, int height, const char *out_path, char *out, size_t cap,
                          SrError *err);

#endif
