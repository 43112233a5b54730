/* dataset.h — labelled sentences for sequence labelling.
 *
 * A Dataset is a list of sentences, each a list of words with one IOB2 tag
 * per word ("O", "B-TYPE", "I-TYPE"). Readers convert other schemes (IOB1,
 * IOBES) to IOB2 on the way in, so everything downstream sees IOB2 only. */
#ifndef SEQREP_DATASET_H
#define SEQREP_DATASET_H

#include "base/status.h"

typedef struct {
    int n_words;
    char **words;  /* (n_words) owned UTF-8 strings */
    char **tags;   /* (n_words) owned IOB2 tags     */
    int line;      /* line of the file where the sentence starts (1-based), 0 if none */
} Sentence;

typedef struct {
    Sentence *sents;   /* (n_sents) */
    int n_sents;
    char *source;      /* file the data came from (owned), for messages */
} Dataset;

void dataset_free(Dataset *d);

/* Append a sentence (copies words and tags); returns 0 or -1 (out of memory). */
int dataset_add(Dataset *d, const char *const *words, const char *const *tags, int n_words,
                int line, SrError *err);

/* Total number of words over all sentences. */
long dataset_n_words(const Dataset *d);

/* The label list of one or more datasets, in a fixed order: "O" first, then
 * for every entity type (byte-wise sorted) "B-TYPE", "I-TYPE". Every type
 * seen in any of sets[0..n_sets) is included (pass train, dev and test
 * together so ids agree). *labels is a new array of *n_labels owned strings;
 * free it with dataset_labels_free. */
int dataset_labels(const Dataset *const *sets, int n_sets, char ***labels, int *n_labels,
                   SrError *err);

/* Release a label list from dataset_labels. */
void dataset_labels_free(char **labels, int n_labels);

/* Index of tag in labels[0..n_labels), or -1. */
int dataset_label_index(char *const *labels, int n_labels, const char *tag);

/* Create the directory `path` and any missing parents (like mkdir -p), for
 * the files a dataset writer puts there. An existing directory is fine;
 * errors name the path ("out/x: cannot create directory (Permission denied)"). */
int dataset_make_dir(const char *path, SrError *err);

#endif
