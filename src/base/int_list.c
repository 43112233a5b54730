/* int_list.c — one parser for lists of whole numbers and ranges (see int_list.h). */
#include "base/int_list.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A growable array of ints. */
typedef struct {
    int *items;
    int n, cap;
} IntArray;

/* Append v; 0 or -1 (out of memory). */
static int int_array_push(IntArray *a, int v)
{
    if (a->n == a->cap) {
        int cap = a->cap ? 2 * a->cap : 16;
        int *grown = realloc(a->items, sizeof *grown * (size_t)cap);
        if (!grown) return -1;
        a->items = grown;
        a->cap = cap;
    }
    a->items[a->n++] = v;
    return 0;
}

/* 1 if v is among a's items. */
static int int_array_has(const IntArray *a, long v)
{
    for (int i = 0; i < a->n; i++)
        if (a->items[i] == v) return 1;
    return 0;
}

/* Record a fault of kind at the item text[start..start+len) with values v, w;
 * always returns -1. */
static int note_fault(IntListFault *fault, IntListFaultKind kind, int start, int len, long v,
                      long w)
{
    if (fault) {
        fault->kind = kind;
        fault->item_start = start;
        fault->item_len = len;
        fault->value = v;
        fault->other = w;
    }
    return -1;
}

/* The message for an item that is no number: rules->word in capitals. */
static int fail_not_a_number(const IntListRules *rules, const char *item, int item_len,
                             SrError *err)
{
    char word[64];
    size_t n = 0;
    for (const char *w = rules->word; *w && n + 1 < sizeof word; w++)
        word[n++] = (char)toupper((unsigned char)*w);
    word[n] = 0;
    return sr_fail(err, "expected %s%s or a comma list such as 0,1,2,4; got '%.*s'", word,
                   rules->allow_ranges ? ", A..B" : "", item_len, item);
}

/* Read one number at *p (advancing *p past it) within the item
 * text[item..item+item_len) for messages; 0 or -1 with fault and err filled. */
static int parse_one(const char *text, const char **p, int item, int item_len,
                     const IntListRules *rules, long *out, IntListFault *fault, SrError *err)
{
    const char *at = *p;
    char *end;
    errno = 0;
    long v = strtol(at, &end, 10);
    if (end == at || (!rules->allow_leading_space && isspace((unsigned char)*at))) {
        note_fault(fault, INT_LIST_NOT_A_NUMBER, item, item_len, 0, 0);
        return fail_not_a_number(rules, text + item, item_len, err);
    }
    if (v < rules->min_value) {
        note_fault(fault, INT_LIST_BELOW_MIN, item, item_len, v, 0);
        return sr_fail(err, "%s must be >= %ld, got %ld in '%.*s'", rules->word, rules->min_value,
                       v, item_len, text + item);
    }
    if (errno || v > rules->max_value) {
        note_fault(fault, INT_LIST_TOO_LARGE, item, item_len, v, 0);
        return sr_fail(err, "%s is too large in '%.*s'", rules->word, item_len, text + item);
    }
    *out = v;
    *p = end;
    return 0;
}

int int_list_parse(const char *text, const IntListRules *rules, int **values, int *n_values,
                   IntListFault *fault, SrError *err)
{
    *values = NULL;
    *n_values = 0;
    note_fault(fault, INT_LIST_OK, 0, 0, 0, 0);
    IntArray list = {0};
    const char *p = text;
    for (;;) {
        int item = (int)(p - text), item_len = (int)strcspn(p, ",");
        long a, b;
        if (parse_one(text, &p, item, item_len, rules, &a, fault, err)) goto fail;
        b = a;
        if (rules->allow_ranges && p[0] == '.' && p[1] == '.') {
            p += 2;
            if (parse_one(text, &p, item, item_len, rules, &b, fault, err)) goto fail;
            if (b < a) {
                note_fault(fault, INT_LIST_BACKWARDS, item, item_len, a, b);
                sr_fail(err, "'%.*s' is a backwards range; write %ld..%ld", item_len, text + item,
                        b, a);
                goto fail;
            }
        }
        if (*p != ',' && *p != 0) {
            note_fault(fault, INT_LIST_NOT_A_NUMBER, item, item_len, 0, 0);
            fail_not_a_number(rules, text + item, item_len, err);
            goto fail;
        }
        if (rules->max_values > 0 && b - a + 1 > rules->max_values - list.n) {
            note_fault(fault, INT_LIST_TOO_MANY, item, item_len, 0, 0);
            sr_fail(err, "more than %d values of %s", rules->max_values, rules->word);
            goto fail;
        }
        for (long v = a; v <= b; v++) {
            if (rules->refuse_duplicates && int_array_has(&list, v)) {
                note_fault(fault, INT_LIST_DUPLICATE, item, item_len, v, 0);
                sr_fail(err, "%ld appears twice in the list '%s'", v, text);
                goto fail;
            }
            if (int_array_push(&list, (int)v)) {
                note_fault(fault, INT_LIST_NO_MEMORY, item, item_len, 0, 0);
                sr_fail(err, "out of memory");
                goto fail;
            }
        }
        if (*p == 0) break;
        p++;
    }
    *values = list.items;
    *n_values = list.n;
    return 0;
fail:
    free(list.items);
    return -1;
}
