/* nlupp.c — NLU++ folds (JSON, character spans) to IOB2 sentences over word
 * tokens, the paper's split, and CoNLL output. The rules are in nlupp.h. */
#include "data/nlupp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "base/text_file.h"
#include "base/utf8.h"
#include "data/conll.h"
#include "text/words.h"

static const int TRAIN_FOLDS[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 14, 17, 19};
static const int DEV_FOLDS[] = {11, 16};
static const int TEST_FOLDS[] = {10, 13, 15, 18};
static const char *const DOMAINS[] = {"banking", "hotels"};

const char *nlupp_split_name(int split)
{
    return split == NLUPP_TRAIN ? "train" : split == NLUPP_DEV ? "dev" : "test";
}

int nlupp_split_folds(int split, const int **folds)
{
    if (split == NLUPP_TRAIN) {
        *folds = TRAIN_FOLDS;
        return (int)(sizeof TRAIN_FOLDS / sizeof TRAIN_FOLDS[0]);
    }
    if (split == NLUPP_DEV) {
        *folds = DEV_FOLDS;
        return (int)(sizeof DEV_FOLDS / sizeof DEV_FOLDS[0]);
    }
    *folds = TEST_FOLDS;
    return (int)(sizeof TEST_FOLDS / sizeof TEST_FOLDS[0]);
}

/* ---- JSON files ------------------------------------------------------------------ */

/* Read and parse a JSON file. On a syntax error the message names the line
 * where the parser stopped. Returns the tree (caller deletes) or NULL. */
static cJSON *read_json(const char *path, SrError *err)
{
    char *text;
    size_t len;
    if (text_read_file(path, &text, &len, err)) return NULL;
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        int line = 1;
        if (at && at >= text && at <= text + len)
            for (const char *p = text; p < at; p++) line += *p == '\n';
        sr_fail(err, "%s:%d: invalid JSON", path, line);
    }
    free(text);
    return root;
}

int nlupp_read_ontology(const char *path, char ***names, int *n_names, SrError *err)
{
    *names = NULL;
    *n_names = 0;
    cJSON *root = read_json(path, err);
    if (!root) return -1;
    cJSON *slots = cJSON_GetObjectItemCaseSensitive(root, "slots");
    if (!cJSON_IsObject(slots)) {
        cJSON_Delete(root);
        return sr_fail(err, "%s: no \"slots\" object", path);
    }
    int n = cJSON_GetArraySize(slots);
    char **out = calloc((size_t)(n > 0 ? n : 1), sizeof *out);
    if (!out) {
        cJSON_Delete(root);
        return sr_fail(err, "%s: out of memory", path);
    }
    int k = 0;
    for (cJSON *s = slots->child; s; s = s->next) {
        out[k] = strdup(s->string ? s->string : "");
        if (!out[k]) {
            dataset_labels_free(out, k);
            cJSON_Delete(root);
            return sr_fail(err, "%s: out of memory", path);
        }
        k++;
    }
    cJSON_Delete(root);
    *names = out;
    *n_names = k;
    return 0;
}

/* ---- one example ------------------------------------------------------------------- */

/* One slot span over tokens, before overlaps are resolved. */
typedef struct {
    const char *name;
    int first, last;  /* token range, inclusive */
    int order;        /* position of the slot in the example's "slots" */
    int kept;         /* 1 once placed in the tags */
} TokenSpan;

/* qsort order for resolving overlaps: longer spans first, then earlier
 * start, then earlier in the file. */
static int compare_spans(const void *pa, const void *pb)
{
    const TokenSpan *a = pa, *b = pb;
    int la = a->last - a->first, lb = b->last - b->first;
    if (la != lb) return la > lb ? -1 : 1;
    if (a->first != b->first) return a->first < b->first ? -1 : 1;
    return a->order - b->order;
}

/* 1 if the span is an array of two integer numbers; fills *start, *end. */
static int read_span(const cJSON *span, double *start, double *end)
{
    if (!cJSON_IsArray(span) || cJSON_GetArraySize(span) != 2) return 0;
    const cJSON *a = cJSON_GetArrayItem(span, 0), *b = cJSON_GetArrayItem(span, 1);
    if (!cJSON_IsNumber(a) || !cJSON_IsNumber(b)) return 0;
    *start = a->valuedouble;
    *end = b->valuedouble;
    return floor(*start) == *start && floor(*end) == *end;
}

/* 1 if the slot name can be a tag type: not empty, no white space or control bytes. */
static int is_clean_name(const char *s)
{
    if (!*s) return 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p <= 0x20 || *p == 0x7F) return 0;
    return 1;
}

/* 1 if name is one of names[0..n) (or names is NULL). */
static int name_allowed(const char *name, char *const *names, int n)
{
    if (!names) return 1;
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0) return 1;
    return 0;
}

/* Buffers for one example, reused from example to example. */
typedef struct {
    size_t *tok_start, *tok_end;  /* (n_tokens) byte offsets */
    char **words;                 /* (n_tokens) */
    char **tags;                  /* (n_tokens) */
    size_t *byte_of_char;         /* (n_chars + 1) */
    TokenSpan *spans;
    int cap_tokens, cap_chars, cap_spans;
} Scratch;

/* Release the buffers. */
static void scratch_free(Scratch *s, int n_words)
{
    if (s->words)
        for (int i = 0; i < n_words; i++) free(s->words[i]);
    if (s->tags)
        for (int i = 0; i < n_words; i++) free(s->tags[i]);
    free(s->tok_start);
    free(s->tok_end);
    free(s->words);
    free(s->tags);
    free(s->byte_of_char);
    free(s->spans);
    memset(s, 0, sizeof *s);
}

/* Make room for n tokens, n_chars characters and n_spans spans. 0 or -1. */
static int scratch_reserve(Scratch *s, int n, int n_chars, int n_spans)
{
    if (n > s->cap_tokens) {
        int cap = 2 * n;
        size_t *a = realloc(s->tok_start, (size_t)cap * sizeof *a);
        if (!a) return -1;
        s->tok_start = a;
        size_t *b = realloc(s->tok_end, (size_t)cap * sizeof *b);
        if (!b) return -1;
        s->tok_end = b;
        char **w = realloc(s->words, (size_t)cap * sizeof *w);
        if (!w) return -1;
        s->words = w;
        char **t = realloc(s->tags, (size_t)cap * sizeof *t);
        if (!t) return -1;
        s->tags = t;
        for (int i = s->cap_tokens; i < cap; i++) s->words[i] = s->tags[i] = NULL;
        s->cap_tokens = cap;
    }
    if (n_chars + 1 > s->cap_chars) {
        int cap = 2 * (n_chars + 1);
        size_t *a = realloc(s->byte_of_char, (size_t)cap * sizeof *a);
        if (!a) return -1;
        s->byte_of_char = a;
        s->cap_chars = cap;
    }
    if (n_spans > s->cap_spans) {
        int cap = 2 * n_spans;
        TokenSpan *a = realloc(s->spans, (size_t)cap * sizeof *a);
        if (!a) return -1;
        s->spans = a;
        s->cap_spans = cap;
    }
    return 0;
}

/* Set tag i to prefix + name (e.g. "B-" "date"). 0 or -1 (memory). */
static int set_tag(Scratch *s, int i, const char *prefix, const char *name)
{
    size_t n = strlen(prefix) + strlen(name) + 1;
    char *tag = realloc(s->tags[i], n);
    if (!tag) return -1;
    snprintf(tag, n, "%s%s", prefix, name);
    s->tags[i] = tag;
    return 0;
}

/* 1 for the bytes text_next_token treats as white space. */
static int is_space_byte(unsigned char c)
{
    return c <= 0x20 || c == 0x7F;
}

/* What the steps of one example share: where it is (for messages), its
 * text, its characters and tokens (in the scratch buffers) and where its
 * counts and log lines go. */
typedef struct {
    const char *path;
    int index;            /* of the example in its file */
    const char *text;
    size_t len;           /* bytes of text */
    int n_chars, n_tokens;
    Scratch *s;
    NluppCounts *counts;
    FILE *log;            /* NULL: no lines */
} Example;

/* The example's "text" (checked to be UTF-8) and its "slots" object (NULL
 * when it has none) into e->text, e->len and *slots. 0 or -1. */
static int read_text_and_slots(Example *e, const cJSON *ex, const cJSON **slots, SrError *err)
{
    const cJSON *text_item = cJSON_GetObjectItemCaseSensitive(ex, "text");
    if (!cJSON_IsObject(ex) || !cJSON_IsString(text_item))
        return sr_fail(err, "%s: example %d: no \"text\" string", e->path, e->index);
    e->text = text_item->valuestring;
    e->len = strlen(e->text);
    /* cJSON passes any bytes through, but the CoNLL files written from the
     * examples must be UTF-8 for conll_read (found by fuzzing): refuse here,
     * where the example can be named */
    if (utf8_valid_prefix(e->text, e->len) < e->len)
        return sr_fail(err, "%s: example %d: \"text\" is not valid UTF-8", e->path, e->index);
    *slots = cJSON_GetObjectItemCaseSensitive(ex, "slots");
    if (*slots && !cJSON_IsObject(*slots))
        return sr_fail(err, "%s: example %d: \"slots\" is not an object", e->path, e->index);
    return 0;
}

/* Count the text's characters and tokens, make room for them and n_slots
 * spans, and fill s->byte_of_char (the byte offset of every code point, and
 * len after the last) and s->tok_start, s->tok_end. 0 or -1 (memory). */
static int index_text(Example *e, int n_slots, SrError *err)
{
    const char *text = e->text;
    size_t len = e->len, pos, start, n;
    Scratch *s = e->s;
    e->n_chars = 0; /* bytes other than 10xxxxxx start a code point */
    for (size_t i = 0; i < len; i++) e->n_chars += ((unsigned char)text[i] & 0xC0) != 0x80;
    e->n_tokens = 0;
    for (pos = 0; text_next_token(text, len, &pos, &start, &n);) e->n_tokens++;
    if (scratch_reserve(s, e->n_tokens, e->n_chars, n_slots))
        return sr_fail(err, "%s: out of memory", e->path);
    int c = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)text[i] & 0xC0) != 0x80) s->byte_of_char[c++] = i;
    s->byte_of_char[e->n_chars] = len;
    int k = 0;
    for (pos = 0; text_next_token(text, len, &pos, &start, &n); k++) {
        s->tok_start[k] = start;
        s->tok_end[k] = start + n;
    }
    return 0;
}

/* Check that a slot's name can be a tag type of the ontology. 0 or -1. */
static int check_slot_name(const Example *e, const char *name, char *const *slot_names,
                           int n_slot_names, SrError *err)
{
    if (!is_clean_name(name))
        return sr_fail(err, "%s: example %d: slot name '%s' is empty or has white space", e->path,
                       e->index, name);
    if (utf8_valid_prefix(name, strlen(name)) < strlen(name)) /* it becomes a tag */
        return sr_fail(err, "%s: example %d: slot name '%s' is not valid UTF-8", e->path,
                       e->index, name);
    if (!name_allowed(name, slot_names, n_slot_names))
        return sr_fail(err, "%s: example %d: slot '%s' is not in ontology.json", e->path, e->index,
                       name);
    return 0;
}

/* Log that the span [a, b) (bytes bs..be) starts or ends inside a token of
 * first..last, which it labels whole. */
static void log_misaligned(const Example *e, const char *name, double a, double b, size_t bs,
                           size_t be, int first, int last)
{
    const Scratch *s = e->s;
    int at_start = s->tok_start[first] != bs;
    int token = at_start ? first : last;
    fprintf(e->log, "%s: example %d: slot '%s': span [%.0f, %.0f] '%.*s' %s inside the token "
            "'%.*s'; labelled the whole token%s\n", e->path, e->index, name, a, b,
            (int)(be - bs), e->text + bs, at_start ? "starts" : "ends",
            (int)(s->tok_end[token] - s->tok_start[token]), e->text + s->tok_start[token],
            first == last ? "" : "s");
}

/* One slot: check its name and character span, trim white space off the
 * span, and add the tokens it covers to s->spans[*n_spans] (counting and
 * logging a span of only white space, which is dropped, or one that cuts a
 * token). `order` is the slot's place in "slots". 0 or -1. */
static int read_slot(Example *e, const cJSON *slot, int order, char *const *slot_names,
                     int n_slot_names, int *n_spans, SrError *err)
{
    const char *name = slot->string ? slot->string : "";
    if (check_slot_name(e, name, slot_names, n_slot_names, err)) return -1;
    double a, b;
    if (!read_span(cJSON_GetObjectItemCaseSensitive(slot, "span"), &a, &b))
        return sr_fail(err, "%s: example %d: slot '%s': \"span\" is not two integers", e->path,
                       e->index, name);
    if (!(a >= 0 && a < b && b <= e->n_chars))
        return sr_fail(err, "%s: example %d: slot '%s': span [%.0f, %.0f] is out of range "
                       "(the text has %d characters)", e->path, e->index, name, a, b, e->n_chars);
    e->counts->spans++;
    Scratch *s = e->s;
    size_t bs = s->byte_of_char[(int)a], be = s->byte_of_char[(int)b];
    while (bs < be && is_space_byte((unsigned char)e->text[bs])) bs++;
    while (be > bs && is_space_byte((unsigned char)e->text[be - 1])) be--;
    if (bs == be) {
        e->counts->empty_spans++;
        if (e->log)
            fprintf(e->log, "%s: example %d: slot '%s': span [%.0f, %.0f] holds only white space; "
                    "dropped\n", e->path, e->index, name, a, b);
        return 0;
    }
    int first = -1, last = -1;
    for (int k = 0; k < e->n_tokens; k++) {
        if (s->tok_end[k] <= bs || s->tok_start[k] >= be) continue;
        if (first < 0) first = k;
        last = k;
    }
    if (e->n_tokens == 0 || first < 0) return 0; /* cannot happen: bs is inside a token */
    if (s->tok_start[first] != bs || s->tok_end[last] != be) {
        e->counts->misaligned++;
        if (e->log) log_misaligned(e, name, a, b, bs, be, first, last);
    }
    s->spans[(*n_spans)++] = (TokenSpan){.name = name, .first = first, .last = last,
                                         .order = order, .kept = 0};
    return 0;
}

/* The words of the example's tokens, tagged O, then B-/I- for each of the
 * n_spans spans that overlaps none placed before it (longest first, then
 * earliest; the others are counted, logged and dropped). 0 or -1. */
static int tag_tokens(Example *e, int n_spans, SrError *err)
{
    Scratch *s = e->s;
    for (int k = 0; k < e->n_tokens; k++) {
        size_t n = s->tok_end[k] - s->tok_start[k];
        char *w = realloc(s->words[k], n + 1);
        if (!w) return sr_fail(err, "%s: out of memory", e->path);
        memcpy(w, e->text + s->tok_start[k], n);
        w[n] = '\0';
        s->words[k] = w;
        if (set_tag(s, k, "", "O")) return sr_fail(err, "%s: out of memory", e->path);
    }
    if (n_spans > 1) qsort(s->spans, (size_t)n_spans, sizeof *s->spans, compare_spans);
    for (int i = 0; i < n_spans; i++) {
        TokenSpan *sp = &s->spans[i];
        const TokenSpan *blocker = NULL;
        for (int j = 0; j < i && !blocker; j++)
            if (s->spans[j].kept && s->spans[j].first <= sp->last && sp->first <= s->spans[j].last)
                blocker = &s->spans[j];
        if (blocker) {
            e->counts->overlapping++;
            if (e->log)
                fprintf(e->log, "%s: example %d: slot '%s' overlaps slot '%s' (longer or earlier); "
                        "dropped (IOB2 cannot nest spans)\n", e->path, e->index, sp->name,
                        blocker->name);
            continue;
        }
        sp->kept = 1;
        for (int k = sp->first; k <= sp->last; k++)
            if (set_tag(s, k, k == sp->first ? "B-" : "I-", sp->name))
                return sr_fail(err, "%s: out of memory", e->path);
    }
    return 0;
}

/* Turn example `index` of `path` into a sentence appended to out. */
static int read_example(const char *path, int index, const cJSON *ex, Dataset *out,
                        NluppCounts *counts, FILE *log, char *const *slot_names, int n_slot_names,
                        Scratch *s, SrError *err)
{
    Example e = {.path = path, .index = index, .s = s, .counts = counts, .log = log};
    const cJSON *slots = NULL;
    if (read_text_and_slots(&e, ex, &slots, err) ||
        index_text(&e, slots ? cJSON_GetArraySize(slots) : 0, err))
        return -1;
    int n_spans = 0, order = 0;
    for (const cJSON *slot = slots ? slots->child : NULL; slot; slot = slot->next, order++)
        if (read_slot(&e, slot, order, slot_names, n_slot_names, &n_spans, err)) return -1;
    if (e.n_tokens == 0) {
        counts->empty_examples++;
        if (log) fprintf(log, "%s: example %d: the text has no token; skipped\n", path, index);
        return 0;
    }
    if (tag_tokens(&e, n_spans, err) ||
        dataset_add(out, (const char *const *)s->words, (const char *const *)s->tags, e.n_tokens,
                    0, err))
        return -1;
    counts->examples++;
    counts->tokens += e.n_tokens;
    return 0;
}

int nlupp_read_fold(const char *path, Dataset *out, NluppCounts *counts, FILE *log,
                    char *const *slot_names, int n_slot_names, SrError *err)
{
    cJSON *root = read_json(path, err);
    if (!root) return -1;
    if (!cJSON_IsArray(root)) {
        cJSON_Delete(root);
        return sr_fail(err, "%s: expected a JSON array of examples", path);
    }
    Scratch s = {0};
    int rc = 0, index = 0;
    for (const cJSON *ex = root->child; ex && rc == 0; ex = ex->next, index++)
        rc = read_example(path, index, ex, out, counts, log, slot_names, n_slot_names, &s, err);
    scratch_free(&s, s.cap_tokens);
    cJSON_Delete(root);
    return rc;
}

/* ---- the split --------------------------------------------------------------------- */

/* Add the counts b to a. */
static void add_counts(NluppCounts *a, const NluppCounts *b)
{
    a->examples += b->examples;
    a->tokens += b->tokens;
    a->spans += b->spans;
    a->misaligned += b->misaligned;
    a->overlapping += b->overlapping;
    a->empty_spans += b->empty_spans;
    a->empty_examples += b->empty_examples;
}

int nlupp_read_splits(const char *dir, Dataset sets[NLUPP_N_SPLITS],
                      NluppCounts counts[NLUPP_N_SPLITS], FILE *log, SrError *err)
{
    char path[4096];
    for (int k = 0; k < NLUPP_N_SPLITS; k++) {
        memset(&sets[k], 0, sizeof sets[k]);
        memset(&counts[k], 0, sizeof counts[k]);
    }

    /* The ontology, when there is one, limits the slot names. */
    char **names = NULL;
    int n_names = 0;
    snprintf(path, sizeof path, "%s/ontology.json", dir);
    FILE *probe = fopen(path, "rb");
    if (probe) {
        fclose(probe);
        if (nlupp_read_ontology(path, &names, &n_names, err)) return -1;
    }

    int rc = 0;
    for (int k = 0; k < NLUPP_N_SPLITS && rc == 0; k++) {
        snprintf(path, sizeof path, "%s (%s)", dir, nlupp_split_name(k));
        sets[k].source = strdup(path);
        if (!sets[k].source) {
            rc = sr_fail(err, "%s: out of memory", dir);
            break;
        }
        const int *folds;
        int n_folds = nlupp_split_folds(k, &folds);
        for (int d = 0; d < 2 && rc == 0; d++) {
            for (int f = 0; f < n_folds && rc == 0; f++) {
                if (snprintf(path, sizeof path, "%s/%s/fold%d.json", dir, DOMAINS[d], folds[f]) >=
                    (int)sizeof path) {
                    rc = sr_fail(err, "%s: path too long", dir);
                    break;
                }
                NluppCounts fold_counts = {0};
                rc = nlupp_read_fold(path, &sets[k], &fold_counts, log, names,
                                     names ? n_names : 0, err);
                add_counts(&counts[k], &fold_counts);
            }
        }
    }
    dataset_labels_free(names, n_names);
    if (rc)
        for (int k = 0; k < NLUPP_N_SPLITS; k++) dataset_free(&sets[k]);
    return rc;
}

int nlupp_import(const char *dir, const char *out_dir, NluppCounts counts[NLUPP_N_SPLITS],
                 FILE *log, SrError *err)
{
    Dataset sets[NLUPP_N_SPLITS];
    if (nlupp_read_splits(dir, sets, counts, log, err)) return -1;
    int rc = dataset_make_dir(out_dir, err);
    char path[4096];
    for (int k = 0; k < NLUPP_N_SPLITS && rc == 0; k++) {
        if (snprintf(path, sizeof path, "%s/%s.conll", out_dir, nlupp_split_name(k)) >=
            (int)sizeof path)
            rc = sr_fail(err, "%s: path too long", out_dir);
        else
            rc = conll_write(path, &sets[k], NULL, err);
    }
    for (int k = 0; k < NLUPP_N_SPLITS; k++) dataset_free(&sets[k]);
    return rc;
}
