/* string_table.c — interned strings with counts (see string_table.h). */
#include "text/string_table.h"

#include <stdlib.h>
#include <string.h>

#include "base/fnv1a.h"
#include "text/words.h"

void string_table_free(StringTable *t)
{
    for (int i = 0; i < t->n; i++) free(t->strings[i]);
    free(t->strings);
    free(t->lens);
    free(t->counts);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

/* Slot of s[0..n): the slot holding it, or the empty one where it goes. */
static int slot_of(const StringTable *t, const char *s, size_t n)
{
    size_t mask = (size_t)t->n_slots - 1;
    size_t i = (size_t)fnv1a_bytes(s, n) & mask;
    for (;;) {
        int id = t->slots[i];
        if (id < 0 || (t->lens[id] == n && memcmp(t->strings[id], s, n) == 0)) return (int)i;
        i = (i + 1) & mask;
    }
}

/* Double the slot array and re-insert every string. 0 or -1 (memory). */
static int grow_slots(StringTable *t)
{
    int n_slots = t->n_slots ? 2 * t->n_slots : 1024;
    int *old = t->slots;
    t->slots = malloc((size_t)n_slots * sizeof *t->slots);
    if (!t->slots) {
        t->slots = old;
        return -1;
    }
    t->n_slots = n_slots;
    for (int i = 0; i < n_slots; i++) t->slots[i] = -1;
    for (int id = 0; id < t->n; id++) t->slots[slot_of(t, t->strings[id], t->lens[id])] = id;
    free(old);
    return 0;
}

/* Room for one more string in the per-string arrays. 0 or -1 (memory). */
static int reserve_one(StringTable *t)
{
    if (t->n < t->cap) return 0;
    int cap = t->cap ? 2 * t->cap : 512;
    char **strings = realloc(t->strings, (size_t)cap * sizeof *strings);
    if (!strings) return -1;
    t->strings = strings;
    size_t *lens = realloc(t->lens, (size_t)cap * sizeof *lens);
    if (!lens) return -1;
    t->lens = lens;
    long *counts = realloc(t->counts, (size_t)cap * sizeof *counts);
    if (!counts) return -1;
    t->counts = counts;
    t->cap = cap;
    return 0;
}

int string_table_add(StringTable *t, const char *s, size_t n)
{
    if (2 * (t->n + 1) > t->n_slots && grow_slots(t)) return -1;
    int slot = slot_of(t, s, n);
    int id = t->slots[slot];
    if (id >= 0) {
        t->counts[id]++;
        return id;
    }
    if (reserve_one(t)) return -1;
    char *copy = malloc(n + 1);
    if (!copy) return -1;
    memcpy(copy, s, n);
    copy[n] = '\0';
    t->strings[t->n] = copy;
    t->lens[t->n] = n;
    t->counts[t->n] = 1;
    t->slots[slot] = t->n;
    return t->n++;
}

int string_table_add_tokens(StringTable *t, const char *text, size_t len, int lowercase,
                            long *n_tokens)
{
    char *folded = NULL;
    size_t folded_cap = 0, pos = 0, start, n;
    *n_tokens = 0;
    while (text_next_token(text, len, &pos, &start, &n)) {
        if (n > folded_cap) {
            folded_cap = 2 * n;
            char *bigger = realloc(folded, folded_cap);
            if (!bigger) {
                free(folded);
                return -1;
            }
            folded = bigger;
        }
        for (size_t i = 0; i < n; i++) {
            char c = text[start + i];
            folded[i] = (lowercase && c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
        }
        if (string_table_add(t, folded, n) < 0) {
            free(folded);
            return -1;
        }
        (*n_tokens)++;
    }
    free(folded);
    return 0;
}
