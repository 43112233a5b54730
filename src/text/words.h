/* words.h — the special tokens and how text is cut into word tokens.
 *
 * Both the word tokenizer (tokenizer.h) and byte-pair learning (bpe.h) split
 * text the same way: at white space and ASCII control bytes, with every ASCII
 * punctuation character a token of its own (the rules are in tokenizer.h). */
#ifndef SEQREP_WORDS_H
#define SEQREP_WORDS_H

#include <stddef.h>

/* The special tokens and their fixed ids. */
enum {
    TOK_PAD = 0,      /* "<pad>"  filler after the end of a sequence */
    TOK_UNK = 1,      /* "<unk>"  a word not in the vocabulary */
    TOK_BOS = 2,      /* "<bos>"  beginning of a sequence */
    TOK_EOS = 3,      /* "<eos>"  end of a sequence (line) */
    TOK_SEP = 4,      /* "<sep>"  separator between segments */
    TOK_MASK = 5,     /* "<mask>" a hidden token */
    TOK_N_SPECIAL = 6 /* number of special tokens; the first word has this id */
};

/* Spelling of a special token ("<pad>" ... "<mask>"), or NULL if id is not
 * in 0..TOK_N_SPECIAL-1. */
const char *tokenizer_special_name(int id);

/* 1 for bytes that separate tokens: ASCII white space and control bytes
 * (0x00-0x20 and 0x7F). */
int text_is_separator_byte(unsigned char c);

/* ---- splitting ------------------------------------------------------------ */

/* Find the next token in text[*pos .. len). Skips separators; on success sets
 * *start and *n to the token's span, advances *pos past it and returns 1.
 * Returns 0 when only separators (or nothing) remain. Start with *pos = 0. */
int text_next_token(const char *text, size_t len, size_t *pos, size_t *start, size_t *n);

#endif
