/* hf_json.h — a tokenizer.json read in two ways: its small parts (the
 * normalizer, pre-tokenizer, post-processor, decoder, added tokens and the
 * model's settings) as a cJSON tree, and its two big ones, model.vocab and
 * model.merges, left in the text for hf_vocab.h to read in place. A real
 * vocabulary (Gemma 3: 262,144 entries, 514,906 merges, 33 MB) as a cJSON
 * tree alone takes a second to build; read in place it takes a tenth. */
#ifndef SEQREP_HF_JSON_H
#define SEQREP_HF_JSON_H

#include <cJSON.h>
#include <stddef.h>

#include "base/status.h"

typedef struct {
    cJSON *root;      /* the whole file but model.vocab and model.merges */
    size_t vocab_at;  /* where the value of model.vocab starts, 0 = absent */
    size_t merges_at; /* where the value of model.merges starts, 0 = absent */
} HfJsonParts;

/* Split text[0..n) (valid UTF-8), the tokenizer.json at path (for
 * messages), into *out (out->root: caller deletes). Fails with "path: not a
 * JSON object" or "path: not valid JSON (at byte N)". 0 or -1. */
int hf_json_split(const char *path, const char *text, size_t n, HfJsonParts *out, SrError *err);

#endif
