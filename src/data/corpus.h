/* corpus.h — built-in training text: simple English sentences from a small
 * hand-written grammar.
 *
 * The grammar has a few hundred words and enough structure for a tiny model
 * to pick up within a minute of training: subject-verb agreement (the sailor
 * walks / the sailors walk), a / an, pronouns and possessives that agree with
 * the subject (mara ... her brother, tom ... his sister), tense matching its
 * time phrase (yesterday / every day), verbs with the objects that fit them
 * (eat an apple, read a letter, mend a net), animals with their sounds, and
 * twenty recurring people with fixed homes, jobs, pets and friends.
 *
 *     the old sailor walked to the river before dawn .
 *     mara gave the red book to her brother .
 *     the dogs bark at the stranger every evening .
 *
 * Output is lower case, one sentence per line, words and punctuation
 * separated by single spaces. It depends only on the seed: the generator uses
 * rng.h's integer stream, so the text is the same on every platform. */
#ifndef SEQREP_CORPUS_H
#define SEQREP_CORPUS_H

#include <stddef.h>

#include "base/status.h"

/* Generate n_sentences (>= 1) lines into a new NUL-terminated string (caller
 * frees); *len (may be NULL) gets its length. NULL when out of memory or
 * n_sentences < 1. */
char *corpus_builtin_text(int n_sentences, unsigned long long seed, size_t *len);

/* Write the same text to path atomically (to "path.tmp.<pid>", fsync,
 * rename). Fails with a message naming the path. */
int corpus_builtin_write(const char *path, int n_sentences, unsigned long long seed, SrError *err);

#endif
