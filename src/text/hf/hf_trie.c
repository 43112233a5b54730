/* hf_trie.c — the byte trie of a tokenizer's added tokens, in which encoding
 * finds the tokens a text starts with at each position in a few steps
 * instead of comparing every added token there (Gemma 3 has 6,415). */
#include <stdlib.h>
#include <string.h>

#include "text/hf/tokenizer_json_parts.h"

/* A new node for byte b, first child of parent (-1: the root). Its index,
 * or -1 when out of memory. */
static int add_node(HfTrie *trie, int parent, unsigned char b)
{
    if (trie->n == trie->cap) {
        int cap = trie->cap ? 2 * trie->cap : 256;
        int *child = realloc(trie->child, sizeof(int) * (size_t)cap);
        if (child) trie->child = child;
        int *sibling = child ? realloc(trie->sibling, sizeof(int) * (size_t)cap) : NULL;
        if (sibling) trie->sibling = sibling;
        int *token = sibling ? realloc(trie->token, sizeof(int) * (size_t)cap) : NULL;
        if (token) trie->token = token;
        unsigned char *bytes = token ? realloc(trie->byte, (size_t)cap) : NULL;
        if (!bytes) return -1;
        trie->byte = bytes, trie->cap = cap;
    }
    int k = trie->n++;
    trie->byte[k] = b;
    trie->child[k] = -1;
    trie->token[k] = -1;
    if (parent < 0) {
        trie->sibling[k] = -1;
        trie->root[b] = k;
    } else {
        trie->sibling[k] = trie->child[parent];
        trie->child[parent] = k;
    }
    return k;
}

int hf_trie_next(const HfTrie *trie, int node, unsigned char b)
{
    if (trie->n == 0) return -1; /* empty, or never built */
    if (node < 0) return trie->root[b];
    for (int k = trie->child[node]; k >= 0; k = trie->sibling[k])
        if (trie->byte[k] == b) return k;
    return -1;
}

int hf_trie_build(HfTrie *trie, const HfTokenizer *t, int normalized)
{
    memset(trie, 0, sizeof *trie);
    for (int b = 0; b < 256; b++) trie->root[b] = -1;
    for (int a = 0; a < t->n_added; a++) {
        const HfAdded *ad = &t->added[a];
        if (ad->normalized != normalized) continue;
        int node = -1;
        for (size_t i = 0; i < ad->len; i++) {
            unsigned char b = (unsigned char)ad->content[i];
            int next = hf_trie_next(trie, node, b);
            if (next < 0 && (next = add_node(trie, node, b)) < 0) return -1;
            node = next;
        }
        if (node >= 0 && trie->token[node] < 0) trie->token[node] = a;
    }
    return 0;
}

int hf_trie_find(const HfTrie *trie, const char *s, size_t n)
{
    int node = -1;
    for (size_t i = 0; i < n; i++)
        if ((node = hf_trie_next(trie, node, (unsigned char)s[i])) < 0) return -1;
    return node >= 0 ? trie->token[node] : -1;
}

void hf_trie_free(HfTrie *trie)
{
    free(trie->child), free(trie->sibling), free(trie->token), free(trie->byte);
    memset(trie, 0, sizeof *trie);
}
