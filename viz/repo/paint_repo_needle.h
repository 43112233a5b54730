/* paint_repo_needle.h — the painter of repo-needle (repo_needle_data.h):
 * per layer, one bar per method for the attention per token on the needle
 * (solid) and next to it (hatched). */
#ifndef SEQREP_VIZ_PAINT_REPO_NEEDLE_H
#define SEQREP_VIZ_PAINT_REPO_NEEDLE_H

#include <cairo.h>

#include "repo/repo_needle_data.h"

int paint_repo_needle(cairo_t *cr, const RepoNeedleData *d, double w, double h);

#endif
