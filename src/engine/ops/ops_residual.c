/* ops_residual.c — the residual connection, out = a + b. */
#include "engine/ops/ops.h"

/* out (n) = a (n) + b (n). */
void residual_forward(float *out, const float *a, const float *b, long n)
{
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) out[i] = a[i] + b[i];
}

/* da (n) += dout (n);  db (n) += dout (n). Either may be NULL. */
void residual_backward(float *da, float *db, const float *dout, long n)
{
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        if (da) da[i] += dout[i];
        if (db) db[i] += dout[i];
    }
}
