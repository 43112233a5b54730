/* test_repeat.c — the repetition input transform: ids, positions, copy and
 * word indices, read-out rows, lengths and the max-n helper. */
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

#include "repeat/repeat.h"
#include "text/tokenizer.h"

static const int SENTENCE[3] = {11, 12, 13};
enum { B = TOK_BOS, S = TOK_SEP };

/* Build n = 3, r = 2 with the given options and compare ids, copy and word
 * indices against hand-written expectations (T entries each). */
static void check_small(RepeatBos bos, RepeatSep sep, const int *ids, const int *copy,
                        const int *word, int T)
{
    RepeatLayout lay;
    SrError err;
    assert_int_equal(repeat_build(SENTENCE, 3, 2, bos, sep, 0, &lay, &err), 0);
    assert_int_equal(lay.T, T);
    assert_int_equal(lay.k, 3);
    for (int t = 0; t < T; t++) {
        assert_int_equal(lay.ids[t], ids[t]);
        assert_int_equal(lay.copy[t], copy[t]);
        assert_int_equal(lay.word[t], word[t]);
        assert_int_equal(lay.positions[t], t);
        int kind = ids[t] == B ? REPEAT_BOS : ids[t] == S ? REPEAT_SEP : REPEAT_WORD;
        assert_int_equal(lay.kind[t], kind);
    }
    repeat_free(&lay);
}

static void test_layout_no_specials(void **state)
{
    (void)state;
    int ids[] = {11, 12, 13, 11, 12, 13, 11, 12, 13};
    int copy[] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
    int word[] = {0, 1, 2, 0, 1, 2, 0, 1, 2};
    check_small(REPEAT_BOS_NONE, REPEAT_SEP_NONE, ids, copy, word, 9);
}

static void test_layout_bos_once(void **state)
{
    (void)state;
    int ids[] = {B, 11, 12, 13, 11, 12, 13, 11, 12, 13};
    int copy[] = {-1, 0, 0, 0, 1, 1, 1, 2, 2, 2};
    int word[] = {-1, 0, 1, 2, 0, 1, 2, 0, 1, 2};
    check_small(REPEAT_BOS_ONCE, REPEAT_SEP_NONE, ids, copy, word, 10);
}

static void test_layout_bos_per_copy(void **state)
{
    (void)state;
    int ids[] = {B, 11, 12, 13, B, 11, 12, 13, B, 11, 12, 13};
    int copy[] = {-1, 0, 0, 0, -1, 1, 1, 1, -1, 2, 2, 2};
    int word[] = {-1, 0, 1, 2, -1, 0, 1, 2, -1, 0, 1, 2};
    check_small(REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, ids, copy, word, 12);
}

static void test_layout_sep(void **state)
{
    (void)state;
    int ids[] = {11, 12, 13, S, 11, 12, 13, S, 11, 12, 13};
    int copy[] = {0, 0, 0, -1, 1, 1, 1, -1, 2, 2, 2};
    int word[] = {0, 1, 2, -1, 0, 1, 2, -1, 0, 1, 2};
    check_small(REPEAT_BOS_NONE, REPEAT_SEP_TOKEN, ids, copy, word, 11);
}

static void test_layout_per_copy_bos_and_sep(void **state)
{
    (void)state;
    int ids[] = {B, 11, 12, 13, S, B, 11, 12, 13, S, B, 11, 12, 13};
    int copy[] = {-1, 0, 0, 0, -1, -1, 1, 1, 1, -1, -1, 2, 2, 2};
    int word[] = {-1, 0, 1, 2, -1, -1, 0, 1, 2, -1, -1, 0, 1, 2};
    check_small(REPEAT_BOS_PER_COPY, REPEAT_SEP_TOKEN, ids, copy, word, 14);
}

/* For many sizes and every option: T matches repeat_length, specials are
 * counted right, and every word token is where copy_start and the read-out
 * rows say it is. */
static void test_layout_invariants(void **state)
{
    (void)state;
    int words[20];
    for (int i = 0; i < 20; i++) words[i] = 100 + i;
    for (int bos = 0; bos < 3; bos++)
        for (int sep = 0; sep < 2; sep++)
            for (int n = 1; n <= 20; n++)
                for (int r = 0; r <= 10; r++) {
                    RepeatLayout lay;
                    SrError err;
                    assert_int_equal(repeat_build(words, n, r, bos, sep, 0, &lay, &err), 0);
                    int k = r + 1;
                    int n_bos = bos == REPEAT_BOS_ONCE ? 1 : bos == REPEAT_BOS_PER_COPY ? k : 0;
                    int n_sep = sep == REPEAT_SEP_TOKEN ? k - 1 : 0;
                    assert_int_equal(lay.T, k * n + n_bos + n_sep);
                    assert_int_equal(lay.T, (int)repeat_length(n, r, bos, sep));
                    assert_int_equal(lay.n_bos, n_bos);
                    assert_int_equal(lay.n_sep, n_sep);
                    int specials = 0, words_seen = 0;
                    for (int t = 0; t < lay.T; t++) {
                        if (lay.kind[t] == REPEAT_WORD) {
                            words_seen++;
                            assert_int_equal(lay.copy_start[lay.copy[t]] + lay.word[t], t);
                            assert_int_equal(lay.ids[t], words[lay.word[t]]);
                        } else {
                            specials++;
                            assert_int_equal(lay.copy[t], -1);
                            assert_int_equal(lay.word[t], -1);
                        }
                    }
                    assert_int_equal(specials, n_bos + n_sep);
                    assert_int_equal(words_seen, k * n);
                    for (int i = 0; i < n; i++) {
                        assert_int_equal(lay.copy[lay.last_rows[i]], k - 1);
                        assert_int_equal(lay.word[lay.last_rows[i]], i);
                        assert_int_equal(lay.copy[lay.first_rows[i]], 0);
                        assert_int_equal(lay.word[lay.first_rows[i]], i);
                    }
                    /* The last copy's last word is the last token. */
                    assert_int_equal(lay.last_rows[n - 1], lay.T - 1);
                    repeat_free(&lay);
                }
}

static void test_layout_without_ids(void **state)
{
    (void)state;
    RepeatLayout lay;
    SrError err;
    assert_int_equal(repeat_build(NULL, 2, 1, REPEAT_BOS_ONCE, REPEAT_SEP_NONE, 0, &lay, &err), 0);
    int expect[] = {TOK_BOS, -1, -1, -1, -1};
    assert_int_equal(lay.T, 5);
    for (int t = 0; t < 5; t++) assert_int_equal(lay.ids[t], expect[t]);
    repeat_free(&lay);
}

/* The caller's special ids go where <bos> and <sep> go; a tokenizer without
 * one is refused only by a layout that needs it, naming the option. */
static void test_caller_ids(void **state)
{
    (void)state;
    RepeatLayout lay;
    SrError err;
    const RepeatIds ids = {100, 200}, none = {-1, -1};
    assert_int_equal(repeat_build_ids(SENTENCE, 3, 1, REPEAT_BOS_PER_COPY, REPEAT_SEP_TOKEN, ids, 0, &lay, &err), 0);
    int expect[] = {100, SENTENCE[0], SENTENCE[1], SENTENCE[2], 200, 100, SENTENCE[0], SENTENCE[1], SENTENCE[2]};
    assert_int_equal(lay.T, 9);
    assert_memory_equal(lay.ids, expect, sizeof expect);
    repeat_free(&lay);
    assert_int_equal(repeat_build_ids(SENTENCE, 3, 2, REPEAT_BOS_NONE, REPEAT_SEP_NONE, none, 0, &lay, &err), 0);
    assert_int_equal(lay.T, 9);
    assert_int_equal(lay.ids[3], SENTENCE[0]);
    repeat_free(&lay);
    assert_int_equal(repeat_build_ids(SENTENCE, 3, 1, REPEAT_BOS_ONCE, REPEAT_SEP_NONE, none, 0, &lay, &err), -1);
    assert_non_null(strstr(err.msg, "--bos once: the tokenizer has no BOS token"));
    assert_null(lay.ids);
    RepeatIds bos_only = {7, -1};
    assert_int_equal(repeat_build_ids(SENTENCE, 3, 1, REPEAT_BOS_ONCE, REPEAT_SEP_TOKEN, bos_only, 0, &lay, &err), -1);
    assert_non_null(strstr(err.msg, "--sep token"));
    /* repeat_build is the house ids */
    assert_int_equal(repeat_ids_house().bos, TOK_BOS);
    assert_int_equal(repeat_ids_house().sep, TOK_SEP);
}

static void test_bad_input(void **state)
{
    (void)state;
    RepeatLayout lay;
    SrError err;
    assert_int_equal(repeat_build(SENTENCE, 0, 1, REPEAT_BOS_NONE, REPEAT_SEP_NONE, 0, &lay, &err), -1);
    assert_non_null(strstr(err.msg, "n = 0"));
    assert_int_equal(repeat_build(SENTENCE, 3, -1, REPEAT_BOS_NONE, REPEAT_SEP_NONE, 0, &lay, &err), -1);
    assert_non_null(strstr(err.msg, "r = -1"));
    /* 3 words x 4 copies + 4 <bos> = 16 tokens > 15. */
    assert_int_equal(repeat_build(SENTENCE, 3, 3, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, 15, &lay, &err), -1);
    assert_non_null(strstr(err.msg, "16 tokens"));
    assert_null(lay.ids);
    assert_int_equal(repeat_build(SENTENCE, 3, 3, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, 16, &lay, &err), 0);
    repeat_free(&lay);
    /* Absurd sizes are refused, not overflowed. */
    assert_int_equal(repeat_build(SENTENCE, 3, 2147483646, REPEAT_BOS_NONE, REPEAT_SEP_NONE, 0, &lay, &err), -1);
    assert_true(repeat_length(2147483647, 2147483647, REPEAT_BOS_PER_COPY, REPEAT_SEP_TOKEN) > 2147483647LL);
    assert_int_equal(repeat_length(0, 1, REPEAT_BOS_NONE, REPEAT_SEP_NONE), -1);
    assert_int_equal(repeat_length(1, -1, REPEAT_BOS_NONE, REPEAT_SEP_NONE), -1);
}

/* The positions one layout of the three-piece SENTENCE, r = 2, gets when
 * its copies restart and when they are induction-aligned. */
typedef struct {
    RepeatBos bos;
    RepeatSep sep;
    int T;
    int restart[16], induction[16];
} PositionsCase;

/* For every case: the layout renumbered by plan has the positions wanted,
 * the ids and read-out rows of the running layout, and (induction) the
 * plan's rule piece by piece: a later copy's piece i where the first
 * copy's piece i + 1 is, the last piece one past the first copy's last. */
static void check_positions(RepeatPositions plan, const PositionsCase *cases, size_t n)
{
    for (size_t c = 0; c < n; c++) {
        RepeatLayout run, renumbered;
        SrError err;
        assert_int_equal(repeat_build(SENTENCE, 3, 2, cases[c].bos, cases[c].sep, 0, &run, &err), 0);
        assert_int_equal(repeat_build(SENTENCE, 3, 2, cases[c].bos, cases[c].sep, 0, &renumbered, &err), 0);
        repeat_apply_positions(&renumbered, plan);
        assert_int_equal(renumbered.T, cases[c].T);
        const int *want = plan == REPEAT_POSITIONS_RESTART ? cases[c].restart : cases[c].induction;
        assert_memory_equal(renumbered.positions, want, sizeof(int) * (size_t)cases[c].T);
        assert_memory_equal(renumbered.ids, run.ids, sizeof(int) * (size_t)run.T);
        assert_memory_equal(renumbered.last_rows, run.last_rows, sizeof(int) * 3);
        for (int i = 0; plan == REPEAT_POSITIONS_INDUCTION && i < 3; i++)
            assert_int_equal(renumbered.positions[renumbered.last_rows[i]],
                             run.positions[run.first_rows[i < 2 ? i + 1 : 2]] + (i < 2 ? 0 : 1));
        repeat_apply_positions(&run, REPEAT_POSITIONS_RUN); /* run: as built */
        for (int t = 0; t < run.T; t++) assert_int_equal(run.positions[t], t);
        repeat_free(&run);
        repeat_free(&renumbered);
    }
    /* one copy: nothing to renumber */
    RepeatLayout one;
    SrError err;
    assert_int_equal(repeat_build(SENTENCE, 3, 0, REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, 0, &one, &err), 0);
    repeat_apply_positions(&one, plan);
    for (int t = 0; t < one.T; t++) assert_int_equal(one.positions[t], t);
    repeat_free(&one);
    RepeatPositions back;
    assert_int_equal(repeat_parse_positions(repeat_positions_name(plan), &back), 0);
    assert_int_equal(back, plan);
}

/* Renumbered copies, for every BOS and separator option. Restarted: every
 * copy's tokens (its <sep>, <bos>, words) count from 0 again.
 * Induction-aligned: the first copy as running, every later copy's piece i
 * at the first copy's position of piece i + 1, the last piece one past the
 * first copy's last, the copy's <bos> and <sep> just before (with a <sep>
 * and <bos> none or per copy that is restarting's numbering; in the paper's
 * layout it is restarting moved on by one). Ids and read-out rows as running
 * in both. */
static void test_renumbered_positions(void **state)
{
    (void)state;
    static const PositionsCase cases[] = {
        {REPEAT_BOS_NONE, REPEAT_SEP_NONE, 9, {0, 1, 2, 0, 1, 2, 0, 1, 2}, {0, 1, 2, 1, 2, 3, 1, 2, 3}},
        {REPEAT_BOS_ONCE, REPEAT_SEP_NONE, 10, {0, 1, 2, 3, 0, 1, 2, 0, 1, 2}, {0, 1, 2, 3, 2, 3, 4, 2, 3, 4}},
        {REPEAT_BOS_PER_COPY, REPEAT_SEP_NONE, 12, {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3},
         {0, 1, 2, 3, 1, 2, 3, 4, 1, 2, 3, 4}},
        {REPEAT_BOS_NONE, REPEAT_SEP_TOKEN, 11, {0, 1, 2, 0, 1, 2, 3, 0, 1, 2, 3},
         {0, 1, 2, 0, 1, 2, 3, 0, 1, 2, 3}},
        {REPEAT_BOS_ONCE, REPEAT_SEP_TOKEN, 12, {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3},
         {0, 1, 2, 3, 1, 2, 3, 4, 1, 2, 3, 4}},
        {REPEAT_BOS_PER_COPY, REPEAT_SEP_TOKEN, 14, {0, 1, 2, 3, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4},
         {0, 1, 2, 3, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4}},
    };
    check_positions(REPEAT_POSITIONS_RESTART, cases, sizeof cases / sizeof cases[0]);
    check_positions(REPEAT_POSITIONS_INDUCTION, cases, sizeof cases / sizeof cases[0]);
    assert_string_equal(repeat_positions_name(REPEAT_POSITIONS_RESTART), "restart");
    RepeatPositions p;
    assert_int_equal(repeat_parse_positions("run", &p), 0);
    assert_string_equal(repeat_positions_name(p), "run");
    assert_int_equal(repeat_parse_positions("again", &p), -1);
}

static void test_max_n(void **state)
{
    (void)state;
    for (int bos = 0; bos < 3; bos++)
        for (int sep = 0; sep < 2; sep++)
            for (int r = 0; r <= 8; r++)
                for (int len = 1; len <= 200; len++) {
                    int n = repeat_max_n(len, r, bos, sep);
                    if (n > 0) assert_true(repeat_length(n, r, bos, sep) <= len);
                    assert_true(repeat_length(n + 1, r, bos, sep) > len);
                }
    assert_int_equal(repeat_max_n(512, 4, REPEAT_BOS_NONE, REPEAT_SEP_NONE), 102);
    assert_int_equal(repeat_max_n(512, 4, REPEAT_BOS_PER_COPY, REPEAT_SEP_TOKEN), 100);
    assert_int_equal(repeat_max_n(3, 3, REPEAT_BOS_NONE, REPEAT_SEP_NONE), 0);
    assert_int_equal(repeat_max_n(100, -1, REPEAT_BOS_NONE, REPEAT_SEP_NONE), 0);
}

static void test_names(void **state)
{
    (void)state;
    for (int b = 0; b < 3; b++) {
        RepeatBos got;
        assert_int_equal(repeat_parse_bos(repeat_bos_name(b), &got), 0);
        assert_int_equal(got, b);
    }
    for (int s = 0; s < 2; s++) {
        RepeatSep got;
        assert_int_equal(repeat_parse_sep(repeat_sep_name(s), &got), 0);
        assert_int_equal(got, s);
    }
    RepeatBos b;
    RepeatSep s;
    assert_int_equal(repeat_parse_bos("twice", &b), -1);
    assert_int_equal(repeat_parse_sep("comma", &s), -1);
}

/* Parse text as an r list and compare with expect (n values). */
static void check_r_list(const char *text, const int *expect, int n)
{
    int *values, count;
    SrError err;
    assert_int_equal(repeat_parse_r_list(text, &values, &count, &err), 0);
    assert_int_equal(count, n);
    for (int i = 0; i < n; i++) assert_int_equal(values[i], expect[i]);
    free(values);
}

/* Parse text as an r list, expect failure with a message containing what. */
static void check_r_list_error(const char *text, const char *what)
{
    int *values, count;
    SrError err;
    assert_int_equal(repeat_parse_r_list(text, &values, &count, &err), -1);
    assert_null(values);
    if (!strstr(err.msg, what)) fail_msg("'%s': message '%s' lacks '%s'", text, err.msg, what);
}

static void test_r_list(void **state)
{
    (void)state;
    check_r_list("4", (int[]){4}, 1);
    check_r_list("0..3", (int[]){0, 1, 2, 3}, 4);
    check_r_list("2..2", (int[]){2}, 1);
    check_r_list("0,1,2,4", (int[]){0, 1, 2, 4}, 4);
    check_r_list("0..2,8,16..17", (int[]){0, 1, 2, 8, 16, 17}, 6);
    int *values, count;
    SrError err;
    assert_int_equal(repeat_parse_r_list("0..1023", &values, &count, &err), 0);
    assert_int_equal(count, 1024);
    assert_int_equal(values[1023], 1023);
    free(values);
    check_r_list_error("5..2", "backwards range; write 2..5");
    check_r_list_error("-1", "r must be >= 0, got -1");
    check_r_list_error("0..-3", "r must be >= 0");
    check_r_list_error("", "expected R");
    check_r_list_error("x", "got 'x'");
    check_r_list_error("1,", "expected R");
    check_r_list_error("1..", "expected R");
    check_r_list_error("1;2", "got '1;2'");
    check_r_list_error("0..1024", "more than 1024");
    check_r_list_error("99999999999", "too large");
}


int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_no_specials),
        cmocka_unit_test(test_layout_bos_once),
        cmocka_unit_test(test_layout_bos_per_copy),
        cmocka_unit_test(test_layout_sep),
        cmocka_unit_test(test_layout_per_copy_bos_and_sep),
        cmocka_unit_test(test_layout_invariants),
        cmocka_unit_test(test_layout_without_ids),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_renumbered_positions),
        cmocka_unit_test(test_max_n),
        cmocka_unit_test(test_caller_ids),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_r_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
