/* cmd_explore.c — `seqrep explore --model MODEL (--data FILE | --text S)`:
 * the interactive window over the figures (explorer/explorer.h). This file reads
 * and checks the options; the explorer does the rest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands/size_option.h"
#include "commands/viz_commands.h"
#include "draw/figure.h"
#include "explorer/explorer.h"
#include "page/explorer_page.h"
#include "figures/figures.h"
#include "figure_row/figure_request.h"
#include "options/args.h"
#include "options/rows.h"

static const char *CMD = "explore";

/* The largest --head number taken. */
#define EXPLORER_HEAD_MAX 100000

/* Split "WxH" into two pixel sizes 200..8192; 0 or -1. */
static int parse_window_size(const char *text, int *w, int *h)
{
    long a, b;
    if (size_option_parse(text, &a, &b) || a < 200 || b < 200 || a > 8192 || b > 8192) return -1;
    *w = (int)a;
    *h = (int)b;
    return 0;
}

/* The view of the table of figures named text; 0 or -1. */
static int parse_view(const char *text, int *out)
{
    *out = figure_view_find(text);
    return *out >= 0 ? 0 : -1;
}

/* The synopsis of --help: the form of the command, the keys the explorer
 * names, and a line for the views of the table it does not (their key and
 * help). */
static void explore_usage(char *usage, size_t cap)
{
    size_t used = (size_t)snprintf(usage, cap, "%s",
                                   "--model FILE (--data FILE.conll | --text \"a sentence\") [options]\n\n"
                                   "keys: <- -> layer, up/down head, a mean, 0-9 + - r, PgUp/PgDn sentence,\n"
                                   "m mask, o overview, R head roles on the overview (s/v also save NAME.roles.csv),\n"
                                   "p e f result plots, z RePo positions, g n RePo results, b last copy only,\n"
                                   "l log, t theme, s/v save PNG/SVG,\n"
                                   "c print the plot command, space guided walk, ? help, q quit");
    for (int v = 0; v < figure_view_count() && used < cap; v++) {
        const FigureView *view = figure_view(v);
        if (view->key && view->help) used += (size_t)snprintf(usage + used, cap - used, "\n%c %s", view->key, view->help);
    }
}

/* The options as given, before they are checked into ExplorerOptions. */
typedef struct {
    const char *bos, *sep, *head, *scale, *theme, *size, *view, *save_dir, *cost, *copy_positions, *html_r;
    int sentence, r, layer;
} ExploreText;

/* Read the command line into o (the sources) and t (the rest, as text).
 * 0, 1 after --help, or 2 after the error line. */
static int parse_options(int argc, char **argv, ExplorerOptions *o, ExploreText *t)
{
    ArgSpec specs[] = {
        {.name = "model", .type = ARG_STRING, .value = &o->src.model,
         .help = "checkpoint (.safetensors) or Hugging Face model folder"},
        option_adapter_file(&o->src.adapter, NULL),
        {.name = "series", .type = ARG_STRING, .value = &o->src.series,
         .help = "instead of --model: a folder of train-lm --snapshots or finetune --save-epochs ([ ] step)"},
        {.name = "data", .type = ARG_STRING, .value = &o->src.data,
         .help = "CoNLL file: its sentences (first column) to page through"},
        {.name = "text", .type = ARG_STRING, .value = &o->src.text, .help = "one sentence instead of --data"},
        {.name = "sentence", .type = ARG_INT, .value = &t->sentence,
         .help = "sentence of --data to start on (default 0)"},
        {.name = "r", .type = ARG_INT, .value = &t->r,
         .help = "repetitions to start with (default 1, or 0 when 1 does not fit)"},
        {.name = "layer", .type = ARG_INT, .value = &t->layer, .help = "layer to start on (default the last)"},
        {.name = "head", .type = ARG_STRING, .value = &t->head, .help = "head number or mean (default mean)"},
        option_bos(&t->bos, "none | once | per-copy (default per-copy, as plot attention; none when the "
                            "tokenizer adds no BOS)"),
        option_sep(&t->sep, "none | token (default none)"),
        option_copy_positions(&t->copy_positions),
        option_mask(&o->src.mask, "mask plan: causal | middle | full | layer list (default causal)"),
        {.name = "scale", .type = ARG_STRING, .value = &t->scale, .help = "fixed | per-head | log (default fixed)"},
        {.name = "theme", .type = ARG_STRING, .value = &t->theme, .help = "light | dark (default light)"},
        {.name = "font", .type = ARG_STRING, .value = &o->src.font,
         .help = "font family (default " FIGURE_DEFAULT_FONT ")"},
        {.name = "view", .type = ARG_STRING, .value = &t->view,
         .help = "mask | attention | overview | layers | exit | flow | repo-z | repo-repeat | repo-range | "
                 "repo-needle (default attention)"},
        {.name = "size", .type = ARG_STRING, .value = &t->size,
         .help = "window size WxH in pixels (default 1280x860)"},
        {.name = "save-dir", .type = ARG_STRING, .value = &t->save_dir,
         .help = "where s and v save frames (default .)"},
        {.name = "script", .type = ARG_STRING, .value = &o->script,
         .help = "keys to replay, then exit, e.g. \"<right>a s c q\" (see docs/explorer.md)"},
        {.name = "script-file", .type = ARG_STRING, .value = &o->script_file,
         .help = "file of --script lines to replay, then exit (LF or CRLF)"},
        {.name = "frame-times", .type = ARG_STRING, .value = &o->frame_times,
         .help = "CSV to write: each frame's draw time and the resident memory after it"},
        {.name = "layers", .type = ARG_STRING, .value = &o->src.layers,
         .help = "probe CSV(s), comma-separated: the layers view (p)"},
        {.name = "baselines", .type = ARG_STRING, .value = &o->src.baselines,
         .help = "fine-tune/sweep CSV(s), comma-separated: references in the layers view"},
        {.name = "exit", .type = ARG_STRING, .value = &o->src.exit,
         .help = "fine-tune or sweep CSV(s), comma-separated: the exit view (e)"},
        {.name = "cost", .type = ARG_STRING, .value = &t->cost, .help = "exit view: flops | seconds (default flops)"},
        {.name = "flow", .type = ARG_STRING, .value = &o->src.flow, .help = "attnflow CSV: the flow view (f)"},
        {.name = "repo-range", .type = ARG_STRING, .value = &o->src.repo_range,
         .help = "repo-eval --figures TASK-range.csv: the RePo range view (g)"},
        {.name = "repo-needle", .type = ARG_STRING, .value = &o->src.repo_needle,
         .help = "repo-eval --figures TASK-attention.csv: the needle view (n)"},
        {.name = "dataset", .type = ARG_STRING, .value = &o->src.dataset,
         .help = "exit view: the dataset of a sweep CSV holding several"},
        {.name = "split", .type = ARG_STRING, .value = &o->src.split,
         .help = "layers and exit views: the split (default test)"},
        {.name = "heads", .type = ARG_STRING, .value = &o->src.heads,
         .help = "CSV of seqrep heads: the heads view (H)"},
        {.name = "html", .type = ARG_STRING, .value = &o->html,
         .help = "write the explorer as one self-contained web page OUT.html instead of opening a window"},
        {.name = "html-r", .type = ARG_STRING, .value = &t->html_r,
         .help = "with --html: the r the page holds, comma-separated (default the first r)"},
        {.name = "html-views", .type = ARG_STRING, .value = &o->html_views,
         .help = "with --html: the views the page holds, comma-separated (default every view)"},
    };
    char usage[2048];
    explore_usage(usage, sizeof usage);
    return args_parse(CMD, usage, specs, ARGS_COUNT(specs), argc, argv, NULL, 0, NULL);
}

/* --html-r: a comma list of r (0..99) into o. 0, or 2 after the error line. */
static int parse_html_r(ExplorerOptions *o, const char *text)
{
    if (!text) return 0;
    if (!o->html) return args_error(CMD, "--html-r needs --html");
    for (const char *p = text; *p;) {
        char *end;
        long r = strtol(p, &end, 10);
        if (end == p || r < 0 || r > 99 || (*end && *end != ',') || o->n_html_r == 16)
            return args_error(CMD, "--html-r must be a comma list of at most 16 r in 0..99, got '%s'", text);
        o->html_r[o->n_html_r++] = (int)r;
        p = *end ? end + 1 : end;
    }
    return 0;
}

/* Check the options given as text and fill the rest of o from them. 0, or
 * 2 after the error line. */
static int check_options(ExplorerOptions *o, const ExploreText *t)
{
    if (!o->src.model == !o->src.series)
        return args_error(CMD, "give either --model FILE or --series DIR (a snapshot series)");
    if (o->src.series && o->src.adapter)
        return args_error(CMD, "--adapter goes with --model; an epoch series names its adapters itself");
    if (!o->src.data == !o->src.text)
        return args_error(CMD, "give either --data FILE.conll or --text \"a sentence\"");
    if (t->sentence != 0 && !o->src.data) return args_error(CMD, "--sentence needs --data");
    if (o->script && o->script_file) return args_error(CMD, "give either --script or --script-file");
    if (o->html && (o->script || o->script_file || o->frame_times))
        return args_error(CMD, "--html writes a page and opens no window: no --script, --script-file or --frame-times");
    if (o->html_views && !o->html) return args_error(CMD, "--html-views needs --html");
    if (parse_html_r(o, t->html_r)) return 2;
    o->bos_given = t->bos != NULL;
    if (option_parse_bos(CMD, t->bos ? t->bos : "per-copy", &o->bos) || option_parse_sep(CMD, t->sep, &o->sep) ||
        option_parse_copy_positions(CMD, t->copy_positions, &o->src.copy_positions))
        return 2;
    if (figure_request_head(t->head, EXPLORER_HEAD_MAX, &o->head))
        return args_error(CMD, "--head must be a head number or mean, got '%s'", t->head);
    if (attention_scale_parse(t->scale, &o->scale))
        return args_error(CMD, "--scale must be fixed, per-head or log, got '%s'", t->scale);
    if (figure_theme_parse(t->theme, &o->theme))
        return args_error(CMD, "--theme must be light or dark, got '%s'", t->theme);
    if (parse_view(t->view, &o->view))
        return args_error(CMD, "--view must be mask, attention, overview, layers, exit, flow, repo-z, repo-repeat, "
                                "repo-range or repo-needle, got '%s'", t->view);
    if (parse_window_size(t->size, &o->width, &o->height))
        return args_error(CMD, "--size must be WIDTHxHEIGHT with sides 200..8192, such as 1280x860, got '%s'", t->size);
    if (t->cost && strcmp(t->cost, "flops") != 0 && strcmp(t->cost, "seconds") != 0)
        return args_error(CMD, "--cost must be flops or seconds, got '%s'", t->cost);
    o->src.cost = t->cost;
    if (o->src.baselines && !o->src.layers) return args_error(CMD, "--baselines needs --layers");
    struct stat st;
    if (stat(t->save_dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return args_error(CMD, "--save-dir %s: not a directory", t->save_dir);
    o->save_dir = t->save_dir;
    SrError err;
    const char *font = o->src.font ? o->src.font : FIGURE_DEFAULT_FONT;
    if (strlen(font) >= sizeof(((FigureStyle *)0)->font)) return args_error(CMD, "--font: name too long");
    if (figure_check_font(font, &err)) return args_error(CMD, "%s", err.msg);
    o->sentence = t->sentence;
    o->r = t->r;
    o->layer = t->layer;
    return 0;
}

int cmd_explore(int argc, char **argv)
{
    ExplorerOptions o;
    memset(&o, 0, sizeof o);
    ExploreText t = {.bos = NULL, .sep = "none", .copy_positions = "run", .head = "mean", .scale = "fixed", .theme = "light",
                     .size = "1280x860", .view = "attention", .save_dir = ".", .cost = NULL,
                     .sentence = 0, .r = -1, .layer = -1};
    int rc = parse_options(argc, argv, &o, &t);
    if (rc) return rc == 1 ? 0 : rc;
    if (check_options(&o, &t)) return 2;
    SrError err;
    rc = o.html ? explorer_write_page(&o, &err) : explorer_run(&o, &err);
    figure_fonts_release();
    return rc ? args_error(CMD, "%s", err.msg) : 0;
}
