/* hf_bpe.c — the merges of one word of BPE: while some neighbouring pair of
 * symbols has a merge, the pair of the lowest rank (the leftmost of equals)
 * becomes one symbol. The candidates wait in a heap ordered by (rank,
 * position) and the symbols form a linked list, so a word of m symbols
 * takes O(m log m), not the O(m^2) of scanning every pair each round: a
 * SentencePiece-style tokenizer (Gemma 3, Llama 2) does not cut text at
 * spaces, so a whole line is one word. */
#include <stdlib.h>

#include "text/hf/tokenizer_json_parts.h"

/* A possible merge: the pair (left, right) starting at symbol pos. It is
 * stale when the symbols there have changed since. */
typedef struct {
    int rank, pos, left, right, merged;
} Candidate;

/* 1 when a comes before b: lower rank, then further left. */
static int before(const Candidate *a, const Candidate *b)
{
    return a->rank != b->rank ? a->rank < b->rank : a->pos < b->pos;
}

/* Add c to the heap h[0..*n). */
static void heap_push(Candidate *h, long *n, Candidate c)
{
    long k = (*n)++;
    while (k > 0 && before(&c, &h[(k - 1) / 2])) {
        h[k] = h[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    h[k] = c;
}

/* Take the first candidate off the heap h[0..*n) (*n > 0). */
static Candidate heap_pop(Candidate *h, long *n)
{
    Candidate top = h[0], last = h[--(*n)];
    long k = 0;
    for (;;) {
        long c = 2 * k + 1;
        if (c >= *n) break;
        if (c + 1 < *n && before(&h[c + 1], &h[c])) c++;
        if (!before(&h[c], &last)) break;
        h[k] = h[c];
        k = c;
    }
    if (*n > 0) h[k] = last;
    return top;
}

/* Push the merge of symbol k and the one after it, when there is one. */
static void push_pair(const HfMerges *merges, Candidate *h, long *n, const int *sym, const int *next, int k)
{
    if (k < 0 || next[k] < 0) return;
    Candidate c = {0, k, sym[k], sym[next[k]], -1};
    c.rank = hf_merges_find(merges, c.left, c.right, &c.merged);
    if (c.rank >= 0) heap_push(h, n, c);
}

long hf_bpe_merge(const HfMerges *merges, int *sym, long m)
{
    if (m < 2) return m;
    int *next = malloc(sizeof(int) * 2 * (size_t)m), *prev = next + m;
    Candidate *heap = malloc(sizeof *heap * (size_t)(3 * m));
    if (!next || !heap) return free(next), free(heap), -1;
    long n_heap = 0;
    for (long k = 0; k < m; k++) next[k] = k + 1 < m ? (int)k + 1 : -1, prev[k] = (int)k - 1;
    for (long k = 0; k + 1 < m; k++) push_pair(merges, heap, &n_heap, sym, next, (int)k);
    while (n_heap > 0) {
        Candidate c = heap_pop(heap, &n_heap);
        int k = c.pos, r = next[k];
        if (r < 0 || sym[k] != c.left || sym[r] != c.right) continue; /* stale */
        sym[k] = c.merged; /* k takes in r */
        sym[r] = -1;
        next[k] = next[r];
        if (next[r] >= 0) prev[next[r]] = k;
        push_pair(merges, heap, &n_heap, sym, next, prev[k]);
        push_pair(merges, heap, &n_heap, sym, next, k);
    }
    long out = 0;
    for (int k = 0; k >= 0; k = next[k]) sym[out++] = sym[k];
    free(next), free(heap);
    return out;
}
