/* explorer_names.h — the names the explorer saves frames under, chosen so
 * that a save never overwrites an earlier one. */
#ifndef SEQREP_VIZ_EXPLORER_NAMES_H
#define SEQREP_VIZ_EXPLORER_NAMES_H

#include <stddef.h>

#include "base/status.h"

/* The first free name DIR/explore-NNNN.EXT (NNNN from 0001) such that no
 * explore-NNNN.png, .svg or -window.png exists in dir, so a save never
 * overwrites an earlier one. ext is "png" or "svg"; suffix is "" or "-window".
 * 0, or -1 when no number up to 9999 is free or the name does not fit. */
int explorer_save_path(const char *dir, const char *suffix, const char *ext, char *out,
                       size_t cap, SrError *err);

#endif
