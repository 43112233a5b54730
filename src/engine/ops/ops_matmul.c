/* ops_matmul.c — the linear layer without bias, y = x W^T (PyTorch nn.Linear).
 * Two versions: plain loops (the readable reference) and OpenBLAS sgemm (the
 * fast path the model uses). Tests check that they agree. */
#include "engine/ops/ops.h"

#include <cblas.h>
#include <stddef.h>

#include "engine/ops/thread_team.h"

/* out (N, OC) = inp (N, C) . w^T, w (OC, C); plain loops. */
void matmul_forward_ref(float *out, const float *inp, const float *w, int N, int C, int OC)
{
    for (int n = 0; n < N; n++) {
        const float *x = inp + (size_t)n * C;
        for (int o = 0; o < OC; o++) {
            const float *wrow = w + (size_t)o * C;
            float sum = 0.0f;
            for (int c = 0; c < C; c++) sum += x[c] * wrow[c];
            out[(size_t)n * OC + o] = sum;
        }
    }
}

/* out (N, OC) = inp (N, C) . w^T, w (OC, C). Each OpenMP thread runs one
 * single-threaded sgemm on its own block (OpenBLAS's own threads are turned
 * off by threads_set: on these small shapes they cost more than they give;
 * docs/performance.md has the measurements): a block of the N rows when
 * there are at least as many rows as outputs, else a block of the OC outputs,
 * so that with few rows (a short sequence through a wide layer or the LM
 * head) each thread reads only its part of w instead of all of it. The
 * result is fixed for a fixed thread count; it is NOT bit-identical across
 * thread counts, because OpenBLAS's kernels may round differently when the
 * call has a different shape. */
void matmul_forward(float *out, const float *inp, const float *w, int N, int C, int OC)
{
    if (N <= 0 || OC <= 0) return;
    int split_outputs = N < OC;
#pragma omp parallel
    {
        int lo, hi;
        team_rows(split_outputs ? OC : N, &lo, &hi); /* the same rows in every call */
        if (hi > lo && split_outputs)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, hi - lo, C, 1.0f, inp, C,
                        w + (size_t)lo * C, C, 0.0f, out + lo, OC);
        else if (hi > lo)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, hi - lo, OC, C, 1.0f,
                        inp + (size_t)lo * C, C, w, C, 0.0f, out + (size_t)lo * OC, OC);
    }
}

/* dinp (N, C) += dout (N, OC) . w (OC, C);  dw (OC, C) += dout^T . inp (N, C).
 * Plain loops; either gradient may be NULL. */
void matmul_backward_ref(float *dinp, float *dw, const float *dout, const float *inp,
                         const float *w, int N, int C, int OC)
{
    if (dinp) {
        for (int n = 0; n < N; n++) {
            const float *g = dout + (size_t)n * OC;
            for (int c = 0; c < C; c++) {
                float sum = 0.0f;
                for (int o = 0; o < OC; o++) sum += g[o] * w[(size_t)o * C + c];
                dinp[(size_t)n * C + c] += sum;
            }
        }
    }
    if (dw) {
        for (int o = 0; o < OC; o++) {
            for (int c = 0; c < C; c++) {
                float sum = 0.0f;
                for (int n = 0; n < N; n++) sum += dout[(size_t)n * OC + o] * inp[(size_t)n * C + c];
                dw[(size_t)o * C + c] += sum;
            }
        }
    }
}

/* dinp (N, C) += dout (N, OC) . w (OC, C);  dw (OC, C) += dout^T . inp (N, C).
 * Either gradient may be NULL. Threads split dinp by rows of N and dw by rows
 * of OC, so every output element is summed by one thread in a fixed order. */
void matmul_backward(float *dinp, float *dw, const float *dout, const float *inp,
                     const float *w, int N, int C, int OC)
{
    if (N <= 0 || C <= 0 || OC <= 0) return;
#pragma omp parallel
    {
        int lo, hi;
        if (dinp) {
            team_rows(N, &lo, &hi);
            if (hi > lo)
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, hi - lo, C, OC, 1.0f,
                            dout + (size_t)lo * OC, OC, w, C, 1.0f, dinp + (size_t)lo * C, C);
        }
        if (dw) {
            team_rows(OC, &lo, &hi);
            if (hi > lo)
                cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, hi - lo, C, N, 1.0f,
                            dout + lo, OC, inp, C, 1.0f, dw + (size_t)lo * C, C);
        }
    }
}
