/* sweep_grid.c — the grid of a sweep expanded into its runs, and the list
 * options it is given in (see sweep_grid.h). */
#include "runs/sweep_grid.h"

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

int sweep_parse_methods(const char *text, Method *methods, int *n_methods, SrError *err)
{
    *n_methods = 0;
    char buf[256];
    if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf)
        return sr_fail(err, "method list too long: '%s'", text);
    char *item = buf;
    for (;;) {
        char *comma = strchr(item, ',');
        if (comma) *comma = 0;
        Method m;
        if (method_parse(item, &m))
            return sr_fail(err, "unknown method '%s' (methods: causal, sr, unmask-full, "
                                "unmask-middle, encoder)", item);
        for (int k = 0; k < *n_methods; k++)
            if (methods[k] == m) return sr_fail(err, "method '%s' appears twice", item);
        methods[(*n_methods)++] = m;
        if (!comma) break;
        item = comma + 1;
    }
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

int sweep_grid_expand(const SweepGrid *g, SweepRun **runs, int *n_runs, SrError *err)
{
    *runs = NULL;
    *n_runs = 0;
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
        per_seed += g->methods[mi] == METHOD_SR ? g->n_r : 1;
    if (per_seed == 0) return sr_fail(err, "method sr needs at least one r");
    static const char *const full[1] = {"full"};
    const char *const *recipes = g->n_recipes > 0 ? g->recipes : full;
    int n_recipes = g->n_recipes > 0 ? g->n_recipes : 1;
    for (int i = 0; i < n_recipes; i++)
        if (strlen(recipes[i]) >= sizeof ((SweepRun *)0)->recipe)
            return sr_fail(err, "recipe label '%s' is too long", recipes[i]);
    long total = (long)g->n_data * g->n_seeds * per_seed * g->n_exits * n_recipes;
    if (total > 1000000) return sr_fail(err, "the grid has %ld runs; at most 1000000", total);
    SweepRun *out = calloc((size_t)total, sizeof *out);
    if (!out) return sr_fail(err, "out of memory");
    int n = 0;
    for (int di = 0; di < g->n_data; di++) {
        SweepRun base = {0};
        if (sweep_dataset_name(g->data_dirs[di], base.dataset, sizeof base.dataset, err))
            goto fail;
        if (snprintf(base.data_dir, sizeof base.data_dir, "%s", g->data_dirs[di]) >=
            (int)sizeof base.data_dir) {
            sr_fail(err, "%s: path too long", g->data_dirs[di]);
            goto fail;
        }
        for (int dj = 0; dj < di; dj++) {
            char other[256];
            if (sweep_dataset_name(g->data_dirs[dj], other, sizeof other, err)) goto fail;
            if (strcmp(other, base.dataset) == 0) {
                sr_fail(err, "%s and %s have the same name '%s'; rename one", g->data_dirs[dj],
                        g->data_dirs[di], base.dataset);
                goto fail;
            }
        }
        char model[1024], encoder[1024];
        if (substitute_data(g->model, base.dataset, model, sizeof model, err)) goto fail;
        if (g->encoder_model &&
            substitute_data(g->encoder_model, base.dataset, encoder, sizeof encoder, err))
            goto fail;
        for (int si = 0; si < g->n_seeds; si++)
            for (int mi = 0; mi < g->n_methods; mi++) {
                Method method = g->methods[mi];
                int n_r = method == METHOD_SR ? g->n_r : 1;
                for (int ri = 0; ri < n_r; ri++)
                    for (int ei = 0; ei < g->n_exits; ei++)
                        for (int ci = 0; ci < n_recipes; ci++) {
                            SweepRun *run = &out[n++];
                            *run = base;
                            strcpy(run->model, method == METHOD_ENCODER ? encoder : model);
                            run->method = method;
                            run->r = method == METHOD_SR ? g->r_values[ri] : 0;
                            run->exit_layer = g->exits[ei];
                            run->seed = g->seeds[si];
                            strcpy(run->recipe, recipes[ci]);
                        }
            }
    }
    *runs = out;
    *n_runs = n;
    return 0;
fail:
    free(out);
    return -1;
}

const char *sweep_recipe(const SweepRun *run)
{
    return run->recipe[0] ? run->recipe : "full";
}

int sweep_same_key(const SweepRun *a, const SweepRun *b)
{
    return a->method == b->method && a->r == b->r && a->exit_layer == b->exit_layer &&
           a->seed == b->seed && strcmp(a->dataset, b->dataset) == 0 &&
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
