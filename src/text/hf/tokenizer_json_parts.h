/* tokenizer_json_parts.h — the parts of a loaded tokenizer.json (internal
 * to src/text/hf/; users see tokenizer_json.h). hf_load.c fills them from
 * JSON (hf_vocab.c the vocabulary and merges), hf_encode.c and hf_decode.c
 * run them, hf_table.c holds the tables. */
#ifndef SEQREP_TOKENIZER_JSON_PARTS_H
#define SEQREP_TOKENIZER_JSON_PARTS_H

#include <stddef.h>

#include "text/hf/hf_cut.h"
#include "text/hf/tokenizer_json.h"

/* A string -> id table (open addressing over borrowed spellings). */
typedef struct {
    int *slots;   /* (n_slots) ids, -1 = empty */
    int n_slots;  /* power of two, at least twice the entries */
} HfTable;

/* A pair of ids -> (rank, merged id) table of the BPE merges. */
typedef struct {
    unsigned long long *keys; /* (n_slots) left << 32 | right, ~0 = empty */
    int *rank;                /* (n_slots) position in the merges list */
    int *merged;              /* (n_slots) id of left + right */
    int n_slots;
} HfMerges;

typedef struct {
    char *content; /* owned */
    size_t len;
    int id, special, lstrip, rstrip, single_word, normalized;
} HfAdded;

/* A byte trie of added tokens' contents (hf_trie.c): node k is reached by
 * byte[k] from its parent, whose first child or whose next sibling it is. */
typedef struct {
    int root[256];         /* the node each first byte leads to, -1 = none */
    int *child, *sibling;  /* (n) first child, next sibling, -1 = none */
    unsigned char *byte;   /* (n) */
    int *token;            /* (n) index in HfTokenizer.added of the token
                              spelled by the path to the node, -1 = none */
    int n, cap;
} HfTrie;

/* What a step of the normalizer (HF_NORM_*), pre-tokenizer (HF_PRE_*) or
 * decoder (HF_DEC_*) sequence does; the values differ across the three, so
 * a step's kind alone says which member of its union is in use. */
typedef enum {
    HF_NORM_NFC, HF_NORM_NFD, HF_NORM_NFKC, HF_NORM_NFKD, /* in this order (hf_encode.c) */
    HF_NORM_LOWER, HF_NORM_PREPEND, HF_NORM_REPLACE,
    HF_PRE_SPLIT, HF_PRE_BYTELEVEL, HF_PRE_METASPACE,
    HF_DEC_BYTELEVEL, HF_DEC_REPLACE, HF_DEC_BYTEFALLBACK, HF_DEC_FUSE, HF_DEC_STRIP,
    HF_DEC_METASPACE
} HfStepKind;

/* Metaspace's prepend_scheme: where the replacement goes before a piece. */
enum { HF_PREPEND_ALWAYS, HF_PREPEND_FIRST, HF_PREPEND_NEVER };

/* One step of the normalizer, pre-tokenizer or decoder sequence: its kind
 * and that kind's settings (strings owned; all zero for kinds without
 * settings: NFC..NFKD, Lowercase, ByteFallback, Fuse, decoder ByteLevel). */
typedef struct {
    HfStepKind kind;
    union {
        struct {
            char *text;
        } prepend;                       /* HF_NORM_PREPEND: put text first */
        struct {
            char *pattern, *content;
        } replace;                       /* HF_NORM_REPLACE, HF_DEC_REPLACE: every
                                            pattern becomes content */
        struct {
            int add_prefix_space, use_regex;
        } byte_level;                    /* HF_PRE_BYTELEVEL */
        struct {
            char *replacement;           /* stands for a space (U+2581) */
            int prepend_scheme;          /* HF_PREPEND_* */
            int split;                   /* pre-tokenizer: split before each replacement */
        } metaspace;                     /* HF_PRE_METASPACE, HF_DEC_METASPACE */
        struct {
            char *content;
            int start, stop;             /* copies taken off the front and the back */
        } strip;                         /* HF_DEC_STRIP */
    };
    HfCut cut; /* HF_PRE_SPLIT's pattern and behavior, or HF_PRE_BYTELEVEL's
                  GPT-2 pattern (Isolated) when use_regex */
} HfStep;

struct HfTokenizer {
    char *path;            /* the tokenizer.json read, for messages */
    int n_ids;             /* one more than the largest id */
    const char **text;     /* (n_ids) spellings, NULL = no token: into
                              spellings, or an added token's content */
    size_t *text_len;      /* (n_ids) */
    char *spellings;       /* the vocabulary's spellings, one block (hf_vocab.c) */
    unsigned char *is_special; /* (n_ids) */
    HfTable vocab;         /* model vocabulary: spelling -> id */
    HfMerges merges;
    HfAdded *added;        /* (n_added) */
    int n_added;
    HfTrie added_trie[2];  /* the added tokens matched on the raw text [0]
                              and on the normalized text [1] */
    int unk_id;            /* -1: none */
    int fuse_unk, byte_fallback, ignore_merges;
    int byte_ids[256];     /* id of "<0xNN>", -1 if missing (byte fallback) */
    HfStep *norm, *pre, *dec;
    int n_norm, n_pre, n_dec;
    int *prefix, *suffix;  /* ids put first / last with specials */
    int n_prefix, n_suffix;
    int words_take_space;  /* see hf_words_take_space */
    int named[HF_N_NAMED]; /* tokenizer_config.json's eos/sep/pad_token ids, -1 = none */
};

/* The code point that byte b (0..255) stands for in byte-level BPE (GPT-2's
 * bytes_to_unicode: printable bytes are themselves, the other 68 follow
 * U+0100 in byte order). */
static inline int hf_byte_char(int b)
{
    if (b <= 32) return 256 + b;
    if (b >= 127 && b <= 160) return 162 + b;
    if (b == 173) return 323;
    return b;
}

/* The byte that code point c stands for in byte-level BPE, or -1. */
static inline int hf_char_byte(int c)
{
    if (c >= 256 && c <= 288) return c - 256;
    if (c >= 289 && c <= 322) return c - 162;
    if (c == 323) return 173;
    if ((c >= 33 && c <= 126) || (c >= 161 && c <= 255 && c != 173)) return c;
    return -1;
}

/* ---- hf_table.c ------------------------------------------------------------ */

/* Build the table of t->text for ids [0, t->n_ids) whose `use` byte is 1
 * (use may be NULL: all). Returns 0, -1 when out of memory. */
int hf_table_build(HfTable *tab, const HfTokenizer *t, const unsigned char *use);

/* Id of s[0..n) in the table, or -1. */
int hf_table_find(const HfTable *tab, const HfTokenizer *t, const char *s, size_t n);

void hf_table_free(HfTable *tab);

/* Room for n merges. Returns 0, -1 when out of memory. */
int hf_merges_init(HfMerges *m, int n);

/* Add a merge (left, right) -> merged of this rank; a pair seen before takes
 * the later rank, as in the Hugging Face library (a map built in order). */
void hf_merges_add(HfMerges *m, int left, int right, int rank, int merged);

/* Rank of the merge (left, right) and *merged its id, or -1 when none. */
int hf_merges_find(const HfMerges *m, int left, int right, int *merged);

void hf_merges_free(HfMerges *m);

/* ---- hf_bpe.c -------------------------------------------------------------- */

/* Merge the symbols (ids) sym[0..m) of one word as BPE does: the pair of the
 * lowest rank first, the leftmost of equals, until no pair has a merge.
 * Returns the new number of symbols (sym[0..) rewritten), or -1 when out of
 * memory. */
long hf_bpe_merge(const HfMerges *merges, int *sym, long m);

/* ---- hf_trie.c ------------------------------------------------------------- */

/* Build the trie of the added tokens whose `normalized` flag is normalized
 * (of two with the same content, the first stays). 0, or -1 when out of
 * memory. */
int hf_trie_build(HfTrie *trie, const HfTokenizer *t, int normalized);

/* The node that byte b leads to from node (-1: from the root), or -1. */
int hf_trie_next(const HfTrie *trie, int node, unsigned char b);

/* Index in t->added of the token of the trie spelled exactly s[0..n), or -1. */
int hf_trie_find(const HfTrie *trie, const char *s, size_t n);

void hf_trie_free(HfTrie *trie);

#endif
