/* ops_attention.c — multi-head scaled dot-product attention with a per-row
 * visible key range [start, end) (mask_key_range: the mask kind and a
 * sliding window); masked probabilities are stored as exact zeros.
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
 * where K and V are cut to the keys some row of the block sees. Neither end
 * of a row's range decreases with t, so those are [start of the first row,
 * end of the last row); the other rows compute a few masked scores, which
 * the softmax ignores and whose probabilities are zero. With causal masks the
 * blocks skip most of the masked half (block 32, T 128: 62% of the full
 * T x T work instead of 50%), and a sliding window skips the keys behind it;
 * sgemm does the rest fast enough that the op is about 3x faster than the
 * former pair-by-pair loops (docs/performance.md). */
#include "engine/ops/ops.h"

#include <cblas.h>
#include <math.h>
#include <stddef.h>

#include "engine/ops/simd_math.h"

/* Query rows per block. */
enum { ATT_QUERY_BLOCK = 32 };

AttentionRule attention_rule_plain(MaskKind kind, int hd)
{
    return (AttentionRule){.kind = kind, .window = 0, .scale = 1.0f / sqrtf((float)hd),
                           .softcap = 0.0f};
}

/* The keys [*kstart, *kend) that some row of the query block [t0, t1) sees. */
static void block_key_range(const AttentionRule *rule, int t0, int t1, int len, int *kstart,
                            int *kend)
{
    int unused;
    mask_key_range(rule->kind, rule->window, t0, len, kstart, &unused);
    mask_key_range(rule->kind, rule->window, t1 - 1, len, &unused, kend);
}

/* row (T) = softmax of row[start, end) (each score first capped when the
 * rule has a softcap), 0 elsewhere. */
static void softmax_row(float *row, int start, int end, int T, float softcap)
{
    float *seen = row + start;
    int n = end - start;
    if (softcap > 0.0f)
        for (int s = 0; s < n; s++) seen[s] = softcap * tanhf(seen[s] / softcap);
    float maxv = lane_max(seen, n);
    for (int s = 0; s < n; s++) seen[s] = fast_expf(seen[s] - maxv);
    float inv_sum = 1.0f / lane_sum(seen, n);
    for (int s = 0; s < n; s++) seen[s] *= inv_sum;
    for (int s = 0; s < start; s++) row[s] = 0.0f;
    for (int s = end; s < T; s++) row[s] = 0.0f;
}

/* att (B, H, T, T) = softmax over visible keys of q k^T / sqrt(hd), 0 where
 * masked;  out (B, T, H*hd) = att . v. q, k: (B, T, H*hd); v: B*T rows of
 * stride v_stride; lengths (B) or NULL for all T. */
void attention_forward(float *out, float *att, const float *q, const float *k, const float *v,
                       int v_stride, const int *lengths, MaskKind kind, int B, int T, int H,
                       int hd)
{
    AttentionRule rule = attention_rule_plain(kind, hd);
    attention_forward_gqa(out, att, q, H * hd, k, H * hd, v, v_stride, lengths, &rule, B, T, H, H,
                          hd);
}

/* attention_forward with KVH key/value heads under rule: q, k and v rows of
 * stride q_stride, k_stride and v_stride (H*hd, KVH*hd and KVH*hd values
 * used); query head h uses key/value head h / (H / KVH). */
void attention_forward_gqa(float *out, float *att, const float *q, int q_stride, const float *k,
                           int k_stride, const float *v, int v_stride, const int *lengths,
                           const AttentionRule *rule, int B, int T, int H, int KVH, int hd)
{
    int C = H * hd, group = H / KVH;
#pragma omp parallel for schedule(static)
    for (int bh = 0; bh < B * H; bh++) {
        int b = bh / H, h = bh % H, kvh = h / group;
        int len = lengths ? lengths[b] : T;
        const float *q_bh = q + (size_t)b * T * q_stride + (size_t)h * hd;
        const float *k_bh = k + (size_t)b * T * k_stride + (size_t)kvh * hd;
        const float *v_bh = v + (size_t)b * T * v_stride + (size_t)kvh * hd;
        float *out_bh = out ? out + (size_t)b * T * C + (size_t)h * hd : NULL;
        float *att_bh = att + (size_t)bh * T * T;                         /* (T, T) */
        for (int t0 = 0; t0 < T; t0 += ATT_QUERY_BLOCK) {
            int t1 = t0 + ATT_QUERY_BLOCK < T ? t0 + ATT_QUERY_BLOCK : T;
            int rows = t1 - t0, ks, ke;
            block_key_range(rule, t0, t1, len, &ks, &ke);
            float *att_blk = att_bh + (size_t)t0 * T;
            /* att_blk[:, ks:ke] = scale * Q_blk K[ks:ke]^T */
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, ke - ks, hd, rule->scale,
                        q_bh + (size_t)t0 * q_stride, q_stride, k_bh + (size_t)ks * k_stride,
                        k_stride, 0.0f, att_blk + ks, T);
            for (int t = t0; t < t1; t++) {
                int start, end;
                mask_key_range(rule->kind, rule->window, t, len, &start, &end);
                softmax_row(att_bh + (size_t)t * T, start, end, T, rule->softcap);
            }
            /* out_blk = att_blk[:, ks:ke] V[ks:ke] */
            if (out)
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, hd, ke - ks, 1.0f,
                            att_blk + ks, T, v_bh + (size_t)ks * v_stride, v_stride, 0.0f,
                            out_bh + (size_t)t0 * C, C);
        }
    }
}

/* Softmax-attention backward, per query row t with visible keys s in [start, end):
 *   datt[s]   = dout_t . v_s
 *   dscore[s] = att[s] * (datt[s] - sum_s' att[s'] datt[s'])
 *               (times 1 - tanh^2(raw / cap) under a softcap, raw = scale q_t . k_s)
 *   dq_t += scale * sum_s dscore[s] k_s ;  dk_s += scale * sum_t dscore[t][s] q_t ;
 *   dv_s += sum_t att[t][s] dout_t.
 * Per query block, as matrix products over the block's keys [ks, ke):
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
    AttentionRule rule = attention_rule_plain(kind, hd);
    attention_backward_gqa(dq, dk, dv, v_stride, scratch, dout, q, H * hd, k, H * hd, v, att,
                           lengths, &rule, B, T, H, H, hd);
}

/* The softmax rule on one row: ds (T) holds datt on the row's block keys
 * [ks, ke) and becomes dscore there, 0 outside the row's own range
 * [start, end); att_row (T) the row's probabilities. Under a softcap each
 * dscore is multiplied by the cap's derivative at the raw score, recomputed
 * from q_t (hd) and the keys k (rows of stride KC). */
static void dscore_row(float *ds, const float *att_row, int ks, int ke, int start, int end,
                       const AttentionRule *rule, const float *q_t, const float *k, int KC, int hd)
{
    float weighted = lane_dot(att_row + start, ds + start, end - start);
    for (int s = start; s < end; s++) ds[s] = att_row[s] * (ds[s] - weighted);
    if (rule->softcap > 0.0f)
        for (int s = start; s < end; s++) {
            float th = tanhf(rule->scale * lane_dot(q_t, k + (size_t)s * KC, hd) / rule->softcap);
            ds[s] *= 1.0f - th * th;
        }
    for (int s = ks; s < start; s++) ds[s] = 0.0f;
    for (int s = end; s < ke; s++) ds[s] = 0.0f;
}

/* attention_backward with KVH key/value heads under rule (q, k: rows of
 * q_stride and k_stride; dq (B, T, H*hd), dk (B, T, KVH*hd); v, dv: rows of
 * v_stride): the gradient of a shared key/value head
 * is the sum over the H / KVH query heads of its group. Work is split over
 * (batch, key/value head) pairs, and the heads of a group are summed in
 * order inside a pair, so the result does not depend on the thread count. */
void attention_backward_gqa(float *dq, float *dk, float *dv, int v_stride, float *scratch,
                            const float *dout, const float *q, int q_stride, const float *k,
                            int k_stride, const float *v, const float *att, const int *lengths,
                            const AttentionRule *rule, int B, int T, int H, int KVH, int hd)
{
    int C = H * hd, KC = KVH * hd, group = H / KVH;
    float scale = rule->scale;
#pragma omp parallel for schedule(static)
    for (int bk = 0; bk < B * KVH; bk++) {
        int b = bk / KVH, kvh = bk % KVH;
        int len = lengths ? lengths[b] : T;
        const float *k_h = k + (size_t)b * T * k_stride + (size_t)kvh * hd;
        const float *v_h = v + (size_t)b * T * v_stride + (size_t)kvh * hd;
        for (int h = kvh * group; h < (kvh + 1) * group; h++) {
            int bh = b * H + h;
            size_t head_off = (size_t)b * T * C + (size_t)h * hd;
            const float *q_bh = q + (size_t)b * T * q_stride + (size_t)h * hd;
            const float *att_bh = att + (size_t)bh * T * T;
            float *ds_bh = scratch + (size_t)bh * T * T;
            for (int t0 = 0; t0 < T; t0 += ATT_QUERY_BLOCK) {
                int t1 = t0 + ATT_QUERY_BLOCK < T ? t0 + ATT_QUERY_BLOCK : T;
                int rows = t1 - t0, ks, ke;
                block_key_range(rule, t0, t1, len, &ks, &ke);
                const float *att_blk = att_bh + (size_t)t0 * T + ks;
                const float *dout_blk = dout + head_off + (size_t)t0 * C;
                float *ds_blk = ds_bh + (size_t)t0 * T + ks;
                if (dq || dk) {
                    /* ds_blk[:, ks:ke] = dO_blk V[ks:ke]^T  (= datt) */
                    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, ke - ks, hd, 1.0f,
                                dout_blk, C, v_h + (size_t)ks * v_stride, v_stride, 0.0f, ds_blk,
                                T);
                    for (int t = t0; t < t1; t++) {
                        int start, end;
                        mask_key_range(rule->kind, rule->window, t, len, &start, &end);
                        dscore_row(ds_bh + (size_t)t * T, att_bh + (size_t)t * T, ks, ke, start,
                                   end, rule, q_bh + (size_t)t * q_stride, k_h, k_stride, hd);
                    }
                    if (dq)
                        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, hd, ke - ks,
                                    scale, ds_blk, T, k_h + (size_t)ks * k_stride, k_stride, 1.0f,
                                    dq + head_off + (size_t)t0 * C, C);
                    if (dk)
                        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, ke - ks, hd, rows,
                                    scale, ds_blk, T, q_bh + (size_t)t0 * q_stride, q_stride, 1.0f,
                                    dk + (size_t)b * T * KC + (size_t)kvh * hd + (size_t)ks * KC,
                                    KC);
                }
                if (dv)
                    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, ke - ks, hd, rows, 1.0f,
                                att_blk, T, dout_blk, C, 1.0f,
                                dv + (size_t)b * T * v_stride + (size_t)kvh * hd +
                                    (size_t)ks * v_stride,
                                v_stride);
            }
        }
    }
}
