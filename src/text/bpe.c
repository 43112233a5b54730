/* bpe.c — learning byte-pair merges over the characters of a corpus's words
 * (the rules are in bpe.h). Strings (the corpus's words with their counts,
 * the pieces) are numbered in string tables (text/string_table.h); a hash
 * table here counts adjacent piece pairs. After each merge only the words
 * that contain the merged pair are re-counted. */
#include "text/bpe.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "text/string_table.h"
#include "text/words.h"

/* ---- pair counts ----------------------------------------------------------------- */

/* Count of each adjacent pair (left id, right id), keyed by left << 32 | right.
 * Entries are never removed; a count may drop to 0. */
typedef struct {
    uint64_t *keys;   /* (n_slots) */
    long *counts;     /* (n_slots) */
    char *used;       /* (n_slots) 1 if the slot holds a key */
    int n_used, n_slots;
} PairTable;

/* Release the table. */
static void pairs_free(PairTable *p)
{
    free(p->keys);
    free(p->counts);
    free(p->used);
    memset(p, 0, sizeof *p);
}

/* Slot of key: the slot holding it, or the empty one where it goes. */
static int pairs_slot(const PairTable *p, uint64_t key)
{
    uint64_t h = key * 0x9E3779B97F4A7C15ULL;
    size_t mask = (size_t)p->n_slots - 1;
    size_t i = (size_t)(h >> 20) & mask;
    while (p->used[i] && p->keys[i] != key) i = (i + 1) & mask;
    return (int)i;
}

/* Double the table (or make the first one). 0 or -1 (memory). */
static int pairs_grow(PairTable *p)
{
    PairTable bigger = {0};
    bigger.n_slots = p->n_slots ? 2 * p->n_slots : 4096;
    bigger.keys = malloc((size_t)bigger.n_slots * sizeof *bigger.keys);
    bigger.counts = malloc((size_t)bigger.n_slots * sizeof *bigger.counts);
    bigger.used = calloc((size_t)bigger.n_slots, 1);
    if (!bigger.keys || !bigger.counts || !bigger.used) {
        pairs_free(&bigger);
        return -1;
    }
    for (int i = 0; i < p->n_slots; i++) {
        if (!p->used[i]) continue;
        int s = pairs_slot(&bigger, p->keys[i]);
        bigger.used[s] = 1;
        bigger.keys[s] = p->keys[i];
        bigger.counts[s] = p->counts[i];
        bigger.n_used++;
    }
    pairs_free(p);
    *p = bigger;
    return 0;
}

/* Add delta to the count of (left, right). 0 or -1 (memory). */
static int pairs_add(PairTable *p, int left, int right, long delta)
{
    if (2 * (p->n_used + 1) > p->n_slots && pairs_grow(p)) return -1;
    uint64_t key = (uint64_t)(uint32_t)left << 32 | (uint32_t)right;
    int s = pairs_slot(p, key);
    if (!p->used[s]) {
        p->used[s] = 1;
        p->keys[s] = key;
        p->counts[s] = 0;
        p->n_used++;
    }
    p->counts[s] += delta;
    return 0;
}

/* ---- the words of the corpus ------------------------------------------------------- */

/* One distinct word: how often it occurs and its current pieces. */
typedef struct {
    long count;
    int *pieces;  /* (n_pieces) piece ids */
    int n_pieces;
} Word;

/* Add the counts of every adjacent pair of w, times sign (+1 or -1). */
static int add_word_pairs(PairTable *p, const Word *w, int sign)
{
    for (int i = 0; i + 1 < w->n_pieces; i++)
        if (pairs_add(p, w->pieces[i], w->pieces[i + 1], sign * w->count)) return -1;
    return 0;
}

/* 1 if w has the adjacent pair (left, right). */
static int word_has_pair(const Word *w, int left, int right)
{
    for (int i = 0; i + 1 < w->n_pieces; i++)
        if (w->pieces[i] == left && w->pieces[i + 1] == right) return 1;
    return 0;
}

/* Replace every (left, right) in w, scanning left to right, by merged. */
static void merge_in_word(Word *w, int left, int right, int merged)
{
    int out = 0;
    for (int i = 0; i < w->n_pieces; i++) {
        if (i + 1 < w->n_pieces && w->pieces[i] == left && w->pieces[i + 1] == right) {
            w->pieces[out++] = merged;
            i++;
        } else {
            w->pieces[out++] = w->pieces[i];
        }
    }
    w->n_pieces = out;
}

/* Length of the character starting at s[0..n): the length its lead byte
 * announces when that many continuation bytes (10xxxxxx) follow, otherwise 1
 * (a stray byte is a character of its own). This cuts characters; it does
 * not check them (an overlong form passes as one character): whether text
 * is well-formed is base/utf8.h's to say. */
static size_t char_length(const unsigned char *s, size_t n)
{
    size_t len = s[0] < 0x80 ? 1 : s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 1;
    if (len > n) return 1;
    for (size_t k = 1; k < len; k++)
        if ((s[k] & 0xC0) != 0x80) return 1;
    return len;
}

/* 1 for an ASCII punctuation byte, which the splitting always makes a
 * one-character token of its own. */
static int is_punct_char(unsigned char c)
{
    return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
           (c >= 0x7B && c <= 0x7E);
}

/* Intern the character c[0..len) as a piece, as a continuation ("##c") if
 * continuation is 1. Returns its id or -1 (memory). */
static int intern_char(StringTable *pieces, const char *c, size_t len, int continuation)
{
    char buf[8];
    size_t k = 0;
    if (continuation) {
        memcpy(buf, BPE_CONTINUATION, 2);
        k = 2;
    }
    memcpy(buf + k, c, len);
    return string_table_add(pieces, buf, k + len);
}

/* Spell word s[0..n) as character pieces (first plain, the rest "##"),
 * interning them in pieces; fills w->pieces. Every character of a word (not
 * punctuation, which never continues a word) is interned in BOTH forms, so
 * any word spelled with known characters can be cut into pieces wherever
 * they stand. 0 or -1 (memory). */
static int spell_word(StringTable *pieces, const char *s, size_t n, Word *w)
{
    w->pieces = malloc((n > 0 ? n : 1) * sizeof *w->pieces);
    if (!w->pieces) return -1;
    w->n_pieces = 0;
    size_t i = 0;
    while (i < n) {
        size_t len = char_length((const unsigned char *)s + i, n - i);
        int id = intern_char(pieces, s + i, len, i > 0);
        int other = (len == 1 && is_punct_char((unsigned char)s[i]))
                        ? 0 : intern_char(pieces, s + i, len, i == 0);
        if (id < 0 || other < 0) return -1;
        w->pieces[w->n_pieces++] = id;
        i += len;
    }
    return 0;
}

/* ---- learning ---------------------------------------------------------------------- */

/* The learner's working state. */
typedef struct {
    StringTable words;   /* distinct (folded) tokens of the corpus, with their counts */
    Word *spelled;       /* (words.n) */
    StringTable pieces;  /* every piece: characters first, then merges */
    PairTable pairs;
    char *joined;        /* (joined_cap) the text of the piece being made */
    size_t joined_cap;
} Learner;

/* Release everything the learner holds. */
static void learner_free(Learner *l)
{
    for (int i = 0; i < l->words.n && l->spelled; i++) free(l->spelled[i].pieces);
    free(l->spelled);
    free(l->joined);
    string_table_free(&l->words);
    string_table_free(&l->pieces);
    pairs_free(&l->pairs);
    memset(l, 0, sizeof *l);
}

/* The best pair to merge: highest count (at least 2), ties to the byte-wise
 * smallest left piece, then right piece. Returns 1 and fills *left, *right,
 * or 0 if no pair occurs twice. */
static int best_pair(const Learner *l, int *left, int *right)
{
    const PairTable *p = &l->pairs;
    long best = 2; /* a pair must occur at least twice */
    int found = 0;
    for (int i = 0; i < p->n_slots; i++) {
        if (!p->used[i] || p->counts[i] < best) continue;
        int a = (int)(p->keys[i] >> 32), b = (int)(p->keys[i] & 0xFFFFFFFFu);
        if (found && p->counts[i] == best) {
            int c = strcmp(l->pieces.strings[a], l->pieces.strings[*left]);
            if (c == 0) c = strcmp(l->pieces.strings[b], l->pieces.strings[*right]);
            if (c >= 0) continue;
        }
        best = p->counts[i];
        *left = a;
        *right = b;
        found = 1;
    }
    return found;
}

/* qsort order of strings: byte-wise. */
static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void bpe_tokens_free(char **tokens, int n_tokens)
{
    if (tokens)
        for (int i = 0; i < n_tokens; i++) free(tokens[i]);
    free(tokens);
}

/* Spell every word of l->words in characters (l->spelled) and count its
 * pairs. 0 or -1 (memory). */
static int spell_words(Learner *l)
{
    l->spelled = calloc((size_t)l->words.n, sizeof *l->spelled);
    if (!l->spelled) return -1;
    for (int i = 0; i < l->words.n; i++) {
        l->spelled[i].count = l->words.counts[i];
        if (spell_word(&l->pieces, l->words.strings[i], l->words.lens[i], &l->spelled[i]) ||
            add_word_pairs(&l->pairs, &l->spelled[i], +1))
            return -1;
    }
    return 0;
}

/* Merge the pair (left, right): intern the new piece, left's text followed
 * by right's without its "##", and rewrite every word that holds the pair,
 * re-counting its pairs. 0 or -1 (memory). */
static int merge_pair(Learner *l, int left, int right)
{
    size_t la = l->pieces.lens[left], lb = l->pieces.lens[right] - 2;
    if (la + lb > l->joined_cap) {
        size_t cap = 2 * (la + lb);
        char *bigger = realloc(l->joined, cap);
        if (!bigger) return -1;
        l->joined = bigger;
        l->joined_cap = cap;
    }
    memcpy(l->joined, l->pieces.strings[left], la);
    memcpy(l->joined + la, l->pieces.strings[right] + 2, lb);
    int merged = string_table_add(&l->pieces, l->joined, la + lb);
    if (merged < 0) return -1;
    for (int i = 0; i < l->words.n; i++) {
        Word *w = &l->spelled[i];
        if (!word_has_pair(w, left, right)) continue;
        if (add_word_pairs(&l->pairs, w, -1)) return -1;
        merge_in_word(w, left, right, merged);
        if (add_word_pairs(&l->pairs, w, +1)) return -1;
    }
    return 0;
}

/* The vocabulary (*out, n_out = TOK_N_SPECIAL + pieces): the specials, the
 * first n_alphabet pieces (the characters) sorted, then the learned pieces
 * in the order they were made. 0 or -1 (memory; *out, whole or partly
 * filled, is the caller's to free with bpe_tokens_free). */
static int vocabulary_of(const Learner *l, int n_alphabet, char ***out, int *n_out)
{
    *n_out = TOK_N_SPECIAL + l->pieces.n;
    *out = calloc((size_t)*n_out, sizeof **out);
    if (!*out) {
        *n_out = 0;
        return -1;
    }
    char **v = *out;
    for (int i = 0; i < TOK_N_SPECIAL; i++) v[i] = strdup(tokenizer_special_name(i));
    for (int i = 0; i < l->pieces.n; i++) v[TOK_N_SPECIAL + i] = strdup(l->pieces.strings[i]);
    for (int i = 0; i < *n_out; i++)
        if (!v[i]) return -1;
    qsort(v + TOK_N_SPECIAL, (size_t)n_alphabet, sizeof *v, compare_strings);
    return 0;
}

int bpe_learn(const char *text, size_t len, const char *source, int vocab_size, int lowercase,
              char ***tokens, int *n_tokens, int *n_merges, SrError *err)
{
    *tokens = NULL;
    *n_tokens = 0;
    if (n_merges) *n_merges = 0;
    if (!source) source = "text";
    Learner l = {0};
    char **out = NULL;
    int n_out = 0;

    long total;
    if (string_table_add_tokens(&l.words, text, len, lowercase, &total)) goto out_of_memory;
    if (total == 0) {
        learner_free(&l);
        return sr_fail(err, "%s: empty corpus (no tokens)", source);
    }
    if (spell_words(&l)) goto out_of_memory;
    int n_alphabet = l.pieces.n;
    if (vocab_size < TOK_N_SPECIAL + n_alphabet) {
        learner_free(&l);
        return sr_fail(err, "%s: vocabulary size %d cannot hold the %d special tokens and the %d "
                       "character pieces of the corpus (need at least %d)", source, vocab_size,
                       TOK_N_SPECIAL, n_alphabet, TOK_N_SPECIAL + n_alphabet);
    }
    int merges = 0, left = 0, right = 0;
    while (TOK_N_SPECIAL + l.pieces.n < vocab_size && best_pair(&l, &left, &right)) {
        if (merge_pair(&l, left, right)) goto out_of_memory;
        merges++;
    }
    if (vocabulary_of(&l, n_alphabet, &out, &n_out)) goto out_of_memory;
    learner_free(&l);
    *tokens = out;
    *n_tokens = n_out;
    if (n_merges) *n_merges = merges;
    return 0;

out_of_memory:
    bpe_tokens_free(out, n_out);
    learner_free(&l);
    return sr_fail(err, "%s: out of memory", source);
}
