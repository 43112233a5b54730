/* test_repeat_stream.c — pre-training on repeated text: which training
 * sentences --repeat-share repeats for a seed (exactly the share of those
 * that fit, never one of the held-out part), the stream with K copies of
 * each led by <bos> and the held-out part untouched, a share of 0 leaving
 * the stream as it was, the copies that fit the window; and the random
 * windows of --repeat-random: their layout, the first copy left out of the
 * loss, the pieces, the same windows from the same rng state, and the share
 * of random windows in a batch. */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "text/tokenizer.h"
#include "train/pretrain.h"
#include "train/repeat_random.h"
#include "train/repeat_stream.h"

enum { LINES = 200, MAX_IDS = 4000 };

/* A corpus of LINES lines as tokenizer_encode_file makes it: line i is
 * <bos> then 2 + i % 7 words (its length with <bos> 3 + i % 7), word j of
 * line i being 1000 * (i + 1) + j so that every token names its line. The
 * arrays are static: one text at a time. */
static EncodedText test_text(void)
{
    static int ids[MAX_IDS];
    static long starts[LINES + 1];
    long at = 0;
    for (long i = 0; i < LINES; i++) {
        starts[i] = at;
        ids[at++] = TOK_BOS;
        for (long j = 0; j < 2 + i % 7; j++) ids[at++] = (int)(1000 * (i + 1) + j);
    }
    starts[LINES] = at;
    return (EncodedText){.ids = ids, .n_ids = at, .line_start = starts, .n_lines = LINES};
}

/* The split of train-lm: the last 5% of the tokens held out. */
static long split_of(const EncodedText *t)
{
    return t->n_ids - t->n_ids / 20;
}

/* The lines wholly before the split. */
static long training_lines(const EncodedText *t, long n_train)
{
    long n = 0;
    while (n < t->n_lines && t->line_start[n + 1] <= n_train) n++;
    return n;
}

static void test_the_share_of_the_training_sentences_is_chosen(void **state)
{
    (void)state;
    EncodedText t = test_text();
    long n_train = split_of(&t), n = training_lines(&t, n_train);
    assert_true(n < LINES && t.line_start[n] < n_train); /* a line crosses the split */
    unsigned char a[LINES], b[LINES], other[LINES];
    RepeatCounts ca, cb, co;
    RepeatSettings s = {.share = 0.25f, .copies = 2, .window = 64, .seed = 7};
    repeat_stream_choose(&t, n_train, &s, a, &ca);
    repeat_stream_choose(&t, n_train, &s, b, &cb);
    s.seed = 8;
    repeat_stream_choose(&t, n_train, &s, other, &co);
    assert_int_equal(ca.sentences, n);
    assert_int_equal(ca.candidates, n); /* every line fits twice in 64 tokens */
    assert_int_equal(ca.repeated, (long)(0.25 * n + 0.5));
    long chosen = 0;
    for (long i = 0; i < LINES; i++) {
        chosen += a[i];
        if (i >= n) assert_int_equal(a[i], 0); /* the crossing line and the held-out ones */
    }
    assert_int_equal(chosen, ca.repeated);
    assert_memory_equal(a, b, LINES);          /* the same seed, the same sentences */
    assert_int_equal(co.repeated, ca.repeated);
    assert_memory_not_equal(a, other, LINES);  /* another seed, others */
}

static void test_only_sentences_whose_copies_fit_are_chosen(void **state)
{
    (void)state;
    EncodedText t = test_text();
    long n_train = split_of(&t), n = training_lines(&t, n_train), fit = 0;
    unsigned char chosen[LINES];
    RepeatCounts c;
    /* 4 copies in 24 tokens: lines of at most 6 tokens (i % 7 <= 3) */
    RepeatSettings s = {.share = 0.9f, .copies = 4, .window = 24, .seed = 3};
    repeat_stream_choose(&t, n_train, &s, chosen, &c);
    for (long i = 0; i < n; i++) fit += i % 7 <= 3;
    assert_int_equal(c.candidates, fit);
    assert_int_equal(c.repeated, (long)(0.9 * fit + 0.5));
    for (long i = 0; i < n; i++)
        if (chosen[i]) assert_true(i % 7 <= 3);
}

static void test_repeated_lines_are_copied_after_bos_and_held_out_stays(void **state)
{
    (void)state;
    EncodedText t = test_text();
    long n_train = split_of(&t), n = training_lines(&t, n_train);
    unsigned char chosen[LINES];
    RepeatCounts c;
    RepeatSettings s = {.share = 0.5f, .copies = 3, .window = 64, .seed = 11};
    RepeatedStream r;
    SrError err;
    repeat_stream_choose(&t, n_train, &s, chosen, &c);
    assert_int_equal(repeat_stream_build(&t, n_train, 3, chosen, &r, &err), 0);
    long at = 0, added = 0;
    for (long i = 0; i < n; i++) { /* line i, 3 times when chosen, each led by <bos> */
        long len = t.line_start[i + 1] - t.line_start[i];
        for (int copy = 0; copy < (chosen[i] ? 3 : 1); copy++, at += len) {
            assert_int_equal(r.ids[at], TOK_BOS);
            assert_memory_equal(r.ids + at, t.ids + t.line_start[i], (size_t)len * sizeof(int));
        }
        added += chosen[i] ? 2 * len : 0;
    }
    assert_int_equal(r.n_train, n_train + added);
    assert_int_equal(r.n_ids, t.n_ids + added);
    /* the crossing line's head stays in the training part, the held-out part follows as it was */
    assert_memory_equal(r.ids + at, t.ids + t.line_start[n],
                        (size_t)(t.n_ids - t.line_start[n]) * sizeof(int));
    assert_memory_equal(r.ids + r.n_train, t.ids + n_train,
                        (size_t)(t.n_ids - n_train) * sizeof(int));
    repeated_stream_free(&r);
    assert_null(r.ids);
}

static void test_a_share_of_zero_leaves_the_stream_as_it_was(void **state)
{
    (void)state;
    EncodedText t = test_text();
    long n_train = split_of(&t);
    RepeatSettings s = {.share = 0.0f, .copies = 2, .window = 64, .seed = 1};
    RepeatedStream r;
    RepeatCounts c;
    SrError err;
    assert_int_equal(repeat_stream_make(&t, n_train, &s, &r, &c, &err), 0);
    assert_int_equal(c.repeated, 0);
    assert_int_equal(r.n_ids, t.n_ids);
    assert_int_equal(r.n_train, n_train);
    assert_memory_equal(r.ids, t.ids, (size_t)t.n_ids * sizeof(int));
    repeated_stream_free(&r);
}

static void test_the_copies_that_fit_the_window(void **state)
{
    (void)state;
    EncodedText t = test_text(); /* lengths 3..9, each 1/7 of the lines */
    long n_train = split_of(&t), longest = 0;
    /* of the ~190 training lines at most 1% may be left out: only one, so the
     * line of 9 tokens must fit (there are ~27 of them) */
    assert_int_equal(repeat_stream_max_copies(&t, n_train, 64, &longest), 7);
    assert_int_equal(longest, 9);
    assert_int_equal(repeat_stream_max_copies(&t, n_train, 17, NULL), 1);
    assert_int_equal(repeat_stream_max_copies(&t, n_train, 8, &longest), 0);
    /* a corpus whose longest line is rare: 1% of it may be left out */
    EncodedText few = t;
    static long starts[LINES + 1];
    static int ids[MAX_IDS];
    long at = 0;
    for (long i = 0; i < LINES; i++) { /* every line 4 tokens, the first one 40 */
        starts[i] = at;
        for (long j = 0; j < (i == 0 ? 40 : 4); j++) ids[at++] = j ? 7 : TOK_BOS;
    }
    starts[LINES] = at;
    few = (EncodedText){.ids = ids, .n_ids = at, .line_start = starts, .n_lines = LINES};
    assert_int_equal(repeat_stream_max_copies(&few, split_of(&few), 64, &longest), 16);
    assert_int_equal(longest, 4);
    assert_int_equal(repeat_stream_max_copies(&few, 3, 64, NULL), 0); /* no training line */
}

/* Check one random window (T) of m pieces: the layout <bos> x <bos> x ...,
 * the pieces not special and below vocab, the targets of the first copy and
 * of the <bos> after it ignored, every other target the token after. */
static void check_random_window(const int *ids, const int *targets, int T, int m, int vocab)
{
    assert_true(m >= REPEAT_RANDOM_MIN_PIECES && m <= REPEAT_RANDOM_MAX_PIECES && 2 * m + 1 <= T);
    for (int j = 0; j < T; j++) {
        if (j % (m + 1) == 0) assert_int_equal(ids[j], TOK_BOS);
        else assert_true(ids[j] >= TOK_N_SPECIAL && ids[j] < vocab);
        if (j >= m + 1) assert_int_equal(ids[j], ids[j - (m + 1)]); /* a copy */
        if (j <= m) assert_int_equal(targets[j], -1);
        else if (j + 1 < T) assert_int_equal(targets[j], ids[j + 1]);
        else assert_int_equal(targets[j], (j + 1) % (m + 1) == 0 ? TOK_BOS : ids[j - m]);
    }
}

static void test_random_windows_repeat_a_random_sequence(void **state)
{
    (void)state;
    enum { T = 80, VOCAB = 40 };
    int ids[T], targets[T], again_ids[T], again_targets[T], seen_short = 0, seen_long = 0;
    Rng rng, copy;
    rng_seed(&rng, 5);
    for (int round = 0; round < 200; round++) {
        copy = rng;
        int m = repeat_random_window(&rng, VOCAB, T, ids, targets);
        check_random_window(ids, targets, T, m, VOCAB);
        seen_short |= m == REPEAT_RANDOM_MIN_PIECES;
        seen_long |= m == REPEAT_RANDOM_MAX_PIECES;
        /* the same rng state, the same window */
        assert_int_equal(repeat_random_window(&copy, VOCAB, T, again_ids, again_targets), m);
        assert_memory_equal(ids, again_ids, sizeof ids);
        assert_memory_equal(targets, again_targets, sizeof targets);
        assert_memory_equal(&rng, &copy, sizeof rng);
    }
    assert_true(seen_short && seen_long); /* the range 8..32 is reached at both ends */
    /* a short window holds two copies: m <= (T - 1) / 2 */
    for (int round = 0; round < 50; round++) {
        int m = repeat_random_window(&rng, VOCAB, REPEAT_RANDOM_MIN_WINDOW, ids, targets);
        assert_int_equal(m, REPEAT_RANDOM_MIN_PIECES);
        check_random_window(ids, targets, REPEAT_RANDOM_MIN_WINDOW, m, VOCAB);
    }
}

static void test_a_share_of_the_batch_windows_is_random(void **state)
{
    (void)state;
    enum { T = 40, B = 50, STREAM = 1000, VOCAB = 30 };
    static int stream[STREAM], ids[B * T], targets[B * T], again[B * T];
    for (int i = 0; i < STREAM; i++) stream[i] = 500 + i; /* never a piece of a random window */
    RepeatRandomSource src = {.stream = {stream, 0, STREAM}, .share = 0.25f, .vocab_size = VOCAB};
    Rng rng, copy;
    rng_seed(&rng, 9);
    int random = 0;
    for (int step = 1; step <= 20; step++) {
        copy = rng;
        repeat_random_batch(&src, &rng, step, B, T, ids, targets);
        for (int b = 0; b < B; b++) {
            const int *row = ids + b * T;
            if (row[0] >= 500) { /* a stream window */
                for (int t = 0; t < T; t++) assert_int_equal(targets[b * T + t], row[t] + 1);
                continue;
            }
            random++;
            int m = 1;
            while (row[m] != TOK_BOS) m++;
            check_random_window(row, targets + b * T, T, m - 1, VOCAB);
        }
        repeat_random_batch(&src, &copy, step, B, T, again, targets);
        assert_memory_equal(ids, again, sizeof ids); /* the same rng state, the same batch */
    }
    assert_true(random > 0.18 * 20 * B && random < 0.32 * 20 * B);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_share_of_the_training_sentences_is_chosen),
        cmocka_unit_test(test_only_sentences_whose_copies_fit_are_chosen),
        cmocka_unit_test(test_repeated_lines_are_copied_after_bos_and_held_out_stays),
        cmocka_unit_test(test_a_share_of_zero_leaves_the_stream_as_it_was),
        cmocka_unit_test(test_the_copies_that_fit_the_window),
        cmocka_unit_test(test_random_windows_repeat_a_random_sequence),
        cmocka_unit_test(test_a_share_of_the_batch_windows_is_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
