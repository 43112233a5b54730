/* blocks.c — counting the blocks of the model's causal mask over a repeated
 * sentence, and the closed forms they must equal (see blocks.h). */
#include "theory/blocks.h"

#include <stdlib.h>
#include <string.h>

#include "engine/ops/mask.h"

int blocks_check_size(int64_t T, SrError *err)
{
    if (T < 1) return sr_fail(err, "blocks: the input has no tokens");
    if (T > BLOCKS_MAX_MASK_BYTES / T)
        return sr_fail(err,
                       "blocks: a %lld x %lld mask needs %.1f MiB, more than the %lld MiB limit; "
                       "use a smaller n or r",
                       (long long)T, (long long)T, (double)T * (double)T / (1024.0 * 1024.0),
                       BLOCKS_MAX_MASK_BYTES / (1024 * 1024));
    return 0;
}

void blocks_free(BlockFigures *f)
{
    free(f->seen_whole);
    f->seen_whole = NULL;
}

/* Walk one query row of the mask (T entries of 0 or 1) and add what it sees
 * to f. Word keys are read copy by copy (the words of copy c are the n
 * consecutive rows from copy_start[c]) and tallied per key copy into
 * per_copy (k); seen (n bytes, scratch) marks the word indices the row has
 * seen. Special keys are the rows listed in specials (n_specials).
 * Returns 1 if the row sees a word to its right inside its own copy. */
static int count_word_row(const RepeatLayout *lay, const uint8_t *row, int t, int64_t *per_copy,
                          uint8_t *seen, const int *specials, int n_specials, BlockFigures *f)
{
    int qc = lay->copy[t], qi = lay->word[t];
    unsigned n = (unsigned)lay->n;
    int right_in_own_copy = 0, saw_whole_copy = 0;
    memset(seen, 0, n);
    for (int c = 0; c < lay->k; c++) {
        const uint8_t *keys = row + lay->copy_start[c];
        unsigned visible = 0, right = 0;
        for (unsigned i = 0; i < n; i++) visible += keys[i];
        if (visible == 0) continue;
        if (visible == n) {
            /* Every key of this copy is visible: all words, n-1-qi of them right. */
            saw_whole_copy = 1;
            right = n - 1 - (unsigned)qi;
        } else {
            for (unsigned i = 0; i < n; i++)
                if (keys[i]) {
                    seen[i] = 1;
                    right += i > (unsigned)qi;
                }
        }
        per_copy[c] += visible;
        f->word_pairs += visible;
        f->visible_pairs += visible;
        f->right_pairs += right;
        if (c == qc && right) right_in_own_copy = 1;
    }
    for (int j = 0; j < n_specials; j++) {
        f->sink_pairs += row[specials[j]];
        f->visible_pairs += row[specials[j]];
    }
    unsigned words_seen = 0;
    for (unsigned i = 0; i < n; i++) words_seen += seen[i];
    if (saw_whole_copy || words_seen == n) f->seen_whole[qc]++;
    return right_in_own_copy;
}

/* Classify the k blocks of query copy q from the visible counts per key copy
 * (per_copy, summed over the n query rows of copy q); right_in_own_copy says
 * whether some row of copy q saw a word to its right inside copy q. */
static void classify_block_row(const RepeatLayout *lay, int q, const int64_t *per_copy,
                               int right_in_own_copy, BlockFigures *f)
{
    int64_t n = lay->n, area = n * n, triangle = n * (n + 1) / 2;
    for (int c = 0; c < lay->k; c++) {
        if (c == q) {
            /* No visible key right of the query's word, and as many visible
             * entries as the lower triangle has: exactly the triangle. */
            if (!right_in_own_copy && per_copy[c] == triangle) f->causal_blocks++;
            else f->other_blocks++;
        } else if (per_copy[c] == area) {
            f->full_blocks++;
            f->full_block_pairs += area;
        } else if (per_copy[c] == 0) {
            f->masked_blocks++;
        } else {
            f->other_blocks++;
        }
    }
}

/* Pairs (i, j > i) of word indices where some word i of the last copy sees
 * word j of an earlier copy, read from the mask (T x T). */
static int64_t count_last_right(const RepeatLayout *lay, const uint8_t *mask)
{
    int64_t pairs = 0;
    int T = lay->T, last = lay->k - 1;
    for (int i = 0; i < lay->n; i++) {
        const uint8_t *row = mask + (size_t)(lay->copy_start[last] + i) * T;
        for (int j = i + 1; j < lay->n; j++) {
            int seen = 0;
            for (int c = 0; c < last && !seen; c++) seen = row[lay->copy_start[c] + j];
            pairs += seen;
        }
    }
    return pairs;
}

int blocks_count(const RepeatLayout *lay, int window, BlockFigures *out, SrError *err)
{
    memset(out, 0, sizeof *out);
    if (blocks_check_size(lay->T, err)) return -1;
    int T = lay->T, k = lay->k, n = lay->n;
    uint8_t *mask = malloc((size_t)T * (size_t)T);
    int64_t *per_copy = malloc(sizeof(int64_t) * (size_t)k);
    uint8_t *seen = malloc((size_t)n);
    int *specials = malloc(sizeof(int) * (size_t)T);
    out->seen_whole = calloc((size_t)k, sizeof(int64_t));
    if (!mask || !per_copy || !seen || !specials || !out->seen_whole) {
        free(mask);
        free(per_copy);
        free(seen);
        free(specials);
        blocks_free(out);
        return sr_fail(err, "blocks: out of memory for a %d x %d mask", T, T);
    }
    /* The model's own rule: the same function the attention op relies on. */
    mask_build_window(MASK_CAUSAL, window, T, T, mask);
    out->window = window;
    out->last_right_seen = count_last_right(lay, mask);

    out->n = n;
    out->r = lay->r;
    out->k = k;
    out->T = T;
    out->n_special = lay->n_bos + lay->n_sep;
    int n_specials = 0;
    for (int t = 0; t < T; t++)
        if (lay->kind[t] != REPEAT_WORD) specials[n_specials++] = t;
    for (int q = 0; q < k; q++) {
        memset(per_copy, 0, sizeof(int64_t) * (size_t)k);
        int right_in_own_copy = 0;
        for (int i = 0; i < n; i++) {
            int t = lay->copy_start[q] + i;
            right_in_own_copy |= count_word_row(lay, mask + (size_t)t * T, t, per_copy, seen,
                                                specials, n_specials, out);
        }
        classify_block_row(lay, q, per_copy, right_in_own_copy, out);
    }
    for (int j = 0; j < n_specials; j++) {
        const uint8_t *row = mask + (size_t)specials[j] * T;
        unsigned visible = 0;
        for (int s = 0; s < T; s++) visible += row[s];
        out->visible_pairs += visible;
        out->special_query_pairs += visible;
    }
    free(mask);
    free(per_copy);
    free(seen);
    free(specials);
    return 0;
}

Share blocks_full_share(const BlockFigures *f)
{
    return (Share){f->full_blocks, f->full_blocks + f->causal_blocks};
}

Share blocks_right_share(const BlockFigures *f)
{
    return (Share){f->right_pairs, f->word_pairs};
}

Share blocks_full_entry_share(const BlockFigures *f)
{
    return (Share){f->full_block_pairs, f->visible_pairs};
}

Share blocks_seen_whole_share(const BlockFigures *f, int copy)
{
    return (Share){f->seen_whole[copy], f->n};
}
