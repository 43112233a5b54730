/* paint_repo_range.h — the painter of repo-range (repo_range_data.h): one
 * line per RePo layer, the z range against context length, beside the token
 * index range of RoPE when it does not flatten them. */
#ifndef SEQREP_VIZ_PAINT_REPO_RANGE_H
#define SEQREP_VIZ_PAINT_REPO_RANGE_H

#include <cairo.h>

#include "repo/repo_range_data.h"

int paint_repo_range(cairo_t *cr, const RepoRangeData *d, double w, double h);

#endif
