/* cmd_plot.c — `seqrep plot FIGURE [options] --out FILE.{png,svg,pdf}`: draw
 * one figure of the table of figures (figures/figures.h), from what the core
 * computes or from result files of other commands, and write it with the
 * numbers behind it (FILE's stem + ".csv") and a manifest (stem +
 * ".manifest.json": command, seed, git commit, input checksums).
 *
 * The options are the look's, here, and every row's (figures/figure_options.h);
 * each row's apply to its figure, and giving one to a figure it does not
 * apply to is an error. The figure's row loads, paints and writes it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cJSON.h>

#include "base/atomic_file.h"
#include "commands/size_option.h"
#include "commands/viz_commands.h"
#include "draw/export.h"
#include "draw/figure.h"
#include "figures/figure_options.h"
#include "figures/figures.h"
#include "options/args.h"
#include "runs/manifest.h"

static const char *CMD = "plot";

/* The values of the options that choose the look of the figure. */
typedef struct {
    const char *out, *size, *theme, *font, *title, *caption;
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

/* The row of the figure named by the one positional word, and the check
 * that every option given applies to it. 0, or 2 after the error line. */
static int check_figure(const FigureOptionTable *t, const char *const *positional, int n_positional,
                        const FigureRow **row)
{
    char figures[256];
    figure_names(figures, sizeof figures);
    if (n_positional != 1) return args_error(CMD, "which figure? give one of: %s", figures);
    *row = figure_find(positional[0]);
    if (!*row) return args_error(CMD, "unknown figure '%s' (figures: %s)", positional[0], figures);
    const ArgSpec *foreign = figure_options_foreign(t, *row);
    if (foreign) return args_error(CMD, "--%s does not apply to figure '%s' (see --help)", foreign->name, (*row)->name);
    return 0;
}

/* The synopsis of --help: the form of the command and the figures. */
static void plot_usage(char *usage, size_t cap)
{
    char figures[256];
    figure_names(figures, sizeof figures);
    snprintf(usage, cap, "FIGURE --out FILE.{png,svg,pdf} [options]\n\nfigures: %s", figures);
}

/* Read the command line into o (the look), t (the figure's options, those
 * of every row gathered) and the figure's row, and refuse an option given
 * to a figure it does not apply to. 0, 1 after --help, or 2 after the error
 * line. */
static int parse_options(int argc, char **argv, PlotOptions *o, FigureOptionTable *t, const FigureRow **row)
{
    const ArgSpec look[] = {
        {.name = "out", .type = ARG_STRING, .value = &o->out, .required = 1,
         .help = "figure file: .png, .svg or .pdf (numbers go to .csv, provenance to .manifest.json beside it)"},
        {.name = "size", .type = ARG_STRING, .value = &o->size,
         .help = "WxH in pixels (PNG) or points (SVG, PDF); default per figure"},
        {.name = "theme", .type = ARG_STRING, .value = &o->theme, .help = "light | dark (default light)"},
        {.name = "font", .type = ARG_STRING, .value = &o->font,
         .help = "font family (default " FIGURE_DEFAULT_FONT ")"},
        {.name = "title", .type = ARG_STRING, .value = &o->title, .help = "replace the title"},
        {.name = "caption", .type = ARG_STRING, .value = &o->caption, .help = "replace the caption"},
    };
    SrError err;
    if (figure_options_gather(t, look, ARGS_COUNT(look), &err)) return args_error(CMD, "%s", err.msg);
    const char *positional[1];
    int n_positional = 0;
    char usage[320];
    plot_usage(usage, sizeof usage);
    int rc = args_parse(CMD, usage, t->spec, t->n, argc, argv, positional, ARGS_COUNT(positional), &n_positional);
    if (rc) return rc;
    return check_figure(t, positional, n_positional, row);
}

/* How the figure is drawn: from --theme, --size (0 x 0 = the figure's
 * default) and --font. */
typedef struct {
    FigureTheme theme;
    double w, h;
    const char *font;
} PlotLook;

/* Check --theme, --size, the format of --out, --font, and that --out would
 * overwrite none of the inputs given in t; fill look. 0, or 2 after the
 * error line. */
static int check_look(const PlotOptions *o, const FigureOptionTable *t, PlotLook *look)
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
    int more = 1;
    for (int order = 1; more; order++) {
        const char *input = figure_options_input(t, order, &more);
        if (check_not_input(o->out, input, &err)) return args_error(CMD, "%s", err.msg);
    }
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

/* Load the figure of row from its options (its inputs recorded in the
 * manifest), give it its look and write it. 0, or 2 after the error line. */
static int plot(Figure *f, const void *options, const PlotOptions *o, PlotLook *look, cJSON *manifest)
{
    SrError err;
    long long seed = -1;
    cJSON_AddStringToObject(manifest, "figure", f->row->name);
    if (f->row->load(f->data, options, manifest, &seed, &err)) return args_error(CMD, "%s", err.msg);
    apply_look(f, o, look, seed, manifest);
    if (write_outputs(f, o->out, look->w, look->h, manifest, &err)) return args_error(CMD, "%s", err.msg);
    fprintf(stderr, "wrote %s\n", o->out);
    return 0;
}

int cmd_plot(int argc, char **argv)
{
    PlotOptions o = {0};
    FigureOptionTable t;
    const FigureRow *row = NULL;
    int rc = parse_options(argc, argv, &o, &t, &row);
    if (rc) return rc == 1 ? 0 : rc;
    PlotLook look;
    if (check_look(&o, &t, &look)) return 2;
    SrError err;
    Figure f = {.row = row, .data = NULL};
    void *options = figure_options_fill(&t, row, &err);
    if (!options || figure_new(&f, row, &err)) {
        free(options);
        return args_error(CMD, "%s", err.msg);
    }
    cJSON *manifest = manifest_begin(argc, argv, 0);
    rc = plot(&f, options, &o, &look, manifest);
    cJSON_Delete(manifest);
    figure_free(&f); /* a loader may have filled the data before a later check failed */
    free(options);
    figure_fonts_release();
    return rc;
}
