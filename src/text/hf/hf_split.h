/* hf_split.h — the regular expressions of Hugging Face Split pre-tokenizers,
 * matched exactly as the regex engine (Oniguruma, leftmost-first
 * alternation, greedy quantifiers with backtracking) matches them, without a
 * general regex engine.
 *
 * A pattern is a top-level alternation whose every alternative is one of
 * these (the GPT-2 pattern and the Llama-3 / Qwen2 / Qwen3 patterns are made
 * of them):
 *   's  't  're  've  'm  'll  'd         (case-sensitive literals, GPT-2)
 *   (?i:'s|'t|'re|'ve|'m|'ll|'d)          (ASCII case-insensitive)
 *   ?\p{L}+   ?\p{N}+   ?[^\s\p{L}\p{N}]+   ?[^\s\p{L}\p{N}]+[\r\n]*
 *   [^\r\n\p{L}\p{N}]?\p{L}+   \p{N}   \p{N}{1,K}   \s*[\r\n]+
 *   \s+(?!\S)   \s+
 * (" ?" is an optional space). \p{L} is a Unicode letter (Lu Ll Lt Lm Lo),
 * \p{N} a number (Nd Nl No), \s White_Space (U+0009-000D, U+0020, U+0085,
 * and the Zs, Zl, Zp categories); categories come from utf8proc. */
#ifndef SEQREP_HF_SPLIT_H
#define SEQREP_HF_SPLIT_H

#include <stddef.h>

#define HF_MAX_ALTS 32

/* The pattern of the ByteLevel pre-tokenizer with use_regex (GPT-2's). */
#define HF_GPT2_PATTERN \
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"

typedef struct {
    int n_alts;
    int kind[HF_MAX_ALTS];  /* internal alternative codes (hf_split.c) */
    int arg[HF_MAX_ALTS];   /* literal index or repeat bound */
} HfPattern;

/* Parse a regex of the form above into *p. Returns 0, or -1 with bad (the
 * first alternative not understood, NUL-terminated, at most bad_cap bytes). */
int hf_pattern_parse(HfPattern *p, const char *regex, char *bad, size_t bad_cap);

/* The matches of the pattern in valid UTF-8 s[0..n), leftmost first, each
 * taken whole before the search goes on after it (none is empty): match k
 * spans bytes [(*spans)[2k], (*spans)[2k + 1]). Returns their number, or -1
 * when out of memory. *spans is a malloc'd array (caller frees). */
long hf_pattern_matches(const HfPattern *p, const char *s, size_t n, size_t **spans);

/* 1 if code point c is White_Space (the \s above). */
int hf_is_space(int c);

#endif
