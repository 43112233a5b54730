/* repeat.h — sequence repetition as an input transform.
 *
 * A sentence of n word tokens w_0 .. w_{n-1} is fed k = r + 1 times. The model
 * never learns that: it receives token ids and integer positions, and the
 * caller reads the hidden states of the rows this file points to.
 *
 * Layout of one repeated sentence (T tokens, positions 0 .. T-1 running on
 * across copies), for copy c = 0 .. k-1 in order:
 *
 *     [<sep> if c > 0 and sep == token]
 *     [<bos> if bos == per-copy, or if bos == once and c == 0]
 *     w_0 w_1 ... w_{n-1}
 *
 *   bos none:     w w w | w w w | w w w                      T = kn
 *   bos once:     B w w w | w w w | w w w                    T = kn + 1
 *   bos per-copy: B w w w | B w w w | B w w w                T = kn + k
 *   sep token:    w w w S w w w S w w w                      T = kn + (k-1)
 *   both:         B w w w S B w w w S B w w w                T = kn + k + (k-1)
 *
 * "per-copy" is what the paper's code does: it repeats the tokenized sentence
 * including the <bos> the tokenizer put in front of it. "once" is the
 * alternative of a single <bos> at the very start of the input.
 *
 * The specials carry the ids the caller gives (RepeatIds, from the
 * tokenizer's own specials: text/tokenizer.h tokenizer_specials);
 * repeat_build uses the house tokenizers' TOK_BOS and TOK_SEP (words.h).
 * Nothing here knows a tokenizer: the ids are plain inputs.
 *
 * Attribution of special tokens: <bos> and <sep> belong to NO copy. Their copy
 * index and word index are -1 and their kind says which special they are.
 * Every word token belongs to exactly one copy c (0-based) and has its word
 * index i in the sentence. Word tokens of one copy occupy consecutive rows. */
#ifndef SEQREP_REPEAT_H
#define SEQREP_REPEAT_H

#include <stdint.h>

#include "base/status.h"

typedef enum {
    REPEAT_BOS_NONE = 0,     /* no <bos> at all                         */
    REPEAT_BOS_ONCE = 1,     /* one <bos> at the very start             */
    REPEAT_BOS_PER_COPY = 2  /* a <bos> opening every copy (paper code) */
} RepeatBos;

typedef enum {
    REPEAT_SEP_NONE = 0,     /* copies follow each other directly       */
    REPEAT_SEP_TOKEN = 1     /* one <sep> between consecutive copies    */
} RepeatSep;

/* Positions of the copies: running on across copies (0 .. T-1, the paper),
 * restarting at 0 with every copy (copy c's <sep>, <bos> and words, in that
 * order, numbered 0, 1, 2, ...), or induction-aligned: the first copy as
 * running, every later copy's piece i at the first copy's position of piece
 * i + 1 (where an induction head looks), its <bos> and <sep> just before;
 * the last piece, with no piece n to align to, one past the first copy's
 * last (B w0 w1 w2 | B w0 w1 w2 is 0 1 2 3 | 1 2 3 4). The mask is the
 * same in every plan; only what RoPE rotates by changes. */
typedef enum {
    REPEAT_POSITIONS_RUN = 0,       /* 0 .. T-1 across the whole input (default)    */
    REPEAT_POSITIONS_RESTART = 1,   /* each copy from 0 again                       */
    REPEAT_POSITIONS_INDUCTION = 2  /* later copies' piece i where the first's i+1 is */
} RepeatPositions;

typedef enum {
    REPEAT_WORD = 0,         /* a token of the sentence */
    REPEAT_BOS = 1,          /* a <bos> token           */
    REPEAT_SEP = 2           /* a <sep> token           */
} RepeatTokenKind;

/* One repeated sentence. All arrays are owned; free with repeat_free. */
typedef struct {
    int n;            /* word tokens in the sentence           */
    int r;            /* repetitions; k = r + 1 copies          */
    int k;
    int T;            /* total tokens                           */
    RepeatBos bos;
    RepeatSep sep;
    int n_bos;        /* <bos> tokens: 0, 1 or k                */
    int n_sep;        /* <sep> tokens: 0 or k - 1               */
    int *ids;         /* (T) token ids; -1 for words when built without ids */
    int *positions;   /* (T) integer positions 0 .. T-1         */
    int *kind;        /* (T) RepeatTokenKind                    */
    int *copy;        /* (T) copy index 0 .. k-1, -1 for specials */
    int *word;        /* (T) word index 0 .. n-1, -1 for specials */
    int *copy_start;  /* (k) row of word 0 of copy c            */
    int *last_rows;   /* (n) row of word i in the last copy (the read-out rows) */
    int *first_rows;  /* (n) row of word i in the first copy (for contrast)    */
} RepeatLayout;

/* The ids put for <bos> and <sep>; -1 = the tokenizer has none (then a
 * layout that needs it is refused). */
typedef struct {
    int bos;
    int sep;
} RepeatIds;

/* TOK_BOS and TOK_SEP, the ids of the house word and BPE tokenizers. */
RepeatIds repeat_ids_house(void);

/* Total length T = k n + (special tokens) for n words and r repetitions, in
 * 64-bit so that absurd sizes can be refused instead of overflowing.
 * Returns -1 if n < 1 or r < 0. */
int64_t repeat_length(int64_t n, int64_t r, RepeatBos bos, RepeatSep sep);

/* Number of <bos> plus <sep> tokens for k copies: 0|1|k plus 0|k-1. */
int64_t repeat_n_special(int64_t k, RepeatBos bos, RepeatSep sep);

/* Build the layout for words (n ids; may be NULL when only the layout is
 * wanted, then word ids are -1) repeated k = r + 1 times, the specials with
 * the house ids (repeat_ids_house). Fails with a message
 * if n < 1, r < 0, or T would exceed max_T (pass 0 for no limit other than
 * INT_MAX). On failure out is left zeroed. */
int repeat_build(const int *words, int n, int r, RepeatBos bos, RepeatSep sep, int max_T,
                 RepeatLayout *out, SrError *err);

/* The same with the special ids of the caller's tokenizer. Fails, naming
 * the option, when bos puts a <bos> and ids.bos < 0 ("--bos per-copy: the
 * tokenizer has no BOS token; use --bos none") or sep is token and
 * ids.sep < 0. */
int repeat_build_ids(const int *words, int n, int r, RepeatBos bos, RepeatSep sep, RepeatIds ids,
                     int max_T, RepeatLayout *out, SrError *err);

/* 0 if ids has every special the layout bos / sep puts, else -1 with the
 * message of repeat_build_ids. */
int repeat_check_ids(RepeatBos bos, RepeatSep sep, RepeatIds ids, SrError *err);

void repeat_free(RepeatLayout *lay);

/* Renumber lay->positions so that every copy starts again at 0 (see
 * RepeatPositions); a layout of one copy is unchanged. */
void repeat_restart_positions(RepeatLayout *lay);

/* Renumber lay->positions induction-aligned (see RepeatPositions): copies
 * 1 .. k-1 put piece i at the first copy's position of piece i + 1; a
 * layout of one copy is unchanged. */
void repeat_induction_positions(RepeatLayout *lay);

/* Number lay's positions as plan says: run (as built, unchanged), restart
 * or induction. */
void repeat_apply_positions(RepeatLayout *lay, RepeatPositions plan);

/* Largest n such that the repeated input fits in max_seq_len tokens; 0 if not
 * even one word fits (or r < 0). */
int repeat_max_n(int max_seq_len, int r, RepeatBos bos, RepeatSep sep);

/* The most r values one list may hold. */
#define REPEAT_MAX_R_VALUES 1024

/* Parse a list of repetition counts: "R", an inclusive range "A..B" with
 * A <= B, or a comma list of those ("0,1,2,4", "0..4,8"). Every value must be
 * in 0 .. INT_MAX-1. On success *values is a malloc'd array (caller frees) of
 * *n_values entries in the order written. Errors name the offending item. */
int repeat_parse_r_list(const char *text, int **values, int *n_values, SrError *err);

/* Parse "none" | "once" | "per-copy" and "none" | "token". 0 or -1. */
int repeat_parse_bos(const char *text, RepeatBos *out);
int repeat_parse_sep(const char *text, RepeatSep *out);
/* Parse "run" | "restart" | "induction". 0 or -1. */
int repeat_parse_positions(const char *text, RepeatPositions *out);
/* Names for printing: the same words the parsers accept. */
const char *repeat_bos_name(RepeatBos bos);
const char *repeat_sep_name(RepeatSep sep);
const char *repeat_positions_name(RepeatPositions positions);

#endif
