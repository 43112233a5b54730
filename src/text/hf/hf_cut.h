/* hf_cut.h — how a Split pre-tokenizer cuts a piece of text: where its
 * pattern matches (a regex of hf_split.h, or a literal String), and which
 * pieces its behavior makes of the matches and the stretches between them,
 * as the Hugging Face library's SplitDelimiterBehavior says. For
 * "the-final--countdown" cut at "-":
 *   Removed             the | final | countdown
 *   Isolated            the | - | final | - | - | countdown
 *   MergedWithPrevious  the- | final- | - | countdown
 *   MergedWithNext      the | -final | - | -countdown
 *   Contiguous          the | - | final | -- | countdown
 * With invert the stretches between matches are the delimiters instead.
 * Empty pieces are dropped. The ByteLevel pre-tokenizer's regex is a cut
 * too (Isolated). */
#ifndef SEQREP_HF_CUT_H
#define SEQREP_HF_CUT_H

#include <stddef.h>

#include "text/hf/hf_split.h"

typedef enum {
    HF_CUT_REMOVED, HF_CUT_ISOLATED, HF_CUT_MERGED_PREVIOUS, HF_CUT_MERGED_NEXT, HF_CUT_CONTIGUOUS
} HfCutBehavior;

typedef struct {
    HfPattern regex;    /* the pattern, when literal is NULL */
    char *literal;      /* a String pattern (owned, not empty), or NULL */
    size_t literal_len;
    HfCutBehavior behavior;
    int invert;
} HfCut;

/* The behavior named as in tokenizer.json ("MergedWithPrevious"), or -1. */
int hf_cut_behavior(const char *name);

/* The pieces of valid UTF-8 s[0..n): piece k spans bytes
 * [(*spans)[2k], (*spans)[2k + 1]), in order. Returns their number, or -1
 * when out of memory. *spans is a malloc'd array (caller frees). */
long hf_cut(const HfCut *c, const char *s, size_t n, size_t **spans);

#endif
