/* string_table.h — distinct strings numbered 0..n-1 in the order they were
 * first added, each with how often it was added, found through an
 * open-addressing hash table (FNV-1a, at most half full). The word
 * vocabulary counts a corpus's tokens in one (tokenizer.c); the byte-pair
 * learner counts the corpus's words and numbers its pieces in two (bpe.c). */
#ifndef SEQREP_STRING_TABLE_H
#define SEQREP_STRING_TABLE_H

#include <stddef.h>

typedef struct {
    char **strings;  /* (n) owned, NUL-terminated */
    size_t *lens;    /* (n) */
    long *counts;    /* (n) times each was added */
    int n, cap;
    int *slots;      /* (n_slots) ids, -1 = empty */
    int n_slots;
} StringTable;

/* Add s[0..n) once more: its id (a new one, n - 1, when it was not there),
 * its count raised by one; -1 when out of memory. */
int string_table_add(StringTable *t, const char *s, size_t n);

/* Add every token of text[0..len) (text/words.h), with ASCII letters folded
 * to lower case when lowercase is 1; *n_tokens gets how many there were.
 * 0 or -1 (out of memory). */
int string_table_add_tokens(StringTable *t, const char *text, size_t len, int lowercase,
                            long *n_tokens);

/* Release the table; *t becomes empty. */
void string_table_free(StringTable *t);

#endif
