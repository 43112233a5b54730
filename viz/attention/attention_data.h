/* attention_data.h — the numbers of figure 3, real attention maps.
 *
 * One repeated sentence run through a trained model: the attention
 * probabilities of every layer and head ((L, H, T, T), attention_maps.h:
 * whole, or a layer at a time on demand for long inputs),
 * which keys each layer's mask lets a query see, the tokens and the copy
 * layout, the map to draw (a layer and a head or the mean over heads) and
 * its colour scale: fixed 0..1 (default), per head (the shown map's own
 * min..max over visible cells) or log10 with a floor of 1e-3. Painted by
 * paint_attention.h (one map) and paint_attention_overview.h (the layer x
 * head grid). */
#ifndef SEQREP_VIZ_ATTENTION_DATA_H
#define SEQREP_VIZ_ATTENTION_DATA_H

#include <stdint.h>
#include <stdio.h>

#include "attention/attention_maps.h"
#include "draw/figure.h"
#include "engine/ops/mask.h"
#include "engine/model.h"
#include "repeat/repeat.h"
#include "text/tokenizer.h"

/* The most tokens an attention figure draws (a 512-piece sentence at r = 3
 * with its specials fits). */
#define ATTENTION_MAX_T 4096
/* Values below this are drawn as the floor on the log scale. */
#define ATTENTION_LOG_FLOOR 1e-3

typedef enum { SCALE_FIXED = 0, SCALE_PER_HEAD = 1, SCALE_LOG = 2 } AttentionScale;

/* What a cell of an attention map shows (AttentionData.visible). */
enum { ATTENTION_MASKED = 0, ATTENTION_SHOWN = 1, ATTENTION_FILTERED = 2 };

typedef struct {
    FigureMeta meta;
    int n_layers, n_heads, T;
    AttentionMaps *maps; /* (L, H, T, T) attention probabilities, row = query  */
    uint8_t *visible;   /* (n_visible, T, T) ATTENTION_SHOWN where a mask lets
                         * query see key, ATTENTION_MASKED where it does not,
                         * ATTENTION_FILTERED where it does but the `b` filter
                         * hides the cell: one map per mask the layers use, a
                         * kind of the plan with the layer's sliding window
                         * (layers of one mask share it; 4.5 MB per map at
                         * 2,048 tokens)                                       */
    int n_visible;      /* maps in visible (1 to 4)                           */
    int *visible_of;    /* (L) the map of visible layer l uses                */
    char **tokens;      /* (T) owned token labels                             */
    int *copy;          /* (T) copy of each position, -1 for <bos>/<sep>       */
    int k;              /* copies                                             */
    int window;         /* the model's sliding window (0 = none) and the      */
    unsigned long long sliding_layers; /* layers it slides on (model.h)     */
    int *boundary;      /* (k - 1) position where copy c + 1's segment begins */
    int layer;          /* the map paint_attention draws                      */
    int head;           /* its head, or -1 for the mean over heads            */
    AttentionScale scale;
    float *repo_z;      /* (L, T, H) RePo positions z of the same forward, NaN
                           in layers without RePo; NULL when the model has none */
    RepeatPositions copy_positions; /* how the forward numbered the copies (the caption says) */
    int overview;       /* draw the layer x head grid (paint_attention_overview)
                           rather than the one map (paint_attention)           */
} AttentionData;

/* Fill d from arrays the caller computed: a layout, its token labels (T
 * strings), the attention att (L, H, T, T; NULL = zeros) and the mask plan
 * (L). Copies everything. Selects layer 0, the mean over heads, fixed scale. */
int attention_data_init(AttentionData *d, int n_layers, int n_heads, const RepeatLayout *lay,
                        const char *const *tokens, const float *att, const MaskKind *plan,
                        SrError *err);

/* Load a checkpoint (with the LoRA adapters of adapter_path, a file of
 * finetune --save, merged in; NULL = none), tokenize `text` with its
 * vocabulary, repeat it (r, *bos, sep, positions running on or restarting in
 * each copy; the specials with the tokenizer's own ids; when bos_given is 0
 * and the tokenizer puts no BOS, *bos becomes none, see readout_choose_bos),
 * run the model with the mask plan (NULL = causal) and the heads of
 * ablate_heads taken away ("L.H,...", head_plan_parse; NULL = none) and
 * fill d.
 * Fails with a message on a bad checkpoint or adapter file, an empty
 * sentence or one that does not fit the model. *seed (may be NULL) gets the
 * training seed from the checkpoint's manifest (-1 if none). */
int attention_data_from_model(AttentionData *d, const char *model_path, const char *adapter_path,
                              const char *text, int r, RepeatBos *bos, int bos_given, RepeatSep sep,
                              RepeatPositions positions, const char *mask_plan,
                              const char *ablate_heads, long long *seed, SrError *err);

void attention_data_free(AttentionData *d);

/* How many positions of the first copy (the sentence once) are the unknown
 * token (tokenizer_is_unknown_label) into *n_unknown, out of how many into
 * *n_first. The caption and the commands' warnings say so when most are. */
void attention_data_unknown(const AttentionData *d, int *n_unknown, int *n_first);

/* Set d's title and caption for its layer, head and scale: the model (path,
 * the adapter file applied to it or NULL, checksum, training seed, -1 =
 * unknown), the sentence and where it came from, r, bos, sep and the mask
 * plan (NULL = causal). `seqrep plot attention` and the explorer both
 * describe their frames with it. */
void attention_data_describe(AttentionData *d, int overview, const char *model_path,
                             const char *adapter_path, const char *checksum, long long seed,
                             const char *text, const char *text_source, int r, RepeatBos bos,
                             RepeatSep sep, const char *mask_plan);

/* What a caption adds after the model's name for the adapter file applied to
 * it: " with the LoRA adapters of ADAPTER merged in", or "" for NULL. */
void attention_adapter_words(char *out, size_t cap, const char *adapter_path);

/* Fill d from the last forward (batch 1) of `inference`, a forward-only
 * model (model_create_inference) over the repeated input lay: its maps on
 * demand (d takes `inference` over, and `weights` too when not NULL, see
 * attention_maps_new_on_demand), the token labels from tok
 * (tokenizer_piece_label), the mask plan (NULL = causal) and, for a RePo
 * model, the positions z. 0 or -1 (then d has taken nothing over). */
int attention_data_from_inference(AttentionData *d, Model *inference, Model *weights, const RepeatLayout *lay,
                                  const Tokenizer *tok, const MaskKind *plan, SrError *err);

/* Check and set the map to draw: layer 0..L-1, head -1 (mean) or 0..H-1.
 * "layer 9 out of range 0..3". */
int attention_select(AttentionData *d, int layer, int head, SrError *err);

/* Parse "fixed" | "per-head" | "log"; 0 or -1. Name for printing. */
int attention_scale_parse(const char *text, AttentionScale *out);
const char *attention_scale_name(AttentionScale s);

/* Probability at (layer, head, query, key); head -1 = mean over heads. */
double attention_value(const AttentionData *d, int layer, int head, int query, int key);

/* 1 if key is visible to query in layer (and not filtered out). */
int attention_visible(const AttentionData *d, int layer, int query, int key);

/* 1 if the cell is visible under the mask but hidden by the `b` filter. */
int attention_filtered(const AttentionData *d, int layer, int query, int key);

/* The colour-scale range of a map: [0, 1] (fixed), the min..max over its
 * visible cells (per head), or [log10 floor, 0] (log, in log10 units). */
void attention_range(const AttentionData *d, int layer, int head, double *lo, double *hi);

/* Position 0..1 on the colour bar of probability p for range lo..hi. */
double attention_colour_position(const AttentionData *d, double p, double lo, double hi);

/* CSV of the drawn map(s), one row per query: layer, head ("mean" for the
 * mean over heads), query, query_token, query_copy (-1 = <bos>/<sep>), then
 * k0 .. k{T-1}, the probability of each key (empty where masked; key k is
 * the token of query row k). all_maps: every layer and head and the means
 * (the overview); otherwise the selected map only. */
void attention_data_write_csv(const AttentionData *d, FILE *out, int all_maps);

/* The visibility map (T, T) of layer l (d->visible, shared by the layers of
 * one mask kind). */
const uint8_t *attention_visible_map(const AttentionData *d, int layer);

/* The hover text of cell (query, key) of the map (layer, head):
 * "query 7 'cat' (copy 2)\nkey 3 'dog' (copy 1)\np = 0.1234", or "masked",
 * or "hidden by the b filter" in place of the value. */
void attention_tooltip(const AttentionData *d, int layer, int head, int query, int key, char *out, size_t cap);

/* The `b` filter: out (n_visible, T, T) = d's visible cells whose query is a word of
 * the last copy and whose key a word of an earlier copy; the other visible
 * cells ATTENTION_FILTERED, masked cells ATTENTION_MASKED. out may be
 * d->visible itself (the filter in place). */
void attention_last_copy_visible(const AttentionData *d, uint8_t *out);

#endif
