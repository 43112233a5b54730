/* hf_vocab.h — a tokenizer.json's model.vocab and model.merges read in place
 * from the file's text (json_scan.h), where hf_json_split left them:
 * the ids and their spellings (one block for all of them), the spelling ->
 * id table and the merge table. */
#ifndef SEQREP_HF_VOCAB_H
#define SEQREP_HF_VOCAB_H

#include <stddef.h>

#include "base/status.h"
#include "text/hf/tokenizer_json_parts.h"

/* Ids of a tokenizer.json lie below this (real vocabularies have at most
 * some 260 thousand; every id costs memory up to the largest). */
enum { HF_MAX_IDS = 1 << 22 };

/* The vocabulary object whose value starts at text[at] (at = 0: missing)
 * into t: n_ids one more than the largest of its ids and max_other_id (the
 * added tokens' largest, -1 for none), text / text_len / is_special for that
 * many ids, the spellings (t->spellings), the vocab table. Errors name
 * t->path and model.vocab. 0 or -1. */
int hf_vocab_read(HfTokenizer *t, const char *text, size_t n, size_t at, int max_other_id,
                  SrError *err);

/* The merges array whose value starts at text[at] ("a b" strings or [a, b]
 * pairs; at = 0: missing) into t->merges, in rank order; every side and
 * every joined pair must be in the vocabulary. Errors name model.merges[i].
 * 0 or -1. */
int hf_merges_read(HfTokenizer *t, const char *text, size_t n, size_t at, SrError *err);

#endif
