/* ops_swiglu.c — the SwiGLU gate of the MLP: silu(gate) * up. */
#include "engine/ops.h"

#include <stddef.h>

#include "engine/simd_math.h"

/* sigmoid(g) = 1 / (1 + e^-g), with the vectorisable exponential. */
static inline float sigmoid(float g)
{
    return 1.0f / (1.0f + fast_expf(-g));
}

/* out (N, F) = silu(gate) * up, with gu (N, 2F) holding gate in columns
 * [0, F) and up in [F, 2F); silu(g) = g * sigmoid(g). */
void swiglu_forward(float *out, const float *gu, int N, int F)
{
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const float *gate = gu + (size_t)n * 2 * F;
        const float *up = gate + F;
        float *y = out + (size_t)n * F;
        for (int f = 0; f < F; f++) {
            float g = gate[f];
            y[f] = g * sigmoid(g) * up[f];
        }
    }
}

/* dgu (N, 2F) += d/dgu of the forward given dout (N, F):
 *   dgate += dout * up * sigmoid(g) * (1 + g * (1 - sigmoid(g)))
 *   dup   += dout * silu(g). */
void swiglu_backward(float *dgu, const float *dout, const float *gu, int N, int F)
{
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const float *gate = gu + (size_t)n * 2 * F;
        const float *up = gate + F;
        float *dgate = dgu + (size_t)n * 2 * F;
        float *dup = dgate + F;
        const float *g_out = dout + (size_t)n * F;
        for (int f = 0; f < F; f++) {
            float g = gate[f];
            float sig = sigmoid(g);
            dgate[f] += g_out[f] * up[f] * sig * (1.0f + g * (1.0f - sig));
            dup[f] += g_out[f] * g * sig;
        }
    }
}
