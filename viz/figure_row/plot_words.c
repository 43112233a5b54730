/* plot_words.c — the words of a `seqrep plot` command: built one by one,
 * compared, and joined into a line quoted for a POSIX shell. */
#include "figure_row/plot_words.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void plot_words_init(PlotWords *w)
{
    memset(w, 0, sizeof *w);
}

void plot_words_free(PlotWords *w)
{
    for (int i = 0; i < w->n; i++) free(w->word[i]);
    free(w->word);
    memset(w, 0, sizeof *w);
}

void plot_words_add(PlotWords *w, const char *word)
{
    if (w->failed) return;
    if (w->n == w->cap) {
        int cap = w->cap ? 2 * w->cap : 16;
        char **more = realloc(w->word, sizeof *more * (size_t)cap);
        if (!more) {
            w->failed = 1;
            return;
        }
        w->word = more;
        w->cap = cap;
    }
    size_t len = strlen(word) + 1;
    char *copy = malloc(len);
    if (!copy) {
        w->failed = 1;
        return;
    }
    memcpy(copy, word, len);
    w->word[w->n++] = copy;
}

void plot_words_option(PlotWords *w, const char *name, const char *value)
{
    plot_words_add(w, name);
    plot_words_add(w, value);
}

void plot_words_int(PlotWords *w, const char *name, int value)
{
    char text[24];
    snprintf(text, sizeof text, "%d", value);
    plot_words_option(w, name, text);
}

void plot_words_model_run(PlotWords *w, const ExplorerSources *src, int sentence, int r, RepeatBos bos,
                          RepeatSep sep)
{
    plot_words_option(w, "--model", src->model);
    if (src->adapter) plot_words_option(w, "--adapter", src->adapter);
    if (src->text) {
        plot_words_option(w, "--text", src->text);
    } else {
        plot_words_option(w, "--data", src->data);
        plot_words_int(w, "--sentence", sentence);
    }
    plot_words_int(w, "--r", r);
    plot_words_option(w, "--bos", repeat_bos_name(bos));
    plot_words_option(w, "--sep", repeat_sep_name(sep));
    if (src->mask) plot_words_option(w, "--mask", src->mask);
    if (src->copy_positions != REPEAT_POSITIONS_RUN)
        plot_words_option(w, "--copy-positions", repeat_positions_name(src->copy_positions));
}

/* Write ch at out[*n] if it fits before the NUL, and count it either way. */
static void put_char(char *out, size_t cap, size_t *n, char ch)
{
    if (*n + 1 < cap) out[*n] = ch;
    (*n)++;
}

size_t plot_words_quote(const char *word, char *out, size_t cap)
{
    int safe = *word != 0;
    for (const char *p = word; *p && safe; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_-./=:,+@%", *p)) safe = 0;
    size_t n = 0;
    if (!safe) put_char(out, cap, &n, '\'');
    for (const char *p = word; *p; p++) {
        if (!safe && *p == '\'') {  /* close the quote, an escaped ', open again */
            put_char(out, cap, &n, '\'');
            put_char(out, cap, &n, '\\');
            put_char(out, cap, &n, '\'');
        }
        put_char(out, cap, &n, *p);
    }
    if (!safe) put_char(out, cap, &n, '\'');
    if (cap) out[n < cap ? n : cap - 1] = 0;
    return n;
}

int plot_words_line(const PlotWords *w, char *out, size_t cap)
{
    size_t len = 0;
    if (cap == 0 || w->failed) return -1;
    out[0] = 0;
    for (int i = 0; i < w->n; i++) {
        if (i > 0) {
            if (len + 1 >= cap) return -1;
            out[len++] = ' ';
            out[len] = 0;
        }
        size_t need = plot_words_quote(w->word[i], out + len, cap - len);
        if (len + need >= cap) return -1;
        len += need;
    }
    return 0;
}

int plot_words_equal(const PlotWords *a, const PlotWords *b)
{
    if (a->n != b->n || a->failed || b->failed) return 0;
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->word[i], b->word[i]) != 0) return 0;
    return 1;
}
