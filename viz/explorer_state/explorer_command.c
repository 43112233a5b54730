/* explorer_command.c — the `c` key: the `seqrep plot` command that renders
 * the frame on screen, each word quoted for a POSIX shell. Pure. */
#include "explorer_state/explorer_command.h"

#include <stdio.h>
#include <string.h>

/* A command being written into out[0..cap): words are appended quoted. */
typedef struct {
    char *out;
    size_t cap, len;
    int overflow;
} CommandText;

/* Append " word" (quoted; no space before the first word). */
static void add_word(CommandText *c, const char *word)
{
    if (c->len > 0) {
        if (c->len + 1 >= c->cap) {
            c->overflow = 1;
            return;
        }
        c->out[c->len++] = ' ';
        c->out[c->len] = 0;
    }
    size_t need = plot_words_quote(word, c->out + c->len, c->cap - c->len);
    if (c->len + need >= c->cap) {
        c->overflow = 1;
        c->len = c->cap - 1;
        return;
    }
    c->len += need;
}

/* Append "--name value". */
static void add_option(CommandText *c, const char *name, const char *value)
{
    add_word(c, name);
    add_word(c, value);
}

/* Append "--name N". */
static void add_int_option(CommandText *c, const char *name, int value)
{
    char text[24];
    snprintf(text, sizeof text, "%d", value);
    add_option(c, name, text);
}

/* Append what the model runs on: --model (and --adapter), the sentence
 * (--text, or --data and --sentence), --r, --bos, --sep and --mask when one
 * was given. */
static void add_model_run(CommandText *c, const ExplorerState *s, const ExplorerSources *src, int sentence, int r)
{
    add_option(c, "--model", src->model);
    if (src->adapter) add_option(c, "--adapter", src->adapter);
    if (src->text) {
        add_option(c, "--text", src->text);
    } else {
        add_option(c, "--data", src->data);
        add_int_option(c, "--sentence", sentence);
    }
    add_int_option(c, "--r", r);
    add_option(c, "--bos", repeat_bos_name(s->bos));
    add_option(c, "--sep", repeat_sep_name(s->sep));
    if (src->mask) add_option(c, "--mask", src->mask);
    if (src->copy_positions == REPEAT_POSITIONS_RESTART) add_option(c, "--copy-positions", "restart");
}

int explorer_command_line(const ExplorerState *s, const ExplorerSources *src, int sentence, int r,
                          int width, int height, const char *out_path, char *out, size_t cap,
                          SrError *err)
{
    if (cap == 0) return sr_fail(err, "command line: no room");
    CommandText c = {.out = out, .cap = cap, .len = 0, .overflow = 0};
    out[0] = 0;
    char size[48];
    snprintf(size, sizeof size, "%dx%d", width, height);
    add_word(&c, "seqrep");
    add_word(&c, "plot");
    switch (s->view) {
    case VIEW_MASK:
        add_word(&c, "mask");
        add_int_option(&c, "--n", s->n_tokens ? s->n_tokens[s->sentence] : 1);
        add_int_option(&c, "--r", s->r);
        add_option(&c, "--bos", repeat_bos_name(s->bos));
        add_option(&c, "--sep", repeat_sep_name(s->sep));
        break;
    case VIEW_ATTENTION:
    case VIEW_OVERVIEW:
        add_word(&c, "attention");
        if (s->view == VIEW_OVERVIEW) add_word(&c, "--overview");
        add_model_run(&c, s, src, sentence, r);
        add_int_option(&c, "--layer", s->layer); /* the overview frames this map */
        if (s->head >= 0) add_int_option(&c, "--head", s->head);
        else add_option(&c, "--head", "mean");
        add_option(&c, "--scale", attention_scale_name(s->scale));
        if (s->last_copy_only) add_word(&c, "--last-copy-only");
        break;
    case VIEW_LAYERS:
        add_word(&c, "layers");
        add_option(&c, "--results", src->layers);
        if (src->baselines) add_option(&c, "--baselines", src->baselines);
        if (src->split) add_option(&c, "--split", src->split);
        break;
    case VIEW_EXIT:
        add_word(&c, "exit");
        add_option(&c, "--results", src->exit);
        if (src->dataset) add_option(&c, "--dataset", src->dataset);
        if (src->cost) add_option(&c, "--cost", src->cost);
        if (src->split) add_option(&c, "--split", src->split);
        break;
    case VIEW_FLOW:
        add_word(&c, "flow");
        add_option(&c, "--results", src->flow);
        if (s->head >= 0) add_int_option(&c, "--head", s->head);
        else add_option(&c, "--head", "mean");
        break;
    case VIEW_REPO_Z:
    case VIEW_REPO_REPEAT:
        add_word(&c, explorer_view_name(s->view));
        add_model_run(&c, s, src, sentence, r);
        add_int_option(&c, "--layer", s->layer);
        add_int_option(&c, "--head", s->head >= 0 ? s->head : s->last_head);
        break;
    case VIEW_REPO_RANGE:
        add_word(&c, "repo-range");
        add_option(&c, "--results", src->repo_range);
        break;
    case VIEW_REPO_NEEDLE:
        add_word(&c, "repo-needle");
        add_option(&c, "--results", src->repo_needle);
        break;
    default:
        return sr_fail(err, "command line: unknown view");
    }
    add_option(&c, "--size", size);
    add_option(&c, "--theme", s->theme == THEME_DARK ? "dark" : "light");
    if (src->font) add_option(&c, "--font", src->font);
    add_option(&c, "--out", out_path);
    if (c.overflow) return sr_fail(err, "command line: longer than %zu bytes", cap);
    return 0;
}
