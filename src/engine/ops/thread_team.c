/* thread_team.c — the calling thread's place in its OpenMP team (see
 * thread_team.h); a team of one thread in a build without OpenMP. */
#include "engine/ops/thread_team.h"

#ifdef _OPENMP
#include <omp.h>
#endif

int team_thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

int team_size(void)
{
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}

void team_part(size_t n, size_t *lo, size_t *hi)
{
    size_t id = (size_t)team_thread_id(), count = (size_t)team_size();
    *lo = n * id / count;
    *hi = n * (id + 1) / count;
}

void team_rows(int n, int *lo, int *hi)
{
    size_t first, end;
    team_part(n > 0 ? (size_t)n : 0, &first, &end);
    *lo = (int)first;
    *hi = (int)end;
}
