/* sentences.h — a set of distinct sentences of plain text, one per line, and
 * how it is written out as a training file and a held-out slice.
 *
 * Every sentence is normalised before it is counted: runs of the bytes the
 * word splitter separates at (text/words.h: space, tab, CR, LF and the other
 * ASCII control bytes) become one space,
 * and leading and trailing space goes. A sentence of fewer than min_words
 * space-separated words is dropped, and so is one equal to a sentence already
 * in the set (exact comparison after normalising). Order is kept: the first
 * time a sentence is seen decides its place.
 *
 * Split: sentences 0, every, 2·every, … (counted in set order) go to the
 * held-out file, the others to the training file, so the held-out slice
 * samples every source and every part of each source evenly, and the same
 * inputs always give the same files. */
#ifndef SEQREP_SENTENCES_H
#define SEQREP_SENTENCES_H

#include <stddef.h>

#include "base/status.h"

/* What one source gave: lines offered, kept, and why the others were not. */
typedef struct {
    long offered;    /* sentences handed to sentence_set_add */
    long kept;       /* new sentences added */
    long duplicates; /* equal to one already in the set */
    long too_short;  /* fewer than min_words words */
    long words;      /* words of the kept sentences */
} SentenceCounts;

typedef struct {
    char **lines;    /* (n) owned, normalised, NUL-terminated */
    size_t n, cap;
    size_t *slots;   /* (n_slots) open-addressing table of line index + 1, 0 = empty */
    size_t n_slots;  /* power of two, kept at least twice n */
    int min_words;
} SentenceSet;

/* An empty set that keeps sentences of at least min_words (>= 1) words. */
void sentence_set_init(SentenceSet *s, int min_words);

/* Normalise text[0..len) and add it unless it is too short or a duplicate;
 * counts what happened in *c. 0, or -1 when out of memory. */
int sentence_set_add(SentenceSet *s, const char *text, size_t len, SentenceCounts *c, SrError *err);

/* Write the set: every `every`-th sentence (>= 2) to heldout_path, the rest
 * to train_path, one per line, each file atomically. The numbers of lines and
 * words written go to *n_train, *w_train, *n_heldout, *w_heldout. */
int sentence_set_write_split(const SentenceSet *s, int every, const char *train_path,
                             const char *heldout_path, long *n_train, long *w_train,
                             long *n_heldout, long *w_heldout, SrError *err);

/* Release the set's memory; *s becomes empty. */
void sentence_set_free(SentenceSet *s);

#endif
