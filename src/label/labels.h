/* labels.h — the tag vocabulary of a labelling task: IOB2 tag strings <-> ids.
 *
 * A LabelSet is built from the training data: id 0 is "O", then for every
 * entity type (sorted byte-wise) its "B-TYPE" and "I-TYPE", in that order, so
 * that a type seen only as I- in training still gets both tags:
 *     O, B-LOC, I-LOC, B-PER, I-PER
 * Tags of dev/test data that the training data never had are mapped to "O"
 * and counted, so the caller can warn once. */
#ifndef SEQREP_LABELS_H
#define SEQREP_LABELS_H

#include "base/status.h"
#include "data/dataset.h"
#include "label/metrics.h"

typedef struct {
    int n;         /* number of tags, "O" included */
    char **names;  /* (n) owned tag strings; names[0] = "O" */
} LabelSet;

/* 1 if tag is an IOB2 tag: "O", or "B-" / "I-" followed by a non-empty type. */
int tag_is_iob2(const char *tag);

/* Build the tag set from every tag of train. Fails, naming the file and line
 * of the sentence, on a tag that is not IOB2 ("train.conll:12: tag 'X-PER'
 * is not an IOB2 tag (O, B-TYPE, I-TYPE)") or on a data set without
 * sentences. */
int labels_build(LabelSet *ls, const Dataset *train, SrError *err);

/* Release the tag strings; *ls becomes empty. */
void labels_free(LabelSet *ls);

/* Id of tag, or -1 if the set does not have it. */
int labels_id(const LabelSet *ls, const char *tag);

/* Ids of every word of d, sentence after sentence, into ids (dataset_n_words
 * entries). Tags the set does not know become 0 ("O"); their number goes to
 * *n_unknown (may be NULL). Fails only on a tag that is not IOB2 (named by
 * file and line). */
int labels_encode(const LabelSet *ls, const Dataset *d, int *ids, long *n_unknown, SrError *err);

/* Score predicted tag ids pred (dataset_n_words(d) entries, sentence after
 * sentence) against the gold tags written in d itself (so a gold tag the set
 * does not know still counts as a gold span that was missed). */
int labels_score(const LabelSet *ls, const Dataset *d, const int *pred, SpanScores *out,
                 SrError *err);

#endif
