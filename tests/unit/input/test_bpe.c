/* test_bpe.c — byte-pair learning (a merge sequence worked out by hand,
 * determinism, sizes, errors) and the subword mode of the tokenizer: greedy
 * longest match, unseen words and characters, the first-piece rule of
 * tokenizer_word_pieces, encode/decode round trips, rebuilding from a list,
 * and the word tokenizer left unchanged. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/corpus.h"
#include "text/bpe.h"
#include "text/tokenizer.h"

/* Fail unless the error message contains `expected`. */
static void assert_error_contains(const SrError *err, const char *expected)
{
    if (!strstr(err->msg, expected)) {
        print_error("error message \"%s\" does not contain \"%s\"\n", err->msg, expected);
        fail();
    }
}

/* "word" repeated n times, space separated, appended to buf. */
static void repeat_word(char *buf, const char *word, int n)
{
    for (int i = 0; i < n; i++) {
        strcat(buf, word);
        strcat(buf, " ");
    }
}

/* The classic small corpus: hug x10, pug x5, pun x12, bun x4, hugs x5. */
static void hug_corpus(char *buf)
{
    buf[0] = '\0';
    repeat_word(buf, "hug", 10);
    repeat_word(buf, "pug", 5);
    repeat_word(buf, "pun", 12);
    repeat_word(buf, "bun", 4);
    repeat_word(buf, "hugs", 5);
}

/* Encode text and compare the pieces with the space-separated `expected`. */
static void assert_pieces(const Tokenizer *tok, const char *text, const char *expected)
{
    int ids[64];
    long n = tokenizer_encode(tok, text, 0, ids, 64);
    assert_true(n <= 64);
    char got[512] = "";
    for (long i = 0; i < n; i++) {
        if (i) strcat(got, " ");
        strcat(got, tokenizer_word(tok, ids[i]));
    }
    if (strcmp(got, expected) != 0) {
        print_error("pieces of \"%s\": got \"%s\", expected \"%s\"\n", text, got, expected);
        fail();
    }
}

/* ---- learning ---------------------------------------------------------------------- */

static void test_learn_worked_example(void **state)
{
    (void)state;
    char text[1024];
    hug_corpus(text);
    char **tokens;
    int n, merges;
    SrError err = {{0}};
    /* 6 specials + 14 character pieces + 3 merges. */
    assert_int_equal(bpe_learn(text, strlen(text), "hug", 23, 0, &tokens, &n, &merges, &err), 0);
    assert_int_equal(n, 23);
    assert_int_equal(merges, 3);
    const char *expected[] = {
        "<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<mask>",
        "##b", "##g", "##h", "##n", "##p", "##s", "##u", "b", "g", "h", "n", "p", "s", "u",
        /* (##u ##g) 20 times, then (##u ##n) 16, then (h ##ug) 15 */
        "##ug", "##un", "hug",
    };
    for (int i = 0; i < n; i++) assert_string_equal(tokens[i], expected[i]);
    bpe_tokens_free(tokens, n);

    /* Merging stops when no pair occurs twice: a large size is not reached. */
    assert_int_equal(bpe_learn(text, strlen(text), "hug", 1000, 0, &tokens, &n, &merges, &err), 0);
    assert_true(n < 1000);
    int has_hugs = 0, has_pun = 0;
    for (int i = 0; i < n; i++) {
        has_hugs |= strcmp(tokens[i], "hugs") == 0;
        has_pun |= strcmp(tokens[i], "pun") == 0;
    }
    assert_true(has_hugs && has_pun); /* frequent words become whole pieces */
    bpe_tokens_free(tokens, n);
}

static void test_learn_is_deterministic(void **state)
{
    (void)state;
    size_t len;
    char *text = corpus_builtin_text(400, 7, &len);
    assert_non_null(text);
    char **a, **b;
    int na, nb;
    SrError err = {{0}};
    assert_int_equal(bpe_learn(text, len, "corpus", 300, 1, &a, &na, NULL, &err), 0);
    assert_int_equal(bpe_learn(text, len, "corpus", 300, 1, &b, &nb, NULL, &err), 0);
    assert_int_equal(na, 300);
    assert_int_equal(nb, na);
    for (int i = 0; i < na; i++) assert_string_equal(a[i], b[i]);
    /* A smaller vocabulary is a prefix of the larger one (merges are made in
     * the same order). */
    char **c;
    int nc;
    assert_int_equal(bpe_learn(text, len, "corpus", 200, 1, &c, &nc, NULL, &err), 0);
    assert_int_equal(nc, 200);
    for (int i = 0; i < nc; i++) assert_string_equal(c[i], a[i]);
    bpe_tokens_free(a, na);
    bpe_tokens_free(b, nb);
    bpe_tokens_free(c, nc);
    free(text);
}

static void test_learn_errors(void **state)
{
    (void)state;
    char **tokens;
    int n;
    SrError err = {{0}};
    assert_int_equal(bpe_learn(" \n\t ", 4, "blank.txt", 100, 0, &tokens, &n, NULL, &err), -1);
    assert_error_contains(&err, "blank.txt: empty corpus (no tokens)");
    char text[1024];
    hug_corpus(text);
    assert_int_equal(bpe_learn(text, strlen(text), "hug.txt", 19, 0, &tokens, &n, NULL, &err), -1);
    assert_error_contains(&err, "hug.txt: vocabulary size 19 cannot hold the 6 special tokens and "
                                "the 14 character pieces of the corpus (need at least 20)");
    assert_null(tokens);
    assert_int_equal(n, 0);
}

/* ---- the subword tokenizer ----------------------------------------------------------- */

static void test_subword_greedy_longest_match(void **state)
{
    (void)state;
    char text[1024];
    hug_corpus(text);
    Tokenizer tok;
    SrError err = {{0}};
    assert_int_equal(tokenizer_build_bpe_from_text(&tok, text, strlen(text), "hug", 23, 0, &err), 0);
    assert_int_equal(tok.subword, 1);
    assert_pieces(&tok, "hug", "hug");
    assert_pieces(&tok, "hugs pun", "hug ##s p ##un");
    /* unseen words still get pieces */
    assert_pieces(&tok, "bug", "b ##ug");
    assert_pieces(&tok, "hugspun", "hug ##s ##p ##un");
    assert_pieces(&tok, "gnu", "g ##n ##u");
    /* punctuation is split as in running text (here never seen: <unk>);
     * unknown characters inside a word are one <unk> each */
    assert_pieces(&tok, "hug, bun!", "hug <unk> b ##un <unk>");
    assert_pieces(&tok, "hzug", "h <unk> ##ug");
    assert_pieces(&tok, "h\xC3\xA9g", "h <unk> ##g"); /* one <unk> for the 2-byte character */
    tokenizer_free(&tok);
}

static void test_subword_word_pieces_first_piece(void **state)
{
    (void)state;
    char text[1024];
    hug_corpus(text);
    strcat(text, "U . S . U . S .");
    Tokenizer tok;
    SrError err = {{0}};
    assert_int_equal(tokenizer_build_bpe_from_text(&tok, text, strlen(text), "hug", 40, 0, &err), 0);
    assert_int_equal(tok.n_words, 6 + 19 + 7); /* merging stopped before 40 */
    int ids[16];
    /* merges: ##ug ##un hug pun hugs pug bun; an unseen word is cut and its
     * label goes on the first piece */
    int n = tokenizer_word_pieces(&tok, "hugspun", ids, 16);
    assert_int_equal(n, 3);
    assert_string_equal(tokenizer_word(&tok, ids[0]), "hugs");
    assert_string_equal(tokenizer_word(&tok, ids[1]), "##p");
    assert_string_equal(tokenizer_word(&tok, ids[2]), "##un");
    /* a CoNLL word with punctuation is split like running text first */
    n = tokenizer_word_pieces(&tok, "U.S.", ids, 16);
    assert_int_equal(n, 4);
    assert_string_equal(tokenizer_word(&tok, ids[0]), "U");
    assert_string_equal(tokenizer_word(&tok, ids[1]), ".");
    /* only max_ids are written, the count is still returned */
    ids[1] = -7;
    assert_int_equal(tokenizer_word_pieces(&tok, "hugspun", ids, 1), 3);
    assert_int_equal(ids[1], -7);
    assert_int_equal(tokenizer_word_pieces(&tok, "hugspun", NULL, 0), 3);
    /* a word that yields no token at all is one <unk> */
    assert_int_equal(tokenizer_word_pieces(&tok, "", ids, 16), 1);
    assert_int_equal(ids[0], TOK_UNK);
    assert_int_equal(tokenizer_word_pieces(&tok, " \t", ids, 16), 1);
    assert_int_equal(ids[0], TOK_UNK);
    tokenizer_free(&tok);
}

static void test_word_pieces_word_mode(void **state)
{
    (void)state;
    const char *text = "the U.S. said no";
    Tokenizer tok;
    SrError err = {{0}};
    assert_int_equal(tokenizer_build_from_text(&tok, text, strlen(text), "t", 1, 0, 0, &err), 0);
    assert_int_equal(tok.subword, 0);
    int ids[8];
    assert_int_equal(tokenizer_word_pieces(&tok, "U.S.", ids, 8), 4);
    assert_string_equal(tokenizer_word(&tok, ids[0]), "U");
    assert_int_equal(tokenizer_word_pieces(&tok, "said", ids, 8), 1);
    assert_string_equal(tokenizer_word(&tok, ids[0]), "said");
    assert_int_equal(tokenizer_word_pieces(&tok, "unseen", ids, 8), 1);
    assert_int_equal(ids[0], TOK_UNK);
    /* the word tokenizer is unchanged: whole words, no "##" joining */
    assert_int_equal(tokenizer_encode(&tok, "saidno", 0, ids, 8), 1);
    assert_int_equal(ids[0], TOK_UNK);
    tokenizer_free(&tok);
}

static void test_subword_round_trip(void **state)
{
    (void)state;
    size_t len;
    char *text = corpus_builtin_text(300, 3, &len);
    assert_non_null(text);
    Tokenizer tok;
    SrError err = {{0}};
    assert_int_equal(tokenizer_build_bpe_from_text(&tok, text, len, "corpus", 150, 1, &err), 0);
    /* Every line of the corpus comes back word for word (lower-cased, single
     * spaces), although most words are cut into several pieces. */
    long total_words = 0, total_pieces = 0;
    const char *line = text;
    for (int k = 0; k < 50; k++) {
        const char *end = strchr(line, '\n');
        assert_non_null(end);
        char buf[1024], expected[1024] = "";
        size_t n = (size_t)(end - line);
        assert_true(n < sizeof buf);
        memcpy(buf, line, n);
        buf[n] = '\0';
        size_t pos = 0, start, tlen;
        while (text_next_token(buf, n, &pos, &start, &tlen)) {
            if (expected[0]) strcat(expected, " ");
            strncat(expected, buf + start, tlen);
            total_words++;
        }
        for (char *p = expected; *p; p++)
            if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
        int ids[512];
        long n_ids = tokenizer_encode(&tok, buf, 0, ids, 512);
        assert_true(n_ids <= 512);
        total_pieces += n_ids;
        for (long i = 0; i < n_ids; i++) assert_int_not_equal(ids[i], TOK_UNK);
        char *back = tokenizer_decode(&tok, ids, n_ids, TOKENIZER_DECODE_PLAIN);
        assert_non_null(back);
        assert_string_equal(back, expected);
        free(back);
        line = end + 1;
    }
    assert_true(total_pieces > total_words); /* the vocabulary is small: words are cut */
    tokenizer_free(&tok);
    free(text);
}

static void test_subword_from_list_and_lines(void **state)
{
    (void)state;
    char text[1024];
    hug_corpus(text);
    Tokenizer learned, loaded;
    SrError err = {{0}};
    assert_int_equal(tokenizer_build_bpe_from_text(&learned, text, strlen(text), "hug", 23, 0, &err),
                     0);
    /* What a checkpoint does: store the list, rebuild, set the flag. */
    assert_int_equal(tokenizer_from_words(&loaded, (const char *const *)learned.words,
                                          learned.n_words, 0, &err), 0);
    assert_int_equal(loaded.subword, 0);
    assert_pieces(&loaded, "hugs", "<unk>"); /* word mode: "hugs" is not a whole entry */
    tokenizer_set_subword(&loaded, 1);
    assert_pieces(&loaded, "hugs", "hug ##s");

    /* encode_lines counts the <unk> pieces */
    const char lines[] = "hugs bun\n\nh\xE2\x82\xACg pug\n";
    EncodedText e;
    assert_int_equal(tokenizer_encode_lines(&loaded, lines, sizeof lines - 1, "l", TOK_EOS, &e, &err),
                     0);
    assert_int_equal(e.n_lines, 2);
    assert_int_equal(e.n_unk, 1);
    /* hug ##s b ##un <eos> | h <unk> ##g p ##ug <eos> */
    assert_int_equal(e.n_ids, 11);
    assert_int_equal(e.line_start[1], 5);
    assert_int_equal(e.ids[6], TOK_UNK);
    char *back = tokenizer_decode(&loaded, e.ids, e.n_ids, TOKENIZER_DECODE_SKIP_SPECIAL);
    assert_string_equal(back, "hugs bun h <unk>g pug");
    free(back);
    encoded_text_free(&e);

    /* a very long word: 300 pieces, all kept in order */
    char long_line[400];
    memset(long_line, 'g', 300);
    strcpy(long_line + 300, " bun\n");
    assert_int_equal(tokenizer_encode_lines(&loaded, long_line, strlen(long_line), "l", TOK_EOS, &e,
                                            &err), 0);
    assert_int_equal(e.n_ids, 300 + 2 + 1);
    assert_string_equal(tokenizer_word(&loaded, e.ids[0]), "g");
    for (int i = 1; i < 300; i++) assert_string_equal(tokenizer_word(&loaded, e.ids[i]), "##g");
    assert_string_equal(tokenizer_word(&loaded, e.ids[300]), "b");
    assert_int_equal(e.ids[302], TOK_EOS);
    encoded_text_free(&e);
    tokenizer_free(&learned);
    tokenizer_free(&loaded);
}

static void test_subword_from_file(void **state)
{
    (void)state;
    char path[] = "/tmp/seqrep_test_bpe_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    char text[1024];
    hug_corpus(text);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    Tokenizer tok;
    SrError err = {{0}};
    assert_int_equal(tokenizer_build_bpe_from_file(&tok, path, 23, 0, &err), 0);
    assert_int_equal(tok.n_words, 23);
    assert_pieces(&tok, "hugs", "hug ##s");
    EncodedText e;
    assert_int_equal(tokenizer_encode_file(&tok, path, TOK_EOS, &e, &err), 0);
    assert_int_equal(e.n_unk, 0);
    encoded_text_free(&e);
    tokenizer_free(&tok);
    remove(path);
    assert_int_equal(tokenizer_build_bpe_from_file(&tok, path, 23, 0, &err), -1);
    assert_error_contains(&err, "cannot open");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_learn_worked_example),
        cmocka_unit_test(test_learn_is_deterministic),
        cmocka_unit_test(test_learn_errors),
        cmocka_unit_test(test_subword_greedy_longest_match),
        cmocka_unit_test(test_subword_word_pieces_first_piece),
        cmocka_unit_test(test_word_pieces_word_mode),
        cmocka_unit_test(test_subword_round_trip),
        cmocka_unit_test(test_subword_from_list_and_lines),
        cmocka_unit_test(test_subword_from_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
