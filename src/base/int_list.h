/* int_list.h — reading a list of whole numbers written on a command line:
 * "5", "0,1,2,4", and where allowed ranges such as "0..4" or "0..2,8".
 *
 * The rules say what a list may hold (the least and greatest value, ranges
 * or not, repeats or not, how many values) and the word that names a value
 * in messages. Failures fill an SrError with one line and, when asked, an
 * IntListFault that says what was wrong and where, so a caller that words
 * its messages its own way can do so. */
#ifndef SEQREP_INT_LIST_H
#define SEQREP_INT_LIST_H

#include "base/status.h"

typedef struct {
    const char *word;         /* names one value in messages: "r", "seed" */
    long min_value;           /* every value >= min_value ... */
    long max_value;           /* ... and <= max_value (at most INT_MAX) */
    int allow_ranges;         /* 1: "A..B" stands for A, A+1, ..., B */
    int refuse_duplicates;    /* 1: a value given twice is an error */
    int max_values;           /* the most values the list may hold; 0 = no limit
                                 (give one when ranges are allowed) */
    int allow_leading_space;  /* 1: blanks before a number are skipped */
} IntListRules;

typedef enum {
    INT_LIST_OK,
    INT_LIST_NOT_A_NUMBER,  /* an item is no number, or a number followed by other text */
    INT_LIST_BELOW_MIN,     /* value < min_value */
    INT_LIST_TOO_LARGE,     /* value > max_value, or beyond a long */
    INT_LIST_BACKWARDS,     /* a range A..B with B < A */
    INT_LIST_TOO_MANY,      /* more than max_values values */
    INT_LIST_DUPLICATE,     /* value appears twice */
    INT_LIST_NO_MEMORY
} IntListFaultKind;

typedef struct {
    IntListFaultKind kind;
    int item_start, item_len;  /* the comma-separated item at fault: text[start..start+len) */
    long value;                /* the value at fault (BELOW_MIN, DUPLICATE; BACKWARDS: A) */
    long other;                /* BACKWARDS: B */
} IntListFault;

/* Parse text under rules into *values (a new array of *n_values ints, caller
 * frees; NULL and 0 on failure), in the order written, ranges expanded.
 * Messages (W is rules->word, ITEM the comma-separated item at fault):
 *   "expected W, A..B or a comma list such as 0,1,2,4; got 'ITEM'" (W in
 *        capitals; without ranges "expected W or a comma list such as 0,1,2,4")
 *   "W must be >= MIN, got V in 'ITEM'"     "W is too large in 'ITEM'"
 *   "'ITEM' is a backwards range; write B..A"   "more than N values of W"
 *   "V appears twice in the list 'TEXT'"
 * fault may be NULL. */
int int_list_parse(const char *text, const IntListRules *rules, int **values, int *n_values,
                   IntListFault *fault, SrError *err);

#endif
