/* cmd_plot.c — `seqrep plot FIGURE [options] --out FILE.{png,svg,pdf}`: draw
 * one figure from what the core computes (mask, proportion, attention) or
 * from result files of other commands (layers, exit, flow, heads, timeline), and write it with
 * the numbers behind it (FILE's stem + ".csv") and a manifest (stem +
 * ".manifest.json": command, seed, git commit, input checksums).
 *
 * The figures are listed in figures/figures.h; each option applies to some of
 * them, and giving one to a figure it does not apply to is an error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cJSON.h>

#include "base/atomic_file.h"
#include "commands/size_option.h"
#include "commands/viz_commands.h"
#include "draw/export.h"
#include "figures/attention_figure.h"
#include "figures/figures.h"
#include "figures/timeline_figure.h"
#include "options/args.h"
#include "options/help_text.h"
#include "options/rows.h"
#include "runs/manifest.h"

static const char *CMD = "plot";

/* Every option's value: the look of the figure and what its data is. */
typedef struct {
    const char *out, *size, *theme, *font, *title, *caption;
    FigureRequest q;
} PlotOptions;

/* Split "W" "x" "H" into two sizes; 0 or -1. */
static int parse_size(const char *text, double *w, double *h)
{
    long a, b;
    if (size_option_parse(text, &a, &b)) return -1;
    *w = (double)a;
    *h = (double)b;
    return 0;
}

/* 1 if a and b name the same existing file. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Fail if writing the figure, its numbers or its manifest would replace one
 * of the inputs named in `list` (a comma list, may be NULL). */
static int check_not_input(const char *out, const char *list, SrError *err)
{
    if (!list) return 0;
    char *csv = path_with_suffix(out, ".csv"), *manifest = path_with_suffix(out, ".manifest.json");
    char *copy = malloc(strlen(list) + 1);
    int rc = 0;
    if (!csv || !manifest || !copy) {
        rc = sr_fail(err, "out of memory");
    } else {
        memcpy(copy, list, strlen(list) + 1);
        char *save = NULL;
        for (char *p = strtok_r(copy, ",", &save); p && rc == 0; p = strtok_r(NULL, ",", &save))
            if (same_file(p, out) || same_file(p, csv) || same_file(p, manifest))
                rc = sr_fail(err, "--out %s would overwrite the input %s (the figure's numbers go to %s); "
                             "choose another name", out, p, csv);
    }
    free(csv);
    free(manifest);
    free(copy);
    return rc;
}

/* Write the figure, its numbers and its manifest. */
static int write_outputs(Figure *f, const char *out, double w, double h, cJSON *manifest, SrError *err)
{
    ExportTarget t;
    if (export_open(&t, out, w, h, err)) return -1;
    if (figure_paint(export_context(&t), f, t.width, t.height)) {
        export_abort(&t);
        return sr_fail(err, "%s: drawing failed", out);
    }
    if (export_close(&t, err)) return -1;
    char *csv_path = path_with_suffix(out, ".csv"), *manifest_path = path_with_suffix(out, ".manifest.json");
    char *numbers = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&numbers, &len);
    int rc = 0;
    if (!csv_path || !manifest_path || !mem) {
        rc = sr_fail(err, "out of memory");
    } else {
        figure_write_numbers(f, mem);
        fclose(mem);
        mem = NULL;
        rc = numbers ? write_file_atomic(csv_path, numbers, err) : sr_fail(err, "out of memory");
    }
    if (mem) fclose(mem);
    if (rc == 0) {
        cJSON_AddStringToObject(manifest, "result", out);
        cJSON_AddStringToObject(manifest, "numbers", csv_path);
        cJSON_AddStringToObject(manifest, "title", figure_meta(f)->title);
        cJSON_AddStringToObject(manifest, "caption", figure_meta(f)->caption);
        char *text = cJSON_Print(manifest);
        rc = text ? write_file_atomic(manifest_path, text, err) : sr_fail(err, "out of memory");
        free(text);
    }
    free(numbers);
    free(csv_path);
    free(manifest_path);
    return rc;
}

/* The figure named by the one positional word, and the check that every
 * option given applies to it. 0, or 2 after the error line. */
static int check_figure(const ArgSpec *specs, int n_specs, const char *const *positional, int n_positional,
                        FigureKind *kind)
{
    char figures[256];
    figure_kind_list(figures, sizeof figures);
    if (n_positional != 1) return args_error(CMD, "which figure? give one of: %s", figures);
    if (figure_kind_parse(positional[0], kind))
        return args_error(CMD, "unknown figure '%s' (figures: %s)", positional[0], figures);
    for (int i = 0; i < n_specs; i++)
        if (specs[i].set && !figure_takes_option(*kind, specs[i].name))
            return args_error(CMD, "--%s does not apply to figure '%s' (see --help)", specs[i].name,
                              figure_kind_name(*kind));
    return 0;
}

/* The synopsis of --help: the form of the command and the figures. */
static void plot_usage(char *usage, size_t cap)
{
    char figures[256];
    figure_kind_list(figures, sizeof figures);
    snprintf(usage, cap, "FIGURE --out FILE.{png,svg,pdf} [options]\n\nfigures: %s", figures);
}

/* Read the command line into o and the figure's kind, and refuse an option
 * given to a figure it does not apply to. 0, 1 after --help, or 2 after the
 * error line. */
static int parse_options(int argc, char **argv, PlotOptions *o, FigureKind *kind)
{
    FigureRequest *q = &o->q;
    HelpText h = {0};
    ArgSpec specs[] = {
        {.name = "out", .type = ARG_STRING, .value = &o->out, .required = 1,
         .help = "figure file: .png, .svg or .pdf (numbers go to .csv, provenance to .manifest.json beside it)"},
        {.name = "size", .type = ARG_STRING, .value = &o->size,
         .help = "WxH in pixels (PNG) or points (SVG, PDF); default per figure"},
        {.name = "theme", .type = ARG_STRING, .value = &o->theme, .help = "light | dark (default light)"},
        {.name = "font", .type = ARG_STRING, .value = &o->font,
         .help = "font family (default " FIGURE_DEFAULT_FONT ")"},
        {.name = "title", .type = ARG_STRING, .value = &o->title, .help = "replace the title"},
        {.name = "caption", .type = ARG_STRING, .value = &o->caption, .help = "replace the caption"},
        {.name = "n", .type = ARG_INT, .value = &q->n, .min_int = 1,
         .help = "mask, proportion: tokens in the sentence"},
        {.name = "window", .type = ARG_INT, .value = &q->window, .min_int = 1, .help = "mask: a sliding window of N keys"},
        {.name = "r", .type = ARG_STRING, .value = &q->r,
         .help = "mask, attention, repo-z, repo-repeat: repetitions R; proportion: a list such as 0..8"},
        option_bos(&q->bos, "none | once | per-copy (mask, proportion: none; attention: per-copy, none when the "
                            "tokenizer adds no BOS)"),
        option_sep(&q->sep, "none | token (default none)"),
        option_copy_positions(&q->copy_positions),
        {.name = "model", .type = ARG_STRING, .value = &q->model,
         .help = "attention, repo-z, repo-repeat: checkpoint (.safetensors) or (attention) Hugging Face model "
                 "folder"},
        option_adapter_file(&q->adapter, "attention, repo-z, repo-repeat: file of finetune --save whose LoRA "
                                         "adapters are merged into --model (its head is not used)"),
        {.name = "text", .type = ARG_STRING, .value = &q->text,
         .help = "attention, repo-z, repo-repeat: the sentence"},
        {.name = "data", .type = ARG_STRING, .value = &q->data,
         .help = "attention, repo-z, repo-repeat: a CoNLL file to take the sentence from"},
        {.name = "sentence", .type = ARG_INT, .value = &q->sentence,
         .help = "attention, repo-z, repo-repeat: index of the sentence in --data (default 0)"},
        option_mask(&q->mask, "attention, repo-z, repo-repeat: mask plan causal | middle | full | layer list "
                              "(default causal)"),
        {.name = "layer", .type = ARG_INT, .value = &q->layer,
         .help = "attention, repo-z, repo-repeat: layer to draw (default the last)"},
        {.name = "head", .type = ARG_STRING, .value = &q->head,
         .help = "attention, flow: head number or mean (default mean); repo-z, repo-repeat: head number (default 0)"},
        {.name = "overview", .type = ARG_FLAG, .value = &q->overview, .help = "attention: the layer x head grid"},
        {.name = "last-copy-only", .type = ARG_FLAG, .value = &q->last_copy_only,
         .help = "attention: only what the last copy sends into earlier copies (explorer key b)"},
        {.name = "scale", .type = ARG_STRING, .value = &q->scale,
         .help = "attention: fixed (0..1) | per-head | log (default fixed)"},
        {.name = "results", .type = ARG_STRING, .value = &q->results,
         .help = "proportion: blocks CSV; layers: probe CSV(s), comma-separated; exit: finetune/sweep CSV(s); flow: "
                 "attnflow CSV; repo-z, repo-repeat: z CSV (repo-positions, repo-eval --figures) instead of --model; "
                 "repo-range, repo-needle: repo-eval --figures CSV; heads: the CSV of seqrep heads"},
        {.name = "split", .type = ARG_STRING, .value = &q->split,
         .help = "layers, exit, timeline --what probe: the split to draw (default test)"},
        {.name = "baselines", .type = ARG_STRING, .value = &q->baselines,
         .help = "layers: finetune/sweep CSV(s), comma-separated, drawn as horizontal references"},
        {.name = "cost", .type = ARG_STRING, .value = &q->cost, .help = "exit: flops | seconds (default flops)"},
        {.name = "dataset", .type = ARG_STRING, .value = &q->dataset, .help = "exit: the dataset of a sweep CSV"},
        {.name = "length", .type = ARG_INT, .value = &q->length, .min_int = 1,
         .help = "repo-needle: the context length to draw (default the longest)"},
        {.name = "scores", .type = ARG_STRING, .value = &q->scores,
         .help = "heads: the scores to draw, one panel each in the order given: a comma list of copy, induction, "
                 "previous, sink, own_copy (default all five)"},
        {.name = "series", .type = ARG_STRING, .value = &q->series,
         .help = "timeline: a folder of train-lm --snapshots or finetune --save-epochs (its series.json)"},
        {.name = "what", .type = ARG_STRING, .value = &q->what, .help = "timeline: heads (score per head, ICL below) | "
         "loss | f1 (by epoch) | flow (attnflow share per layer) | probe (F1 per layer) (default " TIMELINE_DEFAULT_WHAT ")"},
        {.name = "measure", .type = ARG_STRING, .value = &q->measure,
         .help = "timeline --what heads: heads-random | heads-data (default " TIMELINE_DEFAULT_MEASURE ")"},
        {.name = "score", .type = ARG_STRING, .value = &q->score, .help = "timeline --what heads: copy | induction | "
         "previous | sink | own_copy (default " TIMELINE_DEFAULT_SCORE "); flow: an attnflow share, cue or non_cue"},
        {.name = "top", .type = ARG_INT, .value = &q->top, .min_int = 1, .help = help_text(&h, "timeline --what "
         "heads: heads coloured, the largest last (default %d, 1..%d)", TIMELINE_DEFAULT_TOP, TIMELINE_MAX_TOP)},
    };
    const char *positional[1];
    int n_positional = 0;
    char usage[320];
    plot_usage(usage, sizeof usage);
    int rc = args_parse(CMD, usage, specs, ARGS_COUNT(specs), argc, argv, positional, ARGS_COUNT(positional),
                        &n_positional);
    if (rc) return rc;
    return check_figure(specs, ARGS_COUNT(specs), positional, n_positional, kind);
}

/* How the figure is drawn: from --theme, --size (0 x 0 = the figure's
 * default) and --font. */
typedef struct {
    FigureTheme theme;
    double w, h;
    const char *font;
} PlotLook;

/* Check --theme, --size, the format of --out, --font, and that --out would
 * overwrite no input; fill look. 0, or 2 after the error line. */
static int check_look(const PlotOptions *o, PlotLook *look)
{
    SrError err;
    ExportFormat format;
    look->theme = THEME_LIGHT;
    look->w = look->h = 0;
    if (o->theme && figure_theme_parse(o->theme, &look->theme))
        return args_error(CMD, "--theme must be light or dark, got '%s'", o->theme);
    if (o->size && parse_size(o->size, &look->w, &look->h))
        return args_error(CMD, "--size must be WIDTHxHEIGHT such as 1600x1000, got '%s'", o->size);
    if (export_format_of(o->out, &format, &err)) return args_error(CMD, "%s", err.msg);
    look->font = o->font ? o->font : FIGURE_DEFAULT_FONT;
    FigureStyle style_size;
    if (strlen(look->font) >= sizeof style_size.font)
        return args_error(CMD, "--font: name too long");
    if (figure_check_font(look->font, &err)) return args_error(CMD, "%s", err.msg);
    const char *inputs[] = {o->q.results, o->q.baselines, o->q.model, o->q.adapter, o->q.data};
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++)
        if (check_not_input(o->out, inputs[i], &err)) return args_error(CMD, "%s", err.msg);
    return 0;
}

/* Give f its theme, font, --title and --caption, settle its size (look->w,
 * h), and record the seed and the look in the manifest. The seed is the
 * model's training seed for the figures run through a model; other figures
 * use none themselves (the seeds of their inputs are in the input
 * manifests). */
static void apply_look(Figure *f, const PlotOptions *o, PlotLook *look, long long seed, cJSON *manifest)
{
    if (seed >= 0) cJSON_ReplaceItemInObject(manifest, "seed", cJSON_CreateNumber((double)seed));
    else cJSON_ReplaceItemInObject(manifest, "seed", cJSON_CreateNull());
    FigureMeta *meta = figure_meta(f);
    meta->style.theme = look->theme;
    snprintf(meta->style.font, sizeof meta->style.font, "%s", look->font);
    if (o->title) snprintf(meta->title, sizeof meta->title, "%s", o->title);
    if (o->caption) snprintf(meta->caption, sizeof meta->caption, "%s", o->caption);
    if (!o->size) figure_default_size(f, &look->w, &look->h);
    cJSON_AddNumberToObject(manifest, "width", look->w);
    cJSON_AddNumberToObject(manifest, "height", look->h);
    cJSON_AddStringToObject(manifest, "theme", look->theme == THEME_DARK ? "dark" : "light");
    cJSON_AddStringToObject(manifest, "font", look->font);
}

int cmd_plot(int argc, char **argv)
{
    PlotOptions o = {.q = {.layer = -1, .sentence = 0}};
    Figure f;
    memset(&f, 0, sizeof f);
    int rc = parse_options(argc, argv, &o, &f.kind);
    if (rc) return rc == 1 ? 0 : rc;
    PlotLook look;
    if (check_look(&o, &look)) return 2;

    SrError err;
    long long seed = -1;
    cJSON *manifest = manifest_begin(argc, argv, 0);
    cJSON_AddStringToObject(manifest, "figure", figure_kind_name(f.kind));
    if (figure_load(&f, &o.q, manifest, &seed, &err)) {
        cJSON_Delete(manifest);
        figure_free(&f); /* a loader may have filled the data before a later check failed */
        return args_error(CMD, "%s", err.msg);
    }
    if (f.kind == FIGURE_ATTENTION) attention_figure_warn_unknown(&f, CMD, o.q.model);
    apply_look(&f, &o, &look, seed, manifest);
    rc = write_outputs(&f, o.out, look.w, look.h, manifest, &err);
    cJSON_Delete(manifest);
    figure_free(&f);
    if (rc) return args_error(CMD, "%s", err.msg);
    fprintf(stderr, "wrote %s\n", o.out);
    return 0;
}
