/* attention_maps.h — the attention probabilities of every layer and head of
 * one forward, (L, H, T, T), as the attention figures read them. Reading
 * never computes: a layer is read once it is ready, and what computes it is
 * the loader or a thread of the maps, before any painter asks.
 *
 * Kept whole (arrays a caller computed, or every layer computed at once for
 * the layer x head overview), or, for a model's forward, computed a layer at
 * a time from a forward-only model (engine/model.h, model_create_inference):
 * on the caller's thread (attention_maps_compute: the loader of `seqrep
 * plot`) or by the maps' own thread in the background
 * (attention_maps_want: the explorer, whose frame draws what is ready), with
 * the layer read and its two neighbours kept (the thread computes the
 * neighbours ahead of the reader). At 2,048 tokens on a 30-layer, 9-head
 * model the whole maps are 4.5 GB; a layer is 0.15 GB, and three are held. */
#ifndef SEQREP_VIZ_ATTENTION_MAPS_H
#define SEQREP_VIZ_ATTENTION_MAPS_H

#include "engine/model.h"

/* Layers an on-demand AttentionMaps keeps at most. */
#define ATTENTION_CACHE_LAYERS 3

typedef struct AttentionMaps AttentionMaps;

/* Maps kept whole, every layer ready: a copy of att (L, H, T, T), or zeros
 * when att is NULL, and their means over heads. NULL with err when out of
 * memory. */
AttentionMaps *attention_maps_new_whole(int n_layers, int n_heads, int T, const float *att, SrError *err);

/* Maps computed on demand from `inference`, a forward-only model after its
 * forward over one sequence (batch 1, T tokens, every layer run), with
 * copies of the input arrays of that forward a layer reads again (mask plan,
 * position plan, lengths, real positions: the caller's may go). None is
 * ready yet. The maps take `inference` over (freed with them) and, when
 * `weights` is not NULL, the model whose weights it borrows as well (freed
 * after it); with weights NULL the caller keeps those weights alive until
 * the maps are freed. */
AttentionMaps *attention_maps_new_on_demand(Model *inference, Model *weights, SrError *err);

void attention_maps_free(AttentionMaps *m);

/* Reading, from one reader thread: layer l's maps (H, T, T) and their mean
 * over heads (T, T, in double, as the figures and their CSVs have always
 * summed them) when the layer is ready (every layer of whole maps; the
 * layer last made ready by attention_maps_compute or attention_maps_want),
 * else NULL. Valid until the reader makes another layer ready. */
const float *attention_maps_layer(const AttentionMaps *m, int layer);
const double *attention_maps_mean(const AttentionMaps *m, int layer);

/* Computing on the reader's thread, waiting until done: layer l made ready,
 * or every layer (the maps become whole). 0, or -1 with err when the model
 * refuses or memory runs out. */
int attention_maps_compute(AttentionMaps *m, int layer, SrError *err);
int attention_maps_compute_all(AttentionMaps *m, SrError *err);

/* Computing in the background: 1 when layer l (or, for _all, every layer)
 * is ready, now the one read; 0 while the maps' thread computes it, which
 * calls the notify function given to attention_maps_on_ready when it is
 * done; -1 with err when the model refuses or memory runs out. */
int attention_maps_want(AttentionMaps *m, int layer, SrError *err);
int attention_maps_want_all(AttentionMaps *m, SrError *err);

/* What the maps' thread calls, from that thread, when a layer or the whole
 * maps the reader waits for are ready or have failed (e.g. waking a
 * window's event loop). */
void attention_maps_on_ready(AttentionMaps *m, void (*notify)(void *), void *arg);

#endif
