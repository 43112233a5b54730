/* json_scan.h — reading JSON text in place, one value at a time, without
 * building a tree of nodes: for the large arrays and objects of a file (a
 * tokenizer.json's vocabulary of 262,144 entries and its 514,906 merges),
 * where allocating a node per value costs far more than reading them.
 *
 * The grammar is RFC 8259's, checked as far as the scanner reads: a value
 * skipped with json_skip is checked whole (strings, escapes, numbers,
 * literals, nesting up to JSON_MAX_DEPTH); strings are decoded with their
 * escapes (\uXXXX surrogate pairs joined; a lone surrogate or an unescaped
 * control character is an error). The text itself is taken to be valid UTF-8
 * (utf8_valid_prefix checks that first). On an error the scanner stands where
 * the text went wrong (JsonScan.pos) and the call returns -1. */
#ifndef SEQREP_JSON_SCAN_H
#define SEQREP_JSON_SCAN_H

#include <stddef.h>

/* Objects and arrays nested deeper than this are an error. */
#define JSON_MAX_DEPTH 512

typedef struct {
    const char *s; /* the text (not owned) */
    size_t n;      /* its length */
    size_t pos;    /* where the scanner stands */
} JsonScan;

/* A growing string buffer for decoded strings (s NUL-terminated, len bytes;
 * caller frees s). Start it zeroed. */
typedef struct {
    char *s;
    size_t len, cap;
} JsonBuf;

/* Append s[0..k) to b, keeping it NUL-terminated. 0, or -1 when out of
 * memory. */
int json_buf_put(JsonBuf *b, const char *s, size_t k);

/* Stand at the start of s[0..n). */
void json_scan_init(JsonScan *j, const char *s, size_t n);

/* Skip white space; the next byte, or -1 at the end of the text. */
int json_peek(JsonScan *j);

/* Skip one value of any kind, checking it. 0, or -1 on bad JSON. */
int json_skip(JsonScan *j);

/* Step into the object ('{') or array ('[') that comes next: 0, or -1 when
 * the next value is something else. */
int json_enter(JsonScan *j, char open);

/* The next member of the object entered: 1 with its key decoded into *key
 * (key NULL: only checked) and the scanner at the value (which the caller
 * reads or skips), 0 after the closing '}', -1 on bad JSON. *count is the
 * members seen so far (start at 0; the call counts). */
int json_next_member(JsonScan *j, long *count, JsonBuf *key);

/* The next element of the array entered: 1 with the scanner at it, 0 after
 * the closing ']', -1 on bad JSON. *count as for json_next_member. */
int json_next_item(JsonScan *j, long *count);

/* A string value decoded into *b (its old content replaced; b NULL: only
 * checked). 0, or -1 when the next value is not a well-formed string (or
 * out of memory). */
int json_string(JsonScan *j, JsonBuf *b);

/* A number value that is an integer (no fraction, no exponent) within
 * [lo, hi] into *v. 0, or -1 otherwise (the scanner then stands at it). */
int json_integer(JsonScan *j, long lo, long hi, long *v);

#endif
