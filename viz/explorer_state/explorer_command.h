/* explorer_command.h — the `c` key: the `seqrep plot` command line that
 * renders the frame on screen, its words quoted for a POSIX shell. */
#ifndef SEQREP_VIZ_EXPLORER_COMMAND_H
#define SEQREP_VIZ_EXPLORER_COMMAND_H

#include <stddef.h>

#include "base/status.h"
#include "explorer_state/explorer_sources.h"
#include "explorer_state/explorer_state.h"

/* Quote one shell word: as is when it is made only of safe characters
 * (letters, digits, and _-./=:,+@%), otherwise in single quotes with each '
 * written as '\''. Returns the length the quoted word needs (like snprintf). */
size_t explorer_shell_quote(const char *word, char *out, size_t cap);

/* The `seqrep plot ...` command that renders the frame of state s at
 * width x height into out_path. `sentence` and `r` are those of the
 * attention data on screen (they lag the state while the model recomputes).
 * Writes at most cap bytes (NUL-terminated); returns 0, or -1 when the view
 * has no plot command or the text does not fit. */
int explorer_command_line(const ExplorerState *s, const ExplorerSources *src, int sentence, int r,
                          int width, int height, const char *out_path, char *out, size_t cap,
                          SrError *err);

#endif
