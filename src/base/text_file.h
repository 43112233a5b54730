/* text_file.h — reading a whole text file into memory. */
#ifndef SEQREP_TEXT_FILE_H
#define SEQREP_TEXT_FILE_H

#include <stddef.h>

#include "base/status.h"

/* Read a whole text file into a NUL-terminated buffer (*text, caller frees;
 * *len excludes the NUL). A UTF-8 byte-order mark at the start is dropped.
 * Fails with "path: cannot open (reason)" or "path: read error (reason)". */
int text_read_file(const char *path, char **text, size_t *len, SrError *err);

#endif
