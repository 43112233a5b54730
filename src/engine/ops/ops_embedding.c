/* ops_embedding.c — token embedding lookup and its scatter-add backward. */
#include "engine/ops/ops.h"

#include <stddef.h>
#include <string.h>

/* out (N, C) = wte[ids[n]] for each of the N tokens; wte (V, C). */
void embedding_forward(float *out, const int *ids, const float *wte, int N, int C)
{
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++)
        memcpy(out + (size_t)n * C, wte + (size_t)ids[n] * C, (size_t)C * sizeof(float));
}

/* dwte (V, C) += dout (N, C) scattered to rows ids[n]. Serial over n, because
 * repeated ids hit the same row; the order of additions is therefore fixed. */
void embedding_backward(float *dwte, const float *dout, const int *ids, int N, int C)
{
    if (!dwte) return;
    for (int n = 0; n < N; n++) {
        float *dst = dwte + (size_t)ids[n] * C;
        const float *g = dout + (size_t)n * C;
        for (int c = 0; c < C; c++) dst[c] += g[c];
    }
}
