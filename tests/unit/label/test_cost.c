/* test_cost.c — the analytic FLOP count (cost.h) against hand calculations
 * and against the mask rule, and the forward timer. */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "engine/ops/mask.h"
#include "engine/model.h"
#include "label/cost.h"

static ModelConfig tiny_config(void)
{
    ModelConfig c = {.vocab_size = 10, .d_model = 16, .n_layers = 2, .n_heads = 2, .d_ff = 24,
                     .max_seq_len = 32, .rope_theta = 10000.0f, .norm_eps = 1e-5f, .tied = 1};
    return c;
}

/* C = 16, F = 24:
 *   per token and layer: q,k,v 2*3*16*16 = 1536, o 2*16*16 = 512,
 *   gate,up 2*2*24*16 = 1536, down 2*24*16 = 768  -> 4352.
 * T = 4, causal: pairs 4*5/2 = 10, attention 4*16*10 = 640;
 *   one layer 4*4352 + 640 = 18048, two layers 36096.
 * T = 4, bidirectional: pairs 16, attention 4*16*16 = 1024; layer 18432.
 * plan {causal, bidirectional}: 18048 + 18432 = 36480. */
static void test_flops_by_hand(void **state)
{
    (void)state;
    ModelConfig c = tiny_config();
    assert_true(cost_projection_flops_per_token(&c) == 4352.0);
    assert_true(cost_attention_pairs(MASK_CAUSAL, 0, 4) == 10.0);
    assert_true(cost_attention_pairs(MASK_CAUSAL, 2, 4) == 7.0);   /* 1 + 2 + 2 + 2 */
    assert_true(cost_attention_pairs(MASK_BIDIRECTIONAL, 2, 4) == 10.0); /* 2 + 3 + 3 + 2 */
    assert_true(cost_attention_pairs(MASK_BIDIRECTIONAL, 0, 4) == 16.0);
    assert_true(cost_forward_flops(&c, 4, 2, NULL) == 36096.0);
    assert_true(cost_forward_flops(&c, 4, 1, NULL) == 18048.0);
    MaskKind full[2] = {MASK_BIDIRECTIONAL, MASK_BIDIRECTIONAL};
    MaskKind mixed[2] = {MASK_CAUSAL, MASK_BIDIRECTIONAL};
    assert_true(cost_forward_flops(&c, 4, 2, full) == 2 * 18432.0);
    assert_true(cost_forward_flops(&c, 4, 2, mixed) == 36480.0);
}

/* n = 3 tokens, r = 1, <bos> per copy: T = 2 * (3 + 1) = 8.
 * causal pairs 8*9/2 = 36: layer 8*4352 + 4*16*36 = 34816 + 2304 = 37120;
 * 2 layers 74240; exit after 1 layer: 37120 (speed-up exactly 2).
 * r = 0: T = 4 -> 36096, so r = 1 costs 74240 / 36096 = 2.0567 times r = 0. */
static void test_sentence_flops_and_exit(void **state)
{
    (void)state;
    ModelConfig c = tiny_config();
    ReadoutLayout r1 = readout_layout_paper(1), r0 = readout_layout_paper(0);
    assert_true(cost_sentence_flops(&c, 3, r1, 2, NULL) == 74240.0);
    assert_true(cost_sentence_flops(&c, 3, r1, 1, NULL) == 37120.0);
    assert_true(cost_sentence_flops(&c, 3, r0, 2, NULL) == 36096.0);
    double ratio = cost_sentence_flops(&c, 3, r1, 2, NULL) / cost_sentence_flops(&c, 3, r0, 2, NULL);
    assert_true(fabs(ratio - 74240.0 / 36096.0) < 1e-12);
    /* no <bos>, r = 2: T = 9; pairs 45: layer 9*4352 + 64*45 = 39168 + 2880 = 42048 */
    ReadoutLayout none = {2, REPEAT_BOS_NONE, REPEAT_SEP_NONE, REPEAT_POSITIONS_RUN};
    assert_true(cost_sentence_flops(&c, 3, none, 1, NULL) == 42048.0);
}

/* The pair count agrees with the mask rule itself (mask_build_window) for
 * every length, both kinds and every window (0 = none). */
static void test_pairs_match_mask(void **state)
{
    (void)state;
    uint8_t mask[40 * 40];
    for (int T = 1; T <= 40; T++)
        for (int kind = 0; kind < 2; kind++)
            for (int w = 0; w <= T + 1; w++) {
                mask_build_window((MaskKind)kind, w, T, T, mask);
                long visible = 0;
                for (int i = 0; i < T * T; i++) visible += mask[i];
                assert_true(cost_attention_pairs((MaskKind)kind, w, T) == (double)visible);
            }
}

/* cost_data_flops sums the sentences: two sentences of 3 and 1 tokens at r = 0
 * (T = 4 and 2): 36096 + 2 * (2*4352 + 64*3) = 36096 + 2 * 8896 = 53888. */
static void test_data_flops(void **state)
{
    (void)state;
    ModelConfig c = tiny_config();
    PiecedSentence sents[2] = {{.n_words = 1, .n_pieces = 3}, {.n_words = 1, .n_pieces = 1}};
    PiecedData pd = {.sents = sents, .n_sents = 2, .n_words = 2};
    assert_true(cost_data_flops(&c, &pd, readout_layout_paper(0), 2, NULL) == 53888.0);
}

/* The timer returns a positive median and fails cleanly when T does not fit. */
static void test_time_forward(void **state)
{
    (void)state;
    ModelConfig c = tiny_config();
    Model m;
    SrError err;
    assert_int_equal(model_create(&m, &c, 1, 16, &err), 0);
    model_init_weights(&m, 1);
    double s = cost_time_forward(&m, 16, NULL, 0, 3, &err);
    assert_true(s > 0.0 && s < 1.0);
    assert_true(cost_time_forward(&m, 8, NULL, 1, 1, &err) > 0.0);
    assert_true(cost_time_forward(&m, 17, NULL, 0, 1, &err) < 0.0);
    model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flops_by_hand),
        cmocka_unit_test(test_sentence_flops_and_exit),
        cmocka_unit_test(test_pairs_match_mask),
        cmocka_unit_test(test_data_flops),
        cmocka_unit_test(test_time_forward),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
