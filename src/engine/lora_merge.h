/* lora_merge.h — folding low-rank adapters into the weights they adapt, for
 * inference: after lora_merge the model computes without the adapters what
 * it computed with them attached (Model.lora, dropout off), up to float
 * rounding.
 *
 * For every adapter on layer l and target t of q, k, v, o:
 *     W_t += (alpha / rank) B A          W_t: (out, in), B: (out, rank), A: (rank, in)
 * where W_q, W_k, W_v are the row blocks 0, Q, Q+K of the layer's wqkv
 * (Q+2K, C) and W_o its wo (C, Q) (Q = H*hd, K = KVH*hd; both C in seqrep's
 * own models). An adapter whose B is zero leaves W_t as it was. */
#ifndef SEQREP_LORA_MERGE_H
#define SEQREP_LORA_MERGE_H

#include "base/status.h"
#include "engine/lora.h"
#include "engine/model.h"

/* Add every adapter of lo into m's weights as above; lo is only read (its
 * cfg, n_layers, d_model, q_dim, kv_dim and params: its forward buffers may be absent).
 * -1 with err when lo was made for another depth or width. */
int lora_merge(Model *m, const Lora *lo, SrError *err);

#endif
