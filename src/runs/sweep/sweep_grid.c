/* sweep_grid.c — the grid of a sweep expanded into its runs, and the list
 * options it is given in (see sweep_grid.h). */
#include "runs/sweep/sweep_grid.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/int_list.h"

int sweep_parse_int_list(const char *text, int min_value, int **values, int *n_values,
                         SrError *err)
{
    const IntListRules rules = {.word = "value", .min_value = min_value, .max_value = INT_MAX,
                                .refuse_duplicates = 1, .allow_leading_space = 1};
    IntListFault fault;
    if (int_list_parse(text, &rules, values, n_values, &fault, err) == 0) return 0;
    if (fault.kind == INT_LIST_NOT_A_NUMBER || fault.kind == INT_LIST_BELOW_MIN ||
        fault.kind == INT_LIST_TOO_LARGE)
        return sr_fail(err, "'%.*s' is not an integer >= %d (in the list '%s')", fault.item_len,
                       text + fault.item_start, min_value, text);
    return -1; /* a repeated value, or out of memory: worded by int_list_parse */
}

/* Parse the comma-separated names of text, each turned into a value by
 * parse (0, or -1 for an unknown name), into values (capacity cap): what is
 * the word for one name ("method") and known the list of names, for the
 * messages. Duplicates are an error. */
static int parse_names(const char *text, const char *what, const char *known,
                       int (*parse)(const char *name, int *value), int *values, int cap, int *n,
                       SrError *err)
{
    *n = 0;
    char buf[256];
    if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf)
        return sr_fail(err, "%s list too long: '%s'", what, text);
    char *item = buf;
    for (;;) {
        char *comma = strchr(item, ',');
        if (comma) *comma = 0;
        int v;
        if (parse(item, &v)) return sr_fail(err, "unknown %s '%s' (%ss: %s)", what, item, what, known);
        for (int k = 0; k < *n; k++)
            if (values[k] == v) return sr_fail(err, "%s '%s' appears twice", what, item);
        if (*n == cap) return sr_fail(err, "%s list too long: '%s'", what, text);
        values[(*n)++] = v;
        if (!comma) break;
        item = comma + 1;
    }
    return 0;
}

/* method_parse with an int value (parse_names' parse). */
static int parse_method_value(const char *name, int *value)
{
    Method m;
    if (method_parse(name, &m)) return -1;
    *value = (int)m;
    return 0;
}

/* repeat_parse_positions with an int value (parse_names' parse). */
static int parse_positions_value(const char *name, int *value)
{
    RepeatPositions p;
    if (repeat_parse_positions(name, &p)) return -1;
    *value = (int)p;
    return 0;
}

int sweep_parse_methods(const char *text, Method *methods, int *n_methods, SrError *err)
{
    int values[METHOD_COUNT];
    if (parse_names(text, "method", "causal, sr, unmask-full, unmask-middle, encoder",
                    parse_method_value, values, METHOD_COUNT, n_methods, err))
        return -1;
    for (int k = 0; k < *n_methods; k++) methods[k] = (Method)values[k];
    return 0;
}

const char *sweep_positions_words(RepeatPositions positions)
{
    return positions == REPEAT_POSITIONS_RESTART     ? " positions=restart"
           : positions == REPEAT_POSITIONS_INDUCTION ? " positions=induction"
                                                     : "";
}

int sweep_parse_positions(const char *text, RepeatPositions *positions, int *n_positions,
                          SrError *err)
{
    int values[3];
    if (parse_names(text, "copy position", "run, restart, induction", parse_positions_value, values, 3,
                    n_positions, err))
        return -1;
    for (int k = 0; k < *n_positions; k++) positions[k] = (RepeatPositions)values[k];
    return 0;
}

int sweep_dataset_name(const char *data_dir, char *name, size_t n, SrError *err)
{
    size_t end = strlen(data_dir);
    while (end > 1 && data_dir[end - 1] == '/') end--;
    size_t start = end;
    while (start > 0 && data_dir[start - 1] != '/') start--;
    size_t len = end - start;
    if (len == 0 || (len == 1 && data_dir[start] == '.') ||
        (len == 2 && data_dir[start] == '.' && data_dir[start + 1] == '.'))
        return sr_fail(err, "%s: cannot name the dataset after this directory; give its own "
                            "path (such as data/right-cue)", data_dir);
    if (len >= n) return sr_fail(err, "%s: directory name too long", data_dir);
    memcpy(name, data_dir + start, len);
    name[len] = 0;
    return 0;
}

/* pattern with every "{data}" replaced by dataset, into out (capacity n). */
static int substitute_data(const char *pattern, const char *dataset, char *out, size_t n,
                           SrError *err)
{
    size_t o = 0;
    for (const char *p = pattern; *p;) {
        const char *piece = p;
        size_t len = 1;
        if (strncmp(p, "{data}", 6) == 0) {
            piece = dataset;
            len = strlen(dataset);
            p += 6;
        } else {
            p++;
        }
        if (o + len >= n) return sr_fail(err, "model path too long: '%s'", pattern);
        memcpy(out + o, piece, len);
        o += len;
    }
    out[o] = 0;
    return 0;
}

/* The axes of a grid that have defaults, filled in: the copy positions of
 * sr (run only when none are given) and the recipes ("full" when none are
 * given). */
typedef struct {
    const RepeatPositions *positions;
    int n_positions;
    const char *const *recipes;
    int n_recipes;
} GridAxes;

static GridAxes grid_axes(const SweepGrid *g)
{
    static const RepeatPositions run_only[1] = {REPEAT_POSITIONS_RUN};
    static const char *const full[1] = {"full"};
    return (GridAxes){.positions = g->n_positions > 0 ? g->positions : run_only,
                      .n_positions = g->n_positions > 0 ? g->n_positions : 1,
                      .recipes = g->n_recipes > 0 ? g->recipes : full,
                      .n_recipes = g->n_recipes > 0 ? g->n_recipes : 1};
}

/* Check that the grid can be run (an encoder model for method encoder, r >=
 * 1, no empty axis, recipe labels that fit, at most a million runs) and
 * count its runs into *total. 0 or -1. */
static int check_grid(const SweepGrid *g, const GridAxes *ax, long *total, SrError *err)
{
    int has_encoder = 0;
    for (int mi = 0; mi < g->n_methods; mi++) has_encoder |= g->methods[mi] == METHOD_ENCODER;
    if (has_encoder && !g->encoder_model)
        return sr_fail(err, "method encoder needs an encoder model (pre-trained with --objective mlm)");
    for (int i = 0; i < g->n_r; i++)
        if (g->r_values[i] < 1)
            return sr_fail(err, "r = %d: sequence repetition needs r >= 1 (r = 0 is the causal "
                                "method)", g->r_values[i]);
    if (g->n_data < 1 || g->n_methods < 1 || g->n_exits < 1 || g->n_seeds < 1)
        return sr_fail(err, "the grid is empty: it needs data, methods, exits and seeds");
    int per_seed = 0;
    for (int mi = 0; mi < g->n_methods; mi++)
        per_seed += g->methods[mi] == METHOD_SR ? g->n_r * ax->n_positions : 1;
    if (per_seed == 0) return sr_fail(err, "method sr needs at least one r");
    for (int i = 0; i < ax->n_recipes; i++)
        if (strlen(ax->recipes[i]) >= sizeof ((SweepRun *)0)->recipe)
            return sr_fail(err, "recipe label '%s' is too long", ax->recipes[i]);
    *total = (long)g->n_data * g->n_seeds * per_seed * g->n_exits * ax->n_recipes;
    if (*total > 1000000) return sr_fail(err, "the grid has %ld runs; at most 1000000", *total);
    return 0;
}

/* What every run of data directory di shares (*base: dataset name,
 * directory and model) and its encoder model (into encoder, of the size of
 * a run's model; left alone without one), {data} substituted in both; the
 * directory's name must differ from those before it. 0 or -1. */
static int dataset_base(const SweepGrid *g, int di, SweepRun *base, char *encoder, SrError *err)
{
    *base = (SweepRun){0};
    if (sweep_dataset_name(g->data_dirs[di], base->dataset, sizeof base->dataset, err)) return -1;
    if (snprintf(base->data_dir, sizeof base->data_dir, "%s", g->data_dirs[di]) >=
        (int)sizeof base->data_dir)
        return sr_fail(err, "%s: path too long", g->data_dirs[di]);
    for (int dj = 0; dj < di; dj++) {
        char other[256];
        if (sweep_dataset_name(g->data_dirs[dj], other, sizeof other, err)) return -1;
        if (strcmp(other, base->dataset) == 0)
            return sr_fail(err, "%s and %s have the same name '%s'; rename one", g->data_dirs[dj],
                           g->data_dirs[di], base->dataset);
    }
    if (substitute_data(g->model, base->dataset, base->model, sizeof base->model, err)) return -1;
    if (g->encoder_model &&
        substitute_data(g->encoder_model, base->dataset, encoder, sizeof base->model, err))
        return -1;
    return 0;
}

/* Write the runs of one data directory into out, in the order seed, method,
 * r, exit, recipe, positions; returns how many. */
static int dataset_runs(const SweepGrid *g, const GridAxes *ax, const SweepRun *base,
                        const char *encoder, SweepRun *out)
{
    int n = 0;
    for (int si = 0; si < g->n_seeds; si++)
        for (int mi = 0; mi < g->n_methods; mi++) {
            Method method = g->methods[mi];
            int is_sr = method == METHOD_SR;
            int n_r = is_sr ? g->n_r : 1, n_p = is_sr ? ax->n_positions : 1;
            for (int ri = 0; ri < n_r; ri++)
                for (int ei = 0; ei < g->n_exits; ei++)
                    for (int ci = 0; ci < ax->n_recipes; ci++)
                        for (int pi = 0; pi < n_p; pi++) {
                            SweepRun *run = &out[n++];
                            *run = *base;
                            if (method == METHOD_ENCODER) strcpy(run->model, encoder);
                            run->method = method;
                            run->r = is_sr ? g->r_values[ri] : 0;
                            run->exit_layer = g->exits[ei];
                            run->seed = g->seeds[si];
                            strcpy(run->recipe, ax->recipes[ci]);
                            run->positions = is_sr ? ax->positions[pi] : REPEAT_POSITIONS_RUN;
                        }
        }
    return n;
}

int sweep_grid_expand(const SweepGrid *g, SweepRun **runs, int *n_runs, SrError *err)
{
    *runs = NULL;
    *n_runs = 0;
    GridAxes ax = grid_axes(g);
    long total = 0;
    if (check_grid(g, &ax, &total, err)) return -1;
    SweepRun *out = calloc((size_t)total, sizeof *out);
    if (!out) return sr_fail(err, "out of memory");
    int n = 0;
    for (int di = 0; di < g->n_data; di++) {
        SweepRun base;
        char encoder[sizeof base.model];
        if (dataset_base(g, di, &base, encoder, err)) {
            free(out);
            return -1;
        }
        n += dataset_runs(g, &ax, &base, encoder, out + n);
    }
    *runs = out;
    *n_runs = n;
    return 0;
}

const char *sweep_recipe(const SweepRun *run)
{
    return run->recipe[0] ? run->recipe : "full";
}

int sweep_same_key(const SweepRun *a, const SweepRun *b)
{
    return a->method == b->method && a->r == b->r && a->exit_layer == b->exit_layer &&
           a->seed == b->seed && a->positions == b->positions &&
           strcmp(a->dataset, b->dataset) == 0 &&
           strcmp(a->model, b->model) == 0 && strcmp(sweep_recipe(a), sweep_recipe(b)) == 0;
}

int sweep_resolve_exits(SweepRun *runs, int *n_runs, SweepLayerCount count, void *ctx,
                        SrError *err)
{
    int n = 0;
    for (int i = 0; i < *n_runs; i++) {
        SweepRun run = runs[i];
        int n_layers = 0;
        if (count(run.model, ctx, &n_layers, err)) return -1;
        if (run.exit_layer == 0) run.exit_layer = n_layers;
        if (run.exit_layer < 1 || run.exit_layer > n_layers)
            return sr_fail(err, "exit %d is outside 1..%d: %s has %d layers", run.exit_layer,
                           n_layers, run.model, n_layers);
        int seen = 0;
        for (int j = 0; j < n && !seen; j++) seen = sweep_same_key(&runs[j], &run);
        if (!seen) runs[n++] = run;
    }
    *n_runs = n;
    return 0;
}
