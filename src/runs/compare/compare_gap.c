/* compare_gap.c — the change of a gap X - Y between two sweeps: the four
 * configurations of each block found by label, the seeds all four share,
 * their predictions read back into one bootstrap table, the three rows
 * (see compare_gap.h). */
#include "runs/compare/compare_gap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "label/bootstrap.h"
#include "runs/compare/compare_side.h"
#include "runs/sweep/sweep_command.h"

/* The four runs of a seed, in this order. */
enum { X_A, Y_A, X_B, Y_B, N_TERMS };

/* 1 if run k is labelled `label`, with or without its exit. */
static int has_label(const SweepRun *k, const char *label)
{
    char with[96], without[96];
    compare_config_label(k, 1, with, sizeof with);
    compare_config_label(k, 0, without, sizeof without);
    return strcmp(with, label) == 0 || strcmp(without, label) == 0;
}

/* 1 if some run of t that o wants is labelled `label`. */
static int sweep_has_label(const SweepTable *t, const char *label, const CompareOptions *o)
{
    for (int i = 0; i < t->n; i++)
        if (compare_wanted(&t->rows[i], o) && has_label(&t->rows[i].key, label)) return 1;
    return 0;
}

/* The first row of the configuration of s labelled `label` into *at (-1:
 * none); two such configurations (two exits) are an error naming file. */
static int find_label(const CompareSide *s, const char *label, const char *file, int *at,
                      SrError *err)
{
    *at = -1;
    for (int i = 0; i < s->n; i = compare_side_config_end(s, i)) {
        const SweepRun *k = &s->rows[i]->key;
        if (!has_label(k, label)) continue;
        if (*at >= 0)
            return sr_fail(err, "--gap '%s': %s has it at exits %d and %d of dataset %s, recipe "
                                "%s; name one, e.g. '%s exit=%d', or give --exit", label, file,
                           s->rows[*at]->key.exit_layer, k->exit_layer, k->dataset,
                           sweep_recipe(k), label, k->exit_layer);
        *at = i;
    }
    return 0;
}

/* The seeds the four configurations (side[t] from row first[t]) all have:
 * their row indices into idx[t]; how many. */
static int common_seeds(const CompareSide *const side[N_TERMS], const int first[N_TERMS],
                        int *const idx[N_TERMS])
{
    int pos[N_TERMS], end[N_TERMS], m = 0;
    for (int t = 0; t < N_TERMS; t++) {
        pos[t] = first[t];
        end[t] = compare_side_config_end(side[t], first[t]);
    }
    for (;;) {
        int top = 0, all = 1;
        for (int t = 0; t < N_TERMS; t++) {
            if (pos[t] >= end[t]) return m;
            int seed = side[t]->rows[pos[t]]->key.seed;
            if (t == 0 || seed > top) top = seed;
        }
        for (int t = 0; t < N_TERMS; t++)
            if (side[t]->rows[pos[t]]->key.seed < top) {
                all = 0;
                pos[t]++;
            }
        if (!all) continue;
        for (int t = 0; t < N_TERMS; t++) idx[t][m] = pos[t]++;
        m++;
    }
}

/* Push the row a - b of the block of k with interval d. */
static int push_row(const SweepRun *k, const char *a, const char *b, int m, const BootstrapDiff *d,
                    CompareTable *out, SrError *err)
{
    CompareRow row = {.seeds = m, .d = *d};
    snprintf(row.dataset, sizeof row.dataset, "%s", k->dataset);
    snprintf(row.recipe, sizeof row.recipe, "%s", sweep_recipe(k));
    snprintf(row.a, sizeof row.a, "%s", a);
    snprintf(row.b, sizeof row.b, "%s", b);
    return compare_table_push(out, &row, err);
}

/* The three rows of one block from the m seeds' four runs (row idx[t][j]
 * of side[t]): gap in A, gap in B, their change, from one bootstrap table. */
static int gap_rows(const CompareSide *const side[N_TERMS], int *const idx[N_TERMS], int m,
                    const CompareOptions *o, CompareTable *out, SrError *err)
{
    int n = N_TERMS * m;
    PredictionCounts *p = calloc((size_t)n, sizeof *p);
    const SpanCounts **counts = calloc((size_t)n, sizeof *counts);
    double *full = malloc(sizeof(double) * (size_t)n);
    double *f1 = malloc(sizeof(double) * (size_t)n * (size_t)o->samples);
    int *run = malloc(sizeof(int) * (size_t)n); /* run[t * m + j] = t * m + j */
    int rc = p && counts && full && f1 && run ? 0 : sr_fail(err, "out of memory");
    CompareTestSet set = {0};
    for (int k = 0; k < n && rc == 0; k++) {
        const CompareSide *s = side[k / m];
        rc = compare_side_load(s->rows[idx[k / m][k % m]], s->runs_dir, &set, &p[k], err);
        counts[k] = p[k].counts;
        full[k] = rc ? 0 : bootstrap_f1(p[k].counts, NULL, p[k].n_sents);
        run[k] = k;
    }
    if (rc == 0) rc = bootstrap_run_f1(counts, n, set.n_sents, o->samples, o->seed, f1, err);
    BootstrapDiff d[3];
    const int *xa = run, *ya = run + m, *xb = run + 2 * m, *yb = run + 3 * m;
    if (rc == 0)
        rc = bootstrap_paired_diff(f1, full, n, o->samples, xa, ya, m, o->seed, &d[0], err) ||
             bootstrap_paired_diff(f1, full, n, o->samples, xb, yb, m, o->seed, &d[1], err) ||
             bootstrap_paired_gap(f1, full, n, o->samples, xb, yb, xa, ya, m, o->seed, &d[2], err)
             ? -1 : 0;
    for (int r = 0; r < 3 && rc == 0; r++) {
        const char *name = r == 1 ? o->against_name : o->results_name;
        char a[128], b[128];
        if (r < 2) {
            snprintf(a, sizeof a, "%.40s [%.40s]", o->gap_x, name);
            snprintf(b, sizeof b, "%.40s [%.40s]", o->gap_y, name);
        } else {
            snprintf(a, sizeof a, "%.40s - %.40s [%.40s]", o->gap_x, o->gap_y, o->against_name);
            snprintf(b, sizeof b, "%.40s - %.40s [%.40s]", o->gap_x, o->gap_y, o->results_name);
        }
        rc = push_row(&side[X_A]->rows[idx[X_A][0]]->key, a, b, m, &d[r], out, err);
    }
    for (int k = 0; p && k < n; k++) predictions_free(&p[k]);
    free(p);
    free(counts);
    free(full);
    free(f1);
    free(run);
    return rc;
}

/* The block of R and B (one dataset and recipe of each sweep): its three
 * rows, or *left_out set when a label is missing or no seed is common. */
static int gap_block(const CompareSide *R, const CompareSide *B, const CompareOptions *o,
                     CompareTable *out, int *left_out, SrError *err)
{
    const CompareSide *const side[N_TERMS] = {R, R, B, B};
    const char *label[N_TERMS] = {o->gap_x, o->gap_y, o->gap_x, o->gap_y};
    int first[N_TERMS], cap = (R->n < B->n ? R->n : B->n) + 1;
    for (int t = 0; t < N_TERMS; t++) {
        const char *file = t < 2 ? o->results_file : o->against_file;
        if (find_label(side[t], label[t], file, &first[t], err)) return -1;
        if (first[t] < 0) {
            *left_out = 1;
            return 0;
        }
    }
    int *buf = malloc(sizeof(int) * N_TERMS * (size_t)cap);
    if (!buf) return sr_fail(err, "out of memory");
    int *const idx[N_TERMS] = {buf, buf + cap, buf + 2 * cap, buf + 3 * cap};
    int m = common_seeds(side, first, idx), rc = 0;
    if (m == 0) *left_out = 1;
    else rc = gap_rows(side, idx, m, o, out, err);
    free(buf);
    return rc;
}

/* How many blocks of x that o wants are not in y at all. */
static int blocks_alone(const SweepTable *x, const SweepTable *y, const CompareOptions *o)
{
    int n = 0;
    for (int i = 0; i < x->n; i++) {
        if (!compare_first_of_block(x, i, o)) continue;
        int found = 0;
        for (int j = 0; j < y->n && !found; j++)
            found = compare_wanted(&y->rows[j], o) &&
                    compare_same_block(&y->rows[j].key, &x->rows[i].key);
        n += !found;
    }
    return n;
}

/* -1 and err unless both labels are of some wanted run of both sweeps. */
static int check_labels(const SweepTable *results, const SweepTable *against,
                        const CompareOptions *o, SrError *err)
{
    const char *labels[2] = {o->gap_x, o->gap_y};
    for (int l = 0; l < 2; l++) {
        if (!sweep_has_label(results, labels[l], o))
            return sr_fail(err, "--gap '%s': no configuration of that label in the --results "
                                "sweep %s", labels[l], o->results_file);
        if (!sweep_has_label(against, labels[l], o))
            return sr_fail(err, "--gap '%s': no configuration of that label in the --against "
                                "sweep %s", labels[l], o->against_file);
    }
    return 0;
}

int compare_gap(const SweepTable *results, const char *runs_results, const SweepTable *against,
                const char *runs_against, const CompareOptions *o, CompareTable *out,
                SrError *err)
{
    memset(out, 0, sizeof *out);
    if (compare_sides_check(results, against, o, err)) return -1;
    if (!o->gap_x || !o->gap_y) return sr_fail(err, "--gap needs two labels");
    CompareOptions named = *o;
    if (!named.results_file) named.results_file = o->results_name;
    if (!named.against_file) named.against_file = o->against_name;
    if (check_labels(results, against, &named, err)) return -1;
    int left_out = 0, rc = 0;
    for (int i = 0; i < results->n && rc == 0; i++) {
        if (!compare_first_of_block(results, i, o)) continue;
        CompareSide R = {.runs_dir = runs_results}, B = {.runs_dir = runs_against};
        int alone = 0;
        rc = compare_side_gather(results, &results->rows[i].key, o, &R, err);
        if (rc == 0) rc = compare_side_gather(against, &results->rows[i].key, o, &B, err);
        if (rc == 0 && B.n > 0) rc = gap_block(&R, &B, &named, out, &alone, err);
        left_out += alone;
        free(R.rows);
        free(B.rows);
    }
    if (rc == 0 && out->n == 0)
        rc = sr_fail(err, "--gap '%s','%s': no seed common to the four runs ('%s' and '%s' of "
                          "%s and of %s) in any dataset and recipe", o->gap_x, o->gap_y, o->gap_x,
                     o->gap_y, named.results_file, named.against_file);
    if (rc == 0) out->n_unpaired = left_out + blocks_alone(results, against, o) +
                                   blocks_alone(against, results, o);
    if (rc) compare_table_free(out);
    return rc;
}
