/* ops.h — the numerical building blocks of the decoder, each a forward and a
 * backward side by side.
 *
 * Conventions (llm.c style):
 *  - Tensors are float32, row-major; N = B*T rows of C features unless noted.
 *  - Backward functions ACCUMULATE into gradient buffers (+=), so a caller
 *    zeroes gradients once per step and shared weights (a tied LM head) simply
 *    receive both contributions (the gates' backwards, SwiGLU and GeGLU,
 *    assign instead). Any gradient pointer may be NULL to skip it.
 *  - No function allocates memory; scratch space is passed in.
 *  - For a fixed thread count every op is deterministic bit for bit: parallel
 *    loops split independent rows, and reductions over rows run in a fixed order.
 *  - Weights follow PyTorch's nn.Linear: W has shape (OC, C) and y = x W^T. */
#ifndef SEQREP_OPS_H
#define SEQREP_OPS_H

#include <stddef.h>

#include "engine/ops/mask.h"

/* ---- matrix product -------------------------------------------------------
 * out (N, OC) = inp (N, C) . W^T, with W (OC, C). No bias. */
void matmul_forward_ref(float *out, const float *inp, const float *w, int N, int C, int OC);
void matmul_forward(float *out, const float *inp, const float *w, int N, int C, int OC);
/* dinp (N, C) += dout (N, OC) . W ;  dw (OC, C) += dout^T . inp */
void matmul_backward_ref(float *dinp, float *dw, const float *dout, const float *inp,
                         const float *w, int N, int C, int OC);
void matmul_backward(float *dinp, float *dw, const float *dout, const float *inp,
                     const float *w, int N, int C, int OC);

/* ---- token embedding --------------------------------------------------------
 * out (N, C) = wte[ids[n]] ;  backward: dwte (V, C) += scatter of dout (N, C). */
void embedding_forward(float *out, const int *ids, const float *wte, int N, int C);
void embedding_backward(float *dwte, const float *dout, const int *ids, int N, int C);

/* ---- RMSNorm ----------------------------------------------------------------
 * rstd[n] = 1 / sqrt(mean_c inp[n,c]^2 + eps);  out (N, C) = inp * rstd * w (C).
 * rstd (N) is saved for the backward. */
void rmsnorm_forward(float *out, float *rstd, const float *inp, const float *w, float eps,
                     int N, int C);
void rmsnorm_backward(float *dinp, float *dw, const float *dout, const float *inp,
                      const float *w, const float *rstd, int N, int C);
/* In place, per head (Qwen3's q_norm / k_norm): each of the H vectors of hd
 * values of row n of x (N rows, stride x_stride) becomes x * rstd * w (hd);
 * rstd (N, H) is saved for the backward unless NULL. */
void rmsnorm_heads_forward(float *x, int x_stride, float *rstd, const float *w, float eps, int N,
                           int H, int hd);
/* Its backward from x, the input before the norm (rows of x_stride), and
 * rstd (N, H): dinp (rows of dinp_stride) += the rmsnorm_backward rule per
 * head vector; dw (hd) += sum over rows and heads of dout * xhat. */
void rmsnorm_heads_backward(float *dinp, int dinp_stride, float *dw, const float *dout,
                            int dout_stride, const float *x, int x_stride, const float *w,
                            const float *rstd, int N, int H, int hd);

/* ---- rotary position embedding ----------------------------------------------
 * Rotates each head's vector by a real-valued position per token and head,
 * Hugging Face "rotate_half" layout: for i < hd/2, with a = pos * theta^(-2i/hd),
 *   out[i]      = x[i] cos a - x[i + hd/2] sin a
 *   out[i+hd/2] = x[i + hd/2] cos a + x[i] sin a
 * inp and out: N rows of H*hd values, row strides in_stride and out_stride
 * (so q and k can be read out of a fused qkv buffer, and rotated in place:
 * out == inp is allowed); pos: (N, H).
 * pos == NULL means no rotation (NoPE): out is a copy of inp. */
void rope_forward(float *out, int out_stride, const float *inp, int in_stride, const float *pos,
                  float theta, int N, int H, int hd);
/* rope_forward with the frequencies given: inv_freq (hd/2) replaces theta^(-2i/hd). */
void rope_forward_freq(float *out, int out_stride, const float *inp, int in_stride,
                       const float *pos, const float *inv_freq, int N, int H, int hd);
/* inv_freq (hd/2) = theta^(-2i/hd), rounded like PyTorch's float32 formula. */
void rope_inv_freq(float *inv_freq, float theta, int hd);
/* inv_freq (hd/2) with Llama 3.1's scaling (Hugging Face rope_type "llama3"):
 * wavelength w = 2 pi / f; f / factor where w > orig / low, f where
 * w < orig / high, and in between (1 - s) f / factor + s f with
 * s = (orig / w - low) / (high - low). */
void rope_inv_freq_llama3(float *inv_freq, float theta, int hd, float factor, float low,
                          float high, int orig_max_pos);
/* dinp (rows of stride in_stride) += R^T dout, dout (N, H*hd);
 * dpos (N, H) += sum_i f_i (dout[i+hd/2] out[i] - dout[i] out[i+hd/2]), f_i = theta^(-2i/hd),
 * where out (rows of stride out_stride) is the forward output. pos == NULL:
 * dinp += dout, dpos untouched. */
void rope_backward(float *dinp, int in_stride, float *dpos, const float *dout, const float *out,
                   int out_stride, const float *pos, float theta, int N, int H, int hd);
/* rope_backward with the frequencies given: inv_freq (hd/2) replaces theta^(-2i/hd). */
void rope_backward_freq(float *dinp, int in_stride, float *dpos, const float *dout,
                        const float *out, int out_stride, const float *pos,
                        const float *inv_freq, int N, int H, int hd);

/* ---- multi-head scaled dot-product attention -------------------------------
 * q, k: (B, T, H*hd) contiguous (already rotated); v: B*T rows of H*hd with row
 * stride v_stride. lengths (B): valid tokens per sequence (NULL = all T).
 * Query t of sequence b sees keys [0, mask_key_end(kind, t, lengths[b])).
 * att (B, H, T, T): softmax probabilities, exactly 0 where masked.
 * out (B, T, H*hd) = att . v, scale 1/sqrt(hd). */
void attention_forward(float *out, float *att, const float *q, const float *k, const float *v,
                       int v_stride, const int *lengths, MaskKind kind, int B, int T, int H,
                       int hd);
/* How a layer's scores become probabilities: the mask kind and sliding
 * window (mask_key_range), the scale of q.k (1/sqrt(hd) in most models;
 * Gemma 2 and 3 use query_pre_attn_scalar^-1/2) and, when softcap > 0,
 * Gemma 2's capping of the scaled scores, softcap * tanh(score / softcap),
 * before the softmax. */
typedef struct {
    MaskKind kind;
    int window;      /* keys of the sliding window, 0 = none */
    float scale;
    float softcap;   /* 0 = none */
} AttentionRule;

/* The rule of attention_forward: kind, no window, 1/sqrt(hd), no cap. */
AttentionRule attention_rule_plain(MaskKind kind, int hd);

/* Grouped-query attention_forward under a rule: q (B*T rows of stride
 * q_stride, H heads), k and v (rows of k_stride and v_stride) holding KVH
 * heads, KVH dividing H (the strides let q, k and v be the column blocks of
 * one fused (B, T, Q+2K) buffer); query head h reads key/value head
 * h / (H / KVH). KVH == H, contiguous q and k and attention_rule_plain is
 * attention_forward exactly. out NULL: the probabilities att only (for a
 * reader of the maps). */
void attention_forward_gqa(float *out, float *att, const float *q, int q_stride, const float *k,
                           int k_stride, const float *v, int v_stride, const int *lengths,
                           const AttentionRule *rule, int B, int T, int H, int KVH, int hd);
/* dq, dk (B, T, H*hd) += ; dv (rows of v_stride) += ; scratch: B*H*T*T floats. */
void attention_backward(float *dq, float *dk, float *dv, int v_stride, float *scratch,
                        const float *dout, const float *q, const float *k, const float *v,
                        const float *att, const int *lengths, MaskKind kind, int B, int T,
                        int H, int hd);
/* Grouped-query attention_backward under a rule: dk (B, T, KVH*hd) and dv
 * (rows of v_stride) of a key/value head sum the gradients of the H / KVH
 * query heads that read it. KVH == H with attention_rule_plain is
 * attention_backward exactly. */
void attention_backward_gqa(float *dq, float *dk, float *dv, int v_stride, float *scratch,
                            const float *dout, const float *q, int q_stride, const float *k,
                            int k_stride, const float *v, const float *att, const int *lengths,
                            const AttentionRule *rule, int B, int T, int H, int KVH, int hd);

/* ---- SwiGLU -----------------------------------------------------------------
 * gu (N, 2F): gate in columns [0, F), up in [F, 2F).  out (N, F) = silu(gate) * up.
 * The backwards of SwiGLU and GeGLU ASSIGN dgu (N, 2F) rather than accumulate:
 * every caller had zeroed it first, and zeroing it cost a pass over it. */
void swiglu_forward(float *out, const float *gu, int N, int F);
void swiglu_backward(float *dgu, const float *dout, const float *gu, int N, int F);

/* ---- GeGLU (Gemma) -----------------------------------------------------------
 * gu (N, 2F) as for SwiGLU;  out (N, F) = gelu_tanh(gate) * up, with the tanh
 * approximation gelu_tanh(x) = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
void geglu_forward(float *out, const float *gu, int N, int F);
void geglu_backward(float *dgu, const float *dout, const float *gu, int N, int F);

/* ---- soft-capping (Gemma 2's final logits) -----------------------------------
 * x (n) = cap * tanh(x / cap) in place; backward: dx (n) *= 1 - (y / cap)^2
 * from the capped values y (n). */
void softcap_forward(float *x, float cap, long n);
void softcap_backward(float *dx, const float *y, float cap, long n);

/* ---- residual ---------------------------------------------------------------
 * out (n) = a + b ; backward: da += dout, db += dout. */
void residual_forward(float *out, const float *a, const float *b, long n);
void residual_backward(float *da, float *db, const float *dout, long n);

/* ---- filling buffers ---------------------------------------------------------
 * The bytes of memset (zero) and memcpy, written by every thread of the team
 * on its own part: fill_zero (n floats), fill_zero3 (three buffers in one
 * parallel region, NULL skipped), fill_copy (dst and src do not overlap). */
void fill_zero(float *x, size_t n);
void fill_zero3(float *x0, size_t n0, float *x1, size_t n1, float *x2, size_t n2);
void fill_copy(float *dst, const float *src, size_t n);

/* ---- the L2 norm of a gradient ------------------------------------------------
 * (float)sqrt(sum of g[i]^2 in double, added serially in index order) (n),
 * bit for bit; found from a parallel sum when that decides it (ops_l2norm.c). */
float l2_norm(const float *g, size_t n);

/* ---- softmax cross-entropy with an ignore label -----------------------------
 * probs (N, V) = softmax(logits); losses (N) = -log probs[target], 0 where
 * targets[n] == ignore. Returns the number of counted (non-ignored) rows.
 * probs may alias logits (in-place softmax). */
int crossentropy_forward(float *losses, float *probs, const float *logits, const int *targets,
                         int ignore, int N, int V);
/* dlogits (N, V) = scale * (probs - onehot(target)) on counted rows, 0 on
 * ignored rows (assigned, not accumulated). dlogits may alias probs. */
void crossentropy_backward(float *dlogits, const float *probs, const int *targets, int ignore,
                           float scale, int N, int V);

#endif
