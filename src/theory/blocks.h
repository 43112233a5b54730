/* blocks.h — the block structure of the causal mask over a repeated sentence.
 *
 * With k = r + 1 copies of an n-token sentence the causal mask over the word
 * tokens splits into k x k blocks of n x n: block (q, c) holds the entries
 * whose query is a word of copy q and whose key is a word of copy c.
 *
 * Counting rule (docs/theory.md derives every closed form below):
 *  - The mask is the model's own: mask_build(MASK_CAUSAL, T, T, ...) from
 *    mask.h, the rule the attention op applies through mask_key_end().
 *  - Blocks are formed by WORD tokens only. <bos> and <sep> rows and columns
 *    belong to no copy (repeat.h) and are left out of the block grid, so every
 *    block is n x n whatever the bos/sep options; special tokens are counted
 *    separately (sink_pairs, special_query_pairs).
 *  - A diagonal block (q == c) is "causal" when its visible entries are exactly
 *    those with key word index <= query word index. An off-diagonal block is
 *    "full" when every entry is visible and "masked" when none is. Anything
 *    else is "other"; for the causal mask there is none, and the count says so.
 *
 * Closed forms, with W = kn word tokens, S special tokens, T = W + S:
 *   full = masked = k(k-1)/2, causal = k, other = 0
 *   full share = full / (full + causal) = (k-1)/(k+1)
 *   visible_pairs = T(T+1)/2, word_pairs = W(W+1)/2
 *   right_pairs = [k(k-1)/2] [n(n-1)/2], right share = (k-1)(n-1) / (2(kn+1))
 *   full_block_pairs = n^2 k(k-1)/2, its share of visible_pairs n^2 k(k-1) / (T(T+1))
 *   seen_whole[0] = 1, seen_whole[c >= 1] = n
 *   sink_pairs and special_query_pairs: see blocks_closed_form.
 * A sliding window (mask.h) cuts the blocks far from the diagonal; what it
 * leaves of the last copy's right context is blocks_last_right_closed. */
#ifndef SEQREP_BLOCKS_H
#define SEQREP_BLOCKS_H

#include <stdint.h>

#include "base/status.h"
#include "repeat/repeat.h"
#include "theory/share.h"

/* The largest mask blocks_count materialises: T * T bytes. */
#define BLOCKS_MAX_MASK_BYTES (256LL * 1024 * 1024)

typedef struct {
    int n, r, k, T;
    int n_special;               /* <bos> + <sep> tokens                          */
    int64_t full_blocks;         /* off-diagonal blocks with every entry visible   */
    int64_t causal_blocks;       /* diagonal blocks, lower triangle visible        */
    int64_t masked_blocks;       /* off-diagonal blocks with no entry visible      */
    int64_t other_blocks;        /* any other pattern (0 for the causal mask)      */
    int64_t visible_pairs;       /* visible (query, key) entries of the T x T mask */
    int64_t word_pairs;          /* ... with a word query and a word key           */
    int64_t right_pairs;         /* ... where the key's word index > the query's   */
    int64_t full_block_pairs;    /* ... that lie inside full blocks                */
    int64_t sink_pairs;          /* visible entries with a word query, special key */
    int64_t special_query_pairs; /* visible entries with a special query           */
    int64_t *seen_whole;         /* (k) words of copy c that see every word index  */
    int window;                  /* the mask's sliding window (0 = none)           */
    int64_t last_right_seen;     /* pairs (i, j > i) of word indices where the last
                                    copy's word i sees word j in an earlier copy:
                                    the right context SR gives the last copy       */
} BlockFigures;

/* Refuse (with a message) a mask of T x T bytes above BLOCKS_MAX_MASK_BYTES. */
int blocks_check_size(int64_t T, SrError *err);

/* Count every figure from the model's causal mask over lay, with a sliding
 * window of `window` keys (0 = none; materialised with mask_build_window,
 * T x T bytes). Allocates out->seen_whole; free with blocks_free. */
int blocks_count(const RepeatLayout *lay, int window, BlockFigures *out, SrError *err);

/* The same figures from the closed forms (no mask involved), without a
 * window (blocks_closed.c, as every closed form below). */
int blocks_closed_form(int n, int r, RepeatBos bos, RepeatSep sep, BlockFigures *out,
                       SrError *err);

void blocks_free(BlockFigures *f);

/* last_right_seen from its closed form under a causal window of w keys
 * (0 = none), with s = the specials between two copies (a per-copy <bos>,
 * a <sep>): the last copy's word i sees word j > i of the copy before at
 * distance n + s + i - j, visible when below w, so with m = min(n - 1,
 * w - s - 1) it sees m(m+1)/2 of the n(n-1)/2 pairs (all of them once
 * w >= n + s); 0 with one copy. */
int64_t blocks_last_right_closed(int n, int r, RepeatBos bos, RepeatSep sep, int window);

/* Shares computed from the figures (counted or closed-form). */
Share blocks_full_share(const BlockFigures *f);        /* full / (full + causal)        */
Share blocks_right_share(const BlockFigures *f);       /* right_pairs / word_pairs      */
Share blocks_full_entry_share(const BlockFigures *f);  /* full_block_pairs / visible    */
Share blocks_seen_whole_share(const BlockFigures *f, int copy); /* seen_whole[c] / n    */

/* The simplified closed forms of those shares. */
Share blocks_full_share_closed(int k);                  /* (k-1)/(k+1)              */
Share blocks_right_share_closed(int n, int k);          /* (k-1)(n-1)/(2(kn+1))     */
Share blocks_full_entry_share_closed(int n, int k, int T); /* n^2 k(k-1)/(T(T+1))   */

#endif
