/* conll.c — CoNLL files: lines to sentences, tag checks, scheme detection and
 * conversion to IOB2, and atomic writing. The rules are in conll.h. */
#include "data/conll.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic_file.h"
#include "base/text_file.h"
#include "base/utf8.h"

const char *conll_scheme_name(ConllScheme scheme)
{
    switch (scheme) {
    case CONLL_IOB1: return "IOB1";
    case CONLL_IOBES: return "IOBES";
    default: return "IOB2";
    }
}

/* ---- one line ---------------------------------------------------------------- */

/* Check line[0..n) (without its line end) for invalid UTF-8 and control
 * bytes other than tab. Returns 0, or -1 with "path:LINE: ..." in err. */
static int check_line_bytes(const char *path, int line, const char *text, size_t n, SrError *err)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0;
    while (i < n) {
        if (s[i] == '\t') {
            i++;
            continue;
        }
        if (s[i] < 0x20 || s[i] == 0x7F)
            return sr_fail(err, "%s:%d: control byte 0x%02X in column %zu", path, line, s[i], i + 1);
        size_t len = utf8_char_length(text + i, n - i);
        if (len == 0)
            return sr_fail(err, "%s:%d: invalid UTF-8 (byte 0x%02X in column %zu)", path, line, s[i],
                           i + 1);
        i += len;
    }
    return 0;
}

/* 1 if tag is "O" or P-TYPE with P one of B I E S and TYPE not empty. */
static int tag_is_valid(const char *tag)
{
    if (strcmp(tag, "O") == 0) return 1;
    return strchr("BIES", tag[0]) != NULL && tag[0] != '\0' && tag[1] == '-' && tag[2] != '\0';
}

/* ---- the tokens of a file ------------------------------------------------------- */

/* Every token of a file, in order, pointing into the file's text buffer
 * (which the reader cuts into NUL-terminated columns). */
typedef struct {
    char **words;      /* (n) */
    char **tags;       /* (n) */
    int *lines;        /* (n) line of each token */
    int *sent_start;   /* (n_sents + 1) sentence i is tokens [sent_start[i], sent_start[i+1]) */
    int n, cap;
    int n_sents, sents_cap;
} TokenList;

/* Release a TokenList's arrays (not the text they point into). */
static void token_list_free(TokenList *t)
{
    free(t->words);
    free(t->tags);
    free(t->lines);
    free(t->sent_start);
    memset(t, 0, sizeof *t);
}

/* Append one token. Returns 0 or -1 (out of memory). */
static int token_list_push(TokenList *t, char *word, char *tag, int line)
{
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 1024;
        char **w = realloc(t->words, (size_t)cap * sizeof *w);
        if (!w) return -1;
        t->words = w;
        char **g = realloc(t->tags, (size_t)cap * sizeof *g);
        if (!g) return -1;
        t->tags = g;
        int *l = realloc(t->lines, (size_t)cap * sizeof *l);
        if (!l) return -1;
        t->lines = l;
        t->cap = cap;
    }
    t->words[t->n] = word;
    t->tags[t->n] = tag;
    t->lines[t->n] = line;
    t->n++;
    return 0;
}

/* Close the current sentence if it has tokens (sentence boundaries are
 * token indices). Returns 0 or -1 (out of memory). */
static int token_list_end_sentence(TokenList *t)
{
    int begin = t->n_sents > 0 ? t->sent_start[t->n_sents] : 0;
    if (t->n == begin) return 0;
    if (t->n_sents + 2 > t->sents_cap) {
        int cap = t->sents_cap ? 2 * t->sents_cap : 256;
        int *s = realloc(t->sent_start, (size_t)cap * sizeof *s);
        if (!s) return -1;
        t->sent_start = s;
        t->sents_cap = cap;
    }
    t->sent_start[0] = 0;
    t->sent_start[++t->n_sents] = t->n;
    return 0;
}

/* Cut text[0..len) into lines and lines into columns, filling *t. The text
 * is modified in place (column ends become NUL). Returns 0 or -1 (err). */
static int split_file(const char *path, char *text, size_t len, TokenList *t, SrError *err)
{
    size_t begin = 0;
    int line = 0;
    while (begin < len) {
        line++;
        size_t end = begin;
        while (end < len && text[end] != '\n') end++;
        size_t stop = end;
        if (stop > begin && text[stop - 1] == '\r') stop--; /* CRLF */
        if (check_line_bytes(path, line, text + begin, stop - begin, err)) return -1;

        /* Columns: runs of bytes other than space and tab. */
        char *first = NULL, *last = NULL;
        int n_cols = 0;
        size_t i = begin;
        while (i < stop) {
            while (i < stop && (text[i] == ' ' || text[i] == '\t')) i++;
            if (i >= stop) break;
            size_t j = i;
            while (j < stop && text[j] != ' ' && text[j] != '\t') j++;
            if (n_cols == 0) first = text + i;
            last = text + i;
            n_cols++;
            text[j < stop ? j : stop] = '\0'; /* stop is '\r', '\n' or the buffer's NUL */
            i = j + 1;
        }

        if (n_cols == 0 || strcmp(first, "-DOCSTART-") == 0) {
            if (token_list_end_sentence(t)) return sr_fail(err, "%s: out of memory", path);
        } else if (n_cols == 1) {
            char shown[48];
            snprintf(shown, sizeof shown, "%.40s", first);
            return sr_fail(err, "%s:%d: only one column ('%s'); expected a word and a tag", path,
                           line, shown);
        } else {
            if (!tag_is_valid(last)) {
                char shown[48];
                snprintf(shown, sizeof shown, "%.40s", last);
                return sr_fail(err, "%s:%d: tag '%s' is not in the IOB/IOBES scheme", path, line,
                               shown);
            }
            if (token_list_push(t, first, last, line))
                return sr_fail(err, "%s: out of memory", path);
        }
        begin = end + 1;
    }
    if (token_list_end_sentence(t)) return sr_fail(err, "%s: out of memory", path);
    return 0;
}

/* ---- scheme detection and conversion ------------------------------------------------ */

/* 1 if tag `cur` (I-X or E-X) continues the span that `prev` is part of:
 * prev is B-X or I-X of the same type X. prev may be NULL (sentence start). */
static int continues_span(const char *prev, const char *cur)
{
    if (!prev || (prev[0] != 'B' && prev[0] != 'I')) return 0;
    return strcmp(prev + 2, cur + 2) == 0;
}

/* Decide the scheme of the tokens of t and rewrite their tags to IOB2 in
 * place (only ever replacing the first letter). Returns 0 or -1 (err). */
static int convert_to_iob2(const char *path, TokenList *t, ConllScheme *scheme, int *n_changed,
                           SrError *err)
{
    int first_es = 0, first_i_open = 0, first_e_open = 0;
    for (int s = 0; s < t->n_sents; s++) {
        const char *prev = NULL;
        for (int k = t->sent_start[s]; k < t->sent_start[s + 1]; k++) {
            const char *tag = t->tags[k];
            if ((tag[0] == 'E' || tag[0] == 'S') && tag[1] == '-' && !first_es) first_es = t->lines[k];
            if (tag[0] == 'I' && tag[1] == '-' && !continues_span(prev, tag) && !first_i_open)
                first_i_open = t->lines[k];
            if (tag[0] == 'E' && tag[1] == '-' && !continues_span(prev, tag) && !first_e_open)
                first_e_open = t->lines[k];
            prev = tag;
        }
    }

    int changed = 0;
    if (first_es) {
        if (first_i_open)
            return sr_fail(err, "%s:%d: mixed schemes: an I- tag opens a span (IOB1 style) but the "
                           "file uses IOBES tags (first E-/S- on line %d)", path, first_i_open,
                           first_es);
        if (first_e_open)
            return sr_fail(err, "%s:%d: an E- tag does not close a span begun by B- or I- of its "
                           "type (IOBES)", path, first_e_open);
        for (int k = 0; k < t->n; k++) {
            char *tag = t->tags[k];
            if (tag[0] == 'S' && tag[1] == '-') { tag[0] = 'B'; changed++; }
            else if (tag[0] == 'E' && tag[1] == '-') { tag[0] = 'I'; changed++; }
        }
        *scheme = CONLL_IOBES;
    } else if (first_i_open) {
        for (int s = 0; s < t->n_sents; s++) {
            const char *prev = NULL;
            for (int k = t->sent_start[s]; k < t->sent_start[s + 1]; k++) {
                char *tag = t->tags[k];
                if (tag[0] == 'I' && tag[1] == '-' && !continues_span(prev, tag)) {
                    tag[0] = 'B';
                    changed++;
                }
                prev = tag;
            }
        }
        *scheme = CONLL_IOB1;
    } else {
        *scheme = CONLL_IOB2;
    }
    *n_changed = changed;
    return 0;
}

/* ---- reading ---------------------------------------------------------------------- */

int conll_read_scheme(const char *path, Dataset *out, ConllScheme *scheme, int *n_changed,
                      SrError *err)
{
    memset(out, 0, sizeof *out);
    ConllScheme found = CONLL_IOB2;
    int changed = 0;
    if (scheme) *scheme = CONLL_IOB2;
    if (n_changed) *n_changed = 0;

    char *text;
    size_t len;
    if (text_read_file(path, &text, &len, err)) return -1;
    if (len == 0) {
        free(text);
        return sr_fail(err, "%s: empty file", path);
    }
    TokenList t = {0};
    int rc = split_file(path, text, len, &t, err);
    if (rc == 0 && t.n_sents == 0)
        rc = sr_fail(err, "%s: no sentence (only blank lines and -DOCSTART-)", path);
    if (rc == 0) rc = convert_to_iob2(path, &t, &found, &changed, err);

    if (rc == 0) {
        out->source = strdup(path);
        if (!out->source) rc = sr_fail(err, "%s: out of memory", path);
    }
    for (int s = 0; rc == 0 && s < t.n_sents; s++) {
        int begin = t.sent_start[s], n = t.sent_start[s + 1] - begin;
        rc = dataset_add(out, (const char *const *)t.words + begin,
                         (const char *const *)t.tags + begin, n, t.lines[begin], err);
    }
    token_list_free(&t);
    free(text);
    if (rc) {
        dataset_free(out);
        return -1;
    }
    if (scheme) *scheme = found;
    if (n_changed) *n_changed = changed;
    return 0;
}

int conll_read(const char *path, Dataset *out, SrError *err)
{
    ConllScheme scheme;
    int changed;
    if (conll_read_scheme(path, out, &scheme, &changed, err)) return -1;
    if (scheme != CONLL_IOB2)
        fprintf(stderr, "notice: %s: %s tags converted to IOB2 (%d tags rewritten)\n", path,
                conll_scheme_name(scheme), changed);
    return 0;
}

/* ---- writing ---------------------------------------------------------------------- */

/* 1 if s is a non-empty string without white space or control bytes. */
static int is_clean_column(const char *s)
{
    if (!s || !*s) return 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p <= 0x20 || *p == 0x7F) return 0;
    return 1;
}

int conll_write(const char *path, const Dataset *d, char *const *const *pred, SrError *err)
{
    for (int s = 0; s < d->n_sents; s++) {
        const Sentence *st = &d->sents[s];
        for (int w = 0; w < st->n_words; w++) {
            const char *what = !is_clean_column(st->words[w]) ? "word"
                               : !is_clean_column(st->tags[w]) ? "tag"
                               : pred && !is_clean_column(pred[s][w]) ? "predicted tag" : NULL;
            if (what)
                return sr_fail(err, "%s: sentence %d, word %d: the %s is empty or contains white "
                               "space or a control byte", path, s + 1, w + 1, what);
        }
    }

    AtomicFile af;
    if (atomic_file_open(&af, path, err)) return -1;
    /* A first word that begins with U+FEFF would lose it to the reader's
     * byte-order-mark removal (found by fuzzing: a file with two marks read
     * and written again); a mark in front keeps the word whole. */
    if (d->n_sents > 0 && d->sents[0].n_words > 0 &&
        strncmp(d->sents[0].words[0], "\xEF\xBB\xBF", 3) == 0)
        fputs("\xEF\xBB\xBF", af.f);
    for (int s = 0; s < d->n_sents; s++) {
        const Sentence *st = &d->sents[s];
        for (int w = 0; w < st->n_words; w++) {
            if (pred)
                fprintf(af.f, "%s %s %s\n", st->words[w], st->tags[w], pred[s][w]);
            else
                fprintf(af.f, "%s %s\n", st->words[w], st->tags[w]);
        }
        fputc('\n', af.f);
    }
    return atomic_file_commit(&af, err);
}
