/* predictions.h — a file of test predictions, as `seqrep finetune
 * --predictions` writes it (CoNLL, one line "word gold predicted" per word, a
 * blank line after every sentence), read back as the strict IOB2 span counts
 * of each sentence (metrics.h).
 *
 * The tags are taken as written: no scheme conversion, so the counts are
 * those finetune scored (a predicted "I-X" that opens no span counts as
 * none) and their sum gives its test F1. */
#ifndef SEQREP_PREDICTIONS_H
#define SEQREP_PREDICTIONS_H

#include <stdint.h>

#include "base/status.h"
#include "label/metrics.h"

/* The sentences of one predictions file. */
typedef struct {
    int n_sents;
    SpanCounts *counts;     /* (n_sents) span counts of each sentence */
    long n_words;
    uint64_t gold_checksum; /* FNV-1a of every word and gold tag: the same for the same test set */
} PredictionCounts;

/* Read path into *out. A line with other than 3 columns, or a file without
 * a sentence, is an error naming the file and line. */
int predictions_read(const char *path, PredictionCounts *out, SrError *err);

void predictions_free(PredictionCounts *p);

#endif
