/* threads.c — thread count for OpenMP, OpenBLAS single-threaded (a build
 * without OpenMP, make OMP=0, runs on one thread whatever is asked). */
#include "engine/threads.h"

#include <cblas.h>
#ifdef _OPENMP
#include <omp.h>
#endif

void threads_set(int n)
{
#ifdef _OPENMP
    if (n > 0) omp_set_num_threads(n);
#else
    (void)n;
#endif
    openblas_set_num_threads(1);
}

int threads_count(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}
