/* test_bootstrap.c — the paired bootstrap of F1 differences (label/bootstrap.h)
 * and predictions files read back as span counts (label/predictions.h): F1
 * from per-sentence counts equals the F1 finetune reports, draws are fixed
 * by the seed, identical configurations differ by exactly 0, and intervals
 * shrink with more test sentences. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

#include "base/rng.h"
#include "data/conll.h"
#include "label/bootstrap.h"
#include "label/labels.h"
#include "label/predictions.h"

/* n made-up sentences, one gold span each, the prediction right with
 * probability p_right (else a wrong type, or no span at all), from rng. */
static SpanCounts *made_up_run(int n, double p_right, unsigned long long seed)
{
    SpanCounts *c = calloc((size_t)n, sizeof *c);
    assert_non_null(c);
    Rng rng;
    rng_seed(&rng, seed);
    for (int s = 0; s < n; s++) {
        double u = rng_uniform(&rng);
        c[s].n_gold = 1;
        c[s].n_pred = u < p_right ? 1 : u < (1 + p_right) / 2 ? 1 : 0;
        c[s].tp = u < p_right;
    }
    return c;
}

/* ---- F1 from counts: the same as metrics.h and labels_score ---- */

static void test_f1_from_counts(void **state)
{
    (void)state;
    Dataset d = {0};
    SrError err;
    const char *words[] = {"a", "b", "c", "d"};
    const char *gold[3][4] = {{"B-PER", "I-PER", "O", "B-LOC"}, {"O", "O", "B-LOC", "I-LOC"},
                              {"B-ORG", "O", "O", "O"}};
    for (int s = 0; s < 3; s++) assert_int_equal(dataset_add(&d, words, gold[s], 4, s + 1, &err), 0);
    LabelSet ls;
    assert_int_equal(labels_build(&ls, &d, &err), 0);
    /* predicted: the PER span right, the first LOC missed, an I-LOC that opens
     * no span (strict IOB2; not converted), the ORG span right */
    const char *pred[3][4] = {{"B-PER", "I-PER", "O", "O"}, {"O", "O", "I-LOC", "I-LOC"},
                              {"B-ORG", "O", "B-PER", "O"}};
    int ids[12];
    for (int s = 0; s < 3; s++)
        for (int w = 0; w < 4; w++) {
            ids[4 * s + w] = -1;
            for (int k = 0; k < ls.n; k++)
                if (strcmp(ls.names[k], pred[s][w]) == 0) ids[4 * s + w] = k;
            assert_true(ids[4 * s + w] >= 0);
        }
    SpanScores reported;
    assert_int_equal(labels_score(&ls, &d, ids, &reported, &err), 0);
    /* gold 4 spans, predicted 3 (PER, ORG, PER), 2 right: P 66.67, R 50, F1 57.14 */
    assert_int_equal(reported.counts.tp, 2);
    assert_int_equal(reported.counts.n_pred, 3);
    assert_int_equal(reported.counts.n_gold, 4);

    /* the predictions file, as finetune --predictions writes it, read back */
    char path[] = "/tmp/test_bootstrap.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char **names[3];
    for (int s = 0; s < 3; s++) names[s] = (char **)pred[s];
    assert_int_equal(conll_write(path, &d, (char *const *const *)names, &err), 0);
    PredictionCounts p;
    assert_int_equal(predictions_read(path, &p, &err), 0);
    assert_int_equal(p.n_sents, 3);
    assert_int_equal(p.n_words, 12);
    assert_int_equal(p.counts[1].n_pred, 0);
    assert_int_equal(p.counts[1].n_gold, 1);
    assert_true(bootstrap_f1(p.counts, NULL, p.n_sents) == reported.f1);
    assert_true(fabs(reported.f1 - 400.0 / 7.0) < 1e-9);
    /* weights: sentence 0 twice, 1 never, 2 once = counts summed that way */
    int weight[3] = {2, 0, 1};
    SpanCounts sum = {0};
    for (int rep = 0; rep < 2; rep++) span_counts_add(&sum, gold[0], pred[0], 4);
    span_counts_add(&sum, gold[2], pred[2], 4);
    assert_true(bootstrap_f1(p.counts, weight, 3) == span_scores(sum).f1);
    /* the same test set has the same checksum, whatever was predicted */
    PredictionCounts q;
    for (int s = 0; s < 3; s++) names[s] = (char **)gold[s];
    assert_int_equal(conll_write(path, &d, (char *const *const *)names, &err), 0);
    assert_int_equal(predictions_read(path, &q, &err), 0);
    assert_true(q.gold_checksum == p.gold_checksum);
    assert_true(bootstrap_f1(q.counts, NULL, 3) == 100.0);
    predictions_free(&q);
    predictions_free(&p);

    /* bad files: a line of 2 columns, no sentence, a missing file */
    FILE *f = fopen(path, "w");
    fputs("a O O\nb O\n", f);
    fclose(f);
    assert_int_equal(predictions_read(path, &p, &err), -1);
    assert_non_null(strstr(err.msg, ":2: 2 columns, expected 3"));
    f = fopen(path, "w");
    fputs("\n\n", f);
    fclose(f);
    assert_int_equal(predictions_read(path, &p, &err), -1);
    assert_non_null(strstr(err.msg, "no sentence"));
    unlink(path);
    assert_int_equal(predictions_read(path, &p, &err), -1);
    assert_non_null(strstr(err.msg, path));
    labels_free(&ls);
    dataset_free(&d);
}

/* ---- draws ---- */

static void test_draws(void **state)
{
    (void)state;
    int w1[50], w2[50], w3[50];
    bootstrap_draw(7, 3, 0, 50, w1);
    bootstrap_draw(7, 3, 0, 50, w2);
    bootstrap_draw(8, 3, 0, 50, w3);
    int total = 0, same = 1, other = 0;
    for (int i = 0; i < 50; i++) {
        total += w1[i];
        same &= w1[i] == w2[i];
        other |= w1[i] != w3[i];
    }
    assert_int_equal(total, 50);
    assert_true(same);
    assert_true(other);
    bootstrap_draw(7, 4, 0, 50, w2); /* the next sample, and the seeds' stream, differ */
    bootstrap_draw(7, 3, 1, 50, w3);
    int differ_b = 0, differ_stream = 0;
    for (int i = 0; i < 50; i++) {
        differ_b |= w1[i] != w2[i];
        differ_stream |= w1[i] != w3[i];
    }
    assert_true(differ_b && differ_stream);
}

/* ---- intervals ---- */

/* Three seeds of A (right 80% of the time) and B (60%) on n sentences. */
static BootstrapDiff compare_made_up(int n, int samples, unsigned long long seed)
{
    SpanCounts *a[3], *b[3];
    for (int j = 0; j < 3; j++) {
        a[j] = made_up_run(n, 0.8, 100 + j);
        b[j] = made_up_run(n, 0.6, 200 + j);
    }
    BootstrapDiff d;
    SrError err;
    assert_int_equal(bootstrap_compare((const SpanCounts *const *)a, (const SpanCounts *const *)b,
                                       3, n, samples, seed, &d, &err), 0);
    for (int j = 0; j < 3; j++) {
        free(a[j]);
        free(b[j]);
    }
    return d;
}

static void test_deterministic(void **state)
{
    (void)state;
    BootstrapDiff x = compare_made_up(100, 500, 42), y = compare_made_up(100, 500, 42);
    BootstrapDiff z = compare_made_up(100, 500, 43);
    assert_true(x.lo == y.lo && x.hi == y.hi && x.diff == y.diff);
    assert_true(x.lo != z.lo || x.hi != z.hi);
    assert_true(x.diff == z.diff); /* the point estimate is the whole test set's */
    assert_true(x.lo <= x.diff && x.diff <= x.hi);
    assert_true(x.f1_a > x.f1_b);
}

static void test_identical_configurations(void **state)
{
    (void)state;
    SpanCounts *a[2] = {made_up_run(60, 0.7, 1), made_up_run(60, 0.5, 2)};
    BootstrapDiff d;
    SrError err;
    assert_int_equal(bootstrap_compare((const SpanCounts *const *)a, (const SpanCounts *const *)a,
                                       2, 60, 300, 5, &d, &err), 0);
    assert_true(d.diff == 0.0 && d.lo == 0.0 && d.hi == 0.0);
    assert_true(d.f1_a == d.f1_b && d.f1_a > 0);
    /* no seed pair, no sample: errors */
    assert_int_equal(bootstrap_compare((const SpanCounts *const *)a, (const SpanCounts *const *)a,
                                       0, 60, 300, 5, &d, &err), -1);
    assert_int_equal(bootstrap_compare((const SpanCounts *const *)a, (const SpanCounts *const *)a,
                                       2, 60, 0, 5, &d, &err), -1);
    free(a[0]);
    free(a[1]);
}

static void test_interval_shrinks(void **state)
{
    (void)state;
    BootstrapDiff small = compare_made_up(50, 1000, 9), large = compare_made_up(1600, 1000, 9);
    double w_small = small.hi - small.lo, w_large = large.hi - large.lo;
    /* about 1/sqrt(32) as wide; at least 3 times narrower */
    assert_true(w_large > 0);
    assert_true(w_large * 3 < w_small);
    /* with 1600 sentences the 20-point gap of A over B is resolved */
    assert_true(large.lo > 0);
    assert_true(fabs(large.diff - 20) < 5);
}

/* With one seed pair and one sentence the table of bootstrap_run_f1 is the
 * run's own F1, and the percentiles of equal samples are that value. */
static void test_table_and_percentiles(void **state)
{
    (void)state;
    SpanCounts one[2] = {{1, 2, 1}, {0, 1, 1}};
    const SpanCounts *runs[2] = {&one[0], &one[1]};
    double f1[2 * 4], full[2] = {bootstrap_f1(&one[0], NULL, 1), bootstrap_f1(&one[1], NULL, 1)};
    SrError err;
    assert_int_equal(bootstrap_run_f1(runs, 2, 1, 4, 3, f1, &err), 0);
    for (int b = 0; b < 4; b++) {
        assert_true(f1[2 * b] == full[0]);
        assert_true(f1[2 * b + 1] == 0.0);
    }
    int ia[1] = {0}, ib[1] = {1};
    BootstrapDiff d;
    assert_int_equal(bootstrap_paired_diff(f1, full, 2, 4, ia, ib, 1, 3, &d, &err), 0);
    assert_true(fabs(d.diff - 200.0 / 3.0) < 1e-9);
    assert_true(d.lo == d.diff && d.hi == d.diff);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f1_from_counts),
        cmocka_unit_test(test_draws),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_identical_configurations),
        cmocka_unit_test(test_interval_shrinks),
        cmocka_unit_test(test_table_and_percentiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
