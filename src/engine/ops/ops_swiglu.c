/* ops_swiglu.c — the gate of the MLP: SwiGLU, silu(gate) * up, and Gemma's
 * GeGLU, gelu_tanh(gate) * up (tanhf is libm's: it runs once per unit). */
#include "engine/ops/ops.h"

#include <math.h>
#include <stddef.h>

#include "engine/ops/simd_math.h"

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

/* dgu (N, 2F) = d/dgu of the forward given dout (N, F), assigned (the
 * caller need not zero dgu first):
 *   dgate = dout * up * sigmoid(g) * (1 + g * (1 - sigmoid(g)))
 *   dup   = dout * silu(g).
 * Each is written as 0 + value, the bits of adding into a zeroed buffer as
 * the op did before (a -0 becomes +0). */
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
            dgate[f] = 0.0f + g_out[f] * up[f] * sig * (1.0f + g * (1.0f - sig));
            dup[f] = 0.0f + g_out[f] * g * sig;
        }
    }
}

/* sqrt(2 / pi) and the cubic coefficient of the tanh approximation. */
static const float GELU_K = 0.7978845608028654f;
static const float GELU_C = 0.044715f;

/* out (N, F) = gelu_tanh(gate) * up, with gu (N, 2F) holding gate in columns
 * [0, F) and up in [F, 2F). */
void geglu_forward(float *out, const float *gu, int N, int F)
{
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        const float *gate = gu + (size_t)n * 2 * F;
        const float *up = gate + F;
        float *y = out + (size_t)n * F;
        for (int f = 0; f < F; f++) {
            float g = gate[f];
            float th = tanhf(GELU_K * (g + GELU_C * g * g * g));
            y[f] = 0.5f * g * (1.0f + th) * up[f];
        }
    }
}

/* dgu (N, 2F) = d/dgu of the forward given dout (N, F), assigned as in
 * swiglu_backward (0 + value), with u = k (g + c g^3) and t = tanh(u):
 *   gelu'(g) = (1 + t) / 2 + g/2 (1 - t^2) k (1 + 3 c g^2)
 *   dgate = dout * up * gelu'(g);  dup = dout * gelu(g). */
void geglu_backward(float *dgu, const float *dout, const float *gu, int N, int F)
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
            float th = tanhf(GELU_K * (g + GELU_C * g * g * g));
            float dgelu = 0.5f * (1.0f + th) +
                          0.5f * g * (1.0f - th * th) * GELU_K * (1.0f + 3.0f * GELU_C * g * g);
            dgate[f] = 0.0f + g_out[f] * up[f] * dgelu;
            dup[f] = 0.0f + g_out[f] * 0.5f * g * (1.0f + th);
        }
    }
}
