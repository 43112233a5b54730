/* test_nlupp.c — NLU++ to IOB2: synthetic folds in a temporary directory
 * (character offsets over UTF-8, misaligned, overlapping, empty and
 * out-of-range spans, bad JSON, the ontology check, the whole import), and
 * the real data in ../shared/data/nlupp when it is there (split sizes 2152 /
 * 309 / 619, 17 slot types, spans checked by hand on known examples). The
 * real-data tests are skipped, with a message, when the data is absent. */
#include "test_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/conll.h"
#include "data/nlupp.h"

/* Where the real data is, seen from tests/ (the tests' working directory). */
static const char *REAL_DIR = "../../shared/data/nlupp";

static char temp_dir[64];

/* Remove every file under path (and its subdirectories), then path. */
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
    strcpy(temp_dir, "/tmp/seqrep_test_nlupp_XXXXXX");
    return mkdtemp(temp_dir) ? 0 : -1;
}

/* Remove the temporary directory and everything in it. */
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

/* Write a NUL-terminated string to a file. */
static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

/* Fail unless the error message contains `expected`. */
static void assert_error_contains(const SrError *err, const char *expected)
{
    if (!strstr(err->msg, expected)) {
        print_error("error message \"%s\" does not contain \"%s\"\n", err->msg, expected);
        fail();
    }
}

/* Compare sentence s of d with words and tags given as space-separated lists. */
static void assert_sentence(const Dataset *d, int s, const char *words, const char *tags)
{
    assert_true(s < d->n_sents);
    const Sentence *st = &d->sents[s];
    char buf_w[1024] = "", buf_t[2048] = "";
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

/* Read one synthetic fold written from `json`; returns the read's result. */
static int read_synthetic(const char *name, const char *json, Dataset *d, NluppCounts *c,
                          SrError *err)
{
    const char *path = temp_path(name);
    write_text(path, json);
    memset(d, 0, sizeof *d);
    memset(c, 0, sizeof *c);
    return nlupp_read_fold(path, d, c, NULL, NULL, 0, err);
}

/* ---- synthetic folds --------------------------------------------------------------- */

static void test_spans_to_iob2(void **state)
{
    (void)state;
    /* Offsets count characters: "café" is 4 characters and 5 bytes. */
    const char *json =
        "[{\"text\": \"a café au lait at 9 p.m. for Ann\","
        "  \"intents\": [\"x\"],"
        "  \"slots\": {\"time\": {\"text\": \"9 p.m.\", \"span\": [18, 24]},"
        "            \"person_name\": {\"text\": \"Ann\", \"span\": [29, 32]},"
        "            \"shopping_category\": {\"text\": \"café au lait\", \"span\": [2, 14]}}},"
        " {\"text\": \"no slots here\"},"
        " {\"text\": \"  spaced  \", \"slots\": {\"date\": {\"span\": [1, 9]}}}]";
    Dataset d;
    NluppCounts c;
    SrError err = {{0}};
    assert_int_equal(read_synthetic("spans.json", json, &d, &c, &err), 0);
    assert_int_equal(d.n_sents, 3);
    assert_sentence(&d, 0, "a café au lait at 9 p . m . for Ann",
                    "O B-shopping_category I-shopping_category I-shopping_category O B-time I-time "
                    "I-time I-time I-time O B-person_name");
    assert_sentence(&d, 1, "no slots here", "O O O");
    /* white space at the span's ends is ignored: not misaligned */
    assert_sentence(&d, 2, "spaced", "B-date");
    assert_int_equal(c.examples, 3);
    assert_int_equal(c.tokens, 16);
    assert_int_equal(c.spans, 4);
    assert_int_equal(c.misaligned, 0);
    assert_int_equal(c.overlapping, 0);
    dataset_free(&d);
}

static void test_misaligned_spans_counted_and_widened(void **state)
{
    (void)state;
    const char *json =
        "[{\"text\": \"free at 5ish?\", \"slots\": {\"time\": {\"span\": [8, 9]}}},"
        " {\"text\": \"rebooking now\", \"slots\": {\"x\": {\"span\": [2, 9]}}},"
        " {\"text\": \"two nights\", \"slots\": {\"n\": {\"span\": [0, 3]}}}]";
    Dataset d;
    NluppCounts c;
    SrError err = {{0}};
    const char *path = temp_path("misaligned.json");
    write_text(path, json);
    memset(&d, 0, sizeof d);
    memset(&c, 0, sizeof c);
    /* the log gets one line per misaligned span */
    char log_path[600];
    snprintf(log_path, sizeof log_path, "%s/log.txt", temp_dir);
    FILE *log = fopen(log_path, "w+");
    assert_non_null(log);
    assert_int_equal(nlupp_read_fold(path, &d, &c, log, NULL, 0, &err), 0);
    assert_sentence(&d, 0, "free at 5ish ?", "O O B-time O");
    assert_sentence(&d, 1, "rebooking now", "B-x O");
    assert_sentence(&d, 2, "two nights", "B-n O");
    assert_int_equal(c.spans, 3);
    assert_int_equal(c.misaligned, 2);
    rewind(log);
    char line[512];
    assert_non_null(fgets(line, sizeof line, log));
    assert_non_null(strstr(line, "misaligned.json: example 0: slot 'time': span [8, 9] '5' ends "
                                 "inside the token '5ish'; labelled the whole token"));
    assert_non_null(fgets(line, sizeof line, log));
    assert_non_null(strstr(line, "example 1: slot 'x': span [2, 9] 'booking' starts inside the "
                                 "token 'rebooking'"));
    assert_null(fgets(line, sizeof line, log));
    fclose(log);
    dataset_free(&d);
}

static void test_overlapping_spans_keep_longest(void **state)
{
    (void)state;
    const char *json =
        "[{\"text\": \"only today\", \"slots\": {\"date\": {\"span\": [5, 10]},"
        "                                     \"date_period\": {\"span\": [0, 10]}}},"
        " {\"text\": \"a b c d\", \"slots\": {\"p\": {\"span\": [0, 3]}, \"q\": {\"span\": [2, 5]},"
        "                                 \"r\": {\"span\": [6, 7]}}}]";
    Dataset d;
    NluppCounts c;
    SrError err = {{0}};
    assert_int_equal(read_synthetic("overlap.json", json, &d, &c, &err), 0);
    assert_sentence(&d, 0, "only today", "B-date_period I-date_period");
    /* p and q are both two tokens: the earlier start wins */
    assert_sentence(&d, 1, "a b c d", "B-p I-p O B-r");
    assert_int_equal(c.spans, 5);
    assert_int_equal(c.overlapping, 2);
    dataset_free(&d);
}

static void test_empty_spans_and_examples(void **state)
{
    (void)state;
    const char *json =
        "[{\"text\": \"a   b\", \"slots\": {\"gap\": {\"span\": [1, 4]}}},"
        " {\"text\": \"   \"},"
        " {\"text\": \"c\"}]";
    Dataset d;
    NluppCounts c;
    SrError err = {{0}};
    assert_int_equal(read_synthetic("empty.json", json, &d, &c, &err), 0);
    assert_int_equal(d.n_sents, 2);
    assert_sentence(&d, 0, "a b", "O O");
    assert_sentence(&d, 1, "c", "O");
    assert_int_equal(c.empty_spans, 1);
    assert_int_equal(c.empty_examples, 1);
    assert_int_equal(c.examples, 2);
    dataset_free(&d);
}

static void test_span_out_of_range(void **state)
{
    (void)state;
    Dataset d;
    NluppCounts c;
    SrError err = {{0}};
    /* "café" has 4 characters (5 bytes): [0, 5] is past its end */
    const char *json = "[{\"text\": \"ok\"}, {\"text\": \"café\", \"slots\": {\"date\": {\"span\": [0, 5]}}}]";
    assert_int_equal(read_synthetic("range.json", json, &d, &c, &err), -1);
    assert_error_contains(&err, "range.json: example 1: slot 'date': span [0, 5] is out of range "
                                "(the text has 4 characters)");
    dataset_free(&d);
    const char *negative = "[{\"text\": \"abc\", \"slots\": {\"t\": {\"span\": [-1, 2]}}}]";
    assert_int_equal(read_synthetic("negative.json", negative, &d, &c, &err), -1);
    assert_error_contains(&err, "negative.json: example 0: slot 't': span [-1, 2] is out of range");
    dataset_free(&d);
    const char *reversed = "[{\"text\": \"abc\", \"slots\": {\"t\": {\"span\": [2, 2]}}}]";
    assert_int_equal(read_synthetic("reversed.json", reversed, &d, &c, &err), -1);
    assert_error_contains(&err, "reversed.json: example 0: slot 't': span [2, 2] is out of range");
    dataset_free(&d);
}

/* Bytes that are not UTF-8 in a text or a slot name are refused, naming the
 * example: the CoNLL files written from them would not read back (found by
 * fuzzing; cJSON passes such bytes through). */
static void test_not_utf8(void **state)
{
    (void)state;
    Dataset d;
    NluppCounts c;
    SrError err = {{0}};
    const char *text = "[{\"text\": \"ok\"}, {\"text\": \"caf\xE9 au lait\"}]";
    assert_int_equal(read_synthetic("latin1.json", text, &d, &c, &err), -1);
    assert_error_contains(&err, "latin1.json: example 1: \"text\" is not valid UTF-8");
    dataset_free(&d);
    const char *name = "[{\"text\": \"a cab\", \"slots\": {\"kind\\u00e9\xFF\": {\"span\": [2, 5]}}}]";
    assert_int_equal(read_synthetic("name.json", name, &d, &c, &err), -1);
    assert_error_contains(&err, "name.json: example 0: slot name");
    assert_error_contains(&err, "is not valid UTF-8");
    dataset_free(&d);
}

static void test_bad_structure(void **state)
{
    (void)state;
    Dataset d;
    NluppCounts c;
    SrError err = {{0}};
    assert_int_equal(read_synthetic("syntax.json", "[\n{\"text\": \"a\"},\n{\"text\": }\n]", &d, &c,
                                    &err), -1);
    assert_error_contains(&err, "syntax.json:3: invalid JSON");
    dataset_free(&d);
    assert_int_equal(read_synthetic("object.json", "{\"text\": \"a\"}", &d, &c, &err), -1);
    assert_error_contains(&err, "object.json: expected a JSON array of examples");
    assert_int_equal(read_synthetic("notext.json", "[{\"text\": \"a\"}, {\"intents\": []}]", &d, &c,
                                    &err), -1);
    assert_error_contains(&err, "notext.json: example 1: no \"text\" string");
    dataset_free(&d);
    assert_int_equal(read_synthetic("float.json",
                                    "[{\"text\": \"abc\", \"slots\": {\"t\": {\"span\": [0.5, 2]}}}]",
                                    &d, &c, &err), -1);
    assert_error_contains(&err, "float.json: example 0: slot 't': \"span\" is not two integers");
    assert_int_equal(read_synthetic("nospan.json", "[{\"text\": \"abc\", \"slots\": {\"t\": {}}}]", &d,
                                    &c, &err), -1);
    assert_error_contains(&err, "nospan.json: example 0: slot 't': \"span\" is not two integers");
    assert_int_equal(read_synthetic("badname.json",
                                    "[{\"text\": \"abc\", \"slots\": {\"a b\": {\"span\": [0, 1]}}}]",
                                    &d, &c, &err), -1);
    assert_error_contains(&err, "badname.json: example 0: slot name 'a b' is empty or has white space");
    assert_int_equal(nlupp_read_fold(temp_path("missing.json"), &d, &c, NULL, NULL, 0, &err), -1);
    assert_error_contains(&err, "missing.json: cannot open");
}

/* Make a small NLU++-shaped directory: every fold "[]" except a few. */
static void make_fake_dir(const char *root, int with_unknown_slot)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", root);
    mkdir(path, 0777);
    for (int d = 0; d < 2; d++) {
        const char *domain = d == 0 ? "banking" : "hotels";
        snprintf(path, sizeof path, "%s/%s", root, domain);
        mkdir(path, 0777);
        for (int f = 0; f < 20; f++) {
            snprintf(path, sizeof path, "%s/%s/fold%d.json", root, domain, f);
            const char *text = "[]";
            if (d == 0 && f == 0)
                text = "[{\"text\": \"pay 5 euros\", \"slots\": {\"amount_of_money\": {\"span\": [4, 11]}}}]";
            if (d == 1 && f == 19) text = "[{\"text\": \"two rooms\", \"slots\": {\"rooms\": {\"span\": [0, 9]}}}]";
            if (d == 0 && f == 11) text = "[{\"text\": \"dev one\"}, {\"text\": \"dev two\"}]";
            if (d == 1 && f == 10)
                text = with_unknown_slot ? "[{\"text\": \"x\", \"slots\": {\"colour\": {\"span\": [0, 1]}}}]"
                                         : "[{\"text\": \"test\"}]";
            write_text(path, text);
        }
    }
    snprintf(path, sizeof path, "%s/ontology.json", root);
    write_text(path, "{\"intents\": {}, \"slots\": {\"amount_of_money\": {}, \"rooms\": {}}}");
}

static void test_import_whole_directory(void **state)
{
    (void)state;
    char root[256], out[256], path[1024];
    snprintf(root, sizeof root, "%s/fake", temp_dir);
    snprintf(out, sizeof out, "%s/out/nested", temp_dir);
    make_fake_dir(root, 0);
    NluppCounts counts[NLUPP_N_SPLITS];
    SrError err = {{0}};
    assert_int_equal(nlupp_import(root, out, counts, NULL, &err), 0);
    assert_int_equal(counts[NLUPP_TRAIN].examples, 2);
    assert_int_equal(counts[NLUPP_DEV].examples, 2);
    assert_int_equal(counts[NLUPP_TEST].examples, 1);
    assert_int_equal(counts[NLUPP_TRAIN].spans, 2);

    Dataset d;
    snprintf(path, sizeof path, "%s/train.conll", out);
    assert_int_equal(conll_read_scheme(path, &d, NULL, NULL, &err), 0);
    /* banking before hotels */
    assert_sentence(&d, 0, "pay 5 euros", "O B-amount_of_money I-amount_of_money");
    assert_sentence(&d, 1, "two rooms", "B-rooms I-rooms");
    dataset_free(&d);
    snprintf(path, sizeof path, "%s/dev.conll", out);
    assert_int_equal(conll_read_scheme(path, &d, NULL, NULL, &err), 0);
    assert_int_equal(d.n_sents, 2);
    dataset_free(&d);
    snprintf(path, sizeof path, "%s/test.conll", out);
    assert_int_equal(conll_read_scheme(path, &d, NULL, NULL, &err), 0);
    assert_sentence(&d, 0, "test", "O");
    dataset_free(&d);

    /* a slot the ontology does not know is an error, and nothing is written */
    char root2[256], out2[256];
    snprintf(root2, sizeof root2, "%s/fake2", temp_dir);
    snprintf(out2, sizeof out2, "%s/out2", temp_dir);
    make_fake_dir(root2, 1);
    assert_int_equal(nlupp_import(root2, out2, counts, NULL, &err), -1);
    assert_error_contains(&err, "fake2/hotels/fold10.json: example 0: slot 'colour' is not in "
                                "ontology.json");
    struct stat st;
    assert_int_not_equal(stat(out2, &st), 0);

    /* a missing fold names the file */
    snprintf(path, sizeof path, "%s/banking/fold16.json", root2);
    remove(path);
    assert_int_equal(nlupp_import(root2, out2, counts, NULL, &err), -1);
    assert_error_contains(&err, "fake2/banking/fold16.json: cannot open");
}

/* ---- the real data --------------------------------------------------------------------- */

/* 1 if the real NLU++ data is present; otherwise print why the test skips. */
static int have_real_data(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/banking/fold0.json", REAL_DIR);
    FILE *f = fopen(path, "rb");
    if (f) {
        fclose(f);
        return 1;
    }
    print_message("NLU++ not found at tests/%s (../shared/data/nlupp from the repository root); "
                  "skipping\n", REAL_DIR);
    return 0;
}

static void test_real_split_counts(void **state)
{
    (void)state;
    if (!have_real_data()) skip();
    Dataset sets[NLUPP_N_SPLITS];
    NluppCounts counts[NLUPP_N_SPLITS];
    SrError err = {{0}};
    assert_int_equal(nlupp_read_splits(REAL_DIR, sets, counts, NULL, &err), 0);
    /* the numbers of the data's README */
    assert_int_equal(sets[NLUPP_TRAIN].n_sents, 2152);
    assert_int_equal(sets[NLUPP_DEV].n_sents, 309);
    assert_int_equal(sets[NLUPP_TEST].n_sents, 619);
    assert_int_equal(counts[NLUPP_TRAIN].examples + counts[NLUPP_DEV].examples +
                     counts[NLUPP_TEST].examples, 3080);
    for (int k = 0; k < NLUPP_N_SPLITS; k++) {
        assert_int_equal(counts[k].empty_examples, 0);
        assert_int_equal(counts[k].tokens, dataset_n_words(&sets[k]));
    }
    /* every span accounted for: 1 misaligned "5ish", 2 nested spans */
    assert_int_equal(counts[NLUPP_TRAIN].spans, 1392);
    assert_int_equal(counts[NLUPP_DEV].spans, 203);
    assert_int_equal(counts[NLUPP_TEST].spans, 392);
    assert_int_equal(counts[NLUPP_TRAIN].misaligned, 1);
    assert_int_equal(counts[NLUPP_TRAIN].overlapping + counts[NLUPP_TEST].overlapping, 2);
    /* 17 slot types across both domains */
    const Dataset *all[] = {&sets[0], &sets[1], &sets[2]};
    char **labels;
    int n_labels;
    assert_int_equal(dataset_labels(all, 3, &labels, &n_labels, &err), 0);
    assert_int_equal(n_labels, 1 + 2 * 17);
    assert_true(dataset_label_index(labels, n_labels, "B-date_period") > 0);
    assert_true(dataset_label_index(labels, n_labels, "I-kids") > 0);
    dataset_labels_free(labels, n_labels);
    for (int k = 0; k < NLUPP_N_SPLITS; k++) dataset_free(&sets[k]);
}

/* Read one real fold file. */
static void read_real_fold(const char *name, Dataset *d, NluppCounts *c)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", REAL_DIR, name);
    memset(d, 0, sizeof *d);
    memset(c, 0, sizeof *c);
    SrError err = {{0}};
    if (nlupp_read_fold(path, d, c, NULL, NULL, 0, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
}

/* Index of the first sentence of d whose words start with w0 w1, or -1. */
static int find_sentence(const Dataset *d, const char *w0, const char *w1)
{
    for (int s = 0; s < d->n_sents; s++)
        if (d->sents[s].n_words >= 2 && strcmp(d->sents[s].words[0], w0) == 0 &&
            strcmp(d->sents[s].words[1], w1) == 0)
            return s;
    return -1;
}

static void test_real_known_examples(void **state)
{
    (void)state;
    if (!have_real_data()) skip();
    Dataset d;
    NluppCounts c;

    read_real_fold("banking/fold0.json", &d, &c);
    /* "ok, I can make it between 9 05 in the morning and 25 to 7 p.m. any day next week" */
    assert_sentence(&d, 1,
                    "ok , I can make it between 9 05 in the morning and 25 to 7 p . m . any day "
                    "next week",
                    "O O O O O O O B-time_from I-time_from I-time_from I-time_from I-time_from O "
                    "B-time_to I-time_to I-time_to I-time_to I-time_to I-time_to I-time_to O O "
                    "B-date_period I-date_period");
    dataset_free(&d);

    /* character offsets after a non-ASCII character: "670€" is 4 characters */
    read_real_fold("banking/fold9.json", &d, &c);
    int s = find_sentence(&d, "transfer", "670\xE2\x82\xAC");
    assert_true(s >= 0);
    assert_sentence(&d, s, "transfer 670\xE2\x82\xAC in 4 days at 11 45 in the morning",
                    "O B-amount_of_money B-date I-date I-date O B-time I-time I-time I-time "
                    "I-time");
    dataset_free(&d);

    /* the misaligned span: "5" of "5ish" labels the whole token */
    read_real_fold("banking/fold14.json", &d, &c);
    assert_int_equal(c.misaligned, 1);
    assert_sentence(&d, 77, "is there something free at 5ish ?", "O O O O O B-time O");
    dataset_free(&d);

    /* nested spans: the longer one is kept */
    read_real_fold("hotels/fold13.json", &d, &c);
    assert_int_equal(c.overlapping, 1);
    assert_sentence(&d, 51, "only today", "B-date_period I-date_period");
    dataset_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spans_to_iob2),
        cmocka_unit_test(test_misaligned_spans_counted_and_widened),
        cmocka_unit_test(test_overlapping_spans_keep_longest),
        cmocka_unit_test(test_empty_spans_and_examples),
        cmocka_unit_test(test_span_out_of_range),
        cmocka_unit_test(test_not_utf8),
        cmocka_unit_test(test_bad_structure),
        cmocka_unit_test(test_import_whole_directory),
        cmocka_unit_test(test_real_split_counts),
        cmocka_unit_test(test_real_known_examples),
    };
    return cmocka_run_group_tests(tests, make_temp_dir, remove_temp_dir);
}
