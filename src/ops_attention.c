/* ops_attention.c — multi-head scaled dot-product attention with a per-row
 * visible key range [0, mask_key_end(kind, t, len)). Masked keys are skipped
 * entirely (the causal mask costs half the work), and their probabilities are
 * stored as exact zeros.
 *
 * Work is split over (batch, head) pairs: each pair owns its slice of every
 * output and gradient, so threads never write the same float and results do
 * not depend on the thread count. Inside a pair, plain loops walk rows of
 * q, k, v contiguously (OpenBLAS is not called from inside the parallel region). */
#include "ops.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* Dot product of two vectors of n floats. The simd reduction lets the compiler
 * vectorise it; its summation order is fixed at compile time. */
static float dot_product(const float *a, const float *b, int n)
{
    float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (int i = 0; i < n; i++) sum += a[i] * b[i];
    return sum;
}

/* y (n) += alpha * x (n). */
static void add_scaled(float *y, float alpha, const float *x, int n)
{
    for (int i = 0; i < n; i++) y[i] += alpha * x[i];
}

/* att (B, H, T, T) = softmax over visible keys of q k^T / sqrt(hd), 0 where
 * masked;  out (B, T, H*hd) = att . v. q, k: (B, T, H*hd); v: B*T rows of
 * stride v_stride; lengths (B) or NULL for all T. */
void attention_forward(float *out, float *att, const float *q, const float *k, const float *v,
                       int v_stride, const int *lengths, MaskKind kind, int B, int T, int H,
                       int hd)
{
    int C = H * hd;
    float scale = 1.0f / sqrtf((float)hd);
#pragma omp parallel for schedule(static)
    for (int bh = 0; bh < B * H; bh++) {
        int b = bh / H, h = bh % H;
        int len = lengths ? lengths[b] : T;
        const float *kbase = k + (size_t)b * T * C + (size_t)h * hd;
        const float *vbase = v + (size_t)b * T * v_stride + (size_t)h * hd;
        for (int t = 0; t < T; t++) {
            const float *qt = q + ((size_t)b * T + t) * C + (size_t)h * hd;
            float *arow = att + ((size_t)bh * T + t) * T;
            float *ot = out + ((size_t)b * T + t) * C + (size_t)h * hd;
            int end = mask_key_end(kind, t, len);

            float maxv = -INFINITY;
            for (int s = 0; s < end; s++) {
                float score = dot_product(qt, kbase + (size_t)s * C, hd) * scale;
                arow[s] = score;
                if (score > maxv) maxv = score;
            }
            float sum = 0.0f;
            for (int s = 0; s < end; s++) {
                float e = expf(arow[s] - maxv);
                arow[s] = e;
                sum += e;
            }
            float inv_sum = 1.0f / sum;
            for (int s = 0; s < end; s++) arow[s] *= inv_sum;
            for (int s = end; s < T; s++) arow[s] = 0.0f;

            memset(ot, 0, (size_t)hd * sizeof(float));
            for (int s = 0; s < end; s++) add_scaled(ot, arow[s], vbase + (size_t)s * v_stride, hd);
        }
    }
}

/* Softmax-attention backward, per query row t with visible keys s < end(t):
 *   datt[s]   = dout_t . v_s
 *   dscore[s] = att[s] * (datt[s] - sum_s' att[s'] datt[s'])
 *   dq_t += scale * sum_s dscore[s] k_s ;  dk_s += scale * sum_t dscore[t][s] q_t ;
 *   dv_s += sum_t att[t][s] dout_t.
 * A first pass over query rows stores dscore in scratch and fills dq; a second
 * pass over key rows fills dk and dv, so each key's gradient row stays in cache
 * while the queries that see it are summed.
 * dq, dk (B, T, H*hd) and dv (rows of v_stride) accumulate and may be NULL;
 * scratch holds B*H*T*T floats (the dscore matrix of every batch and head). */
void attention_backward(float *dq, float *dk, float *dv, int v_stride, float *scratch,
                        const float *dout, const float *q, const float *k, const float *v,
                        const float *att, const int *lengths, MaskKind kind, int B, int T,
                        int H, int hd)
{
    int C = H * hd;
    float scale = 1.0f / sqrtf((float)hd);
#pragma omp parallel for schedule(static)
    for (int bh = 0; bh < B * H; bh++) {
        int b = bh / H, h = bh % H;
        int len = lengths ? lengths[b] : T;
        size_t head_off = (size_t)b * T * C + (size_t)h * hd;
        size_t vhead_off = (size_t)b * T * v_stride + (size_t)h * hd;
        const float *att_bh = att + (size_t)bh * T * T;
        float *dscore_bh = scratch + (size_t)bh * T * T;

        /* Pass 1, query rows: dscore and dq. */
        if (dq || dk) {
            for (int t = 0; t < T; t++) {
                const float *gt = dout + head_off + (size_t)t * C;
                const float *arow = att_bh + (size_t)t * T;
                float *dscore = dscore_bh + (size_t)t * T;
                int end = mask_key_end(kind, t, len);
                float weighted = 0.0f;
                for (int s = 0; s < end; s++) {
                    float datt = dot_product(gt, v + vhead_off + (size_t)s * v_stride, hd);
                    dscore[s] = datt;
                    weighted += arow[s] * datt;
                }
                for (int s = 0; s < end; s++) dscore[s] = arow[s] * (dscore[s] - weighted);
                if (dq) {
                    float *dqt = dq + head_off + (size_t)t * C;
                    for (int s = 0; s < end; s++)
                        add_scaled(dqt, scale * dscore[s], k + head_off + (size_t)s * C, hd);
                }
            }
        }

        /* Pass 2, key rows: dk and dv from every query row that sees key s. */
        for (int s = 0; s < T; s++) {
            float *dks = dk ? dk + head_off + (size_t)s * C : NULL;
            float *dvs = dv ? dv + vhead_off + (size_t)s * v_stride : NULL;
            for (int t = 0; t < T; t++) {
                if (s >= mask_key_end(kind, t, len)) continue;
                size_t ts = (size_t)t * T + s;
                if (dks) add_scaled(dks, scale * dscore_bh[ts], q + head_off + (size_t)t * C, hd);
                if (dvs) add_scaled(dvs, att_bh[ts], dout + head_off + (size_t)t * C, hd);
            }
        }
    }
}
