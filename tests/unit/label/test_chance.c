/* test_chance.c — the chance levels of the attention measures: a uniform
 * head's rows under the causal and the bidirectional mask and a sliding
 * window, and the shares it gives in attnflow's categories, in heads'
 * scores and on a cue word, each against a count of visible keys by hand;
 * chance_add_layers following a mixed mask plan layer by layer; and the CSV
 * that writes a layer's chance level on each of its heads' rows. */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "engine/model.h"
#include "repeat/repeat.h"
#include "theory/attnflow.h"
#include "theory/chance.h"
#include "theory/cue_attention.h"
#include "theory/heads.h"

/* n = 3, r = 1, <bos> once: rows 0 B, 1 a, 2 b, 3 c, 4 a, 5 b, 6 c (T = 7);
 * the last copy is rows 4, 5, 6. */
static void small_layout(RepeatLayout *lay)
{
    SrError err;
    assert_int_equal(repeat_build(NULL, 3, 1, REPEAT_BOS_ONCE, REPEAT_SEP_NONE, 0, lay, &err), 0);
    assert_int_equal(lay->T, 7);
}

/* Rows of the uniform head: causal row t holds 1/(t+1) on keys 0..t;
 * bidirectional 1/T everywhere; a causal window of 3 holds 1/3 on t-2..t;
 * the columns past T are 0. */
static void test_uniform_rows(void **state)
{
    (void)state;
    enum { T = 5, STRIDE = 7 };
    float att[T * STRIDE];
    memset(att, 0x7f, sizeof att);
    chance_uniform_head(att, STRIDE, T, MASK_CAUSAL, 0);
    for (int t = 0; t < T; t++)
        for (int s = 0; s < STRIDE; s++)
            assert_true(fabs(att[t * STRIDE + s] - (s <= t ? 1.0 / (t + 1) : 0.0)) < 1e-7);
    chance_uniform_head(att, STRIDE, T, MASK_BIDIRECTIONAL, 0);
    for (int t = 0; t < T; t++)
        for (int s = 0; s < STRIDE; s++) assert_true(fabs(att[t * STRIDE + s] - (s < T ? 0.2 : 0.0)) < 1e-7);
    chance_uniform_head(att, STRIDE, T, MASK_CAUSAL, 3);
    for (int s = 0; s < STRIDE; s++) assert_true(fabs(att[4 * STRIDE + s] - (s >= 2 && s <= 4 ? 1.0 / 3 : 0.0)) < 1e-7);
}

/* attnflow's categories for a uniform head, counted by hand on the small
 * layout. Causal: query i = 0 (row 4) sees 5 keys: sink 1, own 1, left 0,
 * same 1, right 2; i = 1 (row 5) 6 keys: 1, 2, 1, 1, 1; i = 2 (row 6) 7
 * keys: 1, 3, 2, 1, 0. Bidirectional: every query sees all 7: sink 1, own
 * 3, left i, same 1, right 2 - i. Causal with a window of 3: row 4 sees
 * rows 2, 3, 4 (right, right, own), row 5 rows 3, 4, 5 (right, own, own),
 * row 6 rows 4, 5, 6 (own x 3). */
static void test_flow_by_hand(void **state)
{
    (void)state;
    RepeatLayout lay;
    small_layout(&lay);
    float att[7 * 7];
    /* FLOW order: own, left, same, right, sink */
    const double causal[FLOW_N_CATEGORIES] = {(1.0 / 5 + 2.0 / 6 + 3.0 / 7) / 3, (0.0 / 5 + 1.0 / 6 + 2.0 / 7) / 3,
                                              (1.0 / 5 + 1.0 / 6 + 1.0 / 7) / 3, (2.0 / 5 + 1.0 / 6 + 0.0 / 7) / 3,
                                              (1.0 / 5 + 1.0 / 6 + 1.0 / 7) / 3};
    const double full[FLOW_N_CATEGORIES] = {3.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7};
    const double window[FLOW_N_CATEGORIES] = {(1.0 + 2.0 + 3.0) / 9, 0, 0, (2.0 + 1.0) / 9, 0};
    const double *want[3] = {causal, full, window};
    const MaskKind kind[3] = {MASK_CAUSAL, MASK_BIDIRECTIONAL, MASK_CAUSAL};
    const int win[3] = {0, 0, 3};
    SrError err;
    for (int k = 0; k < 3; k++) {
        AttnFlow chance;
        assert_int_equal(attnflow_chance_init(&chance, 1, &err), 0);
        chance_uniform_head(att, 7, 7, kind[k], win[k]);
        attnflow_add_layer(&chance, 0, att, 7, &lay);
        for (int c = 0; c < FLOW_N_CATEGORIES; c++) assert_true(fabs(attnflow_mean(&chance, 0, 0, c) - want[k][c]) < 1e-6);
        assert_string_equal(chance.names[FLOW_EARLIER_RIGHT], "earlier_right_chance");
        attnflow_free(&chance);
    }
    repeat_free(&lay);
}

/* heads' scores of a uniform causal head on the small layout: copy, previous
 * and sink read one visible key each, 1/(keys) per query; induction leaves
 * out the last piece; own copy (i + 1)/(keys). */
static void test_heads_by_hand(void **state)
{
    (void)state;
    RepeatLayout lay;
    small_layout(&lay);
    float att[7 * 7];
    chance_uniform_head(att, 7, 7, MASK_CAUSAL, 0);
    HeadScores chance;
    SrError err;
    assert_int_equal(head_scores_chance_init(&chance, 1, &err), 0);
    head_scores_add_layer(&chance, 0, att, 7, &lay);
    double one = (1.0 / 5 + 1.0 / 6 + 1.0 / 7) / 3;
    assert_true(fabs(head_scores_mean(&chance, 0, 0, HEAD_COPY) - one) < 1e-6);
    assert_true(fabs(head_scores_mean(&chance, 0, 0, HEAD_PREVIOUS) - one) < 1e-6);
    assert_true(fabs(head_scores_mean(&chance, 0, 0, HEAD_SINK) - one) < 1e-6);
    assert_true(fabs(head_scores_mean(&chance, 0, 0, HEAD_INDUCTION) - (1.0 / 5 + 1.0 / 6) / 2) < 1e-6);
    assert_true(fabs(head_scores_mean(&chance, 0, 0, HEAD_OWN_COPY) - (1.0 / 5 + 2.0 / 6 + 3.0 / 7) / 3) < 1e-6);
    assert_string_equal(chance.names[HEAD_INDUCTION], "induction_chance");
    head_scores_free(&chance);
    repeat_free(&lay);
}

/* The cue share of a uniform causal head: three one-piece words, word 0's
 * cue is word 2 (to its right). Query word 0 (row 4, 5 keys) sees word 2 of
 * the first copy (row 3) once: 1/5; its non-cue words on the cue's side are
 * word 1 (row 2): 1/5. */
static void test_cue_by_hand(void **state)
{
    (void)state;
    RepeatLayout lay;
    small_layout(&lay);
    float att[7 * 7];
    chance_uniform_head(att, 7, 7, MASK_CAUSAL, 0);
    const int word_start[4] = {0, 1, 2, 3}, cue[3] = {2, -1, -1};
    CueAttention chance;
    SrError err;
    assert_int_equal(cue_attention_chance_init(&chance, 1, &err), 0);
    cue_attention_add_layer(&chance, 0, att, 7, &lay, word_start, cue, 3);
    assert_true(fabs(cue_attention_cue_mean(&chance, 0, 0) - 0.2) < 1e-6);
    assert_true(fabs(cue_attention_non_cue_mean(&chance, 0, 0) - 0.2) < 1e-6);
    cue_attention_free(&chance);
    repeat_free(&lay);
}

/* What chance_add_layers hands on: layer by layer. */
typedef struct {
    AttnFlow flow;
} Sums;

static void add_flow(void *ctx, int layer, const float *att, int stride, const RepeatLayout *lay)
{
    attnflow_add_layer(&((Sums *)ctx)->flow, layer, att, stride, lay);
}

/* A plan of causal, bidirectional, causal with layer 2's own sliding window
 * of 3 keys: each layer gets the levels of its own rule (test_flow_by_hand's). */
static void test_plan_layer_by_layer(void **state)
{
    (void)state;
    RepeatLayout lay;
    small_layout(&lay);
    ModelConfig cfg = {.n_layers = 3, .n_heads = 2};
    cfg.family.sliding_window = 3;
    cfg.family.sliding_layers = 1ull << 2;
    const MaskKind plan[3] = {MASK_CAUSAL, MASK_BIDIRECTIONAL, MASK_CAUSAL};
    Sums sums;
    SrError err;
    assert_int_equal(attnflow_chance_init(&sums.flow, 3, &err), 0);
    assert_int_equal(chance_add_layers(&cfg, plan, &lay, add_flow, &sums, &err), 0);
    assert_true(fabs(attnflow_mean(&sums.flow, 0, 0, FLOW_OWN_COPY) - (1.0 / 5 + 2.0 / 6 + 3.0 / 7) / 3) < 1e-6);
    assert_true(fabs(attnflow_mean(&sums.flow, 1, 0, FLOW_OWN_COPY) - 3.0 / 7) < 1e-6);
    assert_true(fabs(attnflow_mean(&sums.flow, 2, 0, FLOW_OWN_COPY) - 6.0 / 9) < 1e-6);
    assert_true(fabs(attnflow_mean(&sums.flow, 2, 0, FLOW_EARLIER_RIGHT) - 3.0 / 9) < 1e-6);
    /* no plan: causal everywhere (the window of layer 2 still holds) */
    attnflow_free(&sums.flow);
    assert_int_equal(attnflow_chance_init(&sums.flow, 3, &err), 0);
    assert_int_equal(chance_add_layers(&cfg, NULL, &lay, add_flow, &sums, &err), 0);
    assert_true(fabs(attnflow_mean(&sums.flow, 1, 0, FLOW_OWN_COPY) - (1.0 / 5 + 2.0 / 6 + 3.0 / 7) / 3) < 1e-6);
    attnflow_free(&sums.flow);
    repeat_free(&lay);
}

/* The CSV of a measure beside its chance levels: a table of one head is
 * written on every head's row of its layer. */
static void test_csv_repeats_the_layer(void **state)
{
    (void)state;
    static const char *const names[1] = {"x"}, *const chance_names[1] = {"x_chance"};
    HeadTable t, c;
    SrError err;
    assert_int_equal(head_table_init(&t, "t", 2, 2, 1, names, &err), 0);
    assert_int_equal(head_table_init(&c, "t", 2, 1, 1, chance_names, &err), 0);
    for (int l = 0; l < 2; l++) {
        for (int h = 0; h < 2; h++) {
            double v = 0.1 * (2 * l + h);
            head_table_add(&t, l, h, &v, NULL);
        }
        double v = 0.5 + l;
        head_table_add(&c, l, 0, &v, NULL);
    }
    const HeadTable *both[2] = {&t, &c};
    char *csv = head_table_csv(both, 2);
    assert_string_equal(csv, "layer,head,x,x_chance\n0,0,0.000000,0.500000\n0,1,0.100000,0.500000\n"
                             "1,0,0.200000,1.500000\n1,1,0.300000,1.500000\n");
    free(csv);
    head_table_free(&t);
    head_table_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uniform_rows),
        cmocka_unit_test(test_flow_by_hand),
        cmocka_unit_test(test_heads_by_hand),
        cmocka_unit_test(test_cue_by_hand),
        cmocka_unit_test(test_plan_layer_by_layer),
        cmocka_unit_test(test_csv_repeats_the_layer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
