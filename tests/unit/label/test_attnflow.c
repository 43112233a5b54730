/* test_attnflow.c — splitting the attention of last-copy tokens: the
 * categories of every key, a hand-built pattern with a known split, and rows
 * of a real model forward that add up to 1. */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "engine/model.h"
#include "repeat/repeat.h"
#include "theory/attnflow.h"

/* n = 3, r = 2, <bos> per copy and <sep>:
 *   row: 0 1 2 3 4 5 6 7 8 9 10 11 12 13
 *        B a b c S B a b c S B  a  b  c      (copies 0, 1, 2)
 * For the last-copy query "b" (i = 1) every key's category is known. */
static void test_categories(void **state)
{
    (void)state;
    RepeatLayout lay;
    SrError err;
    assert_int_equal(repeat_build(NULL, 3, 2, REPEAT_BOS_PER_COPY, REPEAT_SEP_TOKEN, 0, &lay, &err), 0);
    assert_int_equal(lay.T, 14);
    FlowCategory expect[14] = {
        FLOW_SINK, FLOW_EARLIER_LEFT, FLOW_SAME_WORD, FLOW_EARLIER_RIGHT, FLOW_SINK,
        FLOW_SINK, FLOW_EARLIER_LEFT, FLOW_SAME_WORD, FLOW_EARLIER_RIGHT, FLOW_SINK,
        FLOW_SINK, FLOW_OWN_COPY, FLOW_OWN_COPY, FLOW_OWN_COPY};
    for (int s = 0; s < 14; s++) assert_int_equal(attnflow_category(&lay, 1, s), expect[s]);
    assert_string_equal(attnflow_category_name(FLOW_EARLIER_RIGHT), "earlier_right");
    assert_string_equal(attnflow_category_name(FLOW_SINK), "sink");
    repeat_free(&lay);
}

/* n = 3, r = 2, <bos> once: rows B a b c a b c a b c (T = 10), last copy at
 * rows 7, 8, 9. Head 0 attends uniformly to every visible key; head 1 puts
 * all its attention on the first copy's last word (row 3). The padding
 * columns of the wider stride hold junk that must not be counted. */
static void test_hand_built_pattern(void **state)
{
    (void)state;
    RepeatLayout lay;
    SrError err;
    assert_int_equal(repeat_build(NULL, 3, 2, REPEAT_BOS_ONCE, REPEAT_SEP_NONE, 0, &lay, &err), 0);
    const int H = 2, T = lay.T, stride = T + 2;
    float *att = calloc((size_t)H * stride * stride, sizeof(float));
    for (int t = 0; t < T; t++) {
        for (int s = 0; s <= t; s++) att[(size_t)t * stride + s] = 1.0f / (float)(t + 1);
        att[((size_t)stride + t) * stride + 3] = 1.0f;
        for (int h = 0; h < H; h++)
            for (int s = T; s < stride; s++) att[((size_t)h * stride + t) * stride + s] = 7.0f;
    }
    /* Head 0, query i sees: 1 <bos>, 2 earlier copies of 3 words, i+1 own words.
     *   i = 0: 8 keys: sink 1, own 1, left 0, same 2, right 4
     *   i = 1: 9 keys: sink 1, own 2, left 2, same 2, right 2
     *   i = 2: 10 keys: sink 1, own 3, left 4, same 2, right 0 */
    double counts[3][FLOW_N_CATEGORIES] = {{1, 0, 2, 4, 1}, {2, 2, 2, 2, 1}, {3, 4, 2, 0, 1}};
    double totals[3] = {8, 9, 10};
    for (int i = 0; i < 3; i++) {
        double share[FLOW_N_CATEGORIES], sum = 0.0;
        attnflow_split_row(att + (size_t)lay.last_rows[i] * stride, &lay, i, share);
        for (int c = 0; c < FLOW_N_CATEGORIES; c++) {
            assert_true(fabs(share[c] - counts[i][c] / totals[i]) < 1e-6);
            sum += share[c];
        }
        assert_true(fabs(sum - 1.0) < 1e-6);
    }
    AttnFlow flow;
    assert_int_equal(attnflow_init(&flow, 2, H, &err), 0);
    attnflow_add_layer(&flow, 1, att, stride, &lay);
    attnflow_add_layer(&flow, 1, att, stride, &lay); /* a second identical sentence */
    assert_int_equal(attnflow_queries(&flow, 0), 0);
    assert_int_equal(attnflow_queries(&flow, 1), 6);
    for (int c = 0; c < FLOW_N_CATEGORIES; c++) {
        double want = (counts[0][c] / 8 + counts[1][c] / 9 + counts[2][c] / 10) / 3;
        assert_true(fabs(attnflow_mean(&flow, 1, 0, c) - want) < 1e-6);
        assert_true(attnflow_mean(&flow, 0, 0, c) == 0.0); /* nothing added to layer 0 */
    }
    /* Head 1: words 0 and 1 look right (at word 2 of copy 0); word 2 looks at itself. */
    assert_true(fabs(attnflow_mean(&flow, 1, 1, FLOW_EARLIER_RIGHT) - 2.0 / 3.0) < 1e-9);
    assert_true(fabs(attnflow_mean(&flow, 1, 1, FLOW_SAME_WORD) - 1.0 / 3.0) < 1e-9);
    assert_true(attnflow_mean(&flow, 1, 1, FLOW_OWN_COPY) == 0.0);
    assert_true(attnflow_mean(&flow, 1, 1, FLOW_SINK) == 0.0);
    assert_true(attnflow_mean(&flow, 1, 1, FLOW_EARLIER_LEFT) == 0.0);
    attnflow_free(&flow);
    free(att);
    repeat_free(&lay);
}

/* With r = 0 there are no earlier copies: everything is own copy or sink. */
static void test_single_copy(void **state)
{
    (void)state;
    RepeatLayout lay;
    SrError err;
    assert_int_equal(repeat_build(NULL, 4, 0, REPEAT_BOS_ONCE, REPEAT_SEP_TOKEN, 0, &lay, &err), 0);
    float row[5] = {0.5f, 0.125f, 0.125f, 0.125f, 0.125f};
    double share[FLOW_N_CATEGORIES];
    attnflow_split_row(row, &lay, 3, share);
    assert_true(share[FLOW_SINK] == 0.5);
    assert_true(share[FLOW_OWN_COPY] == 0.5);
    assert_true(share[FLOW_EARLIER_LEFT] + share[FLOW_SAME_WORD] + share[FLOW_EARLIER_RIGHT] == 0.0);
    repeat_free(&lay);
}

/* A random model's real attention, for every bos/sep option, in a padded
 * batch of two sentences: every last-copy row's shares add up to 1, the
 * means of every (layer, head) too, and a random model does look right. */
static void test_model_rows_sum_to_one(void **state)
{
    (void)state;
    const int V = 20, L = 2, H = 2, max_T = 40;
    ModelConfig cfg = {.vocab_size = V, .d_model = 16, .n_layers = L, .n_heads = H, .d_ff = 32,
                       .max_seq_len = max_T, .rope_theta = 10000.0f, .norm_eps = 1e-5f, .tied = 1};
    Model m = {0};
    SrError err;
    assert_int_equal(model_create(&m, &cfg, 2, max_T, &err), 0);
    model_init_weights(&m, 3);
    unsigned long long seed = 11;
    test_fill_random(m.params, (long)m.n_params, &seed, 0.5f);
    int words_a[5] = {6, 7, 8, 9, 10}, words_b[3] = {11, 12, 13};
    for (int bos = 0; bos < 3; bos++)
        for (int sep = 0; sep < 2; sep++) {
            RepeatLayout a, b;
            assert_int_equal(repeat_build(words_a, 5, 3, bos, sep, max_T, &a, &err), 0);
            assert_int_equal(repeat_build(words_b, 3, 3, bos, sep, max_T, &b, &err), 0);
            int T = a.T; /* the longer one; b is right-padded */
            int ids[2 * 40], lengths[2] = {a.T, b.T};
            for (int t = 0; t < T; t++) {
                ids[t] = a.ids[t];
                ids[T + t] = t < b.T ? b.ids[t] : 0;
            }
            int positions[2 * 40];
            for (int t = 0; t < T; t++) {
                positions[t] = a.positions[t];
                positions[T + t] = t < b.T ? b.positions[t] : t;
            }
            ModelInput in = {.B = 2, .T = T, .ids = ids, .lengths = lengths, .positions = positions};
            assert_int_equal(model_forward(&m, &in, &err), 0);
            AttnFlow flow;
            assert_int_equal(attnflow_init(&flow, L, H, &err), 0);
            for (int l = 0; l < L; l++) {
                const float *att = model_attention(&m, l);
                for (int row = 0; row < 2; row++) {
                    const RepeatLayout *lay = row == 0 ? &a : &b;
                    const float *att_row = att + (size_t)row * H * T * T;
                    for (int h = 0; h < H; h++)
                        for (int i = 0; i < lay->n; i++) {
                            double share[FLOW_N_CATEGORIES], sum = 0.0;
                            const float *q = att_row + ((size_t)h * T + lay->last_rows[i]) * T;
                            attnflow_split_row(q, lay, i, share);
                            for (int c = 0; c < FLOW_N_CATEGORIES; c++) {
                                assert_true(share[c] >= 0.0);
                                sum += share[c];
                            }
                            assert_true(fabs(sum - 1.0) < 1e-5);
                            if (bos == REPEAT_BOS_NONE && sep == REPEAT_SEP_NONE)
                                assert_true(share[FLOW_SINK] == 0.0);
                        }
                    attnflow_add_layer(&flow, l, att_row, T, lay);
                }
            }
            for (int l = 0; l < L; l++) {
                assert_int_equal(attnflow_queries(&flow, l), 5 + 3);
                for (int h = 0; h < H; h++) {
                    double sum = 0.0;
                    for (int c = 0; c < FLOW_N_CATEGORIES; c++) sum += attnflow_mean(&flow, l, h, c);
                    assert_true(fabs(sum - 1.0) < 1e-5);
                    assert_true(attnflow_mean(&flow, l, h, FLOW_EARLIER_RIGHT) > 0.01);
                }
            }
            attnflow_free(&flow);
            repeat_free(&a);
            repeat_free(&b);
        }
    model_free(&m);
}

static void test_bad_init(void **state)
{
    (void)state;
    AttnFlow flow;
    SrError err;
    assert_int_equal(attnflow_init(&flow, 0, 2, &err), -1);
    assert_non_null(strstr(err.msg, "layer"));
    assert_null(flow.sum);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_categories),
        cmocka_unit_test(test_hand_built_pattern),
        cmocka_unit_test(test_single_copy),
        cmocka_unit_test(test_model_rows_sum_to_one),
        cmocka_unit_test(test_bad_init),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
