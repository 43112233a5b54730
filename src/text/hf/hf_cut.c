/* hf_cut.c — a Split pre-tokenizer's pieces of a text: its pattern's matches
 * and the stretches between them, kept, dropped or joined as its behavior
 * says (hf_cut.h). */
#include "text/hf/hf_cut.h"

#include <stdlib.h>
#include <string.h>

static const char *const BEHAVIORS[] = {"Removed", "Isolated", "MergedWithPrevious", "MergedWithNext",
                                        "Contiguous"}; /* in HfCutBehavior's order */

int hf_cut_behavior(const char *name)
{
    for (int k = 0; k < (int)(sizeof BEHAVIORS / sizeof BEHAVIORS[0]); k++)
        if (name && strcmp(name, BEHAVIORS[k]) == 0) return k;
    return -1;
}

/* Every occurrence of lit[0..k) in s[0..n), leftmost first, none
 * overlapping the one before, as spans (hf_pattern_matches' form). */
static long literal_matches(const char *lit, size_t k, const char *s, size_t n, size_t **spans)
{
    *spans = malloc(sizeof(size_t) * (2 * (n / k) + 2));
    if (!*spans) return -1;
    long m = 0;
    for (size_t i = 0; i + k <= n;) {
        const char *hit = memchr(s + i, lit[0], n - k + 1 - i);
        if (!hit) break;
        i = (size_t)(hit - s);
        if (memcmp(s + i, lit, k) != 0) {
            i++;
            continue;
        }
        (*spans)[2 * m] = i;
        (*spans)[2 * m++ + 1] = i + k;
        i += k;
    }
    return m;
}

/* The pieces being made: spans, and whether the last segment put was a
 * delimiter (1), a stretch between delimiters (0), or none yet (-1). */
typedef struct {
    size_t *spans;
    long n;
    int last;
} Pieces;

/* Segment [a, b) of the text (a delimiter or not) into the pieces, as
 * behavior says: dropped, a piece of its own, or joined to the last piece. */
static void put(Pieces *p, size_t a, size_t b, int delim, HfCutBehavior behavior)
{
    int last = p->last, join = 0;
    p->last = delim;
    switch (behavior) {
    case HF_CUT_REMOVED: if (delim) return; break;
    case HF_CUT_ISOLATED: break;
    case HF_CUT_MERGED_PREVIOUS: join = delim && last == 0; break;
    case HF_CUT_MERGED_NEXT: join = !delim && last == 1; break;
    case HF_CUT_CONTIGUOUS: join = delim && last == 1; break;
    }
    if (join) {
        p->spans[2 * p->n - 1] = b;
        return;
    }
    p->spans[2 * p->n] = a;
    p->spans[2 * p->n++ + 1] = b;
}

long hf_cut(const HfCut *c, const char *s, size_t n, size_t **spans)
{
    size_t *m;
    long k = c->literal ? literal_matches(c->literal, c->literal_len, s, n, &m)
                        : hf_pattern_matches(&c->regex, s, n, &m);
    *spans = NULL;
    if (k < 0) return -1;
    Pieces p = {malloc(sizeof(size_t) * (size_t)(4 * k + 2)), 0, -1};
    if (!p.spans) return free(m), -1;
    size_t at = 0;
    for (long i = 0; i <= k; i++) {
        size_t from = i < k ? m[2 * i] : n;
        if (from > at) put(&p, at, from, c->invert, c->behavior);
        if (i == k) break;
        put(&p, from, m[2 * i + 1], !c->invert, c->behavior);
        at = m[2 * i + 1];
    }
    free(m);
    *spans = p.spans;
    return p.n;
}
