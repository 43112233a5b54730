/* test_heads.c — the head-role scores and the in-context learning loss:
 * the key each score reads in three layouts; the five scores of a hand-made
 * attention array against values worked out by hand; a model whose q and k
 * weights are zero (every causal row uniform over its visible keys, every
 * bidirectional row uniform over the whole input) run through
 * head_roles_measure, the path `seqrep heads` takes, against the closed
 * forms, and so are the chance levels measured beside them; and the ICL loss on hand-made losses, on a model with zero weights
 * (ln V everywhere) and against model_lm_loss run on each copy alone. */
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/piece_sentences.h"
#include "engine/ops/mask.h"
#include "engine/model.h"
#include "random_model.h"
#include "repeat/repeat.h"
#include "theory/head_roles.h"
#include "theory/heads.h"
#include "theory/repeated_forward.h"

/* The key of every score for every last-copy query in three layouts. */
static void test_score_keys(void **state)
{
    (void)state;
    RepeatLayout lay;
    SrError err;
    /* n = 3, r = 1, <bos> per copy: rows 0 B, 1 a, 2 b, 3 c, 4 B, 5 a, 6 b, 7 c */
    assert_int_equal(repeat_build(NULL, 3, 1, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, 0, &lay, &err), 0);
    /* per query i: copy, induction, previous, sink */
    int expect_bos[3][4] = {{1, 2, 4, 0}, {2, 3, 5, 0}, {3, -1, 6, 0}};
    for (int i = 0; i < 3; i++)
        for (int s = 0; s < HEAD_OWN_COPY; s++)
            assert_int_equal(head_score_key(&lay, i, (HeadScore)s), expect_bos[i][s]);
    assert_int_equal(head_score_key(&lay, 0, HEAD_OWN_COPY), -1);
    repeat_free(&lay);
    /* n = 2, r = 2, no <bos>, <sep>: rows 0 a, 1 b, 2 S, 3 a, 4 b, 5 S, 6 a, 7 b;
     * the copy before the last is copy 1 (rows 3, 4). */
    assert_int_equal(repeat_build(NULL, 2, 2, REPEAT_BOS_NONE, REPEAT_SEP_TOKEN, 0, &lay, &err), 0);
    int expect_sep[2][4] = {{3, 4, 5, 0}, {4, -1, 6, 0}};
    for (int i = 0; i < 2; i++)
        for (int s = 0; s < HEAD_OWN_COPY; s++)
            assert_int_equal(head_score_key(&lay, i, (HeadScore)s), expect_sep[i][s]);
    repeat_free(&lay);
    /* r = 0: no copy before, so no copy or induction key. */
    assert_int_equal(repeat_build(NULL, 2, 0, REPEAT_BOS_ONCE, REPEAT_SEP_NONE, 0, &lay, &err), 0);
    assert_int_equal(head_score_key(&lay, 0, HEAD_COPY), -1);
    assert_int_equal(head_score_key(&lay, 0, HEAD_INDUCTION), -1);
    assert_int_equal(head_score_key(&lay, 1, HEAD_PREVIOUS), 1);
    repeat_free(&lay);
    assert_string_equal(head_score_name(HEAD_COPY), "copy");
    assert_string_equal(head_score_name(HEAD_INDUCTION), "induction");
    assert_string_equal(head_score_name(HEAD_PREVIOUS), "previous");
    assert_string_equal(head_score_name(HEAD_SINK), "sink");
    assert_string_equal(head_score_name(HEAD_OWN_COPY), "own_copy");
    assert_string_equal(head_score_name(HEAD_N_SCORES), "?");
}

/* n = 3, r = 1, <bos> per copy (rows 0 B, 1 a, 2 b, 3 c, 4 B, 5 a, 6 b, 7 c;
 * last copy at rows 5, 6, 7, the copy before at rows 1, 2, 3). Head 0 has the
 * three rows below, head 1 puts everything on row 0; the padding columns of
 * the wider stride hold junk that must not be read. */
static void test_hand_made_scores(void **state)
{
    (void)state;
    RepeatLayout lay;
    SrError err;
    assert_int_equal(repeat_build(NULL, 3, 1, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, 0, &lay, &err), 0);
    const int H = 2, T = lay.T, stride = T + 3;
    static const float rows[3][8] = {
        {0.10f, 0.30f, 0.05f, 0.15f, 0.20f, 0.20f, 0.00f, 0.00f},  /* row 5, i = 0 */
        {0.05f, 0.10f, 0.25f, 0.20f, 0.05f, 0.15f, 0.20f, 0.00f},  /* row 6, i = 1 */
        {0.02f, 0.08f, 0.10f, 0.40f, 0.05f, 0.05f, 0.10f, 0.20f}}; /* row 7, i = 2 */
    float *att = calloc((size_t)H * stride * stride, sizeof(float));
    assert_non_null(att);
    for (int h = 0; h < H; h++)
        for (int t = 0; t < stride; t++)
            for (int s = 0; s < stride; s++) att[((size_t)h * stride + t) * stride + s] = 9.0f;
    for (int i = 0; i < 3; i++) {
        float *row0 = att + (size_t)(5 + i) * stride, *row1 = att + ((size_t)stride + 5 + i) * stride;
        for (int s = 0; s < T; s++) {
            row0[s] = rows[i][s];
            row1[s] = s == 0 ? 1.0f : 0.0f;
        }
    }
    /* By hand, head 0:
     *   copy      keys 1, 2, 3:   (0.30 + 0.25 + 0.40) / 3
     *   induction keys 2, 3 (i = 2 has none): (0.05 + 0.20) / 2
     *   previous  keys 4, 5, 6:   (0.20 + 0.15 + 0.10) / 3
     *   sink      key 0:          (0.10 + 0.05 + 0.02) / 3
     *   own copy  keys 5; 5-6; 5-7: (0.20 + 0.35 + 0.35) / 3 */
    double expect0[HEAD_N_SCORES] = {0.95 / 3, 0.25 / 2, 0.45 / 3, 0.17 / 3, 0.90 / 3};
    double expect1[HEAD_N_SCORES] = {0, 0, 0, 1, 0};
    int64_t counts[HEAD_N_SCORES] = {3, 2, 3, 3, 3};
    HeadScores s;
    assert_int_equal(head_scores_init(&s, 2, H, &err), 0);
    head_scores_add_layer(&s, 1, att, stride, &lay);
    for (int c = 0; c < HEAD_N_SCORES; c++) {
        assert_true(fabs(head_scores_mean(&s, 1, 0, (HeadScore)c) - expect0[c]) < 1e-7);
        assert_true(fabs(head_scores_mean(&s, 1, 1, (HeadScore)c) - expect1[c]) < 1e-7);
        assert_true(head_scores_count(&s, 1, 0, (HeadScore)c) == counts[c]);
        assert_true(head_scores_count(&s, 0, 0, (HeadScore)c) == 0);
        assert_true(head_scores_mean(&s, 0, 0, (HeadScore)c) == 0.0);
    }
    /* the same sentence again: the means stay, the counts double */
    head_scores_add_layer(&s, 1, att, stride, &lay);
    assert_true(fabs(head_scores_mean(&s, 1, 0, HEAD_COPY) - expect0[HEAD_COPY]) < 1e-7);
    assert_true(head_scores_count(&s, 1, 0, HEAD_INDUCTION) == 4);
    int l, h;
    head_scores_best(&s, HEAD_SINK, &l, &h);
    assert_int_equal(l, 1);
    assert_int_equal(h, 1);
    head_scores_best(&s, HEAD_COPY, &l, &h);
    assert_int_equal(l, 1);
    assert_int_equal(h, 0);
    double score[HEAD_N_SCORES];
    int defined[HEAD_N_SCORES];
    head_row_scores(att + (size_t)7 * stride, &lay, 2, score, defined);
    assert_int_equal(defined[HEAD_INDUCTION], 0);
    assert_true(score[HEAD_INDUCTION] == 0.0);
    assert_int_equal(defined[HEAD_COPY], 1);
    assert_true(fabs(score[HEAD_COPY] - 0.40) < 1e-7);
    head_scores_free(&s);
    free(att);
    repeat_free(&lay);
}

enum { QV = 11, QC = 8, QL = 2, QH = 2, QF = 12, QT = 40 };

/* A model with random weights but zero q and k projections: every attention
 * score is 0, so a causal row t is uniform over keys 0..t. */
static void zero_qk_model(Model *m)
{
    ModelConfig c = {.vocab_size = QV, .d_model = QC, .n_layers = QL, .n_heads = QH, .d_ff = QF,
                     .max_seq_len = QT, .rope_theta = 10000.0f, .norm_eps = 1e-5f, .tied = 1};
    test_random_model(m, &c, 1, QT, 7);
    size_t width = (size_t)3 * QC; /* rows of wqkv per layer: q, k, v */
    for (int l = 0; l < QL; l++)
        memset(m->p.wqkv + (size_t)l * width * QC, 0, sizeof(float) * 2 * QC * QC);
}

/* Three sentences of 1, 3 and 5 pieces. */
static void three_sentences(PieceSentences *s)
{
    static const int ids[] = {6, 7, 8, 9, 10, 6, 7, 8, 9};
    SrError err;
    memset(s, 0, sizeof *s);
    assert_int_equal(piece_sentences_add(s, ids, 1, 1, &err), 0);
    assert_int_equal(piece_sentences_add(s, ids + 1, 3, 2, &err), 0);
    assert_int_equal(piece_sentences_add(s, ids + 4, 5, 3, &err), 0);
}

/* The closed forms with <bos> per copy, k = r + 1 copies: query i of the
 * last copy sits at row t = (k-1)(n+1) + 1 + i. Causal: copy, induction,
 * previous and sink each 1/(t+1), own copy (i+1)/(t+1). Bidirectional: each
 * 1/T and own copy n/T, T = k(n+1). Means over every query of every
 * sentence (induction without the last piece of each). */
static void closed_forms(const int *lengths, int n_sentences, int r, int causal,
                         double expect[HEAD_N_SCORES])
{
    double sum[HEAD_N_SCORES] = {0}, count[HEAD_N_SCORES] = {0};
    int k = r + 1;
    for (int s = 0; s < n_sentences; s++) {
        int n = lengths[s], T = k * (n + 1);
        for (int i = 0; i < n; i++) {
            int t = (k - 1) * (n + 1) + 1 + i;
            double one = causal ? 1.0 / (t + 1) : 1.0 / T;
            double own = causal ? (i + 1.0) / (t + 1) : (double)n / T;
            for (int c = 0; c < HEAD_OWN_COPY; c++) {
                if (c == HEAD_INDUCTION && i == n - 1) continue;
                sum[c] += one;
                count[c] += 1;
            }
            sum[HEAD_OWN_COPY] += own;
            count[HEAD_OWN_COPY] += 1;
        }
    }
    for (int c = 0; c < HEAD_N_SCORES; c++) expect[c] = sum[c] / count[c];
}

/* head_roles_measure on the zero-q/k model against the closed forms, causal
 * for r = 1 and 2, and with every layer bidirectional for r = 1. */
static void test_uniform_model(void **state)
{
    (void)state;
    Model m;
    zero_qk_model(&m);
    PieceSentences s;
    three_sentences(&s);
    const int lengths[] = {1, 3, 5};
    MaskKind full[QL] = {MASK_BIDIRECTIONAL, MASK_BIDIRECTIONAL};
    struct { int r; const MaskKind *plan; } cases[] = {{1, NULL}, {2, NULL}, {1, full}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        RepeatedForward run = {.r = cases[c].r, .bos = REPEAT_BOS_PER_COPY, .sep = REPEAT_SEP_NONE,
                               .ids = repeat_ids_house(), .plan = cases[c].plan};
        RepeatedFit fit;
        repeated_forward_fit(&s, &run, QT, &fit);
        assert_int_equal(fit.n_fit, 3);
        HeadRoles roles;
        SrError err;
        assert_int_equal(head_roles_init(&roles, QL, QH, 0, &err), 0);
        assert_int_equal(head_roles_measure(&m, &run, &s, fit.max_n, "test", &roles, &err), 0);
        double expect[HEAD_N_SCORES];
        closed_forms(lengths, 3, cases[c].r, cases[c].plan == NULL, expect);
        for (int l = 0; l < QL; l++)
            for (int h = 0; h < QH; h++)
                for (int k = 0; k < HEAD_N_SCORES; k++) {
                    double got = head_scores_mean(&roles.scores, l, h, (HeadScore)k);
                    assert_true(fabs(got - expect[k]) < 1e-6);
                    /* a zero-q/k head is a uniform head: its scores are the chance levels */
                    assert_true(fabs(head_scores_mean(&roles.chance, l, 0, (HeadScore)k) - expect[k]) < 1e-6);
                }
        assert_true(head_scores_count(&roles.scores, 0, 0, HEAD_OWN_COPY) == 9);
        assert_true(head_scores_count(&roles.scores, 1, 1, HEAD_INDUCTION) == 6);
        head_roles_free(&roles);
    }
    piece_sentences_free(&s);
    model_free(&m);
}

/* The ICL rows and sums on hand-made losses: n = 3, r = 2, <bos> per copy
 * (rows 0 B, 1 a, 2 b, 3 c, 4 B, 5 a, 6 b, 7 c, 8 B, 9 a, 10 b, 11 c). The
 * first copy's pieces 1, 2 are predicted at rows 1, 2, the last copy's at
 * rows 9, 10; loss of row t = t + 0.5. */
static void test_icl_hand_made(void **state)
{
    (void)state;
    const int words[3] = {6, 7, 8};
    RepeatLayout lay;
    SrError err;
    assert_int_equal(repeat_build(words, 3, 2, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, 0, &lay, &err),
                     0);
    int targets[12];
    icl_targets(&lay, targets);
    const int expect[12] = {-1, 7, 8, -1, -1, -1, -1, -1, -1, 7, 8, -1};
    for (int t = 0; t < 12; t++) assert_int_equal(targets[t], expect[t]);
    float losses[12];
    for (int t = 0; t < 12; t++) losses[t] = (float)t + 0.5f;
    IclLoss icl;
    memset(&icl, 0, sizeof icl);
    assert_true(icl_mean(&icl, ICL_FIRST_COPY) == 0.0);
    icl_add(&icl, &lay, losses);
    icl_add(&icl, &lay, losses);
    assert_true(icl.count[ICL_FIRST_COPY] == 4 && icl.count[ICL_LAST_COPY] == 4);
    assert_true(fabs(icl_mean(&icl, ICL_FIRST_COPY) - 2.0) < 1e-12);  /* (1.5 + 2.5) / 2 */
    assert_true(fabs(icl_mean(&icl, ICL_LAST_COPY) - 10.0) < 1e-12); /* (9.5 + 10.5) / 2 */
    repeat_free(&lay);
}

/* With every weight zero the logits are zero: each loss is ln V, on both
 * copies, over S (n - 1) positions each. */
static void test_icl_zero_model(void **state)
{
    (void)state;
    ModelConfig c = {.vocab_size = QV, .d_model = QC, .n_layers = QL, .n_heads = QH, .d_ff = QF,
                     .max_seq_len = QT, .rope_theta = 10000.0f, .norm_eps = 1e-5f, .tied = 1};
    Model m;
    SrError err;
    assert_int_equal(model_create(&m, &c, 1, QT, &err), 0);
    PieceSentences s;
    three_sentences(&s);
    RepeatedForward run = {.r = 1, .bos = REPEAT_BOS_PER_COPY, .ids = repeat_ids_house()};
    HeadRoles roles;
    assert_int_equal(head_roles_init(&roles, QL, QH, 1, &err), 0);
    assert_int_equal(head_roles_measure(&m, &run, &s, 100, "test", &roles, &err), 0);
    assert_true(roles.icl.count[ICL_FIRST_COPY] == 0 + 2 + 4);
    assert_true(roles.icl.count[ICL_LAST_COPY] == 6);
    assert_true(fabs(icl_mean(&roles.icl, ICL_FIRST_COPY) - log((double)QV)) < 1e-5);
    assert_true(fabs(icl_mean(&roles.icl, ICL_LAST_COPY) - log((double)QV)) < 1e-5);
    head_roles_free(&roles);
    piece_sentences_free(&s);
    model_free(&m);
}

/* Mean loss of model_lm_loss on one forward of lay with targets only at the
 * rows icl_targets marks in the copy starting at row start (n pieces). */
static double copy_loss_alone(Model *m, const RepeatLayout *lay, int start)
{
    int targets[QT];
    for (int t = 0; t < lay->T; t++) targets[t] = -1;
    for (int j = 1; j < lay->n; j++) targets[start + j - 1] = lay->ids[start + j];
    ModelInput in = {.B = 1, .T = lay->T, .ids = lay->ids, .positions = lay->positions,
                     .want_logits = 1};
    SrError err;
    assert_int_equal(model_forward(m, &in, &err), 0);
    return model_lm_loss(m, targets, -1);
}

/* On a random model, the two means of one pass equal model_lm_loss run on
 * each copy's rows alone. */
static void test_icl_against_lm_loss(void **state)
{
    (void)state;
    ModelConfig c = {.vocab_size = QV, .d_model = QC, .n_layers = QL, .n_heads = QH, .d_ff = QF,
                     .max_seq_len = QT, .rope_theta = 10000.0f, .norm_eps = 1e-5f, .tied = 1};
    Model m;
    test_random_model(&m, &c, 1, QT, 3);
    static const int ids[6] = {6, 9, 7, 10, 8, 6};
    PieceSentences s = {0};
    SrError err;
    assert_int_equal(piece_sentences_add(&s, ids, 6, 1, &err), 0);
    RepeatedForward run = {.r = 2, .bos = REPEAT_BOS_PER_COPY, .ids = repeat_ids_house()};
    HeadRoles roles;
    assert_int_equal(head_roles_init(&roles, QL, QH, 1, &err), 0);
    assert_int_equal(head_roles_measure(&m, &run, &s, 100, "test", &roles, &err), 0);
    RepeatLayout lay;
    assert_int_equal(repeat_build(ids, 6, 2, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, 0, &lay, &err), 0);
    double first = copy_loss_alone(&m, &lay, lay.copy_start[0]);
    double last = copy_loss_alone(&m, &lay, lay.copy_start[2]);
    assert_true(fabs(icl_mean(&roles.icl, ICL_FIRST_COPY) - first) < 1e-5);
    assert_true(fabs(icl_mean(&roles.icl, ICL_LAST_COPY) - last) < 1e-5);
    assert_true(fabs(first - last) > 1e-3); /* the two copies do differ */
    repeat_free(&lay);
    head_roles_free(&roles);
    piece_sentences_free(&s);
    model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_score_keys),
        cmocka_unit_test(test_hand_made_scores),
        cmocka_unit_test(test_uniform_model),
        cmocka_unit_test(test_icl_hand_made),
        cmocka_unit_test(test_icl_zero_model),
        cmocka_unit_test(test_icl_against_lm_loss),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
