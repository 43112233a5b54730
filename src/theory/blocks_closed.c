/* blocks_closed.c — the closed forms of the block figures (blocks.h,
 * docs/theory.md derives each): what blocks_count must find on the
 * model's own mask. */
#include "theory/blocks.h"

#include <stdlib.h>
#include <string.h>

int blocks_closed_form(int n, int r, RepeatBos bos, RepeatSep sep, BlockFigures *out,
                       SrError *err)
{
    memset(out, 0, sizeof *out);
    int64_t T = repeat_length(n, r, bos, sep);
    if (T < 0) return sr_fail(err, "blocks: need n >= 1 and r >= 0 (n = %d, r = %d)", n, r);
    if (blocks_check_size(T, err)) return -1;
    int64_t k = (int64_t)r + 1, N = n, W = k * N, S = T - W;
    int64_t pairs_of_copies = k * (k - 1) / 2;
    int per_copy_bos = bos == REPEAT_BOS_PER_COPY, has_sep = sep == REPEAT_SEP_TOKEN;
    out->seen_whole = malloc(sizeof(int64_t) * (size_t)k);
    if (!out->seen_whole) return sr_fail(err, "blocks: out of memory");
    out->n = n;
    out->r = r;
    out->k = (int)k;
    out->T = (int)T;
    out->n_special = (int)S;
    out->full_blocks = pairs_of_copies;
    out->causal_blocks = k;
    out->masked_blocks = pairs_of_copies;
    out->other_blocks = 0;
    out->visible_pairs = T * (T + 1) / 2;
    out->word_pairs = W * (W + 1) / 2;
    out->right_pairs = pairs_of_copies * (N * (N - 1) / 2);
    out->full_block_pairs = N * N * pairs_of_copies;
    /* Specials in front of copy c's words: <bos> 0 | 1 | c+1, plus c <sep>. */
    int64_t bos_before = bos == REPEAT_BOS_ONCE ? k : per_copy_bos ? k * (k + 1) / 2 : 0;
    out->sink_pairs = N * (bos_before + has_sep * pairs_of_copies);
    /* Specials see each other (S(S+1)/2) and the words of the copies before
     * them: a per-copy <bos> or a <sep> in front of copy c sees c n words. */
    out->special_query_pairs = S * (S + 1) / 2 + N * pairs_of_copies * (per_copy_bos + has_sep);
    for (int64_t c = 0; c < k; c++) out->seen_whole[c] = c == 0 ? 1 : N;
    out->last_right_seen = blocks_last_right_closed(n, r, bos, sep, 0);
    return 0;
}

int64_t blocks_last_right_closed(int n, int r, RepeatBos bos, RepeatSep sep, int window)
{
    if (r < 1 || n < 2) return 0;
    int64_t s = (bos == REPEAT_BOS_PER_COPY) + (sep == REPEAT_SEP_TOKEN);
    int64_t m = n - 1;
    if (window > 0 && window - s - 1 < m) m = window - s - 1;
    return m > 0 ? m * (m + 1) / 2 : 0;
}

Share blocks_full_share_closed(int k)
{
    return (Share){(int64_t)k - 1, (int64_t)k + 1};
}

Share blocks_right_share_closed(int n, int k)
{
    return (Share){((int64_t)k - 1) * (n - 1), 2 * ((int64_t)k * n + 1)};
}

Share blocks_full_entry_share_closed(int n, int k, int T)
{
    return (Share){(int64_t)n * n * k * (k - 1), (int64_t)T * (T + 1)};
}
