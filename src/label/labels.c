/* labels.c — building the tag set and encoding tags (see labels.h). */
#include "label/labels.h"

#include <stdlib.h>
#include <string.h>

int tag_is_iob2(const char *tag)
{
    if (strcmp(tag, "O") == 0) return 1;
    return (tag[0] == 'B' || tag[0] == 'I') && tag[1] == '-' && tag[2] != 0;
}

void labels_free(LabelSet *ls)
{
    for (int i = 0; i < ls->n; i++) free(ls->names[i]);
    free(ls->names);
    memset(ls, 0, sizeof *ls);
}

/* qsort comparison of two C strings. */
static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Message for a tag that is not IOB2, naming the file and the sentence's line. */
static int bad_tag(const Dataset *d, const Sentence *s, int w, SrError *err)
{
    const char *src = d->source ? d->source : "data";
    if (s->line > 0)
        return sr_fail(err, "%s:%d: tag '%s' of word '%s' is not an IOB2 tag (O, B-TYPE, I-TYPE)",
                       src, s->line + w, s->tags[w], s->words[w]);
    return sr_fail(err, "%s: tag '%s' of word '%s' is not an IOB2 tag (O, B-TYPE, I-TYPE)", src,
                   s->tags[w], s->words[w]);
}

int labels_build(LabelSet *ls, const Dataset *train, SrError *err)
{
    memset(ls, 0, sizeof *ls);
    const char *src = train->source ? train->source : "data";
    if (train->n_sents == 0) return sr_fail(err, "%s: no sentences", src);
    /* collect the distinct types (the tag without its "B-"/"I-") */
    long n_words = dataset_n_words(train);
    const char **types = malloc(sizeof(char *) * (size_t)(n_words > 0 ? n_words : 1));
    if (!types) return sr_fail(err, "%s: out of memory", src);
    long n_types = 0;
    for (int s = 0; s < train->n_sents; s++) {
        const Sentence *sent = &train->sents[s];
        for (int w = 0; w < sent->n_words; w++) {
            const char *tag = sent->tags[w];
            if (!tag_is_iob2(tag)) {
                free(types);
                return bad_tag(train, sent, w, err);
            }
            if (tag[0] != 'O') types[n_types++] = tag + 2;
        }
    }
    qsort(types, (size_t)n_types, sizeof *types, compare_strings);
    long n_distinct = 0;
    for (long i = 0; i < n_types; i++)
        if (i == 0 || strcmp(types[i], types[i - 1]) != 0) types[n_distinct++] = types[i];

    ls->names = calloc((size_t)(1 + 2 * n_distinct), sizeof(char *));
    int rc = ls->names ? 0 : -1;
    if (rc == 0) ls->names[ls->n++] = strdup("O");
    for (long i = 0; rc == 0 && i < n_distinct; i++)
        for (int bi = 0; bi < 2; bi++) {
            size_t len = strlen(types[i]);
            char *name = malloc(len + 3);
            if (!name) {
                rc = -1;
                break;
            }
            name[0] = bi == 0 ? 'B' : 'I';
            name[1] = '-';
            memcpy(name + 2, types[i], len + 1);
            ls->names[ls->n++] = name;
        }
    if (rc == 0 && !ls->names[0]) rc = -1;
    free(types);
    if (rc) {
        labels_free(ls);
        return sr_fail(err, "%s: out of memory", src);
    }
    return 0;
}

int labels_id(const LabelSet *ls, const char *tag)
{
    for (int i = 0; i < ls->n; i++)
        if (strcmp(ls->names[i], tag) == 0) return i;
    return -1;
}

int labels_encode(const LabelSet *ls, const Dataset *d, int *ids, long *n_unknown, SrError *err)
{
    long k = 0, unknown = 0;
    for (int s = 0; s < d->n_sents; s++) {
        const Sentence *sent = &d->sents[s];
        for (int w = 0; w < sent->n_words; w++) {
            if (!tag_is_iob2(sent->tags[w])) return bad_tag(d, sent, w, err);
            int id = labels_id(ls, sent->tags[w]);
            if (id < 0) {
                unknown++;
                id = 0;
            }
            ids[k++] = id;
        }
    }
    if (n_unknown) *n_unknown = unknown;
    return 0;
}

int labels_score(const LabelSet *ls, const Dataset *d, const int *pred, SpanScores *out,
                 SrError *err)
{
    int longest = 1;
    for (int s = 0; s < d->n_sents; s++)
        if (d->sents[s].n_words > longest) longest = d->sents[s].n_words;
    const char **names = malloc(sizeof(char *) * (size_t)longest);
    if (!names) return sr_fail(err, "%s: out of memory", d->source ? d->source : "data");
    SpanCounts counts = {0};
    long k = 0;
    for (int s = 0; s < d->n_sents; s++) {
        const Sentence *sent = &d->sents[s];
        for (int w = 0; w < sent->n_words; w++, k++)
            names[w] = pred[k] >= 0 && pred[k] < ls->n ? ls->names[pred[k]] : "O";
        span_counts_add(&counts, (const char *const *)sent->tags, names, sent->n_words);
    }
    free(names);
    *out = span_scores(counts);
    return 0;
}
