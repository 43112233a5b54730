/* test_metrics.c — strict IOB2 spans and micro-F1 on worked examples, and the
 * tag set (labels.h). Every expected count is derived by hand in a comment. */
#include "test_util.h"

#include <string.h>

#include "label/labels.h"
#include "label/metrics.h"

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Counts of one sentence, gold against pred. */
static SpanCounts count_one(const char *const *gold, const char *const *pred, int n)
{
    SpanCounts c = {0};
    span_counts_add(&c, gold, pred, n);
    return c;
}

/* "I-X after O opens no span": gold   O B-PER I-PER O
 *                                pred   O I-PER I-PER O
 * gold spans: [PER 1..3)                       -> n_gold 1
 * pred spans: none (I-PER at 1 follows O, the one at 2 continues nothing) -> n_pred 0
 * tp 0; P = 0 (undefined -> 0), R = 0/1 = 0, F1 = 0. */
static void test_i_after_o_opens_no_span(void **state)
{
    (void)state;
    const char *gold[] = {"O", "B-PER", "I-PER", "O"};
    const char *pred[] = {"O", "I-PER", "I-PER", "O"};
    assert_int_equal(span_count(pred, 4), 0);
    assert_int_equal(span_end_at(pred, 4, 1, NULL), -1);
    SpanCounts c = count_one(gold, pred, 4);
    assert_int_equal(c.n_gold, 1);
    assert_int_equal(c.n_pred, 0);
    assert_int_equal(c.tp, 0);
    SpanScores s = span_scores(c);
    assert_true(s.precision == 0.0 && s.recall == 0.0 && s.f1 == 0.0);
}

/* "type change inside a span": gold B-PER I-PER
 *                               pred B-PER I-LOC
 * pred spans: [PER 0..1) (ends at I-LOC), I-LOC at 1 opens none -> n_pred 1
 * gold spans: [PER 0..2) -> n_gold 1; [PER 0..1) != [PER 0..2) -> tp 0. */
static void test_type_change_inside_span(void **state)
{
    (void)state;
    const char *gold[] = {"B-PER", "I-PER"};
    const char *pred[] = {"B-PER", "I-LOC"};
    int type_len = 0;
    assert_int_equal(span_end_at(pred, 2, 0, &type_len), 1);
    assert_int_equal(type_len, 3);
    assert_int_equal(span_end_at(gold, 2, 0, NULL), 2);
    SpanCounts c = count_one(gold, pred, 2);
    assert_int_equal(c.n_pred, 1);
    assert_int_equal(c.n_gold, 1);
    assert_int_equal(c.tp, 0);
}

/* "span at sentence end": gold O O B-LOC I-LOC, pred the same.
 * spans: [LOC 2..4) in both -> tp 1, n_pred 1, n_gold 1; P = R = F1 = 100. */
static void test_span_at_sentence_end(void **state)
{
    (void)state;
    const char *tags[] = {"O", "O", "B-LOC", "I-LOC"};
    assert_int_equal(span_end_at(tags, 4, 2, NULL), 4);
    SpanCounts c = count_one(tags, tags, 4);
    assert_int_equal(c.tp, 1);
    assert_int_equal(c.n_pred, 1);
    assert_int_equal(c.n_gold, 1);
    SpanScores s = span_scores(c);
    assert_true(fabs(s.f1 - 100.0) < 1e-12);
}

/* "adjacent spans B-X B-X": gold B-ORG B-ORG I-ORG
 *                            pred B-ORG I-ORG I-ORG
 * gold spans: [ORG 0..1), [ORG 1..3)  -> n_gold 2
 * pred spans: [ORG 0..3)              -> n_pred 1
 * no pred span equals a gold span     -> tp 0. */
static void test_adjacent_spans(void **state)
{
    (void)state;
    const char *gold[] = {"B-ORG", "B-ORG", "I-ORG"};
    const char *pred[] = {"B-ORG", "I-ORG", "I-ORG"};
    assert_int_equal(span_count(gold, 3), 2);
    SpanCounts c = count_one(gold, pred, 3);
    assert_int_equal(c.n_gold, 2);
    assert_int_equal(c.n_pred, 1);
    assert_int_equal(c.tp, 0);
    /* the other way round: pred = gold's two spans, gold one long span */
    c = count_one(pred, gold, 3);
    assert_int_equal(c.n_gold, 1);
    assert_int_equal(c.n_pred, 2);
    assert_int_equal(c.tp, 0);
}

/* "empty predictions": gold B-PER O B-LOC, pred all O.
 * n_gold 2, n_pred 0, tp 0: P undefined -> 0, R = 0, F1 = 0. */
static void test_empty_predictions(void **state)
{
    (void)state;
    const char *gold[] = {"B-PER", "O", "B-LOC"};
    const char *pred[] = {"O", "O", "O"};
    SpanScores s = span_scores(count_one(gold, pred, 3));
    assert_int_equal(s.counts.n_gold, 2);
    assert_int_equal(s.counts.n_pred, 0);
    assert_true(s.precision == 0.0 && s.recall == 0.0 && s.f1 == 0.0);
}

/* "perfect prediction": gold = pred = B-PER I-PER O B-LOC B-MISC I-MISC I-MISC
 * spans: [PER 0..2), [LOC 3..4), [MISC 4..7) -> tp = n_pred = n_gold = 3. */
static void test_perfect_prediction(void **state)
{
    (void)state;
    const char *tags[] = {"B-PER", "I-PER", "O", "B-LOC", "B-MISC", "I-MISC", "I-MISC"};
    SpanScores s = span_scores(count_one(tags, tags, N_OF(tags)));
    assert_int_equal(s.counts.tp, 3);
    assert_int_equal(s.counts.n_pred, 3);
    assert_int_equal(s.counts.n_gold, 3);
    assert_true(fabs(s.precision - 100.0) < 1e-12 && fabs(s.recall - 100.0) < 1e-12 &&
                fabs(s.f1 - 100.0) < 1e-12);
}

/* "multi-sentence micro-average": counts are summed before dividing.
 * sentence 1: gold B-PER I-PER O      pred B-PER I-PER O
 *             gold [PER 0..2)          pred [PER 0..2)       tp 1, pred 1, gold 1
 * sentence 2: gold B-LOC O B-ORG O    pred B-LOC O O B-ORG
 *             gold [LOC 0..1) [ORG 2..3)  pred [LOC 0..1) [ORG 3..4)
 *                                     tp 1 (LOC), pred 2, gold 2
 * sentence 3: gold O O                pred B-PER O
 *             gold none                pred [PER 0..1)       tp 0, pred 1, gold 0
 * total tp 2, n_pred 4, n_gold 3: P = 50, R = 66.67, F1 = 2*50*66.67/116.67 = 57.142857
 * (a macro average over sentences would give something else: sentence F1s
 * 100, 50, 0 -> 50). */
static void test_micro_average(void **state)
{
    (void)state;
    const char *g1[] = {"B-PER", "I-PER", "O"}, *p1[] = {"B-PER", "I-PER", "O"};
    const char *g2[] = {"B-LOC", "O", "B-ORG", "O"}, *p2[] = {"B-LOC", "O", "O", "B-ORG"};
    const char *g3[] = {"O", "O"}, *p3[] = {"B-PER", "O"};
    SpanCounts c = {0};
    span_counts_add(&c, g1, p1, 3);
    span_counts_add(&c, g2, p2, 4);
    span_counts_add(&c, g3, p3, 2);
    assert_int_equal(c.tp, 2);
    assert_int_equal(c.n_pred, 4);
    assert_int_equal(c.n_gold, 3);
    SpanScores s = span_scores(c);
    assert_true(fabs(s.precision - 50.0) < 1e-9);
    assert_true(fabs(s.recall - 200.0 / 3.0) < 1e-9);
    assert_true(fabs(s.f1 - 400.0 / 7.0) < 1e-9);
}

/* Types that share a prefix are different types: B-PER I-PERSON is [PER 0..1). */
static void test_type_prefix_is_not_same_type(void **state)
{
    (void)state;
    const char *tags[] = {"B-PER", "I-PERSON", "I-PE"};
    assert_int_equal(span_end_at(tags, 3, 0, NULL), 1);
    assert_int_equal(span_count(tags, 3), 1);
}

/* ---- tag set ------------------------------------------------------------------ */

/* Build a data set from sentences given as "word/TAG word/TAG ..." strings. */
static void add_sentence(Dataset *d, const char *text, int line)
{
    char buf[256];
    const char *words[16], *tags[16];
    int n = 0;
    strncpy(buf, text, sizeof buf - 1);
    buf[sizeof buf - 1] = 0;
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *slash = strchr(tok, '/');
        assert_non_null(slash);
        *slash = 0;
        words[n] = tok;
        tags[n] = slash + 1;
        n++;
    }
    SrError err;
    assert_int_equal(dataset_add(d, words, tags, n, line, &err), 0);
}

/* O first, then B-/I- of each type sorted; a type seen only as I- gets both. */
static void test_labels_build_order(void **state)
{
    (void)state;
    Dataset d = {0};
    d.source = strdup("train.conll");
    add_sentence(&d, "Ann/B-PER lives/O in/O Rome/B-LOC", 1);
    add_sentence(&d, "big/I-ORG Bob/B-PER Smith/I-PER", 6);
    LabelSet ls;
    SrError err;
    assert_int_equal(labels_build(&ls, &d, &err), 0);
    const char *expect[] = {"O", "B-LOC", "I-LOC", "B-ORG", "I-ORG", "B-PER", "I-PER"};
    assert_int_equal(ls.n, 7);
    for (int i = 0; i < 7; i++) assert_string_equal(ls.names[i], expect[i]);
    assert_int_equal(labels_id(&ls, "I-PER"), 6);
    assert_int_equal(labels_id(&ls, "B-MISC"), -1);
    assert_int_equal(dataset_n_words(&d), 7);
    int ids[7];
    long unknown = -1;
    assert_int_equal(labels_encode(&ls, &d, ids, &unknown, &err), 0);
    int expect_ids[] = {5, 0, 0, 1, 4, 5, 6};
    for (int i = 0; i < 7; i++) assert_int_equal(ids[i], expect_ids[i]);
    assert_int_equal(unknown, 0);

    /* dev data with an unseen type: mapped to O and counted; scoring still
     * counts the gold MISC span (missed) */
    Dataset dev = {0};
    add_sentence(&dev, "Ann/B-PER saw/O Jazz/B-MISC Fest/I-MISC", 3);
    int dev_ids[4];
    assert_int_equal(labels_encode(&ls, &dev, dev_ids, &unknown, &err), 0);
    assert_int_equal(unknown, 2);
    assert_int_equal(dev_ids[2], 0);
    assert_int_equal(dev_ids[3], 0);
    int pred[] = {5, 0, 0, 0};
    SpanScores s;
    assert_int_equal(labels_score(&ls, &dev, pred, &s, &err), 0);
    /* gold [PER 0..1) [MISC 2..4); pred [PER 0..1): tp 1, pred 1, gold 2 */
    assert_int_equal(s.counts.tp, 1);
    assert_int_equal(s.counts.n_pred, 1);
    assert_int_equal(s.counts.n_gold, 2);
    labels_free(&ls);
    dataset_free(&d);
    dataset_free(&dev);
}

/* A tag outside the scheme fails with the file and line of the word. */
static void test_labels_reject_bad_tag(void **state)
{
    (void)state;
    Dataset d = {0};
    d.source = strdup("train.conll");
    add_sentence(&d, "Ann/B-PER lives/O", 1);
    add_sentence(&d, "in/O Rome/X-LOC", 4);
    LabelSet ls;
    SrError err;
    assert_int_equal(labels_build(&ls, &d, &err), -1);
    assert_non_null(strstr(err.msg, "train.conll:5"));
    assert_non_null(strstr(err.msg, "X-LOC"));
    assert_int_equal(ls.n, 0);
    assert_true(tag_is_iob2("O") && tag_is_iob2("B-X") && tag_is_iob2("I-LOC"));
    assert_false(tag_is_iob2("B-") || tag_is_iob2("o") || tag_is_iob2("E-PER") ||
                 tag_is_iob2("BPER"));
    dataset_free(&d);
    Dataset empty = {0};
    assert_int_equal(labels_build(&ls, &empty, &err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_i_after_o_opens_no_span),
        cmocka_unit_test(test_type_change_inside_span),
        cmocka_unit_test(test_span_at_sentence_end),
        cmocka_unit_test(test_adjacent_spans),
        cmocka_unit_test(test_empty_predictions),
        cmocka_unit_test(test_perfect_prediction),
        cmocka_unit_test(test_micro_average),
        cmocka_unit_test(test_type_prefix_is_not_same_type),
        cmocka_unit_test(test_labels_build_order),
        cmocka_unit_test(test_labels_reject_bad_tag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
