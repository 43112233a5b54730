/* explorer_script_file.h — `seqrep explore --script-file FILE`: a --script
 * kept in a file, one or more lines of it. Pure: no SDL. */
#ifndef SEQREP_VIZ_EXPLORER_SCRIPT_FILE_H
#define SEQREP_VIZ_EXPLORER_SCRIPT_FILE_H

#include "base/status.h"
#include "explorer_state/explorer_script.h"

/* Read path and parse each line as a --script string (explorer_script.h),
 * the events of all lines in order into *events (malloc'd, caller frees),
 * *n_events of them. Line ends (LF or CRLF) are ignored like spaces, and
 * a UTF-8 byte-order mark at the start is dropped, so a file saved on
 * Windows replays the same events. Errors name the file and line:
 * "keys.txt:3: unknown key name '<fly>' at character 5". */
int explorer_script_read_file(const char *path, ScriptEvent **events, int *n_events, SrError *err);

#endif
