/* hf_tokenizer.h — the tokenizer of a Hugging Face model folder.
 *
 * THE HOOK for the tokenizer.json support: every command that needs the
 * tokenizer of a folder reaches it through this one function (by way of
 * checkpoint_tokenizer). Until tokenizer.json is read (src/text/), the stub
 * in hf_tokenizer.c fails with "DIR: tokenizer.json support: not yet". */
#ifndef SEQREP_HF_TOKENIZER_H
#define SEQREP_HF_TOKENIZER_H

#include "base/status.h"
#include "text/tokenizer.h"

/* Build *out from dir's tokenizer files. 0, or -1 with err naming the file. */
int hf_load_tokenizer(const char *dir, Tokenizer *out, SrError *err);

#endif
