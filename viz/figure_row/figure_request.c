/* figure_request.c — the checks of plot's options that the figures' loaders
 * share: --head, one --r, --bos and --sep, --copy-positions and the sentence
 * of --text or --data. */
#include "figure_row/figure_request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/conll.h"

int figure_request_head(const char *text, int max, int *head)
{
    if (strcmp(text, "mean") == 0) {
        *head = -1;
        return 0;
    }
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end || v < 0 || v > max) return -1;
    *head = (int)v;
    return 0;
}

int figure_request_one_r(const char *text, int *r)
{
    if (!*text || strspn(text, "0123456789") != strlen(text) || strlen(text) > 6) return -1;
    *r = atoi(text);
    return *r <= 100000 ? 0 : -1;
}

int figure_request_repeat(const char *bos_text, const char *sep_text, const char *default_bos, RepeatBos *bos,
                          RepeatSep *sep, SrError *err)
{
    if (repeat_parse_bos(bos_text ? bos_text : default_bos, bos))
        return sr_fail(err, "--bos must be none, once or per-copy, got '%s'", bos_text);
    if (repeat_parse_sep(sep_text ? sep_text : "none", sep))
        return sr_fail(err, "--sep must be none or token, got '%s'", sep_text);
    return 0;
}

int figure_request_copy_positions(const char *text, RepeatPositions *positions, SrError *err)
{
    if (repeat_parse_positions(text ? text : "run", positions))
        return sr_fail(err, "--copy-positions must be run, restart or induction, got '%s'", text);
    return 0;
}

char *figure_request_sentence_text(const Sentence *s)
{
    size_t len = 1;
    for (int i = 0; i < s->n_words; i++) len += strlen(s->words[i]) + 1;
    char *text = malloc(len);
    if (!text) return NULL;
    text[0] = 0;
    for (int i = 0; i < s->n_words; i++) {
        if (i) strcat(text, " ");
        strcat(text, s->words[i]);
    }
    return text;
}

void figure_request_warn_unknown(const char *command, const char *model, int n_unknown, int n_words)
{
    if (2 * n_unknown <= n_words) return;
    fprintf(stderr,
            "seqrep %s: warning: %d of the %d tokens of the sentence are unknown to %s and shown as <unk> "
            "(a word-vocabulary model such as the demo LM knows only the words of its task); a model that "
            "knows English: the house LM (make house, then --model ~/.cache/seqrep/house/causal.safetensors) "
            "or a Hugging Face model folder (docs/models.md)\n",
            command, n_unknown, n_words, model);
}

int figure_request_sentence(const FigureModelRun *q, char **text, char *source, size_t cap, SrError *err)
{
    if (q->text) {
        *text = malloc(strlen(q->text) + 1);
        if (!*text) return sr_fail(err, "out of memory");
        memcpy(*text, q->text, strlen(q->text) + 1);
        snprintf(source, cap, "given with --text");
        return 0;
    }
    Dataset ds;
    if (conll_read(q->data, &ds, err)) return -1;
    if (q->sentence < 0 || q->sentence >= ds.n_sents) {
        int n = ds.n_sents;
        dataset_free(&ds);
        return sr_fail(err, "%s: sentence %d out of range 0..%d", q->data, q->sentence, n - 1);
    }
    const Sentence *s = &ds.sents[q->sentence];
    *text = figure_request_sentence_text(s);
    if (!*text) {
        dataset_free(&ds);
        return sr_fail(err, "out of memory");
    }
    snprintf(source, cap, "sentence %d of %s (line %d)", q->sentence, q->data, s->line);
    dataset_free(&ds);
    return 0;
}
