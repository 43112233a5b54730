/* metrics.c — strict IOB2 spans and micro-F1 (see metrics.h). */
#include "label/metrics.h"

#include <string.h>

/* 1 if tags[j] is "I-" followed by exactly the type type[0..len). */
static int continues(const char *tag, const char *type, int len)
{
    return tag[0] == 'I' && tag[1] == '-' && (int)strlen(tag + 2) == len &&
           memcmp(tag + 2, type, (size_t)len) == 0;
}

int span_end_at(const char *const *tags, int n, int i, int *type_len)
{
    const char *tag = tags[i];
    if (!(tag[0] == 'B' && tag[1] == '-')) return -1;
    const char *type = tag + 2;
    int len = (int)strlen(type);
    int end = i + 1;
    while (end < n && continues(tags[end], type, len)) end++;
    if (type_len) *type_len = len;
    return end;
}

int span_count(const char *const *tags, int n)
{
    int count = 0;
    for (int i = 0; i < n; i++)
        if (span_end_at(tags, n, i, NULL) >= 0) count++;
    return count;
}

void span_counts_add(SpanCounts *c, const char *const *gold, const char *const *pred, int n)
{
    /* Spans are identified by their start word: at most one span starts at
     * each word, so gold and predicted spans can be matched in one pass. */
    for (int i = 0; i < n; i++) {
        int gold_len = 0, pred_len = 0;
        int gold_end = span_end_at(gold, n, i, &gold_len);
        int pred_end = span_end_at(pred, n, i, &pred_len);
        if (gold_end >= 0) c->n_gold++;
        if (pred_end >= 0) c->n_pred++;
        if (gold_end >= 0 && gold_end == pred_end && gold_len == pred_len &&
            memcmp(gold[i] + 2, pred[i] + 2, (size_t)gold_len) == 0)
            c->tp++;
    }
}

SpanScores span_scores(SpanCounts c)
{
    SpanScores s = {.counts = c};
    s.precision = c.n_pred > 0 ? 100.0 * (double)c.tp / (double)c.n_pred : 0.0;
    s.recall = c.n_gold > 0 ? 100.0 * (double)c.tp / (double)c.n_gold : 0.0;
    s.f1 = s.precision + s.recall > 0 ? 2.0 * s.precision * s.recall / (s.precision + s.recall) : 0.0;
    return s;
}
