/* metrics.h — span-level micro precision, recall and F1 under strict IOB2.
 *
 * Spans (as seqeval's strict mode with the IOB2 scheme): a span of type X is
 * a "B-X" followed by zero or more "I-X". It ends at the first tag that is not
 * "I-X" (an "O", a "B-" of any type, or an "I-Y" of another type). An "I-X"
 * that does not continue a span of type X opens none: it is ignored. Anything
 * that is not "B-..." or "I-..." counts as outside.
 *
 *     B-PER I-PER O I-LOC B-LOC B-LOC I-PER
 *     [PER 0..2)      (none) [LOC 4..5) [LOC 5..6) (none)
 *
 * A predicted span is correct when a gold span has the same start, end and
 * type. Counts are summed over sentences (micro average):
 *     precision = tp / n_pred,  recall = tp / n_gold,  F1 = 2PR / (P + R)
 * in percent; a ratio with a zero denominator is 0 (so is F1 when P + R = 0). */
#ifndef SEQREP_METRICS_H
#define SEQREP_METRICS_H

typedef struct {
    long tp;      /* predicted spans that match a gold span exactly */
    long n_pred;  /* predicted spans */
    long n_gold;  /* gold spans */
} SpanCounts;

typedef struct {
    SpanCounts counts;
    double precision, recall, f1;  /* percent, 0 .. 100 */
} SpanScores;

/* If a span starts at word i of tags[0..n), return its exclusive end and set
 * *type_len to the length of its type (the type is tags[i] + 2); else -1. */
int span_end_at(const char *const *tags, int n, int i, int *type_len);

/* Number of strict IOB2 spans in tags[0..n). */
int span_count(const char *const *tags, int n);

/* Add the spans of one sentence (gold and predicted tags, n words each). */
void span_counts_add(SpanCounts *c, const char *const *gold, const char *const *pred, int n);

/* Precision, recall and F1 in percent from summed counts. */
SpanScores span_scores(SpanCounts c);

#endif
