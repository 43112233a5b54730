/* test_repo_tasks.c — the RePo task generators: the same examples for the
 * same seed whatever the order, the answer where the example says it is,
 * the evidence at the requested depth, exact lengths, and one clear error
 * per bad spec. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repo/repo_tasks.h"
#include "text/tokenizer.h"

#define MAXT 512

/* Count occurrences of id in ids[lo, hi). */
static int count_id(const int *ids, int lo, int hi, int id)
{
    int n = 0;
    for (int t = lo; t < hi; t++) n += ids[t] == id;
    return n;
}

/* The checks every example of every task must pass: length, <bos>, ids in
 * the vocabulary, targets exactly at the queries, the answer read back from
 * the evidence the example points to. */
static void check_example(const RepoTaskSpec *s, const int *ids, const int *targets,
                          const RepoExample *ex)
{
    int T = s->length;
    assert_int_equal(ids[0], TOK_BOS);
    for (int t = 0; t < T; t++) {
        assert_true(ids[t] >= 0 && ids[t] < REPO_VOCAB_SIZE);
        assert_true(ids[t] != TOK_PAD && ids[t] != TOK_UNK);
    }
    int n_targets = 0;
    for (int t = 0; t < T; t++)
        if (targets[t] >= 0) {
            n_targets++;
            assert_int_equal(ids[t], REPO_TOK_EQ); /* every answer follows a query's "=" */
            assert_true(targets[t] >= REPO_VALUE0 && targets[t] < REPO_ROW0);
            if (t + 1 < T) assert_int_equal(ids[t + 1], targets[t]); /* the answer is inlined */
        }
    assert_int_equal(n_targets, s->n_queries);
    assert_int_equal(ex->n_targets, s->n_queries);
    assert_int_equal(targets[ex->answer_pos], ex->answer);
    if (s->n_queries == 1) assert_int_equal(ex->answer_pos, T - 1);
    /* the evidence lies in the context, before the queries */
    assert_int_equal(ex->context_start, 1);
    assert_true(ex->evidence_start >= 1);
    assert_true(ex->evidence_start + ex->evidence_len <= 1 + ex->context_len);
    int ctx_end = 1 + ex->context_len;
    assert_int_equal(ids[ctx_end], REPO_TOK_QUERY);
    const int *ev = ids + ex->evidence_start;
    if (s->kind == REPO_TASK_TABLE) {
        int row = ids[ex->answer_pos - 2], col = ids[ex->answer_pos - 1] - REPO_COL0;
        assert_int_equal(ex->evidence_len, s->n_cols + 3);
        assert_int_equal(ev[0], row);
        assert_int_equal(ev[1], REPO_TOK_BAR);
        assert_int_equal(ev[2 + s->n_cols], REPO_TOK_SEMI);
        assert_true(col >= 0 && col < s->n_cols);
        assert_int_equal(ev[2 + col], ex->answer);
        assert_int_equal(count_id(ids, 1, ctx_end, row), 1); /* row names are distinct */
        /* the header "| c0 c1 .. ;" comes first, then whole rows up to the queried one */
        int head = 1;
        while (head < ctx_end && ids[head] != REPO_COL0) head++;
        assert_int_equal(ids[head - 1], REPO_TOK_BAR);
        for (int c = 0; c < s->n_cols; c++) assert_int_equal(ids[head + c], REPO_COL0 + c);
        assert_int_equal(ids[head + s->n_cols], REPO_TOK_SEMI);
        int offset = ex->evidence_start - (head + s->n_cols + 1);
        assert_true(offset >= 0 && offset % (s->n_cols + 3) == 0);
        assert_true(offset / (s->n_cols + 3) < s->n_rows);
    } else {
        int key = ids[ex->answer_pos - 1];
        assert_int_equal(ex->evidence_len, 4);
        assert_int_equal(ev[0], key);
        assert_int_equal(ev[1], REPO_TOK_EQ);
        assert_int_equal(ev[2], ex->answer);
        assert_int_equal(ev[3], REPO_TOK_SEMI);
        assert_int_equal(count_id(ids, 1, ctx_end, key), 1); /* the key is unique in the context */
        int n_pairs = count_id(ids, 1, ctx_end, REPO_TOK_EQ);
        assert_int_equal(n_pairs, s->kind == REPO_TASK_NEEDLE ? 1 : s->n_pairs);
        int n_values = 0;
        for (int t = 1; t < ctx_end; t++) n_values += ids[t] >= REPO_VALUE0 && ids[t] < REPO_ROW0;
        if (s->kind == REPO_TASK_KV) assert_int_equal(n_values, s->n_pairs); /* filler is w* only */
    }
    int room = ex->context_len - ex->evidence_len;
    double depth = room > 0 ? (double)(ex->evidence_start - 1) / room : 0.0;
    assert_true(fabs(depth - ex->depth) < 1e-12);
}

static void test_every_example_is_well_formed(void **state)
{
    (void)state;
    int ids[MAXT], targets[MAXT];
    RepoTaskKind kinds[] = {REPO_TASK_KV, REPO_TASK_NEEDLE, REPO_TASK_TABLE};
    int lengths[] = {60, 97, 200};
    for (int k = 0; k < 3; k++)
        for (int li = 0; li < 3; li++)
            for (int q = 1; q <= (kinds[k] == REPO_TASK_NEEDLE ? 1 : 3); q++) {
                RepoTaskSpec s = repo_task_defaults(kinds[k], lengths[li]);
                s.n_queries = q;
                SrError err;
                assert_int_equal(repo_task_check(&s, &err), 0);
                for (long i = 0; i < 60; i++) {
                    RepoExample ex;
                    repo_task_example(&s, 7, i, ids, targets, &ex);
                    check_example(&s, ids, targets, &ex);
                }
            }
}

static void test_same_seed_same_examples_in_any_order(void **state)
{
    (void)state;
    RepoTaskSpec s = repo_task_defaults(REPO_TASK_KV, 80);
    int a[10][80], at[10][80], b[80], bt[80];
    for (int i = 0; i < 10; i++) repo_task_example(&s, 3, i, a[i], at[i], NULL);
    for (int i = 9; i >= 0; i--) { /* backwards, one at a time */
        repo_task_example(&s, 3, i, b, bt, NULL);
        assert_memory_equal(a[i], b, sizeof b);
        assert_memory_equal(at[i], bt, sizeof bt);
    }
    /* another index or another seed gives another example */
    assert_true(memcmp(a[0], a[1], sizeof b) != 0);
    repo_task_example(&s, 4, 0, b, bt, NULL);
    assert_true(memcmp(a[0], b, sizeof b) != 0);
}

static void test_needle_sits_exactly_at_the_depth(void **state)
{
    (void)state;
    int ids[MAXT], targets[MAXT];
    double depths[] = {0.0, 0.25, 0.5, 0.75, 1.0};
    for (int d = 0; d < 5; d++) {
        RepoTaskSpec s = repo_task_defaults(REPO_TASK_NEEDLE, 129);
        s.depth = depths[d];
        for (long i = 0; i < 20; i++) {
            RepoExample ex;
            repo_task_example(&s, 11, i, ids, targets, &ex);
            int ctx = ex.context_len;
            assert_int_equal(ctx, 129 - 1 - 3);
            assert_int_equal(ex.evidence_start - 1, (int)lround(depths[d] * (ctx - 4)));
            assert_true(fabs(ex.depth - depths[d]) <= 0.5 / (ctx - 4) + 1e-12);
            check_example(&s, ids, targets, &ex);
            /* stray values in the haystack (one token in four): the answer is not the only one */
            int stray = 0;
            for (int t = 1; t < 1 + ctx; t++)
                stray += ids[t] >= REPO_VALUE0 && ids[t] < REPO_ROW0 && t != ex.evidence_start + 2;
            assert_true(stray > 10 && stray < 50);
        }
    }
    /* depth 0: the needle right after <bos>; depth 1: right before the query */
    RepoTaskSpec s = repo_task_defaults(REPO_TASK_NEEDLE, 40);
    RepoExample ex;
    s.depth = 0.0;
    repo_task_example(&s, 1, 0, ids, targets, &ex);
    assert_int_equal(ex.evidence_start, 1);
    s.depth = 1.0;
    repo_task_example(&s, 1, 0, ids, targets, &ex);
    assert_int_equal(ex.evidence_start + 4, 40 - 3);
}

static void test_kv_and_table_reach_the_depth(void **state)
{
    (void)state;
    int ids[MAXT], targets[MAXT];
    double depths[] = {0.0, 0.3, 0.5, 0.8, 1.0};
    for (int d = 0; d < 5; d++) {
        RepoTaskSpec kv = repo_task_defaults(REPO_TASK_KV, 200);
        kv.depth = depths[d];
        RepoTaskSpec tb = repo_task_defaults(REPO_TASK_TABLE, 200);
        tb.depth = depths[d];
        for (long i = 0; i < 20; i++) {
            RepoExample ex;
            repo_task_example(&kv, 5, i, ids, targets, &ex);
            /* plenty of filler: the pair starts exactly at the wanted offset */
            assert_int_equal(ex.evidence_start - 1, (int)lround(depths[d] * (ex.context_len - 4)));
            check_example(&kv, ids, targets, &ex);
            repo_task_example(&tb, 5, i, ids, targets, &ex);
            /* a row comes after the header at the earliest */
            int want = (int)lround(depths[d] * (ex.context_len - ex.evidence_len));
            int header = tb.n_cols + 2;
            assert_int_equal(ex.evidence_start - 1, want > header ? want : header);
            check_example(&tb, ids, targets, &ex);
        }
    }
    /* no filler at all: the depth is only approximate, but the example is valid */
    RepoTaskSpec tight = repo_task_defaults(REPO_TASK_KV, 0);
    tight.length = repo_task_min_length(&tight);
    tight.depth = 0.5;
    RepoExample ex;
    repo_task_example(&tight, 5, 0, ids, targets, &ex);
    check_example(&tight, ids, targets, &ex);
    assert_true(fabs(ex.depth - 0.5) < 0.2);
    assert_int_equal((ex.evidence_start - 1) % 4, 0); /* pairs back to back */
}

static void test_random_depth_spreads(void **state)
{
    (void)state;
    int ids[MAXT], targets[MAXT];
    RepoTaskSpec s = repo_task_defaults(REPO_TASK_NEEDLE, 100);
    double lo = 1.0, hi = 0.0;
    for (long i = 0; i < 200; i++) {
        RepoExample ex;
        repo_task_example(&s, 2, i, ids, targets, &ex);
        lo = ex.depth < lo ? ex.depth : lo;
        hi = ex.depth > hi ? ex.depth : hi;
    }
    assert_true(lo < 0.1 && hi > 0.9);
}

/* repo_task_check's message for s contains want. */
static void expect_bad(const RepoTaskSpec *s, const char *want)
{
    SrError err = {{0}};
    assert_int_equal(repo_task_check(s, &err), -1);
    if (!strstr(err.msg, want)) fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
    assert_null(strchr(err.msg, '\n'));
}

static void test_bad_specs_fail_clearly(void **state)
{
    (void)state;
    RepoTaskSpec s = repo_task_defaults(REPO_TASK_KV, 20);
    s.n_pairs = 8;
    expect_bad(&s, "kv length 20 is too short for 8 pairs and 1 query: at least 36 tokens");
    s.length = 36;
    SrError err;
    assert_int_equal(repo_task_check(&s, &err), 0);
    s.length = REPO_TASK_MAX_LENGTH + 1;
    expect_bad(&s, "too long: at most 4096 tokens");
    s.length = 100;
    s.depth = 1.5;
    expect_bad(&s, "depth 1.5 is outside 0..1");
    s.depth = -1.0;
    s.n_pairs = REPO_N_KEYS + 1;
    expect_bad(&s, "kv pairs 65 is outside 1..64");
    s.n_pairs = 2;
    s.n_queries = 3;
    expect_bad(&s, "kv asks 3 queries of 2 pairs");
    RepoTaskSpec n = repo_task_defaults(REPO_TASK_NEEDLE, 100);
    n.n_queries = 2;
    expect_bad(&n, "exactly 1 query");
    n.n_queries = 1;
    n.length = 7;
    expect_bad(&n, "needle length 7 is too short for 1 pair and 1 query: at least 8 tokens");
    RepoTaskSpec t = repo_task_defaults(REPO_TASK_TABLE, 100);
    t.n_cols = 4;
    t.n_rows = REPO_N_ROWS + 1;
    expect_bad(&t, "table rows 33 is outside 1..32");
    t.n_rows = 4;
    t.n_cols = 0;
    expect_bad(&t, "table columns 0 is outside 1..8");
    t.n_cols = 4;
    t.length = 30;
    expect_bad(&t, "table length 30 is too short for 4 rows x 4 columns and 1 queries: at least 39");
    t.length = 39;
    assert_int_equal(repo_task_check(&t, &err), 0);
}

static void test_text_round_trips_through_the_tokenizer(void **state)
{
    (void)state;
    Tokenizer tok;
    SrError err;
    assert_int_equal(repo_task_tokenizer(&tok, &err), 0);
    assert_int_equal(tok.n_words, REPO_VOCAB_SIZE);
    int map[REPO_VOCAB_SIZE];
    assert_int_equal(repo_task_map_vocab(&tok, map), 0);
    for (int id = 0; id < REPO_VOCAB_SIZE; id++) assert_int_equal(map[id], id);
    char word[16];
    repo_task_word(REPO_KEY0 + 12, word, sizeof word);
    assert_string_equal(word, "k12");
    repo_task_word(REPO_TOK_QUERY, word, sizeof word);
    assert_string_equal(word, "?");
    repo_task_word(REPO_FILLER0 + REPO_N_FILLER - 1, word, sizeof word);
    assert_string_equal(word, "w63");

    RepoTaskSpec s = repo_task_defaults(REPO_TASK_TABLE, 70);
    s.n_queries = 2;
    int ids[70], targets[70], back[80];
    repo_task_example(&s, 9, 3, ids, targets, NULL);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    repo_task_write_words(f, ids + 1, 69);
    fclose(f);
    long n = tokenizer_encode(&tok, text, 1, back, 80);
    assert_int_equal(n, 70);
    assert_memory_equal(back, ids, sizeof ids);
    free(text);

    /* a vocabulary that lacks most task words maps them to <unk> */
    const char *small[] = {"<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<mask>", "=", "k3", "v7"};
    Tokenizer other;
    assert_int_equal(tokenizer_from_words(&other, small, 9, 0, &err), 0);
    assert_int_equal(repo_task_map_vocab(&other, map), REPO_VOCAB_SIZE - 9);
    assert_int_equal(map[REPO_TOK_EQ], 6);
    assert_int_equal(map[REPO_KEY0 + 3], 7);
    assert_int_equal(map[REPO_VALUE0 + 7], 8);
    assert_int_equal(map[REPO_VALUE0 + 8], TOK_UNK);
    assert_int_equal(map[TOK_BOS], TOK_BOS);
    tokenizer_free(&other);
    tokenizer_free(&tok);
}

static void test_names_parse(void **state)
{
    (void)state;
    RepoTaskKind k;
    assert_int_equal(repo_task_parse("needle", &k), 0);
    assert_int_equal(k, REPO_TASK_NEEDLE);
    assert_string_equal(repo_task_name(REPO_TASK_TABLE), "table");
    assert_int_equal(repo_task_parse("kvx", &k), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_example_is_well_formed),
        cmocka_unit_test(test_same_seed_same_examples_in_any_order),
        cmocka_unit_test(test_needle_sits_exactly_at_the_depth),
        cmocka_unit_test(test_kv_and_table_reach_the_depth),
        cmocka_unit_test(test_random_depth_spreads),
        cmocka_unit_test(test_bad_specs_fail_clearly),
        cmocka_unit_test(test_text_round_trips_through_the_tokenizer),
        cmocka_unit_test(test_names_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
