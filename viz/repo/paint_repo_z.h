/* paint_repo_z.h — the painters of the z figures (repo_z_data.h):
 *
 *   repo-z       z against token index for one layer and head; the values
 *                clipped to a fence drawn as hollow triangles; tokens of a
 *                repeated input coloured by copy
 *   repo-repeat  z against word index, one line per copy of a repeated
 *                sentence: lines on top of each other = repeated words get
 *                the same z (the copies overlap) */
#ifndef SEQREP_VIZ_PAINT_REPO_Z_H
#define SEQREP_VIZ_PAINT_REPO_Z_H

#include <cairo.h>

#include "repo/repo_z_data.h"

int paint_repo_z(cairo_t *cr, const RepoZData *d, double w, double h);

/* The token whose point paint_repo_z draws (on a w x h figure) nearest to
 * pixel (x, y), within reach of its marker; -1 if none (for hover). */
int repo_z_point_at(cairo_t *cr, const RepoZData *d, double w, double h, double x, double y);

/* Needs a repeated input (n_copies >= 2). */
int paint_repo_repeat(cairo_t *cr, const RepoZData *d, double w, double h);

#endif
