/* compare_against.c — one configuration of two sweeps compared by the paired
 * bootstrap: the rows of each dataset and recipe of both sweeps sorted into
 * configurations, the configurations matched, their predictions read back,
 * the intervals of against - results (see compare_against.h). */
#include "runs/compare/compare_against.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "label/predictions.h"
#include "runs/sweep/sweep_command.h"

/* The wanted rows of one sweep in one dataset and recipe, sorted by
 * configuration, then seed. */
typedef struct {
    const SweepRow **rows; /* (n) */
    int n;
    const char *runs_dir;
} Side;

/* The test set the first run read of a dataset and recipe had. */
typedef struct {
    int known, n_sents;
    unsigned long long checksum;
    char path[1200];
} TestSet;

/* 1 if the row is one o asks for. */
static int wanted(const SweepRow *row, const CompareOptions *o)
{
    return (!o->dataset || strcmp(row->key.dataset, o->dataset) == 0) &&
           (!o->recipe || strcmp(sweep_recipe(&row->key), o->recipe) == 0) &&
           (o->exit_layer == 0 || row->key.exit_layer == o->exit_layer);
}

/* 1 if two runs belong to one block: same dataset and recipe. */
static int same_block(const SweepRun *a, const SweepRun *b)
{
    return strcmp(a->dataset, b->dataset) == 0 && strcmp(sweep_recipe(a), sweep_recipe(b)) == 0;
}

/* 1 if two runs are of one configuration of one block (the model aside). */
static int same_config(const SweepRun *a, const SweepRun *b)
{
    return same_block(a, b) && compare_config_order(a, b) == 0;
}

/* 1 if the configuration of x's row i has, in y, a run of the same
 * configuration and of a seed it has too. */
static int has_partner(const SweepTable *x, int i, const SweepTable *y, const CompareOptions *o)
{
    for (int k = 0; k < x->n; k++) {
        if (!wanted(&x->rows[k], o) || !same_config(&x->rows[k].key, &x->rows[i].key)) continue;
        for (int l = 0; l < y->n; l++)
            if (wanted(&y->rows[l], o) && same_config(&y->rows[l].key, &x->rows[k].key) &&
                y->rows[l].key.seed == x->rows[k].key.seed)
                return 1;
    }
    return 0;
}

/* How many configurations of x (those o wants) have no partner in y. */
static int count_unpaired(const SweepTable *x, const SweepTable *y, const CompareOptions *o)
{
    int n = 0;
    for (int i = 0; i < x->n; i++) {
        if (!wanted(&x->rows[i], o)) continue;
        int first = 1;
        for (int j = 0; j < i && first; j++)
            first = !(wanted(&x->rows[j], o) && same_config(&x->rows[j].key, &x->rows[i].key));
        if (first && !has_partner(x, i, y, o)) n++;
    }
    return n;
}

/* The wanted rows of t in the block of key into side, sorted; two runs of
 * one configuration and seed (from two models) are an error. */
static int gather(const SweepTable *t, const SweepRun *key, const CompareOptions *o, Side *side,
                  SrError *err)
{
    side->n = 0;
    side->rows = malloc(sizeof *side->rows * (size_t)(t->n ? t->n : 1));
    if (!side->rows) return sr_fail(err, "out of memory");
    for (int i = 0; i < t->n; i++)
        if (wanted(&t->rows[i], o) && same_block(&t->rows[i].key, key))
            side->rows[side->n++] = &t->rows[i];
    qsort(side->rows, (size_t)side->n, sizeof *side->rows, compare_row_order);
    for (int i = 1; i < side->n; i++) {
        const SweepRow *p = side->rows[i - 1], *q = side->rows[i];
        if (compare_config_order(&p->key, &q->key) == 0 && p->key.seed == q->key.seed)
            return sr_fail(err, "%s and %s: two runs of one configuration and seed %d (models "
                                "%s and %s)", p->source, q->source, q->key.seed, p->key.model,
                           q->key.model);
    }
    return 0;
}

/* The end of the configuration of side's row i: the first row of another. */
static int config_end(const Side *s, int i)
{
    int j = i + 1;
    while (j < s->n && compare_config_order(&s->rows[j]->key, &s->rows[i]->key) == 0) j++;
    return j;
}

/* Read the test predictions of row (in runs_dir) into p, and check that its
 * F1 is its row's and that its test set is the block's (*set, filled by the
 * first run read). */
static int load_run(const SweepRow *row, const char *runs_dir, TestSet *set, PredictionCounts *p,
                    SrError *err)
{
    char csv[1100], path[1200];
    if (sweep_run_path(&row->key, runs_dir, csv, sizeof csv, err) ||
        sweep_predictions_path(csv, path, sizeof path, err))
        return -1;
    if (access(path, R_OK) != 0)
        return sr_fail(err, "%s: cannot read the test predictions of the run of %s (replay the "
                            "run, e.g. examples/house_replay.py, or resume its sweep)", path,
                       row->source);
    if (predictions_read(path, p, err)) return -1;
    if (!set->known) {
        *set = (TestSet){.known = 1, .n_sents = p->n_sents, .checksum = p->gold_checksum};
        snprintf(set->path, sizeof set->path, "%s", path);
    }
    int rc = 0;
    if (p->n_sents != set->n_sents || p->gold_checksum != set->checksum)
        rc = sr_fail(err, "%s: another test set than %s's (%d and %d sentences, or other words or "
                          "gold tags): the two sweeps do not share their test sentences", path,
                     set->path, p->n_sents, set->n_sents);
    double f1 = rc ? 0 : bootstrap_f1(p->counts, NULL, p->n_sents);
    if (rc == 0 && fabs(f1 - row->test_f1) > 1e-3)
        rc = sr_fail(err, "%s: test F1 %.4f from the predictions, %.4f in %s", path, f1,
                     row->test_f1, row->source);
    if (rc) predictions_free(p);
    return rc;
}

/* The seeds configuration [ri, r_end) of R and [bi, b_end) of B share:
 * their row indices into ir and ib (capacity: the smaller length). */
static int match_seeds(const Side *R, int ri, int r_end, const Side *B, int bi, int b_end, int *ir,
                       int *ib)
{
    int m = 0;
    while (ri < r_end && bi < b_end) {
        int seed_r = R->rows[ri]->key.seed, seed_b = B->rows[bi]->key.seed;
        if (seed_r == seed_b) {
            ir[m] = ri++;
            ib[m++] = bi++;
        } else if (seed_r < seed_b) {
            ri++;
        } else {
            bi++;
        }
    }
    return m;
}

/* The row of one matched configuration: the m run pairs (ir of R, ib of B)
 * read back and bootstrapped, B - A. */
static int compare_matched(const Side *R, const Side *B, const int *ir, const int *ib, int m,
                           int with_exit, TestSet *set, const CompareOptions *o, CompareTable *out,
                           SrError *err)
{
    PredictionCounts *p = calloc(2 * (size_t)m, sizeof *p); /* against's m, then results' m */
    const SpanCounts **counts = calloc(2 * (size_t)m, sizeof *counts);
    int rc = p && counts ? 0 : sr_fail(err, "out of memory");
    for (int j = 0; j < m && rc == 0; j++) {
        rc = load_run(B->rows[ib[j]], B->runs_dir, set, &p[j], err) ||
             load_run(R->rows[ir[j]], R->runs_dir, set, &p[m + j], err) ? -1 : 0;
        counts[j] = p[j].counts;
        counts[m + j] = p[m + j].counts;
    }
    CompareRow row = {.seeds = m};
    if (rc == 0)
        rc = bootstrap_compare(counts, counts + m, m, set->n_sents, o->samples, o->seed, &row.d, err);
    if (rc == 0) {
        char label[48];
        const SweepRun *k = &R->rows[ir[0]]->key;
        compare_config_label(k, with_exit, label, sizeof label);
        snprintf(row.dataset, sizeof row.dataset, "%s", k->dataset);
        snprintf(row.recipe, sizeof row.recipe, "%s", sweep_recipe(k));
        snprintf(row.a, sizeof row.a, "%s [%.40s]", label, o->against_name);
        snprintf(row.b, sizeof row.b, "%s [%.40s]", label, o->results_name);
        rc = compare_table_push(out, &row, err);
    }
    for (int k = 0; p && k < 2 * m; k++) predictions_free(&p[k]);
    free(p);
    free(counts);
    return rc;
}

/* The first row of B's configuration equal to key's, or -1. */
static int find_config(const Side *B, const SweepRun *key)
{
    for (int j = 0; j < B->n; j = config_end(B, j))
        if (compare_config_order(&B->rows[j]->key, key) == 0) return j;
    return -1;
}

/* The seeds R's configuration at row i shares with B's same one: their row
 * indices into ir and ib; how many (0 when B has no such configuration). */
static int matched_runs(const Side *R, int i, const Side *B, int *ir, int *ib)
{
    int j = find_config(B, &R->rows[i]->key);
    return j < 0 ? 0 : match_seeds(R, i, config_end(R, i), B, j, config_end(B, j), ir, ib);
}

/* Every configuration of the block that R and B both have, with a seed in
 * common: a row each, in R's order; labels name the exit when the matched
 * configurations have more than one. */
static int compare_block(const Side *R, const Side *B, const CompareOptions *o, CompareTable *out,
                         SrError *err)
{
    int cap = (R->n < B->n ? R->n : B->n) + 1;
    int *ir = malloc(sizeof(int) * 2 * (size_t)cap);
    if (!ir) return sr_fail(err, "out of memory");
    int *ib = ir + cap, first_exit = -1, several_exits = 0, rc = 0;
    for (int i = 0; i < R->n; i = config_end(R, i)) {
        if (matched_runs(R, i, B, ir, ib) == 0) continue;
        int exit_layer = R->rows[i]->key.exit_layer;
        several_exits |= first_exit >= 0 && exit_layer != first_exit;
        if (first_exit < 0) first_exit = exit_layer;
    }
    TestSet set = {0};
    for (int i = 0; i < R->n && rc == 0; i = config_end(R, i)) {
        int m = matched_runs(R, i, B, ir, ib);
        if (m > 0) rc = compare_matched(R, B, ir, ib, m, several_exits, &set, o, out, err);
    }
    free(ir);
    return rc;
}

/* 1 if row i of t is the first of its block among the rows o wants. */
static int first_of_block(const SweepTable *t, int i, const CompareOptions *o)
{
    if (!wanted(&t->rows[i], o)) return 0;
    for (int j = 0; j < i; j++)
        if (wanted(&t->rows[j], o) && same_block(&t->rows[j].key, &t->rows[i].key)) return 0;
    return 1;
}

int compare_against(const SweepTable *results, const char *runs_results, const SweepTable *against,
                    const char *runs_against, const CompareOptions *o, CompareTable *out,
                    SrError *err)
{
    memset(out, 0, sizeof *out);
    if (o->samples < 1) return sr_fail(err, "--samples must be at least 1");
    if (o->baseline) return sr_fail(err, "--baseline compares within one sweep, not with --against");
    if (!o->results_name || !o->against_name)
        return sr_fail(err, "the two sweeps need names (--names)");
    int n_results = 0, n_against = 0, rc = 0;
    for (int i = 0; i < results->n; i++) n_results += wanted(&results->rows[i], o);
    for (int i = 0; i < against->n; i++) n_against += wanted(&against->rows[i], o);
    if (n_results == 0 || n_against == 0)
        return sr_fail(err, "no run of the %s sweep is of the dataset, recipe and exit asked for",
                       n_results == 0 ? "--results" : "--against");
    for (int i = 0; i < results->n && rc == 0; i++) {
        if (!first_of_block(results, i, o)) continue;
        Side R = {.runs_dir = runs_results}, B = {.runs_dir = runs_against};
        rc = gather(results, &results->rows[i].key, o, &R, err);
        if (rc == 0) rc = gather(against, &results->rows[i].key, o, &B, err);
        if (rc == 0 && B.n > 0) rc = compare_block(&R, &B, o, out, err);
        free(R.rows);
        free(B.rows);
    }
    if (rc == 0 && out->n == 0)
        rc = sr_fail(err, "nothing to compare: no configuration (dataset, recipe, method, r, "
                          "positions, exit) of the --results sweep has a run of the same seed in "
                          "the --against sweep");
    if (rc == 0)
        out->n_unpaired = count_unpaired(results, against, o) + count_unpaired(against, results, o);
    if (rc) compare_table_free(out);
    return rc;
}
