/* dataset.c — a list of labelled sentences: adding, freeing, the label list. */
#include "data/dataset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Free one sentence's words and tags. */
static void sentence_free(Sentence *s)
{
    for (int i = 0; i < s->n_words; i++) {
        if (s->words) free(s->words[i]);
        if (s->tags) free(s->tags[i]);
    }
    free(s->words);
    free(s->tags);
    memset(s, 0, sizeof *s);
}

void dataset_free(Dataset *d)
{
    for (int i = 0; i < d->n_sents; i++) sentence_free(&d->sents[i]);
    free(d->sents);
    free(d->source);
    memset(d, 0, sizeof *d);
}

int dataset_add(Dataset *d, const char *const *words, const char *const *tags, int n_words,
                int line, SrError *err)
{
    const char *name = d->source ? d->source : "dataset";
    /* Grow the sentence array by doubling: capacity is the next power of two
     * at or above n_sents (0 when empty), so it need not be stored. */
    int cap = 0;
    if (d->n_sents > 0) {
        cap = 1;
        while (cap < d->n_sents) cap *= 2;
    }
    if (d->n_sents == cap) {
        int new_cap = cap ? 2 * cap : 16;
        Sentence *bigger = realloc(d->sents, (size_t)new_cap * sizeof *bigger);
        if (!bigger) return sr_fail(err, "%s: out of memory", name);
        d->sents = bigger;
    }
    Sentence s = {0};
    s.line = line;
    size_t n = n_words > 0 ? (size_t)n_words : 1;
    s.words = calloc(n, sizeof *s.words);
    s.tags = calloc(n, sizeof *s.tags);
    if (!s.words || !s.tags) {
        free(s.words);
        free(s.tags);
        return sr_fail(err, "%s: out of memory", name);
    }
    for (int i = 0; i < n_words; i++) {
        s.words[i] = strdup(words[i]);
        s.tags[i] = strdup(tags[i]);
        s.n_words = i + 1;
        if (!s.words[i] || !s.tags[i]) {
            sentence_free(&s);
            return sr_fail(err, "%s: out of memory", name);
        }
    }
    d->sents[d->n_sents++] = s;
    return 0;
}

long dataset_n_words(const Dataset *d)
{
    long n = 0;
    for (int i = 0; i < d->n_sents; i++) n += d->sents[i].n_words;
    return n;
}

/* qsort order of strings: byte-wise. */
static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void dataset_labels_free(char **labels, int n_labels)
{
    if (labels)
        for (int i = 0; i < n_labels; i++) free(labels[i]);
    free(labels);
}

int dataset_label_index(char *const *labels, int n_labels, const char *tag)
{
    for (int i = 0; i < n_labels; i++)
        if (strcmp(labels[i], tag) == 0) return i;
    return -1;
}

int dataset_labels(const Dataset *const *sets, int n_sets, char ***labels, int *n_labels,
                   SrError *err)
{
    *labels = NULL;
    *n_labels = 0;
    /* Collect the distinct types (the part after "B-"/"I-") in a plain array;
     * label sets are small, so a linear search is enough. */
    char **types = NULL;
    int n_types = 0, cap = 0;
    for (int k = 0; k < n_sets; k++) {
        const Dataset *d = sets[k];
        for (int i = 0; i < d->n_sents; i++) {
            for (int w = 0; w < d->sents[i].n_words; w++) {
                const char *tag = d->sents[i].tags[w];
                if (strcmp(tag, "O") == 0 || strlen(tag) < 3 || tag[1] != '-') continue;
                const char *type = tag + 2;
                int seen = 0;
                for (int t = 0; t < n_types && !seen; t++) seen = strcmp(types[t], type) == 0;
                if (seen) continue;
                if (n_types == cap) {
                    cap = cap ? 2 * cap : 16;
                    char **bigger = realloc(types, (size_t)cap * sizeof *bigger);
                    if (!bigger) goto out_of_memory;
                    types = bigger;
                }
                types[n_types] = strdup(type);
                if (!types[n_types]) goto out_of_memory;
                n_types++;
            }
        }
    }
    if (n_types > 1) qsort(types, (size_t)n_types, sizeof *types, compare_strings);

    int n = 1 + 2 * n_types;
    char **out = calloc((size_t)n, sizeof *out);
    if (!out) goto out_of_memory;
    out[0] = strdup("O");
    for (int t = 0; t < n_types; t++) {
        size_t len = strlen(types[t]) + 3;
        out[1 + 2 * t] = malloc(len);
        out[2 + 2 * t] = malloc(len);
        if (out[1 + 2 * t]) {
            out[1 + 2 * t][0] = 'B';
            out[1 + 2 * t][1] = '-';
            memcpy(out[1 + 2 * t] + 2, types[t], len - 2);
        }
        if (out[2 + 2 * t]) {
            out[2 + 2 * t][0] = 'I';
            out[2 + 2 * t][1] = '-';
            memcpy(out[2 + 2 * t] + 2, types[t], len - 2);
        }
    }
    for (int i = 0; i < n; i++) {
        if (!out[i]) {
            dataset_labels_free(out, n);
            goto out_of_memory;
        }
    }
    dataset_labels_free(types, n_types);
    *labels = out;
    *n_labels = n;
    return 0;

out_of_memory:
    dataset_labels_free(types, n_types);
    return sr_fail(err, "%s: out of memory", n_sets > 0 && sets[0]->source ? sets[0]->source
                                                                          : "dataset");
}

int dataset_make_dir(const char *path, SrError *err)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0) return sr_fail(err, "empty directory name");
    if (n >= sizeof buf) return sr_fail(err, "%s: path too long", path);
    memcpy(buf, path, n + 1);
    /* Create each prefix that ends before a '/', then the whole path. */
    for (size_t i = 1; i <= n; i++) {
        if (i < n && buf[i] != '/') continue;
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            int e = errno;
            buf[i] = saved;
            return sr_fail(err, "%s: cannot create directory (%s)", path, strerror(e));
        }
        buf[i] = saved;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return sr_fail(err, "%s: exists and is not a directory", path);
    return 0;
}
