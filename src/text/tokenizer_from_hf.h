/* tokenizer_from_hf.h — a Tokenizer (text/tokenizer.h) backed by a Hugging Face
 * tokenizer.json (text/hf/tokenizer_json.h): the hook through which the
 * labelling code (label/readout.c) and the commands use a real model's
 * tokenizer. */
#ifndef SEQREP_TOKENIZER_FROM_HF_H
#define SEQREP_TOKENIZER_FROM_HF_H

#include "base/status.h"
#include "text/tokenizer.h"

/* Load path (a tokenizer.json or its folder, see hf_tokenizer_load) into
 * *tok: tok->hf set, n_words its number of ids, words[] copies of the
 * stored spellings. On failure *tok is empty and err names the file. */
int tokenizer_from_hf(Tokenizer *tok, const char *path, SrError *err);

#endif
