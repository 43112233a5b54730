/* figure_request.h — the checks of `seqrep plot`'s option values that the
 * loaders of the figures share: a --head, one --r, --bos and --sep,
 * --copy-positions and the sentence of --text or --data; and the options of
 * the figures that run a model on one sentence (FigureModelRun). Each row of
 * the table of figures keeps its own options (figure_row.h); unset strings
 * are NULL, unset numbers 0 (layer -1: the last). */
#ifndef SEQREP_VIZ_FIGURE_REQUEST_H
#define SEQREP_VIZ_FIGURE_REQUEST_H

#include <stddef.h>

#include "base/status.h"
#include "data/dataset.h"
#include "repeat/repeat.h"

/* The options of a figure that runs a model on one repeated sentence
 * (attention, repo-z, repo-repeat). */
typedef struct {
    const char *model, *adapter;   /* --model, --adapter                        */
    const char *text, *data;       /* --text, or --data with --sentence         */
    int sentence;
    const char *r, *bos, *sep, *copy_positions, *mask;
    int layer;                     /* --layer, -1: the last                     */
    const char *head;              /* --head                                    */
} FigureModelRun;

/* The largest --head number `seqrep plot` takes. */
#define FIGURE_HEAD_MAX 1000000

/* Parse a --head value: "mean" is -1, otherwise an integer 0..max. 0 or -1. */
int figure_request_head(const char *text, int max, int *head);

/* Parse one repetition count "R" (digits only, at most 100000); 0 or -1. */
int figure_request_one_r(const char *text, int *r);

/* --bos and --sep (their texts, NULL: not given) of a figure over a
 * repeated sentence: --bos defaults as the figure does (default_bos), --sep
 * to none. 0 or -1 with err. */
int figure_request_repeat(const char *bos_text, const char *sep_text, const char *default_bos, RepeatBos *bos,
                          RepeatSep *sep, SrError *err);

/* --copy-positions (its text, NULL: not given) of a figure that runs a
 * model: run (default) or restart. 0 or -1 with err. */
int figure_request_copy_positions(const char *text, RepeatPositions *positions, SrError *err);

/* The words of s joined by single spaces, the text a figure runs through a
 * model for a sentence of a CoNLL file, in a new string the caller frees;
 * NULL when out of memory. */
char *figure_request_sentence_text(const Sentence *s);

/* The sentence of a figure that runs a model: --text, or sentence
 * --sentence of the CoNLL file --data (words joined by spaces), in a new
 * string *text the caller frees. *source (cap bytes) describes it for the
 * caption. 0 or -1 with err. */
int figure_request_sentence(const FigureModelRun *run, char **text, char *source, size_t cap, SrError *err);

/* When most of a sentence's n_words tokens are unknown to model (n_unknown
 * of them became <unk>), one warning line on stderr, "seqrep COMMAND:
 * warning: ...", that says so and names models that know English words;
 * nothing otherwise. */
void figure_request_warn_unknown(const char *command, const char *model, int n_unknown, int n_words);

#endif
