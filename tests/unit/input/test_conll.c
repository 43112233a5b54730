/* test_conll.c — reading CoNLL files (IOB2, IOB1 and IOBES converted to IOB2,
 * CRLF, a byte-order mark, extra columns, -DOCSTART-), every rejection with
 * its file:line, writing (round trip, predictions column, atomicity) and the
 * dataset helpers (label list, directory creation). */
#include "test_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/conll.h"
#include "data/dataset.h"

/* ---- helpers ------------------------------------------------------------------- */

static char temp_dir[64];

/* Remove every file under path (one level of subdirectories), then path. */
static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *e;
    char child[600];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        struct stat st;
        if (stat(child, &st) == 0 && S_ISDIR(st.st_mode)) remove_tree(child);
        else remove(child);
    }
    closedir(d);
    rmdir(path);
}

/* Make a private temporary directory for the files of this run. */
static int make_temp_dir(void **state)
{
    (void)state;
    strcpy(temp_dir, "/tmp/seqrep_test_conll_XXXXXX");
    return mkdtemp(temp_dir) ? 0 : -1;
}

/* Remove the temporary directory and whatever the tests left in it. */
static int remove_temp_dir(void **state)
{
    (void)state;
    remove_tree(temp_dir);
    return 0;
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

/* Read `text` as a CoNLL file called name; expect failure with a message
 * containing "<path>:<line>:" (line > 0) or "<path>:" and `expected`. */
static void assert_read_fails(const char *name, const char *text, size_t len, int line,
                              const char *expected)
{
    const char *path = temp_path(name);
    write_bytes(path, text, len);
    Dataset d;
    SrError err = {{0}};
    assert_int_equal(conll_read_scheme(path, &d, NULL, NULL, &err), -1);
    assert_int_equal(d.n_sents, 0);
    assert_null(d.sents);
    char where[600];
    if (line > 0) snprintf(where, sizeof where, "%s:%d: ", path, line);
    else snprintf(where, sizeof where, "%s: ", path);
    assert_error_contains(&err, where);
    assert_error_contains(&err, expected);
}

/* Compare sentence s of d with words and tags given as space-separated lists. */
static void assert_sentence(const Dataset *d, int s, const char *words, const char *tags)
{
    assert_true(s < d->n_sents);
    const Sentence *st = &d->sents[s];
    char buf_w[512] = "", buf_t[512] = "";
    for (int i = 0; i < st->n_words; i++) {
        if (i) {
            strcat(buf_w, " ");
            strcat(buf_t, " ");
        }
        strcat(buf_w, st->words[i]);
        strcat(buf_t, st->tags[i]);
    }
    assert_string_equal(buf_w, words);
    assert_string_equal(buf_t, tags);
}

/* ---- reading ---------------------------------------------------------------------- */

static void test_read_iob2(void **state)
{
    (void)state;
    const char *path = temp_path("iob2.conll");
    write_text(path,
               "-DOCSTART- -X- -X- O\n"
               "\n"
               "John NNP B-PER\n"
               "Smith\tNNP\tI-PER\n"
               "visited VBD O\n"
               "New B-LOC\n"
               "York I-LOC\n"
               "\n"
               "\n"
               "  \t \n"
               "U.S. B-LOC\n"
               "officials O\n");           /* last sentence without a blank line */
    Dataset d;
    ConllScheme scheme = CONLL_IOBES;
    int changed = -1;
    SrError err = {{0}};
    assert_int_equal(conll_read_scheme(path, &d, &scheme, &changed, &err), 0);
    assert_int_equal(scheme, CONLL_IOB2);
    assert_int_equal(changed, 0);
    assert_string_equal(d.source, path);
    assert_int_equal(d.n_sents, 2);
    assert_sentence(&d, 0, "John Smith visited New York", "B-PER I-PER O B-LOC I-LOC");
    assert_sentence(&d, 1, "U.S. officials", "B-LOC O");
    assert_int_equal(d.sents[0].line, 3);
    assert_int_equal(d.sents[1].line, 11);
    assert_int_equal(dataset_n_words(&d), 7);
    dataset_free(&d);
    assert_null(d.sents);
    dataset_free(&d); /* safe twice */
}

static void test_read_iob1_converted(void **state)
{
    (void)state;
    /* IOB1: spans open with I-; B- only separates two adjacent spans of a type. */
    const char *path = temp_path("iob1.conll");
    write_text(path,
               "Wolff I-PER\n"
               "in O\n"
               "Buenos I-LOC\n"
               "Aires I-LOC\n"
               "and O\n"
               "Paris I-LOC\n"
               "Rome B-LOC\n"
               "Bonn I-LOC\n"
               "met I-ORG\n"
               "\n"
               "EU I-ORG\n"
               "rejects O\n"
               "German I-MISC\n");
    Dataset d;
    ConllScheme scheme;
    int changed;
    SrError err = {{0}};
    assert_int_equal(conll_read_scheme(path, &d, &scheme, &changed, &err), 0);
    assert_int_equal(scheme, CONLL_IOB1);
    assert_int_equal(changed, 6); /* Wolff Buenos Paris met EU German */
    assert_sentence(&d, 0, "Wolff in Buenos Aires and Paris Rome Bonn met",
                    "B-PER O B-LOC I-LOC O B-LOC B-LOC I-LOC B-ORG");
    assert_sentence(&d, 1, "EU rejects German", "B-ORG O B-MISC");
    dataset_free(&d);
}

static void test_read_iobes_converted(void **state)
{
    (void)state;
    const char *path = temp_path("iobes.conll");
    write_text(path,
               "John B-PER\n"
               "Ronald I-PER\n"
               "Smith E-PER\n"
               "met O\n"
               "Mary S-PER\n"
               "in O\n"
               "Paris S-LOC\n"
               "Texas S-LOC\n"
               "\n"
               "Big B-ORG\n"
               "Co E-ORG\n");
    Dataset d;
    ConllScheme scheme;
    int changed;
    SrError err = {{0}};
    assert_int_equal(conll_read_scheme(path, &d, &scheme, &changed, &err), 0);
    assert_int_equal(scheme, CONLL_IOBES);
    assert_int_equal(changed, 5);
    assert_sentence(&d, 0, "John Ronald Smith met Mary in Paris Texas",
                    "B-PER I-PER I-PER O B-PER O B-LOC B-LOC");
    assert_sentence(&d, 1, "Big Co", "B-ORG I-ORG");
    dataset_free(&d);
}

static void test_read_prints_notice_and_converts(void **state)
{
    (void)state;
    const char *path = temp_path("notice.conll");
    write_text(path, "a S-X\nb O\n");
    Dataset d;
    SrError err = {{0}};
    assert_int_equal(conll_read(path, &d, &err), 0); /* prints one notice line */
    assert_sentence(&d, 0, "a b", "B-X O");
    dataset_free(&d);
}

static void test_read_crlf_and_bom(void **state)
{
    (void)state;
    const char text[] = "\xEF\xBB\xBF" "Jos\xC3\xA9 B-PER\r\nran O\r\n\r\nhome O\r\n";
    const char *path = temp_path("crlf.conll");
    write_bytes(path, text, sizeof text - 1);
    Dataset d;
    SrError err = {{0}};
    assert_int_equal(conll_read_scheme(path, &d, NULL, NULL, &err), 0);
    assert_int_equal(d.n_sents, 2);
    assert_sentence(&d, 0, "Jos\xC3\xA9 ran", "B-PER O");
    assert_sentence(&d, 1, "home", "O");
    assert_int_equal(d.sents[1].line, 4);
    dataset_free(&d);
}

/* ---- rejections --------------------------------------------------------------------- */

static void test_reject_one_column(void **state)
{
    (void)state;
    const char text[] = "a O\nb\nc O\n";
    assert_read_fails("one_column.conll", text, sizeof text - 1, 2, "only one column ('b')");
}

static void test_reject_unknown_tag(void **state)
{
    (void)state;
    const char text[] = "a O\n\nb B-X\nc FOO\n";
    assert_read_fails("unknown_tag.conll", text, sizeof text - 1, 4,
                      "tag 'FOO' is not in the IOB/IOBES scheme");
    const char empty_type[] = "a B-\n";
    assert_read_fails("empty_type.conll", empty_type, sizeof empty_type - 1, 1,
                      "tag 'B-' is not in the IOB/IOBES scheme");
    const char lower[] = "a o\n";
    assert_read_fails("lower.conll", lower, sizeof lower - 1, 1, "tag 'o' is not");
}

static void test_reject_mixed_schemes(void **state)
{
    (void)state;
    /* IOBES tags in one sentence, an IOB1-style I- start in another. */
    const char text[] = "a S-X\nb O\n\nc O\nd I-Y\ne I-Y\n";
    assert_read_fails("mixed.conll", text, sizeof text - 1, 5,
                      "mixed schemes: an I- tag opens a span (IOB1 style) but the file uses IOBES "
                      "tags (first E-/S- on line 1)");
}

static void test_reject_iobes_end_without_begin(void **state)
{
    (void)state;
    const char text[] = "a S-X\nb O\nc E-X\n";
    assert_read_fails("bad_end.conll", text, sizeof text - 1, 3, "E- tag does not close a span");
}

static void test_reject_empty_file(void **state)
{
    (void)state;
    assert_read_fails("empty.conll", "", 0, 0, "empty file");
    const char bom_only[] = "\xEF\xBB\xBF";
    assert_read_fails("bom_only.conll", bom_only, 3, 0, "empty file");
}

static void test_reject_no_sentence(void **state)
{
    (void)state;
    const char text[] = "-DOCSTART- -X- O O\n\n \n-DOCSTART- O\n\n";
    assert_read_fails("docstart.conll", text, sizeof text - 1, 0,
                      "no sentence (only blank lines and -DOCSTART-)");
}

static void test_reject_invalid_utf8(void **state)
{
    (void)state;
    const char text[] = "ok O\nbad\xC3( O\n";
    assert_read_fails("bad_utf8.conll", text, sizeof text - 1, 2, "invalid UTF-8 (byte 0xC3 in column 4)");
    const char overlong[] = "a O\nb O\n\xC0\xAF O\n";
    assert_read_fails("overlong.conll", overlong, sizeof overlong - 1, 3, "invalid UTF-8");
    const char surrogate[] = "\xED\xA0\x80 O\n";
    assert_read_fails("surrogate.conll", surrogate, sizeof surrogate - 1, 1, "invalid UTF-8");
    const char cut[] = "a O\nab\xE2\x82";
    assert_read_fails("cut.conll", cut, sizeof cut - 1, 2, "invalid UTF-8");
}

static void test_reject_control_bytes(void **state)
{
    (void)state;
    const char text[] = "a O\nb\x01 O\n";
    assert_read_fails("control.conll", text, sizeof text - 1, 2, "control byte 0x01");
    const char lone_cr[] = "a O\rb O\n";
    assert_read_fails("lone_cr.conll", lone_cr, sizeof lone_cr - 1, 1, "control byte 0x0D");
    const char nul[] = "a O\nb\0c O\n";
    assert_read_fails("nul.conll", nul, sizeof nul - 1, 2, "control byte 0x00");
}

static void test_reject_missing_file(void **state)
{
    (void)state;
    Dataset d;
    SrError err = {{0}};
    assert_int_equal(conll_read(temp_path("no_such.conll"), &d, &err), -1);
    assert_error_contains(&err, "no_such.conll: cannot open");
}

/* ---- writing ---------------------------------------------------------------------- */

/* A small dataset built in memory. */
static void make_dataset(Dataset *d)
{
    memset(d, 0, sizeof *d);
    const char *w0[] = {"Jos\xC3\xA9", "lives", "in", "New", "York", "."};
    const char *t0[] = {"B-PER", "O", "O", "B-LOC", "I-LOC", "O"};
    const char *w1[] = {"U.S.", "-DOCSTARTS-"};
    const char *t1[] = {"B-LOC", "O"};
    SrError err;
    assert_int_equal(dataset_add(d, w0, t0, 6, 1, &err), 0);
    assert_int_equal(dataset_add(d, w1, t1, 2, 8, &err), 0);
}

static void test_write_read_round_trip(void **state)
{
    (void)state;
    Dataset d, back;
    make_dataset(&d);
    SrError err = {{0}};
    const char *path = temp_path("round.conll");
    assert_int_equal(conll_write(path, &d, NULL, &err), 0);
    assert_int_equal(conll_read_scheme(path, &back, NULL, NULL, &err), 0);
    assert_int_equal(back.n_sents, d.n_sents);
    for (int s = 0; s < d.n_sents; s++) {
        assert_int_equal(back.sents[s].n_words, d.sents[s].n_words);
        for (int w = 0; w < d.sents[s].n_words; w++) {
            assert_string_equal(back.sents[s].words[w], d.sents[s].words[w]);
            assert_string_equal(back.sents[s].tags[w], d.sents[s].tags[w]);
        }
    }
    assert_int_equal(back.sents[1].line, 8);
    dataset_free(&back);

    /* With predictions: three columns; reading keeps the LAST column. */
    char *p0[] = {"B-PER", "O", "O", "B-LOC", "O", "O"};
    char *p1[] = {"O", "O"};
    char *const *pred[] = {p0, p1};
    const char *path3 = temp_path("pred.conll");
    assert_int_equal(conll_write(path3, &d, pred, &err), 0);
    FILE *f = fopen(path3, "rb");
    assert_non_null(f);
    char line[128];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "Jos\xC3\xA9 B-PER B-PER\n");
    fclose(f);
    assert_int_equal(conll_read_scheme(path3, &back, NULL, NULL, &err), 0);
    assert_string_equal(back.sents[0].tags[4], "O");
    dataset_free(&back);
    dataset_free(&d);
}

/* A first word that begins with U+FEFF (a file with two byte-order marks)
 * survives writing and reading: the writer puts a mark in front, which the
 * reader drops instead of the word's (found by fuzzing). */
static void test_round_trip_first_word_with_bom(void **state)
{
    (void)state;
    const char text[] = "\xEF\xBB\xBF\xEF\xBB\xBF" "caf\xC3\xA9 B-FOOD\r\nau I-FOOD\n";
    const char *path = temp_path("two-boms.conll"), *again = temp_path("two-boms-again.conll");
    write_bytes(path, text, sizeof text - 1);
    Dataset d, back;
    SrError err = {{0}};
    assert_int_equal(conll_read_scheme(path, &d, NULL, NULL, &err), 0);
    assert_string_equal(d.sents[0].words[0], "\xEF\xBB\xBF" "caf\xC3\xA9");
    assert_int_equal(conll_write(again, &d, NULL, &err), 0);
    assert_int_equal(conll_read_scheme(again, &back, NULL, NULL, &err), 0);
    assert_string_equal(back.sents[0].words[0], d.sents[0].words[0]);
    assert_string_equal(back.sents[0].words[1], "au");
    dataset_free(&back);
    dataset_free(&d);
}

static void test_write_is_atomic(void **state)
{
    (void)state;
    Dataset d;
    make_dataset(&d);
    SrError err = {{0}};
    const char *path = temp_path("atomic.conll");
    write_text(path, "old O\n");
    /* A word with a space cannot be written: the old file stays untouched
     * and no temporary file is left. */
    free(d.sents[0].words[1]);
    d.sents[0].words[1] = strdup("two words");
    assert_int_equal(conll_write(path, &d, NULL, &err), -1);
    assert_error_contains(&err, "sentence 1, word 2: the word is empty or contains white space");
    Dataset back;
    assert_int_equal(conll_read_scheme(path, &back, NULL, NULL, &err), 0);
    assert_sentence(&back, 0, "old", "O");
    dataset_free(&back);

    /* An unwritable place: the error names the file. */
    free(d.sents[0].words[1]);
    d.sents[0].words[1] = strdup("lives");
    assert_int_equal(conll_write("/nonexistent_dir_seqrep/x.conll", &d, NULL, &err), -1);
    assert_error_contains(&err, "/nonexistent_dir_seqrep/x.conll: cannot write");

    /* A good write replaces the file and leaves only it. */
    assert_int_equal(conll_write(path, &d, NULL, &err), 0);
    DIR *dir = opendir(temp_dir);
    assert_non_null(dir);
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) assert_null(strstr(e->d_name, ".tmp."));
    closedir(dir);
    dataset_free(&d);
}

/* ---- dataset helpers ------------------------------------------------------------------- */

static void test_dataset_labels(void **state)
{
    (void)state;
    Dataset a, b = {0};
    make_dataset(&a);
    const char *w[] = {"x", "y"};
    const char *t[] = {"B-ORG", "I-ORG"};
    SrError err;
    assert_int_equal(dataset_add(&b, w, t, 2, 0, &err), 0);
    const Dataset *sets[] = {&a, &b};
    char **labels;
    int n;
    assert_int_equal(dataset_labels(sets, 2, &labels, &n, &err), 0);
    assert_int_equal(n, 7);
    const char *expected[] = {"O", "B-LOC", "I-LOC", "B-ORG", "I-ORG", "B-PER", "I-PER"};
    for (int i = 0; i < 7; i++) assert_string_equal(labels[i], expected[i]);
    assert_int_equal(dataset_label_index(labels, n, "I-ORG"), 4);
    assert_int_equal(dataset_label_index(labels, n, "B-MISC"), -1);
    dataset_labels_free(labels, n);
    dataset_free(&a);
    dataset_free(&b);
}

static void test_dataset_make_dir(void **state)
{
    (void)state;
    SrError err = {{0}};
    const char *deep = temp_path("d1/d2/d3");
    assert_int_equal(dataset_make_dir(deep, &err), 0);
    struct stat st;
    assert_int_equal(stat(deep, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(dataset_make_dir(deep, &err), 0); /* exists: fine */
    const char *file = temp_path("plain_file");
    write_text(file, "x");
    assert_int_equal(dataset_make_dir(file, &err), -1);
    assert_error_contains(&err, "plain_file: exists and is not a directory");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_iob2),
        cmocka_unit_test(test_read_iob1_converted),
        cmocka_unit_test(test_read_iobes_converted),
        cmocka_unit_test(test_read_prints_notice_and_converts),
        cmocka_unit_test(test_read_crlf_and_bom),
        cmocka_unit_test(test_reject_one_column),
        cmocka_unit_test(test_reject_unknown_tag),
        cmocka_unit_test(test_reject_mixed_schemes),
        cmocka_unit_test(test_reject_iobes_end_without_begin),
        cmocka_unit_test(test_reject_empty_file),
        cmocka_unit_test(test_reject_no_sentence),
        cmocka_unit_test(test_reject_invalid_utf8),
        cmocka_unit_test(test_reject_control_bytes),
        cmocka_unit_test(test_reject_missing_file),
        cmocka_unit_test(test_write_read_round_trip),
        cmocka_unit_test(test_round_trip_first_word_with_bom),
        cmocka_unit_test(test_write_is_atomic),
        cmocka_unit_test(test_dataset_labels),
        cmocka_unit_test(test_dataset_make_dir),
    };
    return cmocka_run_group_tests(tests, make_temp_dir, remove_temp_dir);
}
