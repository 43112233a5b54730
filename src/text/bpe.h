/* bpe.h — learning a byte-pair (subword) vocabulary from a corpus.
 *
 * The corpus is split into tokens exactly like the word tokenizer does
 * (text_next_token in words.h), optionally lower-cased, and counted.
 * Every token is spelled as a sequence of characters (UTF-8 characters; a
 * byte that is not valid UTF-8 counts as one character): the first in its
 * plain form, every later one with the continuation marker, so "lower" starts
 * as  l ##o ##w ##e ##r. A merge joins the most frequent adjacent pair
 * (counts weighted by token frequency) into one piece: l ##o -> lo, then
 * lo ##w -> low, ##e ##r -> ##er, and so on. Ties go to the pair whose left,
 * then right, piece is byte-wise smallest, so the result does not depend on
 * hashing or the machine.
 *
 * The vocabulary, in id order: the six special tokens, every character of the
 * corpus's words in both forms, plain and "##" (punctuation, always a token
 * of its own, only plain), sorted byte-wise, and
 * then each new piece in the order it was learned. Merging stops when the
 * vocabulary reaches vocab_size or when no pair occurs at least twice.
 * Because all characters are in it, any word made of known characters can be
 * cut into pieces (see the greedy longest match in tokenizer.h). */
#ifndef SEQREP_BPE_H
#define SEQREP_BPE_H

#include <stddef.h>

#include "base/status.h"

/* Prefix of every piece that continues a word ("##ing"). */
#define BPE_CONTINUATION "##"

/* Learn a vocabulary from text[0..len) of at most vocab_size tokens
 * (specials included). *tokens gets a new array of *n_tokens owned strings in
 * id order (free with bpe_tokens_free); *n_merges (may be NULL) the number of
 * merges made (new pieces plus merges that re-made a known piece). `source`
 * names the text in messages. Fails on a text without tokens, or when
 * vocab_size cannot hold the specials and the characters of the corpus. */
int bpe_learn(const char *text, size_t len, const char *source, int vocab_size, int lowercase,
              char ***tokens, int *n_tokens, int *n_merges, SrError *err);

/* Release a token array from bpe_learn. */
void bpe_tokens_free(char **tokens, int n_tokens);

#endif
