/* ops_matmul.c — the linear layer without bias, y = x W^T (PyTorch nn.Linear).
 * Two versions: plain loops (the readable reference) and OpenBLAS sgemm (the
 * fast path the model uses). Tests check that they agree. */
#include "ops.h"

#include <cblas.h>
#include <stddef.h>

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

/* out (N, OC) = inp (N, C) . w^T, w (OC, C); one sgemm. */
void matmul_forward(float *out, const float *inp, const float *w, int N, int C, int OC)
{
    if (N <= 0 || OC <= 0) return;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, OC, C, 1.0f, inp, C, w, C, 0.0f,
                out, OC);
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
 * Two sgemm calls with beta = 1; either gradient may be NULL. */
void matmul_backward(float *dinp, float *dw, const float *dout, const float *inp,
                     const float *w, int N, int C, int OC)
{
    if (N <= 0 || C <= 0 || OC <= 0) return;
    if (dinp)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, C, OC, 1.0f, dout, OC, w, C,
                    1.0f, dinp, C);
    if (dw)
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, OC, C, N, 1.0f, dout, OC, inp, C,
                    1.0f, dw, C);
}
