/* ops_rmsnorm.c — RMSNorm: out = x / sqrt(mean(x^2) + eps) * w, no bias, no
 * mean subtraction (Llama). */
#include "engine/ops/ops.h"

#include <math.h>
#include <stddef.h>

#include "engine/ops/simd_math.h"

/* Width of the column blocks that split the dw reduction between threads
 * (small enough that d_model 64 still gives every thread a block). */
enum { RMSNORM_DW_BLOCK = 32 };

/* rstd (N) = 1 / sqrt(mean_c inp^2 + eps);  out (N, C) = inp * rstd * w (C). */
void rmsnorm_forward(float *out, float *rstd, const float *inp, const float *w, float eps,
                     int N, int C)
{
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const float *x = inp + (size_t)n * C;
        float *y = out + (size_t)n * C;
        float sumsq = lane_dot(x, x, C);
        float r = 1.0f / sqrtf(sumsq / (float)C + eps);
        for (int c = 0; c < C; c++) y[c] = x[c] * r * w[c];
        rstd[n] = r;
    }
}

/* Per head, in place: each hd-vector h of row n of x (stride x_stride)
 * becomes x * rstd * w (hd), rstd = 1 / sqrt(mean(x^2) + eps); rstd (N, H)
 * is saved when not NULL. */
void rmsnorm_heads_forward(float *x, int x_stride, float *rstd, const float *w, float eps, int N,
                           int H, int hd)
{
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++)
        for (int h = 0; h < H; h++) {
            float *y = x + (size_t)n * x_stride + (size_t)h * hd;
            float r = 1.0f / sqrtf(lane_dot(y, y, hd) / (float)hd + eps);
            for (int c = 0; c < hd; c++) y[c] = y[c] * r * w[c];
            if (rstd) rstd[(size_t)n * H + h] = r;
        }
}

/* Backward of rmsnorm_heads_forward, the rule of rmsnorm_backward applied
 * to every head vector: with xhat = x * rstd and g = w * dout,
 *   dinp += rstd * g - rstd * xhat * mean_c(g * xhat)   (rows of stride dinp_stride)
 *   dw (hd) += sum over rows and heads of dout * xhat
 * x: the input before the norm (rows of x_stride), dout rows of dout_stride,
 * rstd (N, H). The dw sum runs over rows and heads in order (one thread per
 * column block), so it does not depend on the thread count. */
void rmsnorm_heads_backward(float *dinp, int dinp_stride, float *dw, const float *dout,
                            int dout_stride, const float *x, int x_stride, const float *w,
                            const float *rstd, int N, int H, int hd)
{
    if (dinp) {
#pragma omp parallel for schedule(static)
        for (int n = 0; n < N; n++)
            for (int h = 0; h < H; h++) {
                const float *xv = x + (size_t)n * x_stride + (size_t)h * hd;
                const float *g = dout + (size_t)n * dout_stride + (size_t)h * hd;
                float *dx = dinp + (size_t)n * dinp_stride + (size_t)h * hd;
                float r = rstd[(size_t)n * H + h], dot = 0.0f;
                for (int c = 0; c < hd; c++) dot += (w[c] * g[c]) * xv[c];
                float mean = dot * r / (float)hd;
                for (int c = 0; c < hd; c++) dx[c] += r * (w[c] * g[c]) - r * (xv[c] * r) * mean;
            }
    }
    if (dw) {
        int n_blocks = (hd + RMSNORM_DW_BLOCK - 1) / RMSNORM_DW_BLOCK;
#pragma omp parallel for schedule(static)
        for (int blk = 0; blk < n_blocks; blk++) {
            int c0 = blk * RMSNORM_DW_BLOCK;
            int c1 = c0 + RMSNORM_DW_BLOCK < hd ? c0 + RMSNORM_DW_BLOCK : hd;
            for (int n = 0; n < N; n++)
                for (int h = 0; h < H; h++) {
                    const float *xv = x + (size_t)n * x_stride + (size_t)h * hd;
                    const float *g = dout + (size_t)n * dout_stride + (size_t)h * hd;
                    float r = rstd[(size_t)n * H + h];
                    for (int c = c0; c < c1; c++) dw[c] += g[c] * (xv[c] * r);
                }
        }
    }
}

/* With xhat = inp * rstd and g = w * dout (rows of C):
 *   dinp (N, C) += rstd * g - rstd * xhat * mean_c(g * xhat)
 *   dw (C)      += sum_n dout * xhat
 * The dw sum runs over rows in order inside fixed column blocks, so it does not
 * depend on the thread count. Both run in one parallel region: a thread done
 * with its rows of dinp goes on to its column blocks of dw without waiting
 * (so dinp must not alias dout or inp). */
void rmsnorm_backward(float *dinp, float *dw, const float *dout, const float *inp,
                      const float *w, const float *rstd, int N, int C)
{
    int n_blocks = dw ? (C + RMSNORM_DW_BLOCK - 1) / RMSNORM_DW_BLOCK : 0;
    int n_rows = dinp ? N : 0;
#pragma omp parallel
    {
#pragma omp for schedule(static) nowait
        for (int n = 0; n < n_rows; n++) {
            const float *x = inp + (size_t)n * C;
            const float *g = dout + (size_t)n * C;
            float *dx = dinp + (size_t)n * C;
            float r = rstd[n];
            /* sum_c (w g)_c x_c in 8 fixed lanes (see simd_math.h) */
            float acc[SIMD_LANES] = {0};
            int c = 0;
            for (; c + SIMD_LANES <= C; c += SIMD_LANES)
                for (int j = 0; j < SIMD_LANES; j++) acc[j] += (w[c + j] * g[c + j]) * x[c + j];
            for (int j = 0; c < C; c++, j++) acc[j] += (w[c] * g[c]) * x[c];
            float mean = lanes_total(acc) * r / (float)C;
            for (c = 0; c < C; c++) dx[c] += r * (w[c] * g[c]) - r * (x[c] * r) * mean;
        }
#pragma omp for schedule(static)
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
