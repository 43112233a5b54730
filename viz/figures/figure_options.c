/* figure_options.c — the options of every row gathered into one table of
 * `seqrep plot`, the values given put into one row's options, and a figure
 * loaded from a view's plot words through that table. */
#include "figures/figure_options.h"

#include <stdlib.h>
#include <string.h>

/* The row of t called name among the rows' options (not the common ones),
 * or -1. */
static int find_option(const FigureOptionTable *t, const char *name)
{
    for (int i = t->n_common; i < t->n; i++)
        if (strcmp(t->spec[i].name, name) == 0) return i;
    return -1;
}

/* Add the option a row gives a line to t. 0 or -1 with err. */
static int add_option(FigureOptionTable *t, const FigureRow *row, const FigureOption *o, SrError *err)
{
    if (find_option(t, o->name) >= 0)
        return sr_fail(err, "figure %s: --%s has a line of another row already", row->name, o->name);
    if (t->n == FIGURE_MAX_OPTIONS) return sr_fail(err, "seqrep plot takes at most %d options", FIGURE_MAX_OPTIONS);
    int i = t->n++;
    void *value = o->type == ARG_STRING ? (void *)&t->text[i] : (void *)&t->number[i];
    t->spec[i] = (ArgSpec){.name = o->name, .type = o->type, .value = value, .help = o->help, .min_int = o->min_int};
    t->input[i] = o->input;
    return 0;
}

int figure_options_gather(FigureOptionTable *t, const ArgSpec *common, int n_common, SrError *err)
{
    memset(t, 0, sizeof *t);
    if (n_common > FIGURE_MAX_OPTIONS) return sr_fail(err, "seqrep plot takes at most %d options", FIGURE_MAX_OPTIONS);
    for (int i = 0; i < n_common; i++) t->spec[i] = common[i];
    t->n = t->n_common = n_common;
    for (int r = 0; r < figure_count(); r++) {
        const FigureRow *row = figure_at(r);
        for (int k = 0; k < row->n_options; k++)
            if (row->options[k].help && add_option(t, row, &row->options[k], err)) return -1;
    }
    /* every option a row takes has a line, of the type the row reads */
    for (int r = 0; r < figure_count(); r++) {
        const FigureRow *row = figure_at(r);
        for (int k = 0; k < row->n_options; k++) {
            int i = find_option(t, row->options[k].name);
            if (i < 0 || t->spec[i].type != row->options[k].type)
                return sr_fail(err, "figure %s: --%s has no line of its type", row->name, row->options[k].name);
        }
    }
    return 0;
}

int figure_takes_option(const FigureRow *row, const char *name)
{
    for (int k = 0; k < row->n_options; k++)
        if (strcmp(row->options[k].name, name) == 0) return 1;
    return 0;
}

const ArgSpec *figure_options_foreign(const FigureOptionTable *t, const FigureRow *row)
{
    for (int i = t->n_common; i < t->n; i++)
        if (t->spec[i].set && !figure_takes_option(row, t->spec[i].name)) return &t->spec[i];
    return NULL;
}

const char *figure_options_input(const FigureOptionTable *t, int order, int *more)
{
    *more = 0;
    for (int i = t->n_common; i < t->n; i++)
        if (t->input[i] == order) {
            *more = 1;
            return t->spec[i].set ? t->text[i] : NULL;
        }
    return NULL;
}

void *figure_options_fill(const FigureOptionTable *t, const FigureRow *row, SrError *err)
{
    char *options = calloc(1, row->options_size ? row->options_size : 1);
    if (!options) {
        sr_fail(err, "out of memory");
        return NULL;
    }
    if (row->defaults) memcpy(options, row->defaults, row->options_size);
    for (int k = 0; k < row->n_options; k++) {
        const FigureOption *o = &row->options[k];
        int i = find_option(t, o->name);
        if (i < 0 || !t->spec[i].set) continue;
        /* the member at o->offset is a const char * (ARG_STRING) or an int */
        if (o->type == ARG_STRING) *(const char **)(options + o->offset) = t->text[i];
        else *(int *)(options + o->offset) = t->number[i];
    }
    return options;
}

/* Parse words (the options after `seqrep plot NAME`) into t. 0 or -1 with err. */
static int parse_words(FigureOptionTable *t, const FigureRow *row, const PlotWords *words, SrError *err)
{
    if (words->failed) return sr_fail(err, "out of memory");
    if (figure_options_gather(t, NULL, 0, err)) return -1;
    char **argv = malloc(sizeof *argv * (size_t)(words->n + 1)), command[] = "plot";
    if (!argv) return sr_fail(err, "out of memory");
    argv[0] = command;
    for (int i = 0; i < words->n; i++) argv[i + 1] = words->word[i];
    int rc = args_parse("plot", "", t->spec, t->n, words->n + 1, argv, NULL, 0, NULL);
    free(argv);
    if (rc) return sr_fail(err, "%s: the view's words are not options of seqrep plot", row->name);
    const ArgSpec *foreign = figure_options_foreign(t, row);
    if (foreign) return sr_fail(err, "--%s does not apply to figure '%s'", foreign->name, row->name);
    return 0;
}

int figure_load_words(Figure *f, const FigureRow *row, const PlotWords *words, cJSON *manifest, SrError *err)
{
    f->row = row;
    f->data = NULL;
    FigureOptionTable t;
    if (parse_words(&t, row, words, err) || figure_new(f, row, err)) return -1;
    void *options = figure_options_fill(&t, row, err);
    cJSON *scratch = manifest ? NULL : cJSON_CreateObject();
    long long seed = -1;
    int rc = options && (manifest || scratch) ? row->load(f->data, options, manifest ? manifest : scratch, &seed, err)
                                             : sr_fail(err, "out of memory");
    cJSON_Delete(scratch);
    free(options);
    return rc ? -1 : 0;
}
