/* ops_fill.c — zeroing and copying float buffers with every thread of the
 * team, each on its own contiguous part. The bytes written are those of
 * memset and memcpy, so no result changes; the backward zeroes some 16 MB
 * of gradient scratch per layer of the base model, which one thread alone
 * did while the others waited. */
#include "engine/ops/ops.h"

#include <string.h>

#include "engine/ops/thread_team.h"

/* x (n) = 0 (all bits zero, as memset). */
void fill_zero(float *x, size_t n)
{
#pragma omp parallel
    {
        size_t lo, hi;
        team_part(n, &lo, &hi);
        if (hi > lo) memset(x + lo, 0, (hi - lo) * sizeof(float));
    }
}

/* x0 (n0) = 0, x1 (n1) = 0, x2 (n2) = 0 in one parallel region (a NULL
 * buffer, or n 0, is skipped). */
void fill_zero3(float *x0, size_t n0, float *x1, size_t n1, float *x2, size_t n2)
{
    float *x[3] = {x0, x1, x2};
    size_t n[3] = {n0, n1, n2};
#pragma omp parallel
    {
        for (int i = 0; i < 3; i++) {
            size_t lo, hi;
            team_part(n[i], &lo, &hi);
            if (x[i] && hi > lo) memset(x[i] + lo, 0, (hi - lo) * sizeof(float));
        }
    }
}

/* dst (n) = src (n); the two do not overlap. */
void fill_copy(float *dst, const float *src, size_t n)
{
#pragma omp parallel
    {
        size_t lo, hi;
        team_part(n, &lo, &hi);
        if (hi > lo) memcpy(dst + lo, src + lo, (hi - lo) * sizeof(float));
    }
}
