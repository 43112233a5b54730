/* mask.h — which keys a query may attend to.
 *
 * A mask plan gives one MaskKind per layer. The attention op never looks at a
 * materialised T x T mask: it asks mask_key_end() for the end of the visible
 * key range of each query row, and mask_build() materialises exactly the same
 * rule for counting and drawing. One rule, one code path.
 *
 * Rows are right-padded: a sequence of `len` valid tokens occupies positions
 * 0..len-1 of a row of length T; keys at len..T-1 are padding and never seen.
 *
 * A layer may also have a sliding window of w keys (Mistral, Gemma 2 and 3):
 * query t then sees only keys s with t - s < w (and, when bidirectional,
 * s - t < w too), the start of its range moving right with t. Window 0 is
 * no window. */
#ifndef SEQREP_MASK_H
#define SEQREP_MASK_H

#include <stdint.h>

typedef enum {
    MASK_CAUSAL = 0,        /* query t sees keys 0..t            */
    MASK_BIDIRECTIONAL = 1  /* query t sees keys 0..len-1        */
} MaskKind;

/* Exclusive end of the visible key range [0, end) for query row t in a
 * sequence with `len` valid tokens (1 <= len). For padding rows (t >= len) the
 * range is clamped to the valid tokens, so every row sees at least one key. */
static inline int mask_key_end(MaskKind kind, int t, int len)
{
    int end = (kind == MASK_CAUSAL) ? t + 1 : len;
    return end < len ? end : len;
}

/* The visible key range [*start, *end) of query row t under kind and a
 * sliding window of `window` keys (0 = none), for a sequence of `len` valid
 * tokens: mask_key_end's range cut to the last `window` keys up to t (and,
 * bidirectional, the next window - 1 after it). Neither end decreases with
 * t, and every row, padding included, sees at least one key. */
static inline void mask_key_range(MaskKind kind, int window, int t, int len, int *start, int *end)
{
    int e = mask_key_end(kind, t, len), s = 0;
    if (window > 0) {
        if (kind == MASK_BIDIRECTIONAL && t + window < e) e = t + window;
        if (t - window + 1 > 0) s = t - window + 1;
        if (s > e - 1) s = e - 1;
    }
    *start = s;
    *end = e;
}

/* Materialise the (T, T) mask of one sequence into out (row = query,
 * column = key): 1 where visible, 0 where masked. Uses mask_key_end(). */
void mask_build(MaskKind kind, int T, int len, uint8_t *out);

/* mask_build with a sliding window of `window` keys (0 = none): the rule of
 * mask_key_range, the one the attention op applies. */
void mask_build_window(MaskKind kind, int window, int T, int len, uint8_t *out);

/* Fill plan[0..n_layers) with the paper's "middle unmasking" plan: layers
 * lb..ub inclusive are bidirectional, the rest causal, where
 * cut = (N/3)/2*2, lb = N/2-1-cut/2, ub = N/2+cut/2 (integer division). */
void mask_plan_middle(MaskKind *plan, int n_layers);

/* Parse a mask-plan name: "causal", "full" (all bidirectional), "middle", or
 * a comma list of bidirectional layer indices such as "2,3". Returns 0 or -1. */
int mask_plan_parse(const char *text, MaskKind *plan, int n_layers);

#endif
