/* ops_rope.c — rotary position embedding with real-valued positions per token
 * and head, in the Hugging Face "rotate_half" layout: element i of a head is
 * paired with element i + hd/2 and the pair is rotated by pos * f_i.
 *
 * The cosines and sines of a head are computed into a small table (by a
 * vectorisable sincos, below) and reused by the next head of the same token
 * when its position is the same (always so for integer RoPE); the rotation
 * loops over the table then vectorise. */
#include "engine/ops/ops.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* sin and cos of x, written so that a loop calling it vectorises (libm's
 * sinf/cosf are opaque calls). Method as in Cephes sinf/cosf: j = round(x / (pi/2)),
 * r = x - j pi/2 with pi/2 split in three parts (|r| <= pi/4), sin r and cos r
 * by short polynomials, then the quadrant j mod 4 picks and signs them.
 * Measured against double precision: absolute error at most 7.7e-8 for
 * |x| <= 8192 (libm: 3.3e-8), 1e-6 at |x| = 65536; x = 0 gives exactly 0 and 1. */
static inline void fast_sincosf(float x, float *sin_out, float *cos_out)
{
    const float two_over_pi = 0.636619772367581343f;
    const float pio2_1 = 1.5703125f;                /* pi/2 = pio2_1 + pio2_2 + pio2_3 */
    const float pio2_2 = 4.837512969970703125e-4f;
    const float pio2_3 = 7.54978995489188216e-8f;
    const float round_magic = 12582912.0f;          /* 1.5 * 2^23: adding it rounds to an integer */
    float j = (x * two_over_pi + round_magic) - round_magic;
    float r = ((x - j * pio2_1) - j * pio2_2) - j * pio2_3;
    float z = r * r;
    float sin_r = ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) * z * r + r;
    float cos_r = ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z + 4.166664568298827e-2f)
                  * z * z - 0.5f * z + 1.0f;
    int32_t quadrant = (int32_t)j & 3;  /* x = j pi/2 + r */
    float s = (quadrant & 1) ? cos_r : sin_r;
    float c = (quadrant & 1) ? sin_r : cos_r;
    *sin_out = (quadrant & 2) ? -s : s;                       /* quadrants 2, 3 */
    *cos_out = (quadrant == 1 || quadrant == 2) ? -c : c;     /* quadrants 1, 2 */
}

/* Fill inv_freq (hd/2) with f_i = 1 / theta^(2i/hd) rounded like PyTorch's
 * float32 `1.0 / (theta ** (arange(0, hd, 2).float() / hd))`. */
void rope_inv_freq(float *inv_freq, float theta, int hd)
{
    for (int i = 0; i < hd / 2; i++) {
        float exponent = (float)(2 * i) / (float)hd;
        float power = (float)pow((double)theta, (double)exponent);
        inv_freq[i] = 1.0f / power;
    }
}

/* inv_freq (hd/2): the plain frequencies, then Llama 3.1's scaling by
 * wavelength, in float32 as Hugging Face's _compute_llama3_parameters. */
void rope_inv_freq_llama3(float *inv_freq, float theta, int hd, float factor, float low,
                          float high, int orig_max_pos)
{
    rope_inv_freq(inv_freq, theta, hd);
    float orig = (float)orig_max_pos;
    float low_wavelen = orig / low, high_wavelen = orig / high;
    for (int i = 0; i < hd / 2; i++) {
        float f = inv_freq[i];
        float wavelen = 6.28318530717958647692f / f; /* 2 pi / f */
        float scaled = wavelen > low_wavelen ? f / factor : f;
        if (!(wavelen < high_wavelen) && !(wavelen > low_wavelen)) {
            float s = (orig / wavelen - low) / (high - low);
            scaled = (1.0f - s) * scaled / factor + s * scaled;
        }
        inv_freq[i] = scaled;
    }
}

/* cs, sn (half) = cos and sin of p * inv_freq (half). */
static void rope_angles(float *cs, float *sn, float p, const float *inv_freq, int half)
{
    for (int i = 0; i < half; i++) {
        fast_sincosf(p * inv_freq[i], &sn[i], &cs[i]);
    }
}

/* out (N rows, stride out_stride) = each head of inp (N rows, stride
 * in_stride) rotated by pos (N, H); pos == NULL copies inp. In place when
 * out == inp. */
void rope_forward(float *out, int out_stride, const float *inp, int in_stride, const float *pos,
                  float theta, int N, int H, int hd)
{
    float inv_freq[hd / 2 > 0 ? hd / 2 : 1];
    if (pos) rope_inv_freq(inv_freq, theta, hd);
    rope_forward_freq(out, out_stride, inp, in_stride, pos, inv_freq, N, H, hd);
}

/* rope_forward with the frequency table inv_freq (hd/2) given. */
void rope_forward_freq(float *out, int out_stride, const float *inp, int in_stride,
                       const float *pos, const float *inv_freq, int N, int H, int hd)
{
    int C = H * hd;
    if (!pos) {
        if (out == inp) return;
#pragma omp parallel for schedule(static)
        for (int n = 0; n < N; n++)
            memcpy(out + (size_t)n * out_stride, inp + (size_t)n * in_stride,
                   (size_t)C * sizeof(float));
        return;
    }
    int half = hd / 2;
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        float cs[half], sn[half];
        float table_pos = NAN; /* position the table holds; NaN = none yet */
        for (int h = 0; h < H; h++) {
            const float *x = inp + (size_t)n * in_stride + (size_t)h * hd;
            float *y = out + (size_t)n * out_stride + (size_t)h * hd;
            float p = pos[(size_t)n * H + h];
            if (!(p == table_pos)) {
                rope_angles(cs, sn, p, inv_freq, half);
                table_pos = p;
            }
            for (int i = 0; i < half; i++) {
                float x1 = x[i], x2 = x[i + half];
                y[i] = x1 * cs[i] - x2 * sn[i];
                y[i + half] = x2 * cs[i] + x1 * sn[i];
            }
        }
    }
}

/* dinp (N rows, stride in_stride) += R^T dout (N, H*hd);
 * dpos (N, H) += sum_i f_i (dout[i+hd/2] out[i] - dout[i] out[i+hd/2]) using
 * the forward output out (N rows, stride out_stride). pos == NULL: dinp += dout only.
 * Either gradient may be NULL. */
void rope_backward(float *dinp, int in_stride, float *dpos, const float *dout, const float *out,
                   int out_stride, const float *pos, float theta, int N, int H, int hd)
{
    float inv_freq[hd / 2 > 0 ? hd / 2 : 1];
    if (pos) rope_inv_freq(inv_freq, theta, hd);
    rope_backward_freq(dinp, in_stride, dpos, dout, out, out_stride, pos, inv_freq, N, H, hd);
}

/* rope_backward with the frequency table inv_freq (hd/2) given (the scaled
 * Llama 3.1 frequencies, say). */
void rope_backward_freq(float *dinp, int in_stride, float *dpos, const float *dout,
                        const float *out, int out_stride, const float *pos,
                        const float *inv_freq, int N, int H, int hd)
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
#pragma omp parallel for schedule(static)
    for (int n = 0; n < N; n++) {
        float cs[half], sn[half];
        float table_pos = NAN; /* position the table holds; NaN = none yet */
        for (int h = 0; h < H; h++) {
            const float *g = dout + (size_t)n * C + (size_t)h * hd;
            const float *y = out + (size_t)n * out_stride + (size_t)h * hd;
            float p = pos[(size_t)n * H + h];
            if (dinp) {
                float *dx = dinp + (size_t)n * in_stride + (size_t)h * hd;
                if (!(p == table_pos)) {
                    rope_angles(cs, sn, p, inv_freq, half);
                    table_pos = p;
                }
                for (int i = 0; i < half; i++) {
                    dx[i] += g[i] * cs[i] + g[i + half] * sn[i];
                    dx[i + half] += g[i + half] * cs[i] - g[i] * sn[i];
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
