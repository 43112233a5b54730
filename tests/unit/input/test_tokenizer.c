/* test_tokenizer.c — splitting, vocabulary building, the vocabulary file
 * (round trip and every rejection with its file:line), lookup, encoding,
 * decoding, corpus files with a BOM and CRLF, and empty corpora. */
#include "test_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/text_file.h"
#include "text/tokenizer.h"

/* ---- helpers ------------------------------------------------------------------- */

static char temp_dir[64];

/* Make a private temporary directory for the files of this run. */
static int make_temp_dir(void **state)
{
    (void)state;
    strcpy(temp_dir, "/tmp/seqrep_test_tokenizer_XXXXXX");
    return mkdtemp(temp_dir) ? 0 : -1;
}

/* Remove the temporary directory and whatever the tests left in it. */
static int remove_temp_dir(void **state)
{
    (void)state;
    DIR *d = opendir(temp_dir);
    if (d) {
        struct dirent *e;
        char path[512];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            snprintf(path, sizeof path, "%s/%s", temp_dir, e->d_name);
            remove(path);
        }
        closedir(d);
    }
    return rmdir(temp_dir);
}

/* Full path of a file in the temporary directory (static buffer per slot). */
static const char *temp_path(const char *name)
{
    static char paths[4][512];
    static int next = 0;
    char *p = paths[next++ % 4];
    snprintf(p, 512, "%s/%s", temp_dir, name);
    return p;
}

/* Write len bytes to a file. */
static void write_bytes(const char *path, const char *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* Write a NUL-terminated string to a file. */
static void write_text(const char *path, const char *text)
{
    write_bytes(path, text, strlen(text));
}

/* Fail unless the error message contains `expected`. */
static void assert_error_contains(const SrError *err, const char *expected)
{
    if (!strstr(err->msg, expected)) {
        print_error("error message \"%s\" does not contain \"%s\"\n", err->msg, expected);
        fail();
    }
}

/* Split text and compare the tokens with expected[0..n). */
static void assert_split(const char *text, const char *const *expected, int n)
{
    size_t len = strlen(text), pos = 0, start, tlen;
    int i = 0;
    while (text_next_token(text, len, &pos, &start, &tlen)) {
        if (i >= n) {
            print_error("extra token '%.*s' in \"%s\"\n", (int)tlen, text + start, text);
            fail();
        }
        if (tlen != strlen(expected[i]) || memcmp(text + start, expected[i], tlen) != 0) {
            print_error("token %d of \"%s\": got '%.*s', expected '%s'\n", i, text, (int)tlen,
                        text + start, expected[i]);
            fail();
        }
        i++;
    }
    assert_int_equal(i, n);
    assert_int_equal(pos, len);
}

/* A vocabulary file's six special lines. */
#define SPECIAL_LINES "<pad>\n<unk>\n<bos>\n<eos>\n<sep>\n<mask>\n"

/* ---- splitting ------------------------------------------------------------------ */

static void test_split_punctuation_and_apostrophes(void **state)
{
    (void)state;
    const char *a[] = {"don", "'", "t", "."};
    assert_split("don't.", a, 4);
    const char *b[] = {"Hello", ",", "world", "!", "!"};
    assert_split("Hello, world!!", b, 5);
    const char *c[] = {"(", "a", "+", "b", ")", "*", "c", "=", "3", ".", "14"};
    assert_split("(a+b)*c=3.14", c, 11);
    const char *d[] = {"mara", "'", "s", "well", "-", "known", "\"", "map", "\"", "?"};
    assert_split("mara's well-known \"map\"?", d, 10);
    const char *e[] = {"_", "x", "_", "#", "1", "@", "~", "`", "|", "\\", "^", "{", "}"};
    assert_split("_x_#1@~`|\\^{}", e, 13);
}

static void test_split_white_space(void **state)
{
    (void)state;
    const char *a[] = {"a", "b", "c", "d"};
    assert_split("   a  \t\t b\n\n c \r\n d\t", a, 4);
    assert_split("", NULL, 0);
    assert_split(" \t\r\n\v\f ", NULL, 0);
    const char *b[] = {"x", "y"};
    assert_split("x\x01y", b, 2); /* control bytes separate like white space */
    const char *c[] = {"word42", "x9"};
    assert_split("word42 x9", c, 2);
}

static void test_split_utf8_words(void **state)
{
    (void)state;
    /* é = C3 A9, ï = C3 AF, — = E2 80 94, 日本語 = 3 x 3 bytes */
    const char *a[] = {"caf\xC3\xA9", "na\xC3\xAFve\xE2\x80\x94ok",
                       "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E", "."};
    assert_split("caf\xC3\xA9 na\xC3\xAFve\xE2\x80\x94ok "
                 "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E.",
                 a, 4);
    const char *b[] = {"\xC3\xA9", "'", "t\xC3\xA9"};
    assert_split("\xC3\xA9't\xC3\xA9", b, 3);
}

/* ---- vocabulary building -------------------------------------------------------- */

static void test_build_order_and_specials(void **state)
{
    (void)state;
    Tokenizer tok;
    SrError err;
    const char *text = "b a c b c c d";
    assert_int_equal(tokenizer_build_from_text(&tok, text, strlen(text), "t", 1, 0, 0, &err), 0);
    assert_int_equal(tok.n_words, TOK_N_SPECIAL + 4);
    const char *expected[] = {"<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<mask>",
                              "c", "b", "a", "d"};
    for (int i = 0; i < tok.n_words; i++) assert_string_equal(tokenizer_word(&tok, i), expected[i]);
    assert_int_equal(TOK_PAD, 0);
    assert_int_equal(TOK_MASK, 5);
    assert_string_equal(tokenizer_special_name(TOK_EOS), "<eos>");
    assert_null(tokenizer_special_name(6));
    assert_null(tokenizer_word(&tok, -1));
    assert_null(tokenizer_word(&tok, tok.n_words));
    tokenizer_free(&tok);
    tokenizer_free(&tok); /* safe twice */
}

static void test_build_ties_are_bytewise(void **state)
{
    (void)state;
    Tokenizer tok;
    SrError err;
    /* all count 1: byte order puts digits < upper case < lower case < UTF-8 */
    const char *text = "zebra \xC3\xA9t\xC3\xA9 apple Zebra 42 apple";
    assert_int_equal(tokenizer_build_from_text(&tok, text, strlen(text), "t", 1, 0, 0, &err), 0);
    const char *expected[] = {"apple", "42", "Zebra", "zebra", "\xC3\xA9t\xC3\xA9"};
    assert_int_equal(tok.n_words, TOK_N_SPECIAL + 5);
    for (int i = 0; i < 5; i++) assert_string_equal(tok.words[TOK_N_SPECIAL + i], expected[i]);
    tokenizer_free(&tok);
}

static void test_build_min_count_and_max_vocab(void **state)
{
    (void)state;
    Tokenizer tok;
    SrError err;
    const char *text = "b a c b c c d . . . .";
    size_t len = strlen(text);

    assert_int_equal(tokenizer_build_from_text(&tok, text, len, "t", 2, 0, 0, &err), 0);
    assert_int_equal(tok.n_words, TOK_N_SPECIAL + 3); /* . c b */
    assert_string_equal(tok.words[6], ".");
    assert_string_equal(tok.words[7], "c");
    assert_string_equal(tok.words[8], "b");
    assert_int_equal(tokenizer_word_id(&tok, "a"), TOK_UNK);
    tokenizer_free(&tok);

    assert_int_equal(tokenizer_build_from_text(&tok, text, len, "t", 1, 8, 0, &err), 0);
    assert_int_equal(tok.n_words, 8); /* max_vocab counts the specials */
    assert_string_equal(tok.words[7], "c");
    tokenizer_free(&tok);

    assert_int_equal(tokenizer_build_from_text(&tok, text, len, "t", 1, 7, 0, &err), 0);
    assert_int_equal(tok.n_words, 7);
    tokenizer_free(&tok);

    assert_int_equal(tokenizer_build_from_text(&tok, text, len, "t", 1, 6, 0, &err), -1);
    assert_error_contains(&err, "t: max_vocab");
    assert_int_equal(tokenizer_build_from_text(&tok, text, len, "t", 0, 0, 0, &err), -1);
    assert_error_contains(&err, "t: min_count must be >= 1");
    assert_int_equal(tokenizer_build_from_text(&tok, text, len, "t", 5, 0, 0, &err), -1);
    assert_error_contains(&err, "t: no token occurs at least min_count=5 times");
    assert_null(tok.words);
}

static void test_build_lowercasing(void **state)
{
    (void)state;
    Tokenizer tok;
    SrError err;
    const char *text = "The the THE cat \xC3\x89t\xC3\xA9";
    assert_int_equal(tokenizer_build_from_text(&tok, text, strlen(text), "t", 1, 0, 1, &err), 0);
    assert_int_equal(tok.n_words, TOK_N_SPECIAL + 3);
    assert_string_equal(tok.words[6], "the");
    assert_string_equal(tok.words[7], "cat");
    assert_string_equal(tok.words[8], "\xC3\x89t\xC3\xA9"); /* UTF-8 letters are not folded */
    assert_int_equal(tokenizer_word_id(&tok, "ThE"), 6);
    assert_int_equal(tokenizer_word_id(&tok, "CAT"), 7);
    assert_int_equal(tokenizer_lookup(&tok, "Cathedral", 3), 7);
    tokenizer_free(&tok);

    assert_int_equal(tokenizer_build_from_text(&tok, text, strlen(text), "t", 1, 0, 0, &err), 0);
    assert_int_equal(tok.n_words, TOK_N_SPECIAL + 5);
    assert_int_equal(tokenizer_lookup(&tok, "ThE", 3), -1);
    assert_true(tokenizer_lookup(&tok, "THE", 3) >= TOK_N_SPECIAL);
    assert_true(tokenizer_lookup(&tok, "The", 3) != tokenizer_lookup(&tok, "the", 3));
    tokenizer_free(&tok);
}

/* Thousands of words: every one is found at its id (table growth, probing). */
static void test_lookup_many_words(void **state)
{
    (void)state;
    enum { N = 5000 };
    char *text = malloc(N * 8);
    assert_non_null(text);
    size_t len = 0;
    for (int i = 0; i < N; i++) len += (size_t)sprintf(text + len, "w%d ", i);
    Tokenizer tok;
    SrError err;
    assert_int_equal(tokenizer_build_from_text(&tok, text, len, "t", 1, 0, 0, &err), 0);
    assert_int_equal(tok.n_words, TOK_N_SPECIAL + N);
    for (int id = 0; id < tok.n_words; id++) {
        const char *w = tokenizer_word(&tok, id);
        assert_int_equal(tokenizer_lookup(&tok, w, strlen(w)), id);
    }
    assert_int_equal(tokenizer_lookup(&tok, "w5000", 5), -1);
    assert_int_equal(tokenizer_lookup(&tok, "w1", 1), -1); /* a prefix is not a match */
    assert_int_equal(tokenizer_lookup(&tok, "", 0), -1);
    tokenizer_free(&tok);
    free(text);
}

/* ---- the vocabulary file -------------------------------------------------------- */

static void test_save_load_round_trip(void **state)
{
    (void)state;
    Tokenizer tok, back;
    SrError err;
    const char *text = "the cat sat on the mat . the end \xC3\xA9t\xC3\xA9 !";
    assert_int_equal(tokenizer_build_from_text(&tok, text, strlen(text), "t", 1, 0, 1, &err), 0);
    const char *path = temp_path("vocab.txt");
    assert_int_equal(tokenizer_save(&tok, path, &err), 0);

    char *saved;
    size_t len;
    assert_int_equal(text_read_file(path, &saved, &len, &err), 0);
    assert_string_equal(saved,
                        SPECIAL_LINES "the\n!\n.\ncat\nend\nmat\non\nsat\n\xC3\xA9t\xC3\xA9\n");
    free(saved);

    assert_int_equal(tokenizer_load(&back, path, 1, &err), 0);
    assert_int_equal(back.n_words, tok.n_words);
    assert_int_equal(back.lowercase, 1);
    for (int i = 0; i < tok.n_words; i++) {
        assert_string_equal(back.words[i], tok.words[i]);
        assert_int_equal(tokenizer_word_id(&back, tok.words[i]), i);
    }
    assert_int_equal(tokenizer_word_id(&back, "THE"), 6);
    tokenizer_free(&back);

    /* the write is atomic: no temporary file stays behind */
    DIR *d = opendir(temp_dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) assert_null(strstr(e->d_name, ".tmp."));
    closedir(d);

    /* an unwritable place is reported with the path */
    assert_int_equal(tokenizer_save(&tok, "/nonexistent-dir/vocab.txt", &err), -1);
    assert_error_contains(&err, "/nonexistent-dir/vocab.txt: cannot write");
    tokenizer_free(&tok);
}

static void test_load_accepts_crlf_and_bom(void **state)
{
    (void)state;
    Tokenizer tok;
    SrError err;
    const char *path = temp_path("crlf_vocab.txt");
    write_text(path,
               "\xEF\xBB\xBF<pad>\r\n<unk>\r\n<bos>\r\n<eos>\r\n<sep>\r\n<mask>\r\nthe\r\ncat");
    assert_int_equal(tokenizer_load(&tok, path, 0, &err), 0);
    assert_int_equal(tok.n_words, 8);
    assert_string_equal(tok.words[0], "<pad>");
    assert_string_equal(tok.words[6], "the");
    assert_string_equal(tok.words[7], "cat"); /* last line without a newline */
    assert_int_equal(tokenizer_word_id(&tok, "cat"), 7);
    tokenizer_free(&tok);
}

/* Write contents to vocab.txt, expect loading to fail with `expected`. */
static void assert_bad_vocab(const char *contents, const char *expected)
{
    Tokenizer tok;
    SrError err = {{0}};
    const char *path = temp_path("vocab.txt");
    write_text(path, contents);
    assert_int_equal(tokenizer_load(&tok, path, 0, &err), -1);
    assert_error_contains(&err, expected);
    assert_non_null(strstr(err.msg, temp_dir)); /* the full path is named */
    assert_null(strchr(err.msg, '\n'));          /* one line */
    assert_null(tok.words);
}

static void test_load_rejects_bad_files(void **state)
{
    (void)state;
    assert_bad_vocab(SPECIAL_LINES "the\ncat\nthe\n",
                     "vocab.txt:9: duplicate token 'the' (first on line 7)");
    assert_bad_vocab(SPECIAL_LINES "the\n\ncat\n", "vocab.txt:8: empty token");
    assert_bad_vocab(SPECIAL_LINES "the\ncat\n\n", "vocab.txt:9: empty token");
    assert_bad_vocab(SPECIAL_LINES "a b\n", "vocab.txt:7: token contains white space");
    assert_bad_vocab(SPECIAL_LINES "the\n cat\n", "vocab.txt:8: token contains white space");
    assert_bad_vocab(SPECIAL_LINES "tab\there\n", "vocab.txt:7: token contains white space");
    assert_bad_vocab(SPECIAL_LINES "the \r\n", "vocab.txt:7: token contains white space");
    assert_bad_vocab("<pad>\n<bos>\n<unk>\n<eos>\n<sep>\n<mask>\n",
                     "vocab.txt:2: expected special token '<unk>', found '<bos>'");
    assert_bad_vocab("the\n", "vocab.txt:1: expected special token '<pad>', found 'the'");
    assert_bad_vocab("<pad>\n<unk>\n<bos>\n",
                     "vocab.txt:4: expected special token '<eos>', found end of file");
    assert_bad_vocab("", "vocab.txt:1: expected special token '<pad>', found end of file");
    assert_bad_vocab(SPECIAL_LINES "<unk>\n",
                     "vocab.txt:7: duplicate token '<unk>' (first on line 2)");

    Tokenizer tok;
    SrError err;
    assert_int_equal(tokenizer_load(&tok, temp_path("missing.txt"), 0, &err), -1);
    assert_error_contains(&err, "missing.txt: cannot open");
}

static void test_from_words(void **state)
{
    (void)state;
    Tokenizer tok;
    SrError err;
    const char *good[] = {"<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<mask>", "the", "cat", "."};
    assert_int_equal(tokenizer_from_words(&tok, good, 9, 1, &err), 0);
    assert_int_equal(tok.n_words, 9);
    assert_int_equal(tok.lowercase, 1);
    assert_int_equal(tokenizer_word_id(&tok, "Cat"), 7);
    assert_int_equal(tokenizer_word_id(&tok, "."), 8);
    tokenizer_free(&tok);

    const char *dup[] = {"<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<mask>", "the", "the"};
    assert_int_equal(tokenizer_from_words(&tok, dup, 8, 0, &err), -1);
    assert_error_contains(&err, "vocabulary entry 7: duplicate token 'the' (first at entry 6)");
    assert_int_equal(tokenizer_from_words_in(&tok, dup, 8, 0, "run/model.st", &err), -1);
    assert_error_contains(&err, "run/model.st: vocabulary entry 7: duplicate token 'the'");

    const char *empty[] = {"<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<mask>", ""};
    assert_int_equal(tokenizer_from_words(&tok, empty, 7, 0, &err), -1);
    assert_error_contains(&err, "vocabulary entry 6: empty token");

    const char *spaced[] = {"<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<mask>", "new\nline"};
    assert_int_equal(tokenizer_from_words(&tok, spaced, 7, 0, &err), -1);
    assert_error_contains(
        &err, "vocabulary entry 6: token contains white space or a control byte: 'new?line'");

    const char *missing_null[] = {"<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<mask>", NULL};
    assert_int_equal(tokenizer_from_words(&tok, missing_null, 7, 0, &err), -1);
    assert_error_contains(&err, "vocabulary entry 6: missing token");

    assert_int_equal(tokenizer_from_words(&tok, good, 2, 0, &err), -1);
    assert_error_contains(&err,
                          "vocabulary entry 2: expected special token '<bos>', found end of list");

    assert_int_equal(tokenizer_from_words(&tok, good, -1, 0, &err), -1);
    assert_error_contains(&err, "vocabulary: negative vocabulary size -1");

    /* only the specials is a valid (if useless) vocabulary */
    assert_int_equal(tokenizer_from_words(&tok, good, 6, 0, &err), 0);
    assert_int_equal(tokenizer_word_id(&tok, "the"), TOK_UNK);
    tokenizer_free(&tok);
}

/* ---- encoding and decoding ------------------------------------------------------- */

static void test_encode_decode_round_trip(void **state)
{
    (void)state;
    Tokenizer tok;
    SrError err;
    const char *text = "the cat sat on the mat .";
    assert_int_equal(tokenizer_build_from_text(&tok, text, strlen(text), "t", 1, 0, 0, &err), 0);

    int ids[16];
    long n = tokenizer_encode(&tok, text, 1, ids, 16);
    assert_int_equal(n, 8);
    assert_int_equal(ids[0], TOK_BOS);
    assert_int_equal(ids[1], tokenizer_word_id(&tok, "the"));
    assert_int_equal(ids[5], ids[1]);
    assert_int_equal(ids[7], tokenizer_word_id(&tok, "."));

    char *plain = tokenizer_decode(&tok, ids, n, TOKENIZER_DECODE_PLAIN);
    assert_string_equal(plain, "<bos> the cat sat on the mat .");
    free(plain);
    char *bare = tokenizer_decode(&tok, ids, n, TOKENIZER_DECODE_SKIP_SPECIAL);
    assert_string_equal(bare, text);
    free(bare);
    char *pretty = tokenizer_decode(&tok, ids, n,
                                    TOKENIZER_DECODE_PRETTY | TOKENIZER_DECODE_SKIP_SPECIAL);
    assert_string_equal(pretty, "the cat sat on the mat.");

    /* the pretty text encodes back to the same ids */
    int again[16];
    assert_int_equal(tokenizer_encode(&tok, pretty, 1, again, 16), n);
    assert_memory_equal(again, ids, (size_t)n * sizeof(int));
    free(pretty);

    /* asking for the size first: only max_ids are written */
    int few[3] = {-7, -7, -7};
    assert_int_equal(tokenizer_encode(&tok, text, 0, few, 2), 7);
    assert_int_equal(few[0], ids[1]);
    assert_int_equal(few[1], ids[2]);
    assert_int_equal(few[2], -7);
    assert_int_equal(tokenizer_encode(&tok, text, 1, NULL, 0), 8);
    assert_int_equal(tokenizer_encode(&tok, "   ", 0, NULL, 0), 0);
    tokenizer_free(&tok);
}

static void test_unknown_words_pad_and_bad_ids(void **state)
{
    (void)state;
    Tokenizer tok;
    SrError err;
    const char *text = "a b c";
    assert_int_equal(tokenizer_build_from_text(&tok, text, strlen(text), "t", 1, 0, 0, &err), 0);
    int ids[8];
    assert_int_equal(tokenizer_encode(&tok, "a zebra c A", 0, ids, 8), 4);
    assert_int_equal(ids[0], tokenizer_word_id(&tok, "a"));
    assert_int_equal(ids[1], TOK_UNK);
    assert_int_equal(ids[3], TOK_UNK); /* case-sensitive tokenizer */

    int with_pad[] = {TOK_PAD, ids[0], TOK_UNK, TOK_PAD, 9999, -3, TOK_EOS, TOK_PAD};
    char *s = tokenizer_decode(&tok, with_pad, 8, TOKENIZER_DECODE_PLAIN);
    assert_string_equal(s, "a <unk> <unk> <unk> <eos>");
    free(s);
    s = tokenizer_decode(&tok, with_pad, 8, TOKENIZER_DECODE_SKIP_SPECIAL);
    assert_string_equal(s, "a <unk> <unk> <unk>");
    free(s);
    s = tokenizer_decode(&tok, with_pad, 0, TOKENIZER_DECODE_PLAIN);
    assert_string_equal(s, "");
    free(s);
    tokenizer_free(&tok);
}

static void test_pretty_decode(void **state)
{
    (void)state;
    Tokenizer tok;
    SrError err;
    const char *text = "don ' t stop , ( she said ) ! is it 50 % ; ok : well - known $ 5 ?";
    assert_int_equal(tokenizer_build_from_text(&tok, text, strlen(text), "t", 1, 0, 0, &err), 0);
    int ids[64];
    long n = tokenizer_encode(&tok, text, 0, ids, 64);
    assert_int_equal(n, 23);
    char *s = tokenizer_decode(&tok, ids, n, TOKENIZER_DECODE_PRETTY);
    assert_string_equal(s, "don't stop, (she said)! is it 50%; ok: well-known $5?");
    int again[64];
    assert_int_equal(tokenizer_encode(&tok, s, 0, again, 64), n);
    assert_memory_equal(again, ids, (size_t)n * sizeof(int));
    free(s);
    tokenizer_free(&tok);
}

static void test_encode_lines_separators(void **state)
{
    (void)state;
    Tokenizer tok;
    SrError err;
    const char *text = "a b\n\n   \nc\nb zz a";
    assert_int_equal(tokenizer_build_from_text(&tok, "a b c", 5, "t", 1, 0, 0, &err), 0);
    int a = tokenizer_word_id(&tok, "a"), b = tokenizer_word_id(&tok, "b"),
        c = tokenizer_word_id(&tok, "c");

    EncodedText e;
    assert_int_equal(tokenizer_encode_lines(&tok, text, strlen(text), "t", TOK_EOS, &e, &err), 0);
    int expect_eos[] = {a, b, TOK_EOS, c, TOK_EOS, b, TOK_UNK, a, TOK_EOS};
    assert_int_equal(e.n_ids, 9);
    assert_memory_equal(e.ids, expect_eos, sizeof expect_eos);
    assert_int_equal(e.n_lines, 3); /* the blank lines are skipped */
    long starts_eos[] = {0, 3, 5, 9};
    assert_memory_equal(e.line_start, starts_eos, sizeof starts_eos);
    assert_int_equal(e.n_unk, 1);
    encoded_text_free(&e);

    assert_int_equal(tokenizer_encode_lines(&tok, text, strlen(text), "t", TOK_BOS, &e, &err), 0);
    int expect_bos[] = {TOK_BOS, a, b, TOK_BOS, c, TOK_BOS, b, TOK_UNK, a};
    assert_int_equal(e.n_ids, 9);
    assert_memory_equal(e.ids, expect_bos, sizeof expect_bos);
    long starts_bos[] = {0, 3, 5, 9};
    assert_memory_equal(e.line_start, starts_bos, sizeof starts_bos);
    encoded_text_free(&e);
    encoded_text_free(&e); /* safe twice */

    assert_int_equal(tokenizer_encode_lines(&tok, text, strlen(text), "t", TOK_MASK, &e, &err), -1);
    assert_error_contains(&err, "t: line separator must be <bos>, <eos> or <sep>");
    tokenizer_free(&tok);
}

/* ---- corpus files ------------------------------------------------------------------ */

static void test_corpus_file_bom_and_crlf(void **state)
{
    (void)state;
    Tokenizer tok;
    SrError err;
    const char *path = temp_path("corpus_crlf.txt");
    write_text(path, "\xEF\xBB\xBFHello world\r\nsecond line.\r\n\r\nHello again\r\n");

    assert_int_equal(tokenizer_build_from_file(&tok, path, 1, 0, 1, &err), 0);
    for (int i = 0; i < tok.n_words; i++) {
        assert_null(strchr(tok.words[i], '\r'));
        assert_null(strstr(tok.words[i], "\xEF\xBB\xBF"));
    }
    assert_string_equal(tok.words[6], "hello"); /* count 2, BOM gone */
    int hello = 6;

    EncodedText e;
    assert_int_equal(tokenizer_encode_file(&tok, path, TOK_EOS, &e, &err), 0);
    assert_int_equal(e.n_lines, 3);
    assert_int_equal(e.n_ids, 10);
    assert_int_equal(e.n_unk, 0);
    assert_int_equal(e.ids[0], hello);
    assert_int_equal(e.ids[2], TOK_EOS);
    assert_int_equal(e.ids[6], TOK_EOS);
    assert_int_equal(e.ids[7], hello);
    char *s = tokenizer_decode(&tok, e.ids, e.n_ids, TOKENIZER_DECODE_PLAIN);
    assert_string_equal(s, "hello world <eos> second line . <eos> hello again <eos>");
    free(s);
    encoded_text_free(&e);
    tokenizer_free(&tok);

    char *text;
    size_t len;
    assert_int_equal(text_read_file(path, &text, &len, &err), 0);
    assert_int_equal(len, strlen("Hello world\r\nsecond line.\r\n\r\nHello again\r\n"));
    assert_int_equal(text[0], 'H');
    free(text);
}

static void test_corpus_file_errors(void **state)
{
    (void)state;
    Tokenizer tok;
    SrError err;
    EncodedText e;

    const char *missing = temp_path("no_such_corpus.txt");
    assert_int_equal(tokenizer_build_from_file(&tok, missing, 1, 0, 0, &err), -1);
    assert_error_contains(&err, "no_such_corpus.txt: cannot open");

    const char *blank = temp_path("blank.txt");
    write_text(blank, "\xEF\xBB\xBF \r\n\t\n\n   ");
    assert_int_equal(tokenizer_build_from_file(&tok, blank, 1, 0, 0, &err), -1);
    assert_error_contains(&err, "blank.txt: empty corpus (no tokens)");

    const char *zero = temp_path("zero.txt");
    write_text(zero, "");
    assert_int_equal(tokenizer_build_from_file(&tok, zero, 1, 0, 0, &err), -1);
    assert_error_contains(&err, "zero.txt: empty corpus (no tokens)");

    assert_int_equal(tokenizer_build_from_text(&tok, "x", 1, "t", 1, 0, 0, &err), 0);
    assert_int_equal(tokenizer_encode_file(&tok, blank, TOK_EOS, &e, &err), -1);
    assert_error_contains(&err, "blank.txt: empty corpus (no tokens)");
    assert_null(e.ids);
    assert_int_equal(tokenizer_encode_file(&tok, missing, TOK_EOS, &e, &err), -1);
    assert_error_contains(&err, "no_such_corpus.txt: cannot open");

    char *text;
    size_t len;
    assert_int_equal(text_read_file(temp_dir, &text, &len, &err), -1); /* a directory */
    assert_error_contains(&err, "read error");
    assert_null(text);
    tokenizer_free(&tok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_punctuation_and_apostrophes),
        cmocka_unit_test(test_split_white_space),
        cmocka_unit_test(test_split_utf8_words),
        cmocka_unit_test(test_build_order_and_specials),
        cmocka_unit_test(test_build_ties_are_bytewise),
        cmocka_unit_test(test_build_min_count_and_max_vocab),
        cmocka_unit_test(test_build_lowercasing),
        cmocka_unit_test(test_lookup_many_words),
        cmocka_unit_test(test_save_load_round_trip),
        cmocka_unit_test(test_load_accepts_crlf_and_bom),
        cmocka_unit_test(test_load_rejects_bad_files),
        cmocka_unit_test(test_from_words),
        cmocka_unit_test(test_encode_decode_round_trip),
        cmocka_unit_test(test_unknown_words_pad_and_bad_ids),
        cmocka_unit_test(test_pretty_decode),
        cmocka_unit_test(test_encode_lines_separators),
        cmocka_unit_test(test_corpus_file_bom_and_crlf),
        cmocka_unit_test(test_corpus_file_errors),
    };
    return cmocka_run_group_tests(tests, make_temp_dir, remove_temp_dir);
}
