/* test_cue_attention.c — the attention of entity words on their cue word in
 * the earlier copies: a hand-built pattern where every cell is known (a
 * two-piece word, junk in the padding and in the own copy's cue), the sum
 * over two earlier copies, a cue on the left, and queries without a
 * non-cue word. */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "repeat/repeat.h"
#include "theory/cue_attention.h"

/* Three words of 1, 2 and 1 pieces: word_start {0, 1, 3, 4}. r = 1, <bos>
 * per copy: rows 0 B, 1 w0, 2 w1a, 3 w1b, 4 w2, 5 B, 6 w0, 7 w1a, 8 w1b, 9 w2.
 * The query is word 0 (last-copy row 6), its cue word 2. Head 0: 0.5 on the
 * first copy's cue (row 4), 0.2 + 0.1 on the two pieces of word 1 (rows 2,
 * 3), 0.2 on itself; 0.9 on the own copy's cue (row 9) and 7 in the padding
 * columns, neither counted. Head 1: everything on <bos>. */
static void test_hand_built(void **state)
{
    (void)state;
    RepeatLayout lay;
    SrError err;
    assert_int_equal(repeat_build(NULL, 4, 1, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, 0, &lay, &err), 0);
    const int H = 2, T = lay.T, stride = T + 2;
    assert_int_equal(T, 10);
    float *att = calloc((size_t)H * stride * stride, sizeof(float));
    float *row0 = att + (size_t)6 * stride, *row1 = att + ((size_t)stride + 6) * stride;
    row0[4] = 0.5f, row0[2] = 0.2f, row0[3] = 0.1f, row0[6] = 0.2f, row0[9] = 0.9f;
    row0[T] = row0[T + 1] = 7.0f;
    row1[0] = 1.0f;
    int word_start[4] = {0, 1, 3, 4}, cue[3] = {2, -1, -1};
    CueAttention c;
    assert_int_equal(cue_attention_init(&c, 1, H, &err), 0);
    cue_attention_add_layer(&c, 0, att, stride, &lay, word_start, cue, 3);
    assert_int_equal(cue_attention_queries(&c, 0), 1);
    assert_int_equal(cue_attention_non_cue_queries(&c, 0), 1);
    assert_true(fabs(cue_attention_cue_mean(&c, 0, 0) - 0.5) < 1e-6);
    assert_true(fabs(cue_attention_non_cue_mean(&c, 0, 0) - 0.3) < 1e-6);
    assert_true(fabs(cue_attention_cue_mean(&c, 0, 1)) < 1e-12);
    assert_true(fabs(cue_attention_non_cue_mean(&c, 0, 1)) < 1e-12);
    /* word 2 queries with its cue on the left (word 0): its row is 9; the
     * other word on that side is word 1 only */
    float *row = att + (size_t)9 * stride;
    memset(row, 0, sizeof(float) * (size_t)stride);
    row[1] = 0.6f, row[2] = 0.1f, row[3] = 0.1f, row[4] = 0.2f;
    int cue_left[3] = {-1, -1, 0};
    cue_attention_add_layer(&c, 0, att, stride, &lay, word_start, cue_left, 3);
    assert_int_equal(cue_attention_queries(&c, 0), 2);
    assert_true(fabs(cue_attention_cue_mean(&c, 0, 0) - (0.5 + 0.6) / 2) < 1e-6);
    assert_true(fabs(cue_attention_non_cue_mean(&c, 0, 0) - (0.3 + 0.2) / 2) < 1e-6);
    cue_attention_free(&c);
    free(att);
    repeat_free(&lay);
}

/* r = 2: the cue's share adds both earlier copies; a query whose only word
 * on the cue's side is the cue has no non-cue word and is not averaged in. */
static void test_two_earlier_copies(void **state)
{
    (void)state;
    RepeatLayout lay;
    SrError err;
    /* <bos> once: rows 0 B, 1 a, 2 b, 3 a, 4 b, 5 a, 6 b; query a (row 5), cue b */
    assert_int_equal(repeat_build(NULL, 2, 2, REPEAT_BOS_ONCE, REPEAT_SEP_NONE, 0, &lay, &err), 0);
    const int T = lay.T;
    float *att = calloc((size_t)T * T, sizeof(float));
    att[(size_t)5 * T + 2] = 0.25f;
    att[(size_t)5 * T + 4] = 0.5f;
    att[(size_t)5 * T + 5] = 0.25f;
    int word_start[3] = {0, 1, 2}, cue[2] = {1, -1};
    CueAttention c;
    assert_int_equal(cue_attention_init(&c, 2, 1, &err), 0);
    cue_attention_add_layer(&c, 1, att, T, &lay, word_start, cue, 2);
    assert_int_equal(cue_attention_queries(&c, 1), 1);
    assert_int_equal(cue_attention_non_cue_queries(&c, 1), 0);
    assert_int_equal(cue_attention_queries(&c, 0), 0);
    assert_true(fabs(cue_attention_cue_mean(&c, 1, 0) - 0.75) < 1e-6);
    assert_true(fabs(cue_attention_non_cue_mean(&c, 1, 0)) < 1e-12);
    assert_true(fabs(cue_attention_cue_mean(&c, 0, 0)) < 1e-12);
    cue_attention_free(&c);
    assert_int_equal(cue_attention_init(&c, 0, 1, &err), -1);
    assert_non_null(strstr(err.msg, "layer"));
    free(att);
    repeat_free(&lay);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_built),
        cmocka_unit_test(test_two_earlier_copies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
