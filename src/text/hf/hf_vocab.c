/* hf_vocab.c — model.vocab and model.merges read in place from the text of a
 * tokenizer.json (hf_vocab.h). */
#include "text/hf/hf_vocab.h"

#include <stdlib.h>
#include <string.h>

#include "text/hf/json_scan.h"

/* The vocabulary's entries as read: id and where the spelling lies in the
 * block of all spellings (each NUL-terminated). */
typedef struct {
    int *id;
    size_t *at, *len;
    long n, cap;
} Entries;

/* Append one entry. 0, or -1 when out of memory. */
static int entries_push(Entries *e, int id, size_t at, size_t len)
{
    if (e->n == e->cap) {
        long cap = e->cap ? 2 * e->cap : 1024;
        int *ids = realloc(e->id, sizeof *ids * (size_t)cap);
        if (ids) e->id = ids;
        size_t *ats = ids ? realloc(e->at, sizeof *ats * (size_t)cap) : NULL;
        if (ats) e->at = ats;
        size_t *lens = ats ? realloc(e->len, sizeof *lens * (size_t)cap) : NULL;
        if (!lens) return -1;
        e->len = lens, e->cap = cap;
    }
    e->id[e->n] = id, e->at[e->n] = at, e->len[e->n++] = len;
    return 0;
}

/* Room for n ids: text, text_len, is_special (zeroed). 0 or -1. */
static int reserve_ids(HfTokenizer *t, int n)
{
    t->text = calloc((size_t)n, sizeof *t->text);
    t->text_len = calloc((size_t)n, sizeof *t->text_len);
    t->is_special = calloc((size_t)n, 1);
    t->n_ids = n;
    return t->text && t->text_len && t->is_special ? 0 : -1;
}

/* Every member of the vocabulary object at j into *e, its spellings into
 * *all; *max_id raised to the largest id. 0 or -1 (err filled). */
static int read_entries(HfTokenizer *t, JsonScan *j, Entries *e, JsonBuf *all, int *max_id,
                        SrError *err)
{
    JsonBuf key = {0};
    long count = 0, id;
    int r;
    while ((r = json_next_member(j, &count, &key)) == 1) {
        if (json_integer(j, 0, HF_MAX_IDS - 1, &id)) {
            sr_fail(err, "%s: model.vocab['%s'] is not an id (0..%d)", t->path, key.s, HF_MAX_IDS - 1);
            break;
        }
        size_t at = all->len;
        if (json_buf_put(all, key.s, key.len + 1) || entries_push(e, (int)id, at, key.len)) {
            sr_fail(err, "%s: out of memory", t->path);
            break;
        }
        if (id > *max_id) *max_id = (int)id;
    }
    free(key.s);
    if (r < 0) sr_fail(err, "%s: model.vocab: not valid JSON (at byte %zu)", t->path, j->pos);
    return r == 0 ? 0 : -1; /* r == 1: a break above, err filled */
}

int hf_vocab_read(HfTokenizer *t, const char *text, size_t n, size_t at, int max_other_id,
                  SrError *err)
{
    JsonScan j;
    json_scan_init(&j, text, n);
    j.pos = at;
    if (at == 0 || json_enter(&j, '{')) return sr_fail(err, "%s: model.vocab is missing or not an object", t->path);
    Entries e = {0};
    JsonBuf all = {0};
    int max_id = max_other_id, rc = -1;
    if (read_entries(t, &j, &e, &all, &max_id, err)) goto done;
    if (max_id < 0) {
        sr_fail(err, "%s: model.vocab and added_tokens are empty", t->path);
        goto done;
    }
    unsigned char *in_vocab = NULL;
    if (reserve_ids(t, max_id + 1) || !(in_vocab = calloc((size_t)t->n_ids, 1))) {
        sr_fail(err, "%s: out of memory", t->path);
        goto done;
    }
    t->spellings = all.s; /* the tokenizer owns the block from here */
    all.s = NULL;
    for (long i = 0; i < e.n; i++) {
        if (t->text[e.id[i]]) continue; /* an id given twice keeps its first spelling */
        t->text[e.id[i]] = t->spellings + e.at[i];
        t->text_len[e.id[i]] = e.len[i];
        in_vocab[e.id[i]] = 1;
    }
    rc = hf_table_build(&t->vocab, t, in_vocab);
    if (rc) sr_fail(err, "%s: out of memory", t->path);
    free(in_vocab);
done:
    free(e.id), free(e.at), free(e.len), free(all.s);
    return rc;
}

/* The two sides of the merge at j, "a b" or ["a", "b"], decoded into *a and
 * *b. 0, or -1 when it is neither (or out of memory). */
static int merge_sides(JsonScan *j, JsonBuf *a, JsonBuf *b)
{
    if (json_peek(j) == '"') {
        if (json_string(j, a)) return -1;
        char *sp = memchr(a->s, ' ', a->len);
        if (!sp || memchr(sp + 1, ' ', a->len - (size_t)(sp + 1 - a->s))) return -1;
        b->len = 0;
        if (json_buf_put(b, sp + 1, a->len - (size_t)(sp + 1 - a->s))) return -1;
        a->len = (size_t)(sp - a->s);
        a->s[a->len] = '\0';
        return 0;
    }
    long count = 0;
    if (json_enter(j, '[') || json_next_item(j, &count) != 1 || json_string(j, a) ||
        json_next_item(j, &count) != 1 || json_string(j, b))
        return -1;
    return json_next_item(j, &count) == 0 ? 0 : -1;
}

/* The number of items of the array at j (left where it was), or -1 when it
 * is not a well-formed array. */
static long count_items(JsonScan j)
{
    long count = 0;
    int r;
    if (json_enter(&j, '[')) return -1;
    while ((r = json_next_item(&j, &count)) == 1)
        if (json_skip(&j)) return -1;
    return r == 0 ? count : -1;
}

/* Merge `rank` with sides a and b into t->merges: both sides and their
 * join (built in *ab) must be vocabulary entries. 0 or -1 (err filled). */
static int add_merge(HfTokenizer *t, const JsonBuf *a, const JsonBuf *b, JsonBuf *ab, int rank,
                     SrError *err)
{
    ab->len = 0;
    if (json_buf_put(ab, a->s, a->len) || json_buf_put(ab, b->s, b->len))
        return sr_fail(err, "%s: out of memory", t->path);
    int ia = hf_table_find(&t->vocab, t, a->s, a->len), ib = hf_table_find(&t->vocab, t, b->s, b->len);
    int iab = hf_table_find(&t->vocab, t, ab->s, ab->len);
    if (ia < 0 || ib < 0 || iab < 0)
        return sr_fail(err, "%s: model.merges[%d]: '%s' is not in the vocabulary", t->path, rank,
                       ia < 0 ? a->s : ib < 0 ? b->s : ab->s);
    hf_merges_add(&t->merges, ia, ib, rank, iab);
    return 0;
}

int hf_merges_read(HfTokenizer *t, const char *text, size_t n, size_t at, SrError *err)
{
    JsonScan j;
    json_scan_init(&j, text, n);
    j.pos = at;
    long n_merges = at ? count_items(j) : -1;
    if (n_merges < 0 || n_merges > 0x7fffffff / 4)
        return sr_fail(err, "%s: model.merges is missing or not an array", t->path);
    if (hf_merges_init(&t->merges, (int)n_merges)) return sr_fail(err, "%s: out of memory", t->path);
    JsonBuf a = {0}, b = {0}, ab = {0};
    long count = 0;
    int rc = 0;
    json_enter(&j, '[');
    while (rc == 0 && json_next_item(&j, &count) == 1) {
        int rank = (int)(count - 1);
        if (merge_sides(&j, &a, &b)) rc = sr_fail(err, "%s: model.merges[%d] is not \"a b\" or [a, b]", t->path, rank);
        else rc = add_merge(t, &a, &b, &ab, rank, err);
    }
    free(a.s), free(b.s), free(ab.s);
    return rc;
}
