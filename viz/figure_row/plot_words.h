/* plot_words.h — the words of a `seqrep plot` command after its figure's
 * name ("--n", "7", "--r", "5", ...): what a view of the explorer writes for
 * the frame on screen. The explorer loads the view's data from these very
 * words (figure_options.h) and prints them as a command line with the `c`
 * key, each word quoted for a POSIX shell. */
#ifndef SEQREP_VIZ_PLOT_WORDS_H
#define SEQREP_VIZ_PLOT_WORDS_H

#include <stddef.h>

#include "figure_row/explorer_sources.h"
#include "repeat/repeat.h"

/* The words, each an owned string; `failed` when memory ran out. */
typedef struct {
    char **word;
    int n, cap;
    int failed;
} PlotWords;

void plot_words_init(PlotWords *w);
void plot_words_free(PlotWords *w);

/* Append one word; "--name" and a value; "--name" and an integer. */
void plot_words_add(PlotWords *w, const char *word);
void plot_words_option(PlotWords *w, const char *name, const char *value);
void plot_words_int(PlotWords *w, const char *name, int value);

/* Append what a model runs on, as the figures that run one take it:
 * --model (and --adapter) of src, the sentence (--text, or --data and
 * --sentence), --r, --bos, --sep, and --mask and --copy-positions restart
 * when they were given. */
void plot_words_model_run(PlotWords *w, const ExplorerSources *src, int sentence, int r, RepeatBos bos,
                          RepeatSep sep);

/* Quote one shell word: as is when it is made only of safe characters
 * (letters, digits, and _-./=:,+@%), otherwise in single quotes with each '
 * written as '\''. Returns the length the quoted word needs (like snprintf). */
size_t plot_words_quote(const char *word, char *out, size_t cap);

/* The words joined by spaces, each quoted, into out (cap bytes, always
 * NUL-terminated). 0, or -1 when they do not fit. */
int plot_words_line(const PlotWords *w, char *out, size_t cap);

/* 1 if a and b hold the same words. */
int plot_words_equal(const PlotWords *a, const PlotWords *b);

#endif
