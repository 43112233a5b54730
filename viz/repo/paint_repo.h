/* paint_repo.h — the RePo figures, drawn from the CSV files that
 * `seqrep repo-eval --figures DIR` and `seqrep repo-positions` write, one
 * data/painter pair each:
 *
 *   repo-z, repo-repeat  paint_repo_z.h       z per token, z per copy
 *   repo-range           paint_repo_range.h   z range per layer against length
 *   repo-needle          paint_repo_needle.h  attention on the needle
 *
 * This header only gathers the three, for code that uses all of them. */
#ifndef SEQREP_VIZ_PAINT_REPO_H
#define SEQREP_VIZ_PAINT_REPO_H

#include "repo/paint_repo_needle.h"
#include "repo/paint_repo_range.h"
#include "repo/paint_repo_z.h"

#endif
