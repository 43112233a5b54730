/* thread_team.h — where the calling thread stands in its OpenMP team, so
 * that an op splits its work the same way with or without OpenMP (a build
 * without it, make OMP=0, has one team of one thread everywhere). */
#ifndef SEQREP_THREAD_TEAM_H
#define SEQREP_THREAD_TEAM_H

#include <stddef.h>

/* The calling thread's number in its team, 0 .. team_size() - 1
 * (0 outside a parallel region). */
int team_thread_id(void);

/* The number of threads in the calling thread's team (1 outside a parallel
 * region, and always 1 without OpenMP). */
int team_size(void);

/* The calling thread's contiguous part [*lo, *hi) of n items: near-equal
 * chunks in thread order, the whole of them outside a parallel region. */
void team_part(size_t n, size_t *lo, size_t *hi);

/* team_part of n rows counted in int (the matrix products' rows). */
void team_rows(int n, int *lo, int *hi);

#endif
