/* mask_data.h — the numbers of figure 1, the kn x kn causal mask over a
 * repeated sentence.
 *
 * The T x T mask of the model (mask_build_window from src/engine/ops/mask.h,
 * causal, with a sliding window when asked)
 * over one sentence of n tokens repeated k = r + 1 times (layout from
 * src/repeat/repeat.h, with the chosen <bos>/<sep> options), rows = queries,
 * columns = keys, and the kind of every n x n block of word cells
 * (theory/blocks.h): full, causal (diagonal), masked or another pattern,
 * with the counted share of full blocks beside the closed form (k-1)/(k+1).
 * Painted by paint_mask.h. */
#ifndef SEQREP_VIZ_MASK_DATA_H
#define SEQREP_VIZ_MASK_DATA_H

#include <stdint.h>
#include <stdio.h>

#include "draw/figure.h"
#include "repeat/repeat.h"
#include "theory/blocks.h"

/* The most tokens the mask figure draws (cells would be under a pixel). */
#define MASK_FIGURE_MAX_T 600

typedef enum {
    BLOCK_FULL = 0,    /* off-diagonal, every entry visible         */
    BLOCK_CAUSAL = 1,  /* diagonal, key word index <= query's       */
    BLOCK_MASKED = 2,  /* off-diagonal, no entry visible            */
    BLOCK_OTHER = 3    /* any other pattern (never for the causal mask) */
} BlockKind;

typedef struct {
    FigureMeta meta;
    int n, r, k, T;
    RepeatBos bos;
    RepeatSep sep;
    int *token_kind;      /* (T) RepeatTokenKind of each position           */
    int *copy;            /* (T) copy 0..k-1 of each position, -1 = special */
    int *copy_start;      /* (k) first row of copy c's words                */
    uint8_t *visible;     /* (T, T) 1 where query row may see key column    */
    BlockKind *blocks;    /* (k, k) kind of block (query copy, key copy)    */
    int64_t n_full, n_causal, n_masked, n_other;  /* blocks of each kind    */
    Share full_share;        /* counted: full / (full + causal)             */
    Share full_share_closed; /* (k-1)/(k+1)                                  */
    int window;              /* the mask's sliding window, 0 = none         */
    int64_t last_right_seen; /* blocks.h: the last copy's right context     */
} MaskData;

/* Build the figure's data for n words and r repetitions from the model's
 * mask rule, with a causal sliding window of `window` keys (0 = none); fills
 * a default title and caption. 0 or -1 (n < 1, r < 0, or T above
 * MASK_FIGURE_MAX_T). Free with mask_data_free. */
int mask_data_build(MaskData *d, int n, int r, RepeatBos bos, RepeatSep sep, int window,
                    SrError *err);
void mask_data_free(MaskData *d);

/* The numbers behind the figure as CSV: one line per block
 * (query_copy,key_copy,kind,visible,entries). */
void mask_data_write_csv(const MaskData *d, FILE *out);

/* The hover text of cell (query, key): "query 3 'cat' (copy 1)\nkey 1 'the'
 * (copy 1)\nvisible (causal block)", with labels[t] the token at position t
 * (NULL: "?"). */
void mask_tooltip(const MaskData *d, const char *const *labels, int query, int key, char *out, size_t cap);

/* Name of a block kind: "full", "causal", "masked", "other". */
const char *block_kind_name(BlockKind kind);

#endif
