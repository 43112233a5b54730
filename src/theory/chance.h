/* chance.h — the shares a head without preference would give: the level
 * every measured share of attention is read against.
 *
 * A uniform head spreads each query row's weight evenly over the keys that
 * row's mask lets it see: query t of a layer with mask kind and sliding
 * window w gives 1 / (visible keys) to every key s in mask_key_range's
 * [start, end) and 0 elsewhere. Run through the same measure as the real
 * attention (attnflow.h, heads.h, cue_attention.h) and averaged the same
 * way, it gives the chance level of every share: the share of a region is
 * (visible keys in the region) / (visible keys) per query, averaged over
 * the same queries and sentences. The position plan changes nothing here
 * (positions move what RoPE rotates, not what the mask lets through); the
 * mask plan and the windows do, layer by layer. No I/O here. */
#ifndef SEQREP_CHANCE_H
#define SEQREP_CHANCE_H

#include "base/status.h"
#include "engine/model.h"
#include "engine/ops/mask.h"
#include "repeat/repeat.h"

/* att (T, stride), row t = query t, stride >= T: the uniform head of a
 * sequence of T tokens under kind and a window of `window` keys (0 =
 * none). Columns T .. stride - 1 are set to 0. */
void chance_uniform_head(float *att, int stride, int T, MaskKind kind, int window);

/* What takes one layer's uniform head: the same call a measure takes for a
 * layer of real attention, with a single head (att (1, stride, stride)). */
typedef void (*ChanceAdd)(void *ctx, int layer, const float *att, int stride, const RepeatLayout *lay);

/* For every layer of cfg: the uniform head under plan[l] (NULL: causal
 * everywhere) and the layer's own window (model_layer_window), laid out as
 * lay (stride lay->T), handed to add(ctx, l, ...). 0, or -1 with err when
 * out of memory. */
int chance_add_layers(const ModelConfig *cfg, const MaskKind *plan, const RepeatLayout *lay, ChanceAdd add,
                      void *ctx, SrError *err);

#endif
