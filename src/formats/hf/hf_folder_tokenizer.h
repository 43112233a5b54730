/* hf_folder_tokenizer.h — the tokenizer of a Hugging Face model folder.
 *
 * Every command that needs the tokenizer of a folder reaches it through this
 * one function (by way of checkpoint_tokenizer): the folder's tokenizer.json
 * and tokenizer_config.json read by text/tokenizer_from_hf.h, checked against the
 * model's embedding. */
#ifndef SEQREP_HF_FOLDER_TOKENIZER_H
#define SEQREP_HF_FOLDER_TOKENIZER_H

#include "base/status.h"
#include "text/tokenizer.h"

/* Build *out from dir/tokenizer.json (and tokenizer_config.json beside it)
 * for a model of vocab_size embedding rows. Fails with one line naming the
 * file: no tokenizer.json ("DIR/tokenizer.json: missing ..."), an
 * unsupported or bad one (text/hf/tokenizer_json.h), or one with a plain
 * token past the embedding ("DIR/tokenizer.json: 300 token ids, but
 * config.json's vocab_size is 128 and id 128 'x' is not a special token").
 * Fewer ids than vocab_size is fine (real models pad their embedding), and
 * so are special added tokens past it: Gemma 3's text models have 262,144
 * rows and their tokenizer adds <image_soft_token> as id 262,144 for the
 * multimodal ones: out->embedded then holds vocab_size, and the commands
 * refuse a text that spells such a token out (tokenizer_check_embedded).
 * 0, or -1 with *out empty. */
int hf_load_tokenizer(const char *dir, int vocab_size, Tokenizer *out, SrError *err);

#endif
