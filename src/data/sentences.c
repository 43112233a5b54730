/* sentences.c — distinct normalised sentences and their train / held-out
 * split (rules in sentences.h). */
#include "base/fnv1a.h"
#include "data/sentences.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic_file.h"
#include "text/words.h"

/* FNV-1a hash of the NUL-terminated s. */
static uint64_t hash_line(const char *s)
{
    return fnv1a_bytes(s, strlen(s));
}

/* Words of a normalised line: its spaces plus one (0 for an empty line). */
static long count_words(const char *line)
{
    if (!*line) return 0;
    long n = 1;
    for (; *line; line++) n += *line == ' ';
    return n;
}

void sentence_set_init(SentenceSet *s, int min_words)
{
    memset(s, 0, sizeof *s);
    s->min_words = min_words < 1 ? 1 : min_words;
}

/* Double the hash table (or make its first 1024 slots) and re-insert. */
static int grow_table(SentenceSet *s)
{
    size_t n_slots = s->n_slots ? 2 * s->n_slots : 1024;
    size_t *slots = calloc(n_slots, sizeof(size_t));
    if (!slots) return -1;
    for (size_t i = 0; i < s->n; i++) {
        size_t k = (size_t)hash_line(s->lines[i]) & (n_slots - 1);
        while (slots[k]) k = (k + 1) & (n_slots - 1);
        slots[k] = i + 1;
    }
    free(s->slots);
    s->slots = slots;
    s->n_slots = n_slots;
    return 0;
}

/* A copy of text[0..len) with white-space runs folded to one space and the
 * ends trimmed; NULL when out of memory. */
static char *normalise(const char *text, size_t len)
{
    char *out = malloc(len + 1);
    if (!out) return NULL;
    size_t n = 0;
    int pending_space = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (text_is_separator_byte(c)) {
            pending_space = n > 0;
            continue;
        }
        if (pending_space) out[n++] = ' ';
        pending_space = 0;
        out[n++] = (char)c;
    }
    out[n] = 0;
    return out;
}

int sentence_set_add(SentenceSet *s, const char *text, size_t len, SentenceCounts *c, SrError *err)
{
    c->offered++;
    char *line = normalise(text, len);
    if (!line) return sr_fail(err, "out of memory");
    long words = count_words(line);
    if (words < s->min_words) {
        c->too_short++;
        free(line);
        return 0;
    }
    if (2 * (s->n + 1) > s->n_slots && grow_table(s)) {
        free(line);
        return sr_fail(err, "out of memory");
    }
    size_t k = (size_t)hash_line(line) & (s->n_slots - 1);
    for (; s->slots[k]; k = (k + 1) & (s->n_slots - 1))
        if (strcmp(s->lines[s->slots[k] - 1], line) == 0) {
            c->duplicates++;
            free(line);
            return 0;
        }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 4096;
        char **lines = realloc(s->lines, cap * sizeof(char *));
        if (!lines) {
            free(line);
            return sr_fail(err, "out of memory");
        }
        s->lines = lines;
        s->cap = cap;
    }
    s->lines[s->n++] = line;
    s->slots[k] = s->n;
    c->kept++;
    c->words += words;
    return 0;
}

/* Write the lines i of s with (i % every == 0) == heldout to path. */
static int write_part(const SentenceSet *s, int every, int heldout, const char *path, long *n_lines,
                      long *n_words, SrError *err)
{
    AtomicFile af;
    if (atomic_file_open(&af, path, err)) return -1;
    *n_lines = *n_words = 0;
    for (size_t i = 0; i < s->n; i++) {
        if ((i % (size_t)every == 0) != heldout) continue;
        fputs(s->lines[i], af.f);
        fputc('\n', af.f);
        (*n_lines)++;
        *n_words += count_words(s->lines[i]);
    }
    return atomic_file_commit(&af, err);
}

int sentence_set_write_split(const SentenceSet *s, int every, const char *train_path,
                             const char *heldout_path, long *n_train, long *w_train,
                             long *n_heldout, long *w_heldout, SrError *err)
{
    if (every < 2) return sr_fail(err, "the held-out slice must be every N-th sentence, N >= 2");
    if (write_part(s, every, 0, train_path, n_train, w_train, err)) return -1;
    return write_part(s, every, 1, heldout_path, n_heldout, w_heldout, err);
}

void sentence_set_free(SentenceSet *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->lines[i]);
    free(s->lines);
    free(s->slots);
    memset(s, 0, sizeof *s);
}
