/* repo_tasks.h — generated retrieval tasks for the RePo experiments.
 *
 * Every example is one token sequence that opens with <bos>, holds a context
 * (the evidence among distractors) and ends with a query; the model must
 * predict the answer as the next token after the query's last token. All
 * tokens come from a fixed task vocabulary (below), so each word is one
 * token and the text round-trips through the word tokenizer.
 *
 *   kv      noisy key-value retrieval: n_pairs pairs "k12 = v7 ;" scattered
 *           among filler words, then "? k12 =" -> v7
 *               <bos> w3 k12 = v7 ; w9 w1 k40 = v2 ; w5 ... ? k12 =
 *   needle  needle in a haystack: ONE pair "k12 = v7 ;" at a chosen depth in
 *           a haystack of filler words and stray values (one token in four
 *           is a random value, so the answer is not the only value in
 *           sight), then "? k12 =" -> v7
 *   table   structured lookup in a flattened table: a header "| c0 c1 c2 ;"
 *           and n_rows rows "r5 | v3 v8 v1 ;" (cells in header order), filler
 *           before and after the table, then "? r5 c1 =" -> v8
 *
 * Length and depth. `length` is the whole sequence in tokens (<bos>, context
 * and the queries). `depth` places the evidence of the first query (its pair,
 * or its table row) in the context: the evidence starts at context offset
 * round(depth * (context - evidence)), or as close to it as the task allows;
 * depth < 0 draws it at random. The depth actually used is reported.
 *
 * Several queries. With n_queries > 1 (training) the first query is followed
 * by its answer and the next query, "... ? k12 = v7 ? k40 =", each answer
 * being a target; the first query is the one evaluated, and with
 * n_queries = 1 (evaluation) the sequence ends right after it.
 *
 * Determinism. Example `index` of a spec and seed is a pure function of the
 * three (its own random stream), so any subset of examples can be made in
 * any order, in any batch, on any machine. */
#ifndef SEQREP_REPO_TASKS_H
#define SEQREP_REPO_TASKS_H

#include <stdint.h>
#include <stdio.h>

#include "base/status.h"
#include "text/tokenizer.h"

typedef enum {
    REPO_TASK_KV = 0,      /* noisy key-value retrieval */
    REPO_TASK_NEEDLE = 1,  /* one pair in a haystack    */
    REPO_TASK_TABLE = 2    /* flattened table lookup    */
} RepoTaskKind;

/* ---- the task vocabulary ------------------------------------------------- */

/* Ids 0..5 are the tokenizer's specials; then the markers, then families of
 * numbered words: keys k0.., values v0.., row names r0.., column names c0..
 * and filler words w0... */
enum {
    REPO_TOK_EQ = TOK_N_SPECIAL,   /* "=" */
    REPO_TOK_SEMI,                 /* ";" */
    REPO_TOK_QUERY,                /* "?" */
    REPO_TOK_BAR,                  /* "|" */
    REPO_N_KEYS = 64,
    REPO_N_VALUES = 64,
    REPO_N_ROWS = 32,
    REPO_N_COLS = 8,
    REPO_N_FILLER = 64,
    REPO_KEY0 = REPO_TOK_BAR + 1,
    REPO_VALUE0 = REPO_KEY0 + REPO_N_KEYS,
    REPO_ROW0 = REPO_VALUE0 + REPO_N_VALUES,
    REPO_COL0 = REPO_ROW0 + REPO_N_ROWS,
    REPO_FILLER0 = REPO_COL0 + REPO_N_COLS,
    REPO_VOCAB_SIZE = REPO_FILLER0 + REPO_N_FILLER
};

/* The longest sequence a task makes (attention memory grows as length^2). */
#define REPO_TASK_MAX_LENGTH 4096

/* Spelling of task token id (0 .. REPO_VOCAB_SIZE-1) into buf ("k12", "=",
 * "<bos>"); "?" for an id outside the vocabulary. */
void repo_task_word(int id, char *buf, size_t cap);

/* A word tokenizer whose ids are exactly the task ids. */
int repo_task_tokenizer(Tokenizer *tok, SrError *err);

/* ---- a task ------------------------------------------------------------------- */

typedef struct {
    RepoTaskKind kind;
    int length;      /* tokens of the whole sequence, <bos> included */
    double depth;    /* 0 .. 1: where the first query's evidence sits; < 0 random */
    int n_pairs;     /* kv: key-value pairs (1 .. REPO_N_KEYS); needle: always 1 */
    int n_rows;      /* table: rows (1 .. REPO_N_ROWS) */
    int n_cols;      /* table: columns (1 .. REPO_N_COLS) */
    int n_queries;   /* queries at the end (kv: <= n_pairs; needle: 1) */
} RepoTaskSpec;

/* A spec with the defaults: 4 pairs, 3 rows x 3 columns, 1 query, random depth. */
RepoTaskSpec repo_task_defaults(RepoTaskKind kind, int length);

/* Parse "kv" | "needle" | "table"; 0 or -1. */
int repo_task_parse(const char *text, RepoTaskKind *out);
const char *repo_task_name(RepoTaskKind kind);

/* Tokens the spec needs at the least (the shortest valid length). */
int repo_task_min_length(const RepoTaskSpec *s);

/* Check a spec: counts within the vocabulary, depth <= 1, length between
 * repo_task_min_length and REPO_TASK_MAX_LENGTH. The message says which
 * field is wrong and what would fit ("kv length 20 is too short for 8 pairs
 * and 1 query: at least 36 tokens"). */
int repo_task_check(const RepoTaskSpec *s, SrError *err);

/* Where the evidence and answer of an example are. */
typedef struct {
    int answer_pos;      /* the first query's last token: the answer is predicted here */
    int answer;          /* task id of the first answer */
    int evidence_start;  /* sequence index of the first query's pair / table row */
    int evidence_len;    /* its tokens (4 for a pair, n_cols + 3 for a row) */
    int context_start;   /* 1: the context follows <bos> */
    int context_len;     /* tokens of context before the first query */
    double depth;        /* (evidence_start - context_start) / (context_len - evidence_len) */
    int n_targets;       /* positions with a target (n_queries) */
} RepoExample;

/* Example `index` of spec s (checked) and seed: ids (length) get the
 * sequence, targets (length) the answer id at each query's last token and
 * -1 elsewhere, info (may be NULL) where things are. */
void repo_task_example(const RepoTaskSpec *s, uint64_t seed, long index, int *ids, int *targets,
                       RepoExample *info);

/* Write ids[0..n) as words separated by single spaces (no newline). */
void repo_task_write_words(FILE *out, const int *ids, int n);

/* Map every task id to the id of the same word in tok (TOK_UNK when tok does
 * not have it): map (REPO_VOCAB_SIZE). Returns the number of task words tok
 * lacks (specials are always present). */
int repo_task_map_vocab(const Tokenizer *tok, int *map);

#endif
