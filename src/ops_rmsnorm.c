/* ops_rmsnorm.c — RMSNorm: out = x / sqrt(mean(x^2) + eps) * w, no bias, no
 * mean subtraction (Llama). */
#include "ops.h"

#include <math.h>
#include <stddef.h>

/* Width of the column blocks that split the dw reduction between threads. */
enum { RMSNORM_DW_BLOCK = 64 };

/* rstd (N) = 1 / sqrt(mean_c inp^2 + eps);  out (N, C) = inp * rstd * w (C). */
void rmsnorm_forward(float *out, float *rstd, const float *inp, const float *w, float eps,
                     int N, int C)
{
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const float *x = inp + (size_t)n * C;
        float *y = out + (size_t)n * C;
        float sumsq = 0.0f;
        for (int c = 0; c < C; c++) sumsq += x[c] * x[c];
        float r = 1.0f / sqrtf(sumsq / (float)C + eps);
        for (int c = 0; c < C; c++) y[c] = x[c] * r * w[c];
        rstd[n] = r;
    }
}

/* With xhat = inp * rstd and g = w * dout (rows of C):
 *   dinp (N, C) += rstd * g - rstd * xhat * mean_c(g * xhat)
 *   dw (C)      += sum_n dout * xhat
 * The dw sum runs over rows in order inside fixed column blocks, so it does not
 * depend on the thread count. */
void rmsnorm_backward(float *dinp, float *dw, const float *dout, const float *inp,
                      const float *w, const float *rstd, int N, int C)
{
    if (dinp) {
#pragma omp parallel for schedule(static)
        for (int n = 0; n < N; n++) {
            const float *x = inp + (size_t)n * C;
            const float *g = dout + (size_t)n * C;
            float *dx = dinp + (size_t)n * C;
            float r = rstd[n];
            float dot = 0.0f;
            for (int c = 0; c < C; c++) dot += w[c] * g[c] * x[c] * r;
            float mean = dot / (float)C;
            for (int c = 0; c < C; c++) dx[c] += r * (w[c] * g[c]) - r * (x[c] * r) * mean;
        }
    }
    if (dw) {
        int n_blocks = (C + RMSNORM_DW_BLOCK - 1) / RMSNORM_DW_BLOCK;
#pragma omp parallel for schedule(static)
        for (int blk = 0; blk < n_blocks; blk++) {
            int c0 = blk * RMSNORM_DW_BLOCK;
            int c1 = c0 + RMSNORM_DW_BLOCK < C ? c0 + RMSNORM_DW_BLOCK : C;
            for (int n = 0; n < N; n++) {
                const float *x = inp + (size_t)n * C;
                const float *g = dout + (size_t)n * C;
                float r = rstd[n];
                for (int c = c0; c < c1; c++) dw[c] += g[c] * (x[c] * r);
            }
        }
    }
}
