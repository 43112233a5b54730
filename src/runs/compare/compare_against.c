/* compare_against.c — one configuration of two sweeps compared by the paired
 * bootstrap: the rows of each dataset and recipe of both sweeps sorted into
 * configurations, the configurations matched, their predictions read back,
 * the intervals of against - results (see compare_against.h). */
#include "runs/compare/compare_against.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runs/compare/compare_side.h"
#include "runs/sweep/sweep_command.h"

/* 1 if two runs are of one configuration of one block (the model aside). */
static int same_config(const SweepRun *a, const SweepRun *b)
{
    return compare_same_block(a, b) && compare_config_order(a, b) == 0;
}

/* 1 if the configuration of x's row i has, in y, a run of the same
 * configuration and of a seed it has too. */
static int has_partner(const SweepTable *x, int i, const SweepTable *y, const CompareOptions *o)
{
    for (int k = 0; k < x->n; k++) {
        if (!compare_wanted(&x->rows[k], o) || !same_config(&x->rows[k].key, &x->rows[i].key))
            continue;
        for (int l = 0; l < y->n; l++)
            if (compare_wanted(&y->rows[l], o) && same_config(&y->rows[l].key, &x->rows[k].key) &&
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
        if (!compare_wanted(&x->rows[i], o)) continue;
        int first = 1;
        for (int j = 0; j < i && first; j++)
            first = !(compare_wanted(&x->rows[j], o) &&
                      same_config(&x->rows[j].key, &x->rows[i].key));
        if (first && !has_partner(x, i, y, o)) n++;
    }
    return n;
}

/* The seeds configuration [ri, r_end) of R and [bi, b_end) of B share:
 * their row indices into ir and ib (capacity: the smaller length). */
static int match_seeds(const CompareSide *R, int ri, int r_end, const CompareSide *B, int bi,
                       int b_end, int *ir, int *ib)
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
static int compare_matched(const CompareSide *R, const CompareSide *B, const int *ir,
                           const int *ib, int m, int with_exit, CompareTestSet *set,
                           const CompareOptions *o, CompareTable *out, SrError *err)
{
    PredictionCounts *p = calloc(2 * (size_t)m, sizeof *p); /* against's m, then results' m */
    const SpanCounts **counts = calloc(2 * (size_t)m, sizeof *counts);
    int rc = p && counts ? 0 : sr_fail(err, "out of memory");
    for (int j = 0; j < m && rc == 0; j++) {
        rc = compare_side_load(B->rows[ib[j]], B->runs_dir, set, &p[j], err) ||
             compare_side_load(R->rows[ir[j]], R->runs_dir, set, &p[m + j], err) ? -1 : 0;
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
static int find_config(const CompareSide *B, const SweepRun *key)
{
    for (int j = 0; j < B->n; j = compare_side_config_end(B, j))
        if (compare_config_order(&B->rows[j]->key, key) == 0) return j;
    return -1;
}

/* The seeds R's configuration at row i shares with B's same one: their row
 * indices into ir and ib; how many (0 when B has no such configuration). */
static int matched_runs(const CompareSide *R, int i, const CompareSide *B, int *ir, int *ib)
{
    int j = find_config(B, &R->rows[i]->key);
    if (j < 0) return 0;
    return match_seeds(R, i, compare_side_config_end(R, i), B, j, compare_side_config_end(B, j),
                       ir, ib);
}

/* Every configuration of the block that R and B both have, with a seed in
 * common: a row each, in R's order; labels name the exit when the matched
 * configurations have more than one. */
static int compare_block(const CompareSide *R, const CompareSide *B, const CompareOptions *o,
                         CompareTable *out, SrError *err)
{
    int cap = (R->n < B->n ? R->n : B->n) + 1;
    int *ir = malloc(sizeof(int) * 2 * (size_t)cap);
    if (!ir) return sr_fail(err, "out of memory");
    int *ib = ir + cap, first_exit = -1, several_exits = 0, rc = 0;
    for (int i = 0; i < R->n; i = compare_side_config_end(R, i)) {
        if (matched_runs(R, i, B, ir, ib) == 0) continue;
        int exit_layer = R->rows[i]->key.exit_layer;
        several_exits |= first_exit >= 0 && exit_layer != first_exit;
        if (first_exit < 0) first_exit = exit_layer;
    }
    CompareTestSet set = {0};
    for (int i = 0; i < R->n && rc == 0; i = compare_side_config_end(R, i)) {
        int m = matched_runs(R, i, B, ir, ib);
        if (m > 0) rc = compare_matched(R, B, ir, ib, m, several_exits, &set, o, out, err);
    }
    free(ir);
    return rc;
}

int compare_against(const SweepTable *results, const char *runs_results, const SweepTable *against,
                    const char *runs_against, const CompareOptions *o, CompareTable *out,
                    SrError *err)
{
    memset(out, 0, sizeof *out);
    if (compare_sides_check(results, against, o, err)) return -1;
    int rc = 0;
    for (int i = 0; i < results->n && rc == 0; i++) {
        if (!compare_first_of_block(results, i, o)) continue;
        CompareSide R = {.runs_dir = runs_results}, B = {.runs_dir = runs_against};
        rc = compare_side_gather(results, &results->rows[i].key, o, &R, err);
        if (rc == 0) rc = compare_side_gather(against, &results->rows[i].key, o, &B, err);
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
