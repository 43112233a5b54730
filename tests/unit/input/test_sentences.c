/* test_sentences.c — the sentence set behind import-corpus (normalising,
 * dropping short and duplicate sentences, the held-out split) and the UTF-8
 * check it uses on users' files. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/text_file.h"
#include "base/utf8.h"
#include "data/sentences.h"

/* Add a NUL-terminated sentence; the call must succeed. */
static void add(SentenceSet *s, const char *text, SentenceCounts *c)
{
    SrError err;
    assert_int_equal(sentence_set_add(s, text, strlen(text), c, &err), 0);
}

/* White-space runs fold to one space, ends are trimmed; short lines and
 * duplicates (after folding) are counted and dropped; order is kept. */
static void test_normalise_short_and_duplicates(void **state)
{
    (void)state;
    SentenceSet s;
    SentenceCounts c = {0};
    sentence_set_init(&s, 3);
    add(&s, "  the\tcat \r\n sat  ", &c);
    add(&s, "two words", &c);
    add(&s, "the cat sat", &c);
    add(&s, "a dog ran far", &c);
    add(&s, "", &c);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.lines[0], "the cat sat");
    assert_string_equal(s.lines[1], "a dog ran far");
    assert_int_equal(c.offered, 5);
    assert_int_equal(c.kept, 2);
    assert_int_equal(c.duplicates, 1);
    assert_int_equal(c.too_short, 2);
    assert_int_equal(c.words, 3 + 4);
    sentence_set_free(&s);
}

/* Many distinct sentences survive the table's growth, and each is found as
 * a duplicate when offered again. */
static void test_many_sentences(void **state)
{
    (void)state;
    SentenceSet s;
    SentenceCounts c = {0};
    sentence_set_init(&s, 1);
    char line[64];
    for (int i = 0; i < 5000; i++) {
        snprintf(line, sizeof line, "sentence number %d", i);
        add(&s, line, &c);
    }
    for (int i = 0; i < 5000; i += 7) {
        snprintf(line, sizeof line, "sentence   number %d ", i);
        add(&s, line, &c);
    }
    assert_int_equal(s.n, 5000);
    assert_int_equal(c.duplicates, (5000 + 6) / 7);
    assert_string_equal(s.lines[4321], "sentence number 4321");
    sentence_set_free(&s);
}

/* Sentences 0, N, 2N, ... go to the held-out file, the rest to train. */
static void test_split(void **state)
{
    (void)state;
    SentenceSet s;
    SentenceCounts c = {0};
    sentence_set_init(&s, 1);
    const char *lines[] = {"s0 a", "s1 b c", "s2", "s3 d", "s4", "s5 e f g", "s6"};
    for (int i = 0; i < 7; i++) add(&s, lines[i], &c);
    char train[] = "/tmp/seqrep_sentences_train_XXXXXX", held[] = "/tmp/seqrep_sentences_held_XXXXXX";
    close(mkstemp(train));
    close(mkstemp(held));
    long nt, wt, nh, wh;
    SrError err;
    assert_int_equal(sentence_set_write_split(&s, 3, train, held, &nt, &wt, &nh, &wh, &err), 0);
    char *text;
    size_t len;
    assert_int_equal(text_read_file(train, &text, &len, &err), 0);
    assert_string_equal(text, "s1 b c\ns2\ns4\ns5 e f g\n");
    free(text);
    assert_int_equal(text_read_file(held, &text, &len, &err), 0);
    assert_string_equal(text, "s0 a\ns3 d\ns6\n");
    free(text);
    assert_int_equal(nt, 4);
    assert_int_equal(wt, 3 + 1 + 1 + 4);
    assert_int_equal(nh, 3);
    assert_int_equal(wh, 2 + 2 + 1);
    assert_int_equal(sentence_set_write_split(&s, 1, train, held, &nt, &wt, &nh, &wh, &err), -1);
    unlink(train);
    unlink(held);
    sentence_set_free(&s);
}

/* Well-formed UTF-8 passes whole; each kind of malformed sequence stops the
 * valid prefix where it starts. */
static void test_utf8(void **state)
{
    (void)state;
    const char *good = "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xE4\xB8\xAD";
    assert_int_equal(utf8_valid_prefix(good, strlen(good)), strlen(good));
    struct { const char *s; size_t valid; } bad[] = {
        {"ab\xFF", 2},               /* never a UTF-8 byte */
        {"a\xC0\xAF", 1},            /* overlong two-byte form */
        {"a\xE0\x80\xAF", 1},        /* overlong three-byte form */
        {"a\xED\xA0\x80", 1},        /* a surrogate */
        {"a\xF4\x90\x80\x80", 1},    /* above U+10FFFF */
        {"abc\xE2\x82", 3},          /* cut short */
        {"\x80", 0},                 /* a lone continuation byte */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(utf8_valid_prefix(bad[i].s, strlen(bad[i].s)), bad[i].valid);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normalise_short_and_duplicates),
        cmocka_unit_test(test_many_sentences),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
