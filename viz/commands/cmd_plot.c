/* cmd_plot.c — `seqrep plot FIGURE [options] --out FILE.{png,svg,pdf}`: draw
 * one figure from what the core computes (mask, proportion, attention) or
 * from result files of other commands (layers, exit, flow), and write it with
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

#include "attention/attention_data.h"
#include "base/atomic_file.h"
#include "base/text_file.h"
#include "commands/viz_commands.h"
#include "data/conll.h"
#include "draw/export.h"
#include "figures/figures.h"
#include "options/args.h"
#include "options/rows.h"
#include "repo/repo_z_attention.h"
#include "results/file_list.h"
#include "runs/manifest.h"
#include "text/tokenizer.h"

static const char *CMD = "plot";

/* Which figures an option applies to: one bit per FigureKind. */
#define FOR_ALL ((1 << FIGURE_COUNT) - 1)
#define FOR(kind) (1 << (kind))

/* Every option's value. */
typedef struct {
    const char *out, *size, *theme, *font, *title, *caption;
    int n;
    const char *r, *bos, *sep, *copy_positions;
    const char *model, *adapter, *text, *data, *mask, *head, *scale;
    int sentence, layer, overview, last_copy_only, length;
    const char *results, *split, *baselines, *cost, *dataset;
} PlotOptions;

/* Split "W" "x" "H" into two sizes; 0 or -1. */
static int parse_size(const char *text, double *w, double *h)
{
    char *end;
    long a = strtol(text, &end, 10);
    if (end == text || (*end != 'x' && *end != 'X')) return -1;
    const char *second = end + 1;
    long b = strtol(second, &end, 10);
    if (end == second || *end) return -1;
    *w = (double)a;
    *h = (double)b;
    return 0;
}

/* Parse --head: "mean" is -1, otherwise a non-negative integer. */
static int parse_head(const char *text, int *head)
{
    if (strcmp(text, "mean") == 0) {
        *head = -1;
        return 0;
    }
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end || v < 0 || v > 1000000) return -1;
    *head = (int)v;
    return 0;
}

/* Parse one repetition count "R" (digits only, at most 100000); 0 or -1. */
static int parse_one_r(const char *text, int *r)
{
    if (!*text || strspn(text, "0123456789") != strlen(text) || strlen(text) > 6) return -1;
    *r = atoi(text);
    return *r <= 100000 ? 0 : -1;
}

/* --bos and --sep of a figure over a repeated sentence: --bos defaults as
 * the figure does (default_bos), --sep to none. 0 or -1 with err. */
static int parse_repeat_options(const PlotOptions *o, const char *default_bos, RepeatBos *bos,
                                RepeatSep *sep, SrError *err)
{
    if (repeat_parse_bos(o->bos ? o->bos : default_bos, bos))
        return sr_fail(err, "--bos must be none, once or per-copy, got '%s'", o->bos);
    if (repeat_parse_sep(o->sep ? o->sep : "none", sep))
        return sr_fail(err, "--sep must be none or token, got '%s'", o->sep);
    return 0;
}

/* --copy-positions of a figure that runs a model: run (default) or restart.
 * 0 or -1 with err. */
static int parse_copy_positions(const PlotOptions *o, RepeatPositions *positions, SrError *err)
{
    if (repeat_parse_positions(o->copy_positions ? o->copy_positions : "run", positions))
        return sr_fail(err, "--copy-positions must be run or restart, got '%s'", o->copy_positions);
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

/* Add "key": path and "key_checksum" to the manifest, and, when the input
 * has a manifest of its own beside it (results of seqrep commands do),
 * that manifest as "key_manifest": the chain back to model, data and seed. */
static void add_input(cJSON *manifest, const char *key, const char *path)
{
    char name[64];
    SrError err;
    manifest_add_file(manifest, key, path);
    char *input_manifest = path_with_suffix(path, ".manifest.json"), *text = NULL;
    size_t len;
    if (input_manifest && strcmp(input_manifest, path) != 0 &&
        text_read_file(input_manifest, &text, &len, &err) == 0) {
        cJSON *parsed = cJSON_Parse(text);
        snprintf(name, sizeof name, "%s_manifest", key);
        if (cJSON_IsObject(parsed)) cJSON_AddItemToObject(manifest, name, parsed);
        else cJSON_Delete(parsed);
    }
    free(text);
    free(input_manifest);
}

/* The sentence of the attention figure: --text, or sentence I of a CoNLL
 * file (words joined by spaces). *source describes it for the caption. */
static int attention_sentence(const PlotOptions *o, char **text, char *source, size_t cap, SrError *err)
{
    if (o->text) {
        *text = malloc(strlen(o->text) + 1);
        if (!*text) return sr_fail(err, "out of memory");
        memcpy(*text, o->text, strlen(o->text) + 1);
        snprintf(source, cap, "given with --text");
        return 0;
    }
    Dataset ds;
    if (conll_read(o->data, &ds, err)) return -1;
    if (o->sentence < 0 || o->sentence >= ds.n_sents) {
        int n = ds.n_sents;
        dataset_free(&ds);
        return sr_fail(err, "%s: sentence %d out of range 0..%d", o->data, o->sentence, n - 1);
    }
    const Sentence *s = &ds.sents[o->sentence];
    size_t len = 1;
    for (int i = 0; i < s->n_words; i++) len += strlen(s->words[i]) + 1;
    *text = malloc(len);
    if (!*text) {
        dataset_free(&ds);
        return sr_fail(err, "out of memory");
    }
    (*text)[0] = 0;
    for (int i = 0; i < s->n_words; i++) {
        if (i) strcat(*text, " ");
        strcat(*text, s->words[i]);
    }
    snprintf(source, cap, "sentence %d of %s (line %d)", o->sentence, o->data, s->line);
    dataset_free(&ds);
    return 0;
}

/* Record what a model-run figure ran: the model, adapter and data files,
 * the sentence, r, bos, sep and the mask plan. */
static void add_model_run(cJSON *manifest, const PlotOptions *o, const char *text, int r, RepeatBos bos,
                          RepeatSep sep, RepeatPositions positions)
{
    add_input(manifest, "model", o->model);
    if (o->adapter) add_input(manifest, "adapter", o->adapter);
    if (o->data) add_input(manifest, "data", o->data);
    cJSON_AddStringToObject(manifest, "sentence", text);
    cJSON_AddNumberToObject(manifest, "r", r);
    cJSON_AddStringToObject(manifest, "bos", repeat_bos_name(bos));
    cJSON_AddStringToObject(manifest, "sep", repeat_sep_name(sep));
    cJSON_AddStringToObject(manifest, "mask", o->mask ? o->mask : "causal");
    cJSON_AddStringToObject(manifest, "copy_positions", repeat_positions_name(positions));
}

/* Build the attention figure's data, title and caption. */
static int build_attention(Figure *f, const PlotOptions *o, cJSON *manifest, long long *seed, SrError *err)
{
    RepeatBos bos;
    RepeatSep sep;
    RepeatPositions positions;
    AttentionScale scale;
    int r = 1, head;
    if (parse_repeat_options(o, "per-copy", &bos, &sep, err)) return -1;
    if (parse_copy_positions(o, &positions, err)) return -1;
    if (attention_scale_parse(o->scale ? o->scale : "fixed", &scale))
        return sr_fail(err, "--scale must be fixed, per-head or log, got '%s'", o->scale);
    if (parse_head(o->head ? o->head : "mean", &head))
        return sr_fail(err, "--head must be a head number or mean, got '%s'", o->head);
    if (o->r && parse_one_r(o->r, &r))
        return sr_fail(err, "--r must be one repetition count >= 0 for attention, got '%s'", o->r);
    if (!o->model) return sr_fail(err, "attention needs --model FILE");
    if (!o->text == !o->data) return sr_fail(err, "attention needs either --text \"a sentence\" or --data FILE.conll");
    char *text, source[400];
    if (attention_sentence(o, &text, source, sizeof source, err)) return -1;
    AttentionData *d = &f->attention;
    int rc = attention_data_from_model(d, o->model, o->adapter, text, r, &bos, o->bos != NULL, sep, positions,
                                       o->mask, seed, err);
    if (rc == 0) {
        int layer = o->layer >= 0 ? o->layer : d->n_layers - 1;
        rc = attention_select(d, layer, head, err);
    }
    /* the explorer's `b` filter, so its saved frame and this figure agree */
    if (rc == 0 && o->last_copy_only) attention_last_copy_visible(d, d->visible);
    if (rc) {
        free(text);
        return -1;
    }
    d->scale = scale;
    char checksum[17];
    if (model_checksum(o->model, checksum, err) != 0) snprintf(checksum, sizeof checksum, "?");
    attention_data_describe(d, f->overview, o->model, o->adapter, checksum, *seed, text, source, r, bos, sep,
                            o->mask);
    add_model_run(manifest, o, text, r, bos, sep, positions);
    cJSON_AddNumberToObject(manifest, "layer", d->layer);
    if (d->head >= 0) cJSON_AddNumberToObject(manifest, "head", d->head);
    else cJSON_AddStringToObject(manifest, "head", "mean");
    cJSON_AddStringToObject(manifest, "scale", attention_scale_name(scale));
    cJSON_AddBoolToObject(manifest, "overview", f->overview);
    free(text);
    return 0;
}

/* Build the mask figure: --n, --r (one value), --bos, --sep. */
static int build_mask(Figure *f, const PlotOptions *o, cJSON *manifest, SrError *err)
{
    RepeatBos bos;
    RepeatSep sep;
    int r;
    if (o->n < 1 || !o->r) return sr_fail(err, "mask needs --n N and --r R");
    if (parse_one_r(o->r, &r))
        return sr_fail(err, "--r must be one repetition count >= 0 for mask, got '%s'", o->r);
    if (parse_repeat_options(o, "none", &bos, &sep, err)) return -1;
    if (mask_data_build(&f->mask, o->n, r, bos, sep, err)) return -1;
    cJSON_AddNumberToObject(manifest, "n", o->n);
    cJSON_AddNumberToObject(manifest, "r", r);
    cJSON_AddStringToObject(manifest, "bos", repeat_bos_name(bos));
    cJSON_AddStringToObject(manifest, "sep", repeat_sep_name(sep));
    cJSON_AddNumberToObject(manifest, "full_share", share_value(f->mask.full_share));
    return 0;
}

/* Build the proportion figure: from --results (seqrep blocks CSV) or by
 * counting --n and --r LIST here. */
static int build_proportion(Figure *f, const PlotOptions *o, cJSON *manifest, SrError *err)
{
    if (o->results) {
        if (o->n || o->r || o->bos || o->sep)
            return sr_fail(err, "proportion takes either --results FILE or --n and --r, not both");
        if (proportion_data_load(&f->proportion, o->results, err)) return -1;
        add_input(manifest, "results", o->results);
        return 0;
    }
    RepeatBos bos;
    RepeatSep sep;
    if (o->n < 1 || !o->r) return sr_fail(err, "proportion needs --results FILE, or --n N and --r LIST");
    if (parse_repeat_options(o, "none", &bos, &sep, err)) return -1;
    int *values, n_values;
    if (repeat_parse_r_list(o->r, &values, &n_values, err)) return -1;
    int rc = proportion_data_count(&f->proportion, o->n, values, n_values, bos, sep, err);
    free(values);
    if (rc) return -1;
    cJSON_AddNumberToObject(manifest, "n", o->n);
    cJSON_AddStringToObject(manifest, "r", o->r);
    cJSON_AddStringToObject(manifest, "bos", repeat_bos_name(bos));
    cJSON_AddStringToObject(manifest, "sep", repeat_sep_name(sep));
    return 0;
}

/* Add {"file", "file_checksum"} objects for paths to manifest[key]. */
static void add_inputs(cJSON *manifest, const char *key, const char *const *paths, int n)
{
    cJSON *files = cJSON_AddArrayToObject(manifest, key);
    for (int i = 0; i < n; i++) {
        cJSON *one = cJSON_CreateObject();
        add_input(one, "file", paths[i]);
        cJSON_AddItemToArray(files, one);
    }
}

/* Build the layers figure from --results FILE[,FILE...] and --baselines. */
static int build_layers(Figure *f, const PlotOptions *o, cJSON *manifest, SrError *err)
{
    if (!o->results) return sr_fail(err, "layers needs --results FILE[,FILE...] (probe CSVs)");
    const char *paths[FILE_LIST_MAX], *base[FILE_LIST_MAX];
    char *list = NULL, *base_list = NULL;
    int n = file_list_split(o->results, &list, paths, FILE_LIST_MAX);
    int n_base = o->baselines ? file_list_split(o->baselines, &base_list, base, FILE_LIST_MAX) : 0;
    const char *split = o->split ? o->split : "test";
    int rc;
    if (n < 0 || n_base < 0) rc = sr_fail(err, "out of memory");
    else if (n == 0) rc = sr_fail(err, "--results: no file given");
    else rc = layers_data_load(&f->layers, paths, n, split, base, n_base, err);
    if (rc == 0) {
        add_inputs(manifest, "results", paths, n);
        if (n_base) add_inputs(manifest, "baselines", base, n_base);
        cJSON_AddStringToObject(manifest, "split", split);
    }
    free(list);
    free(base_list);
    return rc;
}

/* Build the exit figure from --results FILE[,FILE...], --cost and --split. */
static int build_exit(Figure *f, const PlotOptions *o, cJSON *manifest, SrError *err)
{
    const char *cost = o->cost ? o->cost : "flops";
    if (strcmp(cost, "flops") != 0 && strcmp(cost, "seconds") != 0)
        return sr_fail(err, "--cost must be flops or seconds, got '%s'", cost);
    if (!o->results) return sr_fail(err, "exit needs --results FILE[,FILE...] (finetune or sweep CSVs)");
    const char *paths[FILE_LIST_MAX], *split = o->split ? o->split : "test";
    char *list = NULL;
    int n = file_list_split(o->results, &list, paths, FILE_LIST_MAX), rc;
    if (n < 0) rc = sr_fail(err, "out of memory");
    else if (n == 0) rc = sr_fail(err, "--results: no file given");
    else rc = exit_data_load(&f->exit, paths, n, cost, split, o->dataset, err);
    if (rc == 0) {
        add_inputs(manifest, "results", paths, n);
        if (o->dataset) cJSON_AddStringToObject(manifest, "dataset", o->dataset);
        cJSON_AddStringToObject(manifest, "cost", cost);
        cJSON_AddStringToObject(manifest, "split", split);
    }
    free(list);
    return rc;
}

/* Build the flow figure from --results (attnflow CSV) and --head. */
static int build_flow(Figure *f, const PlotOptions *o, cJSON *manifest, SrError *err)
{
    int head;
    if (!o->results) return sr_fail(err, "flow needs --results FILE (from seqrep attnflow --out)");
    if (parse_head(o->head ? o->head : "mean", &head))
        return sr_fail(err, "--head must be a head number or mean, got '%s'", o->head);
    if (flow_data_load(&f->flow, o->results, head, err)) return -1;
    add_input(manifest, "results", o->results);
    if (head >= 0) cJSON_AddNumberToObject(manifest, "head", head);
    else cJSON_AddStringToObject(manifest, "head", "mean");
    return 0;
}

/* Build repo-z or repo-repeat: z from a CSV (--results) or computed here by
 * running --model on the sentence (--text or --data/--sentence), repeated
 * --r times, as the attention figure does; --layer (default the last) and
 * --head (a number, default 0) choose the positions drawn. */
static int build_repo_z(Figure *f, const PlotOptions *o, cJSON *manifest, long long *seed, SrError *err)
{
    int head = 0;
    if (o->head && (parse_head(o->head, &head) || head < 0))
        return sr_fail(err, "--head must be a head number for %s (z is one position per head), got '%s'",
                       figure_kind_name(f->kind), o->head);
    if (o->results) {
        if (o->model || o->adapter || o->text || o->data || o->r || o->bos || o->sep || o->mask ||
            o->copy_positions)
            return sr_fail(err, "%s takes either --results FILE (a z CSV) or --model with a sentence, not both",
                           figure_kind_name(f->kind));
        if (repo_z_data_load(&f->repo_z, o->results, o->layer, head, err)) return -1;
        add_input(manifest, "results", o->results);
    } else {
        RepeatBos bos;
        RepeatSep sep;
        RepeatPositions positions;
        int r = 1;
        if (!o->model) return sr_fail(err, "%s needs --results FILE (a z CSV) or --model FILE with --text or --data",
                                      figure_kind_name(f->kind));
        if (!o->text == !o->data) return sr_fail(err, "--model needs either --text \"a sentence\" or --data FILE.conll");
        if (parse_repeat_options(o, "per-copy", &bos, &sep, err)) return -1;
        if (parse_copy_positions(o, &positions, err)) return -1;
        if (o->r && parse_one_r(o->r, &r))
            return sr_fail(err, "--r must be one repetition count >= 0, got '%s'", o->r);
        char *text, source[400], described[1200];
        if (attention_sentence(o, &text, source, sizeof source, err)) return -1;
        AttentionData a;
        int rc = attention_data_from_model(&a, o->model, o->adapter, text, r, &bos, o->bos != NULL, sep,
                                           positions, o->mask, seed, err);
        if (rc == 0) {
            repo_z_source(described, sizeof described, o->model, o->adapter, text, source, r, bos, sep, o->mask);
            rc = repo_z_data_from_attention(&f->repo_z, &a, o->layer, head, described, err);
            attention_data_free(&a);
        }
        if (rc == 0) add_model_run(manifest, o, text, r, bos, sep, positions);
        free(text);
        if (rc) return -1;
    }
    if (f->kind == FIGURE_REPO_REPEAT && f->repo_z.n_copies < 2)
        return sr_fail(err, "repo-repeat compares the copies of a repeated input: %s",
                       o->results ? "this z CSV has one copy (run repo-positions with --r 1 or more)"
                                  : "give --r 1 or more");
    cJSON_AddNumberToObject(manifest, "layer", f->repo_z.layer);
    cJSON_AddNumberToObject(manifest, "head", f->repo_z.head);
    return 0;
}

/* Build repo-range or repo-needle from --results (repo-eval --figures CSVs);
 * repo-needle draws --length (default the longest). */
static int build_repo_results(Figure *f, const PlotOptions *o, cJSON *manifest, SrError *err)
{
    if (!o->results)
        return sr_fail(err, "%s needs --results FILE (from seqrep repo-eval --figures DIR: %s)",
                       figure_kind_name(f->kind),
                       f->kind == FIGURE_REPO_RANGE ? "TASK-range.csv" : "TASK-attention.csv");
    int rc = f->kind == FIGURE_REPO_RANGE ? repo_range_data_load(&f->repo_range, o->results, err)
                                          : repo_needle_data_load(&f->repo_needle, o->results, o->length, err);
    if (rc) return -1;
    add_input(manifest, "results", o->results);
    if (f->kind == FIGURE_REPO_NEEDLE) cJSON_AddNumberToObject(manifest, "length", f->repo_needle.length);
    return 0;
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

/* The figures the option called name applies to (FOR bits); 0 for a name
 * no figure takes. */
static int option_figures(const char *name)
{
    const int model_run = FOR(FIGURE_ATTENTION) | FOR(FIGURE_REPO_Z) | FOR(FIGURE_REPO_REPEAT);
    const int repeated = FOR(FIGURE_MASK) | FOR(FIGURE_PROPORTION) | model_run;
    const int results = FOR(FIGURE_PROPORTION) | FOR(FIGURE_LAYERS) | FOR(FIGURE_EXIT) | FOR(FIGURE_FLOW) |
                        FOR(FIGURE_REPO_Z) | FOR(FIGURE_REPO_REPEAT) | FOR(FIGURE_REPO_RANGE) |
                        FOR(FIGURE_REPO_NEEDLE);
    const struct {
        const char *name;
        int figures;
    } APPLIES[] = {
        {"out", FOR_ALL}, {"size", FOR_ALL}, {"theme", FOR_ALL}, {"font", FOR_ALL},
        {"title", FOR_ALL}, {"caption", FOR_ALL},
        {"n", FOR(FIGURE_MASK) | FOR(FIGURE_PROPORTION)},
        {"r", repeated}, {"bos", repeated}, {"sep", repeated}, {"copy-positions", model_run},
        {"model", model_run}, {"adapter", model_run}, {"text", model_run}, {"data", model_run}, {"sentence", model_run},
        {"mask", model_run}, {"layer", model_run},
        {"head", model_run | FOR(FIGURE_FLOW)},
        {"overview", FOR(FIGURE_ATTENTION)}, {"last-copy-only", FOR(FIGURE_ATTENTION)},
        {"scale", FOR(FIGURE_ATTENTION)},
        {"results", results},
        {"split", FOR(FIGURE_LAYERS) | FOR(FIGURE_EXIT)}, {"baselines", FOR(FIGURE_LAYERS)},
        {"cost", FOR(FIGURE_EXIT)}, {"dataset", FOR(FIGURE_EXIT)},
        {"length", FOR(FIGURE_REPO_NEEDLE)},
    };
    for (size_t i = 0; i < sizeof APPLIES / sizeof APPLIES[0]; i++)
        if (strcmp(APPLIES[i].name, name) == 0) return APPLIES[i].figures;
    return 0;
}

/* Read the command line into o and the figure's kind, and refuse an option
 * given to a figure it does not apply to. 0, 1 after --help, or 2 after the
 * error line. */
static int parse_options(int argc, char **argv, PlotOptions *o, FigureKind *kind)
{
    ArgSpec specs[] = {
        {"out", ARG_STRING, &o->out, "figure file: .png, .svg or .pdf (numbers go to .csv, provenance to .manifest.json beside it)", 1, 0, 0},
        {"size", ARG_STRING, &o->size, "WxH in pixels (PNG) or points (SVG, PDF); default per figure", 0, 0, 0},
        {"theme", ARG_STRING, &o->theme, "light | dark (default light)", 0, 0, 0},
        {"font", ARG_STRING, &o->font, "font family (default " FIGURE_DEFAULT_FONT ")", 0, 0, 0},
        {"title", ARG_STRING, &o->title, "replace the title", 0, 0, 0},
        {"caption", ARG_STRING, &o->caption, "replace the caption", 0, 0, 0},
        {"n", ARG_INT, &o->n, "mask, proportion: tokens in the sentence", 0, 1, 0},
        {"r", ARG_STRING, &o->r, "mask, attention, repo-z, repo-repeat: repetitions R; proportion: a list such as 0..8", 0, 0, 0},
        option_bos(&o->bos, "none | once | per-copy (mask, proportion: none; attention: per-copy, none when the "
                              "tokenizer adds no BOS)"),
        option_sep(&o->sep, "none | token (default none)"),
        option_copy_positions(&o->copy_positions),
        {"model", ARG_STRING, &o->model, "attention, repo-z, repo-repeat: checkpoint (.safetensors) or (attention) Hugging Face model folder", 0, 0, 0},
        option_adapter_file(&o->adapter, "attention, repo-z, repo-repeat: file of finetune --save whose LoRA "
                                         "adapters are merged into --model (its head is not used)"),
        {"text", ARG_STRING, &o->text, "attention, repo-z, repo-repeat: the sentence", 0, 0, 0},
        {"data", ARG_STRING, &o->data, "attention, repo-z, repo-repeat: a CoNLL file to take the sentence from", 0, 0, 0},
        {"sentence", ARG_INT, &o->sentence, "attention, repo-z, repo-repeat: index of the sentence in --data (default 0)", 0, 0, 0},
        option_mask(&o->mask, "attention, repo-z, repo-repeat: mask plan causal | middle | full | layer list (default causal)"),
        {"layer", ARG_INT, &o->layer, "attention, repo-z, repo-repeat: layer to draw (default the last)", 0, 0, 0},
        {"head", ARG_STRING, &o->head, "attention, flow: head number or mean (default mean); repo-z, repo-repeat: head number (default 0)", 0, 0, 0},
        {"overview", ARG_FLAG, &o->overview, "attention: the layer x head grid", 0, 0, 0},
        {"last-copy-only", ARG_FLAG, &o->last_copy_only,
         "attention: only what the last copy sends into earlier copies (explorer key b)", 0, 0, 0},
        {"scale", ARG_STRING, &o->scale, "attention: fixed (0..1) | per-head | log (default fixed)", 0, 0, 0},
        {"results", ARG_STRING, &o->results, "proportion: blocks CSV; layers: probe CSV(s), comma-separated; exit: finetune/sweep CSV(s); flow: attnflow CSV; repo-z, repo-repeat: z CSV (repo-positions, repo-eval --figures) instead of --model; repo-range, repo-needle: repo-eval --figures CSV", 0, 0, 0},
        {"split", ARG_STRING, &o->split, "layers, exit: the split to draw (default test)", 0, 0, 0},
        {"baselines", ARG_STRING, &o->baselines, "layers: finetune/sweep CSV(s), comma-separated, drawn as horizontal references", 0, 0, 0},
        {"cost", ARG_STRING, &o->cost, "exit: flops | seconds (default flops)", 0, 0, 0},
        {"dataset", ARG_STRING, &o->dataset, "exit: the dataset of a sweep CSV that holds several", 0, 0, 0},
        {"length", ARG_INT, &o->length, "repo-needle: the context length to draw (default the longest)", 0, 1, 0},
    };
    const char *positional[1];
    int n_positional = 0;
    int rc = args_parse(CMD, "FIGURE --out FILE.{png,svg,pdf} [options]\n\nfigures: mask, proportion, "
                             "attention, layers, exit, flow, repo-z, repo-repeat, repo-range, repo-needle",
                        specs, ARGS_COUNT(specs), argc, argv, positional, ARGS_COUNT(positional),
                        &n_positional);
    if (rc) return rc;
    if (n_positional != 1)
        return args_error(CMD, "which figure? give one of: %s", figure_kind_list());
    if (figure_kind_parse(positional[0], kind))
        return args_error(CMD, "unknown figure '%s' (figures: %s)", positional[0], figure_kind_list());
    for (int i = 0; i < ARGS_COUNT(specs); i++)
        if (specs[i].set && !(option_figures(specs[i].name) & FOR(*kind)))
            return args_error(CMD, "--%s does not apply to figure '%s' (see --help)", specs[i].name,
                              figure_kind_name(*kind));
    return 0;
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
    const char *inputs[] = {o->results, o->baselines, o->model, o->adapter, o->data};
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++)
        if (check_not_input(o->out, inputs[i], &err)) return args_error(CMD, "%s", err.msg);
    return 0;
}

/* Build the data of figure f->kind from the options, recording its inputs
 * in the manifest and the model's training seed in *seed. 0 or -1 with err. */
static int build_figure(Figure *f, const PlotOptions *o, cJSON *manifest, long long *seed, SrError *err)
{
    switch (f->kind) {
    case FIGURE_MASK: return build_mask(f, o, manifest, err);
    case FIGURE_PROPORTION: return build_proportion(f, o, manifest, err);
    case FIGURE_ATTENTION: return build_attention(f, o, manifest, seed, err);
    case FIGURE_LAYERS: return build_layers(f, o, manifest, err);
    case FIGURE_EXIT: return build_exit(f, o, manifest, err);
    case FIGURE_REPO_Z:
    case FIGURE_REPO_REPEAT: return build_repo_z(f, o, manifest, seed, err);
    case FIGURE_REPO_RANGE:
    case FIGURE_REPO_NEEDLE: return build_repo_results(f, o, manifest, err);
    default: return build_flow(f, o, manifest, err);
    }
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
    PlotOptions o = {.layer = -1, .sentence = 0};
    Figure f;
    memset(&f, 0, sizeof f);
    int rc = parse_options(argc, argv, &o, &f.kind);
    if (rc) return rc == 1 ? 0 : rc;
    f.overview = o.overview;
    PlotLook look;
    if (check_look(&o, &look)) return 2;

    SrError err;
    long long seed = -1;
    cJSON *manifest = manifest_begin(argc, argv, 0);
    cJSON_AddStringToObject(manifest, "figure", figure_kind_name(f.kind));
    if (build_figure(&f, &o, manifest, &seed, &err)) {
        cJSON_Delete(manifest);
        figure_free(&f); /* a builder may have filled the data before a later check failed */
        return args_error(CMD, "%s", err.msg);
    }
    apply_look(&f, &o, &look, seed, manifest);
    rc = write_outputs(&f, o.out, look.w, look.h, manifest, &err);
    cJSON_Delete(manifest);
    figure_free(&f);
    if (rc) return args_error(CMD, "%s", err.msg);
    fprintf(stderr, "wrote %s\n", o.out);
    return 0;
}
