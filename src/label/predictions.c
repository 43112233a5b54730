/* predictions.c — a predictions CoNLL file read back as per-sentence span
 * counts (see predictions.h). */
#include "base/fnv1a.h"
#include "label/predictions.h"

#include <stdlib.h>
#include <string.h>

#include "base/text_file.h"

/* Fold the bytes of text and one separator byte into an FNV-1a hash. */
static uint64_t fold_field(uint64_t h, const char *text)
{
    static const unsigned char separator = 0x1f;
    return fnv1a(fnv1a(h, text, strlen(text)), &separator, 1);
}

/* The growing arrays of one sentence's gold and predicted tags. */
typedef struct {
    const char **gold, **pred;  /* (n) into the file's text */
    int n, cap;
} SentenceTags;

/* Append a sentence's counts to out (capacity *cap). 0 or -1. */
static int add_sentence(PredictionCounts *out, int *cap, const SentenceTags *st, SrError *err)
{
    if (out->n_sents == *cap) {
        int bigger = *cap ? 2 * *cap : 256;
        SpanCounts *c = realloc(out->counts, sizeof *c * (size_t)bigger);
        if (!c) return sr_fail(err, "out of memory");
        out->counts = c;
        *cap = bigger;
    }
    SpanCounts *c = &out->counts[out->n_sents++];
    memset(c, 0, sizeof *c);
    span_counts_add(c, st->gold, st->pred, st->n);
    out->gold_checksum = fold_field(out->gold_checksum, ""); /* the sentence's end */
    return 0;
}

/* Split line (NUL-terminated, modified) at spaces and tabs into col (at
 * most max); returns how many columns it has (counting beyond max). */
static int split_columns(char *line, char **col, int max)
{
    int n = 0;
    for (char *save = NULL, *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
        if (n < max) col[n] = t;
        n++;
    }
    return n;
}

/* Read the lines of text (modified) into out. */
static int read_lines(const char *path, char *text, PredictionCounts *out, SrError *err)
{
    SentenceTags st = {0};
    int cap = 0, line_no = 0, rc = 0;
    out->gold_checksum = FNV1A_START;
    for (char *save = NULL, *p = text; p && rc == 0; p = save) {
        char *end = strchr(p, '\n');
        save = end ? end + 1 : NULL;
        if (end) *end = 0;
        line_no++;
        char *col[3];
        int n = split_columns(p, col, 3);
        if (n == 0) {
            if (st.n > 0) rc = add_sentence(out, &cap, &st, err);
            st.n = 0;
            continue;
        }
        if (n != 3) {
            rc = sr_fail(err, "%s:%d: %d columns, expected 3 (word gold predicted)", path, line_no, n);
            break;
        }
        if (st.n == st.cap) {
            int bigger = st.cap ? 2 * st.cap : 64;
            const char **g = realloc(st.gold, sizeof *g * (size_t)bigger);
            if (g) st.gold = g;
            const char **q = g ? realloc(st.pred, sizeof *q * (size_t)bigger) : NULL;
            if (q) st.pred = q;
            if (!g || !q) {
                rc = sr_fail(err, "out of memory");
                break;
            }
            st.cap = bigger;
        }
        st.gold[st.n] = col[1];
        st.pred[st.n++] = col[2];
        out->n_words++;
        out->gold_checksum = fold_field(fold_field(out->gold_checksum, col[0]), col[1]);
    }
    if (rc == 0 && st.n > 0) rc = add_sentence(out, &cap, &st, err);
    free(st.gold);
    free(st.pred);
    if (rc == 0 && out->n_sents == 0) rc = sr_fail(err, "%s: no sentence", path);
    return rc;
}

int predictions_read(const char *path, PredictionCounts *out, SrError *err)
{
    memset(out, 0, sizeof *out);
    char *text;
    size_t len;
    if (text_read_file(path, &text, &len, err)) return -1;
    int rc = read_lines(path, text, out, err);
    free(text);
    if (rc) predictions_free(out);
    return rc;
}

void predictions_free(PredictionCounts *p)
{
    free(p->counts);
    memset(p, 0, sizeof *p);
}
