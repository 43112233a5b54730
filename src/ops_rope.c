/* ops_rope.c — rotary position embedding with real-valued positions per token
 * and head, in the Hugging Face "rotate_half" layout: element i of a head is
 * paired with element i + hd/2 and the pair is rotated by pos * f_i. */
#include "ops.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* Fill inv_freq (hd/2) with f_i = 1 / theta^(2i/hd) rounded like PyTorch's
 * float32 `1.0 / (theta ** (arange(0, hd, 2).float() / hd))`. */
static void rope_inv_freq(float *inv_freq, float theta, int hd)
{
    for (int i = 0; i < hd / 2; i++) {
        float exponent = (float)(2 * i) / (float)hd;
        float power = (float)pow((double)theta, (double)exponent);
        inv_freq[i] = 1.0f / power;
    }
}

/* out (N, H*hd) = each head of inp (N rows, stride in_stride) rotated by
 * pos (N, H); pos == NULL copies inp. */
void rope_forward(float *out, const float *inp, int in_stride, const float *pos, float theta,
                  int N, int H, int hd)
{
    int C = H * hd;
    if (!pos) {
#pragma omp parallel for schedule(static)
        for (int n = 0; n < N; n++)
            memcpy(out + (size_t)n * C, inp + (size_t)n * in_stride, (size_t)C * sizeof(float));
        return;
    }
    int half = hd / 2;
    float inv_freq[half];
    rope_inv_freq(inv_freq, theta, hd);
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        for (int h = 0; h < H; h++) {
            const float *x = inp + (size_t)n * in_stride + (size_t)h * hd;
            float *y = out + (size_t)n * C + (size_t)h * hd;
            float p = pos[(size_t)n * H + h];
            for (int i = 0; i < half; i++) {
                float angle = p * inv_freq[i];
                float cs = cosf(angle), sn = sinf(angle);
                float x1 = x[i], x2 = x[i + half];
                y[i] = x1 * cs - x2 * sn;
                y[i + half] = x2 * cs + x1 * sn;
            }
        }
    }
}

/* dinp (N rows, stride in_stride) += R^T dout (N, H*hd);
 * dpos (N, H) += sum_i f_i (dout[i+hd/2] out[i] - dout[i] out[i+hd/2]) using
 * the forward output out (N, H*hd). pos == NULL: dinp += dout only.
 * Either gradient may be NULL. */
void rope_backward(float *dinp, int in_stride, float *dpos, const float *dout, const float *out,
                   const float *pos, float theta, int N, int H, int hd)
{
    int C = H * hd;
    if (!pos) {
        if (!dinp) return;
#pragma omp parallel for schedule(static)
        for (int n = 0; n < N; n++) {
            float *dx = dinp + (size_t)n * in_stride;
            const float *g = dout + (size_t)n * C;
            for (int c = 0; c < C; c++) dx[c] += g[c];
        }
        return;
    }
    int half = hd / 2;
    float inv_freq[half];
    rope_inv_freq(inv_freq, theta, hd);
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        for (int h = 0; h < H; h++) {
            const float *g = dout + (size_t)n * C + (size_t)h * hd;
            const float *y = out + (size_t)n * C + (size_t)h * hd;
            float p = pos[(size_t)n * H + h];
            if (dinp) {
                float *dx = dinp + (size_t)n * in_stride + (size_t)h * hd;
                for (int i = 0; i < half; i++) {
                    float angle = p * inv_freq[i];
                    float cs = cosf(angle), sn = sinf(angle);
                    dx[i] += g[i] * cs + g[i + half] * sn;
                    dx[i + half] += g[i + half] * cs - g[i] * sn;
                }
            }
            if (dpos) {
                float sum = 0.0f;
                for (int i = 0; i < half; i++)
                    sum += inv_freq[i] * (g[i + half] * y[i] - g[i] * y[i + half]);
                dpos[(size_t)n * H + h] += sum;
            }
        }
    }
}
