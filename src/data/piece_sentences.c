/* piece_sentences.c — reading a CoNLL or text file into sentences and
 * cutting them into pieces (see piece_sentences.h). */
#include "data/piece_sentences.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text_file.h"

/* Make room for one more sentence, zeroed; its address or NULL when out of memory. */
static PieceSentence *grow(PieceSentences *s)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        PieceSentence *grown = realloc(s->items, sizeof *grown * (size_t)cap);
        if (!grown) return NULL;
        s->items = grown;
        s->cap = cap;
    }
    PieceSentence *one = &s->items[s->n];
    memset(one, 0, sizeof *one);
    return one;
}

/* Append text[0..len) as a new sentence starting at line; 0 or -1. */
static int add_text(PieceSentences *s, const char *text, size_t len, int line)
{
    PieceSentence *one = grow(s);
    char *copy = one ? malloc(len + 1) : NULL;
    if (!copy) return -1;
    memcpy(copy, text, len);
    copy[len] = 0;
    *one = (PieceSentence){.text = copy, .line = line};
    s->n++;
    return 0;
}

int piece_sentences_add(PieceSentences *s, const int *ids, int n, int line, SrError *err)
{
    PieceSentence *one = grow(s);
    int *copy = one ? malloc(sizeof(int) * (size_t)(n > 0 ? n : 1)) : NULL;
    if (!copy) return sr_fail(err, "out of memory");
    if (n > 0) memcpy(copy, ids, sizeof(int) * (size_t)n);
    *one = (PieceSentence){.line = line, .ids = copy, .n = n};
    s->n++;
    return 0;
}

void piece_sentences_free(PieceSentences *s)
{
    for (int i = 0; i < s->n; i++) {
        free(s->items[i].text);
        free(s->items[i].ids);
    }
    free(s->items);
    memset(s, 0, sizeof *s);
}

/* 1 if line[0..len) holds only white space. */
static int is_blank(const char *line, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r') return 0;
    return 1;
}

/* Split text[0..len) of path into sentences (see piece_sentences_read),
 * stopping after max_sentences (> 0) of them; sentence is a buffer of len + 1
 * bytes. 0 or -1 with err. */
static int split_sentences(const char *path, const char *text, size_t len, int as_text,
                           int max_sentences, char *sentence, PieceSentences *out, SrError *err)
{
    size_t used = 0;
    int line_no = 0, start_line = 0;
    for (size_t pos = 0; pos <= len; pos++) {
        size_t end = pos;
        while (end < len && text[end] != '\n') end++;
        const char *line = text + pos;
        size_t line_len = end - pos;
        line_no++;
        int boundary = is_blank(line, line_len) || strncmp(line, "-DOCSTART-", 10) == 0;
        if (!boundary) {
            size_t a = 0, b;
            while (a < line_len && (line[a] == ' ' || line[a] == '\t')) a++;
            b = a;
            if (as_text) b = line_len;
            else
                while (b < line_len && line[b] != ' ' && line[b] != '\t' && line[b] != '\r') b++;
            if (used == 0) start_line = line_no;
            else sentence[used++] = ' ';
            memcpy(sentence + used, line + a, b - a);
            used += b - a;
        }
        if ((boundary || as_text || end >= len) && used > 0) {
            if (add_text(out, sentence, used, start_line))
                return sr_fail(err, "%s: out of memory", path);
            used = 0;
            if (max_sentences > 0 && out->n >= max_sentences) return 0;
        }
        pos = end;
    }
    return 0;
}

int piece_sentences_read(const char *path, int as_text, int max_sentences, PieceSentences *out,
                         SrError *err)
{
    memset(out, 0, sizeof *out);
    char *text;
    size_t len;
    if (text_read_file(path, &text, &len, err)) return -1;
    char *sentence = malloc(len + 1);
    int rc = sentence ? split_sentences(path, text, len, as_text, max_sentences, sentence, out, err)
                      : sr_fail(err, "%s: out of memory", path);
    free(sentence);
    free(text);
    if (rc == 0 && out->n == 0) rc = sr_fail(err, "%s: no sentences found", path);
    if (rc) piece_sentences_free(out);
    return rc;
}

int piece_sentences_tokenize(PieceSentences *s, const Tokenizer *tok, const char *source,
                             SrError *err)
{
    for (int i = 0; i < s->n; i++) {
        PieceSentence *one = &s->items[i];
        long n = tokenizer_encode(tok, one->text, 0, NULL, 0);
        if (n < 0) n = 0;
        free(one->ids);
        one->ids = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
        if (!one->ids) return sr_fail(err, "out of memory");
        if (n > 0) tokenizer_encode(tok, one->text, 0, one->ids, n);
        one->n = (int)n;
        char at[1100];
        snprintf(at, sizeof at, "%.1024s:%d", source, one->line);
        if (tokenizer_check_embedded(tok, one->ids, n, at, err)) return -1;
    }
    return 0;
}
