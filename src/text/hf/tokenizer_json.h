/* tokenizer_json.h — a Hugging Face tokenizer read from tokenizer.json (and
 * tokenizer_config.json beside it), encoding and decoding as the Hugging Face
 * tokenizers library does. docs/models.md ("Tokenizers") lists what works.
 *
 * Supported: the BPE model (vocab, merges as "a b" strings or [a, b] pairs,
 * unk_token, fuse_unk, byte_fallback, ignore_merges); added tokens (special
 * or not, with lstrip, rstrip, single_word, normalized), matched before the
 * model, leftmost-longest; normalizers NFC, NFD, NFKC, NFKD, Lowercase,
 * Prepend, Replace (String pattern), Sequence, null; pre-tokenizers
 * ByteLevel, Split (a String pattern, or the GPT-2 and Llama-3 / Qwen regex
 * patterns of hf_split.h; every behavior, invert; hf_cut.h), Metaspace,
 * Sequence, null; post-processors
 * TemplateProcessing, ByteLevel, Roberta/BertProcessing, Sequence, null;
 * decoders ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace,
 * Sequence, null. Anything else fails on load with one line naming the file
 * and the unsupported kind ("tokenizer.json: model type 'WordPiece' is not
 * supported (only BPE)").
 *
 * Special tokens added by encode ("with specials"): those of the
 * post-processor's single template, except that tokenizer_config.json's
 * add_bos_token / add_eos_token, where present, decide whether its bos_token
 * / eos_token is put first / last (as transformers' Llama tokenizers do).
 *
 * Text that is not valid UTF-8: each maximal ill-formed subpart (as Python's
 * errors="replace" and WHATWG's decoder cut them) becomes U+FFFD before
 * encoding. Decoding yields bytes that are made valid the same way. */
#ifndef SEQREP_TOKENIZER_JSON_H
#define SEQREP_TOKENIZER_JSON_H

#include <stddef.h>

#include "base/status.h"

typedef struct HfTokenizer HfTokenizer;

/* Load path: a tokenizer.json, or a folder holding one. tokenizer_config.json
 * in the same folder is read when present. Returns a new tokenizer or NULL
 * with err filled ("dir/tokenizer.json: pre_tokenizer type 'Whitespace' is
 * not supported"). */
HfTokenizer *hf_tokenizer_load(const char *path, SrError *err);

/* Release everything (NULL is fine). */
void hf_free(HfTokenizer *t);

/* Number of ids: one more than the largest id of the vocabulary and the added
 * tokens (ids without a token in between have no text). */
int hf_vocab_size(const HfTokenizer *t);

/* Id of the token spelled exactly text[0..n) (an added token, else a model
 * vocabulary entry, in its stored form, e.g. "Ġthe"), or -1. */
int hf_token_id(const HfTokenizer *t, const char *text, size_t n);

/* Stored spelling of id (NUL-terminated, owned by t), or NULL. */
const char *hf_token_text(const HfTokenizer *t, int id);

/* 1 if id is an added token marked special. */
int hf_is_special(const HfTokenizer *t, int id);

/* The ids encode puts first (bos) and last (eos) when asked for specials:
 * the first / last of them, or -1 when there is none. */
int hf_bos_id(const HfTokenizer *t);
int hf_eos_id(const HfTokenizer *t);

/* The special tokens tokenizer_config.json names (a string or
 * {"content": s}), whether or not encode adds them. */
typedef enum { HF_NAMED_EOS = 0, HF_NAMED_SEP = 1, HF_NAMED_PAD = 2, HF_N_NAMED = 3 } HfNamedToken;

/* Id of the eos_token / sep_token / pad_token of tokenizer_config.json, or
 * -1 when the file is absent, names none, or names a token not in the
 * vocabulary. */
int hf_named_id(const HfTokenizer *t, HfNamedToken which);

/* Encode text[0..len) into ids[0..max_ids) (the special tokens of the
 * post-processor first and last when with_specials). Returns the number of
 * ids the text needs (only the first max_ids are written, ids may be NULL
 * when max_ids is 0), or -1 when out of memory. */
long hf_encode(const HfTokenizer *t, const char *text, size_t len, int with_specials, int *ids,
               long max_ids);

/* Decode ids[0..n) through the decoder into a new NUL-terminated UTF-8
 * string (caller frees; NULL when out of memory). Ids without a token are
 * skipped; special added tokens too when skip_special. */
char *hf_decode(const HfTokenizer *t, const int *ids, long n, int skip_special);

/* ---- labelling ------------------------------------------------------------ */

/* 1 when words of a sentence are encoded with a space before them (byte-level
 * BPE, and Gemma 3, whose normalizer only replaces spaces by "▁"), 0 when
 * each is encoded alone (SentencePiece style: a Prepend("▁") normalizer or a
 * Metaspace pre-tokenizer gives every word its own "▁"). */
int hf_words_take_space(const HfTokenizer *t);

/* The pieces of word `index` (0 = first) of a pre-split sentence, encoded in
 * context: " " + word when index > 0 and hf_words_take_space, else the word
 * alone; no special tokens. Pre-tokens never cross words, so the pieces of a
 * sentence are the concatenation of its words' pieces. Writes at most
 * max_ids ids and returns the number needed (>= 1: a word that yields no
 * piece, such as "", gets the tokenizer's unk id, else the pieces of " ", else
 * id 0).
 * -1 when out of memory. */
int hf_word_pieces(const HfTokenizer *t, const char *word, int index, int *ids, int max_ids);

/* Pieces of a whole sentence words[0..n_words): *pieces (caller frees) gets
 * *n_pieces ids, first_piece[w] (n_words ints, caller's) the index of word
 * w's first piece. Returns 0, or -1 when out of memory. */
int hf_encode_words(const HfTokenizer *t, const char *const *words, int n_words, int **pieces,
                    int *n_pieces, int *first_piece);

#endif
