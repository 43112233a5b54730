/* nlupp.h — NLU++ slot-labelling data (PolyAI, CC BY 4.0) to IOB2 sentences.
 *
 * Input. DIR/{banking,hotels}/fold{0..19}.json, each a JSON array of
 * examples {"text": ..., "slots": {NAME: {"span": [start, end], ...}}};
 * `span` counts Unicode characters (code points) of `text`, end exclusive.
 * DIR/ontology.json, when present, lists the slot names; a slot not in it is
 * an error.
 *
 * Tokens. The text is split with text_next_token (tokenizer.h), the same
 * splitting the models use, keeping byte offsets; character offsets are
 * converted to byte offsets first.
 *
 * Spans to tags. Leading and trailing white space inside a span is ignored.
 * A span labels every token it touches: B-NAME on the first, I-NAME on the
 * rest. Then:
 *   - misaligned: the span starts or ends inside a token ("5" in "5ish");
 *     it is counted, logged, and labels the whole tokens it touches;
 *   - overlapping: IOB2 cannot nest, so of spans that share a token the
 *     longest (in tokens) is kept, ties to the earlier start, then to the
 *     earlier slot in the file; each dropped span is counted and logged;
 *   - empty: a span of only white space is counted, logged and dropped;
 *   - an example whose text has no token is counted, logged and skipped;
 *   - a span that is not two integers with 0 <= start < end <= length of
 *     the text is an error naming the file, the example (counting from 0)
 *     and the slot.
 *
 * Split (the sequence-repetition paper's; both domains merged, banking
 * examples first, folds in the order listed):
 *   train: folds 0-9, 12, 14, 17, 19   validation ("dev"): 11, 16
 *   test:  folds 10, 13, 15, 18 */
#ifndef SEQREP_NLUPP_H
#define SEQREP_NLUPP_H

#include <stdio.h>

#include "base/status.h"
#include "data/dataset.h"

enum { NLUPP_TRAIN = 0, NLUPP_DEV = 1, NLUPP_TEST = 2, NLUPP_N_SPLITS = 3 };

/* What an import found, per fold file or per split (counts add up). */
typedef struct {
    long examples;        /* sentences written */
    long tokens;          /* words of those sentences */
    long spans;           /* slot spans read */
    long misaligned;      /* spans starting or ending inside a token (kept, widened) */
    long overlapping;     /* spans dropped because they overlap a kept span */
    long empty_spans;     /* spans of only white space (dropped) */
    long empty_examples;  /* examples without any token (skipped) */
} NluppCounts;

/* Name of a split: "train", "dev", "test". */
const char *nlupp_split_name(int split);

/* The folds of a split: sets *folds to a static array and returns its length. */
int nlupp_split_folds(int split, const int **folds);

/* Read one fold file and append its examples to *out (out->source is left
 * alone). Adds to *counts. Every misaligned, overlapping or empty span and
 * every empty example gets one line on `log` (may be NULL = quiet).
 * slot_names[0..n_slot_names) (NULL = any name) are the names allowed. */
int nlupp_read_fold(const char *path, Dataset *out, NluppCounts *counts, FILE *log,
                    char *const *slot_names, int n_slot_names, SrError *err);

/* Read the slot names (the keys of "slots") of an ontology.json into a new
 * array (free with dataset_labels_free). */
int nlupp_read_ontology(const char *path, char ***names, int *n_names, SrError *err);

/* Read all folds under dir into the three splits: sets[k] is initialised
 * (source = "DIR (train)" etc.) and counts[k] filled for k in 0..2. */
int nlupp_read_splits(const char *dir, Dataset sets[NLUPP_N_SPLITS],
                      NluppCounts counts[NLUPP_N_SPLITS], FILE *log, SrError *err);

/* nlupp_read_splits, then write out_dir/train.conll, dev.conll and test.conll
 * (out_dir is created if needed; each file atomically). Nothing is written
 * when reading fails. */
int nlupp_import(const char *dir, const char *out_dir, NluppCounts counts[NLUPP_N_SPLITS],
                 FILE *log, SrError *err);

#endif
