/* hf_table.c — the two hash tables of a Hugging Face tokenizer: spelling ->
 * id over the tokenizer's own spellings, and BPE merge pair -> rank. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/fnv1a.h"
#include "text/hf/tokenizer_json_parts.h"

/* Smallest power of two >= 2 n (and >= 16). */
static int slots_for(long n)
{
    int size = 16;
    while (size < 2 * n) size *= 2;
    return size;
}

int hf_table_build(HfTable *tab, const HfTokenizer *t, const unsigned char *use)
{
    long n = 0;
    for (int id = 0; id < t->n_ids; id++) n += t->text[id] && (!use || use[id]);
    tab->n_slots = slots_for(n);
    tab->slots = malloc(sizeof(int) * (size_t)tab->n_slots);
    if (!tab->slots) return -1;
    for (int i = 0; i < tab->n_slots; i++) tab->slots[i] = -1;
    size_t mask = (size_t)tab->n_slots - 1;
    for (int id = 0; id < t->n_ids; id++) {
        if (!t->text[id] || (use && !use[id])) continue;
        size_t i = (size_t)fnv1a_bytes(t->text[id], t->text_len[id]) & mask;
        while (tab->slots[i] >= 0) {
            int other = tab->slots[i];
            if (t->text_len[other] == t->text_len[id] &&
                memcmp(t->text[other], t->text[id], t->text_len[id]) == 0)
                break; /* the same spelling twice: the first id stays */
            i = (i + 1) & mask;
        }
        if (tab->slots[i] < 0) tab->slots[i] = id;
    }
    return 0;
}

int hf_table_find(const HfTable *tab, const HfTokenizer *t, const char *s, size_t n)
{
    if (!tab->slots) return -1;
    size_t mask = (size_t)tab->n_slots - 1;
    for (size_t i = (size_t)fnv1a_bytes(s, n) & mask;; i = (i + 1) & mask) {
        int id = tab->slots[i];
        if (id < 0) return -1;
        if (t->text_len[id] == n && memcmp(t->text[id], s, n) == 0) return id;
    }
}

void hf_table_free(HfTable *tab)
{
    free(tab->slots);
    memset(tab, 0, sizeof *tab);
}

/* Slot of the pair key in m: where it is, or the empty one where it goes. */
static size_t merge_slot(const HfMerges *m, unsigned long long key)
{
    size_t mask = (size_t)m->n_slots - 1;
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 17) & mask;
    while (m->keys[i] != ~0ULL && m->keys[i] != key) i = (i + 1) & mask;
    return i;
}

int hf_merges_init(HfMerges *m, int n)
{
    m->n_slots = slots_for(n);
    m->keys = malloc(sizeof *m->keys * (size_t)m->n_slots);
    m->rank = malloc(sizeof(int) * (size_t)m->n_slots);
    m->merged = malloc(sizeof(int) * (size_t)m->n_slots);
    if (!m->keys || !m->rank || !m->merged) {
        hf_merges_free(m);
        return -1;
    }
    for (int i = 0; i < m->n_slots; i++) m->keys[i] = ~0ULL;
    return 0;
}

void hf_merges_add(HfMerges *m, int left, int right, int rank, int merged)
{
    unsigned long long key = (unsigned long long)(unsigned)left << 32 | (unsigned)right;
    size_t i = merge_slot(m, key);
    m->keys[i] = key;
    m->rank[i] = rank;
    m->merged[i] = merged;
}

int hf_merges_find(const HfMerges *m, int left, int right, int *merged)
{
    if (!m->keys || left < 0 || right < 0) return -1;
    unsigned long long key = (unsigned long long)(unsigned)left << 32 | (unsigned)right;
    size_t i = merge_slot(m, key);
    if (m->keys[i] != key) return -1;
    *merged = m->merged[i];
    return m->rank[i];
}

void hf_merges_free(HfMerges *m)
{
    free(m->keys);
    free(m->rank);
    free(m->merged);
    memset(m, 0, sizeof *m);
}
