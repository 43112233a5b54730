/* test_blocks.c — the block counts of the model's causal mask over repeated
 * sentences equal the closed forms of docs/theory.md, exactly (with and
 * without a sliding window). */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "engine/ops/mask.h"
#include "engine/ops/ops.h"
#include "repeat/repeat.h"
#include "theory/blocks.h"

/* Count the figures of (n, r, bos, sep) from the mask into *f. */
static void count(int n, int r, int bos, int sep, BlockFigures *f)
{
    RepeatLayout lay;
    SrError err;
    assert_int_equal(repeat_build(NULL, n, r, bos, sep, 0, &lay, &err), 0);
    assert_int_equal(blocks_count(&lay, 0, f, &err), 0);
    repeat_free(&lay);
}

/* Every integer figure of a and b is the same. */
static void assert_same_figures(const BlockFigures *a, const BlockFigures *b)
{
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->r, b->r);
    assert_int_equal(a->k, b->k);
    assert_int_equal(a->T, b->T);
    assert_int_equal(a->n_special, b->n_special);
    assert_int_equal(a->full_blocks, b->full_blocks);
    assert_int_equal(a->causal_blocks, b->causal_blocks);
    assert_int_equal(a->masked_blocks, b->masked_blocks);
    assert_int_equal(a->other_blocks, b->other_blocks);
    assert_int_equal(a->visible_pairs, b->visible_pairs);
    assert_int_equal(a->word_pairs, b->word_pairs);
    assert_int_equal(a->right_pairs, b->right_pairs);
    assert_int_equal(a->full_block_pairs, b->full_block_pairs);
    assert_int_equal(a->sink_pairs, b->sink_pairs);
    assert_int_equal(a->special_query_pairs, b->special_query_pairs);
    for (int c = 0; c < a->k; c++) assert_int_equal(a->seen_whole[c], b->seen_whole[c]);
    assert_int_equal(a->last_right_seen, b->last_right_seen);
}

/* The check the issue asks for: n 1..64, k 1..16, every bos/sep option. */
static void test_counts_equal_closed_forms(void **state)
{
    (void)state;
    for (int bos = 0; bos < 3; bos++)
        for (int sep = 0; sep < 2; sep++)
            for (int n = 1; n <= 64; n++)
                for (int k = 1; k <= 16; k++) {
                    BlockFigures counted, closed;
                    SrError err;
                    count(n, k - 1, bos, sep, &counted);
                    assert_int_equal(blocks_closed_form(n, k - 1, bos, sep, &closed, &err), 0);
                    assert_same_figures(&counted, &closed);
                    assert_int_equal(counted.other_blocks, 0);
                    /* The visible pairs split into word, sink and special-query pairs. */
                    assert_int_equal(counted.visible_pairs, counted.word_pairs +
                                     counted.sink_pairs + counted.special_query_pairs);
                    /* Shares from the counts equal the simplified closed forms. */
                    assert_true(share_equal(blocks_full_share(&counted), blocks_full_share_closed(k)));
                    assert_true(share_equal(blocks_right_share(&counted),
                                            blocks_right_share_closed(n, k)));
                    assert_true(share_equal(blocks_full_entry_share(&counted),
                                            blocks_full_entry_share_closed(n, k, counted.T)));
                    assert_true(share_equal(blocks_seen_whole_share(&counted, 0), (Share){1, n}));
                    for (int c = 1; c < k; c++)
                        assert_true(share_equal(blocks_seen_whole_share(&counted, c), (Share){1, 1}));
                    blocks_free(&counted);
                    blocks_free(&closed);
                }
}

/* The paper's numbers: 0, 33.3%, 50%, 66.7%, 80% for r = 0, 1, 2, 4, 8. */
static void test_paper_shares(void **state)
{
    (void)state;
    int r[] = {0, 1, 2, 4, 8};
    Share expect[] = {{0, 1}, {1, 3}, {1, 2}, {2, 3}, {4, 5}};
    for (int i = 0; i < 5; i++) {
        BlockFigures f;
        count(7, r[i], REPEAT_BOS_NONE, REPEAT_SEP_NONE, &f);
        assert_true(share_equal(blocks_full_share(&f), expect[i]));
        Share reduced = share_reduce(blocks_full_share(&f));
        assert_int_equal(reduced.num, expect[i].num);
        assert_int_equal(reduced.den, expect[i].den);
        blocks_free(&f);
    }
}

/* A case small enough to count by hand: n = 2, r = 1, <bos> once, <sep>:
 *   row  0 B   sees B                     special query 1
 *   row  1 w0  sees B w0                  word pairs 1, sink 1
 *   row  2 w1  sees B w0 w1               word pairs 2, sink 1
 *   row  3 S   sees B w0 w1 S             special query 4
 *   row  4 w0' sees B w0 w1 S w0'         word pairs 3 (w1 is to the right), sink 2
 *   row  5 w1' sees everything            word pairs 4, sink 2 */
static void test_hand_counted(void **state)
{
    (void)state;
    BlockFigures f;
    count(2, 1, REPEAT_BOS_ONCE, REPEAT_SEP_TOKEN, &f);
    assert_int_equal(f.T, 6);
    assert_int_equal(f.n_special, 2);
    assert_int_equal(f.visible_pairs, 21);
    assert_int_equal(f.word_pairs, 10);
    assert_int_equal(f.right_pairs, 1);
    assert_int_equal(f.sink_pairs, 6);
    assert_int_equal(f.special_query_pairs, 5);
    assert_int_equal(f.full_blocks, 1);
    assert_int_equal(f.causal_blocks, 2);
    assert_int_equal(f.masked_blocks, 1);
    assert_int_equal(f.full_block_pairs, 4);
    assert_int_equal(f.seen_whole[0], 1);
    assert_int_equal(f.seen_whole[1], 2);
    blocks_free(&f);
}

/* The mask blocks_count reads is the one the attention op applies: run the
 * model's attention on a repeated input and check that its probabilities are
 * non-zero exactly where mask_build says "visible", and that the number of
 * non-zero entries is the counted visible_pairs. */
static void test_mask_is_the_attention_mask(void **state)
{
    (void)state;
    const int H = 2, hd = 4, C = H * hd;
    unsigned long long seed = 7;
    for (int bos = 0; bos < 3; bos++)
        for (int sep = 0; sep < 2; sep++) {
            RepeatLayout lay;
            SrError err;
            assert_int_equal(repeat_build(NULL, 3, 2, bos, sep, 0, &lay, &err), 0);
            int T = lay.T;
            float *q = malloc(sizeof(float) * T * C), *kk = malloc(sizeof(float) * T * C);
            float *v = malloc(sizeof(float) * T * C), *out = malloc(sizeof(float) * T * C);
            float *att = malloc(sizeof(float) * H * T * T);
            uint8_t *mask = malloc((size_t)T * T);
            test_fill_random(q, (long)T * C, &seed, 1.0f);
            test_fill_random(kk, (long)T * C, &seed, 1.0f);
            test_fill_random(v, (long)T * C, &seed, 1.0f);
            attention_forward(out, att, q, kk, v, C, NULL, MASK_CAUSAL, 1, T, H, hd);
            mask_build(MASK_CAUSAL, T, T, mask);
            BlockFigures f;
            assert_int_equal(blocks_count(&lay, 0, &f, &err), 0);
            for (int h = 0; h < H; h++) {
                long nonzero = 0;
                for (int t = 0; t < T; t++)
                    for (int s = 0; s < T; s++) {
                        float p = att[((size_t)h * T + t) * T + s];
                        assert_int_equal(p > 0.0f, mask[(size_t)t * T + s]);
                        nonzero += p > 0.0f;
                    }
                assert_int_equal(nonzero, f.visible_pairs);
            }
            blocks_free(&f);
            free(q);
            free(kk);
            free(v);
            free(out);
            free(att);
            free(mask);
            repeat_free(&lay);
        }
}

static void test_memory_guard(void **state)
{
    (void)state;
    SrError err;
    assert_int_equal(blocks_check_size(16384, &err), 0);
    assert_int_equal(blocks_check_size(16385, &err), -1);
    assert_non_null(strstr(err.msg, "MiB"));
    assert_int_equal(blocks_check_size(0, &err), -1);
    BlockFigures f;
    assert_int_equal(blocks_closed_form(20000, 0, REPEAT_BOS_NONE, REPEAT_SEP_NONE, &f, &err), -1);
    assert_non_null(strstr(err.msg, "20000 x 20000"));
    assert_int_equal(blocks_closed_form(0, 1, REPEAT_BOS_NONE, REPEAT_SEP_NONE, &f, &err), -1);
    assert_int_equal(blocks_closed_form(3, -1, REPEAT_BOS_NONE, REPEAT_SEP_NONE, &f, &err), -1);
    /* A layout past the limit is refused before any mask is allocated. */
    RepeatLayout lay;
    assert_int_equal(repeat_build(NULL, 1000, 16, REPEAT_BOS_NONE, REPEAT_SEP_NONE, 0, &lay, &err), 0);
    assert_int_equal(blocks_count(&lay, 0, &f, &err), -1);
    assert_null(f.seen_whole);
    repeat_free(&lay);
}

static void test_shares(void **state)
{
    (void)state;
    assert_true(share_equal((Share){2, 4}, (Share){1, 2}));
    assert_false(share_equal((Share){2, 5}, (Share){1, 2}));
    assert_true(share_equal((Share){0, 7}, (Share){0, 1}));
    Share s = share_reduce((Share){36, 48});
    assert_int_equal(s.num, 3);
    assert_int_equal(s.den, 4);
    assert_true(fabs(share_value((Share){1, 3}) - 1.0 / 3.0) < 1e-15);
    assert_true(share_value((Share){1, 0}) == 0.0);
}

/* Under a causal sliding window the last copy's right context counted from
 * the windowed mask equals its closed form (blocks_last_right_closed) for
 * every layout, and by hand: n = 4, r = 1, no specials, window 3 sees the
 * pairs (i, j) with 4 + i - j < 3, i.e. j - i >= 2: (0, 2),
 * (0, 3), (1, 3) = 3 = m(m+1)/2 with m = 2. A window of a whole copy (n + s)
 * sees all n(n-1)/2 pairs; no window is the same. */
static void test_window_right_context(void **state)
{
    (void)state;
    for (int bos = 0; bos < 3; bos++)
        for (int sep = 0; sep < 2; sep++)
            for (int n = 1; n <= 12; n++)
                for (int r = 0; r <= 3; r++)
                    for (int w = 0; w <= 2 * n + 4; w++) {
                        RepeatLayout lay;
                        BlockFigures f;
                        SrError err;
                        assert_int_equal(repeat_build(NULL, n, r, bos, sep, 0, &lay, &err), 0);
                        assert_int_equal(blocks_count(&lay, w, &f, &err), 0);
                        assert_int_equal(f.last_right_seen,
                                         blocks_last_right_closed(n, r, bos, sep, w));
                        repeat_free(&lay);
                        blocks_free(&f);
                    }
    assert_int_equal(blocks_last_right_closed(4, 1, REPEAT_BOS_NONE, REPEAT_SEP_NONE, 3), 3);
    assert_int_equal(blocks_last_right_closed(4, 1, REPEAT_BOS_NONE, REPEAT_SEP_TOKEN, 5), 6);
    assert_int_equal(blocks_last_right_closed(4, 1, REPEAT_BOS_NONE, REPEAT_SEP_TOKEN, 4), 3);
    assert_int_equal(blocks_last_right_closed(4, 1, REPEAT_BOS_NONE, REPEAT_SEP_NONE, 0), 6);
    assert_int_equal(blocks_last_right_closed(4, 0, REPEAT_BOS_NONE, REPEAT_SEP_NONE, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_equal_closed_forms),
        cmocka_unit_test(test_window_right_context),
        cmocka_unit_test(test_paper_shares),
        cmocka_unit_test(test_hand_counted),
        cmocka_unit_test(test_mask_is_the_attention_mask),
        cmocka_unit_test(test_memory_guard),
        cmocka_unit_test(test_shares),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
