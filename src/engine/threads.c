/* threads.c — thread count for OpenMP, OpenBLAS single-threaded. */
#include "engine/threads.h"

#include <cblas.h>
#include <omp.h>

void threads_set(int n)
{
    if (n > 0) omp_set_num_threads(n);
    openblas_set_num_threads(1);
}

int threads_count(void)
{
    return omp_get_max_threads();
}
