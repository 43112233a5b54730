/* mask_data.c — the mask figure's data, from the core's repeat layout, mask
 * rule and block counts. */
#include <stdlib.h>
#include <string.h>

#include "engine/ops/mask.h"
#include "mask/mask_data.h"

const char *block_kind_name(BlockKind kind)
{
    switch (kind) {
    case BLOCK_FULL: return "full";
    case BLOCK_CAUSAL: return "causal";
    case BLOCK_MASKED: return "masked";
    default: return "other";
    }
}

/* Classify block (q, c) of the mask by the rule of blocks.h: diagonal blocks
 * are causal when exactly key word <= query word is visible; off-diagonal
 * ones full or masked when all or none is visible. */
static BlockKind classify_block(const MaskData *d, int q, int c)
{
    int n_visible = 0, lower_triangle = 1;
    for (int i = 0; i < d->n; i++)
        for (int j = 0; j < d->n; j++) {
            int row = d->copy_start[q] + i, col = d->copy_start[c] + j;
            int v = d->visible[(size_t)row * d->T + col];
            n_visible += v;
            if (v != (j <= i)) lower_triangle = 0;
        }
    if (q == c) return lower_triangle ? BLOCK_CAUSAL : BLOCK_OTHER;
    if (n_visible == d->n * d->n) return BLOCK_FULL;
    if (n_visible == 0) return BLOCK_MASKED;
    return BLOCK_OTHER;
}

/* The figure's default title and caption for d (built with a sliding window
 * of `window` keys, 0 = none). */
static void describe(MaskData *d, int window)
{
    int n = d->n, r = d->r;
    RepeatBos bos = d->bos;
    RepeatSep sep = d->sep;
    if (window) {
        int64_t all = (int64_t)n * (n - 1) / 2;
        snprintf(d->meta.title, sizeof d->meta.title,
                 "Causal mask with a window of %d keys over k = %d copies of an n = %d token sentence",
                 window, d->k, n);
        snprintf(d->meta.caption, sizeof d->meta.caption,
                 "Mask: the model's causal mask with a sliding window of %d keys (mask_build_window; "
                 "Mistral, Gemma 2 and 3) over one sentence of n = %d tokens repeated k = r + 1 = %d "
                 "times (r = %d), bos %s, sep %s: T = %d tokens. Each query sees only the last %d keys: "
                 "the last copy sees %lld of the %lld pairs of its right context in the earlier copies "
                 "(all of them once the window reaches back a whole copy). No model, data or seed "
                 "involved.",
                 window, n, d->k, r, repeat_bos_name(bos), repeat_sep_name(sep), d->T, window,
                 (long long)d->last_right_seen, (long long)(d->k > 1 ? all : 0));
        return;
    }
    snprintf(d->meta.title, sizeof d->meta.title, "Causal mask over k = %d copies of an n = %d token sentence",
             d->k, n);
    snprintf(d->meta.caption, sizeof d->meta.caption,
             "Mask: the model's causal mask (mask_build) over one sentence of n = %d tokens repeated "
             "k = r + 1 = %d times (r = %d), bos %s, sep %s: T = %d tokens. Rows are queries, "
             "columns keys; lines mark the n x n blocks of word tokens. No model, data or seed "
             "involved.",
             n, d->k, r, repeat_bos_name(bos), repeat_sep_name(sep), d->T);
}

int mask_data_build(MaskData *d, int n, int r, RepeatBos bos, RepeatSep sep, int window,
                    SrError *err)
{
    memset(d, 0, sizeof *d);
    d->meta = figure_meta_default();
    RepeatLayout lay;
    if (repeat_build(NULL, n, r, bos, sep, MASK_FIGURE_MAX_T, &lay, err)) {
        if (n >= 1 && r >= 0)
            return sr_fail(err, "mask figure: n = %d, r = %d gives more than %d tokens, too many to draw",
                           n, r, MASK_FIGURE_MAX_T);
        return -1;
    }
    BlockFigures counted;
    if (blocks_count(&lay, window, &counted, err)) {
        repeat_free(&lay);
        return -1;
    }
    d->n = n;
    d->r = r;
    d->k = lay.k;
    d->T = lay.T;
    d->bos = bos;
    d->sep = sep;
    size_t T = (size_t)lay.T, k = (size_t)lay.k;
    d->token_kind = malloc(sizeof(int) * T);
    d->copy = malloc(sizeof(int) * T);
    d->copy_start = malloc(sizeof(int) * k);
    d->visible = malloc(T * T);
    d->blocks = malloc(sizeof(BlockKind) * k * k);
    if (!d->token_kind || !d->copy || !d->copy_start || !d->visible || !d->blocks) {
        repeat_free(&lay);
        blocks_free(&counted);
        mask_data_free(d);
        return sr_fail(err, "mask figure: out of memory");
    }
    memcpy(d->token_kind, lay.kind, sizeof(int) * T);
    memcpy(d->copy, lay.copy, sizeof(int) * T);
    memcpy(d->copy_start, lay.copy_start, sizeof(int) * k);
    mask_build_window(MASK_CAUSAL, window, lay.T, lay.T, d->visible);
    d->window = window;
    d->last_right_seen = counted.last_right_seen;
    for (int q = 0; q < d->k; q++)
        for (int c = 0; c < d->k; c++) {
            BlockKind b = classify_block(d, q, c);
            d->blocks[q * d->k + c] = b;
            if (b == BLOCK_FULL) d->n_full++;
            else if (b == BLOCK_CAUSAL) d->n_causal++;
            else if (b == BLOCK_MASKED) d->n_masked++;
            else d->n_other++;
        }
    d->full_share = blocks_full_share(&counted);
    d->full_share_closed = blocks_full_share_closed(d->k);
    int agree = d->n_full == counted.full_blocks && d->n_causal == counted.causal_blocks &&
                d->n_masked == counted.masked_blocks && d->n_other == counted.other_blocks;
    blocks_free(&counted);
    repeat_free(&lay);
    if (!agree) {
        mask_data_free(d);
        return sr_fail(err, "mask figure: block kinds disagree with blocks_count (n = %d, r = %d)", n, r);
    }
    describe(d, window);
    return 0;
}

void mask_data_free(MaskData *d)
{
    free(d->token_kind);
    free(d->copy);
    free(d->copy_start);
    free(d->visible);
    free(d->blocks);
    memset(d, 0, sizeof *d);
}

void mask_data_write_csv(const MaskData *d, FILE *out)
{
    fprintf(out, "query_copy,key_copy,kind,visible,entries\n");
    for (int q = 0; q < d->k; q++)
        for (int c = 0; c < d->k; c++) {
            long visible = 0;
            for (int i = 0; i < d->n; i++)
                for (int j = 0; j < d->n; j++)
                    visible += d->visible[(size_t)(d->copy_start[q] + i) * d->T + d->copy_start[c] + j];
            fprintf(out, "%d,%d,%s,%ld,%ld\n", q, c, block_kind_name(d->blocks[q * d->k + c]), visible,
                    (long)d->n * d->n);
        }
}

void mask_tooltip(const MaskData *d, const char *const *labels, int query, int key, char *out, size_t cap)
{
    char tq[80], tk[80];
    int pos[2] = {query, key};
    char *dst[2] = {tq, tk};
    for (int i = 0; i < 2; i++) {
        int t = pos[i];
        const char *word = labels && labels[t] ? labels[t] : "?";
        if (d->copy[t] >= 0) snprintf(dst[i], 80, "%d '%.30s' (copy %d)", t, word, d->copy[t] + 1);
        else snprintf(dst[i], 80, "%d '%.30s' (no copy)", t, word);
    }
    int visible = d->visible[(size_t)query * d->T + key];
    const char *block = "";
    if (d->copy[query] >= 0 && d->copy[key] >= 0) block = block_kind_name(d->blocks[d->copy[query] * d->k + d->copy[key]]);
    snprintf(out, cap, "query %s\nkey %s\n%s%s%s%s", tq, tk, visible ? "visible" : "masked", *block ? " (" : "", block,
             *block ? " block)" : "");
}
