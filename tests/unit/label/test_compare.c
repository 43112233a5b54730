/* test_compare.c — a sweep's configurations compared by the paired bootstrap
 * (runs/compare/compare.h) on made-up runs: labels and order of the pairs, the
 * scores equal to the rows' means, --baseline, filters, and the errors
 * (missing predictions, another test set, an F1 that disagrees with its
 * row, an unknown label); and one configuration of two sweeps compared
 * (runs/compare/compare_against.h): the pairs by seed, the sign and the interval of
 * a hand-made case, the same numbers as within one sweep, the refusals;
 * and the change of a gap between two sweeps (runs/compare/compare_gap.h):
 * the seeds all four runs share, the points the differences of the rows'
 * means, a one-point interval when every sentence agrees, the refusals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

#include "label/predictions.h"
#include "runs/compare/compare.h"
#include "runs/compare/compare_against.h"
#include "runs/compare/compare_gap.h"
#include "runs/sweep/sweep.h"

#define N_SENTS 40

/* A run of the made-up sweep: its row, and its predictions file in dir,
 * where sentence s (gold "B-X O") is labelled right unless s % miss == 0
 * (miss 0: always right). The row's test F1 is the predictions'. */
static void add_run_of(SweepTable *t, const char *dir, const char *model, Method method, int r,
                       int exit_layer, RepeatPositions positions, int seed, int miss)
{
    SweepRow w;
    memset(&w, 0, sizeof w);
    strcpy(w.key.dataset, "rc");
    strcpy(w.key.model, model);
    strcpy(w.key.recipe, "full");
    w.key.method = method;
    w.key.r = r;
    w.key.exit_layer = exit_layer;
    w.key.positions = positions;
    w.key.seed = seed;
    w.epochs = w.best_epoch = 1;
    snprintf(w.source, sizeof w.source, "sweep.csv:%d", t->n + 2);
    char csv[512], path[600];
    SrError err;
    assert_int_equal(sweep_run_path(&w.key, dir, csv, sizeof csv, &err), 0);
    assert_int_equal(sweep_predictions_path(csv, path, sizeof path, &err), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int s = 0; s < N_SENTS; s++)
        fprintf(f, "w%d B-X %s\nend O O\n\n", s, miss && s % miss == 0 ? "O" : "B-X");
    fclose(f);
    PredictionCounts p;
    assert_int_equal(predictions_read(path, &p, &err), 0);
    w.test_f1 = bootstrap_f1(p.counts, NULL, p.n_sents);
    predictions_free(&p);
    int added = 0;
    assert_int_equal(sweep_table_add(t, &w, &added, &err), 0);
    assert_int_equal(added, 1);
}

/* add_run_of with the model of the made-up sweep. */
static void add_run(SweepTable *t, const char *dir, Method method, int r, int exit_layer,
                    RepeatPositions positions, int seed, int miss)
{
    add_run_of(t, dir, "models/lm.safetensors", method, r, exit_layer, positions, seed, miss);
}

/* The made-up sweep: causal misses every 2nd sentence, sr r=1 every 5th
 * and 4th (seeds 1, 2), sr r=1 restart the same as sr r=1, and sr r=2 only
 * seed 3 (no seed in common with the others). */
static void made_up_sweep(SweepTable *t, const char *dir)
{
    for (int seed = 1; seed <= 2; seed++) {
        add_run(t, dir, METHOD_CAUSAL, 0, 2, REPEAT_POSITIONS_RUN, seed, 2);
        add_run(t, dir, METHOD_SR, 1, 2, REPEAT_POSITIONS_RUN, seed, seed == 1 ? 5 : 4);
        add_run(t, dir, METHOD_SR, 1, 2, REPEAT_POSITIONS_RESTART, seed, seed == 1 ? 5 : 4);
    }
    add_run(t, dir, METHOD_SR, 2, 2, REPEAT_POSITIONS_RUN, 3, 0);
}

/* The made-up sweep compared pair by pair: labels and order, the scores
 * the rows' means, identical predictions exactly 0, the CSV and markdown. */
static void check_pairs(const SweepTable *t, const char *dir, const CompareOptions *o)
{
    CompareTable c;
    SrError err;
    assert_int_equal(compare_sweep(t, dir, o, &c, &err), 0);
    /* 4 configurations: 6 pairs, of which the 3 with sr r=2 share no seed */
    assert_int_equal(c.n, 3);
    assert_int_equal(c.n_unpaired, 3);
    assert_string_equal(c.rows[0].a, "sr r=1");
    assert_string_equal(c.rows[0].b, "causal");
    assert_string_equal(c.rows[1].a, "sr r=1 restart");
    assert_string_equal(c.rows[1].b, "causal");
    assert_string_equal(c.rows[2].a, "sr r=1 restart");
    assert_string_equal(c.rows[2].b, "sr r=1");
    /* the scores are the means of the rows' test F1 */
    double causal = (t->rows[0].test_f1 + t->rows[3].test_f1) / 2;
    double sr = (t->rows[1].test_f1 + t->rows[4].test_f1) / 2;
    assert_true(fabs(c.rows[0].d.f1_b - causal) < 1e-9);
    assert_true(fabs(c.rows[0].d.f1_a - sr) < 1e-9);
    assert_int_equal(c.rows[0].seeds, 2);
    assert_true(c.rows[0].d.lo > 0);
    assert_string_equal(compare_resolved(&c.rows[0]), "a>b");
    /* the same predictions: exactly 0 */
    assert_true(c.rows[2].d.diff == 0 && c.rows[2].d.lo == 0 && c.rows[2].d.hi == 0);
    assert_string_equal(compare_resolved(&c.rows[2]), "noise");
    char *csv = compare_csv(&c);
    assert_non_null(csv);
    assert_int_equal(strncmp(csv, COMPARE_CSV_HEADER "\n", strlen(COMPARE_CSV_HEADER) + 1), 0);
    assert_non_null(strstr(csv, "\nrc,full,sr r=1 restart,sr r=1,2,"));
    assert_non_null(strstr(csv, ",0.0000,0.0000,0.0000,noise\n"));
    free(csv);
    char *md = compare_markdown(&c, o);
    assert_non_null(strstr(md, "### rc (recipe full)"));
    assert_non_null(strstr(md, "| sr r=1 restart | sr r=1 | 2 |"));
    free(md);
    compare_table_free(&c);
}

/* --baseline: everything against one configuration (the baseline is
 * always b); an unknown one is refused naming the ones there. */
static void check_baseline(const SweepTable *t, const char *dir, CompareOptions *o)
{
    CompareTable c;
    SrError err;
    o->baseline = "sr r=1";
    assert_int_equal(compare_sweep(t, dir, o, &c, &err), 0);
    assert_int_equal(c.n, 2);
    assert_string_equal(c.rows[0].a, "causal");
    assert_string_equal(c.rows[0].b, "sr r=1");
    assert_string_equal(compare_resolved(&c.rows[0]), "b>a");
    compare_table_free(&c);
    o->baseline = "encoder";
    assert_int_equal(compare_sweep(t, dir, o, &c, &err), -1);
    assert_non_null(strstr(err.msg, "--baseline 'encoder'"));
    assert_non_null(strstr(err.msg, "'sr r=1 restart'"));
    o->baseline = NULL;
}

/* A second exit: labels name the exit; --exit keeps one; --dataset of
 * none is refused. */
static void check_exits(SweepTable *t, const char *dir, CompareOptions *o)
{
    CompareTable c;
    SrError err;
    add_run(t, dir, METHOD_CAUSAL, 0, 1, REPEAT_POSITIONS_RUN, 1, 3);
    assert_int_equal(compare_sweep(t, dir, o, &c, &err), 0);
    assert_string_equal(c.rows[0].a, "causal exit=2");
    assert_string_equal(c.rows[0].b, "causal exit=1");
    compare_table_free(&c);
    o->exit_layer = 2;
    assert_int_equal(compare_sweep(t, dir, o, &c, &err), 0);
    assert_int_equal(c.n, 3);
    assert_string_equal(c.rows[0].b, "causal");
    compare_table_free(&c);
    o->dataset = "other";
    assert_int_equal(compare_sweep(t, dir, o, &c, &err), -1);
    assert_non_null(strstr(err.msg, "no run"));
    o->dataset = NULL;
}

/* An F1 that disagrees with its row; predictions of another test set; a
 * missing predictions file: each refused naming the row or the file. */
static void check_refusals(SweepTable *t, const char *dir, const CompareOptions *o)
{
    CompareTable c;
    SrError err;
    t->rows[1].test_f1 += 1;
    assert_int_equal(compare_sweep(t, dir, o, &c, &err), -1);
    assert_non_null(strstr(err.msg, "from the predictions"));
    assert_non_null(strstr(err.msg, "sweep.csv:3"));
    t->rows[1].test_f1 -= 1;
    char csv_path[512], pred_path[600];
    assert_int_equal(sweep_run_path(&t->rows[4].key, dir, csv_path, sizeof csv_path, &err), 0);
    assert_int_equal(sweep_predictions_path(csv_path, pred_path, sizeof pred_path, &err), 0);
    FILE *f = fopen(pred_path, "w");
    fputs("other B-X B-X\n\n", f);
    fclose(f);
    assert_int_equal(compare_sweep(t, dir, o, &c, &err), -1);
    assert_non_null(strstr(err.msg, "another test set"));
    unlink(pred_path);
    assert_int_equal(compare_sweep(t, dir, o, &c, &err), -1);
    assert_non_null(strstr(err.msg, pred_path));
    assert_non_null(strstr(err.msg, "sweep.csv:6"));
}

static void test_all_pairs(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_compare.XXXXXX";
    assert_non_null(mkdtemp(dir));
    SweepTable t = {0};
    made_up_sweep(&t, dir);
    CompareOptions o = {.samples = 400, .seed = 1};
    check_pairs(&t, dir, &o);
    check_baseline(&t, dir, &o);
    check_exits(&t, dir, &o);
    check_refusals(&t, dir, &o);
    sweep_table_free(&t);
    test_remove_dir(dir);
}

/* Two sweeps of two LMs, each in its own runs directory: the base (causal
 * wrong on every sentence; sr r=1 missing every 5th sentence with seed 1,
 * every 3rd with seed 2; unmask-full seed 1 only) and a variant (causal
 * right on every sentence; sr r=1 missing every 4th with seed 2, every 6th
 * with seed 3; sr r=4 seed 2, which the base lacks). */
static void two_sweeps(SweepTable *base, const char *base_dir, SweepTable *variant,
                       const char *variant_dir)
{
    for (int seed = 1; seed <= 2; seed++) {
        add_run_of(base, base_dir, "house/lm.safetensors", METHOD_CAUSAL, 0, 2,
                   REPEAT_POSITIONS_RUN, seed, 1);
        add_run_of(base, base_dir, "house/lm.safetensors", METHOD_SR, 1, 2, REPEAT_POSITIONS_RUN,
                   seed, seed == 1 ? 5 : 3);
    }
    add_run_of(base, base_dir, "house/lm.safetensors", METHOD_UNMASK_FULL, 0, 2,
               REPEAT_POSITIONS_RUN, 1, 0);
    for (int seed = 2; seed <= 3; seed++) {
        add_run_of(variant, variant_dir, "house/v/lm.safetensors", METHOD_CAUSAL, 0, 2,
                   REPEAT_POSITIONS_RUN, seed, 0);
        add_run_of(variant, variant_dir, "house/v/lm.safetensors", METHOD_SR, 1, 2,
                   REPEAT_POSITIONS_RUN, seed, seed == 2 ? 4 : 6);
    }
    add_run_of(variant, variant_dir, "house/v/lm.safetensors", METHOD_SR, 4, 2,
               REPEAT_POSITIONS_RUN, 2, 0);
}

/* The two sweeps compared: pairs by seed, the hand-made case's one-point
 * interval, the sr r=1 numbers equal to those of one sweep holding both
 * runs as two configurations. */
static void check_against_pairs(const SweepTable *base, const char *base_dir, const SweepTable *variant,
                                const char *variant_dir, const CompareOptions *o)
{
    CompareTable c;
    SrError err;
    assert_int_equal(compare_against(base, base_dir, variant, variant_dir, o, &c, &err), 0);
    /* causal and sr r=1 pair on seed 2; unmask-full and sr r=4 have no partner */
    assert_int_equal(c.n, 2);
    assert_int_equal(c.n_unpaired, 2);
    assert_string_equal(c.rows[0].a, "causal [v]");
    assert_string_equal(c.rows[0].b, "causal [base]");
    assert_string_equal(c.rows[1].a, "sr r=1 [v]");
    assert_int_equal(c.rows[0].seeds, 1);
    /* the hand-made case: 100 against 0 on every resampling, so the interval is one point */
    assert_true(c.rows[0].d.f1_a == 100.0 && c.rows[0].d.f1_b == 0.0);
    assert_true(c.rows[0].d.diff == 100.0 && c.rows[0].d.lo == 100.0 && c.rows[0].d.hi == 100.0);
    assert_string_equal(compare_resolved(&c.rows[0]), "a>b");
    /* sr r=1: the variant's seed-2 run (every 4th missed) minus the base's (every 3rd missed) */
    assert_true(fabs(c.rows[1].d.f1_a - variant->rows[1].test_f1) < 1e-9);
    assert_true(fabs(c.rows[1].d.f1_b - base->rows[3].test_f1) < 1e-9);
    assert_true(c.rows[1].d.diff > 0 && c.rows[1].d.lo <= c.rows[1].d.diff &&
                c.rows[1].d.diff <= c.rows[1].d.hi);
    char *md = compare_markdown(&c, o);
    assert_non_null(strstr(md, "a is a configuration of v, b the same configuration"));
    assert_non_null(strstr(md, "| sr r=1 [v] | sr r=1 [base] | 1 |"));
    free(md);
    /* the same numbers as one sweep holding both runs as two configurations */
    SweepTable one = {0};
    add_run(&one, base_dir, METHOD_SR, 1, 2, REPEAT_POSITIONS_RUN, 2, 3);
    add_run(&one, base_dir, METHOD_SR, 2, 2, REPEAT_POSITIONS_RUN, 2, 4);
    CompareOptions within = {.samples = 300, .seed = 7};
    CompareTable w;
    assert_int_equal(compare_sweep(&one, base_dir, &within, &w, &err), 0);
    assert_int_equal(w.n, 1);
    assert_true(w.rows[0].d.diff == c.rows[1].d.diff && w.rows[0].d.lo == c.rows[1].d.lo &&
                w.rows[0].d.hi == c.rows[1].d.hi);
    compare_table_free(&w);
    sweep_table_free(&one);
    compare_table_free(&c);
}

/* The other way round: the sign turns. */
static void check_against_reversed(const SweepTable *base, const char *base_dir, const SweepTable *variant,
                                   const char *variant_dir, CompareOptions *o)
{
    CompareTable c;
    SrError err;
    o->results_name = "v";
    o->against_name = "base";
    assert_int_equal(compare_against(variant, variant_dir, base, base_dir, o, &c, &err), 0);
    assert_true(c.rows[0].d.diff == -100.0 && c.rows[0].d.hi == -100.0);
    assert_string_equal(compare_resolved(&c.rows[0]), "b>a");
    assert_string_equal(c.rows[0].a, "causal [base]");
    compare_table_free(&c);
}

/* Refusals: a --baseline, no seed in common, another test set, a missing file. */
static void check_against_refusals(const SweepTable *base, const char *base_dir, const SweepTable *variant,
                                   const char *variant_dir, CompareOptions *o)
{
    CompareTable c;
    SrError err;
    o->baseline = "causal";
    assert_int_equal(compare_against(base, base_dir, variant, variant_dir, o, &c, &err), -1);
    assert_non_null(strstr(err.msg, "--baseline"));
    o->baseline = NULL;
    o->recipe = "paper";
    assert_int_equal(compare_against(base, base_dir, variant, variant_dir, o, &c, &err), -1);
    assert_non_null(strstr(err.msg, "no run of the --results sweep"));
    o->recipe = NULL;
    SweepTable seed9 = {0};
    add_run_of(&seed9, variant_dir, "house/v/lm.safetensors", METHOD_CAUSAL, 0, 2,
               REPEAT_POSITIONS_RUN, 9, 0);
    assert_int_equal(compare_against(base, base_dir, &seed9, variant_dir, o, &c, &err), -1);
    assert_non_null(strstr(err.msg, "nothing to compare"));
    sweep_table_free(&seed9);
    char csv_path[512], pred_path[600];
    assert_int_equal(sweep_run_path(&variant->rows[0].key, variant_dir, csv_path, sizeof csv_path, &err), 0);
    assert_int_equal(sweep_predictions_path(csv_path, pred_path, sizeof pred_path, &err), 0);
    FILE *f = fopen(pred_path, "w");
    fputs("other B-X B-X\n\n", f);
    fclose(f);
    assert_int_equal(compare_against(base, base_dir, variant, variant_dir, o, &c, &err), -1);
    assert_non_null(strstr(err.msg, "another test set"));
    assert_non_null(strstr(err.msg, pred_path));
    unlink(pred_path);
    assert_int_equal(compare_against(base, base_dir, variant, variant_dir, o, &c, &err), -1);
    assert_non_null(strstr(err.msg, pred_path));
    assert_non_null(strstr(err.msg, "cannot read"));
}

/* body(a_dir, b_dir) in two new temporary folders, removed after. */
static void in_two_dirs(void (*body)(const char *a_dir, const char *b_dir))
{
    char a_dir[] = "/tmp/test_compare_a.XXXXXX", b_dir[] = "/tmp/test_compare_b.XXXXXX";
    assert_non_null(mkdtemp(a_dir));
    assert_non_null(mkdtemp(b_dir));
    body(a_dir, b_dir);
    test_remove_dir(a_dir);
    test_remove_dir(b_dir);
}

/* The base and variant sweeps compared: pairs, the sign, the refusals. */
static void against_in(const char *base_dir, const char *variant_dir)
{
    SweepTable base = {0}, variant = {0};
    two_sweeps(&base, base_dir, &variant, variant_dir);
    CompareOptions o = {.samples = 300, .seed = 7, .results_name = "base", .against_name = "v"};
    check_against_pairs(&base, base_dir, &variant, variant_dir, &o);
    check_against_reversed(&base, base_dir, &variant, variant_dir, &o);
    check_against_refusals(&base, base_dir, &variant, variant_dir, &o);
    sweep_table_free(&base);
    sweep_table_free(&variant);
}

static void test_against(void **state)
{
    (void)state;
    in_two_dirs(against_in);
}

/* The test F1 of t's run of method, r and seed (positions run, exit 2). */
static double run_f1(const SweepTable *t, Method method, int r, int seed)
{
    for (int i = 0; i < t->n; i++) {
        const SweepRun *k = &t->rows[i].key;
        if (k->method == method && k->r == r && k->seed == seed) return t->rows[i].test_f1;
    }
    fail_msg("no run of method %d, r %d, seed %d", (int)method, r, seed);
    return 0;
}

/* Two sweeps for --gap. A: sr r=1 seeds 1-3 (misses every -, 5th, 4th
 * sentence), causal seeds 1-3 (all wrong, every 2nd, every 3rd). B: sr r=1
 * seeds 2-4 (every 6th, none, all), causal seeds 1-3 (none, every 4th,
 * every 5th): the four share seeds 2 and 3. And the hand-made case, seed 1:
 * sr r=2 always right in both, unmask-full always wrong in A and always
 * right in B: the gap is 100 in A, 0 in B, the change -100 on any draw. */
static void gap_sweeps(SweepTable *a, const char *a_dir, SweepTable *b, const char *b_dir)
{
    static const int xa[3] = {0, 5, 4}, ya[3] = {1, 2, 3}, xb[3] = {6, 0, 1}, yb[3] = {0, 4, 5};
    const char *ma = "house/lm.safetensors", *mb = "house/v/lm.safetensors";
    for (int i = 0; i < 3; i++) {
        add_run_of(a, a_dir, ma, METHOD_SR, 1, 2, REPEAT_POSITIONS_RUN, i + 1, xa[i]);
        add_run_of(a, a_dir, ma, METHOD_CAUSAL, 0, 2, REPEAT_POSITIONS_RUN, i + 1, ya[i]);
        add_run_of(b, b_dir, mb, METHOD_SR, 1, 2, REPEAT_POSITIONS_RUN, i + 2, xb[i]);
        add_run_of(b, b_dir, mb, METHOD_CAUSAL, 0, 2, REPEAT_POSITIONS_RUN, i + 1, yb[i]);
    }
    add_run_of(a, a_dir, ma, METHOD_SR, 2, 2, REPEAT_POSITIONS_RUN, 1, 0);
    add_run_of(a, a_dir, ma, METHOD_UNMASK_FULL, 0, 2, REPEAT_POSITIONS_RUN, 1, 1);
    add_run_of(b, b_dir, mb, METHOD_SR, 2, 2, REPEAT_POSITIONS_RUN, 1, 0);
    add_run_of(b, b_dir, mb, METHOD_UNMASK_FULL, 0, 2, REPEAT_POSITIONS_RUN, 1, 0);
    /* a label both sweeps have, but of no seed in common: sr r=4, seed 1 in A, 5 in B */
    add_run_of(a, a_dir, ma, METHOD_SR, 4, 2, REPEAT_POSITIONS_RUN, 1, 0);
    add_run_of(b, b_dir, mb, METHOD_SR, 4, 2, REPEAT_POSITIONS_RUN, 5, 0);
}

/* compare_gap of the gap x - y into c: three rows, one block. */
static void gap_table(const SweepTable *a, const char *a_dir, const SweepTable *b,
                      const char *b_dir, CompareOptions *o, const char *x, const char *y,
                      CompareTable *c)
{
    SrError err;
    o->gap_x = x;
    o->gap_y = y;
    assert_int_equal(compare_gap(a, a_dir, b, b_dir, o, c, &err), 0);
    assert_int_equal(c->n, 3);
}

/* sr r=1 - causal: three rows on seeds 2 and 3, each point the difference
 * of the rows' means, inside its interval; the change the difference of
 * the two gaps. */
static void check_gap_rows(const SweepTable *a, const char *a_dir, const SweepTable *b,
                           const char *b_dir, CompareOptions *o)
{
    CompareTable c;
    gap_table(a, a_dir, b, b_dir, o, "sr r=1", "causal", &c);
    assert_string_equal(c.rows[0].a, "sr r=1 [base]");
    assert_string_equal(c.rows[0].b, "causal [base]");
    assert_string_equal(c.rows[1].a, "sr r=1 [v]");
    assert_string_equal(c.rows[1].b, "causal [v]");
    assert_string_equal(c.rows[2].a, "sr r=1 - causal [v]");
    assert_string_equal(c.rows[2].b, "sr r=1 - causal [base]");
    double gap_a = (run_f1(a, METHOD_SR, 1, 2) + run_f1(a, METHOD_SR, 1, 3)) / 2 -
                   (run_f1(a, METHOD_CAUSAL, 0, 2) + run_f1(a, METHOD_CAUSAL, 0, 3)) / 2;
    double gap_b = (run_f1(b, METHOD_SR, 1, 2) + run_f1(b, METHOD_SR, 1, 3)) / 2 -
                   (run_f1(b, METHOD_CAUSAL, 0, 2) + run_f1(b, METHOD_CAUSAL, 0, 3)) / 2;
    const double want[3] = {gap_a, gap_b, gap_b - gap_a};
    for (int r = 0; r < 3; r++) {
        const BootstrapDiff *d = &c.rows[r].d;
        assert_int_equal(c.rows[r].seeds, 2);
        assert_true(fabs(d->diff - want[r]) < 1e-9);
        assert_true(fabs(d->diff - (d->f1_a - d->f1_b)) < 1e-9);
        assert_true(d->lo <= d->diff && d->diff <= d->hi && d->lo < d->hi);
    }
    assert_true(fabs(c.rows[2].d.f1_a - gap_b) < 1e-9 && fabs(c.rows[2].d.f1_b - gap_a) < 1e-9);
    double sr_a = (run_f1(a, METHOD_SR, 1, 2) + run_f1(a, METHOD_SR, 1, 3)) / 2;
    assert_true(fabs(c.rows[0].d.f1_a - sr_a) < 1e-9);
    char *md = compare_markdown(&c, o);
    assert_non_null(strstr(md, "of the gap sr r=1 − causal in each of two sweeps"));
    assert_non_null(strstr(md, "| sr r=1 - causal [v] | sr r=1 - causal [base] | 2 |"));
    free(md);
    compare_table_free(&c);
}

/* The hand-made case: every sentence agrees, so every draw gives the same
 * numbers and the intervals are points: 100, 0, -100. */
static void check_gap_exact(const SweepTable *a, const char *a_dir, const SweepTable *b,
                            const char *b_dir, CompareOptions *o)
{
    CompareTable c;
    gap_table(a, a_dir, b, b_dir, o, "sr r=2", "unmask-full", &c);
    for (int r = 0; r < 3; r++) {
        const BootstrapDiff *d = &c.rows[r].d;
        double want = 100.0 * (1 - r); /* 100, 0, -100 */
        assert_true(c.rows[r].seeds == 1 && d->diff == want && d->lo == want && d->hi == want);
    }
    assert_true(c.rows[2].d.f1_a == 0 && c.rows[2].d.f1_b == 100);
    assert_string_equal(compare_resolved(&c.rows[2]), "b>a");
    compare_table_free(&c);
}

/* Refusals: a label in neither sweep, a label the --against sweep lacks,
 * no seed common to the four, --baseline, an F1 that disagrees with its row. */
static void check_gap_refusals(SweepTable *a, const char *a_dir, const SweepTable *b,
                               const char *b_dir, CompareOptions *o)
{
    CompareTable c;
    SrError err;
    o->gap_x = "sr r=9";
    o->gap_y = "causal";
    assert_int_equal(compare_gap(a, a_dir, b, b_dir, o, &c, &err), -1);
    assert_non_null(strstr(err.msg, "'sr r=9'"));
    assert_non_null(strstr(err.msg, "--results sweep base.csv"));
    o->gap_x = "sr r=1";
    SweepTable no_causal = {0};
    add_run_of(&no_causal, b_dir, "house/v/lm.safetensors", METHOD_SR, 1, 2, REPEAT_POSITIONS_RUN,
               2, 6);
    assert_int_equal(compare_gap(a, a_dir, &no_causal, b_dir, o, &c, &err), -1);
    assert_non_null(strstr(err.msg, "'causal'"));
    assert_non_null(strstr(err.msg, "--against sweep v.csv"));
    sweep_table_free(&no_causal);
    o->gap_x = "sr r=4";
    assert_int_equal(compare_gap(a, a_dir, b, b_dir, o, &c, &err), -1);
    assert_non_null(strstr(err.msg, "no seed common to the four"));
    o->gap_x = "sr r=1";
    o->baseline = "causal";
    assert_int_equal(compare_gap(a, a_dir, b, b_dir, o, &c, &err), -1);
    assert_non_null(strstr(err.msg, "--baseline"));
    o->baseline = NULL;
    a->rows[2].test_f1 += 1; /* sr r=1 of seed 2 */
    assert_int_equal(compare_gap(a, a_dir, b, b_dir, o, &c, &err), -1);
    assert_non_null(strstr(err.msg, "from the predictions"));
    a->rows[2].test_f1 -= 1;
}

/* The gap sweeps: the rows, the hand-made case, the refusals. */
static void gap_in(const char *a_dir, const char *b_dir)
{
    SweepTable a = {0}, b = {0};
    gap_sweeps(&a, a_dir, &b, b_dir);
    CompareOptions o = {.samples = 300, .seed = 5, .results_name = "base", .against_name = "v",
                        .results_file = "base.csv", .against_file = "v.csv"};
    check_gap_rows(&a, a_dir, &b, b_dir, &o);
    check_gap_exact(&a, a_dir, &b, b_dir, &o);
    check_gap_refusals(&a, a_dir, &b, b_dir, &o);
    sweep_table_free(&a);
    sweep_table_free(&b);
}

static void test_gap(void **state)
{
    (void)state;
    in_two_dirs(gap_in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_pairs),
        cmocka_unit_test(test_against),
        cmocka_unit_test(test_gap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
