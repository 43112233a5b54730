/* cost.h — what labelling a sentence costs: analytic forward FLOPs and
 * measured time.
 *
 * FLOPs count multiply-adds as 2 and only the matrix products; norms, RoPE,
 * softmax, SwiGLU's element-wise product, the embedding lookup and the LM
 * head (not used for labelling) are left out. Per layer, for T tokens:
 *
 *   projections, per token:  q,k,v 2*3C^2 + o 2C^2 + gate,up 2*2FC + down 2FC
 *                          = 8C^2 + 6FC
 *   attention:  QK^T and AV each cost 2C per visible (query, key) pair
 *               (2*hd per head, H heads), so 4C * P, where P is the number
 *               of visible pairs: T(T+1)/2 for a causal layer (query t sees
 *               keys 0..t), T^2 for a bidirectional one, fewer on the
 *               sliding layers of a model with a window (cfg.sliding_*).
 *
 *   layer FLOPs = T (8C^2 + 6FC) + 4C P
 *
 * A sentence of n tokens repeated k = r + 1 times has T = repeat_length(n, r,
 * bos, sep) tokens (repeat.h); an exit after L layers runs layers 0..L-1. */
#ifndef SEQREP_COST_H
#define SEQREP_COST_H

#include "base/status.h"
#include "engine/model.h"
#include "label/readout.h"

/* Visible (query, key) pairs of one layer with T tokens, under a sliding
 * window of `window` keys (0 = none; mask_key_range counted row by row). */
double cost_attention_pairs(MaskKind kind, int window, int T);

/* FLOPs of the projections of one layer, per token: 8C^2 + 6FC (with
 * grouped-query attention or a separate head size, q,k,v 2C(Q+2K) and
 * o 2QC, Q = H*hd, K = KVH*hd; attention then 4Q per pair). */
double cost_projection_flops_per_token(const ModelConfig *cfg);

/* Forward FLOPs of T tokens through layers 0..n_layers-1 with the mask plan
 * (n_layers entries used; NULL = causal everywhere) and the model's own
 * sliding windows. */
double cost_forward_flops(const ModelConfig *cfg, int T, int n_layers, const MaskKind *plan);

/* Forward FLOPs of a sentence of n tokens laid out by lay (k = r + 1 copies). */
double cost_sentence_flops(const ModelConfig *cfg, int n, ReadoutLayout lay, int n_layers,
                           const MaskKind *plan);

/* Forward FLOPs of every sentence of pd laid out by lay (one pass, no padding). */
double cost_data_flops(const ModelConfig *cfg, const PiecedData *pd, ReadoutLayout lay,
                       int n_layers, const MaskKind *plan);

/* Measured wall-clock seconds of one forward of a single sequence of T tokens
 * (ids all <unk>, integer positions) through n_run layers (0 = all), the
 * median of `repeats` runs after one warm-up run. The model must be sized
 * for at least 1 x T. Returns a negative value (with err) on failure. */
double cost_time_forward(Model *m, int T, const MaskKind *plan, int n_run, int repeats,
                         SrError *err);

#endif
