/* compare.c — a sweep's configurations compared pairwise by the paired
 * bootstrap: the runs of each dataset and recipe grouped into
 * configurations, their predictions read back, the pairs' intervals (see
 * compare.h). */
#include "runs/compare/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/csv.h"
#include "base/text_append.h"
#include "label/predictions.h"
#include "runs/sweep/sweep_command.h"

/* One configuration: runs [first, first + n) of its block, by seed. */
typedef struct {
    const SweepRun *key; /* of its first run */
    int first, n;
    char label[96];
} Config;

/* The runs of one dataset and recipe, and what is known of them. */
typedef struct {
    const SweepRow **rows;   /* (n) by configuration, then seed */
    int n;
    Config *configs;         /* (n_configs) */
    int n_configs;
    PredictionCounts *pred;  /* (n) */
    double *full;            /* (n) F1 on the whole test set */
    double *f1;              /* (samples x n) F1 on each bootstrap sample */
} Block;

/* 1 if the row is one o asks for. */
static int wanted(const SweepRow *row, const CompareOptions *o)
{
    return (!o->dataset || strcmp(row->key.dataset, o->dataset) == 0) &&
           (!o->recipe || strcmp(sweep_recipe(&row->key), o->recipe) == 0) &&
           (o->exit_layer == 0 || row->key.exit_layer == o->exit_layer);
}

/* 1 if two rows belong to one block: same dataset and recipe. */
static int same_block(const SweepRow *a, const SweepRow *b)
{
    return strcmp(a->key.dataset, b->key.dataset) == 0 &&
           strcmp(sweep_recipe(&a->key), sweep_recipe(&b->key)) == 0;
}

int compare_config_order(const SweepRun *x, const SweepRun *y)
{
    if (x->method != y->method) return x->method < y->method ? -1 : 1;
    if (x->r != y->r) return x->r < y->r ? -1 : 1;
    if (x->exit_layer != y->exit_layer) return x->exit_layer < y->exit_layer ? -1 : 1;
    if (x->positions != y->positions) return x->positions < y->positions ? -1 : 1;
    return 0;
}

int compare_row_order(const void *pa, const void *pb)
{
    const SweepRun *x = &(*(const SweepRow *const *)pa)->key;
    const SweepRun *y = &(*(const SweepRow *const *)pb)->key;
    int c = compare_config_order(x, y);
    if (c) return c;
    return (x->seed > y->seed) - (x->seed < y->seed);
}

void compare_config_label(const SweepRun *k, int with_exit, char *out, size_t n)
{
    size_t used = 0;
    text_append(out, n, &used, "%s", method_name(k->method));
    if (k->method == METHOD_SR) text_append(out, n, &used, " r=%d", k->r);
    if (k->positions != REPEAT_POSITIONS_RUN)
        text_append(out, n, &used, " %s", repeat_positions_name(k->positions));
    if (with_exit) text_append(out, n, &used, " exit=%d", k->exit_layer);
}

static void block_free(Block *b)
{
    for (int k = 0; b->pred && k < b->n; k++) predictions_free(&b->pred[k]);
    free(b->rows);
    free(b->configs);
    free(b->pred);
    free(b->full);
    free(b->f1);
    memset(b, 0, sizeof *b);
}

/* Group b->rows (sorted) into configurations and label them; two runs of one
 * configuration with one seed (from two models) are an error. */
static int group_configs(Block *b, SrError *err)
{
    b->configs = calloc((size_t)b->n, sizeof *b->configs);
    if (!b->configs) return sr_fail(err, "out of memory");
    int several_exits = 0;
    for (int i = 0; i < b->n; i++) {
        const SweepRun *k = &b->rows[i]->key;
        several_exits |= k->exit_layer != b->rows[0]->key.exit_layer;
        if (i > 0 && compare_config_order(&b->rows[i - 1]->key, k) == 0) {
            if (b->rows[i - 1]->key.seed == k->seed)
                return sr_fail(err, "%s and %s: two runs of one configuration and seed %d (models "
                                    "%s and %s)", b->rows[i - 1]->source, b->rows[i]->source,
                               k->seed, b->rows[i - 1]->key.model, k->model);
            b->configs[b->n_configs - 1].n++;
            continue;
        }
        b->configs[b->n_configs++] = (Config){.key = k, .first = i, .n = 1, .label = ""};
    }
    for (int c = 0; c < b->n_configs; c++)
        compare_config_label(b->configs[c].key, several_exits, b->configs[c].label,
                     sizeof b->configs[c].label);
    return 0;
}

/* Read the predictions of every run of b from runs_dir, check that they are
 * of one test set and give the F1 of their rows; then the F1 of every run
 * on every bootstrap sample. */
static int load_runs(Block *b, const char *runs_dir, const CompareOptions *o, SrError *err)
{
    b->pred = calloc((size_t)b->n, sizeof *b->pred);
    b->full = malloc(sizeof(double) * (size_t)b->n);
    b->f1 = malloc(sizeof(double) * (size_t)b->n * (size_t)o->samples);
    const SpanCounts **counts = malloc(sizeof *counts * (size_t)b->n);
    int rc = b->pred && b->full && b->f1 && counts ? 0 : sr_fail(err, "out of memory");
    for (int k = 0; k < b->n && rc == 0; k++) {
        const SweepRow *row = b->rows[k];
        char csv[1100], path[1200];
        rc = sweep_run_path(&row->key, runs_dir, csv, sizeof csv, err) ||
             sweep_predictions_path(csv, path, sizeof path, err) ? -1 : 0;
        if (rc == 0 && access(path, R_OK) != 0)
            rc = sr_fail(err, "%s: cannot read the test predictions of the run of %s (a sweep "
                              "made before runs wrote them has none: delete the run's files and "
                              "resume the sweep)", path, row->source);
        if (rc == 0) rc = predictions_read(path, &b->pred[k], err);
        if (rc) break;
        const PredictionCounts *p = &b->pred[k], *first = &b->pred[0];
        if (p->n_sents != first->n_sents || p->gold_checksum != first->gold_checksum) {
            char first_csv[1100];
            sweep_run_path(&b->rows[0]->key, runs_dir, first_csv, sizeof first_csv, err);
            rc = sr_fail(err, "%s: another test set than %s's (%d and %d sentences, or other "
                              "words or gold tags)", path, first_csv, p->n_sents, first->n_sents);
            break;
        }
        counts[k] = p->counts;
        b->full[k] = bootstrap_f1(p->counts, NULL, p->n_sents);
        if (fabs(b->full[k] - row->test_f1) > 1e-3)
            rc = sr_fail(err, "%s: test F1 %.4f from the predictions, %.4f in %s", path,
                         b->full[k], row->test_f1, row->source);
    }
    if (rc == 0)
        rc = bootstrap_run_f1(counts, b->n, b->pred[0].n_sents, o->samples, o->seed, b->f1, err);
    free(counts);
    return rc;
}

int compare_table_push(CompareTable *t, const CompareRow *row, SrError *err)
{
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        CompareRow *rows = realloc(t->rows, sizeof *rows * (size_t)cap);
        if (!rows) return sr_fail(err, "out of memory");
        t->rows = rows;
        t->cap = cap;
    }
    t->rows[t->n++] = *row;
    return 0;
}

/* The pair A - B of block b: the seeds both have, their interval, a row of
 * out (or one more unpaired pair when no seed is shared). */
static int compare_pair(const Block *b, const Config *A, const Config *B, const CompareOptions *o,
                        CompareTable *out, SrError *err)
{
    int most = A->n < B->n ? A->n : B->n; /* >= 1 */
    int *ia = malloc(sizeof(int) * 2 * (size_t)most);
    if (!ia) return sr_fail(err, "out of memory");
    int *ib = ia + most, m = 0;
    for (int i = A->first, j = B->first; i < A->first + A->n && j < B->first + B->n;) {
        int sa = b->rows[i]->key.seed, sb = b->rows[j]->key.seed;
        if (sa == sb) {
            ia[m] = i++;
            ib[m++] = j++;
        } else if (sa < sb) {
            i++;
        } else {
            j++;
        }
    }
    int rc = 0;
    if (m == 0) {
        out->n_unpaired++;
    } else {
        CompareRow row = {.seeds = m};
        snprintf(row.dataset, sizeof row.dataset, "%s", A->key->dataset);
        snprintf(row.recipe, sizeof row.recipe, "%s", sweep_recipe(A->key));
        snprintf(row.a, sizeof row.a, "%s", A->label);
        snprintf(row.b, sizeof row.b, "%s", B->label);
        rc = bootstrap_paired_diff(b->f1, b->full, b->n, o->samples, ia, ib, m, o->seed, &row.d, err);
        if (rc == 0) rc = compare_table_push(out, &row, err);
    }
    free(ia);
    return rc;
}

/* Every pair of block b that o asks for. */
static int compare_block(const Block *b, const CompareOptions *o, CompareTable *out, SrError *err)
{
    int base = -1;
    if (o->baseline) {
        for (int c = 0; c < b->n_configs && base < 0; c++)
            if (strcmp(b->configs[c].label, o->baseline) == 0) base = c;
        if (base < 0) {
            char known[1024] = "";
            size_t used = 0;
            for (int c = 0; c < b->n_configs; c++)
                text_append(known, sizeof known, &used, "%s'%s'", c ? ", " : "", b->configs[c].label);
            return sr_fail(err, "--baseline '%s': no such configuration in dataset %s, recipe %s "
                                "(there: %s)", o->baseline, b->rows[0]->key.dataset,
                           sweep_recipe(&b->rows[0]->key), known);
        }
    }
    for (int i = 0; i < b->n_configs; i++)
        for (int j = i + 1; j < b->n_configs; j++) {
            if (base >= 0 && i != base && j != base) continue;
            /* the later is A, except that the baseline is always B */
            const Config *A = &b->configs[j == base ? i : j], *B = &b->configs[j == base ? j : i];
            if (compare_pair(b, A, B, o, out, err)) return -1;
        }
    return 0;
}

int compare_sweep(const SweepTable *t, const char *runs_dir, const CompareOptions *o,
                  CompareTable *out, SrError *err)
{
    memset(out, 0, sizeof *out);
    if (o->samples < 1) return sr_fail(err, "--samples must be at least 1");
    int n_wanted = 0, rc = 0;
    for (int i = 0; i < t->n && rc == 0; i++) {
        if (!wanted(&t->rows[i], o)) continue;
        n_wanted++;
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = wanted(&t->rows[j], o) && same_block(&t->rows[j], &t->rows[i]);
        if (seen) continue;
        Block b = {0};
        b.rows = malloc(sizeof *b.rows * (size_t)t->n);
        if (!b.rows) rc = sr_fail(err, "out of memory");
        for (int j = i; j < t->n && rc == 0; j++)
            if (wanted(&t->rows[j], o) && same_block(&t->rows[j], &t->rows[i]))
                b.rows[b.n++] = &t->rows[j];
        if (rc == 0) qsort(b.rows, (size_t)b.n, sizeof *b.rows, compare_row_order);
        if (rc == 0) rc = group_configs(&b, err);
        if (rc == 0 && (b.n_configs > 1 || o->baseline)) rc = load_runs(&b, runs_dir, o, err);
        if (rc == 0 && (b.n_configs > 1 || o->baseline)) rc = compare_block(&b, o, out, err);
        block_free(&b);
    }
    if (rc == 0 && n_wanted == 0)
        rc = sr_fail(err, "no run of the sweep is of the dataset, recipe and exit asked for");
    if (rc == 0 && out->n == 0)
        rc = sr_fail(err, "nothing to compare: no two configurations of one dataset and recipe "
                          "share a seed");
    if (rc) compare_table_free(out);
    return rc;
}

const char *compare_resolved(const CompareRow *row)
{
    if (row->d.lo > 0) return "a>b";
    if (row->d.hi < 0) return "b>a";
    return "noise";
}

char *compare_csv(const CompareTable *t)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    fprintf(f, "%s\n", COMPARE_CSV_HEADER);
    for (int i = 0; i < t->n; i++) {
        const CompareRow *w = &t->rows[i];
        const char *fields[4] = {w->dataset, w->recipe, w->a, w->b};
        for (int k = 0; k < 4; k++) {
            csv_write_field(f, fields[k]);
            fputc(',', f);
        }
        fprintf(f, "%d,%.4f,%.4f,%.4f,%.4f,%.4f,%s\n", w->seeds, w->d.f1_a, w->d.f1_b, w->d.diff,
                w->d.lo, w->d.hi, compare_resolved(w));
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

char *compare_markdown(const CompareTable *t, const CompareOptions *o)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    fprintf(f, "Paired bootstrap of the difference a − b of mean test F1 over seeds (strict IOB2 "
               "span micro-F1, %%)");
    if (o->gap_x)
        fprintf(f, " of the gap %s − %s in each of two sweeps and of its change between them: "
                   "per dataset and recipe, the gap in %s, the gap in %s, and the change (the "
                   "gap in %s − the gap in %s), paired by seed and test sentence, one draw for "
                   "all four runs", o->gap_x, o->gap_y, o->results_name, o->against_name,
                o->against_name, o->results_name);
    else if (o->against_name)
        fprintf(f, " between two sweeps: a is a configuration of %s, b the same configuration "
                   "(dataset, recipe, method, r, positions, exit) of %s, paired by seed and test "
                   "sentence", o->against_name, o->results_name);
    fprintf(f, ": %d samples (seed %llu), each drawing the test sentences and the seeds %s "
               "with replacement; the interval is the 2.5th to 97.5th percentile. resolved: a>b "
               "or b>a when the interval leaves out 0, noise when it holds 0.\n", o->samples,
            o->seed, o->gap_x ? "the four runs share" : "both configurations have");
    for (int i = 0; i < t->n; i++) {
        const CompareRow *w = &t->rows[i];
        if (i == 0 || strcmp(w->dataset, t->rows[i - 1].dataset) != 0 ||
            strcmp(w->recipe, t->rows[i - 1].recipe) != 0) {
            fprintf(f, "\n### %s (recipe %s)\n\n", w->dataset, w->recipe);
            fprintf(f, "| a | b | seeds | F1 a | F1 b | a − b | 95%% interval | resolved |\n");
            fprintf(f, "|---|---|---:|---:|---:|---:|---|---|\n");
        }
        fprintf(f, "| %s | %s | %d | %.2f | %.2f | %+.2f | [%+.2f, %+.2f] | %s |\n", w->a, w->b,
                w->seeds, w->d.f1_a, w->d.f1_b, w->d.diff, w->d.lo, w->d.hi, compare_resolved(w));
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

void compare_table_free(CompareTable *t)
{
    free(t->rows);
    memset(t, 0, sizeof *t);
}
