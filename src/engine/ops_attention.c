/* ops_attention.c — multi-head scaled dot-product attention with a per-row
 * visible key range [0, mask_key_end(kind, t, len)); masked probabilities are
 * stored as exact zeros.
 *
 * Work is split over (batch, head) pairs: each pair owns its slice of every
 * output and gradient, so threads never write the same float and results do
 * not depend on the thread count. Inside a pair, query rows are taken in
 * blocks of ATT_QUERY_BLOCK, and each block is a few single-threaded sgemm
 * calls (OpenBLAS is kept single-threaded by threads_set, so calling it from
 * inside the OpenMP threads is safe and keeps both cores busy):
 *
 *   scores = scale * Q_blk K^T,  att = softmax(scores),  out_blk = att V
 *
 * where K and V are cut at the block's last visible key. mask_key_end never
 * decreases with t (for both mask kinds), so that is the key end of the last
 * row of the block; the other rows compute a few masked scores, which the
 * softmax ignores and whose probabilities are zero. With causal masks the
 * blocks skip most of the masked half (block 32, T 128: 62% of the full
 * T x T work instead of 50%), and sgemm does the rest fast enough that the
 * op is about 3x faster than the former pair-by-pair loops
 * (docs/performance.md). */
#include "engine/ops.h"

#include <cblas.h>
#include <math.h>
#include <stddef.h>

#include "engine/simd_math.h"

/* Query rows per block. */
enum { ATT_QUERY_BLOCK = 32 };

/* Exclusive end of the keys that any row of the query block [t0, t1) sees. */
static int block_key_end(MaskKind kind, int t1, int len)
{
    return mask_key_end(kind, t1 - 1, len);
}

/* row (T) = softmax of row[0, end), 0 on [end, T). */
static void softmax_row(float *row, int end, int T)
{
    float maxv = lane_max(row, end);
    for (int s = 0; s < end; s++) row[s] = fast_expf(row[s] - maxv);
    float inv_sum = 1.0f / lane_sum(row, end);
    for (int s = 0; s < end; s++) row[s] *= inv_sum;
    for (int s = end; s < T; s++) row[s] = 0.0f;
}

/* att (B, H, T, T) = softmax over visible keys of q k^T / sqrt(hd), 0 where
 * masked;  out (B, T, H*hd) = att . v. q, k: (B, T, H*hd); v: B*T rows of
 * stride v_stride; lengths (B) or NULL for all T. */
void attention_forward(float *out, float *att, const float *q, const float *k, const float *v,
                       int v_stride, const int *lengths, MaskKind kind, int B, int T, int H,
                       int hd)
{
    attention_forward_gqa(out, att, q, k, v, v_stride, lengths, kind, B, T, H, H, hd);
}

/* attention_forward with KVH key/value heads: k (B, T, KVH*hd), v rows of
 * stride v_stride; query head h uses key/value head h / (H / KVH). */
void attention_forward_gqa(float *out, float *att, const float *q, const float *k,
                           const float *v, int v_stride, const int *lengths, MaskKind kind,
                           int B, int T, int H, int KVH, int hd)
{
    int C = H * hd, KC = KVH * hd, group = H / KVH;
    float scale = 1.0f / sqrtf((float)hd);
#pragma omp parallel for schedule(static)
    for (int bh = 0; bh < B * H; bh++) {
        int b = bh / H, h = bh % H, kvh = h / group;
        int len = lengths ? lengths[b] : T;
        const float *q_bh = q + (size_t)b * T * C + (size_t)h * hd;     /* rows of stride C */
        const float *k_bh = k + (size_t)b * T * KC + (size_t)kvh * hd;  /* rows of stride KC */
        const float *v_bh = v + (size_t)b * T * v_stride + (size_t)kvh * hd;
        float *out_bh = out ? out + (size_t)b * T * C + (size_t)h * hd : NULL;
        float *att_bh = att + (size_t)bh * T * T;                         /* (T, T) */
        for (int t0 = 0; t0 < T; t0 += ATT_QUERY_BLOCK) {
            int t1 = t0 + ATT_QUERY_BLOCK < T ? t0 + ATT_QUERY_BLOCK : T;
            int rows = t1 - t0, kend = block_key_end(kind, t1, len);
            float *att_blk = att_bh + (size_t)t0 * T;
            /* att_blk[:, 0:kend] = scale * Q_blk K[0:kend]^T */
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, kend, hd, scale,
                        q_bh + (size_t)t0 * C, C, k_bh, KC, 0.0f, att_blk, T);
            for (int t = t0; t < t1; t++)
                softmax_row(att_bh + (size_t)t * T, mask_key_end(kind, t, len), T);
            /* out_blk = att_blk[:, 0:kend] V[0:kend] */
            if (out)
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, hd, kend, 1.0f, att_blk,
                            T, v_bh, v_stride, 0.0f, out_bh + (size_t)t0 * C, C);
        }
    }
}

/* Softmax-attention backward, per query row t with visible keys s < end(t):
 *   datt[s]   = dout_t . v_s
 *   dscore[s] = att[s] * (datt[s] - sum_s' att[s'] datt[s'])
 *   dq_t += scale * sum_s dscore[s] k_s ;  dk_s += scale * sum_t dscore[t][s] q_t ;
 *   dv_s += sum_t att[t][s] dout_t.
 * Per query block, as matrix products over the block's keys [0, kend):
 *   dS_blk = dO_blk V^T, then the softmax rule row by row (0 on masked keys);
 *   dQ_blk += scale dS_blk K;  dK += scale dS_blk^T Q_blk;  dV += att_blk^T dO_blk.
 * dK and dV sum the blocks in block order, so the result is fixed.
 * dq, dk (B, T, H*hd) and dv (rows of v_stride) accumulate and may be NULL;
 * scratch holds B*H*T*T floats (dS of every batch and head). */
void attention_backward(float *dq, float *dk, float *dv, int v_stride, float *scratch,
                        const float *dout, const float *q, const float *k, const float *v,
                        const float *att, const int *lengths, MaskKind kind, int B, int T,
                        int H, int hd)
{
    attention_backward_gqa(dq, dk, dv, v_stride, scratch, dout, q, k, v, att, lengths, kind, B,
                           T, H, H, hd);
}

/* attention_backward with KVH key/value heads (k, dk: (B, T, KVH*hd); v, dv:
 * rows of v_stride): the gradient of a shared key/value head is the sum over
 * the H / KVH query heads of its group. Work is split over (batch, key/value
 * head) pairs, and the heads of a group are summed in order inside a pair,
 * so the result does not depend on the thread count. */
void attention_backward_gqa(float *dq, float *dk, float *dv, int v_stride, float *scratch,
                            const float *dout, const float *q, const float *k, const float *v,
                            const float *att, const int *lengths, MaskKind kind, int B, int T,
                            int H, int KVH, int hd)
{
    int C = H * hd, KC = KVH * hd, group = H / KVH;
    float scale = 1.0f / sqrtf((float)hd);
#pragma omp parallel for schedule(static)
    for (int bk = 0; bk < B * KVH; bk++) {
        int b = bk / KVH, kvh = bk % KVH;
        int len = lengths ? lengths[b] : T;
        size_t khead_off = (size_t)b * T * KC + (size_t)kvh * hd;
        size_t vhead_off = (size_t)b * T * v_stride + (size_t)kvh * hd;
        for (int h = kvh * group; h < (kvh + 1) * group; h++) {
            int bh = b * H + h;
            size_t head_off = (size_t)b * T * C + (size_t)h * hd;
            const float *att_bh = att + (size_t)bh * T * T;
            float *ds_bh = scratch + (size_t)bh * T * T;
            for (int t0 = 0; t0 < T; t0 += ATT_QUERY_BLOCK) {
                int t1 = t0 + ATT_QUERY_BLOCK < T ? t0 + ATT_QUERY_BLOCK : T;
                int rows = t1 - t0, kend = block_key_end(kind, t1, len);
                const float *att_blk = att_bh + (size_t)t0 * T;
                const float *dout_blk = dout + head_off + (size_t)t0 * C;
                float *ds_blk = ds_bh + (size_t)t0 * T;
                if (dq || dk) {
                    /* ds_blk[:, 0:kend] = dO_blk V[0:kend]^T  (= datt) */
                    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, kend, hd, 1.0f,
                                dout_blk, C, v + vhead_off, v_stride, 0.0f, ds_blk, T);
                    for (int t = t0; t < t1; t++) {
                        const float *arow = att_bh + (size_t)t * T;
                        float *ds = ds_bh + (size_t)t * T;
                        int end = mask_key_end(kind, t, len);
                        float weighted = lane_dot(arow, ds, end);
                        for (int s = 0; s < end; s++) ds[s] = arow[s] * (ds[s] - weighted);
                        for (int s = end; s < kend; s++) ds[s] = 0.0f;
                    }
                    if (dq)
                        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, hd, kend,
                                    scale, ds_blk, T, k + khead_off, KC, 1.0f,
                                    dq + head_off + (size_t)t0 * C, C);
                    if (dk)
                        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, kend, hd, rows,
                                    scale, ds_blk, T, q + head_off + (size_t)t0 * C, C, 1.0f,
                                    dk + khead_off, KC);
                }
                if (dv)
                    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, kend, hd, rows, 1.0f,
                                att_blk, T, dout_blk, C, 1.0f, dv + vhead_off, v_stride);
            }
        }
    }
}
