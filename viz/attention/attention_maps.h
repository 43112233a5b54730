/* attention_maps.h — the attention probabilities of every layer and head of
 * one forward, (L, H, T, T), as the attention figures read them: kept whole
 * (arrays a caller computed), or, for a model's forward, computed a layer at a time
 * on demand from a forward-only model (engine/model.h,
 * model_create_inference) with the layer asked for and its two neighbours
 * kept (a thread computes the neighbours ahead of the reader). At 2,048
 * tokens on a 30-layer, 9-head model the whole maps are 4.5 GB; a layer is
 * 0.15 GB, and three are held. */
#ifndef SEQREP_VIZ_ATTENTION_MAPS_H
#define SEQREP_VIZ_ATTENTION_MAPS_H

#include "engine/model.h"

/* Layers an on-demand AttentionMaps keeps at most. */
#define ATTENTION_CACHE_LAYERS 3

typedef struct AttentionMaps AttentionMaps;

/* Maps kept whole: a copy of att (L, H, T, T), or zeros when att is NULL.
 * NULL with err when out of memory. */
AttentionMaps *attention_maps_new_whole(int n_layers, int n_heads, int T, const float *att, SrError *err);

/* Maps computed on demand from `inference`, a forward-only model after its
 * forward over one sequence (batch 1, T tokens, every layer run), with
 * copies of the input arrays of that forward a layer reads again (mask plan,
 * position plan, lengths, real positions: the caller's may go). The maps
 * take `inference` over (freed with them) and, when `weights` is not NULL,
 * the model whose weights it borrows as well (freed after it); with weights
 * NULL the caller keeps those weights alive until the maps are freed. */
AttentionMaps *attention_maps_new_on_demand(Model *inference, Model *weights, SrError *err);

void attention_maps_free(AttentionMaps *m);

/* Layer l's maps (H, T, T), and their mean over heads (T, T, in double, as
 * the figures and their CSVs have always summed them): computed when not
 * kept (waiting for the prefetch thread when it is computing them), and
 * valid until another layer is asked for (the prefetch thread, which keeps
 * the neighbours of the layer last asked for, never touches that one). One
 * reader thread only. NULL only when out of memory or the model refuses
 * (said on stderr once). */
const float *attention_maps_layer(AttentionMaps *m, int layer);
const double *attention_maps_mean(AttentionMaps *m, int layer);

#endif
